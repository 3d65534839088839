"""``shelfie-solve play`` and ``review`` through CliRunner: a complete hand-worked 3-player game,
and every bad input leaving the game file byte for byte unchanged.

Default board (shelfie_solver/dice/data/default_board.toml): shelves 1-5 take cat, book, plant, game,
award; columns need 1-5 dice; values r1 1 2 4 7 11 / r2 1 3 4 6 10 / r3 2 2 3 7 12 /
r4 1 2 5 6 11 / r5 2 3 4 8 9.

The game (Ann first, then Ben, then me; D5):
  round 1  Ann   rolls CCBBPG, keeps CCBB, re-rolls CP -> CCCBBP; marks r1c1 (C) r1c2 (CC) r2c2 (BB)
           Ben   told: r3c1 r3c2 r3c3 (unchecked)
           me    rolls AAGGGP; marks r5c2 r4c3, undoes, marks r5c2 (AA) r4c3 (GGG) r3c1 (P)
  round 2  Ann   told: r1c3 r1c4 r1c5: shelf 1 complete -> Ben and me lose all of shelf 1 (D15)
           Ben   rolls CCCCCC: cats serve only shelf 1, eliminated -> failed result (D13), gives up
                 shelf 2 -> Ben has 2 closed shelves: end triggered (D17)
           me    rolls PPPPPP; marks r3c2 (PP) r3c3 (PPP): last of the round -> game over (D18)
Scores by hand (D19, threshold 3): Ann shelf 1 = 1+2+4+7+11 = 25, no column has 3 marks -> 25.
Ben shelf 3 = 2+2+3 = 7 -> 7. me shelf 3 = 2+2+3 = 7 (columns 2 and 3 hold 2 marks each) -> 7.
Ann wins alone (D20).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from shelfie_solver.cli import main

from conftest import assert_one_line_error


def play(*args: str):
    return CliRunner().invoke(main, ["play", *args])


def ok(*args: str) -> str:
    result = play(*args)
    assert result.exit_code == 0, result.output
    return result.stdout


def test_complete_three_player_game(tmp_path: Path):
    game = str(tmp_path / "game.json")
    assert "Ann to play" in ok("new", game, "--players", "Ann,Ben,me", "--first", "Ann")
    out = ok("roll", game, "CCBBPG")
    assert "2 re-rolls left" in out and "keep" in out  # the hold advice
    ok("reroll", game, "--keep", "CCBB", "CP")
    assert "Ann marked r1c1 r1c2 r2c2" in ok("mark", game, "r1c1", "r1c2", "r2c2", "--player", "Ann")
    assert "unchecked" in ok("mark", game, "--unchecked", "r3c1", "r3c2", "r3c3")
    ok("roll", game, "AAGGGP")
    ok("mark", game, "r5c2", "r4c3")
    ok("undo", game)
    ok("mark", game, "r5c2", "r4c3", "r3c1")
    out = ok("mark", game, "--unchecked", "r1c3", "r1c4", "r1c5")
    assert "Ann completed shelf 1: Ben loses r1c1 r1c2 r1c3 r1c4 r1c5 (blocked, D15)" in out
    assert "me loses r1c1 r1c2 r1c3 r1c4 r1c5" in out
    before = Path(game).read_bytes()  # Ben's shelf 1 is blocked: none of it can be marked (D15, D16)
    assert_one_line_error(play("mark", game, "--unchecked", "r1c1", "--player", "Ben"), "cannot mark r1c1")
    assert_one_line_error(play("mark", game, "--unchecked", "r2c1", "--player", "me"), "Ben is to play, not me (D5")
    assert Path(game).read_bytes() == before
    out = ok("roll", game, "CCCCCC")
    assert "give up" in out.lower() or "failed" in out.lower()
    out = ok("fail", game, "--shelf", "2")
    assert "End triggered (D17)" in out and "Last round" in out
    out = ok("roll", game, "PPPPPP")
    out = ok("mark", game, "r3c2", "r3c3")
    assert "Game over" in out and "Winner: Ann with 25 points" in out
    status = json.loads(ok("status", game, "--format", "json"))
    assert [s["score"] for s in status["sheets"]] == [25, 7, 7]
    assert status["turn"]["over"] is True
    final = json.loads(ok("advise", game, "--format", "json"))
    assert final["winners"] == ["Ann"] and final["rounds"] == 2
    assert [p["score"] for p in final["players"]] == [25, 7, 7]
    # the file is the saved-game format and replays (D19 scores recorded in the last event)
    data = json.loads(Path(game).read_text())
    assert data["format"] == "shelfie-solve game 1" and data["events"][-1]["scores"] == [25, 7, 7]
    # review of me under "points": round 2's PPPPPP marked r3c2 r3c3 (shelf 3 -> 2+2+3 = 7 points)
    # where r3c2 r3c4 (PP + PPPP) gives 2+2+7 = 11: a loss of exactly 4 points
    result = CliRunner().invoke(main, ["review", game, "--player", "me", "--objective", "points",
                                       "--format", "json"])
    assert result.exit_code == 0, result.output
    reviewed = json.loads(result.stdout)
    marks = [d for d in reviewed["decisions"] if d["decision"] == "mark"]
    assert [m["chosen"] for m in marks] == ["r3c1 r4c3 r5c2", "r3c2 r3c3"]
    assert marks[1]["best"] == "r3c2 r3c4" and marks[1]["loss"] == "4/1"
    assert reviewed["turns"] == 2 and reviewed["unchecked"] == 0
    table = CliRunner().invoke(main, ["review", game, "--player", "Ben"])
    assert table.exit_code == 0 and "Not reviewed: 1 turn(s)" in table.stdout


@pytest.fixture
def midgame(tmp_path: Path) -> str:
    """Round 1: Ann has rolled CCBBPG, 2 re-rolls left."""
    game = str(tmp_path / "mid.json")
    ok("new", game, "--players", "Ann,Ben,me", "--first", "Ann")
    ok("roll", game, "CCBBPG")
    return game


@pytest.mark.parametrize("args, fragments", [
    (["reroll", "{g}", "--keep", "CCCB", "PP"], ["cannot keep BCCC", "the dice PGBBCC show only 2 C"]),
    (["reroll", "{g}", "--keep", "CCBB", "PPG"], ["re-rolls 2 dice", "3 new dice"]),
    (["reroll", "{g}", "--keep", "CCBB", "XY"], ["unknown face"]),
    (["reroll", "{g}", "--keep", "BBCCGP", ""], ["stopping"]),
    (["mark", "{g}", "r5c5"], ["not a legal marking"]),
    (["mark", "{g}", "r9c1"], ["not on the board"]),
    (["mark", "{g}", "r1c1", "r1c1"], ["twice"]),
    (["mark", "{g}", "r1c1", "--unchecked"], ["are recorded"]),
    (["mark", "{g}"], ["expected items"]),
    (["fail", "{g}", "--shelf", "1"], ["must (D14)"]),
    (["fail", "{g}", "--shelf", "x"], ["bad shelf 'x'", "expected a shelf number 1..5 or best"]),
    (["fail", "{g}", "--shelf", "9"], ["shelf 9 is not on the board", "expected 1..5 or best"]),
    (["fail", "{g}", "--shelf", "1_0"], ["bad shelf '1_0'", "1..5 or best"]),
    (["fail", "{g}", "--shelf", "\u0661"], ["bad shelf", "1..5 or best"]),  # another script's 1
    (["fail", "{g}", "--shelf", "9" * 5000], ["is not on the board", "1..5 or best"]),  # past int()'s digits
    (["roll", "{g}", "CCCCCC"], ["rolled already"]),
    (["roll", "{g}", "CCBBPG", "--player", "Ben"], ["Ann is to play, not Ben"]),
    (["mark", "{g}", "r1c1", "--player", "Zed"], ["no player"]),
    (["undo", "{g}", "5"], ["cannot undo 5"]),
])
def test_bad_input_leaves_the_file_unchanged(midgame: str, args: list[str], fragments: list[str]):
    before = Path(midgame).read_bytes()
    result = play(*[a.format(g=midgame) for a in args])
    assert_one_line_error(result, *fragments)
    assert Path(midgame).read_bytes() == before


def test_a_bad_shelf_names_every_form_taken(tmp_path: Path):
    """``play fail GAME --shelf x`` names every form ``--shelf`` takes (``play fail --help``:
    ``N|best``): with dice a shelf number or ``best``; with no dice recorded (a failed result told,
    D13) the number, and that ``best`` needs the dice (it said only "expected a shelf number
    1..5")."""
    game = str(tmp_path / "g.json")
    ok("new", game, "--players", "Ann,Ben", "--first", "Ann")
    assert "--shelf N|best" in ok("fail", "--help")
    assert_one_line_error(play("fail", game, "--shelf", "x"), "bad shelf 'x'", "expected a shelf number 1..5 "
                          "('best' needs the dice: none are recorded)")
    assert_one_line_error(play("fail", game, "--shelf", "best"), "'best' needs the dice", "1..5")
    ok("roll", game, "CCBBPG")
    assert_one_line_error(play("fail", game, "--shelf", "x"), "expected a shelf number 1..5 or best (the advised "
                          "shelf)")


def test_mark_before_the_roll_names_the_step_forms(tmp_path: Path):
    """'play mark' before any roll names what works in the step command ('play roll', --unchecked),
    not the prompt's 'told'; --unchecked then records the marking."""
    game = str(tmp_path / "g.json")
    ok("new", game, "--players", "Ann,Ben", "--first", "Ann")
    before = Path(game).read_bytes()
    line = assert_one_line_error(play("mark", game, "r1c1"), "Ann has not rolled", "play roll", "--unchecked")
    assert "'told'" not in line
    assert Path(game).read_bytes() == before
    ok("mark", game, "r1c1", "--unchecked")


def test_finished_game_refuses_actions(tmp_path: Path):
    game = str(tmp_path / "solo.json")
    ok("new", game, "--players", "me")
    for shelf in ("1", "2"):  # solitaire: two shelves given up close two shelves (D17): over
        ok("mark", game, "--unchecked", f"r{shelf}c1")
    ok("fail", game, "--shelf", "1")  # no dice: an unchecked failed result (rules docstring)
    ok("fail", game, "--shelf", "2")
    before = Path(game).read_bytes()
    # the last turn fired the trigger and ended the game at once (D17, D18): both are true
    turn = json.loads(ok("status", game, "--format", "json"))["turn"]
    assert turn["end_triggered"] is True and turn["over"] is True
    assert_one_line_error(play("mark", game, "--unchecked", "r3c3"), "game is over")
    # an action that needs dice names the end (D18), not the missing roll: a finished game has none
    for args in (["mark", game, "r3c3"], ["mark", game, "--best"], ["stop", game], ["fail", game, "--shelf", "best"],
                 ["reroll", "--keep", "C", game, "CBJPP"], ["reroll", game, "CBJPPA"]):
        line = assert_one_line_error(play(*args), "the game is over (D18)")
        assert "rolled" not in line, args
    assert Path(game).read_bytes() == before
    data = json.loads(before)
    data["events"].pop()  # a hand-edited file without the 'over' the rules give (D17, D18)
    Path(game).write_text(json.dumps(data))
    assert_one_line_error(play("status", game), "solo.json: event", "the file ends where the rules give the event 'over'")


@pytest.mark.parametrize("text, fragment", [
    ("", "not valid JSON"),
    ("{\"format\": \"shelfie-solve game 1\", \"players\": [\"a\"]", "truncated"),
    ("{}", "not a saved game"),
])
def test_bad_files(tmp_path: Path, text: str, fragment: str):
    path = tmp_path / "bad.json"
    path.write_text(text)
    assert_one_line_error(play("status", str(path)), fragment)
    assert path.read_text() == text


def test_hand_edited_file_names_the_first_bad_event(midgame: str):
    data = json.loads(Path(midgame).read_text())
    data["events"].append({"event": "mark", "player": 0, "cells": ["r5c5"]})
    Path(midgame).write_text(json.dumps(data))
    line = assert_one_line_error(play("status", midgame), "event 2", "not a legal marking")
    assert "mark" in line
    data["events"][1]["dice"] = "CCB"
    Path(midgame).write_text(json.dumps(data))
    assert_one_line_error(play("status", midgame), "event 1")


def test_new_refuses_an_existing_file_and_bad_players(tmp_path: Path, midgame: str):
    before = Path(midgame).read_bytes()
    line = assert_one_line_error(play("new", midgame, "--players", "a,b"), "exists already")
    assert Path(midgame).read_bytes() == before
    # it names how to go on with that game, and the command runs
    assert f"play status {midgame}" in line
    assert play("status", midgame).exit_code == 0
    # the user's A,B,C,D,E: D1 is 2-4 players; solitaire is this tool's extension, not D1's
    line = assert_one_line_error(play("new", str(tmp_path / "n.json"), "--players", "a,b,c,d,e"),
                                 "a game needs 2 to 4 players (D1), or 1 for solitaire (this tool's extension), got 5")
    assert "1 to 4" not in line and "1 = solitaire" not in line
    assert_one_line_error(play("new", str(tmp_path / "n.json"), "--players", "a,A"), "must differ")
    assert not (tmp_path / "n.json").exists()


def test_first_player_is_drawn_with_a_seed(tmp_path: Path):
    seats = {json.loads(ok("new", str(tmp_path / f"g{i}.json"), "--players", "a,b,c,d", "--seed", str(i),
                           "--format", "json"))["turn"]["seat"] for i in range(12)}
    assert len(seats) > 1  # D5: drawn, not always the first name


def test_simulated_game_reads_as_a_table(tmp_path: Path):
    path = tmp_path / "s.jsonl"
    result = CliRunner().invoke(main, ["simulate", "--players", "greedy,random", "--games", "2", "--seed", "4",
                                       "--jobs", "1", "--save", str(path)])
    assert result.exit_code == 0, result.output
    out = CliRunner().invoke(main, ["review", str(path), "--game", "2", "--player", "2", "--format", "csv"])
    assert out.exit_code == 0 and out.stdout.startswith("number,round,decision")
    assert_one_line_error(CliRunner().invoke(main, ["review", str(path), "--game", "3"]), "holds 2 games")
    assert_one_line_error(play("status", str(path)), "holds 2 games", "review --game N")
    assert_one_line_error(CliRunner().invoke(main, ["review", str(path), "--threshold", "x"]), "not a number")


def test_undo_with_nothing_taken_says_so(tmp_path):
    """A new game has no action to take back: one line that says so (not 'expected 1..1')."""
    from click.testing import CliRunner

    from conftest import assert_one_line_error
    from shelfie_solver.cli import main

    game = str(tmp_path / "g.json")
    assert CliRunner().invoke(main, ["play", "new", game, "--players", "Ann,Ben"]).exit_code == 0
    assert_one_line_error(CliRunner().invoke(main, ["play", "undo", game]), "nothing to undo")


def test_mark_best_with_rerolls_left_tells_the_advice_was_to_reroll(tmp_path: Path):
    """Objective points on an empty default sheet (values in the module docstring). PPPPPG marks
    nothing that scores now (r3c1 P + r3c2 PP leave PP, short of r3c3's 3 dice; value 0), while
    keeping PPPPP scores r3c1 + r3c2 + r3c3 = 2 + 2 + 3 = 7 (D19) when a re-roll shows P or J
    (D11), 1 - (4/6)^2 = 5/9 within two re-rolls: at least 35/9 = 3.8889 points, so the advice is
    to re-roll and --best (stopping, D7) says so. PPPPPP marks those three items now: 7 points,
    the most any 6 dice can make on shelf 3 (1 + 2 + 3 dice), so stopping is best: no note."""
    game = str(tmp_path / "game.json")
    ok("new", game, "--players", "Ann,me", "--first", "me")
    ok("roll", game, "PPPPPG", "--objective", "points")
    out = ok("mark", game, "--best", "--objective", "points")
    lines = out.splitlines()
    assert lines[0].startswith("me stopped with") and "2 re-rolls left unused" in lines[0]
    note = lines[1]
    assert note.startswith("note: the advice was to re-roll (") and note.endswith("; marking now: 0.0000")
    best = float(note.split(");")[0].rsplit(": ", 1)[1])
    assert best >= 3.8889
    ok("roll", game, "PPPPPP", "--objective", "points")
    out = ok("mark", game, "--best", "--objective", "points")
    assert "marked r3c1 r3c2 r3c3" in out and "note:" not in out


@pytest.mark.parametrize("cells, fragments", [
    (["r1c2", "r1c2"], ("r1c2 is named twice", "each item is marked once", "D4")),
    ([], ("names no item", "1 to 3 items", "D9")),
])
def test_a_hand_edited_marking_names_its_problem(tmp_path: Path, cells, fragments):
    """A game file whose 'mark' event was edited by hand: an item named twice (CC marks r1c2, the
    cat shelf's 2-dice item, once, D4, D8) or no item at all (D9: 1 to 3 items a turn) is refused
    in one line that names it, not as dice short of the items ('the items need 4 cat dice')."""
    game = tmp_path / "g.json"
    ok("new", str(game), "--players", "Ann,me", "--first", "me")
    ok("roll", str(game), "CCBJPP")
    ok("mark", str(game), "r1c2")
    data = json.loads(game.read_text())
    mark = next(e for e in data["events"] if e["event"] == "mark")
    mark["cells"] = cells
    game.write_text(json.dumps(data))
    line = assert_one_line_error(play("status", str(game)), *fragments)
    assert "dice show" not in line


def test_a_re_roll_before_the_roll_names_how_to_enter_the_roll(tmp_path: Path):
    """``play reroll`` and ``play stop`` before the turn's initial roll (D6, D7) say how to enter
    it, as every other step refusal names its command (a new user: "has not rolled yet; expected
    the initial roll (D6)" and no command)."""
    game = str(tmp_path / "g.json")
    assert play("new", game, "--players", "Ann,Ben", "--first", "Ann").exit_code == 0
    assert_one_line_error(play("reroll", game, "CCBB", "--keep", "PP"), "Ann has not rolled yet",
                          f"expected the initial roll (D6): play roll {game} DICE")
    assert_one_line_error(play("stop", game), "Ann has not rolled yet", f"play roll {game} DICE")


TINY = str(Path(__file__).resolve().parent.parent / "examples" / "boards" / "tiny-2x3.toml")


def named_command(line: str, head: str) -> list[str]:
    """The command a refusal names from ``head`` (``play mark``) to the end of its clause, split
    as the shell would (so a quoted game file stays one word): what a player would copy."""
    import shlex

    at = line.index(head)
    return shlex.split(re.split(r"[;),]| \(", line[at:])[0])[1:]  # after "play"


def test_a_second_roll_names_the_re_roll_and_the_marking(tmp_path: Path):
    """`play roll GAME DICE` once the turn's roll is recorded (D6: one roll, then re-rolls, D7)
    said only "expected a re-roll (keep some dice), a marking or a failed result": it now names
    the step commands with the game file (quoted for the shell: a name with a space), for what the
    dice showing allow. PGBBCC with 2 re-rolls left: a re-roll, or a stop and a marking; after
    the stop the dice are final: a marking only (C marks r1c1, D8). On the tiny 2 x 3 board
    (shelves of games and cats only) PPPPPP marks nothing: a re-roll or a failed result (D13, D14)."""
    game = str(tmp_path / "my game.json")
    quoted = f"'{game}'"
    ok("new", game, "--players", "Ann,Ben", "--first", "Ann")
    ok("roll", game, "CCBBPG")
    before = Path(game).read_bytes()
    line = assert_one_line_error(play("roll", game, "CCCCCC"), "Ann has rolled already (PGBBCC, 2 re-rolls left",
                                 f"a re-roll (play reroll {quoted} NEW --keep KEPT)", f"play stop {quoted}",
                                 f"play mark {quoted} ITEM...")
    assert "GAME" not in line and Path(game).read_bytes() == before
    ok("stop", game)
    line = assert_one_line_error(play("roll", game, "CCCCCC"), "Ann has rolled already (PGBBCC, final",
                                 f"expected a marking (play mark {quoted} ITEM...)")
    assert "reroll" not in line and "play stop" not in line
    tiny = str(tmp_path / "tiny.json")
    ok("new", tiny, "--players", "Ann,Ben,Cy", "--first", "Ann", "--board", TINY)
    ok("roll", tiny, "PPPPPP")
    line = assert_one_line_error(play("roll", tiny, "GGGCCC"), "Ann has rolled already (PPPPPP, 2 re-rolls left",
                                 f"a re-roll (play reroll {tiny} NEW --keep KEPT), or a failed result "
                                 f"(play fail {tiny} --shelf N)")
    assert "play mark" not in line


def test_an_unchecked_marking_with_dice_recorded_gives_the_checked_command(tmp_path: Path):
    """`play mark GAME ITEM... --unchecked` while the turn's dice are recorded said "mark with them
    (checked)" and no command: it names `play mark GAME ITEM...` with the items given, and that
    command, copied from the line, records the marking (PGBBCC: C marks r1c1, BB r2c2; D8-D10).
    With dice that mark nothing (PPPPPP on the tiny board) it says what is left instead."""
    game = str(tmp_path / "my game.json")
    ok("new", game, "--players", "Ann,Ben", "--first", "Ann")
    ok("roll", game, "CCBBPG")
    before = Path(game).read_bytes()
    line = assert_one_line_error(play("mark", game, "r1c1", "r2c2", "--unchecked"), "the dice PGBBCC are recorded",
                                 f"(checked): play mark '{game}' r1c1 r2c2")
    assert Path(game).read_bytes() == before
    assert "Ann marked r1c1 r2c2." in ok(*named_command(line, "play mark"))
    tiny = str(tmp_path / "tiny.json")
    ok("new", tiny, "--players", "Ann,Ben,Cy", "--first", "Ann", "--board", TINY)
    ok("roll", tiny, "PPPPPP")
    assert_one_line_error(play("mark", tiny, "r1c1", "--unchecked"), "the dice PPPPPP are recorded",
                          "nothing can be marked with PPPPPP", f"play fail {tiny} --shelf N")


def test_a_failed_result_without_a_shelf_names_the_shelves_and_the_form(tmp_path: Path):
    """`play fail GAME` without --shelf was click's "Missing option '--shelf'": it is one line
    naming the shelves a failed result may give up (D13: those with an available item) and the
    form, `--shelf best` only where dice are recorded (the advice needs them). Tiny board, two
    players: before any roll shelves 1 and 2 (no best); Ann's PPPPPP marks nothing: 1, 2 and best;
    once Ann has marked shelf 1 whole (told, r1c1-r1c3), her next PPPPPP leaves shelf 2 only.
    Dice that can mark (PGBBCC, default board) make a failed result impossible (D14): said so.
    (Three players on the tiny board: two would resolve the objective by the exact two-player
    solve, whose progress line comes first in a fresh table cache.)"""
    tiny = str(tmp_path / "tiny.json")
    ok("new", tiny, "--players", "Ann,Ben,Cy", "--first", "Ann", "--board", TINY)
    before = Path(tiny).read_bytes()
    line = assert_one_line_error(play("fail", tiny), "no shelf given",
                                 "a shelf with an available item (D13), here one of shelves 1, 2",
                                 f"(play fail {tiny} --shelf N)")
    assert "best" not in line and "Missing option" not in line and Path(tiny).read_bytes() == before
    ok("roll", tiny, "PPPPPP")
    assert_one_line_error(play("fail", tiny), "here one of shelves 1, 2",
                          f"(play fail {tiny} --shelf N, or --shelf best for the advised one)")
    assert_one_line_error(play("fail", tiny, "--shelf", " "), "no shelf given")
    ok("undo", tiny)
    ok("mark", tiny, "--unchecked", "r1c1", "r1c2", "r1c3")  # Ann closes shelf 1 (D17 needs both: not the end)
    ok("mark", tiny, "--unchecked", "r2c1")  # Ben
    ok("mark", tiny, "--unchecked", "r2c2")  # Cy
    ok("roll", tiny, "PPPPPP")
    line = assert_one_line_error(play("fail", tiny), "here shelf 2;", f"play fail {tiny} --shelf N")
    shelf_2 = ["2" if word == "N" else word for word in named_command(line, "play fail")]
    assert "gave up shelf 2: r2c1 r2c2 r2c3" in ok(*shelf_2)
    game = str(tmp_path / "g.json")
    ok("new", game, "--players", "Ann,Ben", "--first", "Ann")
    ok("roll", game, "CCBBPG")
    assert_one_line_error(play("fail", game), "no shelf given, and none may be", "PGBBCC can mark an item",
                          "must (D14)")


@pytest.mark.parametrize("count, shown", [("0", "0"), ("-1", "-1"), ("x", "'x'"), ("1_0", "'1_0'"),
                                          ("\u0661", "'\u0661'")])
def test_undo_of_no_action_names_the_count_and_the_command(tmp_path: Path, count: str, shown: str):
    """`play undo GAME 0` said click's "0 is not in the range x>=1": it says undo needs a count
    of 1 or more actions and gives the command with the game file; the file is unchanged, and
    the command named undoes the roll."""
    game = str(tmp_path / "my game.json")
    ok("new", game, "--players", "Ann,Ben", "--first", "Ann")
    ok("roll", game, "CCBBPG")
    before = Path(game).read_bytes()
    line = assert_one_line_error(play("undo", game, count), f"undo needs a count of 1 or more actions, not {shown}",
                                 f"expected play undo '{game}' N, e.g. play undo '{game}' 1 (the last action)")
    assert "x>=1" not in line and Path(game).read_bytes() == before
    assert "Undone: Ann's roll PGBBCC." in ok(*named_command(line.split("e.g. ", 1)[1], "play undo"))
