"""Hand-edited and hostile files that broke the contract (one line ``Error: ...``, exit 2, no
traceback, within seconds; a refused action leaves the game file byte for byte; nothing is written
before the action is known to succeed, its output included). Each test names the input that broke
before the fix; the kinds are also in benchmarks/bad_input_sweep.py."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import tomllib
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from shelfie_solver.cli import main
from shelfie_solver.core.errors import ShelfieError
from shelfie_solver.core.inputs import MAX_EXACT_DIGITS, parse_fraction
from shelfie_solver.core.report import Report, csv_cell, printable, render

from conftest import ROOT, assert_one_line_error
from test_hostile_input import TINY_BOARD, TINY_RULES  # the tiny ruleset and board, written once

RUNNER = CliRunner()
CLI = [sys.executable, "-c", "from shelfie_solver.cli import main; main()"]

#: The tiny board's full sheet (D19, threshold 2): every item counts in its shelf and its column.
TINY_POSSIBLE = 2 * (1 + 3 + 2 + 4)


def cli(*args: object):
    return RUNNER.invoke(main, [str(a) for a in args])


def run(*args: object, timeout: float = 60, **kw) -> subprocess.CompletedProcess[str]:
    """The real command in its own process (real standard streams, strict UTF-8 stdout)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONIOENCODING": "utf-8"}
    return subprocess.run([*CLI, *map(str, args)], capture_output=True, text=True, env=env, timeout=timeout,
                          **kw)


def assert_refused(done: subprocess.CompletedProcess[str], *fragments: str) -> str:
    assert done.returncode == 2, done.stderr
    assert done.stdout == "" and "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), done.stderr
    for fragment in fragments:
        assert fragment.lower() in lines[0].lower(), lines[0]
    return lines[0]


@pytest.fixture
def tiny(tmp_path: Path) -> list[object]:
    (tmp_path / "b.toml").write_text(TINY_BOARD)
    (tmp_path / "r.toml").write_text(TINY_RULES)
    return ["--board", tmp_path / "b.toml", "--rules", tmp_path / "r.toml"]


def _game(tmp_path: Path, first: str = "Ann", second: str = "Ben") -> Path:
    """A new game of Ann and Ben whose names are then edited by hand to ``first`` and ``second``."""
    path = tmp_path / "game.json"
    assert cli("play", "new", path, "--players", "Ann,Ben", "--first", "Ann").exit_code == 0
    data = json.loads(path.read_text())
    data["players"] = [first, second]
    path.write_text(json.dumps(data))
    return path


# --- 1. text from files, escaped for the terminal and CSV -------------------------------------


def test_a_lone_surrogate_in_a_name_prints_escaped(tmp_path: Path):
    """`"\\ud800"` as a name: status, advise, review, csv and the session crashed with
    UnicodeEncodeError (exit 1); `play roll` wrote the roll, then crashed."""
    game = _game(tmp_path, "\ud800")
    for args in (["play", "status", game], ["play", "advise", game], ["review", game],
                 ["play", "status", game, "--format", "csv"], ["play", "advise", game, "--format", "markdown"]):
        done = run(*args)
        assert done.returncode == 0 and done.stderr == "", (args, done.stderr)
        assert "\\ud800" in done.stdout
    before = game.read_bytes()
    done = run("play", "roll", game, "CCBJPP")
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert "\\ud800 rolled" in done.stdout
    assert game.read_bytes() != before
    session = run("play", game, input="status\n")
    assert session.returncode == 0 and "Traceback" not in session.stderr and "\\ud800" in session.stdout


@pytest.mark.parametrize("name", ["A\x1b[31m", "a" * 5000, "Ann\u200bLee", "Ann Lee"])
def test_review_refuses_the_names_play_refuses(tmp_path: Path, name: str):
    """review opened game files that play, rollout and serve refuse (a control character, an
    ESC or a zero-width space, a 5000-character name, a space): it reads them through the same
    name rules now (gamefile.check_names), the same one line, exit 2."""
    game = _game(tmp_path, name)
    by_play = assert_one_line_error(cli("play", "status", game), "player names must")
    by_review = assert_one_line_error(cli("review", game), "player names must")
    assert by_review == by_play.replace(f"{game}:", f"{game} game 1:")


def test_review_still_reads_a_seat_named_by_a_model_file_with_spaces(tmp_path: Path):
    """simulate --save names a seat by its strategy as given: learned:FILE keeps a path that may
    be long and hold spaces (strategies.FILE_STRATEGIES); review reads such a game, the name whole."""
    saved = tmp_path / "games.jsonl"
    model = tmp_path / "models of December" / "learned.json"
    model.parent.mkdir()
    model.write_bytes((ROOT / "shelfie_solver" / "dice" / "data" / "learned.json").read_bytes())
    name = f"learned:{model}"
    assert len(name) > 32 and " " in name
    done = cli("simulate", "--players", f"{name},greedy", "--games", "1", "--seed", "1", "--save", saved)
    assert done.exit_code == 0, done.output
    assert json.loads(saved.read_text().splitlines()[0])["players"] == [name, "greedy"]
    reviewed = cli("review", saved, "--objective", "points")
    assert reviewed.exit_code == 0, reviewed.output
    assert " ".join(reviewed.stdout.split()).startswith(f"Review of {name} (seat 1) in game 1")


def test_output_is_made_before_the_action_is_written(tmp_path: Path, monkeypatch):
    """Nothing is written before the action is known to succeed, its output included: a failure
    while making the advice leaves the file byte for byte (the roll was written first)."""
    import shelfie_solver.cli.play as play

    game = _game(tmp_path)
    before = game.read_bytes()

    def broken(*args, **kwargs):
        raise ShelfieError("the advice could not be made")

    monkeypatch.setattr(play, "action_report", broken)
    assert_one_line_error(cli("play", "roll", game, "CCBJPP"), "the advice could not be made")
    assert game.read_bytes() == before


def test_error_lines_escape_names_from_the_file(tmp_path: Path):
    """An error naming the players (stderr) escapes them too: no raw ESC reaches the terminal (a
    hand-edited name with an ESC is refused as 'play new' refuses it, the refusal escaped)."""
    game = _game(tmp_path, "Ann", "\ud800")
    line = assert_refused(run("play", "roll", game, "CCBJPP", "--player", "Zed"), "no player 'Zed'")
    assert line.endswith("players: Ann, \\ud800")
    (tmp_path / "game.json").unlink()
    game = _game(tmp_path, "A\x1b[2Jnn", "Ben")
    before = game.read_bytes()
    line = assert_refused(run("play", "roll", game, "CCBJPP"), "printable", "A\\x1b[2Jnn")
    assert "\x1b" not in line and game.read_bytes() == before


def test_escapes_and_csv_formulas():
    """A terminal gets no raw control character, bidirectional override or lone surrogate; a
    CSV cell that a spreadsheet would run (=, +, -, @) is led by a quote; numbers stay numbers."""
    assert printable("A\x1b[2Jnn\u202e\ud800\tx\ny") == "A\\x1b[2Jnn\\u202e\\ud800\tx\ny"
    assert [csv_cell(v) for v in ("=1+1", "+A", "-A1", "@SUM(A1)", "-1.5", "-3/4", "-", "Ann", 7)] == \
        ["'=1+1", "'+A", "'-A1", "'@SUM(A1)", "-1.5", "-3/4", "-", "Ann", 7]
    report = Report(["\ud800 to play"], ["player"], [["=HYPERLINK(\"x\")"]], {"player": "\ud800"})
    assert render(report, "table").encode("utf-8")  # always encodable
    assert render(report, "csv").splitlines()[1] == "\"'=HYPERLINK(\"\"x\"\")\""
    assert json.loads(render(report, "json")) == {"player": "\ud800"}  # JSON escapes it itself


def test_a_formula_name_is_neutralised_in_csv(tmp_path: Path):
    game = _game(tmp_path, "=cmd|'/C'!A0", "@Ben")
    result = cli("play", "status", game, "--format", "csv")
    assert result.exit_code == 0, result.output
    import csv

    names = [row[1] for row in list(csv.reader(result.stdout.splitlines()))[1:]]
    assert names == ["'=cmd|'/C'!A0", "'@Ben"]


# --- 2. the session with standard input closed ------------------------------------------------


def test_session_with_standard_input_closed(tmp_path: Path):
    """`play GAME <&-` was AttributeError: 'NoneType' object has no attribute 'isatty'."""
    game = _game(tmp_path)
    before = game.read_bytes()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(["sh", "-c", 'exec "$0" -c "from shelfie_solver.cli import main; main()" play "$1" <&-',
                           sys.executable, str(game)], capture_output=True, text=True, env=env, timeout=60)
    assert_refused(done, "standard input is closed", f"play roll {game} DICE")
    assert game.read_bytes() == before


# --- 3, 4, 9. exact numbers in value tables and checkpoints ------------------------------------


def test_parse_fraction_bounds_digits_and_refuses_exponents():
    """The one reader of exact numbers in files: p/q, integers and decimals; no exponent."""
    assert parse_fraction("3/4", ShelfieError, "x") == Fraction(3, 4)
    assert parse_fraction("-12", ShelfieError, "x") == -12
    assert parse_fraction("0.125", ShelfieError, "x") == Fraction(1, 8)
    assert parse_fraction("9" * MAX_EXACT_DIGITS + "/1", ShelfieError, "x") == 10**MAX_EXACT_DIGITS - 1
    for bad, fragment in (("1e1000000", "not an exact number"), ("1e-1000000", "not an exact number"),
                          ("1E5", "not an exact number"), ("inf", "not an exact number"),
                          ("nan", "not an exact number"), ("1_000", "not an exact number"),
                          (" 1/2", "not an exact number"), ("1/0", "divides by zero"),
                          ("9" * (MAX_EXACT_DIGITS + 1), "more than 4,300 digits"),
                          ("1/" + "9" * (MAX_EXACT_DIGITS + 1), "more than 4,300 digits"),
                          (0.5, "not a string"), (True, "not a string")):
        with pytest.raises(ShelfieError, match=fragment):
            parse_fraction(bad, ShelfieError, "x")


def _checkpoints(tmp_path: Path, tiny: list[object]) -> Path:
    folder = tmp_path / "ck"
    assert cli("solve-game", *tiny, "--checkpoints", folder).exit_code == 0
    return folder


def _edit_layer(folder: Path, value: str) -> Path:
    layer = sorted(folder.glob("layer-*.json"))[0]
    data = json.loads(layer.read_text())
    data["values"] = {k: value for k in data["values"]}
    layer.write_text(json.dumps(data))
    return layer


@pytest.mark.parametrize("value, fragment", [
    ("1e1000", "not an exact number"),      # OverflowError
    ("1e10000", "not an exact number"),     # ValueError: the 4300-digit limit
    ("1e1000000", "not an exact number"),   # hung past 180 s
    ("1/" + "3" * 5000, "more than 4,300 digits"),
    ("1000000/1", "outside 0 to 20"),       # an optimum of 999548 on a board worth at most 20
    ("-5/1", "outside 0 to 20"),
])
def test_checkpoint_values_are_bounded_and_range_checked(tmp_path: Path, tiny: list[object], value, fragment):
    folder = _checkpoints(tmp_path, tiny)
    _edit_layer(folder, value)
    start = time.monotonic()
    assert_refused(run("solve-game", *tiny, "--checkpoints", folder), "checkpoint", fragment)
    assert time.monotonic() - start < 30


def test_tiny_exponent_in_a_value_table(tmp_path: Path, tiny: list[object]):
    """"1e-1000000" (inside the 0..max range): advise was killed at 100 s with 430 MB, `play
    roll --objective table:` recorded the roll then hung, review hung."""
    table = tmp_path / "t.json"
    assert cli("solve-game", *tiny, "--save", table).exit_code == 0
    data = json.loads(table.read_text())
    data["values"] = {k: "1e-1000000" for k in data["values"]}
    edited = tmp_path / "tiny-exponent.json"
    edited.write_text(json.dumps(data))
    objective = f"table:{edited}"
    assert_refused(run("advise", "--dice", "PBJ", *tiny, "--objective", objective), "not an exact number")
    game = tmp_path / "g.json"
    assert cli("play", "new", game, "--players", "me", *tiny).exit_code == 0
    before = game.read_bytes()
    assert_refused(run("play", "roll", game, "PBP", "--objective", objective), "not an exact number")
    assert game.read_bytes() == before
    assert_refused(run("review", game, "--objective", objective), "not an exact number")


def test_common_denominator_is_bounded(tmp_path: Path, tiny: list[object]):
    """Each value small, together huge: two coprime 4000-digit denominators would make the
    table's common denominator 8000 digits (and 1,500 of them 6 million)."""
    table = tmp_path / "t.json"
    assert cli("solve-game", *tiny, "--save", table).exit_code == 0
    data = json.loads(table.read_text())
    keys = list(data["values"])
    big = 10**4000
    data["values"] = {k: f"1/{big + 2 * i + 1}" for i, k in enumerate(keys)}  # consecutive odd: coprime
    edited = tmp_path / "coprime.json"
    edited.write_text(json.dumps(data))
    assert_one_line_error(cli("advise", "--dice", "PBJ", *tiny, "--objective", f"table:{edited}"),
                          "common denominator has more than 4,300 digits")


def test_value_table_range_check_is_the_checkpoints(tmp_path: Path, tiny: list[object]):
    table = tmp_path / "t.json"
    assert cli("solve-game", *tiny, "--save", table).exit_code == 0
    data = json.loads(table.read_text())
    data["values"] = {k: f"{TINY_POSSIBLE + 1}/1" for k in data["values"]}
    table.write_text(json.dumps(data))
    assert_one_line_error(cli("advise", "--dice", "PBJ", *tiny, "--objective", f"table:{table}"),
                          f"outside 0 to {TINY_POSSIBLE}")


# --- 5. a train checkpoint goes through the bounded reader -------------------------------------


@pytest.mark.parametrize("text, fragment", [
    ('{"settings": ' + "5" * 5000 + "}", "more than 60 digits"),  # ValueError: Exceeds the limit (4300 digits)
    ("[" * 100 + "]" * 100, "nested more than 32 deep"),
    ("\xff{}", "not UTF-8"),
])
def test_train_checkpoint_is_read_bounded(tmp_path: Path, text: str, fragment: str):
    checkpoint = tmp_path / "p.checkpoint"
    checkpoint.write_bytes(text.encode("latin-1") if text.startswith("\xff") else text.encode())
    done = run("train", "--seed", "1", "--games", "1", "--iterations", "1", "--players", "1", "--jobs", "1",
               "--output", tmp_path / "p.json", "--checkpoint", checkpoint)
    assert_refused(done, "checkpoint", fragment)
    assert not (tmp_path / "p.json").exists()


def test_train_checkpoint_fifo_is_refused(tmp_path: Path):
    checkpoint = tmp_path / "p.checkpoint"
    os.mkfifo(checkpoint)
    done = run("train", "--seed", "1", "--games", "1", "--iterations", "1", "--players", "1", "--jobs", "1",
               "--output", tmp_path / "p.json", "--checkpoint", checkpoint, timeout=30)
    assert_refused(done, "FIFO")


# --- 6. an action that would push the game file past what its readers accept -------------------


def test_a_full_game_file_refuses_the_action(tmp_path: Path):
    """After `play roll` on a file of 1,048,533 bytes the game could no longer be opened by any
    command, `play undo` included."""
    game = _game(tmp_path)
    data = json.loads(game.read_text())
    size = len(json.dumps(data, separators=(",", ":"))) + 1
    data["board"]["name"] += "B" * (1_048_533 - size)  # the board's name grows the file to 1,048,533 bytes
    game.write_text(json.dumps(data, separators=(",", ":")) + "\n")
    assert game.stat().st_size == 1_048_533
    before = game.read_bytes()
    assert_one_line_error(cli("play", "roll", game, "CCBJPP"), "game file", "is full", "unchanged")
    assert game.read_bytes() == before
    assert cli("play", "status", game).exit_code == 0  # still opens
    session = run("play", game, input="CCBJPP\n")  # the session refuses it in one line and goes on
    assert session.returncode == 0 and "is full" in session.stdout and "Traceback" not in session.stderr
    assert game.read_bytes() == before


def test_a_value_table_past_its_reader_is_not_written(tmp_path: Path, tiny: list[object], monkeypatch):
    """A table larger than value tables may be (256 MiB; here the bound lowered to 100 bytes) is
    refused in one line and nothing is written: no command could read it back."""
    import shelfie_solver.dice.wholegame.values as values

    monkeypatch.setattr(values, "MAX_TABLE_BYTES", 100)
    table = tmp_path / "t.json"
    assert_one_line_error(cli("solve-game", *tiny, "--save", table), "more than the 100 a value table may hold")
    assert not table.exists()


# --- 7. the one-line shortener keeps the example and what was given ----------------------------


@pytest.mark.parametrize("given", ["5", "0", "", "2,x", "-2", ","])
def test_train_players_message_keeps_the_example(given: str):
    """It was cut to "...separated by commas (e.g. '…5'": the example and the value were lost."""
    line = assert_one_line_error(cli("train", "--seed", "1", "--players", given), "--players")
    assert f"(e.g. 1,2,3,4), got {given!r}" in line


def test_a_long_quoted_value_is_still_cut():
    line = assert_one_line_error(cli("simulate", "--players", "x" * 5000))
    assert len(line) < 300 and "…" in line


# --- 8. learned weights beyond the int64 bound -------------------------------------------------


def _learned(tmp_path: Path, weight: int) -> Path:
    data = json.loads((ROOT / "examples" / "learned-small-boards.json").read_text())
    first = next(iter(data["weights"].values()))
    first["1"][0] = weight
    path = tmp_path / f"w{weight}.json"
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize("weight", [2**50, 2**58, -2**60, 2**63 - 1])
def test_learned_weights_beyond_the_int64_bound_are_refused(tmp_path: Path, weight: int):
    """Up to 2**50 the values scaled, at 2**58 the sign flipped, 2**60 ... 2**63-1 gave the same
    advice as points alone: silently."""
    path = _learned(tmp_path, weight)
    assert_one_line_error(cli("advise", "--dice", "CCBJPP", "--objective", f"learned:{path}"),
                          "beyond ±33,554,432", "int64")


def test_the_weight_bound_keeps_int64_exact():
    """With every weight at the bound (either sign) on the largest board the objective accepts (7 x
    7, every item worth 10,000), the int64 future value F equals the exact Python-integer sum of
    weight x feature, so the bound of dice/learned/model_file.py (MAX_WEIGHT) holds on this worst case."""
    from shelfie_solver.dice.board import Marks, board_from_dict
    from shelfie_solver.dice.learned.model_file import MAX_WEIGHT, N_FEATURES
    from shelfie_solver.dice.learned.objective import feature_vector, future_values, threats
    from shelfie_solver.dice.objectives import StateArrays
    from shelfie_solver.dice.rules import DEFAULT_RULES

    faces = ["plant", "game", "book", "award", "cat", "plant", "game"]
    board = board_from_dict({"columns": [1, 2, 3, 4, 5, 6, 1],
                             "shelves": [{"faces": [f], "values": [10_000] * 7} for f in faces]})
    rules = DEFAULT_RULES
    sheets = (Marks(7, 7, (1 << 49) - 1 - (1 << 48)), Marks(7, 7, (1 << 47) - 1))
    context = np.array([1000, 49, 49], dtype=np.int64)
    for sign in (1, -1):
        weights = np.full((3, N_FEATURES), sign * MAX_WEIGHT, dtype=np.int64)
        for marks in sheets:
            threat = threats(board, rules, (marks, sheets[1]), 0)
            features = feature_vector(board, rules, marks, threat, True, context)
            exact = sum(int(f) * int(w) for f, w in zip(features, weights[2]))
            m, a, mp, ap = StateArrays(board, rules, marks).line_totals
            got = future_values(weights, board, rules.scoring_threshold, m[None], a[None], mp[None], ap[None],
                                threat, np.array([True]), np.array([3]), context)
            assert int(got[0]) == exact
            assert abs(exact) * 16_000 * 4 < 2**63


# --- 10. an interruption says what was kept -----------------------------------------------------


def _interrupt_when(args: list[object], ready, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen([*CLI, *map(str, args)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=env, start_new_session=True)
    try:
        deadline = time.monotonic() + timeout
        while not ready() and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        os.killpg(process.pid, signal.SIGINT)
        out, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    return subprocess.CompletedProcess(args, process.returncode, out, err)


def test_interrupted_solve_game_says_which_layers_are_kept(tmp_path: Path):
    """"nothing saved" was printed although the finished layers were written (and resumed)."""
    # a 3 x 4 board: its middle layers take minutes, so the interrupt lands mid-run even on a
    # loaded machine (small.toml's last layers finish within a second of its first two)
    board = ROOT / "examples" / "boards" / "small-3x4.toml"
    folder = tmp_path / "ck"
    done = _interrupt_when(["solve-game", "--board", board, "--checkpoints", folder, "--jobs", "1",
                            "--max-states", "1000000"],
                           lambda: len(list(folder.glob("layer-*.json"))) >= 2)
    assert done.returncode == 130, done.stderr
    kept = len(list(folder.glob("layer-*.json")))
    assert 2 <= kept < 12
    assert done.stderr.splitlines() == [f"Interrupted by Ctrl-C (SIGINT): run stopped, {kept} finished layers of 12 "
                                        f"kept in {folder} (the same command resumes from them)."]


def test_interrupted_float_solve_says_which_layers_are_kept(tmp_path: Path):
    """The float path (solve-game --float) said "nothing saved" although its finished layers were
    written (and are resumed); a 4 x 5 board takes minutes, so the interrupt lands mid-run."""
    pytest.importorskip("numba")
    board = ROOT / "benchmarks" / "boards" / "medium-4x5.toml"
    folder = tmp_path / "ck"
    done = _interrupt_when(["solve-game", "--board", board, "--float", "--checkpoints", folder, "--jobs", "1"],
                           lambda: len(list(folder.glob("layer-*.json"))) >= 2)
    assert done.returncode == 130, done.stderr
    kept = len(list(folder.glob("layer-*.json")))
    assert 2 <= kept < 20
    assert done.stderr.splitlines()[-1] == (f"Interrupted by Ctrl-C (SIGINT): run stopped, {kept} finished layers of "
                                            f"20 kept in {folder} (the same command resumes from them).")


def test_interrupted_train_says_which_iterations_are_kept(tmp_path: Path):
    checkpoint = tmp_path / "p.checkpoint"

    def iterations() -> int:
        try:
            return len(json.loads(checkpoint.read_text())["iterations"])
        except (OSError, ValueError, KeyError):
            return 0

    done = _interrupt_when(["train", "--seed", "1", "--games", "10", "--iterations", "20", "--players", "1",
                            "--jobs", "1", "--output", tmp_path / "p.json", "--checkpoint", checkpoint],
                           lambda: iterations() >= 1)
    assert done.returncode == 130, done.stderr
    kept = iterations()
    assert 1 <= kept < 20
    word = "iteration" if kept == 1 else "iterations"
    assert done.stderr.splitlines()[-1] == (f"Interrupted by Ctrl-C (SIGINT): run stopped, {kept} finished {word} "
                                            f"of 20 kept in {checkpoint} (the same command resumes from them).")
    assert not (tmp_path / "p.json").exists()


# --- review --plot: never the reviewed file, the format by the suffix ------------------------


@pytest.fixture
def saved_games(tmp_path: Path) -> Path:
    path = tmp_path / "s.jsonl"
    assert cli("simulate", "--players", "win,greedy", "--games", "1", "--seed", "4", "--save", path).exit_code == 0
    return path


def test_plot_never_replaces_the_reviewed_file(saved_games: Path, tmp_path: Path):
    """`review GAME --plot GAME` (also through a symbolic or hard link) replaced the saved games
    with a PNG; an output the command also reads is refused before any work (docs/formats.md)."""
    before = saved_games.read_bytes()
    (tmp_path / "link.png").symlink_to(saved_games.name)
    os.link(saved_games, tmp_path / "hard.png")
    for plot in (saved_games, tmp_path / "link.png", tmp_path / "hard.png"):
        assert_one_line_error(cli("review", saved_games, "--plot", plot), "--plot", "also read by this command")
    assert_one_line_error(cli("review", tmp_path / "link.png", "--plot", saved_games), "also read")
    assert saved_games.read_bytes() == before


def test_plot_writes_the_format_its_suffix_names(saved_games: Path, tmp_path: Path, monkeypatch):
    """`--plot x.svg` / `x.pdf` wrote PNG bytes; `--plot -` wrote a file named '-'; any other
    suffix is refused in one line and nothing is written."""
    import xml.etree.ElementTree as ElementTree

    assert cli("review", saved_games, "--plot", tmp_path / "c.svg").exit_code == 0
    assert ElementTree.parse(tmp_path / "c.svg").getroot().tag == "{http://www.w3.org/2000/svg}svg"
    assert cli("review", saved_games, "--plot", tmp_path / "c.PDF").exit_code == 0
    assert (tmp_path / "c.PDF").read_bytes()[:5] == b"%PDF-"
    assert cli("review", saved_games, "--plot", tmp_path / "c.png").exit_code == 0
    assert (tmp_path / "c.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert cli("review", saved_games, "--plot", tmp_path / "d.svg").exit_code == 0
    assert (tmp_path / "d.svg").read_bytes() == (tmp_path / "c.svg").read_bytes()  # no date, fixed ids
    monkeypatch.chdir(tmp_path)
    assert_one_line_error(cli("review", saved_games, "--plot", "-"), "--plot", "standard output", ".png")
    for name in ("c.gif", "c", "c.png.txt"):
        assert_one_line_error(cli("review", saved_games, "--plot", name), "--plot", ".png, .svg or .pdf")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.PDF", "c.png", "c.svg", "d.svg", "s.jsonl"]


def test_plot_of_a_solitaire_game_says_it_needs_opponents(tmp_path: Path):
    """The refusal said "this review is in win units" of a solitaire game reviewed with win."""
    game = tmp_path / "solo.json"
    assert cli("play", "new", game, "--players", "me").exit_code == 0
    assert cli("play", "roll", game, "CCBJPP").exit_code == 0
    line = assert_one_line_error(cli("review", game, "--plot", tmp_path / "c.png"), "needs a game with opponents",
                                 "this game has no opponents")
    assert "win units" not in line and not (tmp_path / "c.png").exists()


def test_an_item_name_of_5000_digits_is_a_bad_item_name(tmp_path: Path):
    """`play mark GAME r<5000 nines>c1` (also --unchecked) crashed in int() ("Exceeds the limit
    (4300 digits)", exit 1); the item name's numbers are bounded, leading zeros aside (r01c01 is r1c1)."""
    from shelfie_solver.dice.board import load_board

    long = "9" * 5000
    game = _game(tmp_path)
    before = game.read_bytes()
    for args in (["--unchecked", f"r{long}c1"], ["--unchecked", f"r1c{long}"], ["--unchecked", "r1c1", f"r{long}c{long}"]):
        line = assert_one_line_error(cli("play", "mark", game, *args), "bad item name", "expected r<shelf>c<column>")
        assert len(line) < 300
    assert cli("play", "roll", game, "CCBJPP").exit_code == 0
    before = game.read_bytes()
    assert_one_line_error(cli("play", "mark", game, f"r{long}c1"), "bad item name")
    assert game.read_bytes() == before
    board = load_board(None)
    assert board.parse_cell("r01c02") == board.parse_cell("r1c2") == board.cell(0, 1)
    assert board.parse_cell("r" + "0" * 5000 + "1c1") == board.cell(0, 0)


# --- serve: bounded request bodies, answers always encodable, nothing written before the answer --


def _client(game: Path):
    pytest.importorskip("starlette")
    pytest.importorskip("httpx2")
    from starlette.testclient import TestClient

    from shelfie_solver.web.api import GameServer
    from shelfie_solver.web.app import create_app

    return TestClient(create_app(GameServer(str(game))), raise_server_exceptions=False)


def _one_line_json_error(response, status: int, *fragments: str) -> str:
    assert response.status_code == status, response.text
    message = response.json()["error"]
    assert "\n" not in message and "Traceback" not in response.text
    for fragment in fragments:
        assert fragment.lower() in message.lower(), message
    return message


def test_a_5000_digit_integer_in_a_request_body_is_a_400(tmp_path: Path):
    """Any JSON integer past int()'s 4300 digits answered 500 `internal error (ValueError)`."""
    game = _game(tmp_path)
    client = _client(game)
    before = game.read_bytes()
    json_type = {"content-type": "application/json"}
    for kind, body in (("roll", '{"revision": %s, "dice": "CCBJPP"}' % ("9" * 5000)),
                       ("fail", '{"revision": 1, "shelf": -%s}' % ("1" * 5000)),
                       ("new", '{"players": ["Ann"], "seed": %s}' % ("7" * 4301)),
                       ("undo", '{"revision": 1, "pad": [%s]}' % ("5" * 61))):
        _one_line_json_error(client.post(f"/api/{kind}", content=body, headers=json_type), 400,
                             "the request body", "digits")
    assert game.read_bytes() == before


def test_a_lone_surrogate_name_is_escaped_in_every_answer(tmp_path: Path):
    """`play new g.json --players $'A\\xff,Ben'` (the byte read as U+DCFF) or a hand-edited "\\ud800":
    /api/state, /api/review and every write answered 500 (UnicodeEncodeError), the writes applied."""
    made = subprocess.run([*CLI, "play", "new", str(tmp_path / "g.json"), "--players", b"A\xff,Ben", "--first", "Ben"],
                          capture_output=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert made.returncode == 0, made.stderr
    for game, name in ((tmp_path / "g.json", "A\udcff"), (_game(tmp_path, "\ud800"), "\ud800")):
        client = _client(game)
        state = client.get("/api/state")
        assert state.status_code == 200, state.text
        assert state.content.isascii() and json.dumps(name)[1:-1].encode() in state.content  # "\\udcff"
        assert client.get("/api/review").status_code == 200
        revision = state.json()["revision"]
        rolled = client.post("/api/roll", json={"revision": revision, "dice": "CCBJPP"})
        assert rolled.status_code == 200, rolled.text
        assert len(json.loads(game.read_text())["events"]) == revision + 1
        before = game.read_bytes()
        _one_line_json_error(client.post("/api/roll", json={"revision": revision + 1, "dice": "CCB"}), 400)
        assert game.read_bytes() == before


def test_a_writes_answer_is_made_before_the_file_is_written(tmp_path: Path, monkeypatch):
    """An error while making the answer of a write (after the action was applied in memory) leaves
    the file byte for byte: the page never sees 500 for an action that was recorded."""
    import shelfie_solver.web.api as api

    game = _game(tmp_path)
    client = _client(game)
    before = game.read_bytes()

    def unencodable(table, objective, done=None):
        return {"value": float("nan")}  # JSON cannot hold it (allow_nan=False)

    monkeypatch.setattr(api, "advice_json", unencodable)
    _one_line_json_error(client.post("/api/roll", json={"revision": 1, "dice": "CCBJPP"}), 500, "internal error")
    assert game.read_bytes() == before


# --- tile: no negative goal ids, shelf cells named 1-based ----------------------------------

FULL_SHELF = "PPTTP/PPTTF/GGBBF/GCCBB/GCCFF/PGBFP"


def test_a_negative_goal_id_is_refused(tmp_path: Path):
    """`--goals=-1` was read as goal 1 and `-8`, `T-CG-8` as 8 (hyphens read as spaces)."""
    for given in ("-1", "-8", "T-CG-8", "3,-8", " -12"):
        assert_one_line_error(cli("tile", "score", FULL_SHELF, f"--goals={given}"), "never negative", "1-12")
    # the corners of FULL_SHELF (r1c1, r1c5, r6c1, r6c5) are all P: T-CG8 (four corners) is met
    data = json.loads(cli("tile", "score", FULL_SHELF, "--goals", "T-CG8,four-corners,8", "--format", "json").stdout)
    assert data["goals"] == {"T-CG8": True}
    data = json.loads(cli("tile", "score", FULL_SHELF, "--goals", "1", "--format", "json").stdout)
    assert list(data["goals"]) == ["T-CG1"]


def test_a_floating_tile_is_named_1_based():
    """The message said `floating tile at (0,0)`, 0-based, where docs/tile.md names shelf cells
    r<row>c<column> from r1c1 (top left)."""
    assert_one_line_error(cli("tile", "score", "P..../...../...../...../...../P...."), "floating tile at r1c1 ")
    assert_one_line_error(cli("tile", "score", "...../...../...../..C../...../....."), "floating tile at r4c3 ")


# --- a parser's message shortened cleanly; NaN and Infinity refused in every JSON file ----------

TILE_POSITION = ROOT / "examples" / "tile" / "position.toml"


def _parenthesised(line: str, opening: str, closing: str) -> str:
    """The parser's message inside ``opening ... closing`` of a refusal line."""
    start = line.index(opening) + len(opening)
    return line[start:line.rindex(closing)]


def _balanced(text: str) -> bool:
    return text.count("'") % 2 == 0 and text.count('"') % 2 == 0 and text.count("(") == text.count(")")


def test_a_shortened_parser_message_leaves_no_stray_quote(tmp_path: Path):
    """A 5000-digit integer in a TOML file was refused with "(Exceeds the limit (4300 digits) for
    integer string conversio')": the parser's message quoted by repr, cut to 60 characters, and
    its first and last characters sliced off, the ellipsis and not the quote."""
    path = tmp_path / "big.toml"
    path.write_text(TILE_POSITION.read_text().replace("players = 2", "players = " + "9" * 5000))
    line = assert_one_line_error(cli("tile", "advise", path, "--samples", "0"),
                                 f"{path} is not valid TOML (Exceeds the limit (4300 digits)", "expected a file like")
    message = _parenthesised(line, "is not valid TOML (", "); expected")
    assert _balanced(message) and message.endswith("…") and "conversio'" not in line, line


@pytest.mark.parametrize("length", [30, 40, 55, 70, 100])
def test_a_parser_message_is_never_cut_inside_a_quote(length: int):
    """tomllib names a table declared twice as ``('aaa',)``: however long the name, the cut
    message keeps its quotes and parentheses paired (and a short one is given whole)."""
    from shelfie_solver.core.inputs import parse_toml

    name = "a" * length
    with pytest.raises(ShelfieError) as refused:
        parse_toml(f"[{name}]\n[{name}]\n", ShelfieError, "t.toml", "examples/tile/position.toml")
    line = str(refused.value)
    assert "\n" not in line and line.startswith("t.toml is not valid TOML (Cannot declare")
    message = _parenthesised(line, "is not valid TOML (", "); expected")
    assert _balanced(message) and len(message) <= 81, message
    if length == 30:  # 'Cannot declare (' + 30 + "',) twice (at line 2, column 32)": under 80, whole
        assert message == f"Cannot declare ('{name}',) twice (at line 2, column 32)"


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_are_refused_in_every_json_file(tmp_path: Path, constant: str):
    """Python's json reads NaN, Infinity and -Infinity, which JSON (RFC 8259) has not; no input
    file holds them (docs/formats.md: exact numbers are "p/q" strings). They got through the
    reader and were caught later by value checks, or not at all."""
    from shelfie_solver.core.inputs import parse_json

    expected = f"has {constant}, which is not a JSON number (JSON has no NaN or Infinity)"
    with pytest.raises(ShelfieError, match=r"^f\.json has .* expected one thing$"):
        parse_json(f'{{"a": [1, {constant}]}}', ShelfieError, "f.json", "one thing")
    assert parse_json(f'{{"a": "{constant}"}}', ShelfieError, "f.json", "one thing") == {"a": constant}
    # a tile position (tile advise)
    data = tomllib.loads(TILE_POSITION.read_text())
    position = tmp_path / "position.json"
    position.write_text(json.dumps(data).replace('"end_token": 0', f'"end_token": {constant}'))
    assert f'"end_token": {constant}' in position.read_text()
    assert_one_line_error(cli("tile", "advise", position, "--samples", "0"), f"{position} {expected}",
                          "expected a position like")
    # a learned-parameter file (advise --objective learned:)
    learned = _learned(tmp_path, 7)
    learned.write_text(learned.read_text().replace('"weights"', f'"note": {constant}, "weights"', 1))
    assert_one_line_error(cli("advise", "--dice", "CCBJPP", "--objective", f"learned:{learned}"),
                          f"{learned} {expected}", "expected a learned-parameter file")
    # a train checkpoint
    checkpoint = tmp_path / "p.checkpoint"
    checkpoint.write_text(f'{{"settings": {constant}}}')
    done = run("train", "--seed", "1", "--games", "1", "--iterations", "1", "--players", "1", "--jobs", "1",
               "--output", tmp_path / "p.json", "--checkpoint", checkpoint)
    assert_refused(done, "checkpoint", expected)


@pytest.mark.parametrize("name, text, line", [
    ("README.md", "# shelfie-solve\n\nThe strategy engine for My Shelfie. See docs/a.b.c.d.e.f.g.h.i.j.md.\n",
     "line 3: 'The strategy engine for My Shelfie."),
    ("game.json", '{"format": "shelfie-solve game 1", "players": ["Ann", "Ben"]}\n', "line 1: '{\"format\":"),
    ("notes.txt", "\n\n   shelves: 5\n", "line 3: 'shelves: 5'"),
])
def test_a_file_that_is_not_toml_is_named_so(tmp_path: Path, name: str, text: str, line: str):
    """A board (or ruleset) that does not begin like TOML (a table header or a key with '=') is
    named so, with its first line: a Markdown file given as a board was refused as 'a dotted key
    has more than 8 parts', which told its user nothing."""
    path = tmp_path / name
    path.write_text(text)
    assert_one_line_error(cli("advise", "--dice", "CCBJPP", "--board", path),
                          f"{path} is not a TOML file ({line}", "expected a file like")


@pytest.mark.parametrize("text", ["# a board\n\n[board]\n", "key = 1\n", "a.b = 1\n", '"quoted key" = 1\n',
                                  "'lit'.b = 1\n", "  [[faces]]\n", "\ufeff# bom\nx=1\n"])
def test_a_file_that_begins_like_toml_goes_to_the_parser(text: str):
    from shelfie_solver.core.inputs import _not_toml_line

    assert _not_toml_line(text) is None
