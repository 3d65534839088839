"""``shelfie-solve tile score|advise|simulate`` through CliRunner, with every bad-input path
(one line, exit 2, nothing written)."""

from __future__ import annotations

import json
import tomllib
from fractions import Fraction
from pathlib import Path

import pytest
from click.testing import CliRunner

from shelfie_solver.cli import main
from shelfie_solver.tile.game import game_from_dict
from shelfie_solver.tile.rules import default_cards, default_layout

from conftest import EXAMPLES, assert_one_line_error

POSITION = EXAMPLES / "tile" / "position.toml"


def run(*args: str):
    return CliRunner().invoke(main, ["tile", *args])


def test_score_example_d_json():
    """Worked example D: groups 17, with tokens 12 and the end token 30 (T25; the personal card
    of the example is made up, so none here); goals T-CG1, 3, 4, 5, 7, 8 hold, T-CG9 not."""
    result = run("score", "PPTTP/PPTTF/GGBBF/GCCBB/GCCFF/PGBFP", "--tokens", "12", "--end-token", "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["adjacency"], data["total"]) == (17, 30)
    assert [g for g, ok in data["goals"].items() if ok] == ["T-CG1", "T-CG3", "T-CG4", "T-CG5", "T-CG7", "T-CG8"]


def test_score_personal_card_from_a_file(tmp_path):
    """A shelf read from a file and scored against shipped card 1 (T21: matches counted here)."""
    card = default_cards()[0]
    cells = ["."] * 30
    for t, cell in enumerate(card.cells):
        cells[cell] = "CBGFTP"[t]
    # fill below each named cell so nothing floats (T4): columns filled from the bottom with P
    for cell in range(29, -1, -1):
        if cells[cell] == "." and any(cells[above] != "." for above in range(cell % 5, cell, 5)):
            cells[cell] = "P"
    shelf = "\n".join("".join(cells[r * 5:(r + 1) * 5]) for r in range(6))
    path = tmp_path / "shelf.txt"
    path.write_text(shelf + "\n")
    result = run("score", str(path), "--personal", card.name, "--format", "json")
    assert result.exit_code == 0, result.output
    # the card's cells by name, 1-based: row 1 at the top, column 1 on the left (docs/tile.md)
    names = [f"r{cell // 5 + 1}c{cell % 5 + 1}" for cell in card.cells]
    types = ["cat", "book", "game", "frame", "trophy", "plant"]
    assert json.loads(result.stdout)["personal"] == {"card": card.name, "matches": 6, "points": 12,
                                                     "matching_cells": names, "asks": dict(zip(types, names))}


def test_score_shelf_text_with_a_byte_order_mark():
    """Shelf text pasted with a leading byte-order mark scores as without it (docs/formats.md:
    a BOM is ignored everywhere, as for --marks); worked example D: groups 17 (T25)."""
    for text in ("\ufeffPPTTP/PPTTF/GGBBF/GCCBB/GCCFF/PGBFP", "\ufeffPPTTP\nPPTTF\nGGBBF\nGCCBB\nGCCFF\nPGBFP\n"):
        result = run("score", text, "--format", "json")
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout)["adjacency"] == 17
    assert_one_line_error(run("score", "\ufeff"), "6 lines")


@pytest.mark.parametrize("fmt", ["table", "csv", "markdown"])
def test_advise_formats(fmt):
    result = run("advise", str(POSITION), "--top", "3", "--format", fmt)
    assert result.exit_code == 0, result.output
    assert "column" in result.stdout


def test_advise_json_ranks_every_legal_move():
    """Every legal move is listed once (a --top above their number), best first, values
    consistent with the parts."""
    result = run("advise", str(POSITION), "--top", "1000", "--format", "json")
    data = json.loads(result.stdout)
    assert data["legal_moves"] == len(data["moves"])
    values = [Fraction(m["value"]) for m in data["moves"]]
    assert values == sorted(values, reverse=True)
    for m in data["moves"]:
        assert Fraction(m["value"]) == sum(Fraction(m[p]) for p in ("immediate", "groups", "personal", "tempo", "denial",
                                                                    "race"))
    keys = {(tuple(m["cells"]), m["column"], m["order"]) for m in data["moves"]}
    assert len(keys) == len(data["moves"])


def test_advise_top_limits_the_table_and_json_lists_all():
    """--top K shows the K best moves in the table and Markdown; JSON and CSV list every legal
    move, as advise and odds do, and JSON's legal_moves counts them (T10-T14, counted here by the
    state machine's own move list)."""
    from shelfie_solver.tile.state import legal_moves
    from shelfie_solver.tile.position import load_position
    from shelfie_solver.tile.rules import default_cards, default_layout, default_ruleset

    state = load_position(POSITION, default_ruleset(), default_layout(), default_cards()).state
    every = json.loads(run("advise", str(POSITION), "--top", "3", "--format", "json").stdout)
    assert every["legal_moves"] == len(every["moves"]) == len(legal_moves(state)) > 3
    rows = run("advise", str(POSITION), "--top", "3", "--format", "csv").stdout.splitlines()
    assert len(rows) == 1 + len(every["moves"]) and rows[0].startswith("rank,")
    markdown = run("advise", str(POSITION), "--top", "3", "--format", "markdown").stdout
    assert sum(line.startswith("| ") for line in markdown.splitlines()) == 1 + 3
    assert_one_line_error(run("advise", str(POSITION), "--top", "0", "--format", "json"), "--top")


def test_advise_race_term_hand_worked(tmp_path):
    """The race term (docs/tile.md) on examples/tile/position.toml with T-CG9 the only goal: seat 1
    has 5 trophies (3 tiles from T-CG9: 8 / 2^3 = 1 point), seat 2 at most 3 of a type (5 tiles
    away, not ahead); a move placing the free trophy at 3,2 brings seat 1 to 2 tiles (8 / 2^2 = 2
    points): race +1; a move with no trophy: 0."""
    text = POSITION.read_text(encoding="utf-8").replace("goals = [7, 11]", "goals = [9]")
    text = text.replace("taken = [0, 0]", "taken = [0]")
    position = tmp_path / "race.toml"
    position.write_text(text, encoding="utf-8")
    result = run("advise", str(position), "--format", "json")
    assert result.exit_code == 0, result.output
    moves = json.loads(result.stdout)["moves"]
    for m in moves:
        trophies = m["order"].count("T")
        assert Fraction(m["race"]) == (1 if trophies == 1 else 0 if trophies == 0 else Fraction(m["race"]))
    assert any(m["cells"] == ["r4c3"] for m in moves)
    table = run("advise", str(position), "--top", "40")
    assert "race" in table.stdout


def test_simulate_and_save_replays(tmp_path):
    """Tournament output, same result whatever --jobs is, and saved games that replay."""
    save = tmp_path / "games.jsonl"
    one = run("simulate", "--players", "greedy,random", "--games", "4", "--seed", "2", "--jobs", "1",
              "--save", str(save), "--format", "json")
    two = run("simulate", "--players", "greedy,random", "--games", "4", "--seed", "2", "--jobs", "2", "--format", "json")
    assert one.exit_code == 0, one.output
    assert json.loads(one.stdout) == json.loads(two.stdout)
    lines = save.read_text().splitlines()
    assert len(lines) == 4
    games = [game_from_dict(json.loads(line)) for line in lines]
    wins = sum(g.over.winner == 0 for g in games)
    assert Fraction(json.loads(one.stdout)["seats"][0]["win"]["mean"]) == Fraction(wins, 4)


def _position(tmp_path: Path, edit) -> str:
    data = tomllib.loads(POSITION.read_text())
    edit(data)
    path = tmp_path / "position.json"
    path.write_text(json.dumps(data))
    return str(path)


def _set_shelf(data, rows):
    data["shelf"][0]["rows"] = rows


BAD_POSITIONS = [
    (lambda d: _set_shelf(d, [".....", "C....", ".....", ".....", ".....", "....."]), "floating"),
    (lambda d: d["board"].__setitem__(0, "C" * 9), "unusable"),
    (lambda d: d.__setitem__("bag", {"C": 30}), "T2"),
    (lambda d: d["shelf"][0].__setitem__("taken", [4, 0]), "T7"),
    (lambda d: d.__setitem__("goals", [13]), "goals"),
    (lambda d: d.__setitem__("personal", "99"), "personal"),
    (lambda d: d.__setitem__("end_token", 1), "T23"),
    (lambda d: d.__setitem__("turn", 5), "turn"),
]


@pytest.mark.parametrize("edit, fragment", BAD_POSITIONS)
def test_advise_bad_positions(tmp_path, edit, fragment):
    assert_one_line_error(run("advise", _position(tmp_path, edit)), fragment)


def test_bad_layout_and_cards_files(tmp_path):
    """T3: wrong cell counts; T20: a broken personal card; both refused in one line."""
    grid = default_layout().to_dict()["grid"]
    grid[4] = "-" + grid[4][1:]
    layout = tmp_path / "layout.toml"
    layout.write_text("grid = [" + ", ".join(f'"{row}"' for row in grid) + "]\n")
    assert_one_line_error(run("advise", str(POSITION), "--layout", str(layout)), "29 / 37 / 45")
    cards = tmp_path / "cards.toml"
    text = "\n".join(f'[[card]]\nname = "{i}"\nC = [0, 0]\nB = [0, 0]\nG = [1, 1]\nF = [2, 2]\nT = [3, 3]\nP = [4, {i % 5}]\n'
                     for i in range(12))
    cards.write_text(text)
    assert_one_line_error(run("score", "...../...../...../...../...../CBGFT", "--cards", str(cards), "--personal", "1"),
                          "share a cell")


@pytest.mark.parametrize("args, fragment", [
    (["score", "...../...../C..../...../...../....."], "floating"),
    (["score", "CCCCC/CCCCC/CCCCC/CCCCC/CCCCC/CCCCC"], "T2"),
    (["score", "CCC"], "6 lines"),
    (["score", "...../...../...../...../...../CBGFT", "--personal", "nope"], "personal card"),
    (["score", "...../...../...../...../...../CBGFT", "--goals", "0,13"], "--goals"),
    (["simulate", "--players", "advisor"], "2-4 players"),
    (["simulate", "--players", "advisor,wizard"], "unknown tile strategy"),
    (["advise", "no-such-file.toml"], "no-such-file"),
])
def test_bad_input_is_one_line_exit_2(args, fragment):
    assert_one_line_error(run(*args), fragment)


def test_simulate_save_to_a_directory_writes_nothing(tmp_path):
    assert_one_line_error(run("simulate", "--players", "greedy,random", "--games", "1", "--save", str(tmp_path)),
                          "--save")
    assert list(tmp_path.iterdir()) == []


def test_advise_rates_a_given_move():
    """--move: the move's rank and value, the same as its row in the full ranking."""
    result = run("advise", str(POSITION), "--move", "r7c6+r7c5+r7c4@4", "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    row = next(m for m in data["moves"] if set(m["cells"]) == {"r7c4", "r7c5", "r7c6"} and m["column"] == 4)
    assert data["move"] == {**row, "tied_with": sum(m["value"] == row["value"] for m in data["moves"]) - 1}


@pytest.mark.parametrize("move, fragment", [
    ("r6c5@1", "T10-T11"),          # r6c5 has no free side at turn start
    ("r7c4+r7c6@1", "T10-T11"),     # a gap
    ("r8c5@1", "no tile"),          # an empty cell
    ("r7c4@9", "column 9"),
    ("r7c4", "bad --move"),
    ("a,b@1", "bad --move"),
    ("r0c4@1", "no board cell 'r0c4'"),
    ("6,3@1", "the old 6,3 counted from 0: r7c4"),  # the 0-based row,column is refused, never read
])
def test_advise_illegal_moves(move, fragment):
    """Illegal picks and placements (T10-T14): one line, exit 2."""
    assert_one_line_error(run("advise", str(POSITION), "--move", move), fragment)


def test_advise_placement_without_room(tmp_path):
    """T12/T14: three tiles into a column with two empty cells."""
    def fill(d):
        d["turn"] = 1
        d["shelf"][0]["rows"] = ["..T..", "..B..", "..F..", "..TF.", "..TT.", "..TBF"]
    assert_one_line_error(run("advise", _position(tmp_path, fill), "--move", "r7c4+r7c5+r7c6@3"), "T12")


def test_simulate_progress_bar_in_a_terminal():
    """In a real pseudo-terminal `tile simulate` shows a progress bar on stderr, then the table."""
    import os
    import sys

    pexpect = pytest.importorskip("pexpect")
    root = Path(__file__).resolve().parent.parent
    env = dict(os.environ, PYTHONPATH=str(root), COLUMNS="120")
    child = pexpect.spawn(sys.executable, ["-c", "from shelfie_solver.cli import main; main()", "tile", "simulate",
                                           "--players", "greedy,random", "--games", "3", "--seed", "1", "--jobs", "1"],
                          env=env, encoding="utf-8", timeout=60)
    child.expect("Playing")
    child.expect("win rate")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_simulate_csv_is_one_record_per_seat_and_statistic():
    """CSV: numbers only, one row per seat and statistic; the win rates of a game sum to 1 (T26)."""
    import csv
    import io

    result = run("simulate", "--players", "greedy,random", "--games", "3", "--seed", "4", "--jobs", "1", "--format", "csv")
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert len(rows) == 2 * 6
    wins = [Fraction(r["mean"]) for r in rows if r["statistic"] == "win"]
    assert sum(wins) == 1


def test_simulate_save_is_not_a_data_file(tmp_path):
    """--save naming the --layout file read would replace it with games: refused, kept."""
    layout = tmp_path / "layout.toml"
    layout.write_text("grid = [" + ", ".join(f'"{row}"' for row in default_layout().to_dict()["grid"]) + "]\n")
    before = layout.read_bytes()
    result = run("simulate", "--players", "greedy,random", "--games", "1", "--layout", str(layout), "--save", str(layout))
    assert_one_line_error(result, "--save", "also read")
    assert layout.read_bytes() == before


def test_advise_never_prints_a_negative_zero():
    """A value, a part or a refill interval end that rounds to zero at 2 decimals prints 0.00,
    never -0.00 (it printed f"{-0.001:+.2f}" = '-0.00'): the best move of examples/tile/position.toml
    given, by hand, value -1/1000 (a denial of -1/1000, every other part 0) and a sampled refill
    whose 95% interval runs from -0.004 quarters (-0.001 points) to 2 quarters (0.50 points), mean
    1 quarter (0.25 points). The table's value and denial cells read 0.00 too, and the other parts,
    exactly 0, 0.00 (not +0.00: core/report.signed, the one form of a signed figure)."""
    from dataclasses import replace

    from shelfie_solver.core.report import render
    from shelfie_solver.tile.advice_json import advise
    from shelfie_solver.tile.denial import RefillOutlook
    from shelfie_solver.tile.position import load_position
    from shelfie_solver.tile.report import advise_report
    from shelfie_solver.tile.rules import default_ruleset

    position = load_position(POSITION, default_ruleset(), default_layout(), default_cards())
    ranked, advice = advise(position.setup, position.state, samples=0)
    parts = {name: Fraction(0) for name in ranked[0].parts}
    parts["denial"] = Fraction(-1, 1000)
    outlook = RefillOutlook(Fraction(1), 40, -0.004, 2.0)
    ranked[0] = replace(ranked[0], value=Fraction(-1, 1000), parts=parts, refill=True, outlook=outlook)
    text = render(advise_report(position.setup, position.state, ranked, advice, 3), "table")
    assert "-0.00" not in text and "+0.00" not in text
    best = " ".join(line.strip() for line in text.split("Alternatives")[0].splitlines() if line)
    assert best.endswith("bottom to top CCC: value 0.00 (denial 0.00); triggers a refill (T16): next player's "
                         "expected best gain 0.25 (40 sampled boards, 95% [0.00, 0.50])")
    header = next(line for line in text.splitlines() if line.startswith("rank "))
    row = next(line for line in text.splitlines() if line.startswith("1 "))
    cells = dict(zip(header.split()[2:], row.split()[4:]))  # from column on: after rank and the 3 cells taken
    assert [cells[name] for name in ("column", "order", "value", "immediate", "denial", "race")] == \
        ["4", "CCC", "0.00", "0.00", "0.00", "0.00"]
