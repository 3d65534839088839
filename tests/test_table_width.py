"""The advice a player reads at the table fits an 80-column terminal by default (``advise``,
the ``play`` steps and the interactive session): every line of the default table output is at
most 80 characters on the default board, with 1 to 4 players; the exact ``p/q`` values stay in
JSON and CSV, and in the table behind ``--exact``."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
from click.testing import CliRunner

from shelfie_solver.cli import main
from shelfie_solver.core.report import fit_table, wrap_lines
from shelfie_solver.dice.play.session import Session

from conftest import assert_fits

ISSUE_GAME = ["--marks", "oox../xox../oooo./oox../ooxox", "--opponent", "ooo../oooxx/oxo../oooxx/ooo..",
              "--order", "2", "--round", "7"]


def run(*args: str) -> str:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.parametrize("args", [
    ["--dice", "CCBJPP"],  # holds, strategic
    ["--dice", "CCBJPP", "--objective", "learned"],  # holds, learned alone: the value in points
    ["--dice", "CCBJPP", "--rerolls", "0"],  # markings
    ["--dice", "BPPGGA", "--rerolls", "0", "--marks", "xxxxx/.xxxx/...../...../....."],  # a marking ends the game
    ["--dice", "CCCCCC", "--rerolls", "0", "--marks", "xxxxx/xxxx./...../...../....."],  # failed result, ends it
    ["--dice", "CCCCCC", "--rerolls", "2", "--marks", "xxxxx/...../...../...../....."],  # stop and re-roll-all rows
    ["--dice", "PPAACC", *ISSUE_GAME],  # the issue's game: with an opponent
    ["--dice", "PPAACC", "--rerolls", "0", *ISSUE_GAME],
])
def test_advise_fits_80_columns(args: list[str]):
    out = run("advise", *args, "--top", "40")
    assert_fits(out)
    assert "exact" not in out.split("\n\n")[1].splitlines()[0].split()  # no exact column by default


def test_exact_values_stay_in_json_and_behind_the_option():
    table = run("advise", "--dice", "CCBJPP", "--exact")
    header = next(line for line in table.splitlines() if line.startswith("rank"))
    assert "exact" in header.split()
    data = json.loads(run("advise", "--dice", "CCBJPP", "--format", "json"))
    best = data["holds"][0]
    assert Fraction(best["value"]) and "/" in best["value"]
    row = next(line for line in table.splitlines() if line.startswith("1 "))
    assert f"{Fraction(best['value']).numerator}/{Fraction(best['value']).denominator}" in row.split()


@pytest.mark.parametrize("names", ["me", "Ann,Ben", "Annabelle,Bartholomew,Christopher,Dorothea"])
def test_play_steps_fit_80_columns(tmp_path: Path, names: str):
    game = str(tmp_path / "g.json")
    first = names.split(",")[0]
    outputs = [run("play", "new", game, "--players", names, "--first", first),
               run("play", "roll", game, "CCCCCC"),
               run("play", "reroll", game, "--keep", "CC", "BBPP"),
               run("play", "stop", game),
               run("play", "advise", game),
               run("play", "mark", game, "r1c2", "r2c2"),
               run("play", "status", game),
               run("play", "undo", game)]
    for out in outputs:
        assert_fits(out)


def test_the_session_fits_80_columns_and_shows_every_sheet(tmp_path: Path):
    """Four players with long names: after each action every sheet is shown compactly (one
    column each, the active player marked '>', names cut to 12 characters), and no line is
    wider than 80."""
    game = str(tmp_path / "g.json")
    run("play", "new", game, "--players", "Annabelle,Bartholomew_the_2nd,Christopher,Dorothea", "--first", "Annabelle")
    session = Session(game, "learned", 5)
    for line in ["CCBBPG", "keep CCBB", "CCBBCP", "stop", "mark r1c1 r1c2 r2c2", "told r3c1 r3c2 r3c3", "status",
                 "help", "undo"]:
        out = session.handle(line)
        assert not out.startswith("Error"), out
        assert_fits(out)
    lines = session.handle("advise").splitlines()
    head = next(line for line in lines if "Annabelle" in line)
    assert head.split() == ["round", "1", "Annabelle", ">", "Bartholomew_", "Christopher", "Dorothea"]
    assert next(line for line in lines if line.startswith("r1 cat")).split()[2:4] == ["oo...", "0"]
    assert next(line for line in lines if line.startswith("r2 book")).split()[2:4] == [".o...", "0"]
    assert next(line for line in lines if line.startswith("total")).split() == ["total", "0", "0", "0", "0"]


def test_wrapping_keeps_words_and_lines_that_fit():
    text = "word " * 30 + "a" * 90
    wrapped = wrap_lines([text.strip(), "short line", "grid\n  kept as it is"], 40)
    lines = wrapped[0].split("\n")
    assert all(len(line) <= 40 for line in lines[:-1]) and lines[-1].strip() == "a" * 90  # never broken
    assert " ".join(" ".join(lines).split()) == " ".join(text.split())
    assert wrapped[1:] == ["short line", "grid\n  kept as it is"]


def test_wrapping_never_parts_a_figure_from_its_unit():
    """A figure and the word after it, its unit, stay on one line: at 80 columns "score now 0
    points" was cut after the 0 (README's first command); so were "(2 re-rolls left)" and a
    percentage. Words and what fits are as before."""
    for before, figure, unit in (("score now", "0", "points"), ("rolled CC", "(2", "re-rolls left)"),
                                 ("chance", "99.46%", "of it")):
        head = "x" * (80 - len(f" {before} {figure}"))  # the line fits up to the figure, not its unit
        assert wrap_lines([f"{head} {before} {figure} {unit}"], 80) == [f"{head} {before}\n  {figure} {unit}"]
    assert wrap_lines(["a 1 b " * 20], 80)[0].replace("\n  ", " ") == ("a 1 b " * 20).strip()


def test_readme_s_first_command_keeps_its_figures_with_their_units():
    """README's first command, `advise --dice CCBJPP` on the default board: no line of its 80-column
    output ends in a figure whose unit starts the next line (its title read "score now 0" then
    "points")."""
    import re

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    first = next(line for line in readme.splitlines() if "pip install . && shelfie-solve " in line)
    out = run(*first.split("shelfie-solve ", 1)[1].split())
    assert_fits(out)
    lines = out.splitlines()
    parted = [(a, b) for a, b in zip(lines, lines[1:])
              if re.search(r"(?<![^\s(])[0-9][0-9.,/]*%?$", a) and re.match(r"\s+[A-Za-z]", b)]
    assert not parted, parted
    assert "score now 0 points" in " ".join(line.strip() for line in lines[:4])


def test_fit_table_drops_padding_then_the_narrow_columns():
    headers = ["rank", "keep", "re-roll", "value"]
    rows = [["1", "PPBCCJ (stop)", "nothing (stop)", "23.1667"]]
    wide = fit_table(headers, rows, 200)
    assert wide.splitlines()[0].startswith("rank    keep")  # fits: tabulate's own padding
    tight = fit_table(headers, rows, 44)
    assert max(len(line) for line in tight.splitlines()) <= 44 and "re-roll" in tight  # 4+13+14+7 + 3 gaps of 2
    narrow = fit_table(headers, rows, 30, ["re-roll"])
    assert "re-roll" not in narrow and max(len(line) for line in narrow.splitlines()) <= 30


def test_the_session_shows_exact_values_when_asked(tmp_path: Path):
    game = str(tmp_path / "g.json")
    run("play", "new", game, "--players", "me", "--first", "me")
    run("play", "roll", game, "CCBBPG")
    plain, exact = Session(game, "strategic", 3), Session(game, "strategic", 3, exact=True)
    header = [line for line in exact.advice().splitlines() if line.startswith("rank")]
    assert header and "exact" in header[0].split()
    assert not any("exact" in line.split() for line in plain.advice().splitlines() if line.startswith("rank"))
    assert_fits(plain.advice())


@pytest.mark.parametrize("players,objective", [("greedy", "points"), ("greedy,solver", "strategic"),
                                               ("greedy,solver", "win")])
def test_review_fits_80_columns_and_json_csv_keep_every_column(tmp_path: Path, players: str, objective: str):
    """`review GAME` (points, strategic, the chance to win) fits 80 columns by default; JSON and
    CSV keep every column (the round, the best value, the re-rolls left)."""
    saved = str(tmp_path / "g.jsonl")
    run("simulate", "--players", players, "--games", "1", "--seed", "2", "--save", saved)
    table = run("review", saved, "--objective", objective)
    assert_fits(table)
    assert any(line.split()[1:2] == ["hold"] for line in table.splitlines())  # the rows are there, 80 wide
    data = json.loads(run("review", saved, "--objective", objective, "--format", "json"))
    assert {"round", "rerolls_left", "best_value", "chosen_value", "loss"} <= set(data["decisions"][0])
    header = run("review", saved, "--objective", objective, "--format", "csv").splitlines()[0].split(",")
    assert {"round", "rerolls_left", "best_value"} <= set(header)
