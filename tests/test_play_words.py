"""`play WORD ...`: a step name, a mistyped step, `help`, or a game file (docs/play.md)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from shelfie_solver.cli import main

from conftest import assert_one_line_error


def play(*args: str):
    return CliRunner().invoke(main, ["play", *args])


@pytest.fixture
def game(tmp_path: Path) -> str:
    path = str(tmp_path / "game.json")
    assert play("new", path, "--players", "Ann,Ben", "--first", "Ann").exit_code == 0
    return path


def test_help_is_the_groups_help():
    result = play("help")
    assert result.exit_code == 0
    assert "play [OPTIONS] COMMAND" in result.stdout and "reroll" in result.stdout


@pytest.mark.parametrize("typo, step", [("rol", "roll"), ("Rol", "roll"), ("statsu", "status"), ("udno", "undo"),
                                        ("rerol", "reroll")])
def test_a_mistyped_step_is_named_with_the_closest_step(game: str, typo: str, step: str):
    text = assert_one_line_error(play(typo, game, "CCBJPP"), f"no such step or game file {typo!r}",
                                 f"did you mean {step!r}", "steps: advise, fail, mark, new")
    assert "cannot read" not in text  # 'session' is a step listed in play --help, among the steps named


def test_a_game_file_named_like_a_step_still_opens(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """An existing file is a game file even when its name is close to a step's."""
    monkeypatch.chdir(tmp_path)
    assert play("new", "rol", "--players", "Ann", "--first", "Ann").exit_code == 0
    result = CliRunner().invoke(main, ["play", "rol"], input="quit\n")
    assert result.exit_code == 0 and "Nothing changed in this session: rol was not written." in result.stdout


def test_a_missing_file_far_from_every_step_is_a_file_error(tmp_path: Path):
    path = str(tmp_path / "nowhere.json")  # the command to make it names the file (play new PATH)
    assert_one_line_error(play(path), "cannot read", f"play new {path}")


@pytest.mark.parametrize("words, fragment", [(["roll", "CCBJPP"], "as a step: play roll {g} CCBJPP"),
                                             (["extra"], "a step is: play STEP {g} ..."),
                                             (["--objective", "points", "extra"], "unexpected 'extra'")])
def test_words_after_the_game_file_point_to_the_steps(game: str, words: list[str], fragment: str):
    text = assert_one_line_error(play(game, *words), "after the game file", fragment.format(g=game), "steps: advise")
    assert "play session" not in text and "play --help')" in text and " GAME" not in text


def test_a_step_after_the_game_file_is_named_with_the_file_and_the_session_s_line(tmp_path: Path,
                                                                                monkeypatch: pytest.MonkeyPatch):
    """``play "x y.json" roll CCBJPP`` (the step's name after the file): the one line gives the
    step's command with the file named and quoted for the shell, and the session's form, the
    file alone and the line its prompt takes; never the placeholder ``GAME`` (it said
    ``'play roll GAME ...'``). ``new`` has no line at the session's prompt."""
    monkeypatch.chdir(tmp_path)
    assert play("new", "x y.json", "--players", "Ann,Ben").exit_code == 0
    text = assert_one_line_error(play("x y.json", "roll", "CCBJPP"), "unexpected 'roll' after the game file",
                                 "as a step: play roll 'x y.json' CCBJPP;",
                                 "the interactive session, play 'x y.json', then at its prompt: roll CCBJPP",
                                 "steps: advise")
    assert "GAME" not in text
    assert_one_line_error(play("x y.json", "fail", "--shelf", "2"), "play fail 'x y.json' --shelf 2;",
                          "at its prompt: fail --shelf 2")
    text = assert_one_line_error(play("x y.json", "new", "--players", "A B"), "play new 'x y.json' --players 'A B'")
    assert "prompt" not in text


def test_session_errors_and_help_name_play_not_session(game: str):
    text = assert_one_line_error(play(game, "--bogus"), "--bogus")
    assert "play session" not in text
    result = play(game, "--help")
    assert result.exit_code == 0 and "Usage: main play [OPTIONS] GAME" in result.stdout
    result = CliRunner().invoke(main, ["play", game, "--objective", "points"], input="quit\n")
    assert result.exit_code == 0, result.output


def test_turn_wording_reads_right_for_any_name(tmp_path: Path):
    """A player named "me" (docs/play.md's example): "me to play" and "me is to play, not Ann"
    (D5), never a possessive such as "me's turn"."""
    path = str(tmp_path / "me.json")
    started = play("new", path, "--players", "me,Ann", "--first", "me")
    assert started.exit_code == 0 and "Round 1, me to play: roll the 6 dice (D6)." in started.stdout
    rolled = play("roll", path, "CCBJPP")
    assert "Round 1, me to play: dice PPBCCJ" in rolled.stdout and "me's" not in rolled.stdout
    assert_one_line_error(play("roll", path, "--player", "Ann", "CCBJPP"), "me is to play, not Ann (D5")


def unwrapped(text: str) -> list[str]:
    """The lines of table output with the lines render wrapped at 80 columns (continued by two
    spaces, core.report.wrap_lines) joined again."""
    out: list[str] = []
    for line in text.splitlines():
        if line.startswith("  ") and out and out[-1]:
            out[-1] += " " + line.strip()
        else:
            out.append(line)
    return out


@pytest.mark.parametrize("players, header, words", [
    ("me,Ann", "value (1/1000)", "not points, but the change of a win-chance score"),
    ("me", "value (points)", "the change of the expected final score"),
])
def test_learned_value_says_what_it_is(tmp_path: Path, players, header, words):
    """play's objective learned (docs/train.md "The objective"): with opponents the value
    is a win-chance score in thousandths, alone a change of the expected final score in points; the
    table says which (column header, best hold, footer) and the JSON values are the same numbers.
    At the first roll every sheet is empty, so with opponents V(before) = 0 (gap 0) and every
    value lies within V's range, -1000 to +1000."""
    import json

    path = str(tmp_path / "game.json")
    assert play("new", path, "--players", players, "--first", "me").exit_code == 0
    table = play("roll", path, "CCBBPG", "--objective", "learned")
    assert table.exit_code == 0, table.output
    lines = unwrapped(table.stdout)
    assert header in next(line for line in lines if line.startswith("rank"))
    assert any(line.startswith("learned value (docs/train.md): " + words) for line in lines)
    best = next(line for line in lines if line.startswith("Best: keep"))
    assert ("thousandths" in best) == ("," in players) and "points this turn" in best
    data = json.loads(play("advise", path, "--format", "json", "--objective", "learned").stdout)
    assert data["objective"] == "learned"
    first = data["holds"][0]["value_float"]
    assert f"value {first:.4f} (" in best  # the exact fraction is in JSON (and the table's --exact column)
    if "," in players:
        assert all(-1000 <= h["value_float"] <= 1000 for h in data["holds"])


def _edited(tmp_path: Path, name: str, edit) -> str:
    """A game of Ann and Ben (Ben first, D5) after Ben's roll, its JSON changed by ``edit``."""
    import json

    path = str(tmp_path / name)
    assert play("new", path, "--players", "Ann,Ben", "--first", "Ben").exit_code == 0
    assert play("roll", path, "CCBJPP").exit_code == 0
    data = json.loads(Path(path).read_text())
    edit(data)
    Path(path).write_text(json.dumps(data))
    return path


def test_a_name_cut_in_a_refusal_says_so_and_how_long_it_is(tmp_path: Path):
    """A 5000-character name was quoted cut to 33 characters with no mark of the cut; now the
    32 characters a name may have (MAX_NAME_LENGTH), an ellipsis and the whole length."""
    path = _edited(tmp_path, "long.json", lambda d: d.update(players=["a" * 5000, "Ben"]))
    line = assert_one_line_error(play("status", path), "at most 32 characters")
    assert "got ['" + "a" * 32 + "'… (5,000 characters), 'Ben']" in line
    line = assert_one_line_error(play("new", str(tmp_path / "new.json"), "--players", "b" * 40 + ",Ann"))
    assert "got ['" + "b" * 32 + "'… (40 characters), 'Ann']" in line
    line = assert_one_line_error(play("new", str(tmp_path / "new.json"), "--players", "c" * 35 + " d,Ann"), "space")
    assert "'" + "c" * 32 + "'… (37 characters) has a space or a comma" in line


def test_an_event_of_the_wrong_seat_names_the_seat_not_an_index(tmp_path: Path):
    """A roll event by "player": 2 (0-based) in a two-seat game read "Ben is to play, not 2": a
    name beside a raw index. Now the seat in words: seat 3, which the game has not; and an
    existing seat out of turn by its name and seat (Ann, seat 1, while Ben is to play, D5)."""
    def roll_by(seat: int):
        return lambda d: d["events"][1].update(player=seat)

    line = assert_one_line_error(play("status", _edited(tmp_path, "two.json", roll_by(2))), "event 1 (roll)")
    assert 'Ben is to play, not seat 3 ("player": 2; the game has 2 seats, "player" 0 to 1) (D5' in line
    line = assert_one_line_error(play("status", _edited(tmp_path, "zero.json", roll_by(0))))
    assert "Ben is to play, not Ann (seat 1) (D5" in line
    line = assert_one_line_error(play("status", _edited(tmp_path, "minus.json", roll_by(-1))))
    assert 'Ben is to play, not "player": -1 (the game has 2 seats, "player" 0 to 1) (D5' in line


def test_a_new_game_on_a_directory_says_it_is_a_directory(tmp_path: Path):
    """play new on a folder said it "exists already" and to run play status on it (which
    refuses a folder); it is a directory, and a file path is expected."""
    line = assert_one_line_error(play("new", str(tmp_path), "--players", "a,b"), f"{tmp_path} is a directory",
                                 "expected the path of a new game file", str(tmp_path / "game.json"))
    assert "play status" not in line and "exists already" not in line
    assert list(tmp_path.iterdir()) == []
