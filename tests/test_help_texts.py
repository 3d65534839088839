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


def test_play_session_s_usage_names_the_step_and_play_game_s_the_form_typed(tmp_path):
    """'play session --help' read 'Usage: shelfie-solve play [OPTIONS] GAME' (the usage of the
    form 'play GAME', which runs the same command): run as 'play session', it names 'session'."""
    runner = CliRunner()
    session = runner.invoke(main, ["play", "session", "--help"], prog_name="shelfie-solve")
    assert session.exit_code == 0 and session.stdout.startswith("Usage: shelfie-solve play session [OPTIONS] GAME\n")
    game = str(tmp_path / "game.json")
    assert runner.invoke(main, ["play", "new", game, "--players", "Ann,Ben"]).exit_code == 0
    typed = runner.invoke(main, ["play", game, "--help"], prog_name="shelfie-solve")
    assert typed.exit_code == 0 and typed.stdout.startswith("Usage: shelfie-solve play [OPTIONS] GAME\n")
    assert typed.stdout.split("\n", 1)[1] == session.stdout.split("\n", 1)[1]  # the same command's help


def option_help(text: str, option: str) -> str:
    """The words of ``option``'s entry in a --help text (its wrapped lines joined)."""
    lines = text.split("Options:\n", 1)[1].splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip().startswith(option + " "))
    entry = [lines[start]] + [line for line in _continued(lines[start + 1:])]
    return " ".join(" ".join(entry).split())


def _continued(lines: list[str]) -> Iterator[str]:
    for line in lines:
        if line.strip().startswith("-"):
            return
        yield line


def takes_objective(words: tuple[str, ...]) -> bool:
    command: click.Command | None = main
    for word in words:
        assert isinstance(command, click.Group)
        command = command.get_command(click.Context(command), word)
    assert command is not None
    return any("--objective" in getattr(param, "opts", ()) for param in command.params)


PLAY_OBJECTIVE = [words for words in ALL if (words[0] == "play" or words == ("serve",)) and takes_objective(words)]


def test_the_play_steps_with_an_objective_are_found():
    assert {("play", "session"), ("play", "roll"), ("play", "mark"), ("serve",)} <= set(PLAY_OBJECTIVE)


@pytest.mark.parametrize("words", PLAY_OBJECTIVE, ids=" ".join)
def test_objective_is_described_alike_in_every_play_step_the_session_and_serve(words: tuple[str, ...]):
    """'play session --help' showed '--objective NAME [default: win]' with no description; every
    step explains it: 'What the advice maximises: strategic, ..., win, ... (docs/objectives.md).'"""
    entry = option_help(help_text(*words), "--objective")
    assert entry.startswith("--objective NAME What the advice maximises: ") and entry.endswith(
        "(docs/objectives.md). [default: win]"), entry
    assert " win, " in entry and " points, " in entry


def test_play_new_s_players_cite_d1_for_2_to_4_only():
    """RULES.md D1: 2-4 players; solitaire is this tool's extension. 'play new --help' said
    '1 to 4 (D1)'."""
    entry = option_help(help_text("play", "new"), "--players")
    assert "2 to 4 players (D1), or 1 for solitaire (this tool's extension)" in entry, entry
    assert "1 to 4" not in entry
