"""The exact solitaire solver (shelfie_solver/dice/wholegame/solver.py) against an independent brute
force on a tiny board, a seeded simulation of its own policy, and the example board's 41.71."""

from __future__ import annotations

import json
from fractions import Fraction
from functools import cache
from itertools import combinations, product
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from shelfie_solver.dice.allocate import find_groups_flow
from shelfie_solver.dice.board import Board, Marks, board_from_dict, parse_marks
from shelfie_solver.dice.rolls import space_for
from shelfie_solver.cli import main
from shelfie_solver.dice.engine.dp import final_values as final_table
from shelfie_solver.dice.wholegame.solver import ExactError, layer_states, solve_game, state_count
from shelfie_solver.dice.wholegame.values import ExactStrategy, TableObjective, save_table, table_objective
from shelfie_solver.dice.game.turn import play_seeded
from shelfie_solver.dice.errors import ObjectiveError
from shelfie_solver.dice.rules import Ruleset, rules_from_dict
from shelfie_solver.core.stats import estimate

ROOT = Path(__file__).resolve().parents[1]
SMALL = ROOT / "examples" / "boards" / "small.toml"

# 3 dice (plant, book, Joker), 1 re-roll, lines of 2 score (D19 threshold 2), both shelves
# closed end the game (D17): small enough for a brute force over ordered dice.
TINY_RULES = rules_from_dict({"name": "tiny", "dice": 3, "rerolls": 1, "combinations_per_turn": 3,
                              "scoring_threshold": 2, "end_trigger_shelves": 2,
                              "faces": [{"name": "plant", "code": "P"}, {"name": "book", "code": "B"}]})
TINY_BOARD = board_from_dict({"name": "tiny", "columns": [1, 2],
                              "shelves": [{"faces": ["plant"], "values": [1, 3]},
                                          {"faces": ["book"], "values": [2, 4]}]}, TINY_RULES)


def brute_force(board: Board, rules: Ruleset) -> dict[tuple[int, int], Fraction]:
    """V of every state by plain recursion over ordered dice (independent of the engine, the
    feasibility table and the dice space): each die face equally likely (D2), keep any subset of
    the dice before each re-roll (D7), mark any legal set found by the max-flow reference
    allocator (D8-D11, D12 for all Jokers) or give up a shelf (D13); the game ends when
    ``end_trigger_shelves`` shelves are closed (D17) and scores D19 by hand."""
    sides, n = rules.n_sides, rules.dice
    joker = rules.joker_index

    def points(m: Marks) -> int:
        total = 0
        for line in board.lines:
            marked = [c for c in line if m.marked >> c & 1]
            if len(marked) >= rules.scoring_threshold:
                total += sum(board.value(c) for c in marked)
        return total

    def closed(m: Marks) -> int:
        return sum(all(not m.is_available(c) for c in board.lines[s]) for s in range(board.n_shelves))

    @cache
    def value(m: Marks) -> Fraction:
        if closed(m) >= min(rules.end_trigger_shelves, board.n_shelves):
            return Fraction(points(m))
        outcomes = list(product(range(sides), repeat=n))
        return sum((turn(m, dice, rules.rerolls) for dice in outcomes), Fraction(0)) / len(outcomes)

    @cache
    def final(m: Marks, counts: tuple[int, ...]) -> Fraction:
        options = []
        free = m.available
        for k in range(1, rules.combinations_per_turn + 1):
            for cells in combinations(free, k):
                if find_groups_flow(counts, cells, board, rules) is not None or (
                        k == 1 and joker is not None and counts[joker] == n):
                    options.append(value(m.with_marked(cells)))
        if not options:
            options = [value(m.with_eliminated(board.lines[s])) for s in range(board.n_shelves)
                       if m.shelf_has_available(s)]
        return max(options)

    def counts_of(dice: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(dice.count(f) for f in range(sides))

    @cache
    def turn(m: Marks, dice: tuple[int, ...], left: int) -> Fraction:
        dice = tuple(sorted(dice))
        best = final(m, counts_of(dice))
        if left == 0:
            return best
        for keep in product((True, False), repeat=n):
            rolled = n - sum(keep)
            if rolled == 0:
                continue
            kept = tuple(d for d, k in zip(dice, keep) if k)
            again = [turn(m, kept + new, left - 1) for new in product(range(sides), repeat=rolled)]
            best = max(best, sum(again, Fraction(0)) / len(again))
        return best

    states = [s for layer in range(board.n_cells) for s in layer_states(board, rules, layer)]
    return {(s.marked, s.eliminated): value(s) for s in states}


@pytest.fixture(scope="module")
def tiny() -> object:
    return solve_game(TINY_BOARD, TINY_RULES)


def test_tiny_board_equals_brute_force(tiny: object) -> None:
    """Every state's exact value equals the brute force (D6-D19), as exact fractions."""
    expected = brute_force(TINY_BOARD, TINY_RULES)
    assert tiny.values == expected  # type: ignore[attr-defined]
    assert tiny.optimum == expected[(0, 0)]  # type: ignore[attr-defined]


def test_state_count_formula() -> None:
    """The closed-form count equals a direct count of solitaire sheets: per shelf any marked
    subset, the rest available or (D13) all eliminated; fewer closed shelves than the trigger."""
    for board, rules in ((TINY_BOARD, TINY_RULES),):
        n = board.n_columns
        direct = 0
        configs = [(m, closed) for m in range(2 ** n) for closed in (False, True)
                   if not (m == 2 ** n - 1 and not closed)]
        for combo in product(configs, repeat=board.n_shelves):
            direct += sum(c for _, c in combo) < rules.end_trigger_shelves
        assert state_count(board, rules) == direct
    assert sum(1 for layer in range(TINY_BOARD.n_cells) for _ in layer_states(TINY_BOARD, TINY_RULES, layer)) \
        == state_count(TINY_BOARD, TINY_RULES)


def test_own_policy_simulation_within_interval(tiny: object, tmp_path: Path) -> None:
    """A seeded simulation of the exact policy (strategy exact:FILE) averages the optimum
    within its 99% interval."""
    path = tmp_path / "tiny.json"
    save_table(str(path), tiny)  # type: ignore[arg-type]
    strategy = ExactStrategy(str(path))
    scores = [play_seeded(TINY_BOARD, TINY_RULES, [strategy], seed).scores[0]
              for seed in np.random.SeedSequence(11).spawn(600)]
    result = estimate(scores)
    optimum = float(tiny.optimum)  # type: ignore[attr-defined]
    assert abs(float(result.mean) - optimum) <= 2.58 * result.sd / len(scores) ** 0.5


def test_table_objective_integer_values(tiny: object, tmp_path: Path) -> None:
    """The table objective's worth of each final roll is an exact integer over its scale equal
    to V(after the best marking) - V(before), from the brute force's values."""
    path = tmp_path / "tiny.json"
    save_table(str(path), tiny)  # type: ignore[arg-type]
    objective = table_objective(str(path), TINY_BOARD)
    assert isinstance(objective, TableObjective)
    expected = brute_force(TINY_BOARD, TINY_RULES)
    marks = parse_marks("o./..", TINY_BOARD)
    table = final_table(TINY_BOARD, marks, TINY_RULES, objective)
    scale = objective.scale(TINY_RULES)
    before = expected[(marks.marked, marks.eliminated)]
    space = space_for(TINY_RULES)
    # Legal markings by hand from o./..: r1c2 needs 2 plants (or plant + Joker), r2c1 one book
    # (never a Joker alone, D11b), r2c2 two books (or book + Joker); all Jokers mark any one (D12).
    hand = {(2, 1, 0): ["oo/..", "o./o.", "oo/o."],             # PPB
            (0, 2, 1): ["o./o.", "o./.o", "o./oo"],             # BBJ
            (3, 0, 0): ["oo/.."],                               # PPP
            (0, 0, 3): ["oo/..", "o./o.", "o./.o"]}             # JJJ
    for counts, afters in hand.items():
        worth = table.columns[space.roll_index[counts], 0]
        assert isinstance(worth, int)
        best = max(expected[(m.marked, m.eliminated)] if m.closed_shelves() < 2 else Fraction(-1)
                   for m in (parse_marks(a, TINY_BOARD) for a in afters))
        assert Fraction(worth, scale) == best - before


def test_checkpoints_resume(tmp_path: Path) -> None:
    """Checkpoints: a second solve loads every layer and gives the same optimum."""
    first = solve_game(TINY_BOARD, TINY_RULES, str(tmp_path / "cp"))
    again = solve_game(TINY_BOARD, TINY_RULES, str(tmp_path / "cp"))
    assert again.layers_loaded == TINY_BOARD.n_cells and again.optimum == first.optimum
    other = board_from_dict({"name": "other", "columns": [1, 2],
                             "shelves": [{"faces": ["plant"], "values": [1, 1]},
                                         {"faces": ["book"], "values": [2, 4]}]}, TINY_RULES)
    with pytest.raises(ExactError, match="another board"):
        solve_game(other, TINY_RULES, str(tmp_path / "cp"))
    assert sorted(p.name for p in (tmp_path / "cp").iterdir()) == \
        ["layer-000.json", "layer-001.json", "layer-002.json", "layer-003.json", "solve.json"]  # nothing added


@pytest.mark.slow
def test_issue_example_is_41_71() -> None:
    """The example board (examples/boards/small.toml): the exact optimum is about 41.71 (an
    independent computation)."""
    from shelfie_solver.dice.board import load_board

    rules = Ruleset()
    solution = solve_game(load_board(SMALL, rules), rules)
    assert len(solution.values) == 1519
    assert round(float(solution.optimum), 2) == 41.71


def _run(*args: str) -> object:
    return CliRunner().invoke(main, list(args))


@pytest.mark.parametrize("args, message", [
    (["solve-game"], "176,392,511 non-terminal solitaire states"),
    (["solve-game", "--board", str(SMALL), "--max-states", "100"], "more than --max-states 100"),
    (["solve-game", "--board", str(SMALL), "--save", "."], "--save"),
    (["solve-game", "--board", str(SMALL), "--max-states", "0"], "--max-states"),
    (["advise", "--dice", "CCBJPP", "--objective", "table:missing.json"], "cannot read value table"),
    (["simulate", "--players", "exact:missing.json", "--games", "1"], "cannot read value table"),
    (["advise", "--dice", "CCBJPP", "--objective", "table:"], "no value table file named"),
    (["solve-game", "--board", str(SMALL), "--checkpoints", str(SMALL)], "is not a directory"),
])
def test_cli_bad_input(args: list[str], message: str) -> None:
    """Bad input: one line ``Error: ...``, exit 2, no traceback."""
    result = _run(*args)
    assert result.exit_code == 2, result.output  # type: ignore[attr-defined]
    lines = result.output.strip().splitlines()  # type: ignore[attr-defined]
    assert len(lines) == 1 and lines[0].startswith("Error:") and message in lines[0]


def test_exact_strategy_is_solitaire_only(tiny: object, tmp_path: Path) -> None:
    """exact:FILE refuses games of several players (D15 blocking leaves the table's states)."""
    path = tmp_path / "tiny.json"
    save_table(str(path), tiny)  # type: ignore[arg-type]
    with pytest.raises(ExactError, match="solitaire games only"):
        play_seeded(TINY_BOARD, TINY_RULES, [ExactStrategy(str(path))] * 2, 1)


def test_cli_table_not_for_board(tiny: object, tmp_path: Path) -> None:
    """A value table used with another board is refused in one line."""
    path = tmp_path / "tiny.json"
    save_table(str(path), tiny)  # type: ignore[arg-type]
    result = _run("advise", "--dice", "CCBJPP", "--objective", f"table:{path}")
    assert result.exit_code == 2 and "not 'shelfie-solve default'" in result.output  # type: ignore[attr-defined]
    with pytest.raises(ObjectiveError):
        table_objective(str(path), Board("x", (1,), ((0,),), ((1,),)))
    path.write_text("{}")
    result = _run("advise", "--dice", "CCBJPP", "--objective", f"table:{path}")
    assert result.exit_code == 2 and "not a value table" in result.output  # type: ignore[attr-defined]
    path.write_text(json.dumps({"format": "shelfie-solve value table 1"}))
    result = _run("advise", "--dice", "CCBJPP", "--objective", f"table:{path}")
    assert result.exit_code == 2 and "missing key" in result.output  # type: ignore[attr-defined]


def test_layer_parts_are_independent(tiny: object) -> None:
    """A layer split into parts gives the same values as the whole layer (work to spread)."""
    values = tiny.values  # type: ignore[attr-defined]
    from shelfie_solver.dice.wholegame.solver import solve_layer

    whole = solve_layer(TINY_BOARD, TINY_RULES, 1, values)
    pieces: dict[tuple[int, int], Fraction] = {}
    for part in range(3):
        pieces.update(solve_layer(TINY_BOARD, TINY_RULES, 1, values, part, 3))
    assert pieces == whole and all(values[k] == v for k, v in whole.items())


def test_decision_losses_sum_to_the_loss(tiny: object, tmp_path: Path) -> None:
    """The exact policy loses nothing at any decision; for greedy (stops at once, D7) the mean
    over games of the summed decision losses estimates optimum - mean score (both within their
    intervals), and every loss is >= 0."""
    from shelfie_solver.dice.wholegame.values import decision_losses
    from shelfie_solver.dice.strategies import strategy_named

    path = tmp_path / "tiny.json"
    save_table(str(path), tiny)  # type: ignore[arg-type]
    seeds = np.random.SeedSequence(5).spawn(300)
    for seed in seeds[:50]:
        game = play_seeded(TINY_BOARD, TINY_RULES, [ExactStrategy(str(path))], seed)
        assert all(loss == 0 for _, loss in decision_losses(game, tiny))  # type: ignore[arg-type]
    totals, gaps = [], []
    for seed in seeds:
        game = play_seeded(TINY_BOARD, TINY_RULES, [strategy_named("greedy")], seed)
        losses = decision_losses(game, tiny)  # type: ignore[arg-type]
        assert all(loss >= 0 for _, loss in losses)
        totals.append(sum((loss for _, loss in losses), Fraction(0)))
        gaps.append(tiny.optimum - game.scores[0])  # type: ignore[attr-defined]
    a, b = estimate(totals), estimate(gaps)
    assert float(a.mean) > 0
    assert abs(float(a.mean) - float(b.mean)) <= 2.58 * (a.sd ** 2 / len(totals) + b.sd ** 2 / len(gaps)) ** 0.5
