"""The interactive ``shelfie-solve play GAME`` session through a real pseudo-terminal (pexpect):
the hand-worked game of test_play.py typed at the prompt, with undo, a failed result (D13),
blocking (D15), the end trigger (D17), a bad line, Ctrl-C and end of input."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pexpect
import pytest

from shelfie_solver.dice.play.gamefile import read_kept_game as read_table

from conftest import ROOT

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")


def spawn(game: str, *options: str) -> pexpect.spawn:
    # pexpect's pseudo-terminal answers no cursor position request (CPR), which prompt_toolkit
    # would wait for and warn about; a real terminal answers it
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200", "TERM": "xterm", "PROMPT_TOOLKIT_NO_CPR": "1"}
    child = pexpect.spawn(sys.executable, ["-c", "from shelfie_solver.cli import main; main()", "play", game, *options],
                          env=env, encoding="utf-8", timeout=120, dimensions=(50, 200))
    return child


def say(child: pexpect.spawn, line: str, *expect: str) -> None:
    child.sendline(line)
    for text in expect:
        child.expect_exact(text)


def interrupt(child: pexpect.spawn) -> None:
    """Ctrl-C at the prompt. A SIGINT that lands after the prompt is written but before the
    read starts is only seen at the next input (Python handles signals between bytecodes), as
    a person pressing Ctrl-C twice would find; so press it again if nothing happens."""
    for _ in range(5):
        time.sleep(0.2)
        child.sendintr()
        if child.expect_exact(["Interrupted", pexpect.TIMEOUT], timeout=10) == 0:  # generous: a loaded CI
            return
    raise AssertionError(f"Ctrl-C did not end the session; it last printed {str(child.before)[-300:]!r}")


def test_interactive_game(tmp_path: Path):
    from click.testing import CliRunner

    from shelfie_solver.cli import main

    game = str(tmp_path / "game.json")
    assert CliRunner().invoke(main, ["play", "new", game, "--players", "Ann,Ben,me", "--first", "Ann"]).exit_code == 0
    child = spawn(game)
    child.expect_exact("Ann roll>")
    say(child, "help", "undo [N]", "Ann roll>")
    say(child, "CCBBPG", "Best: keep", "Ann PGBBCC/2>")
    say(child, "keep CCBB CP", "Ann kept BBCC and re-rolled 2 dice: PBBCCC (1 re-roll left)", "Ann PBBCCC/1>")
    say(child, "mark r1c1 r1c2 r2c2", "Ann marked r1c1 r1c2 r2c2", "Ben roll>")
    say(child, "told r3c1 r3c2 r3c3", "Ben marked r3c1 r3c2 r3c3 (told, unchecked).", "me roll>")
    say(child, "AAGGGP", "me PGGGAA/2>")
    say(child, "mark r5c2 r4c3", "me marked r4c3 r5c2", "Ann roll>")
    say(child, "undo", "Undone", "me PGGGAA/2>")
    say(child, "mark r5c2 r4c3 r3c1", "me marked r3c1 r4c3 r5c2", "Ann roll>")
    say(child, "status", "Ben: 7 points", "Ann roll>")
    say(child, "told r1c3 r1c4 r1c5", "Ann completed shelf 1: Ben loses r1c1 r1c2 r1c3 r1c4 r1c5,", "(blocked)",
        "End near: Ann, Ben and me have 1 closed shelf each", "Ben roll>")
    say(child, "CCCCCC", "Ben CCCCCC/2>")
    say(child, "mark r1c1", "Error:", "Ben CCCCCC/2>")
    say(child, "fail 2", "Ben gave up shelf 2 (failed result)", "End triggered: Ben closed enough shelves",
        "Last round: 0 more turns after this one", "me roll>")
    say(child, "PPPPPP", "me PPPPPP/2>")
    interrupt(child)  # Ctrl-C at the prompt: the file holds every action so far
    child.expect(pexpect.EOF)
    table = read_table(game)
    assert table.over is None and table.active_name == "me" and table.rerolls_left == 2
    assert table.state.end_triggered
    child = spawn(game)
    child.expect_exact("me PPPPPP/2>")
    say(child, "mark r3c2 r3c3", "Game over after 2 rounds: Ann wins with 25 points (Ben 7, me 7).", "game over>")
    child.sendeof()  # end of input leaves the finished game as it is
    child.expect(pexpect.EOF)
    data = json.loads(Path(game).read_text())
    assert data["events"][-1]["event"] == "over" and data["events"][-1]["scores"] == [25, 7, 7]


def test_hostile_lines_change_nothing(tmp_path: Path):
    """Garbage at the prompt (an unterminated quote, control characters, a 3000-character
    value, bad counts) is one short error line each, the session goes on and the file stays
    byte for byte as it was; end of input leaves it."""
    from click.testing import CliRunner

    from shelfie_solver.cli import main

    game = tmp_path / "game.json"
    assert CliRunner().invoke(main, ["play", "new", str(game), "--players", "Ann,Ben", "--first", "Ann"]).exit_code == 0
    before = game.read_bytes()
    child = spawn(str(game))
    child.expect_exact("Ann roll>")
    for line in ["'unterminated", "\x01\x1b[A", "keep", "mark", "fail 1 2", "undo x", "told r1c1 r1c1",
                 "told " + "r1c1" * 750, "fail " + "9" * 3000]:
        child.sendline(line)
        child.expect(r"Error: ([^\r\n]*)\r?\n")
        assert len(child.match.group(1)) < 300, child.match.group(1)  # long values are cut (errors.error_line)
        child.expect_exact("Ann roll>")
    child.sendeof()
    child.expect(pexpect.EOF)
    assert "Traceback" not in (child.before or "")
    assert game.read_bytes() == before


def test_words_after_a_command_that_takes_none_are_refused_not_ignored(tmp_path: Path):
    """A new user typed 'undo 1 junk' (undid 1), 'undo 2 3' (undid 2), 'status foo': the step
    commands refuse extra words, so the prompt does too: one error line each, and the file (one
    roll recorded, which any undo would take back) stays byte for byte as it was."""
    from click.testing import CliRunner

    from shelfie_solver.cli import main

    game = tmp_path / "game.json"
    for args in (["new", str(game), "--players", "Ann,Ben", "--first", "Ann"], ["roll", str(game), "CCBJPP"]):
        assert CliRunner().invoke(main, ["play", *args]).exit_code == 0
    before = game.read_bytes()
    child = spawn(str(game))
    child.expect_exact("Ann PPBCCJ/2>")
    for line in ["undo 1 junk", "undo 2 3", "undo \u0661", "status foo", "advise bar", "stop now", "help me"]:
        child.sendline(line)
        child.expect(r"Error: ([^\r\n]*)\r?\n")
        assert "expected" in child.match.group(1), child.match.group(1)
        child.expect_exact("Ann PPBCCJ/2>")
    child.sendeof()
    child.expect(pexpect.EOF)
    assert game.read_bytes() == before


def test_the_prompt_s_refusals_name_what_to_type_in_its_own_words(tmp_path: Path):
    """The refusals whose step commands now name the next command say it at the prompt in the
    prompt's words, never a `play ... GAME` command: a marking told ('told', or the step's
    'mark --unchecked') while dice are recorded gives 'mark ITEMS' with the items typed; 'fail'
    alone with dice that can mark says a failed result may not be chosen (D14); with dice that
    mark nothing (PPPPPP on the tiny 2 x 3 board of games and cats) it names the shelves, 1 and 2
    (D13), and 'fail N' or 'fail best'; 'undo 0' says undo needs 1 or more actions and gives
    'undo N'. Each is one error line, and the file stays byte for byte as it was."""
    from click.testing import CliRunner

    from shelfie_solver.cli import main

    game = tmp_path / "game.json"
    for args in (["new", str(game), "--players", "Ann,Ben", "--first", "Ann"], ["roll", str(game), "CCBBPG"]):
        assert CliRunner().invoke(main, ["play", *args]).exit_code == 0
    tiny = tmp_path / "tiny.json"
    board = str(ROOT / "examples" / "boards" / "tiny-2x3.toml")
    for args in (["new", str(tiny), "--players", "Ann,Ben,Cy", "--first", "Ann", "--board", board],
                 ["roll", str(tiny), "PPPPPP"]):
        assert CliRunner().invoke(main, ["play", *args]).exit_code == 0
    answers = {}
    for path, prompt, lines in ((game, "Ann PGBBCC/2>", ["told r1c1 r2c2", "mark --unchecked r1c1", "fail", "undo 0"]),
                                (tiny, "Ann PPPPPP/2>", ["fail", "told r1c1"])):
        before = path.read_bytes()
        child = spawn(str(path))
        child.expect_exact(prompt)
        for line in lines:
            child.sendline(line)
            child.expect(r"Error: ([^\r\n]*)\r?\n")
            answers[path.stem, line] = child.match.group(1)
            child.expect_exact(prompt)
        child.sendeof()
        child.expect(pexpect.EOF)
        assert path.read_bytes() == before
    assert answers["game", "told r1c1 r2c2"] == "the dice PGBBCC are recorded: mark with them (checked): type 'mark " \
        "r1c1 r2c2'"
    assert answers["game", "mark --unchecked r1c1"].endswith("type 'mark r1c1'")
    assert answers["game", "fail"].startswith("no shelf given, and none may be: PGBBCC can mark an item, so it must")
    assert answers["game", "undo 0"] == "undo needs a count of 1 or more actions, not 0; expected 'undo N', e.g. " \
        "'undo' (the last action) or 'undo 2' (the last two)"
    assert answers["tiny", "fail"].endswith("here one of shelves 1, 2; give one up ('fail N', or 'fail best' for the "
                                            "advised one)")
    assert "nothing can be marked with PPPPPP" in answers["tiny", "told r1c1"]
    assert not any("play " in answer or "--" in answer for answer in answers.values()), answers


def test_bad_objective_is_refused_before_the_prompt(tmp_path: Path):
    from click.testing import CliRunner

    from shelfie_solver.cli import main

    game = tmp_path / "game.json"
    assert CliRunner().invoke(main, ["play", "new", str(game), "--players", "Ann"]).exit_code == 0
    result = CliRunner().invoke(main, ["play", str(game), "--objective", "nope"])
    assert result.exit_code == 2 and result.stderr.startswith("Error: unknown objective 'nope'")


def test_an_unknown_word_at_the_roll_step_is_neither_command_nor_dice(tmp_path: Path):
    """At the roll step any line may be dice (D6), so a mistyped command is reported as both;
    mistyped dice (a wrong count, a bad code among codes) keep the dice message."""
    from click.testing import CliRunner

    from shelfie_solver.cli import main

    game = str(tmp_path / "game.json")
    assert CliRunner().invoke(main, ["play", "new", game, "--players", "Ann,Ben", "--first", "Ann"]).exit_code == 0
    before = Path(game).read_bytes()
    child = spawn(game)
    child.expect_exact("Ann roll>")
    say(child, "stauts", "Error: 'stauts' is neither a command nor dice; did you mean 'status'?", "Ann roll>")
    say(child, "xyzzy", "Error: 'xyzzy' is neither a command (help lists them) nor dice: unknown face 'xyzzy'",
        "Ann roll>")  # close to no command word: why it is not dice
    say(child, "CCBJP", "Error: got 5 dice", "Ann roll>")
    assert Path(game).read_bytes() == before
    say(child, "CCBJPP", "Ann rolled", "/2>")
    child.sendline("quit")
    child.expect(pexpect.EOF)


def test_a_bad_face_after_a_re_roll_says_what_the_roll_prompt_says(tmp_path: Path):
    """After a re-roll (D7) as at the roll (D6): a word of dice with a bad code is "neither a
    command nor dice" with the face named, as typed (not lower-cased), and nothing is saved."""
    from click.testing import CliRunner

    from shelfie_solver.cli import main

    game = str(tmp_path / "game.json")
    assert CliRunner().invoke(main, ["play", "new", game, "--players", "Ann,Ben", "--first", "Ann"]).exit_code == 0
    child = spawn(game)
    child.expect_exact("Ann roll>")
    say(child, "CCBJPX", "Error: 'CCBJPX' is neither a command (help lists them) nor dice: unknown face", "'X'",
        "Ann roll>")
    say(child, "CCBJPP", "Ann rolled", "Ann PPBCCJ/2>")
    before = Path(game).read_bytes()
    say(child, "PPPBBX", "Error: 'PPPBBX' is neither a command (help lists them) nor dice: unknown face", "'X'",
        "Ann PPBCCJ/2>")
    assert Path(game).read_bytes() == before
    child.sendline("quit")
    child.expect(pexpect.EOF)


def test_session_names_the_sheet_without_a_possessive(tmp_path: Path):
    """The session reads right for a player named "me": "me to roll", "me rolled", no "me's"
    anywhere; with --verbose every table in full: "Sheet of me (0 points):", "Round 1, me to
    play" with the rule ids, and the advice's legend."""
    from click.testing import CliRunner

    from shelfie_solver.cli import main

    game = str(tmp_path / "game.json")
    assert CliRunner().invoke(main, ["play", "new", game, "--players", "me,Ann", "--first", "me"]).exit_code == 0
    child = spawn(game)
    child.expect_exact("me to roll: type the 6 dice")
    child.expect_exact("me roll>")
    say(child, "CCBJPP", "me rolled PPBCCJ (2 re-rolls left).", "chance to win", "me PPBCCJ/2>")
    assert "me's" not in (child.before or "")
    child.sendline("quit")
    child.expect(pexpect.EOF)
    child = spawn(game, "--verbose")
    child.expect_exact("Sheet of me (0 points):")
    child.expect_exact("Round 1, me to play: dice PPBCCJ, 2 re-rolls left")
    child.expect_exact("me PPBCCJ/2>")
    assert "me's" not in (child.before or "")
    say(child, "keep PP", "Holding PP (D7)", "me PPBCCJ/2 keep PP>")
    say(child, "GGGG", "me kept PP and re-rolled 4 dice (D7).", "Sheet of me (0 points):",
        "chance to win", "win chance",  # play's objective: the chance to win (D20), in percent
        "win chance: your chance to win", "me PPGGGG/1>")
    assert "me's" not in (child.before or "")
    child.sendline("quit")
    child.expect(pexpect.EOF)


@pytest.mark.parametrize("options", [[], ["--verbose"]])
def test_mark_best_at_the_prompt_notes_the_advice_was_to_reroll(tmp_path: Path, options: list[str]):
    """'mark best' typed with re-rolls left after PPPPPG under the objective points: the advice is
    to re-roll (tests/test_play.py::test_mark_best_with_rerolls_left_tells_the_advice_was_to_reroll
    works the values out: re-rolling is worth at least 35/9 points, marking now 0), so the
    session prints the very note line 'play mark --best' prints on the same game (one home:
    report.best_mark_note), in the screen and with --verbose."""
    from click.testing import CliRunner

    from shelfie_solver.cli import main

    runner = CliRunner()
    twin, game = str(tmp_path / "twin.json"), str(tmp_path / "game.json")
    for path in (twin, game):
        assert runner.invoke(main, ["play", "new", path, "--players", "Ann,me", "--first", "me"]).exit_code == 0
    assert runner.invoke(main, ["play", "roll", twin, "PPPPPG", "--objective", "points"]).exit_code == 0
    stepped = runner.invoke(main, ["play", "mark", twin, "--best", "--objective", "points"]).output
    note = next(line for line in stepped.splitlines() if line.startswith("note: "))
    assert note.startswith("note: the advice was to re-roll (") and note.endswith("; marking now: 0.0000")

    child = spawn(game, "--objective", "points", *options)
    child.expect_exact("me roll>")
    say(child, "PPPPPG", "PPPPPG/2>")
    child.sendline("mark best")
    child.expect_exact("Ann roll>")
    shown = [line.rstrip("\r") for line in child.before.split("\n")]
    assert note in shown, shown
    stopped = next(i for i, line in enumerate(shown) if "stopped with PPPPPG" in line)
    assert shown.index(note) == stopped + 1  # right after the stop the marking made, as 'play mark --best'
    assert any("marked r3c1 r3c2" in line for line in shown)
    say(child, "quit", "Every action is saved in")
    child.expect(pexpect.EOF)
    assert read_table(game).events == read_table(twin).events


# --- leaving says what is true of the file ------------------------------------------------------


def _invoke(*args: str, given: str | None = None):
    from click.testing import CliRunner

    from shelfie_solver.cli import main

    return CliRunner().invoke(main, list(args), input=given)


def _new_game_file(tmp_path: Path) -> str:
    game = str(tmp_path / "quit.json")
    assert _invoke("play", "new", game, "--players", "Ann,Ben", "--first", "Ann").exit_code == 0
    return game


@pytest.mark.parametrize("ending", ["quit\n", "exit\n", ""])  # "": end of input (Ctrl-D)
def test_leaving_without_a_change_says_nothing_was_written(tmp_path: Path, ending: str):
    """Only reading commands typed: the file is byte for byte as it was, and leaving says so
    (it said "Saved in GAME." whatever was typed)."""
    game = _new_game_file(tmp_path)
    before = Path(game).read_bytes()
    result = _invoke("play", game, given="status\nhelp\n" + ending)
    assert result.exit_code == 0, result.output
    assert Path(game).read_bytes() == before
    flat = " ".join(result.stdout.split())
    assert flat.endswith(f"Nothing changed in this session: {game} was not written."), flat[-300:]
    assert "Saved in" not in flat


def test_leaving_after_an_action_says_every_action_is_saved(tmp_path: Path):
    """A roll typed (D6): the file holds it, written when it was typed."""
    game = _new_game_file(tmp_path)
    result = _invoke("play", game, given="CCBJPP\nquit\n")
    assert result.exit_code == 0, result.output
    assert read_table(game).dice is not None
    assert " ".join(result.stdout.split()).endswith(f"Every action is saved in {game}.")


def test_an_undo_back_to_the_start_was_still_written(tmp_path: Path):
    """A roll and its undo: the file was written twice (the game is as it began, the session wrote it)."""
    game = _new_game_file(tmp_path)
    result = _invoke("play", game, given="CCBJPP\nundo\nquit\n")
    assert result.exit_code == 0, result.output
    assert read_table(game).dice is None
    assert " ".join(result.stdout.split()).endswith(f"Every action is saved in {game}.")


def test_leaving_with_a_hold_typed_says_the_hold_is_not_saved(tmp_path: Path):
    """'keep CC' typed before the new dice (a hold the session remembers, not the file): the roll
    is saved, the hold is not, and leaving says so."""
    game = _new_game_file(tmp_path)
    result = _invoke("play", game, given="CCBJPP\nkeep CC\nquit\n")
    assert result.exit_code == 0, result.output
    assert read_table(game).rerolls_left == 2  # the roll alone: no hold recorded (D7)
    assert " ".join(result.stdout.split()).endswith(
        f"Every action is saved in {game}; the hold keep CC is not saved (a hold is saved with its new dice).")


def test_ctrl_c_at_the_prompt_says_what_is_in_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Ctrl-C while the prompt waits, before anything was typed: nothing written, and said so."""
    from shelfie_solver.cli import play as play_cli

    game = _new_game_file(tmp_path)

    def ctrl_c(prompt: str) -> str:
        raise KeyboardInterrupt

    monkeypatch.setattr(play_cli, "_read_line", ctrl_c)
    result = _invoke("play", game)
    assert result.exit_code == 0, result.output
    assert " ".join(result.stdout.split()).endswith(f"Interrupted; nothing changed in this session: {game} "
                                                    "was not written.")
