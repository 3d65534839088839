"""The compiled ``win`` objective (numba: learned.kernel._win_gaps, _win_strengths; engine.kernel._turn_levels)
against the numpy one (learned.win_model: design, strength_numerators, WinObjective.values and
shelf_values), the reference: the same integers on random sheets and seat tables, and the same
games move for move (docs/performance.md, "Rollouts")."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from fractions import Fraction

import numpy as np
import pytest

from shelfie_solver.dice.allocate import feasibility_arrays
from shelfie_solver.dice.board import Marks, load_board
from shelfie_solver.dice.game.events import GameState
from shelfie_solver.dice.game.record import game_to_json
from shelfie_solver.dice.game.turn import play_seeded
from shelfie_solver.dice.learned.kernel import kernel_function
from shelfie_solver.dice.learned.model_file import WEIGHT_SCALE
from shelfie_solver.dice.learned.win_model import (
    CHANCE_SCALE,
    COEF_SCALE,
    DEFAULT_TOP_VALUE,
    DEFAULT_WIN_PATH,
    FEATURES,
    ROWS,
    WinObjective,
    _softmax_shares,
    board_scale,
    compiled_win_values,
    design,
    strength_numerators,
    win_objective,
)
from shelfie_solver.dice.objectives import StateArrays
from shelfie_solver.dice.rules import DEFAULT_RULES
from shelfie_solver.dice.strategies import WinStrategy

from conftest import walk_trees

pytest.importorskip("numba")

BOARD, RULES = load_board(None, DEFAULT_RULES), DEFAULT_RULES


def random_sheet(rng: np.random.Generator) -> Marks:
    """A sheet with each item marked, eliminated or available at random (shares drawn per sheet,
    so some sheets are nearly full: closed shelves, completed lines, the trigger, D15-D17)."""
    share = rng.dirichlet((1.0, 0.4, 1.0))
    state = rng.choice(3, size=BOARD.n_cells, p=share)
    bits = 1 << np.arange(BOARD.n_cells, dtype=object)
    return Marks(BOARD.n_shelves, BOARD.n_columns, int((bits * (state == 1)).sum()), int((bits * (state == 2)).sum()))


def random_state(rng: np.random.Generator, players: int) -> GameState:
    """A random table of ``players`` seats: random sheets (one with an available item for the
    active seat), seat, first player, round and trigger."""
    sheets = [random_sheet(rng) for _ in range(players)]
    active = int(rng.integers(players))
    while not sheets[active].available:
        sheets[active] = random_sheet(rng)
    first = int(rng.integers(players))
    turn = players * int(rng.integers(0, 12)) + (active - first) % players
    return GameState(BOARD, RULES, tuple(sheets), active, first, turn, bool(rng.integers(2)))


def numpy_values(objective: WinObjective, state: GameState) -> tuple[np.ndarray, np.ndarray, list[tuple[int, int]]]:
    """Every usable item set's chance (the numpy reference, :meth:`WinObjective.values`; 0
    elsewhere), the usable sets' indices (D4) and :meth:`WinObjective.shelf_values`."""
    arrays = StateArrays(BOARD, RULES, state.marks)
    sets = feasibility_arrays(BOARD, RULES).sets
    usable = np.flatnonzero(np.append(arrays.available, True)[sets.cells].all(axis=1))
    out = np.zeros(len(sets.sizes) + 1, dtype=np.int64)
    out[usable] = objective.values(arrays, sets.take(usable))
    return out, usable, objective.shelf_values(arrays)


def assert_compiled_equals_numpy(objective, state) -> tuple[np.ndarray, object]:
    """The compiled turn values of ``objective`` at ``state`` equal :func:`numpy_values`' (every
    item set's worth, the usable sets, the failed result's shelves); returns the worth and shelves."""
    found = objective.compiled_turn_values(StateArrays(BOARD, RULES, state.marks))
    assert found is not None
    worth, usable, shelves = found
    expected, expected_usable, expected_shelves = numpy_values(objective, state)
    assert np.array_equal(np.flatnonzero(usable[:-1]), expected_usable)
    assert np.array_equal(worth, expected)
    assert shelves == expected_shelves
    return worth, shelves


@pytest.mark.parametrize("players", [2, 3, 4])
def test_compiled_values_equal_numpy_on_random_tables(players: int) -> None:
    rng = np.random.default_rng(4100 + players)
    for _ in range(25):
        state = random_state(rng, players)
        assert_compiled_equals_numpy(win_objective(state), state)


def test_compiled_values_equal_numpy_on_many_two_player_tables() -> None:
    """The fused front (learned.kernel._win_front: line totals, both _win_gaps calls, the
    shelves, _markings_end) against the numpy reference on many two-player tables, half of them
    with the end triggered (the exact endings, D17, D18)."""
    rng = np.random.default_rng(4120)
    exact = 0
    for i in range(120):
        state = random_state(rng, 2)
        state = replace(state, end_triggered=bool(i % 2))
        objective = win_objective(state)
        exact += objective.end_exact is not None
        worth, usable, shelves = objective.compiled_turn_values(StateArrays(BOARD, RULES, state.marks))
        expected, expected_usable, expected_shelves = numpy_values(objective, state)
        assert np.array_equal(np.flatnonzero(usable[:-1]), expected_usable)
        assert np.array_equal(worth, expected)
        assert shelves == expected_shelves
    assert exact >= 30  # the exact endings were exercised


@pytest.mark.parametrize("players", [2, 3, 4])
def test_values_from_the_table_equal_the_objective_s(players: int) -> None:
    """compiled_win_values (learned.kernel._win_turn: every seat's inputs from the bit masks, no
    objective built) against win_objective(state).compiled_turn_values and the numpy reference,
    on random tables with and without the end triggered (D17, D18)."""
    rng = np.random.default_rng(4130 + players)
    for i in range(60 if players == 2 else 25):
        state = replace(random_state(rng, players), end_triggered=bool(i % 2))
        objective = win_objective(state)
        found = compiled_win_values(state)
        assert found is not None
        worth, usable, shelves = found
        expected = objective.compiled_turn_values(StateArrays(BOARD, RULES, state.marks))
        assert expected is not None
        assert np.array_equal(worth, expected[0]) and np.array_equal(usable, expected[1])
        assert shelves == expected[2]
        reference, _, reference_shelves = numpy_values(objective, state)
        assert np.array_equal(worth, reference) and shelves == reference_shelves


def test_exact_last_turns_from_the_kernel_equal_the_objective_s_values_and_policy() -> None:
    """strategies._compiled_exact_values (the last turns, D17, D18: engine.kernel.markings_end's
    points and blocks, then values_after) against the exact objective's own values of every
    usable set, and the policy built on them against dp.solve_turn's, every roll and level."""
    from shelfie_solver.dice.engine.dp import solve_turn
    from shelfie_solver.dice.rolls import space_for
    from shelfie_solver.dice.strategies import _compiled_exact_values, _win_turn_policy
    from shelfie_solver.dice.win_chance import exact_objective

    rng = np.random.default_rng(4140)
    sets = feasibility_arrays(BOARD, RULES).sets
    space = space_for(RULES)
    seen: list[str] = []
    for _ in range(60):
        state = replace(random_state(rng, int(rng.integers(2, 5))), end_triggered=True)
        objective = exact_objective(state)
        if objective is None:
            continue
        seen.append(type(objective).__name__)
        found = _compiled_exact_values(state, objective)
        assert found is not None
        worth, usable, shelves = found
        arrays = StateArrays(BOARD, RULES, state.marks)
        index = np.flatnonzero(usable[:-1])
        assert np.array_equal(index, np.flatnonzero(np.append(arrays.available, True)[sets.cells].all(axis=1)))
        assert np.array_equal(worth[index], objective.values(arrays, sets.take(index)))
        assert shelves == objective.shelf_values(arrays)
        policy = _win_turn_policy(state, worth, usable, shelves)[0]
        expected = solve_turn(BOARD, state.marks, RULES, objective).policy
        for level in range(1, RULES.rerolls + 1):
            assert [int(policy[level][r]) for r in range(len(space.rolls))] == expected[level].tolist()
    assert seen.count("LastTurnWin") >= 5 and seen.count("BeforeLastWin") >= 5


def test_two_seat_softmax_is_the_general_one_bit_for_bit() -> None:
    """_softmax_shares' two-seat shortcut (1 + one exp, the mover's own gap 0) gives the float
    sum of the general formula bit for bit: every total compared as bits, not only the rounded
    shares (clipped at +-60, lengths 1 to 3,000, so SIMD tails of every length)."""
    rng = np.random.default_rng(4121)
    unit = COEF_SCALE * WEIGHT_SCALE
    for _ in range(400):
        k = int(rng.integers(1, 3000))
        spread = int(unit * rng.choice([0.5, 3, 20, 90]))
        gaps = np.zeros((k, 2), dtype=np.int64)
        gaps[:, 1] = rng.integers(-spread, spread + 1, size=k)
        general = np.exp(np.minimum(np.maximum(gaps.astype(np.float64) / unit, -60.0), 60.0)).sum(axis=-1)
        shortcut = 1.0 + np.exp(np.minimum(np.maximum(gaps[:, 1].astype(np.float64) / unit, -60.0), 60.0))
        assert np.array_equal(general.view(np.int64), shortcut.view(np.int64))
        expected = np.clip(np.rint(CHANCE_SCALE / general), 1, CHANCE_SCALE - 1).astype(np.int64)  # never certain
        assert np.array_equal(_softmax_shares(gaps), expected)
        assert np.array_equal(_softmax_shares(gaps, own_first=True), expected)
    three = np.concatenate([np.zeros((5, 1), dtype=np.int64), rng.integers(-unit, unit, size=(5, 2))], axis=1)
    general3 = np.exp(three.astype(np.float64) / unit).sum(axis=-1)  # three seats: the general formula
    assert np.array_equal(_softmax_shares(three),
                          np.clip(np.rint(CHANCE_SCALE / general3), 1, CHANCE_SCALE - 1).astype(np.int64))


def test_compiled_strengths_equal_numpy_on_random_seats() -> None:
    strengths = kernel_function("_win_strengths")
    rng = np.random.default_rng(4107)
    for _ in range(400):
        n = int(rng.integers(2, 5))
        p = rng.integers(-20, 120, size=n) * WEIGHT_SCALE + rng.integers(0, WEIGHT_SCALE, size=n)
        if rng.integers(2):
            p[1] = p[0]  # a tie for the lead
        seats = np.stack([p, rng.integers(0, 90, size=n), rng.integers(-1, 4, size=n),
                          np.concatenate([[0], rng.permutation(np.arange(1, n))])], axis=1).astype(np.int64)
        c = rng.integers(-10**7, 10**7, size=(len(ROWS), len(FEATURES))).astype(np.int64)
        phase = int(rng.choice([0, 2, 3]))
        round_number = int(rng.integers(1, 15))
        to_play = int(rng.integers(0, n))  # the seats still to play in the round: "a turn ahead" on and off
        z = np.zeros(n, dtype=np.int64)
        strengths(seats, c[ROWS.index(phase)], round_number, to_play, WEIGHT_SCALE, z)
        x = design(np.array([phase]), seats[None], round_number, to_play=to_play)
        assert z.tolist() == strength_numerators(c, np.array([phase]), x, round_number)[0].tolist()


def test_beyond_int64_the_numpy_path() -> None:
    rng = np.random.default_rng(4108)
    state = random_state(rng, 2)
    objective = win_objective(state)
    huge = replace(objective, calibration=np.full((len(ROWS), len(FEATURES)), 1 << 50, dtype=np.int64))
    assert huge.compiled_turn_values(StateArrays(BOARD, RULES, state.marks)) is None


@pytest.mark.parametrize("players", [2, 3])
def test_compiled_win_plays_the_numpy_games(players: int) -> None:
    for seed in np.random.SeedSequence(4110 + players).spawn(2):
        fast, slow = WinStrategy(), WinStrategy(kernel="numpy")
        a = play_seeded(BOARD, RULES, [fast] * players, seed)
        b = play_seeded(BOARD, RULES, [slow] * players, seed)
        assert game_to_json(a, game=0, seed=0) == game_to_json(b, game=0, seed=0)


def test_best_final_scores_equal_the_points_objective_on_random_sheets() -> None:
    from shelfie_solver.dice.board import score
    from shelfie_solver.dice.engine.dp import final_values
    from shelfie_solver.dice.objectives import Points
    from shelfie_solver.dice.win_chance import best_final_scores

    rng = np.random.default_rng(4120)
    for _ in range(60):
        marks = random_sheet(rng)
        expected = final_values(BOARD, marks, RULES, Points()).columns[:, 0] + score(BOARD, marks, RULES)
        assert np.array_equal(best_final_scores(BOARD, RULES, marks), expected)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_no_marking_ends_the_game_where_none_may(players: int) -> None:
    from shelfie_solver.dice.sheet_rules import markings_end_game, may_end_game

    rng = np.random.default_rng(4130 + players)
    sets = feasibility_arrays(BOARD, RULES).sets
    seen = {True: 0, False: 0}
    for _ in range(150):
        state = random_state(rng, players)
        usable = np.flatnonzero(np.append(StateArrays(BOARD, RULES, state.marks).available, True)[sets.cells].all(axis=1))
        may = may_end_game(BOARD, RULES, state.sheets, state.active)
        seen[may] += 1
        if not may:
            assert not markings_end_game(BOARD, RULES, state.sheets, state.active, sets.take(usable)).any()
    assert seen[True] and seen[False]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_compiled_markings_end_equal_the_sheet_rules_marking_by_marking(players: int) -> None:
    """engine.kernel.markings_end (one compiled call) against, per marking, the rules' own
    functions: sheet_rules.marking_ends_game (D15 blocks, D17), the score after it (board.score,
    D19) and every other sheet after the lines it completes blocked them (sheet_rules.block)."""
    from shelfie_solver.dice.board import score
    from shelfie_solver.dice.engine.kernel import markings_end, turn_arrays
    from shelfie_solver.dice.sheet_rules import (
        block,
        completed_lines,
        marking_ends_game,
    )

    rng = np.random.default_rng(4160 + players)
    cells = turn_arrays(BOARD, RULES).cells
    ended = checked = 0
    for _ in range(40):
        state = random_state(rng, players)
        mine = state.marks
        usable = np.flatnonzero(np.append(StateArrays(BOARD, RULES, mine).available, True)[cells].all(axis=1))
        index = np.array(rng.permutation(usable)[:40], dtype=np.int64)
        m, _, mp, _ = StateArrays(BOARD, RULES, mine).line_totals
        found = markings_end(BOARD, RULES, state.sheets, state.active, index, m, mp)
        assert found is not None
        ends, gains, blocked = found
        others = [j for j in range(players) if j != state.active]
        for row, k in enumerate(index):
            marked = tuple(int(c) for c in cells[k] if c >= 0)
            after = mine.with_marked(marked)
            assert ends[row] == marking_ends_game(BOARD, RULES, state.sheets, state.active, marked)
            assert gains[row] == score(BOARD, after, RULES) - score(BOARD, mine, RULES)
            new = tuple(line for line in completed_lines(BOARD, after) if line not in completed_lines(BOARD, mine))
            placed = state.sheets[:state.active] + (after,) + state.sheets[state.active + 1:]
            expected = block(BOARD, placed, state.active, new)[0]
            assert [int(b) for b in blocked[row]] == [expected[j].eliminated for j in others]
            ended += bool(ends[row])
            checked += 1
    assert checked > 500 and 0 < ended < checked


def test_sheets_chances_equal_each_last_turn_solved_alone() -> None:
    from shelfie_solver.dice.board import score
    from shelfie_solver.dice.engine.dp import solve_turn
    from shelfie_solver.dice.win_chance import LastTurnWin, sheets_chances

    rng = np.random.default_rng(4140)
    sheets = [random_sheet(rng) for _ in range(4)]
    sheets = [m for m in sheets if m.available][:3]
    # scores below the sheet's score now (a sure win), out of its reach (a sure loss) and between
    cases = [(m, [(score(BOARD, m, RULES) - 1,), (score(BOARD, m, RULES) + 200,),
                  (score(BOARD, m, RULES) + 6,), (score(BOARD, m, RULES) + 12, 3)]) for m in sheets]
    found = sheets_chances(BOARD, RULES, cases)
    for (marks, others), chances in zip(cases, found):
        alone = [solve_turn(BOARD, marks, RULES, LastTurnWin(o)).start_values()[0] for o in others]
        assert chances == alone
        assert chances[0] == 1 and chances[1] == 0


@pytest.mark.parametrize("rerolls", [0, 1, 2, 3])
def test_last_turn_numerators_equal_each_turn_solved_alone(rerolls: int) -> None:
    """The start numerators of LastTurnWin turns (win_chance._last_turn_numerators: compiled,
    engine.kernel._last_turn_starts, up to 2 re-rolls; 3 re-rolls leave int64 and take the
    batched DP's limbs) equal dp.solve_turn of each turn alone, over chance_scale, on random
    sheets against best other scores around theirs, ties of 1-3 other players included (D20)."""
    from shelfie_solver.dice.board import score
    from shelfie_solver.dice.engine.dp import solve_turn
    from shelfie_solver.dice.win_chance import (
        LastTurnWin,
        _last_turn_numerators,
        _top_and_tied,
        best_final_scores,
        chance_scale,
    )

    rules = replace(RULES, rerolls=rerolls)
    rng = np.random.default_rng(4150 + rerolls)
    sheets = [m for m in (random_sheet(rng) for _ in range(8)) if m.available][:2 if rerolls == 3 else 4]
    finals, expected = [], []
    for marks in sheets:
        now = score(BOARD, marks, rules)
        others = [tuple(now + int(d) for d in rng.integers(0, 25, size=int(rng.integers(1, 4))))
                  for _ in range(2 if rerolls == 3 else 4)]
        others.append((now + 10, now + 10, now + 10))  # a four-way tie at the top is possible
        tops, ties = zip(*(_top_and_tied(o) for o in others))
        finals.append((best_final_scores(BOARD, rules, marks), list(tops), list(ties)))
        for o in others:
            start = solve_turn(BOARD, marks, rules, LastTurnWin(o)).start_values()[0]
            assert (start * chance_scale(rules)).denominator == 1
            expected.append(int(start * chance_scale(rules)))
    assert _last_turn_numerators(rules, finals) == expected
    assert any(0 < e < chance_scale(rules) for e in expected)  # not only sure wins and losses


def test_compiled_before_last_values_equal_the_batched_ones() -> None:
    """BeforeLastWin.values_after by one compiled call (win_chance._compiled_before_last,
    engine.kernel._before_last_values) equals its batched path (sheets_chance_numerators) on
    random sheets: the player's scores around the opponent's (below their score now, beyond their
    reach, between, repeated), the opponent's sheet as it is or after blocks of random lines
    (D15), sheets left with no available item among them (D13), the same score on several sheets."""
    from shelfie_solver.dice.board import score
    from shelfie_solver.dice.sheet_rules import block
    from shelfie_solver.dice.win_chance import BeforeLastWin, _compiled_before_last

    rng = np.random.default_rng(4160)
    decided = between = 0
    for _ in range(12):
        mine, theirs = random_sheet(rng), random_sheet(rng)
        objective = BeforeLastWin(theirs, (mine, theirs))
        sheets = [theirs] + [block(BOARD, (mine, theirs), 0, [int(line)])[0][1]
                             for line in rng.choice(BOARD.n_shelves + BOARD.n_columns, size=3, replace=False)]
        sheets.append(Marks(BOARD.n_shelves, BOARD.n_columns, theirs.marked, (1 << BOARD.n_cells) - 1 & ~theirs.marked))
        now = score(BOARD, theirs, RULES)
        rows = 24
        after = now + rng.integers(-5, 40, size=rows)
        blocked = np.array([[sheets[int(i)].eliminated] for i in rng.integers(len(sheets), size=rows)], dtype=np.int64)
        state = StateArrays(BOARD, RULES, mine)
        compiled = _compiled_before_last(BOARD, RULES, theirs, after, blocked)
        assert compiled is not None
        batched = objective._batched_values_after(state, after, blocked)
        assert compiled.tolist() == batched.tolist()
        scale = objective.scale(RULES)
        decided += sum(v in (0, scale) for v in batched.tolist())
        between += sum(0 < v < scale for v in batched.tolist())
    assert decided > 20 and between > 20


def test_before_last_values_equal_each_opponent_turn_solved_alone() -> None:
    """BeforeLastWin.values (the batched numerators of ``sheets_chance_numerators``) equals, per
    marking, 1 minus the opponent's last turn solved alone by dp.solve_turn of LastTurnWin
    against the player's score after the marking (D15 blocks, D18, D20), times the scale."""
    from shelfie_solver.dice.board import item_sets, score
    from shelfie_solver.dice.engine.dp import solve_turn
    from shelfie_solver.dice.win_chance import BeforeLastWin, LastTurnWin, share

    rng = np.random.default_rng(5151)
    sets = item_sets(BOARD, RULES.combinations_per_turn)
    checked = between = 0
    for _ in range(6):
        mine, theirs = random_sheet(rng), random_sheet(rng)
        usable = [i for i, cells in enumerate(sets.cells) if all(mine.is_available(c) for c in cells if c >= 0)]
        if not usable:
            continue
        chosen = sets.take(np.array(rng.permutation(usable)[:12], dtype=np.int64))
        objective = BeforeLastWin(theirs, (mine, theirs))
        got = objective.values(StateArrays(BOARD, RULES, mine), chosen)
        scale = objective.scale(RULES)
        for row, cells in enumerate(chosen.cells):
            marked = tuple(int(c) for c in cells if c >= 0)
            after = score(BOARD, mine.with_marked(marked), RULES)
            opponent = objective._opponent_after(BOARD, marked)
            theirs_chance = (solve_turn(BOARD, opponent, RULES, LastTurnWin((after,))).start_values()[0]
                             if opponent.available else share(score(BOARD, opponent, RULES), (after,)))
            assert got[row] == (1 - theirs_chance) * scale
            checked += 1
            between += 0 < theirs_chance < 1  # a case the DP decides, not a sure win or loss
    assert checked >= 24 and between


def test_before_last_failed_value_is_one_minus_the_opponent_turn_solved_alone() -> None:
    """BeforeLastWin.failed_value (D13: no score changes, nothing blocked) equals 1 minus the
    opponent's last turn solved alone by dp.solve_turn of LastTurnWin against the player's score
    now, times the scale (D18, D20)."""
    from shelfie_solver.dice.board import score
    from shelfie_solver.dice.engine.dp import solve_turn
    from shelfie_solver.dice.win_chance import BeforeLastWin, LastTurnWin, share

    rng = np.random.default_rng(5252)
    between = 0
    for _ in range(30):
        mine, theirs = random_sheet(rng), random_sheet(rng)
        objective = BeforeLastWin(theirs, (mine, theirs))
        now = score(BOARD, mine, RULES)
        chance = (solve_turn(BOARD, theirs, RULES, LastTurnWin((now,))).start_values()[0]
                  if theirs.available else share(score(BOARD, theirs, RULES), (now,)))
        assert objective.failed_value(StateArrays(BOARD, RULES, mine)) == (1 - chance) * objective.scale(RULES)
        between += 0 < chance < 1
    assert between


def test_exact_share_rounds_half_up_as_fractions() -> None:
    """WinObjective._exact_share (int64 after the common factor) equals round-half-up of
    worth / scale * CHANCE_SCALE computed with Fractions, for BeforeLastWin's scale (the int64
    path) and a scale whose products leave int64 (the Python-integer path)."""
    from fractions import Fraction
    from math import floor

    from shelfie_solver.dice.learned.win_model import CHANCE_SCALE
    from shelfie_solver.dice.win_chance import BeforeLastWin, LastTurnWin

    rng = np.random.default_rng(4190)
    state = random_state(rng, 2)
    arrays = StateArrays(BOARD, RULES, state.marks)
    objective = win_objective(state)
    sheets = (state.sheets[0], state.sheets[1])

    class Huge(LastTurnWin):
        def scale(self, rules: object) -> int:
            return (1 << 61) + 1

    for exact in (BeforeLastWin(sheets[1], sheets), LastTurnWin((3,)), Huge((3,))):
        scale = exact.scale(RULES)
        chosen = replace(objective, end_exact=exact)
        worth = np.array([0, 1, scale // 2, scale // 3, scale - 1, scale, *rng.integers(0, min(scale, 1 << 62), 20)],
                         dtype=np.int64)
        expected = [floor(Fraction(int(w) * CHANCE_SCALE, scale) + Fraction(1, 2)) for w in worth]
        assert chosen._exact_share(worth, arrays).tolist() == expected


# --- boards of high values (docs/formats.md: item values up to 10,000) ---

SCALE = 800
BIG_BOARD = replace(BOARD, values=tuple(tuple(v * SCALE for v in row) for row in BOARD.values))


def python_projected(row: list[int], features: list[list[int]], r: int) -> list[int]:
    """The strengths ``c . x_i`` of one position through the monotone projection, in Python
    integers from its definition (docs/win-chance.md, "Monotone in the lead"): a seat's slope in
    P, ``A_i = c0 + c1 r + c5 [another seat near] + c6 [near]``, raised to 0 (``-A_i P`` added);
    the curve ``B = c11 + c12 r``; where ``B < 0`` each lead clamped at
    ``T = 5 W (min A - 2|B|) / (2|B|)`` (0 when negative) before ``lead |lead| / (10 W)``."""
    near = [f[4] != 0 for f in features]
    slopes = []
    for i in range(len(features)):
        other = sum(near) - near[i] > 0
        slopes.append(row[0] + row[1] * r + row[5] * other + row[6] * near[i])
    b = row[11] + row[12] * r
    least = min(max(a, 0) for a in slopes)
    ps = [f[0] for f in features]
    out = []
    for i, f in enumerate(features):
        g = list(f)
        if b < 0:
            t = max(0, (5 * WEIGHT_SCALE * (least - 2 * -b)) // (2 * -b))
            lead = ps[i] - max(ps[:i] + ps[i + 1:])
            if abs(lead) > t:
                held = t if lead > 0 else -t
                g[11] = (held * abs(held)) // (10 * WEIGHT_SCALE)
                g[12] = g[11] * r
        out.append(sum(a * v for a, v in zip(row, g)) + max(-slopes[i], 0) * ps[i])
    return out


def python_features(seats: list[list[int]], r: int, scale: Fraction = Fraction(1), to_play: int = 0) -> list[list[int]]:
    """The features of learned.win_model.FEATURES of one position, seat by seat in Python
    integers (unbounded), from their definitions: ``P`` and the score (over WEIGHT_SCALE) in the
    default board's points (divided by the board's value scale, floor), the lead over the best
    *other* seat, its signed square over 10 points (floor), "near" one closed shelf short of the
    trigger (D17); "a turn ahead" from the places in the round (D5, D18): the player who just
    played has place ``q = n - 1 - to_play``, the seat ``k`` turns after it place ``(q + k) % n``,
    and a seat is a turn ahead when its place is at most ``q`` (it has played this round) while
    some seat (place above ``q``) has not. Then the sheet's 42 line-state counts times
    WEIGHT_SCALE (format 4), 0 where ``seats`` has only the 4 seat columns."""
    w = WEIGHT_SCALE
    points = [[math.floor(p / scale), math.floor(s * w / scale), d, k] for p, s, d, k, *_ in seats]
    n = len(points)
    q = n - 1 - to_play
    out = []
    for i, (p, sw, d, k) in enumerate(points):
        others = [seat for j, seat in enumerate(points) if j != i]
        lead = p - max(o[0] for o in others)
        curve = (lead * abs(lead)) // (10 * w)
        near = 1 if d == 1 else 0
        another = 1 if any(o[2] == 1 for o in others) else 0
        ahead = w if q < n - 1 and (q + k) % n <= q else 0
        out.append([p, p * r, sw, sw * r, near * w, (p - sw) * another, (p - sw) * near,
                    w * (k == 1), w * r * (k == 1), w * (k == 2), w * (k == 3), curve, curve * r, ahead]
                   + ([w * c for c in seats[i][4:]] if len(seats[i]) > 4 else [0] * 42))
    return out


def test_design_is_exact_beyond_int64_on_a_high_value_board() -> None:
    """Seats of a board of values x800 (P up to ~1e11, a lead of ~1e5 points: ``lead * |lead|``
    ~1e21 > 2**63): design's features equal the unbounded Python-integer definition, as do the
    strength numerators (and the compiled strengths report the int64 bound as exceeded)."""
    rng = np.random.default_rng(4130)
    strengths = kernel_function("_win_strengths")
    c = rng.integers(-10**7, 10**7, size=(len(ROWS), len(FEATURES))).astype(np.int64)
    for _ in range(200):
        n = int(rng.integers(2, 5))
        p = rng.integers(-20 * SCALE, 200 * SCALE, size=n) * WEIGHT_SCALE + rng.integers(0, WEIGHT_SCALE, size=n)
        seats = np.stack([p, rng.integers(0, 200, size=n) * SCALE, rng.integers(-1, 4, size=n),
                          np.concatenate([[0], rng.permutation(np.arange(1, n))])], axis=1).astype(np.int64)
        r = int(rng.integers(1, 15))
        phase = int(rng.choice([0, 2, 3]))
        to_play = int(rng.integers(0, n))
        expected = python_features(seats.tolist(), r, to_play=to_play)
        x = design(np.array([phase]), seats[None], r, to_play=to_play)
        assert [[int(v) for v in row] for row in x[0]] == expected
        row = [int(v) for v in c[ROWS.index(phase)]]
        z = python_projected(row, expected, r)
        assert [int(v) for v in strength_numerators(c, np.array([phase]), x, r)[0]] == z
        leads = [abs(f[11]) for f in expected]
        if max(leads) * 10 * WEIGHT_SCALE >= 1 << 62:  # lead beyond 2**31: int64 would wrap
            assert strengths(seats, c[ROWS.index(phase)], r, to_play, WEIGHT_SCALE,
                             np.zeros(n, dtype=np.int64)) >= 1 << 62


def test_the_design_bounds_have_one_home() -> None:
    """win_model.design and the compiled kernel read the same int64 bounds, from
    learned.win_bounds (the kernel imports it, not win_model: simulate's start-up)."""
    from shelfie_solver.dice.learned import kernel, win_bounds, win_model

    for name in ("DESIGN_INPUT_BOUND", "DESIGN_ROUND_BOUND", "DESIGN_LEAD_BOUND"):
        assert getattr(kernel, name) is getattr(win_bounds, name) is getattr(win_model, name)
    assert (win_bounds.DESIGN_INPUT_BOUND, win_bounds.DESIGN_ROUND_BOUND, win_bounds.DESIGN_LEAD_BOUND) == \
        (2**40, 2**20, 2**31)


def far_behind(board) -> GameState:
    """The tester's position: the player with one item eliminated, the opponent with three full
    shelves less one item each and ``r1c1`` marked, round 5, the player to mark (D5)."""
    from shelfie_solver.dice.board import parse_marks

    me = parse_marks("x..../...../...../...../.....", board)
    them = parse_marks("o..../oooo./oooo./oooo./.....", board)
    return GameState(board, RULES, (me, them), 0, 0, 8, False)


def python_chances(objective: WinObjective, arrays: StateArrays, sets) -> list[int]:
    """The model's chance of each marking of ``sets``, from its seat columns by the Python-integer
    features (:func:`python_features`, in the default board's points, with the seats still to
    play in the round, D5, D18) and strengths (plus, with two seats, the shipped file's trees
    walked from its own lists: conftest.walk_trees), one float conversion per difference."""
    m, a, mp, ap = arrays.line_totals
    phase, seats = objective.seat_columns(arrays, m + sets.line_count, a - sets.line_count,
                                          mp + sets.line_points, ap - sets.line_points)
    out = []
    block = json.loads(DEFAULT_WIN_PATH.read_text("utf-8")).get("trees", {}).get("2")
    for k in range(len(phase)):
        row = [int(v) for v in objective.calibration[ROWS.index(int(phase[k]))]]
        features = python_features(seats[k].tolist(), objective.round_number, Fraction(SCALE), objective.to_play)
        z = [sum(a * b for a, b in zip(row, f)) for f in features]
        if block is not None and len(features) == 2:  # the shipped file's trees (format 5), 2 seats only
            z = [zi + walk_trees(block, [*features[i], *features[1 - i], int(phase[k])]) for i, zi in enumerate(z)]
        total = sum(math.exp(min(max((zj - z[0]) / (10**6 * WEIGHT_SCALE), -60.0), 60.0)) for zj in z)
        out.append(round(10**6 / total))
    return out


def test_a_high_value_board_is_exact_in_both_kernels() -> None:
    """On the x800 board (value scale 800) the compiled path gives way to the numpy path
    (``None``; on the default board it answers), whose chances equal the Python-integer
    computation in the default board's points; a seeded game of the compiled ``win`` on that board is the numpy one's."""
    state = far_behind(BIG_BOARD)
    objective = win_objective(state)
    arrays = StateArrays(BIG_BOARD, RULES, state.marks)
    assert objective.compiled_turn_values(arrays) is None
    small = far_behind(BOARD)
    assert win_objective(small).compiled_turn_values(StateArrays(BOARD, RULES, small.marks)) is not None
    sets = feasibility_arrays(BIG_BOARD, RULES).sets
    usable = np.flatnonzero(np.append(arrays.available, True)[sets.cells].all(axis=1))
    chosen = sets.take(usable)
    assert objective.values(arrays, chosen).tolist() == python_chances(objective, arrays, chosen)
    seed = np.random.SeedSequence(4131)
    a = play_seeded(BIG_BOARD, RULES, [WinStrategy()] * 2, seed)
    b = play_seeded(BIG_BOARD, RULES, [WinStrategy(kernel="numpy")] * 2, seed)
    assert game_to_json(a, game=0, seed=0) == game_to_json(b, game=0, seed=0)


def test_far_behind_on_a_high_value_board_ranks_as_on_the_default_board() -> None:
    """The tester's position on the x800 board, the seat 62,400 points (78 default points) behind
    in round 5: before its turn it ranks second with a chance below 1%, and every marking's chance
    is the default board's (the model reads points relative to the board's value scale, 800;
    before, it ranked first at 100%)."""
    values = []
    for board in (BOARD, BIG_BOARD):
        state = far_behind(board)
        objective = win_objective(state)
        arrays = StateArrays(board, RULES, state.marks)
        every = objective.every_chance(arrays)
        assert every[0] < 10_000 < every[1]  # below 1%, the opponent first
        sets = feasibility_arrays(board, RULES).sets
        usable = np.flatnonzero(np.append(arrays.available, True)[sets.cells].all(axis=1))
        values.append(objective.values(arrays, sets.take(usable)).tolist())
    assert values[0] == values[1]


def times(board, k: int):
    """``board`` with every item value multiplied by ``k``."""
    return replace(board, values=tuple(tuple(v * k for v in row) for row in board.values))


def test_board_scale_is_one_on_boards_of_the_default_range() -> None:
    """The value scale: the largest value over the default board's largest (12, read from the
    board file here), exactly 1 on the default board and on every example board whose values are
    at most 12; ``k`` on the default board times ``k``; 18 / 12 on a board whose top value is 18."""
    from pathlib import Path

    assert DEFAULT_TOP_VALUE == max(max(row) for row in BOARD.values) == 12
    assert board_scale(BOARD) == 1 and isinstance(board_scale(BOARD), Fraction)
    examples = Path(__file__).parent.parent / "examples"
    checked = 0
    for path in sorted((examples / "boards").glob("*.toml")):
        if path.stem in ("five-dice", "five-of-a-kind"):
            continue  # their own rulesets (tests/test_board.py); solitaire boards
        board = load_board(path, RULES)
        if max(max(row) for row in board.values) <= 12:
            assert board_scale(board) == 1, path.name
            checked += 1
    assert checked >= 15
    for k in (2, 7, 800):
        assert board_scale(times(BOARD, k)) == k
    top18 = replace(BOARD, values=((18,) + BOARD.values[0][1:],) + BOARD.values[1:])
    assert board_scale(top18) == Fraction(3, 2)


def test_design_reads_points_relative_to_the_scale() -> None:
    """Seats whose ``P`` and score are ``k`` times another's, at scale ``k``, have exactly the
    other's features; at a fractional scale the features are the definition's on ``P / scale``
    and ``score * WEIGHT_SCALE / scale`` (floor, :func:`python_features`)."""
    rng = np.random.default_rng(4132)
    for _ in range(100):
        n = int(rng.integers(2, 5))
        p = rng.integers(-20, 200, size=n) * WEIGHT_SCALE + rng.integers(0, WEIGHT_SCALE, size=n)
        seats = np.stack([p, rng.integers(0, 200, size=n), rng.integers(-1, 4, size=n),
                          np.concatenate([[0], rng.permutation(np.arange(1, n))])], axis=1).astype(np.int64)
        r = int(rng.integers(1, 15))
        phase = np.array([int(rng.choice([0, 2, 3]))])
        k = int(rng.choice([2, 9, 800]))
        bigger = seats * np.array([k, k, 1, 1], dtype=np.int64)
        to_play = int(rng.integers(0, n))
        assert design(phase, bigger[None], r, Fraction(k), to_play=to_play).tolist() \
            == design(phase, seats[None], r, to_play=to_play).tolist()
        scale = Fraction(int(rng.integers(13, 10_000)), 12)
        expected = python_features(seats.tolist(), r, scale, to_play)
        assert [[int(v) for v in row] for row in design(phase, seats[None], r, scale, to_play=to_play)[0]] \
            == expected


def test_a_board_times_k_ranks_the_seats_as_the_original_board() -> None:
    """Random tables of 2-4 seats on the default board and the same sheets on the board of its
    values times ``k``: every seat's chance, so the seats' ranking, is the original board's (every
    point ``k`` times, every ``P`` exactly ``k`` times, read back at scale ``k``), and the compiled
    path gives way to the exact one there."""
    rng = np.random.default_rng(4133)
    for k in (2, 7, 800):
        board = times(BOARD, k)
        for _ in range(25):
            state = random_state(rng, int(rng.integers(2, 5)))
            state = replace(state, end_triggered=False)
            original = win_objective(state).every_chance(StateArrays(BOARD, RULES, state.marks))
            scaled_state = replace(state, board=board)
            objective = win_objective(scaled_state)
            arrays = StateArrays(board, RULES, scaled_state.marks)
            scaled = objective.every_chance(arrays)
            assert np.argsort(-scaled, kind="stable").tolist() == np.argsort(-original, kind="stable").tolist()
            assert scaled.tolist() == original.tolist()
            assert objective.compiled_turn_values(arrays) is None
