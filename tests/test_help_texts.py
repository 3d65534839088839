"""Every command's ``--help`` as a user reads it (CliRunner): no value leaked from the code
(``None``), each step's usage line naming the step, every option described."""

from __future__ import annotations

from collections.abc import Iterator

import click
import pytest
from click.testing import CliRunner

from shelfie_solver.cli import main


def commands(group: click.Group = main, path: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    """The words of every command and subcommand (``("play", "session")``), the groups too."""
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        yield (*path, name)
        if isinstance(command, click.Group):
            yield from commands(command, (*path, name))


def help_text(*words: str) -> str:
    result = CliRunner().invoke(main, [*words, "--help"])
    assert result.exit_code == 0, result.output
    return result.stdout


ALL = list(commands())


def test_every_command_is_walked():
    assert {("review",), ("serve",), ("play",), ("play", "session"), ("play", "new"), ("tile", "advise")} <= set(ALL)


@pytest.mark.parametrize("words", ALL, ids=" ".join)
def test_no_help_shows_none(words: tuple[str, ...]):
    """'review --help' showed '--game N ... [default: 1; x<=None]': a whole number without bounds
    described by click's IntRange as x<=None. No help text shows a None."""
    text = help_text(*words)
    assert "None" not in text, [line for line in text.splitlines() if "None" in line]


def test_review_s_game_shows_its_default_only():
    """review --game: the default 1 and no bound (0 or below is refused by the review itself,
    naming how games are counted: tests/test_review.py)."""
    text = " ".join(help_text("review").split())
    assert 'saved as "game": 0. [default: 1] ' in text
