"""The game engine: turn flow, failed results, blocking, the end trigger, scoring, ties, replay.

Hand-worked games on the default board use scripted dice and scripted decisions. Default board
(shelfie_solver/dice/data/default_board.toml): shelves 1-5 take cat, book, plant, game, award; columns
need 1-5 dice; cell = 5 * (shelf - 1) + (column - 1); lines 0-4 are shelves 1-5, lines 5-9
columns 1-5.
"""

from __future__ import annotations

import errno
import io
import json
import os
import re
import stat
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shelfie_solver.dice.allocate import legal_markings
from shelfie_solver.dice.board import parse_marks, score_breakdown
from shelfie_solver.dice.rolls import parse_dice, space_for
from shelfie_solver.dice.game.dice_sources import ScriptedDice
from shelfie_solver.dice.game.events import (
    Block,
    EndTriggered,
    Fail,
    GameError,
    GameOver,
    Hold,
    Mark,
    Pass,
    Roll,
    Start,
    legal_sets,
)
from shelfie_solver.dice.game.record import game_from_json, game_to_json, load_games, replay, save_games
from shelfie_solver.dice.game.turn import ScriptedStrategy, play_game, play_seeded
from shelfie_solver.dice.rules import Ruleset
from shelfie_solver.dice.simulate import game_result
from shelfie_solver.dice.strategies import strategy_named

EMPTY = "...../...../...../...../....."


def seat(name: str, *decisions: Hold | Mark | Fail) -> ScriptedStrategy:
    """A seat that plays the given decisions (a roll not followed by a Hold stops)."""
    return ScriptedStrategy(name, decisions)


def cells(board, *names: str) -> tuple[int, ...]:
    return tuple(sorted(board.parse_cell(n) for n in names))


def test_shelf_and_column_blocked_in_one_turn_and_last_player_ends_at_once(board, rules):
    """D15 (both lines of one turn, on the opponent), D17 and D18: seat 0, last of the round,
    completes shelf 1 and column 1 with r1c1 and so closes its 2nd shelf: the game ends at once."""
    sheets = [parse_marks(".oooo/o..../o..../o..../oxxxx", board), parse_marks(EMPTY, board)]
    dice = ScriptedDice(first=1, rolls=[parse_dice("PGBACJ", rules), parse_dice("CPPGGB", rules)])
    players = [seat("s0", Mark(0, cells(board, "r1c1"))), seat("s1", Mark(1, cells(board, "r2c1")))]
    game = play_game(board, rules, players, dice, sheets=sheets)
    assert game.events == (
        Start(2, 1, (".oooo/o..../o..../o..../oxxxx", EMPTY)),
        Roll(1, parse_dice("PGBACJ", rules), 2),
        Mark(1, cells(board, "r2c1")),
        Roll(0, parse_dice("CPPGGB", rules), 2),
        Mark(0, cells(board, "r1c1")),
        Block(0, 1, 0, cells(board, "r1c1", "r1c2", "r1c3", "r1c4", "r1c5")),  # shelf 1
        Block(0, 1, 5, cells(board, "r3c1", "r4c1", "r5c1")),  # column 1: r1c1 already gone, r2c1 marked
        EndTriggered(0, (0,)),
        # shelf 1 = 1+2+4+7+11 = 25; column 1 = 1+1+2+1+2 = 7; seat 1 has one mark: 0
        GameOver(1, (32, 0), (25, 0), (7, 0), (0,)),
    )
    assert str(game.sheets[1]) == "xxxxx/o..../x..../x..../x...."


def test_end_trigger_by_first_player_plays_the_round_out(board, rules):
    """D18: seat 0 plays first and triggers the end; seat 1 still takes its turn."""
    sheets = [parse_marks(".oooo/o..../o..../o..../oxxxx", board), parse_marks(EMPTY, board)]
    dice = ScriptedDice(first=0, rolls=[parse_dice("CPPGGB", rules), parse_dice("PGBACJ", rules)])
    players = [seat("s0", Mark(0, cells(board, "r1c1"))), seat("s1", Mark(1, cells(board, "r2c2")))]
    game = play_game(board, rules, players, dice, sheets=sheets)
    kinds = [type(e).__name__ for e in game.events]
    assert kinds == ["Start", "Roll", "Mark", "Block", "Block", "EndTriggered", "Roll", "Mark", "GameOver"]
    assert game.over.rounds == 1
    assert game.events[-2] == Mark(1, cells(board, "r2c2"))  # B + J marks the 2-dice book item (D11)


def test_end_trigger_on_an_opponents_sheet_through_blocking(board, rules):
    """D15 + D17: completing shelf 1 eliminates the opponent's shelf 1; with shelf 5 already
    closed the opponent's sheet triggers the end, not the active player's."""
    sheets = [parse_marks(".oooo/...../...../...../.....", board), parse_marks("...../...../...../...../xxxxx", board)]
    dice = ScriptedDice(first=0, rolls=[parse_dice("CPPGGB", rules), parse_dice("PGBACJ", rules)])
    players = [seat("s0", Mark(0, cells(board, "r1c1"))), seat("s1", Mark(1, cells(board, "r3c1")))]
    game = play_game(board, rules, players, dice, sheets=sheets)
    assert game.events[3:6] == (
        Block(0, 1, 0, cells(board, "r1c1", "r1c2", "r1c3", "r1c4", "r1c5")),
        EndTriggered(0, (1,)),
        Roll(1, parse_dice("PGBACJ", rules), 2),
    )
    assert game.over == GameOver(1, (25, 0), (25, 0), (0, 0), (0,))


def test_failed_result_shelf_must_have_an_available_item(board, rules):
    """D13: no item can be marked (columns 1-2 gone, no three of a face); shelf 1 is closed so it
    is not offered, choosing it is illegal, and giving up shelf 3 eliminates its 3 items."""
    start = parse_marks("xxxxx/xx.../xx.../xx.../xx...", board)
    offered = []

    class Recorder(ScriptedStrategy):
        def choose_shelf(self, state, dice, shelves, rng):
            offered.append(shelves)
            return super().choose_shelf(state, dice, shelves, rng)

    roll = parse_dice("PGBACJ", rules)
    assert legal_markings(roll, board, start, rules) == []
    with pytest.raises(GameError, match="D13"):
        play_game(board, rules, [seat("bad", Fail(0, 0, ()))], ScriptedDice(0, [roll]), sheets=[start])
    game = play_game(board, rules, [Recorder("ok", [Fail(0, 2, ())])], ScriptedDice(0, [roll]), sheets=[start])
    assert offered == [(1, 2, 3, 4)]
    # solitaire (D1): shelves 1 and 3 closed -> the end trigger ends the game at once (D17, D18)
    assert game.events[2:] == (Fail(0, 2, cells(board, "r3c3", "r3c4", "r3c5")), EndTriggered(0, (0,)),
                               GameOver(1, (0,), (0,), (0,), (0,)))


def test_ties_are_shared_victories(board, rules):
    """D20: equal totals (13 each: shelf 2 = 1+3+4, column 1 = 1+2+2) are both winners, 1/2 each."""
    text = "xxxxx/ooo../...../...../oxxxx"
    sheets = [parse_marks(text, board), parse_marks(text, board)]
    dice = ScriptedDice(first=0, rolls=[parse_dice("PGBACJ", rules)] * 2)
    players = [seat("a", Mark(0, cells(board, "r3c1"))), seat("b", Mark(1, cells(board, "r3c1")))]
    game = play_game(board, rules, players, dice, sheets=sheets)
    assert game.events[3] == EndTriggered(0, (0, 1))
    assert game.over == GameOver(1, (13, 13), (8, 8), (5, 5), (0, 1))
    result = game_result(game)
    assert [s.win for s in result.seats] == [Fraction(1, 2), Fraction(1, 2)]


def test_re_rolls_keep_the_held_dice_and_stop_after_the_last(board, rules):
    """D7: two re-rolls at most; a re-roll must contain the dice kept."""
    rolls = [parse_dice("PGBACJ", rules), parse_dice("CCBAAG", rules), parse_dice("CCCCPP", rules)]
    decisions = [Hold(0, parse_dice("C", rules, count=-1)), Hold(0, parse_dice("CC", rules, count=-1)),
                 Mark(0, cells(board, "r1c4"))]
    start = parse_marks("xxx.x/...../...../...../xxxxx", board)  # r1c4 closes a 2nd shelf: the end
    game = play_game(board, rules, [seat("s", *decisions)], ScriptedDice(0, rolls), sheets=[start])
    assert [e.rerolls_left for e in game.events if isinstance(e, Roll)] == [2, 1, 0]
    bad = ScriptedDice(0, [rolls[0], parse_dice("PPPPPP", rules)])
    with pytest.raises(GameError, match="D7"):
        play_game(board, rules, [seat("s", Hold(0, parse_dice("C", rules, count=-1)))], bad, sheets=[start])


def test_illegal_marking_and_hold_are_refused(board, rules):
    """D8/D14: the marking must be legal with the final dice; D7: the hold must be part of the roll."""
    roll = parse_dice("PGBACJ", rules)
    with pytest.raises(GameError, match="not legal"):
        play_game(board, rules, [seat("s", Mark(0, cells(board, "r1c5")))], ScriptedDice(0, [roll]))
    with pytest.raises(GameError, match="D7"):
        play_game(board, rules, [seat("s", Hold(0, parse_dice("CC", rules, count=-1)))], ScriptedDice(0, [roll]))


def test_player_counts(board, rules):
    """D1: 2 to 4 players; 1 is solitaire, this tool's extension (the message cites D1 only for 2-4)."""
    with pytest.raises(GameError, match=re.escape("a game needs 2 to 4 players (D1), or 1 for solitaire (this "
                                                  "tool's extension), got 0")):
        play_game(board, rules, [], ScriptedDice(0, []))
    with pytest.raises(GameError, match=re.escape("(D1), or 1 for solitaire (this tool's extension), got 5")):
        play_game(board, rules, [strategy_named("greedy")] * 5, ScriptedDice(0, []))


def test_a_sheet_without_available_items_passes(board, rules):
    """A sheet with nothing available cannot mark and has no shelf to give up (D13): it passes."""
    sheets = [parse_marks(EMPTY, board), parse_marks("xxxxx/xxxxx/xxxxx/xxxxx/xxxxx", board)]
    dice = ScriptedDice(first=0, rolls=[parse_dice("PGBACJ", rules)])
    game = play_game(board, rules, [seat("a", Mark(0, cells(board, "r1c1"))), seat("b")], dice, sheets=sheets)
    assert game.events[3:] == (EndTriggered(0, (1,)), Pass(1), GameOver(1, (0, 0), (0, 0), (0, 0), (0, 1)))


def test_the_game_ends_even_when_the_trigger_exceeds_the_shelves(board):
    """A ruleset whose trigger needs more shelves than the board has still ends (module docstring)."""
    rules = Ruleset(end_trigger_shelves=9)
    game = play_seeded(board, rules, [strategy_named("random")] * 2, 5)
    assert any(isinstance(e, EndTriggered) for e in game.events)
    assert any(m.closed_shelves() == board.n_shelves for m in game.sheets)


@pytest.mark.parametrize("names", [("random", "greedy"), ("threshold", "solver", "random"), ("greedy",),
                                   ("random", "random", "random", "random")])
def test_seeded_games_follow_the_rules(board, rules, names):
    """Invariants of every game: equal turns per player (D18), every turn marks or eliminates,
    scores are D19's, winners are the top totals (D20); replay reproduces the game."""
    for seed in range(3):
        game = play_seeded(board, rules, [strategy_named(n) for n in names], seed)
        start = game.events[0]
        assert isinstance(start, Start)
        turns = [0] * len(names)
        for event in game.events:
            if isinstance(event, (Mark, Fail, Pass)):
                turns[event.player] += 1
        assert len(set(turns)) == 1 and turns[0] == game.over.rounds
        for p, sheet in enumerate(game.sheets):
            shelves, columns = score_breakdown(board, sheet, rules)
            assert (game.over.shelf_points[p], game.over.column_points[p]) == (shelves, columns)
        assert set(game.over.winners) == {p for p, s in enumerate(game.scores) if s == max(game.scores)}
        assert replay(game) == game


def test_same_seed_same_game(board, rules):
    players = [strategy_named("random"), strategy_named("threshold")]
    assert play_seeded(board, rules, players, 11) == play_seeded(board, rules, players, 11)
    firsts = {play_seeded(board, rules, players, s).events[0].first for s in range(12)}
    assert firsts == {0, 1}  # D5: the first player is drawn


def test_json_round_trip_and_replay(board, rules, tmp_path):
    games = [play_seeded(board, rules, [strategy_named("solver"), strategy_named("random")], s) for s in range(2)]
    path = tmp_path / "games.jsonl"
    save_games(str(path), (game_to_json(g, game=i) for i, g in enumerate(games)))
    loaded = list(load_games(str(path)))
    assert loaded == games
    assert [g.sheets for g in loaded] == [g.sheets for g in games]
    one = tmp_path / "one.json"
    one.write_text(json.dumps(json.loads(game_to_json(games[0])), indent=2))
    assert list(load_games(str(one))) == games[:1]


def test_tampered_saves_do_not_replay(board, rules):
    game = play_seeded(board, rules, [strategy_named("greedy"), strategy_named("greedy")], 3)
    data = json.loads(game_to_json(game))
    over = data["events"][-1]
    over["scores"] = [s + 1 for s in over["scores"]]
    with pytest.raises(GameError, match="does not replay"):
        game_from_json(json.dumps(data))
    data = json.loads(game_to_json(game))
    mark = next(e for e in data["events"] if e["event"] == "mark")
    mark["cells"] = ["r5c5"]
    with pytest.raises(GameError):
        game_from_json(json.dumps(data))
    with pytest.raises(GameError, match="format"):
        game_from_json("{}")
    with pytest.raises(GameError, match="JSON"):
        game_from_json("{not json")
    data = json.loads(game_to_json(game))
    data["events"][1]["dice"] = "ZZZZZZ"
    with pytest.raises(GameError):
        game_from_json(json.dumps(data))


def test_save_is_whole_or_nothing(tmp_path):
    path = tmp_path / "out.jsonl"
    path.write_text("old\n")

    def lines():
        yield "a"
        raise RuntimeError("stop")

    with pytest.raises(RuntimeError):
        save_games(str(path), lines())
    assert path.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.jsonl"]
    with pytest.raises(GameError, match="cannot write"):
        save_games(str(tmp_path / "missing" / "x.jsonl"), ["a"])


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_save_gets_the_permissions_open_would_give(tmp_path):
    """A new file: 0o666 less the umask (not mkstemp's 0o600); a replaced file keeps its mode."""
    path = tmp_path / "new.jsonl"
    save_games(str(path), ["a"])
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~_umask()
    path.chmod(0o640)
    save_games(str(path), ["b"], force=True)  # "a" is no saved game: replaced with --force only
    assert stat.S_IMODE(path.stat().st_mode) == 0o640 and path.read_text() == "b\n"


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symbolic links")
def test_save_through_a_symlink_writes_the_file_it_points_to(tmp_path):
    real = tmp_path / "real.jsonl"
    real.write_text("old\n")
    link = tmp_path / "link.jsonl"
    link.symlink_to(real)
    save_games(str(link), ["new"], force=True)  # "old" is no saved game: --force
    assert link.is_symlink() and real.read_text() == "new\n"
    dangling = tmp_path / "dangling.jsonl"  # docs/formats.md, "Output": never creates the link's target
    dangling.symlink_to(tmp_path / "later.jsonl")
    with pytest.raises(GameError, match="symbolic link to a missing file"):
        save_games(str(dangling), ["x"])
    assert not (tmp_path / "later.jsonl").exists()
    outside = tmp_path / "sub" / "out.jsonl"
    outside.parent.mkdir()
    outside.symlink_to(real)  # real is outside sub/
    with pytest.raises(GameError, match="outside"):
        save_games(str(outside), ["y"])
    assert real.read_text() == "new\n"


@pytest.mark.parametrize("kind", ["directory", "fifo", "device", "empty"])
def test_save_refuses_what_is_not_a_regular_file(tmp_path, kind):
    if kind == "directory":
        path = str(tmp_path)
    elif kind == "fifo":
        if not hasattr(os, "mkfifo"):
            pytest.skip("needs FIFOs")
        path = str(tmp_path / "fifo")
        os.mkfifo(path)
    elif kind == "device":
        if not os.path.exists("/dev/full"):
            pytest.skip("needs /dev/full")
        path = "/dev/full"
    else:
        path = ""
    expected = {"directory": "a directory", "fifo": "FIFO", "device": "device", "empty": "empty"}[kind]
    with pytest.raises(GameError, match=expected) as info:
        save_games(path, ["a"])
    assert "\n" not in str(info.value)
    assert [p.name for p in tmp_path.iterdir()] == (["fifo"] if kind == "fifo" else [])


@pytest.mark.parametrize("fail", ["write", "replace"])
def test_failed_save_leaves_no_temp_file(tmp_path, monkeypatch, fail):
    """A full disk (the flush on close) or a failed os.replace: the old file stays, no temp file."""
    from shelfie_solver.core import files

    path = tmp_path / "out.jsonl"
    path.write_text("old\n")

    def no_space(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    if fail == "replace":
        monkeypatch.setattr(files.os, "replace", no_space)
    else:
        real_open = open

        class FullDisk(io.BufferedWriter):
            def close(self):
                super().close()
                no_space()

        monkeypatch.setattr(files, "open", lambda p, mode: FullDisk(real_open(p, mode, buffering=0)), raising=False)
    with pytest.raises(GameError, match="No space left"):
        save_games(str(path), ["new"], force=True)
    assert [p.name for p in tmp_path.iterdir()] == ["out.jsonl"] and path.read_text() == "old\n"


@settings(max_examples=60, deadline=None)
@given(marked=st.integers(0, 2**25 - 1), eliminated=st.integers(0, 2**25 - 1), roll=st.integers(0, 461))
def test_legal_sets_equal_the_allocator(board, rules, marked, eliminated, roll):
    """The fast table lookup lists exactly allocate.legal_markings's sets, in the same order."""
    from shelfie_solver.dice.board import Marks

    marks = Marks(5, 5, marked, eliminated & ~marked)
    dice = space_for(rules).rolls[roll]
    expected = [m.cells for m in legal_markings(dice, board, marks, rules)]
    assert legal_sets(dice, board, marks, rules).all_cells() == expected


def test_all_jokers_mark_any_one_item(board, rules):
    """D12: six Jokers mark any one available item, e.g. the 5-dice r5c5."""
    legal = legal_sets(parse_dice("JJJJJJ", rules), board, parse_marks(EMPTY, board), rules)
    assert legal.all_cells() == [(c,) for c in range(25)]
    assert np.array_equal(legal.sets.sizes, np.ones(25))


def test_played_turns_are_the_turns_that_rolled_with_their_start_sheets():
    # every turn that rolled ends in exactly one Mark or Fail (D6-D13); the state at its start
    # holds the sheets the earlier events made, found here by replaying them one by one
    from shelfie_solver.dice.board import load_board
    from shelfie_solver.dice.game.events import Fail, Mark, UncheckedMark, apply_to_sheets
    from shelfie_solver.dice.rules import DEFAULT_RULES
    from shelfie_solver.dice.strategies import strategy_named

    board = load_board(None, DEFAULT_RULES)
    game = play_seeded(board, DEFAULT_RULES, [strategy_named("greedy")] * 3, 5)
    turns = game.played_turns()
    ends = [e for e in game.events if isinstance(e, (Mark, UncheckedMark, Fail))]
    assert [action for _, action in turns] == ends
    sheets = [parse_marks(text, board) for text in game.events[0].sheets]
    for event in game.events:
        for before, action in turns:
            if action is event:
                assert before.active == event.player and tuple(sheets) == before.sheets
        apply_to_sheets(event, sheets)
