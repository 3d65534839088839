"""One screen per action in the ``play`` session, through a real pseudo-terminal of 80 x 24
(pexpect): a whole 4-player game typed at the prompt with dice drawn by a seeded generator, every
action's output measured between two prompts; and a line typed at a prompt the file no longer
matches (the page wrote meanwhile) writes nothing and says what changed."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import numpy as np
import pexpect
import pytest
from click.testing import CliRunner

from shelfie_solver.cli import main
from shelfie_solver.dice.board import score
from shelfie_solver.dice.play.gamefile import read_kept_game
from shelfie_solver.dice.play.screen import LEGEND, without_rule_ids
from shelfie_solver.dice.play.session import Session
from shelfie_solver.web.api import GameServer

from conftest import ROOT

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")

ROWS, COLUMNS = 24, 80
#: Every prompt of the session: ``Ann roll>``, ``Ann PGBBCC/2>``, ``Ann PGBBCC/stop>``,
#: ``Ann PGBBCC/2 keep CC>``, ``game over>``.
PROMPT = re.compile(r"(\S+) (roll|([A-Z]{6})/(\d|stop)(?: keep ([A-Z-]+))?)>|game over>")
ESCAPE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[=>]")
VERBS = ["keep", "reroll", "stop", "mark", "told", "fail", "undo", "status", "advise", "help", "quit"]


def spawn(game: str) -> pexpect.spawn:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": str(COLUMNS), "LINES": str(ROWS), "TERM": "xterm",
           "PROMPT_TOOLKIT_NO_CPR": "1"}
    return pexpect.spawn(sys.executable, ["-c", "from shelfie_solver.cli import main; main()", "play", game],
                         env=env, encoding="utf-8", timeout=120, dimensions=(ROWS, COLUMNS))


def plain(text: str) -> str:
    return ESCAPE.sub("", text).replace("\r", "")


def answer(child: pexpect.spawn, line: str) -> tuple[list[str], re.Match[str]]:
    """Type ``line``; the lines printed before the next prompt (the echoed line left out) and
    that prompt's match."""
    child.sendline(line)
    child.expect_exact("\n")  # the end of the line typed, echoed (and redrawn) by the line editor
    child.expect(PROMPT.pattern)
    out = plain(child.before)
    return out.rstrip("\n").split("\n"), PROMPT.fullmatch(plain(child.after))  # type: ignore[return-value]


def new_game(tmp_path: Path, players: str, first: str) -> str:
    game = str(tmp_path / "game.json")
    assert CliRunner().invoke(main, ["play", "new", game, "--players", players, "--first", first]).exit_code == 0
    return game


@pytest.mark.slow
def test_a_whole_four_player_game_fits_one_screen_per_action(tmp_path: Path):
    """Four players, dice from a seeded generator typed at the prompt, the advised holds and
    markings taken: every action's output and the prompt under it fit 24 lines of 80 columns;
    the legend is shown once at the start and on 'help' only; 'help' lists the verbs; a warning
    is not repeated on the next screen of the same turn; the end is told once, with the winner
    the final sheets give (D19, D20)."""
    game = new_game(tmp_path, "Ann,Ben,Cy,Dee", "Ann")
    rules = read_kept_game(game).rules
    codes = [side.code for side in rules.sides]
    rng = np.random.default_rng(28)
    child = spawn(game)
    child.expect(PROMPT.pattern)
    start = plain(child.before)
    assert start.count(LEGEND.splitlines()[0]) == 1
    prompt = PROMPT.fullmatch(plain(child.after))
    assert prompt is not None and prompt.group(1) == "Ann" and prompt.group(2) == "roll"

    helped, _ = answer(child, "help")
    assert all(any(line.startswith(f"  {verb} ") for line in helped) for verb in VERBS), helped
    assert LEGEND.splitlines()[0] in helped and len(helped) + 1 <= ROWS
    assert max(len(line) for line in helped) <= COLUMNS

    outputs: list[tuple[str, list[str]]] = []  # (the player to play when typed, the lines)
    dice = lambda n: "".join(rng.choice(codes, n))  # noqa: E731
    while prompt is not None and prompt.group(0) != "game over>":
        who, step, left, keep = prompt.group(1), prompt.group(2), prompt.group(4), prompt.group(5)
        if step == "roll":
            line = dice(rules.dice)
        elif keep is not None:
            line = dice(rules.dice - len(keep.replace("-", "")))
        elif left not in ("0", "stop") and rng.random() < 0.6:
            line = "keep"  # the advised hold (refused when the advice is to stop)
        else:
            line = "mark best"
        out, prompt = answer(child, line)
        if out[0].startswith("Error: the advice is to stop"):
            out, prompt = answer(child, "mark best")
        if out[0].startswith("Error: nothing can be marked"):
            out, prompt = answer(child, "fail best")  # a failed result (D13)
        assert not out[0].startswith("Error"), (line, out)
        outputs.append((who, out))
        assert len(outputs) < 600, "the game does not end"
    assert len(outputs) > 40

    for who, out in outputs:
        assert len(out) + 1 <= ROWS, "\n".join(out)  # the screen and the prompt under it
        assert max(len(line) for line in out) <= COLUMNS, "\n".join(out)
        assert LEGEND.splitlines()[0] not in out
        assert not any(re.search(r"\(D\d+", line) for line in out), "\n".join(out)  # rule ids: --verbose
    # screen i warns the player who types line i+1; when line i+2 is that player's too, screen i+1
    # is of the same turn and repeats none of screen i's warnings
    for (_, out), (who, after), (then, _) in zip(outputs, outputs[1:], outputs[2:]):
        warned = {line for line in out if line.startswith(("Threat:", "End near:"))}
        if who == then:
            assert not warned & set(after), (out, after)
    assert any(line.startswith("Threat:") for _, out in outputs for line in out)  # the game had some
    everything = [line for _, out in outputs for line in out]
    assert sum("Game over" in line for line in everything) == 1
    final = read_kept_game(game)
    assert final.over is not None
    totals = [score(final.board, marks, final.rules) for marks in final.sheets]
    winners = [name for name, total in zip(final.players, totals) if total == max(totals)]
    last = outputs[-1][1]
    told = next(line for line in last if line.startswith("Game over"))
    assert f"with {max(totals)} points" in told and all(name in told for name in winners)
    assert not any(line.startswith("End triggered") for line in last)  # not "the round is played out" then over
    child.sendline("quit")
    child.expect(pexpect.EOF)


def test_a_line_typed_at_a_stale_prompt_writes_nothing_and_says_what_changed(tmp_path: Path):
    """The session waits at 'Ben roll>' while the page records Ben's roll CCCCCC (the web API's
    write, revision-checked); PPPPPP typed then is not recorded as a re-roll: the session says
    what the page recorded, writes nothing and shows the new prompt."""
    game = new_game(tmp_path, "Ann,Ben", "Ben")
    child = spawn(game)
    child.expect_exact("Ben roll>")
    revision = len(read_kept_game(game).events)
    GameServer(game).write("roll", {"revision": revision, "dice": "CCCCCC"})
    written = Path(game).read_bytes()
    out, prompt = answer(child, "PPPPPP")
    text = " ".join(" ".join(out).split())  # lines wrapped at 80 columns joined again
    assert "Ben rolled CCCCCC (2 re-rolls left)." in text and "Nothing was written for 'PPPPPP'" in text
    assert prompt is not None and prompt.group(0) == "Ben CCCCCC/2>"
    assert Path(game).read_bytes() == written
    events = json.loads(written)["events"]
    assert [e["event"] for e in events[1:]] == ["roll"]
    out, prompt = answer(child, "keep CCCC new PP")  # the new prompt's game: acted on
    assert prompt is not None and prompt.group(0) == "Ben PPCCCC/1>", out
    child.sendline("quit")
    child.expect(pexpect.EOF)


def test_the_threat_line_names_the_player_whose_items_are_at_risk(tmp_path: Path):
    """Ann has marked r1c1-r1c3, Ben only r2c1 (told without dice); at the prompt Ann tells r1c4.
    The screen after it is read by Ben, the next to play: Ann needs r1c5 to complete shelf 1 and
    every item of Ben's shelf 1 is still available, so all five are at risk (D15), and the line
    names them as Ben's, never "your"."""
    game = new_game(tmp_path, "Ann,Ben", "Ann")
    runner = CliRunner()
    for cells in (["r1c1", "r1c2", "r1c3"], ["r2c1"]):
        assert runner.invoke(main, ["play", "mark", game, *cells, "--unchecked"]).exit_code == 0
    child = spawn(game)
    child.expect_exact("Ann roll>")
    out, prompt = answer(child, "told r1c4")
    assert prompt is not None and prompt.group(0) == "Ben roll>"
    ben_shelf_1 = " ".join(f"r1c{column}" for column in range(1, 6))
    assert f"Threat: Ann needs r1c5 for shelf 1: Ben's {ben_shelf_1} at risk." in out, out
    assert not any("your" in line for line in out), out
    child.sendline("quit")
    child.expect(pexpect.EOF)


def test_an_undo_made_meanwhile_is_told_and_nothing_is_written(tmp_path: Path):
    game = new_game(tmp_path, "Ann,Ben", "Ann")
    session = Session(game)
    assert session.handle("CCBBPG").startswith("Ann rolled PGBBCC")
    session.prompt()
    GameServer(game).write("undo", {"revision": len(read_kept_game(game).events)})
    GameServer(game).write("roll", {"revision": len(read_kept_game(game).events), "dice": "AAAAAA"})
    before = Path(game).read_bytes()
    out = " ".join(session.handle("mark r1c1").split())  # lines wrapped at 80 columns joined again
    # what was taken back is named (the roll typed above), then what was done since
    assert out.startswith("Meanwhile the page or another terminal changed the game: took back Ann's roll PGBBCC. "
                          "Ann rolled AAAAAA (2 re-rolls left).")
    assert Path(game).read_bytes() == before
    assert session.prompt() == "Ann AAAAAA/2> "
    assert session.handle("status").startswith("Round 1, Ann to play")  # reading only: no check


def test_a_crowded_screen_keeps_the_budget(tmp_path: Path):
    """Three opponents' threats, the last round, the end near and a long account of what happened:
    the screen still fits 23 lines of 80 columns (the next choices, then the threats merged into
    one line, then the reason left out), the best choice and every sheet kept."""
    from shelfie_solver.dice.play.screen import screen, screen_height

    game = new_game(tmp_path, "Ann,Ben,Cy,Dee", "Dee")
    assert Session(game).handle("CCBBPG").startswith("Dee rolled")
    kept = read_kept_game(game)
    warnings = [f"Threat: {name} needs r1c{i} for shelf 1, r2c{i} for column {i}: 6 items of Dee's at risk."
                for i, name in enumerate(["Ann", "Ben", "Cy"], 1)]
    warnings += ["End near: Ann, Ben, Cy have 1 closed shelf; one more triggers the last round.",
                 "Last round: 0 more turns after this one, then the game is over."]
    out = screen(kept, "strategic", " ".join(["Dee kept BBCC and re-rolled 2 dice."] * 10), warnings)
    lines = out.split("\n")
    assert screen_height(out) <= 23 and max(len(line) for line in lines) <= COLUMNS, out
    assert any(line.startswith("Best:") for line in lines) and lines[-1].startswith("total")
    merged = next(line for line in lines if line.startswith("Threats: Ann, Ben, Cy"))
    assert "Dee's items" in merged and "yours" not in merged, out  # Dee to play: the items are Dee's


def test_the_end_is_told_once_by_the_step_and_the_verbose_session(tmp_path: Path):
    """Solitaire: two shelves given up close two shelves, which triggers the end on the round's
    only turn (D17) and ends the game at once (D18). The step command and the --verbose session
    say "Game over" once, and the trigger does not say a round is still played out."""
    runner = CliRunner()
    game = str(tmp_path / "solo.json")
    assert runner.invoke(main, ["play", "new", game, "--players", "me"]).exit_code == 0
    for step in (["mark", "--unchecked", "r1c1"], ["mark", "--unchecked", "r2c1"], ["fail", "--shelf", "1"]):
        assert runner.invoke(main, ["play", step[0], game, *step[1:]]).exit_code == 0
    again = str(tmp_path / "again.json")
    Path(again).write_bytes(Path(game).read_bytes())
    step = runner.invoke(main, ["play", "fail", game, "--shelf", "2"])
    session = runner.invoke(main, ["play", again, "--verbose"], input="fail 2\nquit\n")
    for out in (step.output, session.output.split("me roll>", 1)[1]):
        text = " ".join(out.split())
        assert text.count("Game over") == 1, out
        assert "the game ends now" in text and "played out" not in text, out


def test_a_hold_typed_before_a_marking_does_not_come_back_with_its_undo(tmp_path: Path):
    game = new_game(tmp_path, "Ann,Ben", "Ann")
    session = Session(game)
    session.handle("CCBBPG")
    assert session.handle("keep CC").startswith("Holding CC")
    assert session.prompt() == "Ann PGBBCC/2 keep CC> "
    assert "Ann marked r1c1." in session.handle("mark r1c1")
    assert session.handle("undo").startswith("Undone: Ann's marking r1c1.")
    assert session.prompt() == "Ann PGBBCC/2> "  # the marking's step again, without the hold used up


@pytest.mark.parametrize("text,plain_text", [
    ("Ann kept CC and re-rolled 4 dice (D7).", "Ann kept CC and re-rolled 4 dice."),
    ("Ann stopped with PGBBCC (D7: 2 re-rolls left unused).", "Ann stopped with PGBBCC (2 re-rolls left unused)."),
    ("Ben loses r1c1 r1c2 (blocked, D15).", "Ben loses r1c1 r1c2 (blocked)."),
    ("mark items (D8-D14), score (D19, D20)", "mark items, score"),
])
def test_rule_ids_are_left_to_verbose(text: str, plain_text: str):
    assert without_rule_ids(text) == plain_text


def test_the_end_near_line_names_each_sheet_as_status_does(tmp_path: Path):
    """'End near: Ann, you have 1 closed shelf' with Ben to play read as said to Ann: one sheet
    near gets the words of 'status' ("Ann has", every sheet named, never "you": the line follows
    the previous player's action), several a list with 'and' and 'each'."""
    from shelfie_solver.dice.play.gamefile import warnings
    from shelfie_solver.dice.play.screen import screen_warnings

    game = new_game(tmp_path, "Ann,Ben", "Ann")
    out = Session(game).handle("fail 1")  # told without dice: shelf 1 given up, closed (D13, D17 one short)
    kept = read_kept_game(game)
    near = "End near: Ann has 1 closed shelf; one more triggers the last round."
    assert kept.active_name == "Ben" and near in out.split("\n")
    assert screen_warnings(kept)[0] == near and without_rule_ids(warnings(kept)[0]) == near
    Session(game).handle("fail 1")
    kept = read_kept_game(game)
    assert kept.active_name == "Ann"
    assert screen_warnings(kept)[0] == "End near: Ann and Ben have 1 closed shelf each; one more triggers the last round."
    assert [without_rule_ids(w) for w in warnings(kept)[:2]] == [
        "End near: Ann has 1 closed shelf; one more triggers the last round.",
        "End near: Ben has 1 closed shelf; one more triggers the last round."]
