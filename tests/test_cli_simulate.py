"""``shelfie-solve simulate`` through click's CliRunner, including every bad-input path."""

from __future__ import annotations

import csv
import io
import json
import os
from fractions import Fraction

import pytest
from click.testing import CliRunner

from shelfie_solver.cli import main
from shelfie_solver.dice.game.record import load_games

from conftest import EXAMPLES, assert_one_line_error


def run(*args: str):
    return CliRunner().invoke(main, ["simulate", *args])


def test_table_output():
    result = run("--players", "greedy,random", "--games", "6", "--seed", "3", "--jobs", "1")
    assert result.exit_code == 0, result.output
    assert "seat 1: greedy" in result.output and "seat 2: random" in result.output
    assert "win rate (ties shared)" in result.output and "Game length" in result.output
    assert "Playing" not in result.output  # no progress bar when stderr is not a terminal


def test_json_is_the_same_whatever_the_jobs():
    args = ["--players", "threshold,greedy", "--games", "5", "--seed", "8", "--format", "json"]
    one, two = run(*args, "--jobs", "1"), run(*args, "--jobs", "2")
    assert one.exit_code == two.exit_code == 0
    assert one.stdout == two.stdout
    data = json.loads(one.stdout)
    assert data["games"] == 5 and data["seed"] == 8 and data["players"] == ["threshold", "greedy"]
    wins = sum(Fraction(s["win"]["mean"]) for s in data["seats"])
    assert wins == 1  # one win per game, ties shared (D20)


def test_csv_and_markdown():
    result = run("--players", "greedy", "--games", "3", "--seed", "1", "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert rows[0].keys() == {"seat", "strategy", "statistic", "mean", "mean_exact", "ci_low", "ci_high", "sd",
                              "games"}
    assert {r["statistic"] for r in rows} >= {"score", "fails", "completed", "rounds"}
    two = run("--players", "greedy,random", "--games", "3", "--seed", "1", "--format", "csv")
    assert {r["statistic"] for r in csv.DictReader(io.StringIO(two.stdout))} >= {"win", "blocked"}
    markdown = run("--players", "greedy", "--games", "3", "--seed", "1", "--format", "markdown")
    assert "| statistic" in markdown.stdout


def test_save_writes_replayable_games(tmp_path):
    path = tmp_path / "games.jsonl"
    result = run("--players", "solver,random", "--games", "3", "--seed", "2", "--jobs", "1", "--save", str(path))
    assert result.exit_code == 0, result.output
    games = list(load_games(str(path)))
    assert len(games) == 3 and all(g.players == ("solver", "random") for g in games)
    assert [json.loads(line)["game"] for line in path.read_text().splitlines()] == [0, 1, 2]


@pytest.mark.parametrize("args", [
    ["--players", "solver,smart"],
    ["--players", ""],
    ["--players", ","],
    ["--players", "random,random,random,random,random"],
    ["--players", "greedy", "--games", "0"],
    ["--players", "greedy", "--jobs", "0"],
    ["--players", "greedy", "--seed", "-1"],
    ["--players", "greedy", "--games", "1000000000000000000000000000000"],  # was an OverflowError
    ["--players", "greedy", "--games", "1000001"],
    ["--players", "greedy", "--seed", "5" * 5000],
    ["--players", "greedy", "--seed", str(2**128)],
    ["--players", "greedy", "--seed", "1e5"],
    ["--players", "greedy", "--seed", "٣"],
    ["--players", "greedy", "--format", "xml"],
    ["--players", "greedy", "--save", "/nonexistent-dir/games.jsonl"],
    ["--players", "greedy", "--board", "/nonexistent.toml"],
    ["--games", "3"],
])
def test_bad_input_is_one_line_exit_2(args):
    assert_one_line_error(run(*args))


def test_save_to_a_directory_is_refused(tmp_path):
    result = run("--players", "greedy", "--games", "1", "--save", str(tmp_path))
    assert result.exit_code == 2 and "directory" in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_save_is_checked_before_the_games_are_played(tmp_path, monkeypatch):
    """Bad --save paths fail at once, before any game (the pre-check really creates and deletes a
    file, so /proc, which os.access calls writable, is caught too), and leave nothing behind."""
    from shelfie_solver.cli import simulate as command

    def no_games(*args, **kwargs):
        raise AssertionError("games were played")

    monkeypatch.setattr(command, "simulate", no_games)
    fifo = tmp_path / "fifo"
    bad = ["", str(tmp_path / "missing" / "games.jsonl"), str(tmp_path)]
    if hasattr(os, "mkfifo"):
        os.mkfifo(fifo)
        bad.append(str(fifo))
    if os.path.isdir("/proc/self"):
        bad.append("/proc/games.jsonl")
    if os.path.exists("/dev/full"):
        bad.append("/dev/full")
    for path in bad:
        assert_one_line_error(run("--players", "greedy", "--games", "1", "--save", path), "--save")
    assert [p.name for p in tmp_path.iterdir()] == (["fifo"] if fifo.exists() else [])


def test_save_precheck_leaves_no_probe_file(tmp_path):
    path = tmp_path / "games.jsonl"
    assert run("--players", "greedy", "--games", "1", "--seed", "1", "--save", str(path)).exit_code == 0
    assert [p.name for p in tmp_path.iterdir()] == ["games.jsonl"]


@pytest.mark.parametrize("players", ["greedy,,greedy", "greedy,", ",greedy", "greedy, ,random"])
def test_empty_player_entry_is_an_error(players):
    assert_one_line_error(run("--players", players, "--games", "1"), "empty entry", "comma-separated strategies")


@pytest.mark.parametrize("fmt", ["table", "json", "csv", "markdown"])
def test_solitaire_has_no_win_rate_nor_lines_blocked(fmt):
    """One player has nobody to beat or be blocked by: no such rows, in any format."""
    result = run("--players", "greedy", "--games", "3", "--seed", "1", "--format", fmt)
    assert result.exit_code == 0, result.output
    text = result.stdout.lower()
    assert "win" not in text.replace("no win rate", "") and "blocked" not in text.replace("no lines blocked", "")
    if fmt == "json":
        seat = json.loads(result.stdout)["seats"][0]
        assert "score" in seat and "win" not in seat and "blocked" not in seat


def test_long_seeds_are_shortened_in_the_message():
    result = run("--players", "greedy", "--seed", "5" * 5000)
    assert_one_line_error(result, "--seed")
    assert len(result.output) < 300


def test_fresh_seed_is_short_and_repeats_the_run():
    """Without --seed the printed seed is a 32-bit number; typing it back repeats
    the run exactly."""
    first = run("--players", "greedy,random", "--games", "2", "--jobs", "1", "--format", "json")
    data = json.loads(first.stdout)
    assert 0 <= data["seed"] < 2**32
    again = run("--players", "greedy,random", "--games", "2", "--jobs", "1", "--format", "json",
                "--seed", str(data["seed"]))
    assert again.stdout == first.stdout


def test_one_game_has_no_interval_but_a_win_rate_interval():
    result = run("--players", "greedy,random", "--games", "1", "--seed", "4", "--jobs", "1", "--format", "json")
    data = json.loads(result.stdout)
    assert data["rounds"]["ci95"] is None
    low, high = data["seats"][0]["win"]["ci95"]
    assert high - low > 0.5  # Wilson from one game: wide, never a point


def test_save_is_not_an_input_file(tmp_path):
    """--save naming a file the run reads (the ruleset, a strategy's parameter file, through
    another spelling too) would replace it with games: refused in one line, the file kept."""
    rules = tmp_path / "rules.toml"
    rules.write_text("rerolls = 2\n")
    params = tmp_path / "params.json"
    params.write_bytes((EXAMPLES.parent / "shelfie_solver" / "dice" / "data" / "learned.json").read_bytes())  # weights for 2 players
    cases = [(["--players", "greedy", "--rules", str(rules)], str(rules)),
             (["--players", "greedy"], str(tmp_path / "." / "rules.toml")),
             (["--players", f"greedy, learned:{params}"], str(params))]
    for args, save in cases:
        if "--rules" not in args:
            args = [*args, "--rules", str(rules)]
        result = CliRunner().invoke(main, ["simulate", *args, "--games", "1", "--jobs", "1", "--save", save])
        assert_one_line_error(result, "--save", "also read")
    assert rules.read_text() == "rerolls = 2\n"
    assert params.read_bytes() == (EXAMPLES.parent / "shelfie_solver" / "dice" / "data" / "learned.json").read_bytes()
