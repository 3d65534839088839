"""``--win-model FILE`` (cli/options.win_model_option, one option shared by ``advise``, ``play``,
``rollout`` and ``simulate``; docs/formats.md "Win-model file"): a bad file is refused in one
line (exit 2) before anything runs or is written, the option is refused where nothing reads the
chance to win, the shipped file given changes nothing, and another file gives exactly what that
file gives as the shipped model (the model's path swapped for the test: an independent route)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import EXAMPLES, assert_one_line_error
from shelfie_solver.cli import main
from shelfie_solver.dice.learned import win_model
from shelfie_solver.dice.learned.win_model import DEFAULT_WIN_PATH

OTHER = str(EXAMPLES / "win-own-play.json")  # the 2-player coefficients shipped until 2026-12-06
SHIPPED = str(DEFAULT_WIN_PATH)
EMPTY = "...../...../...../...../....."
MODEL_NOTE = "Win model: {} (--win-model)"


def _shipped_data() -> dict:
    return json.loads(DEFAULT_WIN_PATH.read_text(encoding="utf-8"))


def _bad_files(tmp: Path) -> list[tuple[str, str]]:
    """(name in ``tmp``, a fragment of its one line): missing, not JSON, another format, wrong features."""
    (tmp / "text.json").write_text("not json at all\n")
    other = _shipped_data()
    other["format"] = "shelfie-solve win 9"
    (tmp / "format.json").write_text(json.dumps(other))
    features = _shipped_data()
    features["features"] = ["bogus", *features["features"][1:]]
    (tmp / "features.json").write_text(json.dumps(features))
    return [("missing.json", "no such file"), ("text.json", "not valid JSON"),
            ("format.json", "not a win-model file"), ("features.json", '"features" must be')]


@pytest.fixture
def games(tmp_path):
    """A three-player game at its start and a two-player game after a roll (files of play)."""
    runner = CliRunner()
    three, two = str(tmp_path / "three.json"), str(tmp_path / "two.json")
    assert runner.invoke(main, ["play", "new", three, "--players", "Ann,Ben,Cy", "--first", "Ann"]).exit_code == 0
    assert runner.invoke(main, ["play", "new", two, "--players", "Ann,Ben", "--first", "Ann"]).exit_code == 0
    assert runner.invoke(main, ["play", "roll", two, "CCBJPP"]).exit_code == 0
    return three, two


def _commands(three: str, two: str) -> list[list[str]]:
    """One command line of every command that takes --win-model (the file appended)."""
    return [["advise", "--dice", "CCBJPP", "--opponent", EMPTY],
            ["play", "status", three], ["play", "advise", two], ["play", "roll", three, "CCBJPP"],
            ["rollout", two, "--games", "2", "--seed", "18201"],
            ["simulate", "--players", "win,learned", "--games", "1", "--seed", "18201"]]


def test_a_bad_file_is_refused_in_one_line_by_every_command(games, tmp_path, monkeypatch):
    three, two = games
    monkeypatch.chdir(tmp_path)  # short names: the line names the file whole
    before = Path(three).read_bytes()
    for command in _commands(three, two):
        for path, fragment in _bad_files(tmp_path):
            result = CliRunner().invoke(main, [*command, "--win-model", path])
            assert_one_line_error(result, "--win-model", path, fragment)
    assert Path(three).read_bytes() == before  # play roll wrote nothing


@pytest.mark.parametrize("command, fragment", [
    (["advise", "--dice", "CCBJPP"], "--opponent"),                                            # alone: no chance
    (["advise", "--dice", "CCBJPP", "--opponent", EMPTY, "--objective", "learned"], "win or win-model"),
    (["simulate", "--players", "learned,greedy", "--games", "1"], "2-4 players"),            # no win seat
    (["simulate", "--players", "win", "--games", "1"], "2-4 players"),                        # alone: learned
])
def test_the_option_is_refused_where_nothing_reads_it(command, fragment):
    result = CliRunner().invoke(main, [*command, "--win-model", SHIPPED])
    assert_one_line_error(result, "--win-model has no effect here", fragment)


def test_rollout_refuses_it_without_a_win_seat_or_win_advice(games):
    _, two = games
    result = CliRunner().invoke(main, ["rollout", two, "--policy", "learned", "--win-model", SHIPPED])
    assert_one_line_error(result, "--win-model has no effect here", "win, win-model, win-ply")


def _without_note(text: str, path: str) -> str | dict:
    """The output with the option's own words taken out: its note (wrapped), JSON's ``win_model``."""
    if text.startswith("{"):
        data = json.loads(text)
        data.pop("win_model", None)
        return data
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith(MODEL_NOTE.format(path)[:20])), None)
    if start is not None:
        end = start + 1
        while end < len(lines) and lines[end].startswith("  "):
            end += 1
        del lines[start:end]
    return "\n".join(lines)


@pytest.fixture
def shipped_is(monkeypatch):
    """Make a file the shipped model for one run (the route --win-model does not take)."""
    from shelfie_solver.dice.strategies import strategy_named

    def use(path: str) -> None:
        monkeypatch.setattr(win_model, "DEFAULT_WIN_PATH", Path(path))
        win_model.default_win_model.cache_clear()
        strategy_named.cache_clear()

    yield use
    monkeypatch.undo()
    win_model.default_win_model.cache_clear()
    strategy_named.cache_clear()


def _run(args: list[str]) -> str:
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    return result.stdout


def test_every_command_gives_the_files_figures(games, shipped_is):
    three, two = games
    commands = _commands(three, two)[:3] + [["rollout", two, "--games", "4", "--seed", "18202", "--policy", "random",
                                             "--top", "2", "--no-early-stop", "--format", "json"],
                                            ["simulate", "--players", "win,learned", "--games", "2", "--seed", "18203",
                                             "--format", "json"]]
    shipped = [_run(c) for c in commands]
    given_shipped = [_run([*c, "--win-model", SHIPPED]) for c in commands]
    given_other = [_run([*c, "--win-model", OTHER]) for c in commands]
    # the shipped file given: the same figures, the note aside (nothing changes by default)
    assert [_without_note(t, SHIPPED) for t in given_shipped] == [_without_note(t, "") for t in shipped]
    for command, text in zip(commands, given_other):
        assert (MODEL_NOTE.format(OTHER)[:20] in text) if "json" not in command else \
            json.loads(text)["win_model"] == OTHER, text
    shipped_is(OTHER)
    swapped = [_run(c) for c in commands]
    assert [_without_note(t, OTHER) for t in given_other] == [_without_note(t, "") for t in swapped]
    # and the other file's figures are not the shipped ones (the model is read, not ignored)
    assert [_without_note(t, OTHER) for t in given_other[:3]] != [_without_note(t, "") for t in shipped[:3]]


def test_the_session_names_the_option_it_does_not_take(games):
    """``play GAME --win-model FILE``: the interactive session keeps the shipped model
    (docs/play.md), so the one line names the option, not its value as a word after the game
    file ("unexpected 'w.json' after the game file")."""
    _, two = games
    result = CliRunner().invoke(main, ["play", two, "--win-model", SHIPPED], input="")
    line = assert_one_line_error(result, "--win-model")
    assert "after the game file" not in line
    result = CliRunner().invoke(main, ["play", two, "extra"], input="")  # a word after the file: as before
    assert_one_line_error(result, "unexpected 'extra' after the game file")


def test_json_names_the_file_in_every_command(games):
    """Every command's JSON under ``--win-model FILE`` has ``win_model``: the file as given (the
    table's note says it in words); without the option no such key."""
    three, two = games
    saved = {path: Path(path).read_bytes() for path in (three, two)}
    for command in _commands(three, two):
        given = json.loads(_run([*command, "--format", "json", "--win-model", OTHER]))
        for path, data in saved.items():  # play roll wrote its game: the next run starts from the same one
            Path(path).write_bytes(data)
        assert given["win_model"] == OTHER, command
        assert "win_model" not in json.loads(_run([*command, "--format", "json"])), command
        for path, data in saved.items():
            Path(path).write_bytes(data)
