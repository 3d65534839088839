"""A marking whose blocks (D15) trigger the end on another player's sheet (D17) ends the mover's
game as surely as its own closed shelves do: the round is played out (D18) and the mover's score
is final, so its chance is settled exactly where the settled bounds say so (win_chance.settled_bounds,
settled_shares; D19, D20).

The breaker's game (tiny-2x3, four players P0-P3, P3 first, D5: each round P3, P0, P1, P2; found
by a sweep of games played by win's advice, exploration seed 3). Round 2, P1 to mark with final dice
GGGBAC:

    P0  xxo/oo.   0 points, played this round (final)
    P1  oo./xo.   0 points, r1c1 r1c2 r2c2 marked
    P2  ox./ox.   0 points, plays after P1
    P3  oo./xxx   0 points, played this round, one closed shelf (shelf 2 given up, D13)

P1 marking r1c3 completes its shelf 1 (1 + 2 + 4 = 7 points, D19) and blocks r1c3 on P2's and
P3's sheets (D15): P3's shelf 1 closes too, its second closed shelf, so the end is triggered
(D17) and the round is played out: only P2 plays once more. P2's sheet after the block,
oxx/ox., has one available item, r2c3, and no line of it can reach 3 marked items (shelves and
columns of 3 and 2 items, two already lost), so P2 ends at 0 (brute force below). P1 wins alone:
exactly 1 (D20). Before the fix the advice said 39.8% (model) for r1c3 and ``play status``
right after said 100% (exact): two screens, two figures for one position.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from conftest import EXAMPLES

from shelfie_solver.dice.advise.advice import rank_markings
from shelfie_solver.dice.allocate import legal_markings
from shelfie_solver.dice.board import load_board, parse_marks, score
from shelfie_solver.dice.game.events import GameState, Mark
from shelfie_solver.dice.objective_names import advice_objective
from shelfie_solver.dice.play.chances import after_turn_chances
from shelfie_solver.dice.rolls import parse_dice, space_for
from shelfie_solver.dice.rules import DEFAULT_RULES
from shelfie_solver.dice.sheet_rules import block, completed_lines

RULES = DEFAULT_RULES
BOARD = load_board(EXAMPLES / "boards" / "tiny-2x3.toml", RULES)
SHEETS = tuple(parse_marks(t, BOARD) for t in ("xxo/oo.", "oo./xo.", "ox./ox.", "oo./xxx"))
BEFORE = GameState(BOARD, RULES, SHEETS, active=1, first=3, turn=6, end_triggered=False)
R1C3 = BOARD.cell(0, 2)
DICE = parse_dice("GGGBAC", RULES)


def after_r1c3() -> tuple:
    """Every sheet after P1 marks r1c3 and its blocks (D15), by hand from the sheets' lines."""
    mine = SHEETS[1].with_marked((R1C3,))
    new = tuple(line for line in completed_lines(BOARD, mine) if line not in completed_lines(BOARD, SHEETS[1]))
    sheets = SHEETS[:1] + (mine,) + SHEETS[2:]
    return block(BOARD, sheets, 1, new)[0]


def test_the_position_is_as_the_breaker_saw_it() -> None:
    after = after_r1c3()
    assert [score(BOARD, s, RULES) for s in after] == [0, 7, 0, 0]
    assert after[3].closed_shelves() == 2  # D17 on P3's sheet, by P1's block
    assert str(after[2]) == "oxx/ox."
    # P2's one turn left: every final roll's every legal marking (D8-D12) leaves it at 0 (D19)
    reach = max([0] + [score(BOARD, after[2].with_marked(m.cells), RULES) for roll in space_for(RULES).rolls
                       for m in legal_markings(roll, BOARD, after[2], RULES)])
    assert reach == 0


def test_the_advice_gives_the_marking_its_exact_one() -> None:
    objective = advice_objective("win", BEFORE)
    options = rank_markings(DICE, BOARD, BEFORE.marks, RULES, objective)
    best = options[0]
    assert best.marking.cells == (R1C3,)
    assert (best.value, best.exact) == (Fraction(1), True)


def test_the_status_right_after_agrees() -> None:
    after = after_r1c3()
    now = GameState(BOARD, RULES, after, active=2, first=3, turn=7, end_triggered=True)
    want = [(Fraction(0), True), (Fraction(1), True), (Fraction(0), True), (Fraction(0), True)]
    assert after_turn_chances(BEFORE, Mark(1, (R1C3,)), now) == want


def test_the_compiled_path_agrees() -> None:
    pytest.importorskip("numba")
    from shelfie_solver.dice.allocate import feasibility_arrays
    from shelfie_solver.dice.learned.win_model import CHANCE_SCALE, compiled_win_values, win_objective
    from shelfie_solver.dice.objectives import StateArrays

    sets = feasibility_arrays(BOARD, RULES).sets
    row = int(np.flatnonzero((sets.cells[:, 0] == R1C3) & (sets.cells[:, 1:] < 0).all(axis=1))[0])
    for found in (compiled_win_values(BEFORE),
                  win_objective(BEFORE).compiled_turn_values(StateArrays(BOARD, RULES, BEFORE.marks))):
        assert found is not None
        assert found[0][row] == CHANCE_SCALE


# The second position (tiny-3x2, three players, P2 first: each round P2, P0, P1; exploration seed
# 4 of the same sweep). Round 2, P0 to mark with final dice GBAJJJ:
#
#     P0  o./o./o.  6 points (column 1: 1 + 2 + 3, D19)
#     P1  x./xo/x.  0 points, plays after P0
#     P2  x./xo/o.  0 points, played this round (final)
#
# P0 marking r2c2 + r3c2 closes its shelves 2 and 3 (D17: the end, the round played out, D18) at
# 6 points, and completes shelf 3, which blocks P1's r3c2 (D15). Before the block P1's one turn
# could complete column 2 (r1c2 + r3c2 beside r2c2: 3 + 2 + 1 = 6, a tie); after it P1 has only
# r1c2 left and column 2 can no longer reach 3 marked items: P1 ends at 0, P0 wins alone, exactly
# 1 (D20). Before the fix the advice said 64.7% (model), play status right after 100% (exact).
BOARD32 = load_board(EXAMPLES / "boards" / "tiny-3x2.toml", RULES)
SHEETS32 = tuple(parse_marks(t, BOARD32) for t in ("o./o./o.", "x./xo/x.", "x./xo/o."))
BEFORE32 = GameState(BOARD32, RULES, SHEETS32, active=0, first=2, turn=4, end_triggered=False)
CELLS32 = (BOARD32.cell(1, 1), BOARD32.cell(2, 1))


def one_turn_reach(board, marks) -> int:
    """Brute force: the best score ``marks`` can have after one turn (D8-D13, D19)."""
    return max([score(board, marks, RULES)] + [score(board, marks.with_marked(m.cells), RULES)
                                               for roll in space_for(RULES).rolls
                                               for m in legal_markings(roll, board, marks, RULES)])


def test_a_block_that_takes_the_last_seat_s_reach_settles_the_marking() -> None:
    mine = SHEETS32[0].with_marked(CELLS32)
    new = tuple(line for line in completed_lines(BOARD32, mine) if line not in completed_lines(BOARD32, SHEETS32[0]))
    after = block(BOARD32, SHEETS32[:0] + (mine,) + SHEETS32[1:], 0, new)[0]
    assert score(BOARD32, mine, RULES) == 6 and mine.closed_shelves() == 2
    assert one_turn_reach(BOARD32, SHEETS32[1]) == 6  # before the block: a tie was within reach
    assert str(after[1]) == "x./xo/xx" and one_turn_reach(BOARD32, after[1]) == 0
    objective = advice_objective("win", BEFORE32)
    options = rank_markings(parse_dice("GBAJJJ", RULES), BOARD32, SHEETS32[0], RULES, objective)
    chosen = next(o for o in options if o.marking.cells == CELLS32)
    assert (chosen.value, chosen.exact) == (Fraction(1), True)
    now = GameState(BOARD32, RULES, after, active=1, first=2, turn=5, end_triggered=True)
    want = [(Fraction(1), True), (Fraction(0), True), (Fraction(0), True)]
    assert after_turn_chances(BEFORE32, Mark(0, CELLS32), now) == want
    pytest.importorskip("numba")
    from shelfie_solver.dice.allocate import feasibility_arrays
    from shelfie_solver.dice.learned.win_model import CHANCE_SCALE, compiled_win_values, win_objective
    from shelfie_solver.dice.objectives import StateArrays

    sets = feasibility_arrays(BOARD32, RULES).sets
    row = int(np.flatnonzero((sets.cells[:, :2] == sorted(CELLS32)).all(axis=1) & (sets.cells[:, 2:] < 0).all(axis=1))[0])
    for found in (compiled_win_values(BEFORE32),
                  win_objective(BEFORE32).compiled_turn_values(StateArrays(BOARD32, RULES, SHEETS32[0]))):
        assert found is not None
        assert found[0][row] == CHANCE_SCALE
