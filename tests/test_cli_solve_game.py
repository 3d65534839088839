"""``shelfie-solve solve-game`` bad input through CliRunner (one line, exit 2, nothing written)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from shelfie_solver.cli import main

from conftest import EXAMPLES, assert_one_line_error


@pytest.mark.parametrize("which", ["--board", "--rules"])
def test_save_is_not_the_board_or_rules_file(which, tmp_path):
    """--save naming the --board or --rules file read would replace it with the value table."""
    board = tmp_path / "board.toml"
    board.write_bytes((EXAMPLES / "boards" / "small.toml").read_bytes())
    rules = tmp_path / "rules.toml"
    rules.write_text("rerolls = 2\n")
    before = board.read_bytes(), rules.read_bytes()
    target = board if which == "--board" else rules
    for save in (str(target), str(tmp_path / "." / target.name)):
        result = CliRunner().invoke(main, ["solve-game", "--board", str(board), "--rules", str(rules), "--save", save])
        assert_one_line_error(result, "--save", "also read")
    assert (board.read_bytes(), rules.read_bytes()) == before


@pytest.mark.parametrize("given, named, not_named", [
    (["--players", "2", "--jobs", "2"], "drop --jobs", ["--float", "--report", "--scheduler", "--dtype"]),
    (["--players", "2", "--float", "--dtype", "float32"], "drop --float and --dtype", ["--jobs", "--report"]),
    (["--report", "--max-states", "9", "--save", "t.json"], "drop --save and --max-states", ["--float", "--dtype"]),
])
def test_a_refusal_drops_only_the_options_given(given, named, not_named):
    """'--players 2 --jobs 2' was told to drop --float, --report, --jobs, --scheduler and --dtype,
    four of them never given: the refusal names the options given."""
    result = CliRunner().invoke(main, ["solve-game", "--board", str(EXAMPLES / "boards" / "tiny-2x3.toml"), *given])
    line = assert_one_line_error(result, named)
    assert not any(option in line for option in not_named), line


def test_two_players_take_jobs_1(tmp_path):
    """``--jobs 1`` is one process, which is how the two-player game is solved: accepted (a new
    user's ``solve-game --players 2 --save t2.json --jobs 1`` was told to drop it), the same table
    as without it."""
    board = str(EXAMPLES / "boards" / "tiny-2x3.toml")
    outputs = []
    for extra in ([], ["--jobs", "1"]):
        result = CliRunner().invoke(main, ["solve-game", "--board", board, "--players", "2", "--format", "json", *extra])
        assert result.exit_code == 0, result.output
        outputs.append(json.loads(result.output)["first_player_win_chance"])
    assert outputs[0] == outputs[1]
