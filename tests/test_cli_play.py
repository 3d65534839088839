"""``shelfie-solve play`` bad input through CliRunner (one line, exit 2, the game file kept)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from shelfie_solver.cli import main

from conftest import assert_one_line_error


@pytest.mark.parametrize("objective, fragment", [("nope", "unknown objective"), ("learned:", "no parameter file"),
                                                  ("learned:missing.json", "missing.json"),
                                                  ("table:missing.json", "missing.json")])
def test_advise_refuses_a_bad_objective_before_the_first_roll(objective, fragment, tmp_path):
    """Before anyone has rolled, 'play advise' shows no advice, and a bad --objective was
    accepted silently (exit 0); it is refused as after a roll."""
    game = tmp_path / "game.json"
    assert CliRunner().invoke(main, ["play", "new", str(game), "--players", "Ann,Ben", "--first", "Ann"]).exit_code == 0
    before = game.read_bytes()
    assert_one_line_error(CliRunner().invoke(main, ["play", "advise", str(game), "--objective", objective]), fragment)
    assert game.read_bytes() == before
    assert CliRunner().invoke(main, ["play", "advise", str(game), "--objective", "learned"]).exit_code == 0


@pytest.mark.parametrize("names", ["A\x1b[31mB,Ben", "Ann," + "W" * 33, "Ann,\x07bell", "Ann,B\u200bx\x00"])
def test_new_refuses_control_characters_and_overlong_names(names, tmp_path):
    """'play new' takes names as labels at the table: printable, at most 32 characters; a name
    with an escape sequence or 33 characters is refused and no file is written."""
    game = tmp_path / "game.json"
    line = assert_one_line_error(CliRunner().invoke(main, ["play", "new", str(game), "--players", names]),
                                 "printable", "32 characters")
    assert "\x1b" not in line and "\x07" not in line and not game.exists()


def test_new_takes_32_characters_and_wide_names(tmp_path):
    """The bound itself (32 characters) and names in other scripts are accepted."""
    game = tmp_path / "game.json"
    result = CliRunner().invoke(main, ["play", "new", str(game), "--players", "W" * 32 + ",Çé,日本語名前", "--first", "Çé"])
    assert result.exit_code == 0, result.output
