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
