"""docs/play.md "A complete game (real transcript)" is what the commands print today.

The transcript is the documentation a new user follows; its figures are checked by hand in the
page's prose (the scores, D19) and by tests/test_play.py. This test replays every ``$`` command of
the block in a fresh folder and compares the output line for line, so a change of wording shows
up here rather than in front of a reader.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from click.testing import CliRunner

from shelfie_solver.cli import main

DOC = Path(__file__).resolve().parent.parent / "docs" / "play.md"


def transcript() -> list[tuple[str, str]]:
    """The (command, output) pairs of the page's transcript block, in order."""
    text = DOC.read_text(encoding="utf-8").split("## A complete game (real transcript)", 1)[1]
    block = text.split("```text\n", 1)[1].split("\n```", 1)[0]
    pairs = []
    for part in re.split(r"(?m)^\$ ", block)[1:]:
        command, _, output = part.partition("\n")
        pairs.append((command, output.rstrip("\n")))
    return pairs


def test_the_transcript_has_the_game_of_the_prose():
    commands = [command for command, _ in transcript()]
    assert commands[0].startswith("shelfie-solve play new game.json --players Ann,Ben,me")
    assert len(commands) >= 15 and all(c.startswith("shelfie-solve ") for c in commands)


def test_the_transcript_replays(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    for command, expected in transcript():
        args = shlex.split(command)[1:]
        result = runner.invoke(main, args)
        assert result.exception is None or isinstance(result.exception, SystemExit), command
        assert result.output.rstrip("\n") == expected, command
