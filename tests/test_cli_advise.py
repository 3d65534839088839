"""``shelfie-solve advise`` through click's CliRunner: the JSON contract (docs/advise.md), the output
formats, dice and marks input forms, and every bad-input path (one line, exit code 2)."""

from __future__ import annotations

import csv
import io
import json
import os
import platform
import re
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path

import pytest
from click.testing import CliRunner

from shelfie_solver.cli import main

from conftest import EXAMPLES, assert_one_line_error

EXACT = re.compile(r"^-?\d+/\d+$")
MID_GAME = str(EXAMPLES / "marks" / "mid-game.txt")


def advise(*args: str):
    return CliRunner().invoke(main, ["advise", *args])


def advise_json(*args: str) -> dict:
    result = advise(*args, "--format", "json")
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    return json.loads(result.stdout)


def fraction(text: str) -> Fraction:
    assert EXACT.match(text), text
    return Fraction(text)


def check_holds(data: dict, dice: str) -> None:
    """The JSON contract for re-rolls > 0: holds best first, keep codes drawn from the dice,
    exact "p/q" values matching value_float, ties sharing a rank."""
    holds = data["holds"]
    assert holds and data["value"] == holds[0]["value"]
    values = [fraction(h["value"]) for h in holds]
    assert values == sorted(values, reverse=True)
    for h, v in zip(holds, values):
        assert h["value_float"] == pytest.approx(float(v))
        assert all(h["keep"].count(code) <= dice.count(code) for code in set(h["keep"]))
        assert h["rank"] == 1 + sum(1 for w in values if w > v)  # equal values share a rank
    assert len({h["keep"] for h in holds}) == len(holds)


# --- the JSON contract -------------------------------------------------------------------------

@pytest.mark.parametrize("rerolls", ["2", "1"])
def test_json_holds_contract(rerolls):
    data = advise_json("--dice", "CCBJPP", "--rerolls", rerolls)
    assert data["rerolls"] == int(rerolls) and data["objective"] == "strategic"
    check_holds(data, "PPBCCJ")
    assert len(data["holds"]) == 3 * 2 * 2 * 3  # every distinct hold of P P B C C J
    assert {"", "PPBCCJ"} <= {h["keep"] for h in data["holds"]}


def test_default_rerolls_is_two():
    data = advise_json("--dice", "CCBJPP")
    assert data["rerolls"] == 2 and "holds" in data


def test_json_hold_values_by_hand():
    """Six plants, objective cell:r1c1 (one cat). Re-rolling all six dice succeeds with a cat or
    with six Jokers (D12: they mark any one item): 1 - (5/6)^6 + (1/6)^6 = 31032/46656 = 431/648.
    Keeping k >= 1 plants rules out six Jokers: 1 - (5/6)^(6-k); stopping is worth 0. With two
    re-rolls, re-roll all twice: 1 - q^2 with q = (5/6)^6 - (1/6)^6."""
    one = advise_json("--dice", "PPPPPP", "--rerolls", "1", "--objective", "cell:r1c1")
    assert one["objective"] == "cell:r1c1"
    all_jokers = Fraction(1, 6) ** 6
    assert one["holds"][0]["keep"] == "" and one["holds"][0]["value"] == "431/648"
    by_keep = {h["keep"]: fraction(h["value"]) for h in one["holds"]}
    assert by_keep[""] == 1 - Fraction(5, 6) ** 6 + all_jokers
    for k in range(1, 7):
        assert by_keep["P" * k] == 1 - Fraction(5, 6) ** (6 - k)
    two = advise_json("--dice", "PPPPPP", "--rerolls", "2", "--objective", "cell:r1c1")
    q = Fraction(5, 6) ** 6 - all_jokers
    assert two["holds"][0]["keep"] == "" and fraction(two["value"]) == 1 - q ** 2
    check_holds(two, "PPPPPP")


def test_ties_are_shown_as_ties():
    """P P G G B B, objective cell:r1c1: keeping one plant, one game or one book are exact ties
    (1 - (5/6)^5 = 4651/7776) and share rank 2; the table marks them '2='."""
    data = advise_json("--dice", "PPGGBB", "--rerolls", "1", "--objective", "cell:r1c1")
    tied = [h for h in data["holds"] if h["rank"] == 2]
    assert sorted(h["keep"] for h in tied) == ["B", "G", "P"]
    assert {h["value"] for h in tied} == {"4651/7776"}
    assert data["holds"][3]["rank"] == 2 and data["holds"][4]["rank"] == 5
    table = advise("--dice", "PPGGBB", "--rerolls", "1", "--objective", "cell:r1c1")
    assert table.exit_code == 0
    assert sum(1 for line in table.stdout.splitlines() if line.startswith("2=")) == 3


def test_json_markings_contract_by_hand():
    """Re-rolls 0, the D19 example of test_rules.py: value 11/1, two best markings tied, each
    cell with its dice group."""
    data = advise_json("--dice", "CCCPGB", "--rerolls", "0", "--marks", "oo.../...../...../...../.....",
                       "--objective", "points")
    assert data["rerolls"] == 0 and data["objective"] == "points"
    assert data["value"] == "11/1" and "holds" not in data
    best = [m for m in data["markings"] if m["rank"] == 1]
    assert sorted(sorted(m["cells"]) for m in best) == [["r1c3", "r2c1", "r3c1"], ["r1c3", "r3c1", "r4c1"]]
    shelf_face = {"1": "C", "2": "B", "3": "P", "4": "G", "5": "A"}
    for m in data["markings"]:
        assert len(m["cells"]) == len(m["groups"]) <= 3
        for cell, group in zip(m["cells"], m["groups"]):
            shelf, column = cell[1], int(cell[3])
            assert group == shelf_face[shelf] * column  # n(c) dice of the shelf's face, no Joker here
        assert EXACT.match(m["value"])
    values = [fraction(m["value"]) for m in data["markings"]]
    assert values == sorted(values, reverse=True)


def test_json_markings_with_jokers():
    data = advise_json("--dice", "CCBJPP", "--rerolls", "0")
    for m in data["markings"]:
        used = "".join(m["groups"])
        assert all(used.count(c) <= "PPBCCJ".count(c) for c in set(used))
        assert all(g.count("J") <= 1 and g.strip("J") for g in m["groups"])  # D11


def test_json_failed_result():
    """D13: no cat item left and six cats: the failed result, give up shelf 4 (test_rules.py)."""
    data = advise_json("--dice", "CCCCCC", "--rerolls", "0", "--marks", "ooxxx/...../...../...../.....")
    assert data["markings"] == [] and data["failed"] is True
    assert data["give_up_shelf"] == 4 and data["value"] == "-1/2"
    table = advise("--dice", "CCCCCC", "--rerolls", "0", "--marks", "ooxxx/...../...../...../.....")
    assert table.exit_code == 0 and "Give up shelf 4" in table.stdout


def test_json_all_jokers_D12():
    """D12: six Jokers at re-rolls 0 mark any one available item (24 here), each with all six
    dice as its group."""
    data = advise_json("--dice", "JJJJJJ", "--rerolls", "0", "--marks", "o..../...../...../...../.....")
    assert len(data["markings"]) == 24
    assert all(len(m["cells"]) == 1 and m["groups"] == ["JJJJJJ"] for m in data["markings"])
    every = {f"r{s}c{c}" for s in range(1, 6) for c in range(1, 6)}
    assert {m["cells"][0] for m in data["markings"]} == every - {"r1c1"}


def test_json_failed_result_with_no_shelf_left():
    """D13: nothing available anywhere: a failed result with no shelf to give up."""
    data = advise_json("--dice", "CCBJPP", "--rerolls", "0", "--marks", "ooxxx/xxxxx/ooooo/xxxxx/xoxox")
    assert data["markings"] == [] and data["failed"] is True and data["give_up_shelf"] is None
    assert data["shelves"] == []
    table = advise("--dice", "CCBJPP", "--rerolls", "0", "--marks", "ooxxx/xxxxx/ooooo/xxxxx/xoxox")
    assert table.exit_code == 0 and "Sheet finished: final score" in table.stdout and data["finished"]


# --- formats -------------------------------------------------------------------------------------

def test_table_format():
    result = advise("--dice", "CCBJPP", "--top", "5")
    assert result.exit_code == 0 and result.stderr == ""
    out = result.stdout
    assert "Best: keep" in out and "rank" in out and "31 more holds not shown" in out


def test_csv_format():
    """CSV is for machines: every hold, exact "p/q" values plus floats, the same order and values
    as JSON (--top only trims the table and Markdown)."""
    result = advise("--dice", "CCBJPP", "--rerolls", "1", "--format", "csv", "--top", "4")
    assert result.exit_code == 0
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    json_holds = advise_json("--dice", "CCBJPP", "--rerolls", "1")["holds"]
    assert len(rows) == len(json_holds) == 36
    assert [r["keep"] for r in rows] == [h["keep"] for h in json_holds]
    assert [r["value"] for r in rows] == [h["value"] for h in json_holds]
    assert all(EXACT.match(r[key]) for r in rows for key in ("value", "fail", "at_least_1", "at_least_2", "at_least_3"))
    assert all(fraction(r["value"]) == Fraction(r["value"]) for r in rows)


def test_csv_markings_format():
    result = advise("--dice", "CCBJPP", "--rerolls", "0", "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    markings = advise_json("--dice", "CCBJPP", "--rerolls", "0")["markings"]
    assert len(rows) == len(markings) > 10
    assert [r["cells"].split() for r in rows] == [m["cells"] for m in markings]
    assert [r["groups"].split() for r in rows] == [m["groups"] for m in markings]


def test_markdown_format():
    result = advise("--dice", "CCBJPP", "--format", "markdown", "--top", "3")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("| rank"))
    assert set(lines[header + 1]) <= set("|-: ")
    assert sum(1 for line in lines if line.startswith("| ")) == 1 + 3


# --- input forms ------------------------------------------------------------------------------------

@pytest.mark.parametrize("dice", ["CCBJPP", "ccbjpp", "C C B J P P", "C,C,B,J,P,P", "c, C, b,j p,P",
                                  "cat cat book joker plant plant", "Plant, CAT, joker, book, cat, plant"])
def test_dice_forms(dice):
    data = advise_json("--dice", dice, "--rerolls", "1", "--objective", "points")
    assert data["dice"] == "PPBCCJ"
    reference = advise_json("--dice", "PPBCCJ", "--rerolls", "1", "--objective", "points")
    assert data["holds"] == reference["holds"]


def test_marks_from_a_file(tmp_path):
    path = tmp_path / "marks.txt"
    path.write_text("# my sheet\noo...\n.....\nx....\n.....\n.....\n")
    data = advise_json("--dice", "CCBJPP", "--rerolls", "0", "--marks", str(path))
    assert data["marks"] == "oo.../...../x..../...../....."
    assert data == advise_json("--dice", "CCBJPP", "--rerolls", "0", "--marks", "oo.../...../x..../...../.....")
    assert all("r1c1" not in m["cells"] and "r3c1" not in m["cells"] for m in data["markings"])


def test_mid_game_marks_file():
    data = advise_json("--dice", "CCBJPP", "--marks", MID_GAME, "--objective", "points")
    assert data["marks"] == "oo.o./o.o../xoxxx/.oo../o...."
    # shelf 1 (oo.o.): 1 + 2 + 7 = 10; column 1 (r1c1, r2c1, r5c1): 1 + 1 + 2 = 4;
    # column 2 (r1c2, r3c2, r4c2): 2 + 2 + 2 = 6; every other line has 1-2 marks (D19)
    assert data["score"] == 10 + 4 + 6
    check_holds(data, "PPBCCJ")


# --- bad input: one line, exit code 2 ------------------------------------------------------------

def write(tmp_path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


GOOD_BOARD = (EXAMPLES / "boards" / "default.toml").read_text()


@pytest.mark.parametrize("args, fragments", [
    (["--dice", "CCBJPX"], ["unknown face", "X"]),
    (["--dice", "cat cat dog joker plant plant"], ["unknown face"]),
    (["--dice", "CCBJP"], ["got 5 dice", "expected 6"]),
    (["--dice", "CCBJPPA"], ["got 7 dice"]),
    (["--dice", ""], ["expected 6"]),
    (["--dice", "CCBJPP", "--marks", "oo.z./...../...../...../....."], ["bad character"]),
    (["--dice", "CCBJPP", "--marks", "oo.../....."], ["do not fit the board"]),
    (["--dice", "CCBJPP", "--marks", "oo..../...../...../...../....."], ["do not fit"]),
    (["--dice", "CCBJPP", "--marks", ""], ["do not fit"]),
    (["--dice", "CCBJPP", "--objective", "cell:r9c9"], ["r9c9", "not on the board"]),
    (["--dice", "CCBJPP", "--objective", "cell:r0c1"], ["not on the board"]),
    (["--dice", "CCBJPP", "--objective", "cell:9"], ["bad item name"]),
    (["--dice", "CCBJPP", "--objective", "fun"], ["unknown objective"]),
    (["--dice", "CCBJPP", "--objective", "cell:r1c1", "--marks", "o..../...../...../...../....."],
     ["r1c1", "available"]),
    (["--dice", "CCBJPP", "--objective", "cell:r2c2", "--marks", "...../.x.../...../...../....."], ["r2c2"]),
    (["--dice", "CCBJPP", "--rerolls", "-1"], ["--rerolls"]),
    (["--dice", "CCBJPP", "--rerolls", "3"], ["at most 2"]),
    (["--dice", "CCBJPP", "--rerolls", "two"], ["--rerolls"]),
    ([], ["--dice"]),
    (["--dice", "CCBJPP", "--board", "no/such/board.toml"], ["--board"]),
    (["--dice", "CCBJPP", "--rules", "no/such/rules.toml"], ["--rules"]),
    (["--dice", "CCBJPP", "--format", "xml"], ["--format"]),
    (["--dice", "CCBJPP", "--top", "0"], ["--top"]),
    (["--dice", "CCBJPP", "--colour", "red"], ["--colour"]),
])
def test_bad_input(args, fragments):
    assert_one_line_error(advise(*args), *fragments)


@pytest.mark.parametrize("text, fragments", [
    (GOOD_BOARD.replace("values = [1, 2, 4, 7, 11]", "values = [1, 2, 4, 7]"), ["4 values", "5 columns"]),
    (GOOD_BOARD.replace('faces = ["cat"]', 'faces = ["dog"]'), ["unknown face", "dog"]),
    (GOOD_BOARD.replace('faces = ["cat"]', 'faces = ["joker"]'), ["Joker"]),
    (GOOD_BOARD.replace('faces = ["cat"]', 'faces = ["J"]'), ["Joker"]),
    (GOOD_BOARD.replace("columns = [1, 2, 3, 4, 5]", "columns = [1, 2, 3, 4, 7]"), ["between 1 and 6"]),
    (GOOD_BOARD.replace("columns = [1, 2, 3, 4, 5]", "columns = [1, 2, 3, 4, 5"), ["not valid TOML"]),
    ("this is not toml at all", ["is not a TOML file (line 1: 'this is not toml at all')"]),
    ("colour = 'red'\n" + GOOD_BOARD, ["unknown key", "colour"]),
    (GOOD_BOARD.replace("values = [1, 2, 4, 7, 11]", "values = [1, 2, 4, 7, 11]\nprice = 3"), ["shelf 1"]),
    ('name = "x"\ncolumns = [1, 2]\n', ["shelves"]),
])
def test_bad_board_file(tmp_path, text, fragments):
    path = write(tmp_path, "board.toml", text)
    assert_one_line_error(advise("--dice", "CCBJPP", "--board", path), *fragments)


def test_board_with_the_wrong_shape_for_the_marks(tmp_path):
    """A 4 x 5 board with the default 5-shelf marks."""
    path = str(EXAMPLES / "boards" / "five-dice.toml")
    rules = str(EXAMPLES / "rules" / "five-dice.toml")
    assert_one_line_error(advise("--dice", "PPBCW", "--board", path, "--rules", rules,
                                 "--marks", "...../...../...../...../....."), "do not fit")


def test_marks_file_that_does_not_fit(tmp_path):
    path = write(tmp_path, "marks.txt", "oo...\n.....\n.....\n.....\n")
    assert_one_line_error(advise("--dice", "CCBJPP", "--marks", path), "do not fit")
    path = write(tmp_path, "marks2.txt", "oo...\n.....\n..?..\n.....\n.....\n")
    assert_one_line_error(advise("--dice", "CCBJPP", "--marks", path), "bad character")


@pytest.mark.parametrize("text, fragments", [
    ("dice = 0\n", ["dice", ">= 1"]),
    ("dice = 13\n", ["at most 12"]),
    ('dice = "six"\n', ["dice must be a whole number"]),
    ("rerolls = 9\n", ["rerolls", "0 to 5"]),
    ("rerolls = -1\n", ["rerolls"]),
    ("combinations_per_turn = 0\n", ["combinations_per_turn"]),
    ("scoring_threshold = 1.5\n", ["scoring_threshold"]),
    ("[joker]\nper_group = -1\n", ["per_group"]),
    ("[joker]\nalone = 1\n", ["joker.alone"]),
    ("[joker]\nwild = true\n", ["unknown joker key"]),
    ("players = 3\n", ["unknown key", "players"]),
    ('faces = [{name = "cat", code = "C"}, {name = "dog", code = "C"}]\n', ["used twice"]),
    ('faces = [{name = "cat", code = "o"}]\n', ["code"]),
    ('faces = ["cat"]\n', ["each face must be a table"]),
    ("dice = \n", ["not valid TOML"]),
])
def test_bad_rules_file(tmp_path, text, fragments):
    path = write(tmp_path, "rules.toml", text)
    assert_one_line_error(advise("--dice", "CCBJPP", "--rules", path), *fragments)


def test_rerolls_beyond_the_ruleset(tmp_path):
    """Re-rolls out of range are judged against the ruleset in use (D7 is configurable)."""
    path = write(tmp_path, "rules.toml", "rerolls = 1\n")
    assert_one_line_error(advise("--dice", "CCBJPP", "--rules", path, "--rerolls", "2"), "at most 1")
    data = advise_json("--dice", "CCBJPP", "--rules", path)
    assert data["rerolls"] == 1


def test_rules_that_do_not_fit_the_board(tmp_path):
    """Three dice cannot fill the default board's 4- and 5-dice columns."""
    path = write(tmp_path, "rules.toml", "dice = 3\n")
    assert_one_line_error(advise("--dice", "CCB", "--rules", path), "between 1 and 3")


# --- usability fixes found by walking through the README as a new user -----------------------------

def test_bare_command_shows_help():
    """`shelfie-solve` alone prints the help (several lines, commands listed) and exits 0."""
    result = CliRunner().invoke(main, [])
    assert result.exit_code == 0
    assert "Usage:" in result.stdout and "advise" in result.stdout and "Error" not in result.output


@pytest.mark.parametrize("marks, fragment", [
    ("mymarks.txt", "not found"),
    ("examples/marks/none.txt", "not found"),
    (str(EXAMPLES), "is a directory"),
    ("oo.a./...../...../...../.....", "bad character 'a'"),
])
def test_marks_errors_name_the_problem(marks, fragment):
    assert_one_line_error(advise("--dice", "CCBJPP", "--marks", marks), fragment)


def test_default_board_with_other_faces_suggests_a_board():
    """The five-dice ruleset has no 'award': the default board cannot be used, and the message
    says which option fixes it."""
    line = assert_one_line_error(advise("--dice", "CCBJP", "--rules", str(EXAMPLES / "rules" / "five-dice.toml")))
    assert "--board" in line and "five-dice.toml" in line


def test_finished_sheet_has_nothing_to_roll_for():
    """No item available: even with re-rolls left, the answer is the failed result with no shelf
    to give up (D13), not a table of 36 equal holds."""
    result = advise("--dice", "CCBJPP", "--marks", "ooooo/ooooo/ooooo/ooooo/ooooo")
    assert result.exit_code == 0 and "Sheet finished: final score 252" in result.stdout  # D19: every item twice, 2 x 126
    data = advise_json("--dice", "CCBJPP", "--marks", "ooooo/ooooo/ooooo/ooooo/ooooo")
    assert data["holds"] == [] and data["markings"] == [] and data["failed"] is True
    assert "rank" not in result.stdout.split("\n\n")[0]


@pytest.mark.parametrize("rerolls", ["1", "2"])
def test_keep_all_is_stop(rerolls):
    """D7: keeping all dice is stopping, with 1 or 2 re-rolls left: that hold is worth exactly the
    best marking of these dice (the value at 0 re-rolls)."""
    table = advise("--dice", "CCBJPP", "--rerolls", rerolls, "--top", "40")
    assert "PPBCCJ (stop)" in table.stdout
    keep_all = next(h for h in advise_json("--dice", "CCBJPP", "--rerolls", rerolls)["holds"] if h["keep"] == "PPBCCJ")
    assert keep_all["value"] == advise_json("--dice", "CCBJPP", "--rerolls", "0")["value"]


# --- robustness fixes found by trying to break the CLI --------------------------------------------

def test_marks_robustness(tmp_path):
    """Over-long names, special files, a byte-order mark, and echoed input kept short."""
    assert_one_line_error(advise("--dice", "CCBJPP", "--marks", "." * 300), "do not fit")
    assert_one_line_error(advise("--dice", "CCBJPP", "--marks", "a" * 5000), "not found")
    assert_one_line_error(advise("--dice", "CCBJPP", "--marks", "/dev/zero"), "not a regular file")
    bom = tmp_path / "bom.txt"
    bom.write_bytes("\ufeffoo.o./...../...../...../.....\n".encode())
    assert advise("--dice", "CCBJPP", "--marks", str(bom), "--format", "json").exit_code == 0
    line = assert_one_line_error(advise("--dice", "C" * 5000), "got 5000 dice")
    assert len(line) < 300


@pytest.mark.parametrize("toml, fragment", [
    ('columns = [1, 2, 3, 4, 5, 6, 1, 2]\n[[shelves]]\nfaces = ["cat"]\nvalues = [1, 1, 1, 1, 1, 1, 1, 1]\n',
     "at most 7 columns"),
    ('columns = [1]\n' + '[[shelves]]\nfaces = ["cat"]\nvalues = [1]\n' * 8, "at most 7 shelves"),
    ('columns = [1]\n[[shelves]]\nfaces = ["cat"]\nvalues = [1000000000000000000000000000000]\n', "from 0 to 10000"),
])
def test_board_limits(tmp_path, toml, fragment):
    path = tmp_path / "board.toml"
    path.write_text(toml)
    assert_one_line_error(advise("--dice", "CCBJPP", "--board", str(path)), fragment)


@pytest.mark.parametrize("toml, fragment", [
    ("scoring_threshold = 4611686018427387904\n", "at most 100"),
    ('faces = [{name = "cat", code = ";"}]\n', "one-character code"),
    ('faces = [{name = "cat", code = "\\u00a0"}]\n', "one-character code"),
    ('faces = [{name = "ca|t", code = "C"}]\n', "one word"),
    ('faces = [{name = "r1c1", code = "C"}]\n', "item name"),
    ("dice = 12\n", "too many for the exact engine"),
])
def test_rules_limits(tmp_path, toml, fragment):
    path = tmp_path / "rules.toml"
    path.write_text(toml)
    assert_one_line_error(advise("--dice", "CCBJPP", "--rules", str(path)), fragment)


def test_rules_from_a_special_file():
    assert_one_line_error(advise("--dice", "CCBJPP", "--rules", "/dev/zero"), "not a regular file")


def test_more_combinations_than_dice_means_no_limit(tmp_path):
    """D9 with combinations_per_turn = 10 and 6 dice: at most 6 groups can form, so the limit
    that binds is 6 (and the engine stays small instead of listing 10-item sets)."""
    from shelfie_solver.dice.rules import load_rules

    path = tmp_path / "rules.toml"
    path.write_text("combinations_per_turn = 10\n")
    assert load_rules(path).combinations_per_turn == 6
    board = tmp_path / "one-shelf.toml"  # five 1-die items, each accepting every face
    board.write_text('columns = [1, 1, 1, 1, 1]\n[[shelves]]\nfaces = ["P", "G", "B", "A", "C"]\n'
                     'values = [1, 2, 3, 4, 5]\n')
    data = advise_json("--dice", "PGBACJ", "--rules", str(path), "--board", str(board), "--rerolls", "0")
    assert max(len(m["cells"]) for m in data["markings"]) == 5  # five faces, five 1-die items (D11b)
    # docs/formats.md, "Limits": on the 25-item default board, sets of up to 6 items (245,505 of them) would
    # take over a gigabyte: refused up front in one line
    assert_one_line_error(advise("--dice", "PGBACJ", "--rules", str(path)), "MB", "combinations per turn")


def test_rules_file_name_labels_the_ruleset(tmp_path):
    path = tmp_path / "house-rules.toml"
    path.write_text("rerolls = 1\n")
    from shelfie_solver.dice.rules import load_rules

    assert load_rules(path).name == "house-rules"


def test_stop_says_what_to_mark():
    """When keeping every die (stopping, D7) is the best hold, the advice also names the marking:
    the best marking of the same dice as final dice."""
    args = ("--dice", "GGGGBB", "--marks", MID_GAME)
    data = advise_json(*args)
    assert data["holds"][0]["keep"] == "GGGGBB"  # stopping is best here (4 games mark r4c4)
    final = advise_json(*args, "--rerolls", "0")
    assert data["stop_marking"]["cells"] == final["markings"][0]["cells"]
    assert data["stop_marking"]["value"] == data["value"] == final["value"]
    assert "Stop and mark r2c2 with BB, r4c4 with GGGG" in advise(*args).stdout


@pytest.mark.parametrize("weight", [0.5, 1.0, True, "7"])
def test_learned_file_with_weights_that_are_not_whole_numbers(tmp_path, weight):
    """A parameter file of learned:FILE holds integer weights (scaled by weight_scale,
    docs/train.md); a float was cut to an integer silently (0.5 -> 0) and a bool read as 1:
    now refused in one line, like any other malformed parameter file."""
    data = json.loads((EXAMPLES / "learned-small-boards.json").read_text())
    for rows in data["weights"].values():
        rows["2"][0] = weight
    path = tmp_path / "bad-weights.json"
    path.write_text(json.dumps(data))
    result = CliRunner().invoke(main, ["advise", "--dice", "CCBJPP", "--objective", f"learned:{path}"])
    assert_one_line_error(result, "bad-weights.json", "whole numbers")
    good = CliRunner().invoke(main, ["advise", "--dice", "CCBJPP", "--objective",
                                     f"learned:{EXAMPLES / 'learned-small-boards.json'}"])
    assert good.exit_code == 0, good.output


def _waiting_on_stdin(arguments):
    """A real ``shelfie-solve ARGUMENTS --marks -`` (a subprocess), once it is blocked reading the
    marks from standard input (Linux: ``/proc/PID/syscall`` shows read(2) on fd 0)."""
    root = Path(__file__).resolve().parent.parent
    process = subprocess.Popen([sys.executable, "-c", "from shelfie_solver.cli import main; main()", *arguments,
                                "--marks", "-"], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "PYTHONPATH": str(root)})
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if Path(f"/proc/{process.pid}/syscall").read_text().startswith("0 0x0 "):  # read(0, ...)
                return process
        except OSError:
            pass
        time.sleep(0.05)
    process.kill()
    pytest.fail(f"{arguments[0]} did not wait on standard input within 30 s")


@pytest.mark.skipif(not sys.platform.startswith("linux") or platform.machine() != "x86_64",
                    reason="reads /proc/PID/syscall (read is syscall 0 on x86_64 Linux)")
@pytest.mark.parametrize("signum, code, line", [(15, 143, "Interrupted by SIGTERM: run stopped, nothing saved."),
                                                 (2, 130, "Aborted.")])
@pytest.mark.parametrize("arguments", [("advise", "--dice", "CCBJPP"), ("odds", "--target", "3C+2B")])
def test_sigterm_stops_advise_as_ctrl_c_does(signum, code, line, arguments):
    """SIGTERM during a plain ``advise`` or ``odds`` (here waiting on its marks) died silently
    with -15; now as Ctrl-C (SIGINT, shown beside it): one line on stderr, nothing on stdout, the
    project's exit code for the signal (128 + 15 = 143, as simulate; Ctrl-C 130)."""
    process = _waiting_on_stdin(arguments)
    try:
        process.send_signal(signum)
        out, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert (process.returncode, out, err.splitlines()) == (code, "", [line])


def test_the_objectives_with_opponent_agree_in_help_refusal_and_code():
    """'advise --help' named win, learned and learned:FILE for --opponent, the refusal also
    exact2:FILE, and the code takes win-model too: help and refusal list the same names, and
    those are exactly the names the code takes with --opponent (sees_the_table, is_two_player)."""
    from shelfie_solver.dice.objective_names import OBJECTIVE_NAMES, is_two_player, sees_the_table

    taken = [name for name in OBJECTIVE_NAMES if sees_the_table(name) or is_two_player(name)]
    assert sorted(taken) == sorted(["win", "win-model", "learned", "learned:FILE", "exact2:FILE"])
    helped = " ".join(CliRunner().invoke(main, ["advise", "--help"]).output.split())
    assert "With --opponent only the objectives that see the table: win, win-model, learned, learned:FILE, " \
           "exact2:FILE" in helped
    refused = CliRunner().invoke(main, ["advise", "--dice", "CCBJPP", "--opponent", "o..../...../...../...../.....",
                                        "--objective", "points"])
    line = assert_one_line_error(refused, "sees one sheet")
    assert "use win, win-model, learned, learned:FILE, exact2:FILE (" in line
    assert all(name in line and name in helped for name in taken)


@pytest.mark.parametrize("command", [
    "advise --dice CCCBBJ --marks examples/marks/mid-game.txt --top 3",
    "advise --dice PPBCCJ --rerolls 0 --marks oo.../o..../x..../...../..... --top 2",
])
def test_docs_advise_examples_are_the_real_output(command, monkeypatch):
    """docs/advise.md shows these two commands with their output: the block after the command
    line is what the command prints now (run from the checkout's root, as the docs' paths are)."""
    root = Path(__file__).resolve().parent.parent
    monkeypatch.chdir(root)
    text = (root / "docs" / "advise.md").read_text(encoding="utf-8")
    head = f"$ shelfie-solve {command}\n"
    start = text.index(head) + len(head)
    shown = text[start:text.index("```\n", start)]
    result = CliRunner().invoke(main, command.split())
    assert result.exit_code == 0, result.output
    assert result.stdout == shown


@pytest.fixture
def former_win_model(monkeypatch):
    """The win model read from examples/win-own-play.json (the 2-player coefficients shipped until
    2026-12-06, a file of the former format) instead of data/win.json, for this test only."""
    from shelfie_solver.dice.learned import win_model

    monkeypatch.setattr(win_model, "DEFAULT_WIN_PATH", EXAMPLES / "win-own-play.json")
    win_model.default_win_model.cache_clear()
    yield
    monkeypatch.undo()
    win_model.default_win_model.cache_clear()


def test_a_saturated_model_chance_is_no_tie_when_the_points_differ(former_win_model):
    # far ahead in round 9 (62 points against 0, the opponent a shelf eliminated): under the
    # 2-player coefficients shipped until 2026-12-06 both markings of PCCCCJ leave the model's
    # chance saturated (the shipped ones, which see that the opponent still plays this round, D18,
    # give 99.84% and 99.75%), so the ranking follows the points now
    # (r1c5 with four cats and the joker, r1c4 with the four cats: 11 and 7 points on the default
    # board's shelf 1, D19): ranked 1 and 2, never a "does not matter" tie, and
    # the model's chance shows as ">99.9%", never as a certainty (docs/advise.md)
    result = advise("--dice", "CCCCJP", "--rerolls", "0", "--marks", "ooo../xxxxx/ooo../ooo../ooo..",
                 "--opponent", "...../xxxxx/o..../...../.....", "--order", "1", "--round", "9")
    assert result.exit_code == 0, result.output
    assert "Why: both keep your chance above 99.9%; r1c5 scores 4 more now." in result.output
    rows = [line.split() for line in result.output.splitlines() if line.startswith(("1", "2"))]
    assert [(r[0], r[1], r[3]) for r in rows] == [("1", "r1c5", "+11"), ("2", "r1c4", "+7")]
    assert "does not matter" not in result.output and "100%" not in result.output


def test_the_failed_result_chance_reads_alike_under_every_objective():
    """Keeping AA on an empty default sheet, the final dice hold an award, and the award shelf's
    first column needs 1 die (D3; examples/boards/default.toml), so a failed result (D13) cannot
    happen: the chance is exactly 0 and reads "0%" (the tables' chance format, as play's title
    under objective win), not "0.00%" beside it."""
    empty = "...../...../...../...../....."
    for extra in ([], ["--objective", "win", "--opponent", empty]):
        result = advise("--dice", "PPAACC", *extra)
        assert result.exit_code == 0, result.output
        flat = " ".join(result.stdout.split())
        assert "Best: keep AA," in flat
        assert flat.split("failed-result chance ")[1].split()[0].rstrip(";") == "0%"


def _best_row(stdout: str) -> list[str]:
    return next(re.split(r"\s{2,}", line.strip()) for line in stdout.splitlines() if re.match(r"1\s{2,}\S", line))


def test_the_title_s_failed_result_chance_is_the_table_s_failed_cell():
    """Alone (objective strategic, 2 decimals in the table): the title's failed-result chance is
    printed as the best hold's ``failed`` cell. Keeping AA of PPAACC on an empty default sheet
    cannot fail (an award marks r5c1, whose column needs 1 die: D3, D13), so both read ``0%``,
    and the ``>=1`` cell ``100%``, certainties without decimals (the cell read ``0.00%`` beside
    the title's ``0%``). Six cats with shelf 1 given up (D13) can fail: the title then gives the
    cell's two decimals, not ``<0.1%``, and the reason line compares the runner-up's cell with
    the best's in the same form, the larger one saying "more likely"."""
    result = advise("--dice", "PPAACC")
    assert result.exit_code == 0, result.output
    flat = " ".join(result.stdout.split())
    row = _best_row(result.stdout)
    assert row[1] == "AA" and row[5] == "0%" and row[6] == "100%", row  # rank keep re-roll value points failed >=1
    assert flat.split("failed-result chance ")[1].split()[0].rstrip(";") == "0%"
    result = advise("--dice", "CCCCCC", "--marks", "xxxxx/...../ooo../...../.....", "--top", "2")
    assert result.exit_code == 0, result.output
    flat = " ".join(result.stdout.split())
    rows = [re.split(r"\s{2,}", line.strip()) for line in result.stdout.splitlines() if re.match(r"[12]\s{2,}\S", line)]
    best, runner = rows[0][5], rows[1][5]
    assert re.fullmatch(r"\d\.\d\d%", best), best
    assert flat.split("failed-result chance ")[1].split()[0] == best
    # the runner-up (keep C) scores more this turn but fails more often: said of the runner-up
    assert Fraction(rows[1][4]) > Fraction(rows[0][4]) and Fraction(runner[:-1]) > Fraction(best[:-1]), rows
    assert f"but makes a failed result (D13) more likely ({runner} against {best})" in flat
