"""The ``play GAME`` prompt types like the table, through a real pseudo-terminal (pexpect, the
style of test_play_session.py): the dice now showing typed after a re-roll (D7), the kept ones
read from the dice before; line editing and history (Up recalls the previous line); ``stop``
binding (D7: the dice are final, a re-roll is refused); a marking with re-rolls left stopping
first, and no failed result (D13) offered while an item could still be marked.

Default board: shelves 1-5 take cat, book, plant, game, award; column c needs c dice (D10).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pexpect
import pytest
from click.testing import CliRunner

from shelfie_solver.cli import main
from shelfie_solver.dice.play.gamefile import read_kept_game
from shelfie_solver.dice.rolls import dice_codes, parse_dice
from shelfie_solver.dice.rules import DEFAULT_RULES

from conftest import ROOT
from test_play_session import say, spawn

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")

UP, LEFT, BACKSPACE = "\x1b[A", "\x1b[D", "\x7f"


def shown(dice: str) -> str:
    """The dice as the prompt shows them (the ruleset's face order)."""
    return dice_codes(parse_dice(dice, DEFAULT_RULES), DEFAULT_RULES)


def new_game(tmp_path: Path, *steps: list[str]) -> str:
    game = str(tmp_path / "game.json")
    runner = CliRunner()
    assert runner.invoke(main, ["play", "new", game, "--players", "Ann,Ben", "--first", "Ann"]).exit_code == 0
    for step in steps:
        result = runner.invoke(main, ["play", step[0], game, *step[1:], "--objective", "strategic"])
        assert result.exit_code == 0, result.output
    return game


def spawn_strategic(game: str) -> pexpect.spawn:
    """test_play_session.spawn with the session advising by ``strategic`` (one sheet's
    potential: advice that does not move with the win model's fit)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200", "TERM": "xterm", "PROMPT_TOOLKIT_NO_CPR": "1"}
    return pexpect.spawn(sys.executable, ["-c", "from shelfie_solver.cli import main; main()", "play", game,
                                          "--objective", "strategic"],
                         env=env, encoding="utf-8", timeout=120, dimensions=(50, 200))


def quit_session(child: pexpect.spawn) -> None:
    child.sendline("quit")
    child.expect(pexpect.EOF)
    assert "Traceback" not in (child.before or "")


def test_the_dice_now_showing_are_typed_after_a_re_roll(tmp_path: Path):
    """PGBBCC, then AAABCJ typed: B and C were showing before, so each may have stayed or been
    re-rolled (4 readings): refused, the file unchanged. After 'keep CCBB' the six CCBBCP are
    read with that hold (new: C, P). Then AAAGGJ shares no face with PBBCCC: every die was
    re-rolled, the one reading, accepted."""
    game = new_game(tmp_path, ["roll", "CCBBPG"])
    before = Path(game).read_bytes()
    child = spawn(game)
    child.expect_exact("Ann PGBBCC/2>")
    say(child, "AAABCJ", "Error: AAABCJ read as the 6 dice now showing after PGBBCC", "(4 readings)",
        "type 'keep BC new AAAJ'", "Ann PGBBCC/2>")
    assert Path(game).read_bytes() == before
    say(child, "keep CCBB", "Holding BBCC: re-roll PG, then type the 2 new dice or all 6 now showing",
        "Ann PGBBCC/2 keep BBCC>")
    say(child, "CCBBCP", "Ann kept BBCC and re-rolled 2 dice: PBBCCC (1 re-roll left).", "Ann PBBCCC/1>")
    say(child, "reroll AAAGGJ", f"Ann re-rolled all 6 dice: {shown('AAAGGJ')} (0 re-rolls left).",
        f"Ann {shown('AAAGGJ')}/0>")
    say(child, "CCCCCC", "Error: no re-roll left (D7: at most 2)", f"Ann {shown('AAAGGJ')}/0>")
    quit_session(child)
    table = read_kept_game(game)
    assert table.dice == parse_dice("AAAGGJ", DEFAULT_RULES) and table.rerolls_left == 0
    holds = [e.keep for e in table.events if e.kind == "hold"]
    assert holds == [parse_dice("BBCC", DEFAULT_RULES, count=-1), parse_dice("", DEFAULT_RULES, count=-1)]


def test_the_advised_hold_and_the_new_dice_only(tmp_path: Path):
    """'hold' alone holds the advised dice; then only the new dice are typed. With the dice
    CCCCCC and no hold typed, two new dice can only mean four cats kept (one reading)."""
    game = new_game(tmp_path, ["roll", "CCCCCC"])
    child = spawn_strategic(game)
    child.expect_exact("Ann CCCCCC/2>")
    say(child, "BP", f"Ann kept CCCC and re-rolled 2 dice: {shown('CCCCBP')} (1 re-roll left).",
        f"Ann {shown('CCCCBP')}/1>")
    child.sendline("hold")
    child.expect(r"Holding the advised (\w+): re-roll (\w+), then type the (\d) new")
    kept, rerolled, count = child.match.group(1), child.match.group(2), int(child.match.group(3))
    assert len(rerolled) == count and sorted(kept + rerolled) == sorted(shown("CCCCBP"))
    child.expect_exact(f"Ann {shown('CCCCBP')}/1 keep {kept}>")
    say(child, "A" * count, f"Ann kept {kept} and re-rolled {count}", "/0>")
    quit_session(child)
    assert read_kept_game(game).dice == parse_dice(kept + "A" * count, DEFAULT_RULES)


def test_line_editing_and_history(tmp_path: Path):
    """Up recalls the previous line (prompt_toolkit's history); Backspace and Left edit it."""
    game = new_game(tmp_path)
    child = spawn(game)
    child.expect_exact("Ann roll>")
    say(child, "help", "undo [N]", "Ann roll>")
    child.send(UP)  # the previous line, 'help', again
    child.sendline("")
    child.expect_exact("undo [N]")
    child.expect_exact("Ann roll>")
    child.send("CCBJPX" + BACKSPACE + "P")  # a typo corrected: X rubbed out
    child.sendline("")
    child.expect_exact("Ann rolled PPBCCJ (2 re-rolls left).")
    child.expect_exact("Ann PPBCCJ/2>")
    child.send("kep CC" + LEFT * 4 + "e")  # 'kep' corrected to 'keep' in the middle of the line
    child.sendline("")
    child.expect_exact("Holding CC: re-roll")
    child.expect_exact("Ann PPBCCJ/2 keep CC>")
    child.send(UP + UP)  # two lines back: the six dice CCBJPP, read now with the hold CC (D7)
    child.sendline("")
    child.expect_exact("Ann kept CC and re-rolled 4 dice: PPBCCJ (1 re-roll left).")
    child.expect_exact("Ann PPBCCJ/1>")
    quit_session(child)


def test_stop_is_binding(tmp_path: Path):
    """After 'stop' the dice are final (D7): the advice shows the markings, a re-roll in any form
    is refused with one line and the file is unchanged; 'undo' takes the stop back. The stop is
    the game file's `stop` event."""
    game = new_game(tmp_path, ["roll", "CCBBPG"])
    child = spawn(game)
    child.expect_exact("Ann PGBBCC/2>")
    say(child, "stop", "Ann stops with PGBBCC: the dice are final", "Best: mark", "Ann PGBBCC/stop>")
    before = Path(game).read_bytes()
    assert json.loads(before)["events"][-1] == {"event": "stop", "player": 0}
    for line in ["keep CCBB CP", "keep CC new PPBB", "reroll CP --keep CCBB", "AAAJJJ", "hold"]:
        child.sendline(line)
        child.expect(r"Error: ([^\r\n]*)\r?\n")
        assert child.match.group(1).startswith("Ann stopped with PGBBCC (D7): the dice are final, no re-roll")
        child.expect_exact("Ann PGBBCC/stop>")
    say(child, "stop", "The dice PGBBCC are final already.", "Ann PGBBCC/stop>")
    assert Path(game).read_bytes() == before
    say(child, "undo", "Undone: Ann's stop.", "Ann PGBBCC/2>")
    say(child, "stop", "stops with", "Ann PGBBCC/stop>")
    say(child, "mark r1c2 r2c2", "Ann marked r1c2 r2c2.", "Ben roll>")
    quit_session(child)
    table = read_kept_game(game)
    assert [e.kind for e in table.events[1:]] == ["roll", "stop", "mark"]  # no re-roll was recorded


def test_marking_with_re_rolls_left_stops_first(tmp_path: Path):
    """A marking typed with re-rolls left is an implicit stop (D7), said so. With dice that mark
    nothing (Ben's shelf 1 blocked by Ann, D15: six cats fit nowhere) and re-rolls left, the
    answer offers the re-roll first, not only a failed result (D13); a failed result is refused
    while an item can be marked (D14)."""
    game = new_game(tmp_path, ["mark", "--unchecked", "r1c1", "r1c2", "r1c3"], ["mark", "--unchecked", "r3c1"],
                    ["mark", "--unchecked", "r1c4", "r1c5"], ["roll", "CCCCCC"])
    child = spawn(game)
    child.expect_exact("Ben CCCCCC/2>")
    say(child, "mark r1c1", "Error: nothing can be marked with CCCCCC; 2 re-rolls left: keep some dice and "
        "re-roll (D7), or stop with a failed result: 'fail N' gives up shelf N (D13)", "Ben CCCCCC/2>")
    say(child, "keep - PPBBGG", "Ben re-rolled all 6 dice:", "/1>")
    say(child, "fail 2", "must (D14)", "/1>")
    say(child, "mark r3c2 r2c2", f"Ben stopped with {shown('PPBBGG')}", "(1 re-roll left unused).",
        "Ben marked r2c2 r3c2.", "Ann roll>")
    quit_session(child)
