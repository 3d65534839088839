"""A game whose every final score is known before it ends is decided (D18-D20): every seat's
chance is its exact share of the victory, and ``play status`` says so for every seat, not only
for some (docs/play.md: "a decided game must say so").

The breaker's game (tiny-2x3, four players P0-P3, P2 first, D5: each round P2, P3, P0, P1; found
by a sweep of games played by win's advice with random holds and choices, exploration seed 4).
Round 2, the end triggered (D17); P0 has just given up shelf 2 (D13, its last turn) and P1
plays the game's last turn (D18)::

    P0  xxx/xxx   0 points, no available item
    P1  x../xo.   0 points: r1c2, r1c3, r2c3 available; no line of it can reach 3 marked items
                  (shelf 1 and 2 lost r?c1, columns have 2 items), so it ends at 0 (D19)
    P2  xxx/xxx   0 points
    P3  o../oxx   0 points, played its last turn

Every seat ends at 0: a four-way shared victory, 1/4 each (D20). Before the fix play status
showed P0 25.0% (exact), P1 23.4% (exact: the roller's own exact 25% scaled to fit, still
flagged exact), P2 24.1% and P3 27.5% (model).
"""

from __future__ import annotations

from fractions import Fraction

from conftest import EXAMPLES

from shelfie_solver.dice.allocate import legal_markings
from shelfie_solver.dice.board import load_board, parse_marks, score
from shelfie_solver.dice.game.events import Fail, GameState
from shelfie_solver.dice.play.chances import after_turn_chances, decided_chances, seat_chances
from shelfie_solver.dice.rolls import space_for
from shelfie_solver.dice.rules import DEFAULT_RULES

RULES = DEFAULT_RULES
BOARD = load_board(EXAMPLES / "boards" / "tiny-2x3.toml", RULES)
NOW = GameState(BOARD, RULES, tuple(parse_marks(t, BOARD) for t in ("xxx/xxx", "x../xo.", "xxx/xxx", "o../oxx")),
                active=1, first=2, turn=7, end_triggered=True)
BEFORE = GameState(BOARD, RULES, (parse_marks("xxx/x..", BOARD),) + NOW.sheets[1:], active=0, first=2, turn=6,
                   end_triggered=True)
QUARTER = [(Fraction(1, 4), True)] * 4


def test_every_final_score_is_known() -> None:
    p1 = NOW.sheets[1]
    assert [score(BOARD, s, RULES) for s in NOW.sheets] == [0, 0, 0, 0]
    assert {score(BOARD, p1.with_marked(m.cells), RULES) for roll in space_for(RULES).rolls
            for m in legal_markings(roll, BOARD, p1, RULES)} == {0}  # P1's last turn cannot score


def test_the_decided_game_is_every_seat_s_exact_share() -> None:
    assert decided_chances(NOW) == QUARTER
    assert after_turn_chances(BEFORE, Fail(0, 1, (BOARD.cell(1, 1), BOARD.cell(1, 2))), NOW) == QUARTER
    assert seat_chances(NOW) == QUARTER
