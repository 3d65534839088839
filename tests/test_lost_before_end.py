"""A seat that can no longer win before the end is triggered (D17) is an exact 0 (D13, D15, D19,
D20; docs/win-chance.md, "A seat that can no longer win stays at an exact 0"): its ceiling, the
score of its sheet with every available item marked (``board.highest_score``), bounds every final
score it can reach, and where that is below another seat's score now (which never falls) it has
lost, whoever plays next: ``win_chance.lost_seats``, ``lost_bounds`` (the mover's marking can put
it out), ``decided_objective`` (the mover itself out, or above every other ceiling) and
``lost_settled`` (every opponent out at a terminal: an exact 1), in the numpy and the compiled
paths alike. Before, a seat with an available item had no reach until the end was triggered, so
it kept the model's figure.

The breaker's kind of position, made with the CLI on small-3x4 (three players A, B, C, A first)::

    play new g.json --players A,B,C --first A --board examples/boards/small-3x4.toml
    play mark g.json r1c1 r1c2 r1c3 --unchecked   # A (6: shelf 1's 2 + 1 + 3)
    play mark g.json r2c1 --unchecked             # B
    play mark g.json r1c1 r1c2 r1c3 --unchecked   # C
    play mark g.json r2c1 --unchecked             # A
    play mark g.json r3c1 --unchecked             # B
    play mark g.json r1c4 r2c4 r3c4 --unchecked   # C completes shelf 1 (11) and column 4 (16):
                                                  # A's and B's items there blocked (D15)

B is then ``xxxx/o..x/o..x`` (one closed shelf, the end not triggered) with 0 points: every item
it can still mark is r2c2, r2c3, r3c2, r3c3, and with all four its shelves 2 and 3 score
1 + 3 + 2 = 6 and 3 + 2 + 4 = 9 while each column keeps 2 items (0, D19): 15 at most, below C's
2 + 1 + 3 + 5 + 5 + 6 + 5 = 27. Before the change ``play status`` showed B 1.9% (model) at A's turn
and 2.6% (model) after A's marking; B's own advice, rolling AAACCC, gave its markings up to 2.7% (model).
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from conftest import EXAMPLES, cli, cli_json, joint_chances, mover_terminals

from shelfie_solver.dice.allocate import legal_markings
from shelfie_solver.dice.board import Board, Marks, highest_score, load_board, parse_marks, score, top_other_score
from shelfie_solver.dice.game.events import GameState
from shelfie_solver.dice.learned.win_model import (
    CHANCE_SCALE,
    compiled_win_values,
    win_objective,
)
from shelfie_solver.dice.objectives import StateArrays
from shelfie_solver.dice.play.chances import seat_chances
from shelfie_solver.dice.rolls import space_for
from shelfie_solver.dice.rules import DEFAULT_RULES
from shelfie_solver.dice.win_chance import NO_HIGH, decided_objective, lost_bounds, lost_seats

RULES = DEFAULT_RULES
SMALL = load_board(EXAMPLES / "boards" / "small-3x4.toml", RULES)
TINY = load_board(EXAMPLES / "boards" / "tiny-2x3.toml", RULES)


# --- the bound, against every continuation of a sheet ------------------------------------------


def _moves(board: Board, marks: Marks, seen: dict[int, tuple[frozenset[tuple[int, ...]], bool]]) -> list[Marks]:
    """Every sheet one step can leave ``marks`` with: a turn's every legal marking of every final
    roll (D8-D12), a failed result's every shelf given up where some roll marks nothing (D13), an
    opponent's completed line blocking its available items (D15, any line). The markings per set
    of available items in ``seen``."""
    free = ~(marks.marked | marks.eliminated) & ((1 << marks.n_cells) - 1)
    if free not in seen:
        found: set[tuple[int, ...]] = set()
        fails = False
        for roll in space_for(RULES).rolls:
            legal = legal_markings(roll, board, marks, RULES)
            fails = fails or not legal
            found.update(tuple(sorted(m.cells)) for m in legal)
        seen[free] = (frozenset(found), fails)
    cells, fails = seen[free]
    out = [marks.with_marked(list(c)) for c in cells]
    shelves = [list(range(s * board.n_columns, (s + 1) * board.n_columns)) for s in range(board.n_shelves)]
    if fails:
        out += [marks.with_eliminated(shelf) for shelf in shelves if any(marks.is_available(c) for c in shelf)]
    out += [marks.with_eliminated(list(line)) for line in board.lines if any(marks.is_available(c) for c in line)]
    return out


def best_reachable(board: Board, marks: Marks) -> dict[tuple[int, int], int]:
    """Per sheet reachable from ``marks`` (itself included), the best score any continuation of
    the game can leave it (D19): every sequence of :func:`_moves`, with no end (D17 not applied:
    more turns than a game has, so at least the true best), by brute force."""
    best: dict[tuple[int, int], int] = {}
    seen: dict[int, tuple[frozenset[tuple[int, ...]], bool]] = {}

    def visit(sheet: Marks) -> int:
        key = (sheet.marked, sheet.eliminated)
        if key not in best:
            best[key] = max([score(board, sheet, RULES)] + [visit(after) for after in _moves(board, sheet, seen)])
        return best[key]

    visit(marks)
    return best


@pytest.mark.parametrize("board, text", [(TINY, ".../..."), (SMALL, "xxxx/o..x/o..x")])
def test_the_ceiling_bounds_every_continuation_and_is_reached_without_the_end(board: Board, text: str) -> None:
    start = parse_marks(text, board)
    best = best_reachable(board, start)
    assert len(best) > 50  # every reachable sheet: 729 from the empty tiny board, 81 from B's
    for (marked, eliminated), most in best.items():
        assert most <= highest_score(board, Marks(board.n_shelves, board.n_columns, marked, eliminated), RULES)
    # tight where the end never comes: every available item can be marked in some sequence of turns
    assert best[(start.marked, start.eliminated)] == highest_score(board, start, RULES)


def test_the_hand_worked_ceiling_of_b() -> None:
    b = parse_marks("xxxx/o..x/o..x", SMALL)
    assert score(SMALL, b, RULES) == 0
    assert highest_score(SMALL, b, RULES) == (1 + 3 + 2) + (3 + 2 + 4) == 15
    c = parse_marks("oooo/...o/...o", SMALL)
    assert score(SMALL, c, RULES) == (2 + 1 + 3 + 5) + (5 + 6 + 5) == 27
    # the ceiling of a sheet with nothing available is its score
    assert highest_score(SMALL, c.with_eliminated(list(range(12))), RULES) == 27
    # the best other score now, by hand (A 6, B 0, C 27 of the docstring's position)
    a = parse_marks("ooox/o..x/...x", SMALL)
    assert score(SMALL, a, RULES) == 2 + 1 + 3 == 6
    assert [top_other_score(SMALL, (a, b, c), seat, RULES) for seat in range(3)] == [27, 27, 6]


# --- the position through the CLI ------------------------------------------------------------


def _game(tmp_path: Path) -> str:
    """The game file of the module docstring, A to play round 3."""
    path = str(tmp_path / "g.json")
    cli("play", "new", path, "--players", "A,B,C", "--first", "A", "--board", str(EXAMPLES / "boards" / "small-3x4.toml"))
    for cells in (("r1c1", "r1c2", "r1c3"), ("r2c1",), ("r1c1", "r1c2", "r1c3"), ("r2c1",), ("r3c1",),
                  ("r1c4", "r2c4", "r3c4")):
        cli("play", "mark", path, *cells, "--unchecked")
    return path


def _status(path: str) -> list[dict]:
    return list(cli_json("play", "status", path)["sheets"])


def test_play_status_shows_the_seat_at_an_exact_zero_before_the_end(tmp_path: Path) -> None:
    path = _game(tmp_path)
    sheets = _status(path)
    assert [s["marks"] for s in sheets] == ["ooox/o..x/...x", "xxxx/o..x/o..x", "oooo/...o/...o"]
    assert [s["score"] for s in sheets] == [6, 0, 27]
    assert all(s["closed_shelves"] == 1 for s in sheets)  # the end not triggered (D17)
    b = sheets[1]
    assert (b["win_chance"], b["win_chance_exact"]) == ("0/1", True)
    # A and C share the whole of it, in the model's proportions: A can still reach 42 > 27
    assert sum(Fraction(s["win_chance"]) for s in sheets) == 1
    assert not sheets[0]["win_chance_exact"] and Fraction(sheets[0]["win_chance"]) > 0
    # after A's turn, B to roll, and while B rolls: still an exact 0
    cli("play", "mark", path, "r2c2", "--unchecked")
    assert _status(path)[1]["win_chance"] == "0/1" and _status(path)[1]["win_chance_exact"] is True
    cli("play", "roll", path, "AAACCC")
    b = _status(path)[1]
    assert (b["win_chance"], b["win_chance_exact"]) == ("0/1", True)


def test_the_lost_seat_s_exact_zero_settles_no_other_figure_while_the_game_goes_on(tmp_path: Path) -> None:
    # the same sheets with C first (D5): each round is C, A, B, so B closes the round. Its own
    # marking is an exact 0 (its ceiling), but its game is not over (D17 not triggered) and A
    # plays again and can still reach 42 > 27: A and C keep model figures, not the exact shares
    # of the scores now (A 0, C 1) that an exact 0 gives where every other score is final
    path = str(tmp_path / "h.json")
    cli("play", "new", path, "--players", "A,B,C", "--first", "C", "--board", str(EXAMPLES / "boards" / "small-3x4.toml"))
    for cells in (("r1c1", "r1c2", "r1c3"), ("r1c1", "r1c2", "r1c3"), ("r2c1",), ("r1c4", "r2c4", "r3c4"),
                  ("r2c1",), ("r3c1",)):
        cli("play", "mark", path, *cells, "--unchecked")
    sheets = _status(path)
    assert [s["marks"] for s in sheets] == ["ooox/o..x/...x", "xxxx/o..x/o..x", "oooo/...o/...o"]
    assert highest_score(SMALL, parse_marks(sheets[0]["marks"], SMALL), RULES) == 42  # A: 6 + 6 + 9 + 6 + 6 + 9
    assert (sheets[1]["win_chance"], sheets[1]["win_chance_exact"]) == ("0/1", True)
    for seat in (0, 2):
        assert sheets[seat]["win_chance_exact"] is False
        assert 0 < Fraction(sheets[seat]["win_chance"]) < 1


def test_the_lost_seat_s_own_advice_is_an_exact_zero_at_every_marking(tmp_path: Path) -> None:
    path = _game(tmp_path)
    cli("play", "mark", path, "r2c2", "--unchecked")  # A; B to play
    cli("play", "roll", path, "AAACCC")
    cli("play", "stop", path)  # the dice final: the markings (D7)
    advice = cli_json("play", "advise", path)
    assert advice["marks"] == "xxxx/o..x/o..x"
    assert len(advice["markings"]) >= 3  # r2c3 (AAA), r3c3 (CCC), r3c2 (CC), together...
    for marking in advice["markings"]:
        assert (marking["win_chance"], marking["win_chance_exact"]) == ("0/1", True)
    assert (advice["win_chance"], advice["win_chance_exact"], advice["decided"]) == ("0/1", True, True)


# --- the rule's functions, hand-built sheets ----------------------------------------------------

#: Small-3x4, nothing completed: M 15 (shelves 2 and 3: 1 + 3 + 2, 3 + 2 + 4), X gave up shelf 3
#: (D13) and can reach 23 at most (shelves 1 and 2 whole: 11 + 12; its columns 2 items each), Y 0
#: with every item left.
M, X, Y = (parse_marks(t, SMALL) for t in ("..../ooo./ooo.", "..../..../xxxx", "o.../..../...."))


def test_the_bounds_before_the_end() -> None:
    assert [score(SMALL, s, RULES) for s in (M, X, Y)] == [15, 0, 0]
    assert highest_score(SMALL, X, RULES) == 11 + 12 == 23
    state = GameState(SMALL, RULES, (M, X, Y), 0, 0, 6, False)
    # the mover's terminal that leaves its game going: X out above 23, Y above its ceiling
    bounds = lost_bounds(state)
    # Y: every item of the board, shelves 11 + 12 + 14 and columns 6 + 6 + 9 + 16
    assert bounds[:, 1].tolist() == [23, 11 + 12 + 14 + 6 + 6 + 9 + 16]
    assert bounds[0, 1] != NO_HIGH
    assert lost_seats(state, [15, 0, 0]) == ()
    # with the mover at 24 X is out whoever plays next: its ceiling below a score now
    assert lost_seats(GameState(SMALL, RULES, (X, Y, M), 1, 0, 6, False), [0, 0, 24]) == (0,)
    assert lost_seats(GameState(SMALL, RULES, (X, Y, M), 1, 0, 6, False), [0, 0, 23]) == ()  # a tie may share


def _terminals(state: GameState):
    return mover_terminals(SMALL, RULES, state)


def _compiled_equal(state: GameState, objective, values: np.ndarray, sets, usable: np.ndarray) -> None:
    arrays = StateArrays(SMALL, RULES, state.marks)
    worth = np.zeros(len(sets.sizes) + 1, dtype=np.int64)
    worth[usable] = values
    compared = 0
    for found in (objective.compiled_turn_values(arrays), compiled_win_values(state)):
        if found is None:  # without numba: nothing to compare
            continue
        compared += 1
        assert np.array_equal(found[0][usable], worth[usable])
        assert found[2] == objective.shelf_values(arrays)
    try:
        import numba  # noqa: F401
    except ImportError:
        return
    assert compared == 2


def _out_after_blocks(state: GameState, chosen, final: np.ndarray) -> np.ndarray:
    """``bool (K, 2)``: per item set of the mover (``chosen``, its scores after ``final``) whether
    each opponent (seat order) can no longer win right after it, the end not triggered: its
    ceiling (every available item marked, by the board's scoring) on its sheet after the lines
    the marking completes have blocked it (D15, ``sheet_rules.block``) below M's score after it
    or the other opponent's score now."""
    from shelfie_solver.dice.sheet_rules import block, completed_lines

    me = state.active
    before = set(completed_lines(SMALL, state.marks))
    now = [score(SMALL, sheet, RULES) for sheet in state.sheets]
    out = np.zeros((len(final), 2), dtype=bool)
    for i, row in enumerate(chosen.cells.tolist()):
        mine = state.marks.with_marked([c for c in row if c >= 0])
        sheets = state.sheets[:me] + (mine,) + state.sheets[me + 1:]
        new = [line for line in completed_lines(SMALL, mine) if line not in before]
        after = block(SMALL, sheets, me, new)[0]
        for column, j in enumerate(k for k in range(3) if k != me):
            free = ~(after[j].marked | after[j].eliminated) & ((1 << after[j].n_cells) - 1)
            ceiling = score(SMALL, Marks(3, 4, after[j].marked | free, 0), RULES)
            out[i, column] = ceiling < max([int(final[i])] + [now[k] for k in range(3) if k not in (j, me)])
    return out


def test_a_marking_above_an_opponent_s_ceiling_leaves_it_out_of_the_softmax() -> None:
    # three players: M marking r1c3 completes column 3 (3 + 2 + 4 = 9): 24 > X's 23, its game going
    # on (no closed shelf); X is out there, and M's figure is its share among M and Y alone
    state = GameState(SMALL, RULES, (M, X, Y), 0, 0, 6, False)
    objective = win_objective(state)
    sets, usable, chosen, arrays, final, over = _terminals(state)
    values = objective.values(arrays, chosen)
    exact = objective.exact_markings(arrays, chosen)
    every = joint_chances(objective, arrays, chosen, SMALL)
    cells = [tuple(c for c in row if c >= 0) for row in sets.cells[usable].tolist()]
    r1c3 = cells.index((SMALL.cell(0, 2),))
    assert (final[r1c3], over[r1c3]) == (24, False)
    free = ~exact
    above, within = free & ~over & (final > 23), free & ~over & (final <= 23)
    # (>= 5: the 27 markings whose own blocks put X and Y both out are exact 1s, blocks_put_out,
    # e.g. r1c1 r2c4 at 27 against Y's 22 and X's 9 after blocking column 1 and shelf 2)
    assert above[r1c3] and above.sum() >= 5 and within.sum() > 5
    without_x = every[:, 0] * CHANCE_SCALE / (every[:, 0] + every[:, 2])
    with_x = every[:, 0] * CHANCE_SCALE / every.sum(axis=1)
    assert np.abs(values[above] - without_x[above]).max() <= 3
    assert (values[above] > with_x[above] + 3).all()  # before, X was counted there
    # at or below 23 X is counted, but where the marking's own blocks (D15) bring a ceiling below
    # M's score after it or the other's score (blocks_lost): that seat is left out there too
    out = _out_after_blocks(state, chosen, final)
    kept = within & ~out.any(axis=1)
    assert (kept.sum(), (within & out.any(axis=1)).sum()) == (3, 4)  # of the 7 at or below 23
    assert np.abs(values[kept] - with_x[kept]).max() <= 3
    among = every[:, 0] * CHANCE_SCALE / (every[:, 0] + (every[:, 1:] * ~out).sum(axis=1))
    assert np.abs(values[free & ~over] - among[free & ~over]).max() <= 3
    _compiled_equal(state, objective, values, sets, usable)


def test_two_players_a_marking_above_the_opponent_s_ceiling_is_an_exact_one() -> None:
    # two players: X is M's only opponent, so where M's score passes X's 23 M wins alone (D20),
    # its game over or not: an exact 1 (win_chance.lost_settled), not the model's 999,999 millionths
    state = GameState(SMALL, RULES, (M, X), 0, 0, 6, False)
    objective = win_objective(state)
    sets, usable, chosen, arrays, final, over = _terminals(state)
    values = objective.values(arrays, chosen)
    exact = objective.exact_values(arrays, chosen)
    above = final > 23
    assert above.sum() > 5 and (~above).sum() > 5
    assert (values[above] == CHANCE_SCALE).all()
    assert all(exact[i] == 1 for i in np.flatnonzero(above))
    # below it the model's figures, but where a block (D15) ends X's game (r2c4 completes shelf 2:
    # X then has two closed shelves, D17, and one last turn that cannot reach 21: settled before)
    below = [exact[i] for i in np.flatnonzero(~above)]
    # (and where its own blocks leave X's ceiling below M's score: blocks_put_out, an exact 1 too)
    assert below.count(None) >= 3 and all(chance in (None, 1) for chance in below)
    _compiled_equal(state, objective, values, sets, usable)


def test_a_mover_above_every_other_ceiling_or_below_a_score_now_is_decided() -> None:
    # two players, the end not triggered: W (shelf 3 given up, D13, and items of shelves 1 and 2
    # blocked, D15) can reach its shelf 1's three items, 1 + 3 + 5 = 9, at most (shelf 2 and every
    # column 2 items or fewer, D19) against M's 15
    w = parse_marks("x.../xx../xxxx", SMALL)  # one closed shelf (D17 not triggered)
    assert w.closed_shelves() == 1 and highest_score(SMALL, w, RULES) == 1 + 3 + 5 == 9
    best = best_reachable(SMALL, w)[(w.marked, w.eliminated)]
    assert best == 9  # brute force
    ahead = GameState(SMALL, RULES, (M, w), 0, 0, 6, False)
    decided = decided_objective(ahead)
    assert decided is not None
    assert seat_chances(ahead) == [(Fraction(1), True), (Fraction(0), True)]
    behind = GameState(SMALL, RULES, (w, M), 0, 0, 6, False)  # W to play: 9 at most against 15
    assert decided_objective(behind) is not None
    assert seat_chances(behind) == [(Fraction(0), True), (Fraction(1), True)]
    # a ceiling that ties a score now is not decided (a tie may share, D20)
    tie = parse_marks("..../..../ooo.", SMALL)  # 3 + 2 + 4 = 9 now: W's ceiling
    assert decided_objective(GameState(SMALL, RULES, (tie, w), 0, 0, 6, False)) is None


def test_the_ceiling_with_cells_blocked_is_the_ceiling_of_the_blocked_sheet() -> None:
    """``highest_score(..., blocked=CELLS)`` (the ceiling once another seat's completed lines
    have eliminated the available items of CELLS, D15) equals ``highest_score`` of the sheet that
    ``sheet_rules.block`` builds, over random default-board sheets and every set of up to three
    lines (the most one marking can complete): the fast form the put-out rule uses."""
    from itertools import combinations

    from shelfie_solver.dice.sheet_rules import block, line_masks

    board = load_board(None, RULES)
    masks, rng = line_masks(board), np.random.default_rng(18710)
    lines = range(len(masks))
    for _ in range(40):
        state = rng.integers(0, 3, board.n_cells)  # 0 available, 1 marked, 2 eliminated
        marked = sum(1 << c for c in range(board.n_cells) if state[c] == 1)
        eliminated = sum(1 << c for c in range(board.n_cells) if state[c] == 2)
        sheets = (Marks(board.n_shelves, board.n_columns, 0, 0), Marks(board.n_shelves, board.n_columns, marked, eliminated))
        for size in (1, 2, 3):
            for chosen in combinations(lines, size):
                after = block(board, sheets, 0, chosen)[0][1]
                cells = 0
                for line in chosen:
                    cells |= masks[line]
                assert highest_score(board, sheets[1], RULES, cells) == highest_score(board, after, RULES)
                assert sheets[1].with_eliminated_bits(cells) == after  # the blocked sheet itself, from the mask
