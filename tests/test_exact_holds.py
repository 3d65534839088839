"""A hold's chance is exact where every roll it can reach is (D7, D20): keeping every die is
stopping, worth the best marking's exact value (a three-way tie's ``1/3``, not the engine's
``333333/1000000``); a hold whose every outcome is a sure win is exactly 1 and flagged exact; and
in general a hold whose every reachable final roll has an exact best marking is worth the
probability-weighted sum of those exact values (``advice.shown_turn``, ``engine/shown.py``). The
advice (text and JSON), ``play status``, ``review`` and the page's API show the same figure, so
the review's parts add up exactly.

The three-way tie (tiny-2x3, players A, B, C, A first, D5): in round 1 A completes column 2
(r1c2 + r2c2 with GG and CC) and B column 1, each blocking the others' items there (D15), so every
shelf of every sheet holds an eliminated item; C gives up shelf 1 (D13). In round 2 A rolls
GGGCCC: marking r1c3 + r2c3 closes both of A's shelves (D17) at 0 points, and no other sheet can
ever score (each shelf holds an eliminated item; tiny-2x3's columns hold 2 items, never 3, D19):
all three end on 0 and share the victory, exactly 1/3 each (D20; every sheet's reach below). The
stop hold's value is the value of stopping, so the closed form 1/3 is what the advice, status and
review must show for it.

The sure win (same board): A completes column 1 in round 1 (B and C lose c1), B and C give up
shelf 1, A gives up shelf 2 in round 2, B and C mark r2c2. In round 3 A rolls GGGGGC: with five
game dice A marks r1c2 + r1c3, completing shelf 1 (1 + 2 + 4 = 7 points) and its second closed
shelf (the end, D17); B and C can never score (brute force below), so A wins alone: exactly 1 for
stopping and for keeping the five game dice (any re-rolled die leaves them).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction
from functools import cache
from itertools import product

import numpy as np
import pytest
from conftest import EXAMPLES, cli, cli_json, small_rules

from shelfie_solver.core.report import shown_loss_cell
from shelfie_solver.dice.advise.advice import rank_holds, rank_markings, shown_turn
from shelfie_solver.dice.allocate import legal_markings
from shelfie_solver.dice.board import Board, Marks, item_sets, load_board, parse_marks, score
from shelfie_solver.dice.engine.dp import solve_turn
from shelfie_solver.dice.learned.win_model import CHANCE_SCALE
from shelfie_solver.dice.objectives import StateArrays
from shelfie_solver.dice.play.chances import seat_chances
from shelfie_solver.dice.play.gamefile import read_kept_game
from shelfie_solver.dice.rolls import space_for
from shelfie_solver.dice.rules import DEFAULT_RULES
from shelfie_solver.web.api import GameServer, shown_figures

TINY = EXAMPLES / "boards" / "tiny-2x3.toml"
BOARD = load_board(TINY, DEFAULT_RULES)


def _play(game: str, steps: list[tuple[str, ...]]) -> None:
    cli("play", "new", game, "--players", "A,B,C", "--first", "A", "--board", str(TINY))
    for step in steps:
        cli("play", step[0], game, *step[1:])


def _tie_game(tmp_path) -> str:
    game = str(tmp_path / "tie.json")
    _play(game, [("roll", "GGCCPB"), ("mark", "r1c2", "r2c2"),  # A completes column 2 (D15)
                 ("roll", "GCPPBB"), ("mark", "r1c1", "r2c1"),  # B completes column 1
                 ("roll", "PPBBAA"), ("fail", "--shelf", "1"),  # C: nothing to mark (D13)
                 ("roll", "GGGCCC")])  # A, round 2, 2 re-rolls left
    return game


def _sure_win_game(tmp_path) -> str:
    game = str(tmp_path / "win.json")
    _play(game, [("roll", "GCPPBB"), ("mark", "r1c1", "r2c1"),  # A completes column 1
                 ("roll", "PPBBAA"), ("fail", "--shelf", "1"), ("roll", "PPBBAA"), ("fail", "--shelf", "1"),
                 ("roll", "PPBBAA"), ("fail", "--shelf", "2"),  # A, round 2
                 ("roll", "CCPPBA"), ("mark", "r2c2"), ("roll", "CCPPBA"), ("mark", "r2c2"),
                 ("roll", "GGGGGC")])  # A, round 3, 2 re-rolls left
    return game


def _sheets(game: str) -> dict[str, Marks]:
    return {s["name"]: parse_marks(s["marks"], BOARD) for s in cli_json("play", "status", game)["sheets"]}


def _best_reach(marks: Marks) -> int:
    """Brute force: the best score ``marks`` can ever reach, every item still available marked
    (D19: lines of 3 marked items score; nothing is ever unmarked)."""
    return score(BOARD, marks.with_marked(marks.available), DEFAULT_RULES)


def _sides(codes: str) -> tuple[int, ...]:
    from shelfie_solver.dice.rolls import parse_dice

    return tuple(parse_dice(codes, DEFAULT_RULES))


# --- B: an exact stop ----------------------------------------------------------------------------


def test_the_tie_position_is_as_described(tmp_path) -> None:
    sheets = _sheets(_tie_game(tmp_path))
    assert [score(BOARD, s, DEFAULT_RULES) for s in sheets.values()] == [0, 0, 0]
    assert _best_reach(sheets["B"]) == _best_reach(sheets["C"]) == 0  # B and C can never score
    after = sheets["A"].with_marked((BOARD.cell(0, 2), BOARD.cell(1, 2)))  # r1c3 + r2c3
    assert score(BOARD, after, DEFAULT_RULES) == 0 and after.closed_shelves() == 2  # A's game over at 0 (D17)


def test_stopping_into_a_three_way_tie_is_one_third_in_advice_status_and_page(tmp_path) -> None:
    game = _tie_game(tmp_path)
    third = ("1/3", True)
    advice = cli_json("play", "advise", game)
    stop = advice["holds"][0]
    assert stop["keep"] == "GGGCCC" and stop["value"] == "1/3"  # stopping is best, its value the tie's
    assert (stop["win_chance"], stop["win_chance_exact"]) == third
    assert (advice["win_chance"], advice["win_chance_exact"]) == third
    assert advice["stop_marking"]["cells"] == ["r1c3", "r2c3"]
    assert (advice["stop_marking"]["win_chance"], advice["stop_marking"]["win_chance_exact"]) == third
    assert "chance to win 33.3% (exact)" in cli("play", "advise", game)
    status = cli_json("play", "status", game)
    assert [(s["win_chance"], s["win_chance_exact"]) for s in status["sheets"]][0] == third
    state = GameServer(game).state()  # the page's API: the CLI's figures
    assert state["advice"] == advice and state["status"] == status
    kept = read_kept_game(game)  # status's own path without the advice (a hand-off's roller, chances.seat_chances)
    assert seat_chances(kept.state, kept.dice, kept.rerolls_left)[0] == (Fraction(1, 3), True)
    cli("play", "stop", game)  # stopped: the final dice's marking, the same figure
    assert [(s["win_chance"], s["win_chance_exact"]) for s in cli_json("play", "status", game)["sheets"]][0] == third


def test_a_review_through_an_exact_stop_adds_up_exactly(tmp_path) -> None:
    game = _tie_game(tmp_path)
    cli("play", "stop", game)
    cli("play", "mark", game, "r1c3", "r2c3")  # A's column 3 blocks B and C out (D15): the game is over (D17, D18)
    review = cli_json("review", game, "--player", "A")
    stop = next(d for d in review["decisions"] if d["decision"] == "hold" and d["round"] == 2)
    assert stop["chosen_value"] == stop["best_value"] == "1/3" and stop["loss"] == "0/1"
    assert Fraction(review["result"]) == Fraction(1, 3)
    parts = Fraction(review["start"]) + Fraction(review["luck"]) - Fraction(review["summary"]["total_loss"]) \
        + Fraction(review["others"])
    assert parts == Fraction(review["result"])  # exactly: no 1/3,000,000 left over
    roll = [p for p in review["curve"] if p["round"] == 2 and p["what"] == "roll"]
    assert roll and roll[-1]["win_chance"] == "1/3"


# --- G: a sure win -------------------------------------------------------------------------------


def test_the_sure_win_position_is_as_described(tmp_path) -> None:
    sheets = _sheets(_sure_win_game(tmp_path))
    assert _best_reach(sheets["B"]) == _best_reach(sheets["C"]) == 0
    after = sheets["A"].with_marked((BOARD.cell(0, 1), BOARD.cell(0, 2)))  # r1c2 (GG) + r1c3 (GGG)
    assert score(BOARD, after, DEFAULT_RULES) == 7 and after.closed_shelves() == 2  # the end (D17), A alone on top
    target = {BOARD.cell(0, 1), BOARD.cell(0, 2)}
    for outcome in ("GGGGGP", "GGGGGG", "GGGGGJ", "GGGGGC", "GGGGGB", "GGGGGA"):  # every re-roll of the C
        assert any(set(m.cells) == target for m in legal_markings(_sides(outcome), BOARD, sheets["A"], DEFAULT_RULES))


def test_a_sure_win_hold_is_exactly_one_and_flagged_exact(tmp_path) -> None:
    game = _sure_win_game(tmp_path)
    advice = cli_json("play", "advise", game)
    holds = {h["keep"]: h for h in advice["holds"]}
    for keep in ("GGGGGC", "GGGGG"):  # stopping, and keeping the five game dice
        hold = holds[keep]
        assert (hold["value"], hold["win_chance"], hold["win_chance_exact"]) == ("1/1", "1/1", True)
    assert (advice["win_chance"], advice["win_chance_exact"]) == ("1/1", True)
    # keeping four may miss the fifth game die twice: the model's figure there, not exact
    assert Fraction(holds["GGGG"]["win_chance"]) < 1 and not holds["GGGG"]["win_chance_exact"]
    assert GameServer(game).state()["advice"] == advice


# --- the general case: an exact hold is the weighted sum of exact rolls --------------------------


@dataclass(frozen=True)
class _Exactish:
    """A chance objective on a small board: the item sets holding ``cell`` have the exact chance
    ``(7 + cells' sum) / 29`` (kept rounded half up in millionths, as the win model keeps its exact
    terminals), the others a model figure of their own in millionths (not exact); a failed result
    is worth 1/7 (its millionths for the engine), exact where ``failed_exact``."""

    cell: int
    failed_exact: bool = False
    name: str = "win"
    win_chance_exact = False

    def scale(self, rules) -> int:
        return CHANCE_SCALE

    def exact_values(self, state, sets) -> list[Fraction | None]:
        return [Fraction(7 + int(row[row >= 0].sum()), 29) if self.cell in row.tolist() else None
                for row in sets.cells]

    def values(self, state, sets) -> np.ndarray:
        model = [(CHANCE_SCALE * (3 + int(row[row >= 0].sum()))) // 37 for row in sets.cells]
        return np.array([_millionths(c) if c is not None else m
                         for c, m in zip(self.exact_values(state, sets), model)], dtype=np.int64)

    def failed_value(self, state) -> int:
        return _millionths(Fraction(1, 7))

    def shelf_values(self, state) -> list[tuple[int, int]]:
        from shelfie_solver.dice.sheet_rules import failed_result_shelves

        return [(shelf, _millionths(Fraction(1, 7))) for shelf in failed_result_shelves(state.board, state.marks)]

    def exact_shelf_values(self, state) -> dict[int, Fraction]:
        from shelfie_solver.dice.sheet_rules import failed_result_shelves

        return {shelf: Fraction(1, 7) for shelf in failed_result_shelves(state.board, state.marks)} \
            if self.failed_exact else {}


def _millionths(chance: Fraction) -> int:
    """``chance`` rounded half up to millionths (the win model's rounding of an exact terminal)."""
    return (chance.numerator * 2 * CHANCE_SCALE + chance.denominator) // (2 * chance.denominator)


SMALL = (replace(small_rules(dice=3, faces=2), scoring_threshold=2),
         Board("b", (2, 1, 3), ((0, 1), (1,)), ((2, 1, 6), (3, 1, 4))))


def _brute(board, marks, rules, objective):
    """Brute force over the dice (D6, D7), written from the rule of ``advice.shown_turn``: per
    position ``(engine value, value shown, exact)``; a final roll's best marking by the engine's
    integer, then the value shown (rank_markings' order), a failed result the best shelf's value
    (D13); a hold exact when every roll it reaches is, then the mean of their values, else the
    engine's mean; a roll with re-rolls left its best hold by the engine's value, then the shown."""
    sides = rules.n_sides
    scale = objective.scale(rules)
    state = StateArrays(board, rules, marks)
    sets = item_sets(board, rules.combinations_per_turn)
    index = {tuple(c for c in row.tolist() if c >= 0): i for i, row in enumerate(sets.cells)}
    worth = objective.values(state, sets)
    exact = objective.exact_values(state, sets)
    engine_failed = Fraction(objective.failed_value(state), scale)
    failed = (engine_failed, Fraction(1, 7), True) if objective.failed_exact else (engine_failed, engine_failed, False)

    @cache
    def final(roll):
        found = [index[tuple(sorted(m.cells))] for m in legal_markings(roll, board, marks, rules)]
        if not found:
            return failed
        engine = {i: Fraction(int(worth[i]), scale) for i in found}
        options = [(engine[i], exact[i] if exact[i] is not None else engine[i], exact[i] is not None) for i in found]
        top = max(o[0] for o in options)
        shown = max(o[1] for o in options if o[0] == top)
        return top, shown, any(o[2] for o in options if o[0] == top and o[1] == shown)

    def outcomes(k):
        for faces in product(range(sides), repeat=k):
            yield tuple(faces.count(f) for f in range(sides)), Fraction(1, sides ** k)

    @cache
    def keep(hold, left):
        if sum(hold) == rules.dice:
            return final(hold)
        reached = [(q, value(tuple(h + o for h, o in zip(hold, out)), left - 1))
                   for out, q in outcomes(rules.dice - sum(hold))]
        engine = sum((q * v[0] for q, v in reached), Fraction(0))
        if all(v[2] for _, v in reached):
            return engine, sum((q * v[1] for q, v in reached), Fraction(0)), True
        return engine, engine, False

    def subs(roll):
        return [h for h in product(*(range(c + 1) for c in roll))]

    @cache
    def value(roll, left):
        if left == 0:
            return final(roll)
        options = [keep(h, left) for h in subs(roll)]
        top = max(o[0] for o in options)
        shown = max(o[1] for o in options if o[0] == top)
        return top, shown, any(o[2] for o in options if o[0] == top and o[1] == shown)

    return final, keep, value, subs


@pytest.mark.parametrize("failed_exact", [False, True])
# r1c1 (2 dice of a or b) and r2c2 (1 b) can be kept sure by a hold that re-rolls; r1c3 (3 dice) only by
# stopping, unless a failed result (D13: with r1c3 and r2c3 left, "aab" marks nothing) is exact too
@pytest.mark.parametrize("cell,sheet,sums", [(0, ".../...", True), (2, "x../...", False), (4, "x../o..", True),
                                             (2, "oo./ox.", "failed")])
def test_every_hold_and_roll_shows_the_brute_force_value(cell, sheet, sums, failed_exact) -> None:
    rules, board = SMALL
    marks = parse_marks(sheet, board)
    objective = _Exactish(cell, failed_exact)
    solution = solve_turn(board, marks, rules, objective)
    shown = shown_turn(board, marks, rules, objective, solution)
    assert shown is not None
    final, keep, value, subs = _brute(board, marks, rules, objective)
    space = space_for(rules)
    seen_exact_sum = False
    for left in range(rules.rerolls + 1):
        for roll in space.rolls:
            engine, want, flag = value(roll, left)
            assert solution.roll_value(roll, left) == engine  # the brute force's engine is the engine
            assert shown.roll(roll, left) == (want, flag), (roll, left)
            if left:
                for hold in subs(roll):
                    engine, want, flag = keep(hold, left)
                    assert shown.hold(hold, left) == (want, flag), (hold, left)
                    seen_exact_sum |= flag and sum(hold) < rules.dice and want != engine
    assert seen_exact_sum == (failed_exact if sums == "failed" else sums)  # an exact mean, apart from the millionths
    for roll in space.rolls:  # the advice's table: the same values and flags, stopping = the best marking
        holds = rank_holds(roll, board, marks, rules, objective, 2)
        assert [(h.value, bool(h.exact)) for h in holds] == [keep(h.keep, 2)[1:] for h in holds]
        markings = rank_markings(roll, board, marks, rules, objective)
        stop = next(h for h in holds if h.keep == roll)
        if markings:
            assert (stop.value, bool(stop.exact)) == (markings[0].value, bool(markings[0].exact))


def test_an_objective_without_exact_terminals_keeps_the_engine_values() -> None:
    rules, board = SMALL
    objective = _Exactish(cell=99)  # no set holds it: nothing exact
    solution = solve_turn(board, Marks.empty(board), rules, objective)
    assert shown_turn(board, Marks.empty(board), rules, objective, solution) is None
    holds = rank_holds((1, 1, 1), board, Marks.empty(board), rules, objective, 2)
    assert all(h.exact is None and h.value == solution.hold_value(h.keep, 2) for h in holds)


# --- the page: a difference to the best as the figures shown read --------------------------------


def test_the_difference_to_the_best_is_that_of_the_figures_shown() -> None:
    # 58.44% and 58.06% show as 58.4% and 58.1%: 0.3 apart as shown (the unrounded gap is 0.38)
    assert shown_loss_cell(Fraction("58.44"), Fraction("58.06"), 1, 1) == "0.3"
    assert shown_loss_cell(Fraction("58.44"), Fraction("58.40"), 1, 1) == "<0.1"  # alike as shown
    assert shown_loss_cell(Fraction(1, 3), Fraction(1, 3), 1, 1) == "0"
    records = [{"win_chance": c, "points": "0"} for c in ("5844/10000", "5806/10000", "5840/10000")]
    shown = shown_figures({"holds": records}, True)["holds"]
    assert [(s["value"], s["short"]) for s in shown] == [("58.4%", "0"), ("58.1%", "0.3"), ("58.4%", "<0.1")]
