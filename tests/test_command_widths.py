"""The table output of ``odds``, ``simulate``, ``solve-game`` and the ``tile`` commands fits an
80-column terminal by default (docs/odds.md, docs/simulate.md, docs/solve-game.md, docs/tile.md),
like ``advise`` and ``play`` (tests/test_table_width.py): long title and note lines wrapped, a
table too wide split into tables one under the other (nothing dropped), an exact optimum too long
for a line run on over several. JSON and CSV are not fitted."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from click.testing import CliRunner

from shelfie_solver.cli import main
from shelfie_solver.dice.wholegame.report import exact_lines
from shelfie_solver.core.report import TABLE_WIDTH, fit_table

from conftest import EXAMPLES, assert_fits

POSITION = str(EXAMPLES / "tile" / "position.toml")
SMALL = str(EXAMPLES / "boards" / "small.toml")


def run(*args: str) -> str:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.parametrize("args", [
    ["--target", "3C+2B"],  # levels table: exact fractions of 25 characters
    ["--target", "3C+2B", "--dice", "CCBJPP", "--top", "40"],  # holds
    ["--target", "3C+2B", "--dice", "CCBJPP", "--rerolls", "0"],  # final dice
    ["--target", "r2c4|r2c5", "--marks", "oo.../...../x..../...../....."],
    ["--target", "3C", "--dice", "CCBJPP", "--marks", str(EXAMPLES / "marks" / "mid-game.txt")],
    ["--target", "4C|4B", "--rerolls", "1", "--simulate", "2000", "--seed", "7"],
    ["--rules", str(EXAMPLES / "rules" / "classic-five-dice.toml"), "--target", "5*"],
])
def test_odds_fits_80_columns(args: list[str]) -> None:
    assert_fits(run("odds", *args))


def test_odds_split_levels_table_keeps_every_value() -> None:
    """Five of a kind within three rolls of five dice is 347897/7558272 (the classic closed
    form, docs/odds.md); the split table still shows it under both the optimal and the baseline
    (the same here: keeping the largest group is optimal), with every level's re-rolls."""
    out = run("odds", "--rules", str(EXAMPLES / "rules" / "classic-five-dice.toml"), "--target", "5*")
    tables = [part for part in out.split("\n\n") if part.startswith("re-rolls")]
    assert len(tables) in (1, 2)
    cells = " ".join(tables).split()
    assert cells.count("347897/7558272") == 2 and cells.count("1/1296") == 2  # 6/6^5: five alike at once
    for table in tables:
        assert [line.split()[0] for line in table.splitlines()[2:]] == ["0", "1", "2"]


@pytest.mark.parametrize("players", ["threshold", "solver,greedy", "solver,greedy,threshold",
                                     "solver,greedy,threshold,greedy"])
def test_simulate_fits_80_columns(players: str) -> None:
    out = run("simulate", "--players", players, "--games", "4", "--seed", "1")
    assert_fits(out)
    heads = " ".join(line for line in out.splitlines() if line.startswith("statistic"))
    for seat, name in enumerate(players.split(","), 1):  # every seat's column is shown, once
        assert heads.count(f"seat {seat}: {name}") == 1


def test_simulate_long_strategy_path_fits_80_columns(tmp_path, monkeypatch) -> None:
    """A strategy named by a long parameter-file name (63 characters: its seat's header is 79, the
    statistic column 24): the header runs on over lines of the table (every character kept, in
    order), and no line is over 80 columns."""
    import shutil

    from shelfie_solver.dice.learned import __file__ as learned_package

    monkeypatch.chdir(tmp_path)
    path = "a-very-long-name-for-a-parameter-file-to-stretch-the-table.json"
    shutil.copy(learned_package.replace("learned/__init__.py", "data/learned.json"), path)
    out = run("simulate", "--players", f"learned:{path},greedy", "--games", "2", "--seed", "1")
    assert_fits(out)
    table = next(part for part in out.split("\n\n") if part.startswith("statistic") and "seat 1" in part)
    lines = table.splitlines()
    rule = next(i for i, line in enumerate(lines) if line.startswith("-"))
    at = lines[rule].index("  ") + 2  # where the seat's column starts (under its dashes)
    header = "".join(line[at:].strip() for line in lines[:rule])  # the header's lines joined, spaces aside
    assert rule > 1 and header.replace(" ", "") == f"seat1:learned:{path}"


def test_simulate_one_game_fits_80_columns(tmp_path) -> None:
    assert_fits(run("simulate", "--players", "solver,greedy", "--games", "1", "--seed", "1",
                    "--save", str(tmp_path / "games.jsonl")))


def test_solve_game_fits_80_columns_and_keeps_the_exact_optimum(tmp_path) -> None:
    """The small board's exact optimum has a numerator of about a hundred digits: in the table
    its digits run on over lines; joined again they are JSON's (and CSV's) one-line value."""
    out = run("solve-game", "--board", SMALL, "--save", str(tmp_path / "t.json"))
    assert_fits(out)
    optimum = json.loads(run("solve-game", "--board", SMALL, "--format", "json"))["optimum"]
    assert len(optimum) > TABLE_WIDTH
    lines = out.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("exact "))
    digits = [lines[at].split()[1]] + [line.strip() for line in lines[at + 1:] if line.startswith(" " * 30)]
    assert "".join(digits) == optimum
    assert optimum in run("solve-game", "--board", SMALL, "--format", "csv").splitlines()[2]


def test_solve_game_float_fits_80_columns(tmp_path) -> None:
    assert_fits(run("solve-game", "--board", SMALL, "--float", "--save", str(tmp_path / "t.npy")))


def test_exact_lines_runs_digits_on_and_keeps_short_fractions() -> None:
    assert exact_lines(Fraction(3, 7), 10) == "3/7"
    assert exact_lines(Fraction(123456, 7), 4) == "1234\n56\n/7"
    long = Fraction(10**20 + 1, 3**30)  # 21 digits over 15 (3^30 = 205891132094649)
    lines = exact_lines(long, 8).split("\n")
    assert all(len(line) <= 8 for line in lines)
    assert lines == ["10000000", "00000000", "00001", "/2058911", "32094649"]


@pytest.mark.parametrize("args", [
    ["PPTTP/PPTTF/GGBBF/GCCBB/GCCFF/PGBFP"],
    ["PPTTP/PPTTF/GGBBF/GCCBB/GCCFF/PGBFP", "--personal", "4", "--tokens", "8", "--end-token"],
    ["TTTTT/FFFFF/GGGGP/BCCTC/CCBBC/PPFPG", "--personal", "4"],  # all 6 cells of card 4 named
])
def test_tile_score_fits_80_columns(args: list[str]) -> None:
    out = run("tile", "score", *args)
    assert_fits(out)
    if "BCCTC" in args[0]:  # card 4: cat r5c5, book r4c1, game r6c5, frame r6c3, trophy r4c4, plant r3c5
        lines = out.splitlines()
        at = next(i for i, line in enumerate(lines) if line.startswith("personal "))
        assert lines[at].split()[-1] == "12"  # T21: 6 matches are 12 points
        words = " ".join(lines[at].split()[1:-1] + [w for line in lines[at + 1:at + 3] if line.startswith(" ")
                                                    for w in line.split()])
        assert "card 4: 6 of 6 cells match (cat r5c5, book r4c1, game r6c5, frame r6c3, trophy r4c4, " \
               "plant r3c5)" in words
        assert json.loads(run("tile", "score", *args, "--format", "json"))["personal"]["points"] == 12  # T21


@pytest.mark.parametrize("args", [[], ["--top", "91"], ["--move", "r5c2+r5c1@4"], ["--samples", "0"]])
def test_tile_advise_fits_80_columns(args: list[str]) -> None:
    out = run("tile", "advise", POSITION, *args)
    assert_fits(out)
    data = json.loads(run("tile", "advise", POSITION, *args, "--format", "json"))
    best = data["moves"][0]
    for part in ("immediate", "groups", "denial"):  # every part of the value is still in a table
        assert any(line.split()[:1] == [part] or f" {part} " in f" {line} " for line in out.splitlines())
    first_rows = [line for line in out.splitlines() if line.startswith("1 ")]
    assert len(first_rows) >= 2 and all(" ".join(best["cells"]) in row for row in first_rows)


@pytest.mark.parametrize("players", ["advisor,greedy", "advisor,greedy,random", "advisor,greedy,random,greedy"])
def test_tile_simulate_fits_80_columns(players: str) -> None:
    assert_fits(run("tile", "simulate", "--players", players, "--games", "2", "--seed", "1"))


def test_fit_table_splits_into_key_columns_and_whole_groups() -> None:
    """Four 10-character columns and a key of 3 in 30 columns: "k" + two groups of two would be
    3 + 2 + 10 + 2 + 10 + 2 + ... (too wide at 48), so each part is the key and one group."""
    headers = ["k", "a", "b", "c", "d"]
    rows = [["1", "a" * 10, "b" * 10, "c" * 10, "d" * 10]]
    text = fit_table(headers, rows, 30, split=[["k"], ["a", "b"], ["c", "d"]])
    parts = text.split("\n\n")
    assert [part.splitlines()[0].split() for part in parts] == [["k", "a", "b"], ["k", "c", "d"]]
    assert all(len(line) <= 30 for line in text.splitlines())
    assert fit_table(headers, rows, 30) == fit_table(headers, rows, 30, split=[])  # no split: as before
    together = fit_table(headers, rows, 60, split=[["k"], ["a", "b"], ["c", "d"]])
    assert "\n\n" not in together  # fits: one table
    unnamed = fit_table(headers, rows, 30, split=[["k"], ["a", "b"]])  # c, d not named: a last group
    assert unnamed.split("\n\n")[1].splitlines()[0].split() == ["k", "c", "d"]
