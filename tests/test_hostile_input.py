"""Hostile input to the newer commands (play, review, tile, solve-game): every file they read
goes through one bounded reader (inputs.read_json / read_text), so a FIFO, a device, a directory,
deep nesting (40,000 brackets) or a 5000-digit number is one line ``Error: ...`` and exit 2, never a hang, a
traceback or a changed game file. Each test names the input that broke before the fix."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from shelfie_solver.cli import main

from conftest import ROOT, assert_one_line_error

RUNNER = CliRunner()
POSITION = ROOT / "examples" / "tile" / "position.toml"
TINY_RULES = """name = "tiny"
dice = 3
rerolls = 1
scoring_threshold = 2
end_trigger_shelves = 2
faces = [{name = "plant", code = "P"}, {name = "book", code = "B"}]
"""
TINY_BOARD = """name = "tiny"
columns = [1, 2]
[[shelves]]
faces = ["plant"]
values = [1, 3]
[[shelves]]
faces = ["book"]
values = [2, 4]
"""


def cli(*args: str):
    return RUNNER.invoke(main, [str(a) for a in args])


@pytest.fixture
def game(tmp_path: Path) -> Path:
    path = tmp_path / "game.json"
    assert cli("play", "new", path, "--players", "Ann,Ben", "--first", "Ann").exit_code == 0
    return path


def nasty_json(tmp_path: Path) -> dict[str, Path]:
    """Files that broke the JSON readers: a FIFO (blocked for ever), /dev/zero (read until memory
    ran out), 40,000 nested brackets (RecursionError), a 5000-digit number (ValueError)."""
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 40_000 + "]" * 40_000)
    long = tmp_path / "long.json"
    long.write_text('{"format": "shelfie-solve game 1", "seed": ' + "9" * 5000 + "}")
    zero = tmp_path / "zero.json"
    zero.symlink_to("/dev/zero")
    return {"FIFO": fifo, "nested more than": deep, "more than 60 digits": long, "character device": zero}


def test_game_files_fifo_device_deep_long_number(tmp_path: Path):
    for fragment, path in nasty_json(tmp_path).items():
        for args in (["play", "status", path], ["play", "roll", path, "CCBJPP"], ["review", path],
                     ["tile", "advise", path]):
            if args[1] == "roll" and fragment in ("FIFO", "character device"):
                fragment_here = "cannot write"  # refused as a target before it is read
            else:
                fragment_here = fragment
            assert_one_line_error(cli(*args), fragment_here)


def test_value_table_and_checkpoint_fifo_deep(tmp_path: Path):
    (tmp_path / "b.toml").write_text(TINY_BOARD)
    (tmp_path / "r.toml").write_text(TINY_RULES)
    setup = ["--board", tmp_path / "b.toml", "--rules", tmp_path / "r.toml"]
    for fragment, path in nasty_json(tmp_path).items():
        assert_one_line_error(cli("advise", "--dice", "PBJ", *setup, "--objective", f"table:{path}"), fragment)
    folder = tmp_path / "ck"
    folder.mkdir()
    os.mkfifo(folder / "solve.json")
    assert_one_line_error(cli("solve-game", *setup, "--checkpoints", folder), "FIFO")


def test_bad_objective_leaves_the_game_file_unchanged(game: Path):
    """`play roll GAME DICE --objective nope` wrote the roll, then refused the objective."""
    before = game.read_bytes()
    assert_one_line_error(cli("play", "roll", game, "CCBJPP", "--objective", "nope"), "unknown objective")
    assert_one_line_error(cli("play", "roll", game, "CCBJPP", "--objective", "table:missing.json"), "missing.json")
    assert game.read_bytes() == before


def test_tile_score_shelf_file_is_read_bounded(tmp_path: Path):
    """A 5000-letter SHELF was `Error: cannot write to PPP...` with exit 1 (a name too long for
    Path.is_file); a FIFO or /dev/zero named as the shelf file is refused, a big file too."""
    assert_one_line_error(cli("tile", "score", "P" * 5000), "bad shelf")
    fifo = tmp_path / "shelf"
    os.mkfifo(fifo)
    assert_one_line_error(cli("tile", "score", fifo), "FIFO")
    zero = tmp_path / "zero"
    zero.symlink_to("/dev/zero")
    assert_one_line_error(cli("tile", "score", zero), "character device")
    big = tmp_path / "big.txt"
    big.write_text("P" * 200_000)
    assert_one_line_error(cli("tile", "score", big), "larger than")
    good = tmp_path / "shelf.txt"
    good.write_text("PPTTP\nPPTTF\nGGBBF\nGCCBB\nGCCFF\nPGBFP\n")
    assert cli("tile", "score", good).exit_code == 0
    assert_one_line_error(cli("tile", "score", "PPTTP/PPTTF/GGBBF/GCCBB/GCCFF/PGBFP", "--personal", "9" * 5000),
                          "…")


@pytest.fixture
def tiny_table(tmp_path: Path) -> tuple[list[object], Path]:
    (tmp_path / "b.toml").write_text(TINY_BOARD)
    (tmp_path / "r.toml").write_text(TINY_RULES)
    setup: list[object] = ["--board", tmp_path / "b.toml", "--rules", tmp_path / "r.toml"]
    table = tmp_path / "t.json"
    assert cli("solve-game", *setup, "--save", table).exit_code == 0
    return setup, table


def test_edited_value_table_is_refused(tiny_table, tmp_path: Path):
    """A table with one state renamed (right count, wrong state) or float values was accepted."""
    setup, table = tiny_table
    data = json.loads(table.read_text())
    keys = list(data["values"])
    swapped = dict(data["values"])
    del swapped[keys[0]]
    swapped["oo/oo"] = "1/2"  # a terminal sheet: not a state of the table
    edited = tmp_path / "swapped.json"
    edited.write_text(json.dumps({**data, "values": swapped}))
    assert_one_line_error(cli("advise", "--dice", "PBJ", *setup, "--objective", f"table:{edited}"),
                          "1 missing and 1 not expected")
    floats = tmp_path / "floats.json"
    floats.write_text(json.dumps({**data, "values": {k: 0.5 for k in keys}}))
    assert_one_line_error(cli("advise", "--dice", "PBJ", *setup, "--objective", f"table:{floats}"),
                          'not a string "p/q"')


def test_emptied_checkpoint_layer_is_refused(tmp_path: Path):
    """A layer checkpoint emptied by hand (`"values": {}`) was loaded: a wrong optimum, exit 0."""
    (tmp_path / "b.toml").write_text(TINY_BOARD)
    (tmp_path / "r.toml").write_text(TINY_RULES)
    setup = ["--board", tmp_path / "b.toml", "--rules", tmp_path / "r.toml"]
    folder = tmp_path / "ck"
    assert cli("solve-game", *setup, "--checkpoints", folder).exit_code == 0
    layer = folder / "layer-001.json"
    layer.write_text(json.dumps({**json.loads(layer.read_text()), "values": {}}))
    assert_one_line_error(cli("solve-game", *setup, "--checkpoints", folder), "missing")


def test_empty_checkpoint_name_writes_nothing(tmp_path: Path, monkeypatch):
    """`--checkpoints ''` wrote solve.json and the layers into the current directory."""
    (tmp_path / "b.toml").write_text(TINY_BOARD)
    (tmp_path / "r.toml").write_text(TINY_RULES)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    assert_one_line_error(cli("solve-game", "--board", tmp_path / "b.toml", "--rules", tmp_path / "r.toml",
                              "--checkpoints", ""), "empty name")
    assert list(work.iterdir()) == []


def test_size_estimate_of_a_small_board_is_not_a_gigabyte():
    """1,519 states were '1 GB of values' (the estimate was rounded up to whole gigabytes)."""
    line = assert_one_line_error(cli("solve-game", "--board", ROOT / "examples" / "boards" / "small.toml",
                                     "--max-states", "10"), "more than --max-states 10")
    assert "1 MB of values" in line


@pytest.mark.parametrize("stdin", ["/dev/zero", "long"])
def test_session_from_a_pipe_is_bounded(game: Path, tmp_path: Path, stdin: str):
    """`play GAME < /dev/zero` was a MemoryError traceback; a 100 MB line took over 20 s and
    500 MB. A line over 4096 bytes now ends the session in one line, exit 2, file unchanged."""
    if stdin == "long":
        source = tmp_path / "long.txt"
        source.write_text("C" * 1_000_000)
        stdin = str(source)
    before = game.read_bytes()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with open(stdin, "rb") as handle:
        done = subprocess.run([sys.executable, "-c", "from shelfie_solver.cli import main; main()", "play",
                               str(game)], stdin=handle, capture_output=True, env=env, timeout=60)
    assert done.returncode == 2
    assert done.stderr.decode().splitlines() == [
        "Error: an input line is longer than 4,096 bytes; expected one command per line (type 'help' in the session)"]
    assert game.read_bytes() == before


def test_session_from_a_pipe_takes_bad_bytes(game: Path):
    """Undecodable bytes from a pipe are one error line, and the session goes on."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", "from shelfie_solver.cli import main; main()", "play",
                           str(game)], input=b"\xff\xfe\nCCBJPP\nquit\n", capture_output=True, env=env, timeout=60)
    assert done.returncode == 0 and b"Traceback" not in done.stderr
    assert b"unknown command" in done.stdout or b"unknown face" in done.stdout
    assert b"Ann rolled PPBCCJ" in done.stdout


@pytest.mark.parametrize("edit, fragment", [
    (("goals = [7, 11]", "goals = [[7], [11]]"), "goals must list"),  # was TypeError: unhashable type
    (("end_token = 0", "end_tokn = 1"), "unknown key 'end_tokn'"),  # a typo was silently ignored
    (("taken = [0, 0]", "taken = [0, 0]\ncolour = 1"), "unknown [[shelf]] key 'colour'"),
])
def test_tile_position_wrong_shapes(tmp_path: Path, edit: tuple[str, str], fragment: str):
    text = POSITION.read_text()
    assert edit[0] in text
    path = tmp_path / "position.toml"
    path.write_text(text.replace(*edit, 1))
    assert_one_line_error(cli("tile", "advise", path, "--samples", "0"), fragment)


def test_review_threshold_and_objective(game: Path):
    """`--threshold 1e-99999` was a traceback (a 100,000-digit denominator cannot print);
    `1e999999999` would take minutes. A bad --objective on a game without decisions passed."""
    assert_one_line_error(cli("review", game, "--threshold", "1e-99999"), "not a number")
    assert_one_line_error(cli("review", game, "--threshold", "1e999999999"), "not a number")
    assert_one_line_error(cli("review", game, "--threshold", "1" * 61), "not a number")
    assert_one_line_error(cli("review", game, "--objective", "nope"), "unknown objective")
    assert cli("review", game, "--threshold", "1/3").exit_code == 0


def test_play_new_never_replaces_a_file_made_meanwhile(tmp_path: Path, monkeypatch):
    """Two `play new GAME` at once: both passed the exists check, and the second replaced the
    first's file. The file is now created with os.link, which fails when anything is there."""
    game = tmp_path / "game.json"
    game.write_text("another process's game")
    monkeypatch.setattr("shelfie_solver.dice.play.gamefile.os.path.lexists", lambda path: False)  # the race's window
    assert_one_line_error(cli("play", "new", game, "--players", "Ann"), "exists already")
    assert game.read_text() == "another process's game"
    assert [p.name for p in tmp_path.iterdir()] == ["game.json"]  # no temporary file left


def test_interrupted_parallel_run_stops_at_once():
    """Ctrl-C during `tile simulate --jobs 2` hung for the whole queue: leaving the pool's `with`
    block waited for every submitted chunk. The shared runner (parallel.run_tasks, under both
    simulate commands) cancels the queue and stops the workers: 20 queued 2-second calls end in
    well under 20 s."""
    import time

    from shelfie_solver.core.parallel import run_tasks

    def interrupt(_: object) -> None:
        raise KeyboardInterrupt

    start = time.perf_counter()
    with pytest.raises(KeyboardInterrupt):
        run_tasks(time.sleep, [(0.0,)] + [(2.0,)] * 20, jobs=2, consume=interrupt)
    assert time.perf_counter() - start < 8


def test_save_never_replaces_a_checkpoint_file(tmp_path: Path):
    """`--checkpoints ck --save ck/solve.json` replaced the manifest with the value table, and the
    next run called the directory another solve's."""
    (tmp_path / "b.toml").write_text(TINY_BOARD)
    (tmp_path / "r.toml").write_text(TINY_RULES)
    setup = ["--board", tmp_path / "b.toml", "--rules", tmp_path / "r.toml"]
    folder = tmp_path / "ck"
    assert cli("solve-game", *setup, "--checkpoints", folder).exit_code == 0
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    for name in ("solve.json", "layer-001.json"):
        assert_one_line_error(cli("solve-game", *setup, "--checkpoints", folder, "--save", folder / name),
                              "file of the --checkpoints directory")
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before
    assert cli("solve-game", *setup, "--checkpoints", folder, "--save", folder / "table.json").exit_code == 0


def test_game_file_beyond_the_engine_bounds_is_refused_unchanged(game: Path):
    """A hand-edited game file with `combinations_per_turn = 10**9` recorded the roll and then
    refused the advice (exit 2 with the file changed); it is now refused on reading, as
    `play new --rules` would refuse that ruleset (workload.check_work)."""
    data = json.loads(game.read_text())
    data["rules"]["combinations_per_turn"] = 10**9
    game.write_text(json.dumps(data))
    before = game.read_bytes()
    assert_one_line_error(cli("play", "roll", game, "CCBJPP"), "would need about")
    assert_one_line_error(cli("play", "status", game), "would need about")
    assert game.read_bytes() == before


def test_checkpoint_name_too_long(tmp_path: Path):
    """A 5000-character --checkpoints name was `Error: cannot write to aaaa...` (5000 characters)
    with exit 1, the output-failure path: the name-too-long OSError escaped the directory check."""
    (tmp_path / "b.toml").write_text(TINY_BOARD)
    (tmp_path / "r.toml").write_text(TINY_RULES)
    line = assert_one_line_error(cli("solve-game", "--board", tmp_path / "b.toml", "--rules", tmp_path / "r.toml",
                                      "--checkpoints", "a" * 5000), "cannot create the checkpoint directory")
    assert len(line) < 200


def test_error_line_of_a_huge_event_is_short(game: Path):
    """An event naming 100,000 items made a 500 KB error line; every error line is now cut to
    1000 characters (errors.error_line), and an event quoted in a message to 120."""
    data = json.loads(game.read_text())
    data["events"] += [{"event": "roll", "player": 0, "dice": "CCCCCC", "rerolls_left": 2},
                       {"event": "mark", "player": 0, "cells": ["r1c1"] * 100_000}]
    game.write_text(json.dumps(data))
    assert len(assert_one_line_error(cli("play", "status", game), "event 2")) < 1010
    data["events"][-1]["extra"] = 1
    game.write_text(json.dumps(data))
    assert len(assert_one_line_error(cli("play", "status", game), "needs the fields")) < 400


@pytest.mark.parametrize("edit, fragment", [
    (lambda d: d["events"][0].update(first=[]), "expected a whole number, got []"),  # was TypeError: int <= tuple
    (lambda d: d["events"][0].update(players=[2]), "expected a whole number, got [2]"),
    (lambda d: d.update(board=""), "expected a table"),  # was AttributeError: 'str' has no 'get'
    (lambda d: d.update(rules=[["x"]]), "expected a table"),  # was TypeError: unhashable type
])
def test_game_file_wrong_types_found_by_fuzzing(game: Path, edit, fragment: str):
    """Random edits of a game file (a list where a number belongs, a string for the board) gave
    tracebacks; each field is now checked against its event's type."""
    data = json.loads(game.read_text())
    edit(data)
    game.write_text(json.dumps(data))
    for command in (["play", "status"], ["review"]):
        assert_one_line_error(cli(*command, game), fragment)


def test_tile_shelf_that_is_neither_text_nor_a_file_says_both(tmp_path: Path):
    """`tile score missing.txt` said only 'bad shelf': the name is neither a shelf (a bad
    character) nor an existing file, and the message now names both, as the marks rule does."""
    result = cli("tile", "score", str(tmp_path / "missing.txt"))
    assert_one_line_error(result, "bad shelf")
    assert "no file" in result.stderr and "exists" in result.stderr


def test_an_apostrophe_in_a_message_is_no_quote() -> None:
    """core.errors.error_line (click's messages, ``quoted``): a long quoted value is still cut to
    60 characters, but the apostrophes of words ("the seat's own P") pair with nothing, so the
    words between two of them are kept whole (the form a refusal names, docs/formats.md)."""
    from shelfie_solver.core.errors import error_line

    words = "splits on the seat's own feature 0 with a left leaf 10 above a right leaf 5; expected trees " \
            "non-decreasing in the seat's own P"
    assert error_line(f"Invalid value for '--win-model': 'w.json': {words}", quoted=True).endswith(words)
    long_value = "v" * 70
    line = error_line(f"Invalid value for '--x': '{long_value}' is not it's form", quoted=True)
    assert line == f"Invalid value for '--x': '{'v' * 60}'… is not it's form"
