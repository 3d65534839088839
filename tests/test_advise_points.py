"""Advice in points (D19), the dice to re-roll, and the end-trigger notices (D17).

The expected points column is checked against test_engine's brute force (every ordered roll and
re-roll, every hold by die position, Fractions), extended with a points column: the final roll's
marking is the objective's best and, among exact ties, the one scoring most.
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from click.testing import CliRunner

from shelfie_solver.dice.advise.advice import advise, rank_holds
from shelfie_solver.dice.board import Marks, parse_marks, score
from shelfie_solver.cli import main
from shelfie_solver.dice.rolls import dice_space, parse_dice

from test_allocate import brute_markings_by_subsets
from test_engine import SMALL_CONFIGS, BruteTurn, make_objective, phi, side_tuple


class BrutePointsTurn(BruteTurn):
    """:class:`test_engine.BruteTurn` with one more column: points scored this turn (D19)."""

    def worth(self, marks_after: Marks) -> Fraction:
        if self.objective == "points":
            return Fraction(score(self.board, marks_after, self.rules) - score(self.board, self.marks, self.rules))
        assert self.objective == "strategic"
        t = self.rules.scoring_threshold
        return phi(self.board, marks_after, t) - phi(self.board, self.marks, t)

    def final(self, dice: tuple[int, ...]) -> tuple[Fraction, ...]:
        row = super().final(dice)
        markings = brute_markings_by_subsets(self.counts(dice), self.board, self.marks, self.rules)
        before = score(self.board, self.marks, self.rules)
        options = [(self.worth(self.marks.with_marked(s)), score(self.board, self.marks.with_marked(s), self.rules))
                   for s in markings]
        points = max(options)[1] - before if options else 0
        return row + (Fraction(points),)


@pytest.mark.parametrize("objective", ["strategic", "points"])
@pytest.mark.parametrize("config", sorted(SMALL_CONFIGS))
def test_expected_points_of_every_hold_equal_brute_force(config, objective):
    """Every hold of every roll, 1 and 2 re-rolls left: the points column == brute force."""
    rules, board = SMALL_CONFIGS[config]
    for marks in (Marks.empty(board), Marks(board.n_shelves, board.n_columns, marked=1)):
        brute = BrutePointsTurn(board, marks, rules, objective)
        space = dice_space(rules.dice, rules.n_sides)
        for rerolls in (1, 2):
            for roll in space.rolls:
                for option in rank_holds(roll, board, marks, rules, make_objective(objective), rerolls):
                    expected = brute.keep(side_tuple(option.keep), rerolls)
                    assert option.points == expected[-1]
                    assert option.value == expected[0]
                    if objective == "points":  # the points objective's value is its points
                        assert option.points == option.value


def test_issue_example_shows_points_and_reroll():
    """The reported position: the table says what each hold is worth in points, and stopping
    (+28 points now, D19 worked by hand: r1c3 with CCC and r2c2 with BB) shows its 28."""
    result = CliRunner().invoke(main, ["advise", "--dice", "CCCBBJ", "--marks", "oo.o./o.o../xoxxx/.oo../o....",
                                       "--format", "json"])
    data = json.loads(result.stdout)
    stop = next(h for h in data["holds"] if h["keep"] == "BBCCCJ")
    assert Fraction(stop["points"]) == 28 and stop["reroll"] == ""
    best = data["holds"][0]
    assert best["keep"] == "BBJ" and best["reroll"] == "CCC"
    assert abs(best["points_float"] - float(Fraction(best["points"]))) < 1e-12
    table = CliRunner().invoke(main, ["advise", "--dice", "CCCBBJ", "--marks", "oo.o./o.o../xoxxx/.oo../o...."])
    assert "Best: keep BBJ, re-roll CCC" in table.stdout
    assert "strategic value:" in table.stdout and "potential points" in table.stdout
    assert "potential points" in CliRunner().invoke(main, ["advise", "--help"]).stdout


def test_marking_reports_score_after_and_scoring_lines(board, rules):
    """D19 by hand: shelf 1 has r1c1, r1c2 marked; marking r1c3 makes it score 1+2+4 = 7 (default
    board values of shelf 1: 1, 2, 4, 7, 11)."""
    marks = parse_marks("oo.../...../...../...../.....", board)
    dice = parse_dice("CCCGAB", rules)
    result = advise(dice, board, marks, rules, make_objective("points"), rerolls=0)
    best = result.markings[0]
    assert best.score_after == score(board, marks.with_marked(best.marking.cells), rules)
    top_shelf = [m for m in result.markings if m.marking.cells == (board.cell(0, 2),)][0]
    assert top_shelf.score_after == sum(board.values[0][:3]) and top_shelf.scoring_lines == (0,)


def _advise_json(*args: str) -> dict:
    result = CliRunner().invoke(main, ["advise", *args, "--format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_marking_that_closes_the_second_shelf_ends_the_game():
    """D17: shelf 1 is closed already; marking the last available item of shelf 2 (r2c1, one
    book) closes a second shelf, so the game ends after the round (D18); other markings do not."""
    marks = "xxxxx/.xxxx/...../...../....."
    data = _advise_json("--dice", "BPPGGA", "--rerolls", "0", "--marks", marks)
    closing = [m for m in data["markings"] if "r2c1" in m["cells"]]
    others = [m for m in data["markings"] if "r2c1" not in m["cells"]]
    assert closing and all(m["ends_game"] for m in closing)
    assert others and not any(m["ends_game"] for m in others)
    table = CliRunner().invoke(main, ["advise", "--dice", "BPPGGA", "--rerolls", "0", "--marks", marks, "--top", "50"])
    assert "ends game (D17)" in table.stdout  # the end column (short: the table fits 80 columns)


def test_failed_result_that_closes_the_second_shelf_ends_the_game():
    """D13 + D17: six cats mark nothing when shelf 1 (cats) is closed; giving up a shelf closes
    it, so with one shelf closed already every choice closes the second; with none, none does."""
    data = _advise_json("--dice", "CCCCCC", "--rerolls", "0", "--marks", "xxxxx/xxxx./...../...../.....")
    assert data["failed"] and len(data["shelves"]) == 4 and all(s["ends_game"] for s in data["shelves"])
    assert all(abs(s["potential_change_float"] - float(Fraction(s["potential_change"]))) < 1e-12
               for s in data["shelves"])
    table = CliRunner().invoke(main, ["advise", "--dice", "CCCCCC", "--rerolls", "0", "--marks",
                                      "xxxxx/xxxx./...../...../....."])
    assert "ends game (D17)" in table.stdout  # the end column (short: the table fits 80 columns)
    data = _advise_json("--dice", "CCCCPB", "--rerolls", "0", "--marks", "xxxx./xxxx./xxxx./xxxx./xxxx.")
    assert data["failed"] and not any(s["ends_game"] for s in data["shelves"])


def test_finished_sheet_says_final_score():
    marks = "ooooo/xxxxx/ooo../xxxxx/xxxxx".replace(".", "x")
    data = _advise_json("--dice", "CCBJPP", "--marks", marks)
    assert data["finished"] and data["final_score"] == data["score"]
    table = CliRunner().invoke(main, ["advise", "--dice", "CCBJPP", "--marks", marks])
    assert f"Sheet finished: final score {data['score']}" in table.stdout


def test_already_triggered_end_is_said():
    data = _advise_json("--dice", "CCBJPP", "--marks", "xxxxx/xxxxx/...../...../.....")
    assert data["end_triggered"] and not data["finished"]


def test_the_last_turn_is_advised_by_points() -> None:
    """D17/D18: a sheet that has already triggered the end plays its last turn, so the
    strategic potential of open lines is worth nothing. Six plants on a sheet whose shelves 1-2
    are closed: stopping marks PPPP on r3c4 (7 points) and PP on r3c2 (2 points) beside the
    marked r3c1 (2 points): 11 points for sure (hand-worked from the default board's shelf 3 values
    2, 2, 3, 7, 12). No six dice score more this turn: shelf 3 needs a third mark to score, and
    r3c5 (5 dice) leaves one die, which no open item of shelf 3 takes; shelf 4 scores at most
    8 (r4c1 + r4c2 beside r4c3). So stopping, a sure maximum, is the best hold."""
    from click.testing import CliRunner

    from shelfie_solver.cli import main

    result = CliRunner().invoke(main, ["advise", "--dice", "PPPPPP", "--marks", "xxxxx/xxxxx/o..../..o../.o...",
                                       "--format", "json"])
    assert result.exit_code == 0, result.output
    import json

    data = json.loads(result.output)
    assert data["objective"] == "points"
    best = data["holds"][0]
    assert best["keep"] == "PPPPPP"
    assert best["points_float"] == 11.0
