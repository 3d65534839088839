"""Two contenders left (D18, D20): once the mover's game is over, where every other seat but one
has lost (its best final score below another score: win_chance.lost_seats) and that one plays
its last turn next (no seat with an available item between them: nothing can block its sheet
first, D15), the mover's chance is 1 minus that seat's exact chance on its last turn against the
mover's final score (a shared victory counts 1/2 to each of the two: the lost seats are never at
the top), as with two players (win_chance.BeforeLastWin).

The breaker's game (tiny-2x3, three players A, X, Y; A first, D5: each round A, X, Y), made with
unchecked markings and a failed result::

    play new x.json --players A,X,Y --first A --board examples/boards/tiny-2x3.toml
    play mark x.json r1c1 r1c2 --unchecked    # A
    play fail x.json --shelf 2                # X gives up shelf 2 (D13)
    play mark x.json r2c1 --unchecked         # Y
    play mark x.json r1c3 --unchecked         # A: shelf 1 complete, 1 + 2 + 4 = 7 points (D19)

A's r1c3 blocks shelf 1 on X's and Y's sheets (D15): X has no available item left, its second
closed shelf triggers the end (D17), and X, at 0, cannot reach A's 7 (lost). Y, at 0, plays the
game's last turn (D18): it wins (10 points) when it marks r2c2 and r2c3 beside r2c1 (shelf 2:
2 + 3 + 5), else it has 0 and A wins. So A's chance is 1 - Y's last-turn chance against 7.
Before the fix the advice and play status gave A 41.3% (model) and at Y's turn start Y 58.7%
(model) where Y's own exact value was 25.2%.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from conftest import EXAMPLES

from shelfie_solver.dice.board import item_sets, load_board, parse_marks, score
from shelfie_solver.dice.game.events import GameState, Mark
from shelfie_solver.dice.learned.win_model import CHANCE_SCALE, compiled_win_values, win_objective
from shelfie_solver.dice.objective_names import advice_objective
from shelfie_solver.dice.objectives import StateArrays
from shelfie_solver.dice.play.chances import after_turn_chances, seat_chances
from shelfie_solver.dice.rules import DEFAULT_RULES
from shelfie_solver.dice.win_chance import opponent_chance

RULES = DEFAULT_RULES
BOARD = load_board(EXAMPLES / "boards" / "tiny-2x3.toml", RULES)
A, X, Y = (parse_marks(t, BOARD) for t in ("oo./...", ".../xxx", ".../o.."))
BEFORE = GameState(BOARD, RULES, (A, X, Y), active=0, first=0, turn=3, end_triggered=False)
R1C3 = BOARD.cell(0, 2)
AFTER = (A.with_marked((R1C3,)), parse_marks("xxx/xxx", BOARD), parse_marks("xxx/o..", BOARD))
NOW = GameState(BOARD, RULES, AFTER, active=2, first=0, turn=5, end_triggered=True)
#: Y's exact chance on its last turn against A's 7 (LastTurnWin through the engine, brute-force
#: tested in tests/test_win_chance.py): what A does not win (two contenders, D20)
Y_CHANCE = opponent_chance(BOARD, RULES, AFTER[2], (7, 0))


def test_the_position_is_as_the_breaker_saw_it() -> None:
    assert [score(BOARD, s, RULES) for s in AFTER] == [7, 0, 0]
    assert not AFTER[1].has_available  # X passes, lost at 0 (D13, D17)
    assert opponent_chance(BOARD, RULES, AFTER[2], (7,)) == Y_CHANCE  # X's 0 changes nothing
    assert 0 < Y_CHANCE < 1


def _marking_value(objective) -> int:
    arrays = StateArrays(BOARD, RULES, A)
    sets = item_sets(BOARD, RULES.combinations_per_turn)
    row = int(np.flatnonzero((sets.cells[:, 0] == R1C3) & (sets.cells[:, 1:] < 0).all(axis=1))[0])
    value = objective.values(arrays, sets.take([row]))[0]
    assert objective.exact_markings(arrays, sets.take([row]))[0]
    return int(value)


def rounded(chance: Fraction) -> int:
    """A chance in the model's millionths, half up (win_model.rounded_chances)."""
    return int((chance * 2 * CHANCE_SCALE + 1) // 2)


def test_the_marking_is_worth_one_minus_the_last_seat_s_chance() -> None:
    objective = advice_objective("win", BEFORE)
    assert _marking_value(objective) == rounded(1 - Y_CHANCE)


def test_the_compiled_paths_agree() -> None:
    pytest.importorskip("numba")
    from shelfie_solver.dice.allocate import feasibility_arrays

    sets = feasibility_arrays(BOARD, RULES).sets
    row = int(np.flatnonzero((sets.cells[:, 0] == R1C3) & (sets.cells[:, 1:] < 0).all(axis=1))[0])
    for found in (compiled_win_values(BEFORE), win_objective(BEFORE).compiled_turn_values(StateArrays(BOARD, RULES, A))):
        assert found is not None and found[0][row] == rounded(1 - Y_CHANCE)


def test_play_status_right_after_is_exact() -> None:
    chances = after_turn_chances(BEFORE, Mark(0, (R1C3,)), NOW)
    assert chances[1] == (Fraction(0), True)
    assert chances[0][1] and chances[2][1]  # exact, as the advice's figure is
    assert chances[0][0] == 1 - Y_CHANCE  # the exact fraction, not its millionths (test_exact_fractions.py)
    assert sum(c for c, _ in chances) == 1
    own = seat_chances(NOW)  # Y's own view at its last turn start: the rest, exactly
    assert own[2] == (Y_CHANCE, True)
    assert chances[2][0] == Y_CHANCE


# A shelf given up (D13) that ends the mover's game with two contenders left: the breaker's game on
# held-out-3x4-4153 (three players, seat 2 first, D5: each round 2, 0, 1; exploration seed 5 of a
# sweep of games played by win's advice with random choices). Seat 2 (6 points) gives up shelf 3,
# its second closed shelf (D17): its game is over at 6 (D18); seat 0 plays next and seat 1 last.
# Seat 1 cannot reach 6 in its one turn (brute force below): the two contenders are seat 2 and
# seat 0, so seat 2's chance is 1 minus seat 0's last-turn chance against 6. Before the fix the
# advice and play status said 41.0% (model) where seat 0's own exact value was 73.8%.
HELD = load_board(EXAMPLES / "boards" / "held-out-3x4-4153.toml", RULES)
SHEETS_H = tuple(parse_marks(t, HELD) for t in ("xxxo/oo../.o..", ".x.o/xxxx/.o..", "xoxx/.o.o/.o.."))
BEFORE_H = GameState(HELD, RULES, SHEETS_H, active=2, first=2, turn=9, end_triggered=False)


def test_a_shelf_given_up_with_two_contenders_left_is_exact() -> None:
    from shelfie_solver.dice.allocate import legal_markings
    from shelfie_solver.dice.rolls import space_for

    seat1 = SHEETS_H[1]
    reach = max([score(HELD, seat1, RULES)] + [score(HELD, seat1.with_marked(m.cells), RULES)
                                               for roll in space_for(RULES).rolls
                                               for m in legal_markings(roll, HELD, seat1, RULES)])
    assert [score(HELD, s, RULES) for s in SHEETS_H] == [0, 0, 6] and reach < 6
    want = rounded(1 - opponent_chance(HELD, RULES, SHEETS_H[0], (6, 0)))
    objective = advice_objective("win", BEFORE_H)
    arrays = StateArrays(HELD, RULES, SHEETS_H[2])
    assert dict(objective.shelf_values(arrays))[2] == want
    assert 2 in objective.exact_shelves(arrays)
    pytest.importorskip("numba")
    for found in (compiled_win_values(BEFORE_H), win_objective(BEFORE_H).compiled_turn_values(arrays)):
        assert found is not None and dict(found[2])[2] == want
