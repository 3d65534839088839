"""A blocking threat (D15) needs an opponent who still has a turn: once the end is triggered
(D17), an opponent who has played its last turn of the round (D18) can complete no line, so its
line one item short threatens nothing and ``play`` does not warn of it.

The breaker's game (small-3x4, three players A, B, C; C first, D5: each round C, A, B)::

    play new t.json --players A,B,C --first C --board examples/boards/small-3x4.toml
    play mark t.json r1c1 r1c2 r1c3 --unchecked   # C
    play mark t.json r2c2 r2c3 --unchecked        # A
    play fail t.json --shelf 3                    # B
    play mark t.json r1c4 --unchecked             # C: blocks shelf 1 (D15), B's second closed shelf (D17)
    play mark t.json r2c4 --unchecked             # A: its last turn (D18)

At B's turn, the game's last, A's shelf 2 has three of its four items marked (r2c1 open) and B
still has r2c1..r2c4 available: before the fix ``play status`` warned "Blocking threat (D15): A
completes shelf 2 with one more item (r2c1): B's r2c1, r2c2, r2c3, r2c4 are at risk" though A
plays no more.
"""

from __future__ import annotations

from conftest import EXAMPLES

from shelfie_solver.dice.board import load_board
from shelfie_solver.dice.game.events import Fail, UncheckedMark
from shelfie_solver.dice.play.gamefile import act, blocking_threats, start_kept_game, warnings
from shelfie_solver.dice.rules import DEFAULT_RULES

RULES = DEFAULT_RULES
BOARD = load_board(EXAMPLES / "boards" / "small-3x4.toml", RULES)


def _game(last: bool = True):
    cell = BOARD.cell
    kept = start_kept_game(BOARD, RULES, ("A", "B", "C"), 2)
    kept = act(kept, (UncheckedMark(2, (cell(0, 0), cell(0, 1), cell(0, 2))),))
    kept = act(kept, (UncheckedMark(0, (cell(1, 1), cell(1, 2))),))
    kept = act(kept, (Fail(1, 2, tuple(cell(2, c) for c in range(4))),))
    if last:
        kept = act(kept, (UncheckedMark(2, (cell(0, 3),)),))
        kept = act(kept, (UncheckedMark(0, (cell(1, 3),)),))
    return kept


def test_an_opponent_with_no_turn_left_threatens_nothing() -> None:
    kept = _game()
    assert kept.state.end_triggered and kept.state.active == 1 and kept.over is None
    a = kept.state.sheets[0]
    assert a.count_marked(BOARD.lines[1]) == 3 and a.is_available(BOARD.cell(1, 0))  # shelf 2 one short
    assert blocking_threats(kept) == []
    assert not any("Blocking threat" in w for w in warnings(kept))


def test_before_the_end_an_opponent_who_plays_again_threatens() -> None:
    # round 2 before the end: C marks r3c1 (no line complete, no end); at A's turn C's shelf 1
    # (r1c4 open) and column 1 (r1c1 and r3c1 marked, r2c1 open) are one item short, and C plays
    # again next round: both threaten A's available items there (D15)
    kept = _game(last=False)
    assert not kept.state.end_triggered and kept.state.active == 2
    kept = act(kept, (UncheckedMark(2, (BOARD.cell(2, 0),)),))
    assert kept.state.active == 0 and not kept.state.end_triggered
    assert [(t.seat, t.line) for t in blocking_threats(kept)] == [(2, 0), (2, BOARD.n_shelves + 0)]
