"""The reason line names the decisive factor against the runner-up the list shows, in the table's
own rounding and words (docs/advise.md, "Why"): positions built by marking cells, where the
factor is known by construction — a block that ends the game while leading (D15, D17, D18), a
decided game (D19, D20), two choices equal at the shown precision, an item saved from a block."""

from __future__ import annotations

import json
import re
from fractions import Fraction

import pytest
from click.testing import CliRunner

from shelfie_solver.cli import main
from shelfie_solver.core.report import decimal
from shelfie_solver.dice.advise.words import chance_cell, hold_words
from shelfie_solver.dice.board import Board, Marks, score
from shelfie_solver.dice.rules import DEFAULT_RULES


def sheet(board: Board, marked: str = "", eliminated: str = "") -> Marks:
    """A sheet built by marking (and eliminating) the named items of an empty one."""
    cells = [board.parse_cell(name) for name in marked.split()]
    crossed = [board.parse_cell(name) for name in eliminated.split()]
    return Marks.empty(board).with_marked(cells).with_eliminated(crossed)


def shelves(*numbers: int, columns: range = range(1, 6)) -> str:
    return " ".join(f"r{s}c{c}" for s in numbers for c in columns)


def advise(mine: Marks, opponent: Marks, dice: str, *args: str) -> tuple[dict, str]:
    """``advise --opponent`` as JSON and as the text table, same position."""
    common = ["advise", "--dice", dice, "--marks", str(mine), "--opponent", str(opponent), *args]
    runs = [CliRunner().invoke(main, common + extra) for extra in (["--format", "json"], [])]
    for run in runs:
        assert run.exit_code == 0, run.output
    return json.loads(runs[0].stdout), runs[1].stdout


def rows(table: str, column: str) -> list[tuple[str, str, str]]:
    """``(rank, what, cell of column)`` per row of the text table, cells as printed."""
    lines = table.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("rank"))
    starts = [m.start() for m in re.finditer(r"\S+(?: \S+)*", lines[head])]
    names = re.findall(r"\S+(?: \S+)*", lines[head])
    at = names.index(column)
    out = []
    for line in lines[head + 2:]:
        if not line.strip():
            break
        cells = [line[a:b].strip() for a, b in zip(starts, starts[1:] + [len(line)])]
        out.append((cells[0], cells[1], cells[at]))
    return out


def runner_up(table: str, column: str = "win chance") -> tuple[str, str]:
    """The first row ranked below the best: its choice and its cell, as printed."""
    best = rows(table, column)[0][0].rstrip("=")
    return next((what, cell) for rank, what, cell in rows(table, column) if rank.rstrip("=") != best)


def test_a_block_that_ends_the_game_while_leading(board):
    """Ben, last in round 4, holds column 1 but r5c1; Ann's shelf 5 is crossed out and her shelf 4
    is marked but r4c1. Ben's r5c1 (the award A) completes column 1, which blocks Ann's r1c1-r4c1
    (D15), closing her shelf 4: her second closed shelf ends the game at once (D17, D18)."""
    rules = DEFAULT_RULES
    ben = sheet(board, "r1c1 r1c2 r1c3 r1c4 r2c1 r2c2 r2c3 r3c1 r4c1")
    ann = sheet(board, "r3c5 r4c2 r4c3 r4c4 r4c5", shelves(5))
    data, table = advise(ben, ann, "GGGGGA", "--rerolls", "0", "--order", "2", "--round", "4")
    best = data["markings"][0]
    assert "r5c1" in best["cells"] and best["win_chance"] == "1/1"
    mine = score(board, ben.with_marked([board.parse_cell(c) for c in best["cells"]]), rules)
    theirs = score(board, ann, rules)  # blocking eliminates only items still available: no score changes
    assert mine > theirs
    runner, cell = runner_up(table)
    assert "r5c1" not in runner
    tied = [" + ".join(m["cells"]) for m in data["markings"][1:] if m["rank"] == 1]  # every r5c1 wins: 1=
    assert len(tied) == 5  # named as the Best line names ties: four, then how many more
    assert data["reason"] == (
        f"marking {' + '.join(best['cells'])} completes column 1, blocking the opponent's r1c1 r2c1 r3c1 r4c1 "
        f"(D15) and so closes the opponent's second shelf, which ends the game at once (D17, D18): "
        f"you win {mine}-{theirs}; tied with {', '.join(tied[:4])} and 1 more at 100%, against {cell} for {runner}")
    assert rows(table, "win chance")[0][2] == "100%"  # the sure win printed as the certainty it is
    assert f"Why: {data['reason']}." in " ".join(table.split())


def test_a_game_lost_whatever_you_roll_says_so(board):
    """Last to play with the end triggered (D17, D18): even every available item marked leaves the
    sheet below the opponent's final score (D19), so every hold is exactly 0% (D20)."""
    rules = DEFAULT_RULES
    mine = sheet(board, shelves(1), shelves(2, 3, 4))
    theirs = sheet(board, shelves(2, 3, 4) + " r5c1 r5c2 r5c3 r5c4", shelves(1))
    best_case = mine.with_marked(list(mine.available))
    assert score(board, best_case, rules) < score(board, theirs, rules)
    data, table = advise(mine, theirs, "CCBJPP", "--order", "2", "--round", "9")
    assert {h["win_chance"] for h in data["holds"]} == {"0/1"} and data["decided"] is True
    assert data["reason"] == "you can no longer win, whatever you roll"
    text = " ".join(table.split())
    top = data["holds"][0]
    assert "Decided: you can no longer win, whatever you roll (chance to win 0%, exact): any hold will do;" in text
    assert "rank" not in table.split("Decided:")[1].split("\n\n")[1]  # no table ranking equal chances
    assert f"({decimal(Fraction(top['points']), 2)} expected points)" in text
    assert "Every choice gives 0%, exactly" in text and "0.0%" not in table


def test_a_game_won_whatever_you_roll_says_so(board):
    """Last to play with the end triggered, 184 points against a final 25: marking only adds points
    and a failed result keeps every marked item (D13, D19), so every hold wins (D20)."""
    rules = DEFAULT_RULES
    mine = sheet(board, shelves(2, 3, 4) + " r5c1 r5c2 r5c3 r5c4", shelves(1))
    theirs = sheet(board, shelves(1), shelves(2, 3, 4))
    assert score(board, mine, rules) > score(board, theirs.with_marked(list(theirs.available)), rules)
    data, table = advise(mine, theirs, "CCBJPP", "--order", "2", "--round", "9")
    assert {h["win_chance"] for h in data["holds"]} == {"1/1"}
    assert data["reason"] == "you have won whatever you roll"
    assert "Decided: you have won whatever you roll (chance to win 100%, exact)" in " ".join(table.split())
    assert "100.0%" not in table and "rank" not in table


def _equal_at_the_shown_precision(board: Board) -> tuple[dict, str, Fraction, Fraction]:
    """Round 1, empty sheets, the first of a few final rolls whose best marking and runner-up
    differ (exactly, in the model's chance) by less than the table's 0.1 percentage point. Which rolls do
    depends on the shipped win model (data/win.json), hence several candidates."""
    empty = Marks.empty(board)
    for dice in ("BBBCCJ", "BCCPPJ", "BGGAAJ", "CCPAAA", "PGGAAA", "CCCPAA", "CBPPAJ", "CPPGGJ"):
        data, table = advise(empty, empty, dice, "--rerolls", "0")
        best = data["markings"][0]
        second = next(m for m in data["markings"] if m["rank"] != 1)
        a, b = Fraction(best["win_chance"]), Fraction(second["win_chance"])
        if a > b and chance_cell(a) == chance_cell(b):  # the case of this test
            return data, table, a, b
    raise AssertionError("no candidate roll has two markings equal at the shown precision")


def test_two_choices_equal_at_the_shown_precision(board):
    """The best marking and the runner-up print alike in the table (0.1 percentage point): the reason says
    so instead of "53.9% against 53.9%"."""
    data, table, a, b = _equal_at_the_shown_precision(board)
    second = next(m for m in data["markings"] if m["rank"] != 1)
    runner, cell = runner_up(table)
    assert runner == " + ".join(second["cells"]) and cell == chance_cell(b)
    assert f"ahead of {runner} by less than 0.1 percentage point (both {cell})" in data["reason"]
    assert f"{cell} against {cell}" not in data["reason"]
    whole = data["reason_by_places"][0]  # the page at whole percent
    if chance_cell(a, 0) == chance_cell(b, 0):
        assert f"by less than 1 percentage point (both {chance_cell(a, 0)})" in whole
    else:
        assert f"{chance_cell(a, 0)} against {chance_cell(b, 0)}" in whole
    assert data["reason_by_places"][1] == data["reason"]


def test_an_item_saved_from_a_block(board):
    """The opponent has r1c1-r1c4 marked: one more item completes shelf 1 and eliminates the
    player's items on it (D15). The best marking takes a shelf-1 item, the runner-up none."""
    opponent = sheet(board, "r1c1 r1c2 r1c3 r1c4")
    for dice in ("CJBBPP", "BBBBCP", "BBBBCA", "BBBCPG"):  # which rolls do depends on data/win.json
        data, table = advise(Marks.empty(board), opponent, dice, "--rerolls", "0", "--order", "2", "--round", "2")
        best, second = data["markings"][0], next(m for m in data["markings"] if m["rank"] != 1)
        saved = [c for c in best["cells"] if c.startswith("r1")]
        if saved and not any(c.startswith("r1") for c in second["cells"]):  # the case of this test
            break
    else:
        raise AssertionError("no candidate roll's best marking takes a shelf-1 item and its runner-up none")
    runner, cell = runner_up(table)
    best_cell = rows(table, "win chance")[0][2]
    assert data["reason"] == (f"marking {' + '.join(saved)} now saves it from the opponent's block on shelf 1 "
                              f"(D15): {best_cell} against {cell} for {runner}")


def test_holds_are_worded_one_way():
    """A hold reads the same in the reason, the best line and the page: stop, re-roll all, keep X."""
    rules = DEFAULT_RULES
    dice = (0,) * (rules.n_sides - 2) + (2, 4)
    assert hold_words(dice, dice, rules) == "stop"
    assert hold_words(dice, (0,) * rules.n_sides, rules) == "re-roll all"
    assert hold_words(dice, (0,) * (rules.n_sides - 1) + (4,), rules).startswith("keep ")


def test_the_reason_uses_the_table_numbers_alone():
    """Alone (strategic): the runner-up in the table's words, its value and points as printed
    (4 and 2 decimals), never "keep nothing"."""
    runs = [CliRunner().invoke(main, ["advise", "--dice", "CCBJPP", *extra]) for extra in (["--format", "json"], [])]
    data, table = json.loads(runs[0].stdout), runs[1].stdout
    second = next(h for h in data["holds"] if h["rank"] != 1)
    runner, value = runner_up(table, "value")
    assert runner == second["keep"] and f"for keep {runner}" in data["reason"]
    assert f"against {value} for keep {runner}" in data["reason"]
    best_row = rows(table, "value")[0]
    assert f"strategic value {best_row[2]} against" in data["reason"]
    points = {what: cell for _, what, cell in rows(table, "points")}
    assert f"{points[best_row[1]]} against {points[runner]} expected points" in data["reason"] or \
        f"{points[runner]} against {points[best_row[1]]} expected points" in data["reason"]
    assert "keep nothing" not in table


def test_certainties_print_without_decimals():
    assert [chance_cell(Fraction(x)) for x in (0, 1)] == ["0%", "100%"]
    assert chance_cell(Fraction(1, 5000)) == "<0.1%" and chance_cell(Fraction(4999, 5000)) == ">99.9%"
    assert chance_cell(Fraction(1, 8)) == "12.5%" and chance_cell(Fraction(1, 8), 0) == "13%"


def test_stopping_is_named_as_stopping(board):
    """A runner-up that keeps every die is "stop" (D7), not "keep PPBCCJ": an advice built by hand,
    the best hold worth 2 points and stopping 1 point but 3 expected points this turn."""
    from shelfie_solver.dice.advise.advice import Advice, HoldOption
    from shelfie_solver.dice.advise.reasons import reason
    from shelfie_solver.dice.rolls import parse_dice

    rules = DEFAULT_RULES
    dice = parse_dice("PPBCCJ", rules)
    keep = parse_dice("CC", rules, count=2)
    holds = (HoldOption(keep, Fraction(2), Fraction(0), (), 1, Fraction(1)),
             HoldOption(dice, Fraction(1), Fraction(0), (), 2, Fraction(3)))
    advice = Advice(rules, board, Marks.empty(board), dice, 2, "points", Fraction(2), 0, holds=holds)
    assert reason(advice) == ("keep CC: points value 2.0000 against 1.0000 for stop, which scores more this turn "
                              "(3.00 against 1.00 expected points)")


def test_a_block_is_named_by_its_line_and_the_items_it_takes(board):
    """The player has r1c5-r4c5 marked; AAAAAP marks r5c5 (five awards, D8-D10) with r3c1 (the
    plant): column 5 complete, so the opponent's five still-available column-5 items are
    eliminated (D15). Under the points objective the ranking is the points now (D19): column 5
    already scores with 4 marked items, so r5c5 adds its own value (with or without r3c1: a tie),
    and the runner-up, three awards and a plant off any scoring line, adds nothing."""
    from shelfie_solver.dice.advise.advice import advise_in_game
    from shelfie_solver.dice.advise.reasons import reason
    from shelfie_solver.dice.advise.seats import state_from_seats
    from shelfie_solver.dice.objectives import Points
    from shelfie_solver.dice.rolls import parse_dice

    rules = DEFAULT_RULES
    me = sheet(board, "r1c5 r2c5 r3c5 r4c5")
    state = state_from_seats(board, rules, me, (sheet(board, "r1c1 r2c1"),), 1, 3)
    advice = advise_in_game(parse_dice("AAAAAP", rules), state, Points(), 0)
    best = advice.markings[0]
    runner = next(m for m in advice.markings if m.rank != 1)
    names = [board.cell_name(c) for c in best.marking.cells]
    assert "r5c5" in names and board.parse_cell("r5c5") not in runner.marking.cells
    column = board.value(board.parse_cell("r5c5"))
    assert best.points == column and runner.points == 0  # r5c5 joins a scoring column; nothing else scores
    tied = [" + ".join(board.cell_name(c) for c in m.marking.cells) for m in advice.markings[1:] if m.rank == 1]
    assert tied == ["r5c5"]  # the tie of r5c5 with or without r3c1, named before the runner-up
    assert reason(advice, ["Ann", "Ben"]) == (
        f"{' + '.join(names)} completes column 5, blocking Ben's r1c5 r2c5 r3c5 r4c5 r5c5 (D15): "
        f"tied with r5c5 at points value {column}.0000, against 0.0000 for "
        f"{' + '.join(board.cell_name(c) for c in runner.marking.cells)}")


def test_play_says_the_game_is_decided(tmp_path):
    """play, as advise: Ann gives up shelves 1 and 2 (told failed results, D13), which triggers the
    end (D17) at 0 points; Ben, last in the round (D18), scores shelf 2's three items already
    (D19): he has won whatever he rolls (D20), and play says so instead of ranking the holds."""
    game = str(tmp_path / "g.json")
    for step in (["new", game, "--players", "Ann,Ben", "--first", "Ann"], ["fail", game, "--shelf", "1"],
                 ["mark", game, "--unchecked", "r2c1", "r2c2", "r2c3"], ["fail", game, "--shelf", "2"]):
        result = CliRunner().invoke(main, ["play", *step])
        assert result.exit_code == 0, result.output
    result = CliRunner().invoke(main, ["play", "roll", game, "CCBBPG"])
    assert result.exit_code == 0, result.output
    text = " ".join(result.stdout.split())
    assert "Decided: you have won whatever you roll (chance to win 100%, exact): any hold will do;" in text
    assert "100.0%" not in result.stdout and "\nrank " not in result.stdout
    data = json.loads(CliRunner().invoke(main, ["play", "advise", game, "--format", "json"]).stdout)
    assert data["decided"] is True and data["reason"] == "you have won whatever you roll"
    assert {h["win_chance"] for h in data["holds"]} == {"1/1"}
    from shelfie_solver.dice.play.gamefile import read_kept_game
    from shelfie_solver.dice.play.screen import advice_lines

    lines = advice_lines(read_kept_game(game), "win")  # the prompt's screen: the same words, nothing ranked
    assert lines[0].startswith("Decided: you have won whatever you roll (chance to win 100%, exact)")
    assert not any(line.startswith(("Next:", "Best:")) for line in lines)


@pytest.mark.parametrize("second, words", [
    (Fraction(1, 2) - Fraction(1, 500), "every hold is within 0.2 percentage points of the chance to win"),
    (Fraction(1, 2) - Fraction(1, 10**5), "every hold is within less than 0.1 percentage point of the chance to win"),
])
def test_holds_that_barely_differ_say_so_in_percentage_points(board, second, words):
    """Two holds of the chance to win 50% and just under it (a hand-built advice, exact chances):
    the spread is a difference of chances, in percentage points, singular below 0.1."""
    from shelfie_solver.dice.advise.advice import Advice, HoldOption
    from shelfie_solver.dice.advise.reasons import reason
    from shelfie_solver.dice.rolls import parse_dice

    rules = DEFAULT_RULES
    dice = parse_dice("PPBCCJ", rules)
    holds = (HoldOption(parse_dice("CC", rules, count=2), Fraction(1, 2), Fraction(0), (), 1, Fraction(1)),
             HoldOption(parse_dice("PP", rules, count=2), second, Fraction(0), (), 2, Fraction(1)))
    advice = Advice(rules, board, Marks.empty(board), dice, 2, "win", Fraction(1, 2), 0, holds=holds,
                    win_chance_exact=True)
    assert reason(advice) == f"{words}: the choice barely matters"


def _words(what: str) -> str:
    """A hold's table cell (``BBBBJ``, ``GBBBBJ (stop)``) in the reason's words (D7)."""
    return "stop" if what.endswith("(stop)") else f"keep {what}" if what != "(re-roll all)" else "re-roll all"


def test_a_hold_tied_with_the_best_is_named_before_the_runner_up():
    """Kim's round-6 roll GBBBBJ (1 re-roll left; Lee and Nu in play order after her): stopping
    and keeping BBBBJ (re-rolling the useless G) are ranked 1= in the table; the reason names that
    tie, as the Best line does, then compares with the first hold ranked below them, each figure as
    its row prints it; the page reads the same text (JSON reason_by_places[1] is the reason)."""
    common = ["advise", "--dice", "GBBBBJ", "--rerolls", "1", "--marks", "oxo../ox.../ox.../oxo.o/oxooo",
              "--opponent", "ox.oo/ox.oo/ox.../xx..o/ox...", "--opponent", "ooo../xoo../oo.o./oo.../oooxx",
              "--order", "2", "--round", "6", "--objective", "win"]
    runs = [CliRunner().invoke(main, common + extra) for extra in (["--format", "json"], [])]
    assert all(run.exit_code == 0 for run in runs), runs[1].output
    data, table = json.loads(runs[0].stdout), runs[1].stdout
    table_rows = rows(table, "win chance")
    tied = [_words(what) for rank, what, _ in table_rows if rank == "1="]
    assert len(tied) == 2 and tied[0] == "stop"  # the case of this test: two holds share rank 1
    best_cell = table_rows[0][2]
    runner, cell = runner_up(table)
    expected = f"stop: tied with {tied[1]} at {best_cell}, against {cell} for {_words(runner)}"
    assert data["reason"].startswith(expected + ";"), data["reason"]
    text = " ".join(runs[1].stdout.split())
    assert f"Best: stop (tied with {tied[1]}):" in text and f"Why: {data['reason']}." in text
    assert data["reason_by_places"][1] == data["reason"]


def test_a_marking_tied_with_the_best_is_named_before_the_runner_up():
    """Points objective, final dice PAAAAA, column 5 marked but r5c5: r5c5 with the five awards
    scores column 5 (D19) with or without r3c1 (the plant: no line of it scores), so the two
    markings tie (1=); the reason names the tie, then the first marking ranked below them."""
    runs = [CliRunner().invoke(main, ["advise", "--dice", "AAAAAP", "--rerolls", "0", "--marks",
                                      "....o/....o/....o/....o/.....", "--objective", "points", *extra])
            for extra in (["--format", "json"], [])]
    data, table = json.loads(runs[0].stdout), runs[1].stdout
    table_rows = rows(table, "value")
    tied = [what for rank, what, _ in table_rows if rank == "1="]
    assert sorted(tied) == ["r3c1 + r5c5", "r5c5"]
    runner, value = runner_up(table, "value")
    assert data["reason"].startswith(
        f"{tied[0]}: tied with {tied[1]} at points value {table_rows[0][2]}, against {value} for {runner};")


def test_the_best_line_names_the_markings_tied_with_it():
    """The same position: the ``Best:`` line names the marking tied with the best (1= in the
    table), as the holds' ``Best:`` line names tied holds."""
    table = CliRunner().invoke(main, ["advise", "--dice", "AAAAAP", "--rerolls", "0", "--marks",
                                      "....o/....o/....o/....o/.....", "--objective", "points"]).stdout
    tied = [what for rank, what, _ in rows(table, "value") if rank == "1="]
    best = " ".join(line for line in " ".join(table.split()).split("Why:")[:1])
    assert best.strip().endswith(f", tied with {tied[1]}"), best


def test_a_shelf_tied_with_the_best_is_named_before_the_runner_up(board):
    """A failed result (D13) whose shelves 2 and 1 give 1/2 and shelf 3 gives 1/3 (a hand-built
    advice, exact chances): the reason names shelf 1's tie and compares with shelf 3."""
    from shelfie_solver.dice.advise.advice import Advice, ShelfOption
    from shelfie_solver.dice.advise.reasons import reason
    from shelfie_solver.dice.rolls import parse_dice

    rules = DEFAULT_RULES
    lost = {s: tuple(board.parse_cell(f"r{s}c{c}") for c in (4, 5)) for s in (1, 2, 3)}
    failed = tuple(ShelfOption(s - 1, lost[s], sum(board.value(c) for c in lost[s]), Fraction(0), value=v)
                   for s, v in ((2, Fraction(1, 2)), (1, Fraction(1, 2)), (3, Fraction(1, 3))))
    advice = Advice(rules, board, sheet(board, shelves(4, 5)), parse_dice("PPGGBC", rules), 0, "win",
                    Fraction(1, 2), 0, failed=failed, win_chance_exact=True)
    points = board.value(board.parse_cell("r2c4")) + board.value(board.parse_cell("r2c5"))
    assert reason(advice) == (f"it gives up 2 items worth {points} points: tied with shelf 1 at 50.0%, against "
                              "33.3% for shelf 3")


def test_blocks_on_several_seats_are_joined_as_english(board):
    """As the block test above with two opponents: r5c5 completes column 5, which eliminates Ben's
    five column-5 items and Cal's four still available (her r2c5 is marked and stays, D15); the
    two seats' items are joined by "and", never by a semicolon."""
    from shelfie_solver.dice.advise.advice import advise_in_game
    from shelfie_solver.dice.advise.reasons import reason
    from shelfie_solver.dice.advise.seats import state_from_seats
    from shelfie_solver.dice.objectives import Points
    from shelfie_solver.dice.rolls import parse_dice

    rules = DEFAULT_RULES
    me = sheet(board, "r1c5 r2c5 r3c5 r4c5")
    state = state_from_seats(board, rules, me, (sheet(board, "r1c1 r2c1"), sheet(board, "r2c5")), 1, 3)
    advice = advise_in_game(parse_dice("AAAAAP", rules), state, Points(), 0)
    text = reason(advice, ["Ann", "Ben", "Cal"])
    assert text is not None
    assert "completes column 5, blocking Ben's r1c5 r2c5 r3c5 r4c5 r5c5 and Cal's r1c5 r3c5 r4c5 r5c5 (D15)" in text
    assert ";" not in text.split("(D15)")[0]
