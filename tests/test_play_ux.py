"""What a new player met in whole games, each answer naming what to type, and the named command
running: ``undo`` names what it took back (the step, the prompt, the page alike), a mistyped
prompt command is answered with the close one, refusals name the command of where they were typed,
the one-Joker-per-group rule (D11a) is said where the Jokers do not add up, and the cosmetics
(``+1 point``, shelves as a list, items split by commas, the counts of a hold not among the dice,
``advice``, ``--objective winn``, ``play session`` listed).

Default board (shelfie_solver/dice/data/default_board.toml): shelves 1-5 take cat, book, plant,
game, award; columns need 1-5 dice (D8)."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from shelfie_solver.cli import main
from shelfie_solver.dice.advise.words import signed_points
from shelfie_solver.dice.play.gamefile import read_kept_game
from shelfie_solver.dice.play.session import Session

from conftest import assert_one_line_error


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def ok(*args: str) -> str:
    result = run(*args)
    assert result.exit_code == 0, result.output
    return result.stdout


def new_game(tmp_path: Path, name: str = "g.json") -> str:
    game = str(tmp_path / name)
    ok("play", "new", game, "--players", "Ann,Ben", "--first", "Ann")
    return game


def quoted(line: str) -> list[str]:
    """The commands a prompt's refusal names in quotes ('mark r1c1'), as typed at the prompt."""
    return re.findall(r"'([^']+)'", line)


# --- 1. undo says what it took back ----------------------------------------------------------


def test_play_undo_names_the_actions_taken_back(tmp_path: Path):
    """Ann rolls CCBJPP (codes in side order: PPBCCJ), keeps CC and re-rolls PPBJ into PCCP, so the
    re-roll rolled PPCC (side order); the step's undo names it, then 3 actions at once are listed
    oldest first, and 4 give the count and the last."""
    game = new_game(tmp_path)
    ok("play", "roll", game, "CCBJPP")
    ok("play", "reroll", game, "PCCP", "--keep", "CC")
    assert ok("play", "undo", game).startswith("Undone: Ann's re-roll (kept CC, rolled PPCC).\n")
    ok("play", "reroll", game, "PCCP", "--keep", "CC")
    ok("play", "mark", game, "r1c1", "r1c2")  # C, CC: a stop first (D7), one action with the marking
    out = " ".join(ok("play", "undo", game, "3").split())  # the line wrapped to the table's width
    assert out.startswith("Undone: 3 actions, Ann's roll PPBCCJ; Ann's re-roll (kept CC, rolled PPCC); "
                          "Ann's marking r1c1 r1c2. "), out
    ok("play", "roll", game, "CCBJPP")
    ok("play", "stop", game)
    ok("play", "mark", game, "r1c1")
    ok("play", "mark", game, "--unchecked", "r2c2")  # Ben's, told
    out = " ".join(ok("play", "undo", game, "4").split())
    assert out.startswith("Undone: 4 actions, the last Ben's marking r2c2 (told, unchecked). "), out
    ok("play", "mark", game, "--unchecked", "r3c1")  # Ann's turn again: told without dice
    ok("play", "fail", game, "--shelf", "2")  # Ben's failed result, told (D13)
    assert ok("play", "undo", game).startswith("Undone: Ben's failed result (shelf 2 given up).\n")


def test_the_prompt_s_undo_names_the_actions_taken_back(tmp_path: Path):
    game = new_game(tmp_path)
    session = Session(game)
    session.handle("CCBJPP")
    session.handle("stop")
    assert session.handle("undo").startswith("Undone: Ann's stop.")
    session.handle("keep CC new PPBJ")  # kept CC, rolled PPBJ: PPBCCJ again
    assert session.handle("undo").startswith("Undone: Ann's re-roll (kept CC, rolled PPBJ).")
    assert session.handle("undo").startswith("Undone: Ann's roll PPBCCJ.")


def test_the_page_s_undo_names_the_action_taken_back(tmp_path: Path):
    pytest.importorskip("starlette")
    pytest.importorskip("httpx2")
    from starlette.testclient import TestClient

    from shelfie_solver.web.api import GameServer
    from shelfie_solver.web.app import create_app

    game = new_game(tmp_path)
    client = TestClient(create_app(GameServer(game)))
    state = client.post("/api/roll", json={"dice": "CCBJPP", "revision": 1}).json()
    undone = client.post("/api/undo", json={"revision": state["revision"]}).json()
    assert undone["done"] == ["Undone: Ann's roll PPBCCJ."]



def test_a_stop_says_how_to_take_it_back_where_it_was_made(tmp_path: Path):
    """The stop's line named the prompt's 'undo' everywhere: the step names its command (which
    runs), the page its button."""
    pytest.importorskip("starlette")
    pytest.importorskip("httpx2")
    from starlette.testclient import TestClient

    from shelfie_solver.web.api import GameServer
    from shelfie_solver.web.app import create_app

    game = new_game(tmp_path)
    ok("play", "roll", game, "PGCJJJ")
    out = " ".join(ok("play", "stop", game).split())  # lines wrapped at 80 columns joined again
    assert f"(to take the stop back: play undo {shlex.quote(game)} 1)" in out
    assert "'undo'" not in out
    ok("play", "undo", game, "1")
    assert not read_kept_game(game).stopped
    client = TestClient(create_app(GameServer(game)))
    revision = len(read_kept_game(game).events)
    assert client.post("/api/stop", json={"revision": revision}).json()["done"][0].endswith(
        "(to take the stop back: tap Undo).")


# --- 2. a mistyped prompt command ------------------------------------------------------------


@pytest.mark.parametrize("typed, meant", [("stauts", "status"), ("makr r1c1", "mark r1c1"), ("udno", "undo"),
                                          ("fial 2", "fail 2"), ("kep AAA", "keep AAA")])
def test_a_mistyped_command_is_answered_with_the_close_one(tmp_path: Path, typed: str, meant: str):
    """`makr r1c1` said "neither a command nor dice: unknown face 'makr'": it names the line with
    the close command word, which then runs (the file unchanged by the typo)."""
    game = new_game(tmp_path)
    session = Session(game)
    session.handle("PPBCCJ")  # P P B C C J: no 'A' showing, so 'keep AAA' is refused for itself (D7)
    before = Path(game).read_bytes()
    out = session.handle(typed)
    assert out.startswith("Error: ") and "\n" not in out and f"did you mean '{meant}'?" in out, out
    assert Path(game).read_bytes() == before
    answer = session.handle(meant)
    if meant == "keep AAA":
        assert answer.startswith("Error: cannot keep AAA: the dice PPBCCJ show only 0 A"), answer
    elif meant == "fail 2":
        assert "PPBCCJ can mark an item, so it must (D14)" in answer  # the command runs, refused by D14
    else:
        assert not answer.startswith("Error"), answer


def test_keep_with_new_mistyped_points_at_new(tmp_path: Path):
    game = new_game(tmp_path)
    session = Session(game)
    session.handle("CCBJPP")
    out = session.handle("keep CC nwe PPBJ")
    assert "did you mean 'keep CC new PPBJ'?" in out, out
    assert session.handle("keep CC new PPBJ").startswith("Ann kept CC and re-rolled 4 dice")


def test_a_typo_through_the_terminal(tmp_path: Path):
    """The same through a real pseudo-terminal (test_play_session's harness)."""
    from test_play_session import say, spawn

    game = new_game(tmp_path)
    child = spawn(game)
    child.expect_exact("Ann roll>")
    say(child, "makr r1c1", "did you mean 'mark r1c1'?", "Ann roll>")
    say(child, "udno", "did you mean 'undo'?", "Ann roll>")
    say(child, "quit", "Nothing changed in this session")  # typos only: nothing written
    child.expect_exact(pexpect_eof())


def pexpect_eof():
    import pexpect

    return pexpect.EOF


# --- 3. refusals that name what to type ------------------------------------------------------


def test_marking_with_final_dice_that_mark_nothing_names_fail(tmp_path: Path):
    """Ann gives up shelf 1 (cats) told without dice (D13); Ben's told marking; Ann rolls CCCCCC,
    which marks nothing (cats serve shelf 1 only, D8), and stops: `mark r1c5` names 'fail N'
    (it said "give up a shelf"), and `fail 2` then runs."""
    game = new_game(tmp_path)
    session = Session(game)
    session.handle("fail 1")
    session.handle("told r2c1")
    session.handle("CCCCCC")
    session.handle("stop")
    out = session.handle("mark r1c5")
    assert out.startswith("Error: nothing can be marked with CCCCCC") and "'fail N'" in out, out
    assert "'fail best'" in out
    assert "Ann: failed result" in session.handle("fail 2") or read_kept_game(game).active == 1


def test_told_with_dice_recorded_names_the_checked_marking(tmp_path: Path):
    game = new_game(tmp_path)
    session = Session(game)
    session.handle("PPBBCJ")
    out = session.handle("told r1c1")
    assert "type 'mark r1c1'" in out, out
    assert "Ann stopped with PPBBCJ" in session.handle(quoted(out)[-1])  # the marking runs (a stop first, D7)


def test_a_step_re_roll_after_a_stop_names_the_marking_and_the_undo(tmp_path: Path):
    game = new_game(tmp_path)
    ok("play", "roll", game, "PPBBCJ")
    ok("play", "stop", game)
    line = assert_one_line_error(run("play", "reroll", game, "PP", "--keep", "BBCJ"),
                                 f"mark items: play mark {game} ITEM...", f"take the stop back: play undo {game} 1")
    undo = shlex.split(line.split("take the stop back: ", 1)[1])
    assert ok(*undo).startswith("Undone: Ann's stop.")


def test_game_over_at_the_prompt_names_the_prompt_s_undo(tmp_path: Path):
    """The end reached by giving up shelves told without dice (D13) until the trigger fires and the
    round is played out (D17, D18): at `game over>` `mark best` names the prompt's 'undo' (it said
    `play undo GAME`), which then runs."""
    game = new_game(tmp_path)
    session = Session(game)
    for shelf in ("1", "1", "2", "2", "3", "3"):  # three shelves each given up: the end trigger fires (D17)
        session.handle(f"fail {shelf}")
        if read_kept_game(game).over is not None:
            break
    assert read_kept_game(game).over is not None, session.handle("status")
    assert session.prompt() == "game over> "
    out = session.handle("mark best")
    assert out.startswith("Error: the game is over") and "type 'undo'" in out and "GAME" not in out, out
    assert session.handle("undo").startswith("Undone: ")


def test_a_missing_game_file_names_play_new_with_players(tmp_path: Path):
    missing = str(tmp_path / "nosuch.json")
    line = assert_one_line_error(run("play", "status", missing), f"(play new {missing} --players A,B)")
    command = shlex.split(line.rsplit("(", 1)[1].rstrip(")"))
    assert command[0] == "play"
    ok(*command)
    assert read_kept_game(missing).players == ("A", "B")


# --- 4. the Joker limit ----------------------------------------------------------------------


def test_the_joker_limit_is_said_where_the_jokers_do_not_add_up(tmp_path: Path):
    """PPCCJJ: r1c4 needs 4 cats; 2 cats and 2 Jokers make 4, but one group holds at most 1 Joker
    (D11a), so at most 3: refused citing D11a. r1c3 r1c2 (3 + 2 cats in 2 groups) take both
    Jokers: 2 + 2 = 4 < 5 refused by D8 alone, without D11a."""
    game = new_game(tmp_path)
    ok("play", "roll", game, "PPCCJJ")
    line = assert_one_line_error(run("play", "mark", game, "r1c4"), "the items need 4 cat dice",
                                 "the dice show 2 and 2 jokers, of which only 1 can stand in",
                                 "at most 1 Joker per group", "D11a")
    assert "D11a" in line
    line = assert_one_line_error(run("play", "mark", game, "r1c2", "r1c3"), "the items need 5 cat dice",
                                 "the dice show 2 and 2 jokers, D8)")
    assert "D11a" not in line



def test_a_joker_alone_is_said_for_an_item_of_one_die(tmp_path: Path):
    """PGBBJJ: no cat die. r1c1 (1 cat) would take one Joker by D11a's count, but a Joker never
    forms a group alone (D11b): refused naming D11b (it used to say only 'D8-D14'); r1c2 (2 cats)
    may hold 1 Joker and needs 1 cat more: D11a as before."""
    game = new_game(tmp_path)
    ok("play", "roll", game, "PGBBJJ")
    line = assert_one_line_error(run("play", "mark", game, "r1c1"), "the items need 1 cat die",
                                 "a Joker never forms a group alone", "D11b")
    assert "D8-D14" not in line
    line = assert_one_line_error(run("play", "mark", game, "r1c2"), "the items need 2 cat dice",
                                 "of which only 1 can stand in", "D11a")
    assert "D11b" not in line


def test_a_joker_alone_is_said_with_the_faces_own_name(tmp_path: Path):
    """PGBCJJ: no award die, and r5c1 (shelf 5 shows the award, column 1 needs 1 die, D3) is an item
    of 1 die, which no Joker marks (D11b): the refusal names the award die it needs, as a count
    ('1 award die'), never 'a award die'."""
    game = new_game(tmp_path)
    ok("play", "roll", game, "PGBCJJ")
    line = assert_one_line_error(run("play", "mark", game, "r5c1"), "the items need 1 award die",
                                 "a Joker never forms a group alone: an item of 1 die needs 1 award die, D8, D11b")
    assert "a award" not in line


# --- 5. cosmetics ----------------------------------------------------------------------------


def test_signed_points_is_singular_for_one():
    assert [signed_points(n) for n in (1, -1, 0, 3)] == ["+1 point", "-1 point", "+0 points", "+3 points"]


def test_a_shelf_not_available_lists_the_shelves_as_words(tmp_path: Path):
    game = new_game(tmp_path)
    ok("play", "fail", game, "--shelf", "3")  # Ann gives up shelf 3, told (D13)
    ok("play", "mark", game, "--unchecked", "r1c1")  # Ben; Ann's turn again, her shelf 3 gone
    line = assert_one_line_error(run("play", "fail", game, "--shelf", "3"), "one of 1, 2, 4, 5, not 3")
    assert "[" not in line
    ok("play", "fail", game, "--shelf", "4")  # a shelf named there runs


def test_items_split_by_a_comma_are_told_to_use_spaces(tmp_path: Path):
    game = new_game(tmp_path)
    ok("play", "roll", game, "CCCPPP")
    line = assert_one_line_error(run("play", "mark", game, "r1c1,r3c1"), "separate them by spaces",
                                 "r1c1 r3c1")
    items = line.rsplit(": ", 1)[1].split()
    assert "Ann marked r1c1 r3c1" in ok("play", "mark", game, *items)


def test_a_hold_not_among_the_dice_gives_the_counts(tmp_path: Path):
    game = new_game(tmp_path)
    ok("play", "roll", game, "PPCCJJ")
    assert_one_line_error(run("play", "reroll", game, "J", "--keep", "PPPPJ"),
                          "cannot keep PPPPJ: the dice PPCCJJ show only 2 P (D7)")


def test_advice_suggests_advise():
    assert_one_line_error(run("advice", "--dice", "CCBJPP"), "No such command 'advice'; did you mean 'advise'?")
    assert ok("advise", "--dice", "CCBJPP")


def test_a_mistyped_objective_is_answered_with_the_close_one():
    assert_one_line_error(run("advise", "--dice", "CCBJPP", "--objective", "winn"),
                          "unknown objective 'winn' (did you mean 'win'?)")
    line = assert_one_line_error(run("advise", "--dice", "CCBJPP", "--objective", "pionts"),
                                 "unknown objective 'pionts' (did you mean 'points'?)")
    assert ok("advise", "--dice", "CCBJPP", "--objective", quoted(line)[1])
    assert_one_line_error(run("advise", "--dice", "CCBJPP", "--objective", "cel:r1c1"), "did you mean 'cell:r1c1'?")


def test_play_session_is_listed_and_runs(tmp_path: Path):
    assert re.search(r"^  session\s", ok("play", "--help"), re.M)
    game = new_game(tmp_path)
    result = CliRunner().invoke(main, ["play", "session", game], input="CCBJPP\nquit\n")
    assert result.exit_code == 0, result.output
    assert json.loads(Path(game).read_text())["events"][-1]["event"] == "roll"
