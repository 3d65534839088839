"""The click-free game at the table: warnings that know the game (D15, D17, D18, D19), undo,
the end of a solitaire game, reading simulate's games, and two writers on one file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from shelfie_solver.dice.game.events import Fail, UncheckedMark
from shelfie_solver.dice.game.record import game_to_dict
from shelfie_solver.dice.game.turn import play_seeded
from shelfie_solver.dice.strategies import strategy_named
from shelfie_solver.dice.play.gamefile import (
    act,
    create_file,
    split_actions,
    undo,
    warnings,
)
from shelfie_solver.dice.play.gamefile import kept_game_from_dict as table_from_dict
from shelfie_solver.dice.play.gamefile import new_kept_game as new_table
from shelfie_solver.dice.play.gamefile import read_kept_game as read_table

from conftest import ROOT


def told(table, *names):
    return act(table, (UncheckedMark(table.active, tuple(sorted(table.board.parse_cell(n) for n in names))),))


def test_blocking_threat_end_near_and_score_gap(board, rules):
    table = new_table(board, rules, ["Ann", "Ben"], 0)
    table = told(table, "r3c1", "r3c2", "r3c3")  # Ann: shelf 3 has 3 of 5 marked
    table = told(table, "r2c1")  # Ben
    table = told(table, "r3c4")  # Ann: shelf 3 one item (r3c5) from complete
    notes = warnings(table)  # Ben to play
    threat = [n for n in notes if n.startswith("Blocking threat")]
    assert threat == ["Blocking threat (D15): Ann completes shelf 3 with one more item (r3c5): Ben's r3c1, "
                      "r3c2, r3c3, r3c4, r3c5 are at risk."]
    # D19 by hand: Ann's shelf 3 = 2 + 2 + 3 + 7 = 14; Ben has 1 mark = 0
    assert "Score now for Ben (D19): 0, best opponent 14 (-14)." in notes
    assert not any(n.startswith("End near") for n in notes)


def give_up(table, shelf):
    """An unchecked failed result (no dice recorded) giving up 1-based ``shelf`` (D13)."""
    lost = tuple(c for c in table.board.lines[shelf - 1] if table.state.marks.is_available(c))
    return act(table, (Fail(table.active, shelf - 1, lost),))


def test_end_near_and_last_round(board, rules):
    table = new_table(board, rules, ["Ann", "Ben", "Cy"], 1)  # Ben first (D5): Ben, Cy, Ann
    table = give_up(table, 1)  # Ben gives up shelf 1
    table = give_up(table, 2)  # Cy gives up shelf 2
    table = told(table, "r1c1")  # Ann
    notes = warnings(table)  # Ben to play; D17's trigger is 2 closed shelves
    assert "End near (D17): Ben has 1 closed shelf; one more triggers the last round." in notes  # named, not "you"
    assert "End near (D17): Cy has 1 closed shelf; one more triggers the last round." in notes
    table = give_up(table, 2)  # Ben: 2 closed shelves: the end is triggered (D17)
    assert table.state.end_triggered and table.active_name == "Cy"
    assert warnings(table)[0] == ("Last round (D18): the end is triggered; 1 more turn after this one, "
                                  "then the game is over.")
    table = told(table, "r3c1")  # Cy
    assert warnings(table)[0].startswith("Last round (D18): the end is triggered; 0 more turns")
    table = told(table, "r3c1")  # Ann, the last of the round (D18)
    assert table.over is not None and table.over.rounds == 2


def test_undo_gives_back_the_same_game(board, rules):
    table = new_table(board, rules, ["a", "b"], 0)
    after = told(told(table, "r1c1"), "r2c2")
    assert undo(after, 2).events == table.events
    assert undo(after, 1).events == told(table, "r1c1").events


def test_a_simulated_game_derives_the_same_events(board, rules):
    game = play_seeded(board, rules, [strategy_named("threshold"), strategy_named("random")], 5)
    table = table_from_dict(game_to_dict(game))
    assert table.events == game.events and table.over == game.over
    assert table.sheets == game.sheets


def test_two_writers_never_lose_an_action(tmp_path: Path, board, rules):
    path = str(tmp_path / "g.json")
    create_file(path, new_table(board, rules, ["a", "b", "c", "d"], 0))
    script = f"""
import sys, time
sys.path.insert(0, {str(ROOT)!r})
from shelfie_solver.dice.game.events import UncheckedMark
from shelfie_solver.dice.play.gamefile import act, update_file
def change(t):
    time.sleep(0.3)  # both processes hold a read of the file: without the lock one action is lost
    return act(t, (UncheckedMark(t.active, (int(sys.argv[1]),)),))
update_file({path!r}, change)
"""
    procs = [subprocess.Popen([sys.executable, "-c", script, str(cell)]) for cell in (0, 6)]
    assert [p.wait(timeout=60) for p in procs] == [0, 0]
    table = read_table(path)
    assert table.actions == 2
    marked = sorted(c for m in table.sheets for c in range(25) if m.marked >> c & 1)
    assert marked == [0, 6]
    json.loads(Path(path).read_text())


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(1, 4), back=st.integers(1, 6))
def test_any_simulated_game_derives_and_undoes(board, rules, seed, players, back):
    """Property: a game of random play, derived action by action through the table, gives the
    engine's very events (blocks, passes, end trigger, scores); undoing k actions and redoing
    them gives the same game again."""
    game = play_seeded(board, rules, [strategy_named("random")] * players, seed)
    table = table_from_dict(game_to_dict(game))
    assert table.events == game.events
    actions = [a for _, a in split_actions(table.events)]
    k = min(back, len(actions))
    again = undo(table, k)
    for action in actions[len(actions) - k:]:
        again = act(again, action)
    assert again.events == table.events
