"""The tile game's inputs and outputs as a new player reads and types them (docs/tile.md,
"Numbering, cards and goals"): one 1-based numbering r<row>c<column> for board and shelf cells
(T3, T4), personal cards shown in words (T20), common goals by name (T5, T-CG1-12), the
alternatives to the best move headed as such, matching card cells named (T21), ties marked."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

from shelfie_solver.cli import main
from shelfie_solver.tile.errors import TileError
from shelfie_solver.tile.rules import card_from_dict, default_cards
from shelfie_solver.tile.shelf import parse_goal
from shelfie_solver.tile.state import parse_board_cell

from conftest import ROOT, assert_one_line_error

RUNNER = CliRunner()
POSITION = ROOT / "examples" / "tile" / "position.toml"
TYPE_NAMES = {"C": "cat", "B": "book", "G": "game", "F": "frame", "T": "trophy", "P": "plant"}


def run(*args: object):
    return RUNNER.invoke(main, ["tile", *map(str, args)])


def advise_json(*args: object) -> dict:
    result = run("advise", POSITION, "--samples", "0", "--format", "json", *args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_board_cells_are_named_from_1():
    """Every listed move's cells, read as r<row>c<column> counted from 1 in the position file's
    board strings, hold the tiles of its order (T10, bottom first)."""
    board = tomllib.loads(POSITION.read_text())["board"]
    data = advise_json()
    for move in data["moves"]:
        letters = ""
        for cell in move["cells"]:
            row, column = map(int, re.fullmatch(r"r(\d)c(\d)", cell).groups())
            letters += board[row - 1][column - 1]
        assert letters == move["order"], move
    assert parse_board_cell("r1c1") == 0 and parse_board_cell("R9C9") == 80


@pytest.mark.parametrize("text", ["r0c1", "r10c1", "r1c0", "4,1", "x", ""])
def test_bad_board_cells(text: str):
    with pytest.raises(TileError, match="r<row>c<column>"):
        parse_board_cell(text)


def test_goals_by_name(tmp_path: Path):
    """A position's goals and --goals take names (any case, hyphens or spaces) as well as ids."""
    text = POSITION.read_text()
    named = tmp_path / "named.toml"
    named.write_text(text.replace("goals = [7, 11]", 'goals = ["Four rows of <=3 types", "T-CG11"]'))
    result = run("advise", named, "--samples", "0", "--format", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == advise_json()
    assert json.loads(result.stdout)["goal_names"] == ["four rows of <=3 types", "diagonal of a type"]
    shelf = "PPTTP/PPTTF/GGBBF/GCCBB/GCCFF/PGBFP"
    by_name = run("score", shelf, "--goals", "four-corners, STAIRCASE", "--format", "json")
    by_id = run("score", shelf, "--goals", "8,12", "--format", "json")
    assert by_name.exit_code == 0 and by_name.stdout == by_id.stdout
    assert parse_goal(8) == parse_goal("8") == parse_goal("t-cg8") == parse_goal("four corners") == 8
    assert_one_line_error(run("score", shelf, "--goals", "five corners"), "no common goal", "8 four corners")
    bad = tmp_path / "bad.toml"
    bad.write_text(text.replace("goals = [7, 11]", 'goals = ["corners", 11]'))
    assert_one_line_error(run("advise", bad), "goals must list", "no common goal 'corners'")


def test_personal_card_in_words_and_matching_cells_named():
    """Card 4 of docs/tile.md's picture asks for a book at r4c1; a shelf with a book there and
    plants below (T4: nothing floats) matches 1 of 6 cells (T21: 1 match is 1 point), and the
    output names that cell."""
    card = next(c for c in default_cards() if c.name == "4")
    asks = {TYPE_NAMES["CBGFTP"[t]]: f"r{cell // 5 + 1}c{cell % 5 + 1}" for t, cell in enumerate(card.cells)}
    assert asks["book"] == "r4c1"
    shelf = "...../...../...../B..../P..../P...."
    result = run("score", shelf, "--personal", "4")
    assert result.exit_code == 0, result.output
    assert "card 4: 1 of 6 cells match (book r4c1)" in result.stdout
    words = ", ".join(f"{name} {cell}" for name, cell in asks.items())
    assert f"Personal card 4 asks for: {words}" in " ".join(result.stdout.split())  # wrapped at 80 columns
    data = json.loads(run("score", shelf, "--personal", "4", "--format", "json").stdout)
    assert data["personal"]["matching_cells"] == ["r4c1"] and data["personal"]["points"] == 1
    advice = run("advise", POSITION, "--samples", "0", "--top", "1")
    card1 = next(c for c in default_cards() if c.name == "1")
    assert f"Personal card 1: {card1.words()}" in " ".join(advice.stdout.split())  # wrapped at 80 columns
    assert "Common goals: T-CG7 (four rows of <=3 types), T-CG11 (diagonal of a type)" in advice.stdout


def test_card_file_cells_from_1_and_the_older_lists():
    """A card file names cells "r1c4" (1-based); the older [row, column] from 0 reads the same."""
    for card in default_cards():
        data = card.to_dict()
        assert card_from_dict(data) == card
        older = {k: v if k == "name" else [int(v[1]) - 1, int(v[3]) - 1] for k, v in data.items()}
        assert card_from_dict(older) == card
    text = (ROOT / "shelfie_solver" / "tile" / "data" / "personal.toml").read_text()
    assert "[0," not in text and 'C = "r' in text


def test_alternatives_are_headed_as_alternatives():
    """"Then:" read like a sequence: the next best moves are alternatives to the best one."""
    result = run("advise", POSITION, "--samples", "0", "--top", "3")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert not any(line.startswith("Then") for line in lines)
    at = lines.index("Alternatives to the best move (instead of it, not after it):")
    assert next(line for line in reversed(lines[:at]) if not line.startswith(" ")).startswith("Best: take")
    moves = advise_json()["moves"]
    alternatives = [line for line in lines[at + 1:] if line.startswith("  rank")]  # not the wrapped rest (4 spaces)
    for line, move in zip(alternatives[:2], moves[1:3]):
        assert line.startswith(f"  rank {move['rank']}") and " ".join(move["cells"]) in line


def test_a_tied_move_is_marked():
    """Three --move tries all said "rank 28 of 319" with no tie mark: ties are marked as in
    `advise`, "rank 2 (tied with 1 other) of 91"; an untied move has no mark."""
    moves = advise_json()["moves"]
    ties = {}
    for move in moves:
        ties.setdefault(move["value"], []).append(move)
    tied = next(group for group in ties.values() if len(group) > 1)
    alone = next(group[0] for group in ties.values() if len(group) == 1)
    for move, others in ((tied[0], len(tied) - 1), (alone, 0)):
        given = "+".join(move["cells"]) + f"@{move['column']}"
        result = run("advise", POSITION, "--samples", "0", "--top", "1", "--move", given)
        assert result.exit_code == 0, result.output
        mark = f" (tied with {others} other{'s' if others != 1 else ''})" if others else ""
        assert f"Your move, rank {move['rank']}{mark} of {len(moves)}: " in result.stdout
        data = json.loads(run("advise", POSITION, "--samples", "0", "--format", "json", "--move", given).stdout)
        assert data["move"]["tied_with"] == others


def test_the_cards_picture_is_in_the_docs():
    assert "![The 12 personal goal cards](tile-cards.png)" in (ROOT / "docs" / "tile.md").read_text()
    assert (ROOT / "docs" / "tile-cards.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# --- bad input: a bag count given as text, a cell given twice --------------------------------

def _position_with_bag(tmp_path: Path, suffix: str, count: object) -> Path:
    """The example position with ``bag = { C = count }``, as TOML or JSON."""
    if suffix == ".toml":
        text = POSITION.read_text().replace("# bag = {", f"bag = {{ C = {count!r} }}\n# bag = {{")
        assert "bag = { C" in text
    else:
        data = tomllib.loads(POSITION.read_text())
        data["bag"] = {"C": count}
        text = json.dumps(data)
    path = tmp_path / f"bag{suffix}"
    path.write_text(text)
    return path


@pytest.mark.parametrize("suffix", [".toml", ".json"])
def test_a_bag_count_given_as_text_is_not_out_of_range(tmp_path: Path, suffix: str):
    """`bag = { C = '10' }` said "T2 allows 0 to 11", as if 10 were out of range. The example has
    7 cats on the board and 1 + 3 on the shelves: 11 in sight, so 22 - 11 = 11 may be in the bag
    (T2) and 10 is within it; the fault is the string."""
    board = tomllib.loads(POSITION.read_text())
    in_sight = sum(row.count("C") for row in board["board"]) + sum(
        row.count("C") for shelf in board["shelf"] for row in shelf["rows"])
    assert in_sight == 11 and 0 <= 10 <= 22 - in_sight
    line = assert_one_line_error(run("advise", _position_with_bag(tmp_path, suffix, "10"), "--samples", "0"),
                                 "bag C must be a whole number", "got a string '10'")
    assert "allows" not in line
    line = assert_one_line_error(run("advise", _position_with_bag(tmp_path, suffix, 10.0), "--samples", "0"),
                                 "bag C must be a whole number", "got a decimal number 10.0")
    # a whole number in range is read; one out of range still names T2's range
    assert run("advise", _position_with_bag(tmp_path, suffix, 10), "--samples", "0").exit_code == 0
    assert_one_line_error(run("advise", _position_with_bag(tmp_path, suffix, 12), "--samples", "0"),
                          "bag C = 12", "T2 allows 0 to 11")


@pytest.mark.parametrize("move, cell", [("r5c2+r5c2@4", "r5c2"), ("r5c2+r5c3+r5c2@1", "r5c2"),
                                        ("r7c4+r7c5+r7c5@2", "r7c5")])
def test_a_cell_given_twice_in_a_move_is_named(move: str, cell: str):
    """`--move r5c2+r5c2@4` said "take 1, 2 or 3 distinct tiles (T10), got 2": two cells were given,
    but one tile cannot be taken twice (T10 takes tiles from the board, each once)."""
    line = assert_one_line_error(run("advise", POSITION, "--samples", "0", "--move", move),
                                 f"the cell {cell} is given twice", "(T10)")
    assert "got 2" not in line and "got 3" not in line


def test_check_move_names_a_cell_given_twice():
    """The same for a move built in code (state.check_move, the legality of every move played)."""
    from shelfie_solver.tile.position import load_position
    from shelfie_solver.tile.rules import default_layout, default_ruleset
    from shelfie_solver.tile.state import Move, check_move

    state = load_position(POSITION, default_ruleset(), default_layout(), default_cards()).state
    r5c2 = 4 * 9 + 1  # row 5, column 2, counted from 1 on a 9 x 9 board
    with pytest.raises(TileError, match=r"^illegal pick: the cell r5c2 is given twice; .*\(T10\)$"):
        check_move(state, Move((r5c2, r5c2), 3))
