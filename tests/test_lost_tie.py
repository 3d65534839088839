"""A last round where every seat still to play can no longer win (D18-D20): its turn cannot change
any other seat's share of the victory, so the active player's last turn is decided by the final
scores alone, and a marking that ties the best final score is an exact shared victory (D20).

The breaker's position (small-3x4, three players A, B, C; C plays first, D5, so each round is C,
A, B), made with unchecked markings and failed results::

    play new t.json --players A,B,C --first C --board examples/boards/small-3x4.toml
    play mark t.json r1c1 r1c2 r1c3 --unchecked   # C
    play mark t.json r2c2 r2c3 --unchecked        # A
    play fail t.json --shelf 3                    # B gives up shelf 3 (D13)
    play mark t.json r1c4 --unchecked             # C completes shelf 1 (11 points): it blocks
                                                  # A's and B's shelf 1 (D15); B's second closed
                                                  # shelf triggers the end (D17)

A (0 points) then plays its last turn; B plays after it, with only shelf 2 left: its best turn
marks r2c1 + r2c2 + r2c3 (1 + 2 + 3 = 6 dice) for 1 + 3 + 2 = 6 points (brute force below), below
C's final 11, so B has lost whatever happens (win_chance.lost_seats) and cannot reach any score
that could share a victory. A marking r2c4 (4 award dice) scores shelf 2's r2c2 + r2c3 + r2c4 =
3 + 2 + 6 = 11 (D19): a tie with C at the top, each an exact 1/2 (D20), B an exact 0. Before the
fix the advice said 49.2% (model) for r2c4 and ``play status`` right after said A 49.2%, C 50.8%
(model): a decided game shown as an estimate.
"""

from __future__ import annotations

from fractions import Fraction

from conftest import EXAMPLES

from shelfie_solver.dice.allocate import legal_markings
from shelfie_solver.dice.board import load_board, parse_marks, score
from shelfie_solver.dice.game.events import GameState, Mark
from shelfie_solver.dice.play.chances import after_turn_chances, seat_chances
from shelfie_solver.dice.rolls import space_for
from shelfie_solver.dice.rules import DEFAULT_RULES

RULES = DEFAULT_RULES
BOARD = load_board(EXAMPLES / "boards" / "small-3x4.toml", RULES)
A, B, C = (parse_marks(t, BOARD) for t in ("xxxx/.oo./....", "xxxx/..../xxxx", "oooo/..../...."))
BEFORE = GameState(BOARD, RULES, (A, B, C), active=0, first=2, turn=4, end_triggered=True)
R2C4 = BOARD.cell(1, 3)
NOW = GameState(BOARD, RULES, (A.with_marked((R2C4,)), B, C), active=1, first=2, turn=5, end_triggered=True)


def one_turn_reach(marks) -> int:
    """Brute force: the best score ``marks`` can have after one turn (every final roll's every
    legal marking, D8-D12; a failed result keeps the score, D13; D19)."""
    return max([score(BOARD, marks, RULES)] + [score(BOARD, marks.with_marked(m.cells), RULES)
                                               for roll in space_for(RULES).rolls
                                               for m in legal_markings(roll, BOARD, marks, RULES)])


def test_the_position_is_as_the_breaker_saw_it() -> None:
    assert [score(BOARD, s, RULES) for s in (A, B, C)] == [0, 0, 11]
    assert score(BOARD, NOW.sheets[0], RULES) == 11
    assert one_turn_reach(B) == 6 < 11  # B cannot reach C's final score: it has lost


def test_a_marking_that_ties_the_best_final_score_is_an_exact_half() -> None:
    half = Fraction(1, 2)
    want = [(half, True), (Fraction(0), True), (half, True)]
    assert after_turn_chances(BEFORE, Mark(0, (R2C4,)), NOW) == want  # the figure of the marking
    assert seat_chances(NOW) == want  # B's own view at its last turn agrees


def test_the_last_turn_beside_seats_that_have_lost_is_exact() -> None:
    # A's chance at its turn start depends only on its own final score against C's final 11 (D20):
    # exact, as a last turn against final scores is
    chances = seat_chances(BEFORE)
    assert all(exact for _, exact in chances)
    assert chances[1] == (Fraction(0), True)
    assert sum(c for c, _ in chances) == 1


# The same board and seats, the end not triggered: a shelf given up that ends the mover's game at
# the best final score, with the seat still to play unable to reach it, is an exact shared victory.
#
#     play mark u.json r1c1 r1c2 r1c3 --unchecked   # C (round 1)
#     play mark u.json r2c2 r2c3 --unchecked        # A
#     play mark u.json r2c1 --unchecked             # B
#     play mark u.json r1c4 --unchecked             # C: 11 points, blocks A's and B's shelf 1 (D15)
#     play mark u.json r2c4 --unchecked             # A: shelf 2's r2c2 + r2c3 + r2c4 = 11 points
#     play mark u.json r3c1 --unchecked             # B
#     play mark u.json r2c1 --unchecked             # C (round 3): still 11, one closed shelf
#     play fail u.json --shelf 3                    # A: its second closed shelf (D13, D17)
#
# A's game is over at 11 (the round is played out, D18), C's 11 is final (C played this round's
# turn before A), B has one turn left and its best (brute force) is 10: A and C share the victory,
# 1/2 each (D20), B 0. Before the fix: A 43.7%, C 56.3% (model).
A2, B2, C2 = (parse_marks(t, BOARD) for t in ("xxxx/.ooo/....", "xxxx/o.../o...", "oooo/o.../...."))
BEFORE2 = GameState(BOARD, RULES, (A2, B2, C2), active=0, first=2, turn=7, end_triggered=False)
SHELF3 = tuple(BOARD.cell(2, c) for c in range(BOARD.n_columns))
NOW2 = GameState(BOARD, RULES, (A2.with_eliminated(SHELF3), B2, C2), active=1, first=2, turn=8, end_triggered=True)


def test_the_second_position_is_as_the_breaker_saw_it() -> None:
    assert [score(BOARD, s, RULES) for s in (A2, B2, C2)] == [11, 0, 11]
    assert one_turn_reach(B2) == 10 < 11  # r2c2 + r2c4 (2 + 4 dice) beside r2c1: 1 + 3 + 6
    assert NOW2.sheets[0].closed_shelves() == 2  # D17: the end is triggered by A's failed result


def test_a_shelf_given_up_that_ties_the_best_final_score_is_an_exact_half() -> None:
    from shelfie_solver.dice.game.events import Fail

    half = Fraction(1, 2)
    want = [(half, True), (Fraction(0), True), (half, True)]
    assert after_turn_chances(BEFORE2, Fail(0, 2, SHELF3), NOW2) == want
    assert seat_chances(NOW2) == want


def test_the_tie_is_settled_alike_in_the_numpy_and_the_compiled_paths() -> None:
    # settled_bounds: C's 11 is the best score now and, B's reach being 10, the best reach: a final
    # 11 shares with C alone, 2 ways; win's value of giving up shelf 3 (A's game over at 11) is
    # CHANCE_SCALE / 2 in both paths (win_chance.settled_shares)
    import pytest

    from shelfie_solver.dice.learned.win_model import CHANCE_SCALE, compiled_win_values, win_objective
    from shelfie_solver.dice.objectives import StateArrays
    from shelfie_solver.dice.win_chance import settled_bounds

    assert settled_bounds(BEFORE2) == (11, 11, 2)
    arrays = StateArrays(BOARD, RULES, A2)
    assert dict(win_objective(BEFORE2).shelf_values(arrays))[2] == CHANCE_SCALE // 2
    pytest.importorskip("numba")
    found = compiled_win_values(BEFORE2)
    assert found is not None and dict(found[2])[2] == CHANCE_SCALE // 2


# Four players, the first position with a fourth seat D like B (shelves 1 and 3 closed, 6 points
# at best in one turn): seats 0 C, 1 A, 2 B, 3 D, C first (D5), so the last round is C, A, B, D.
# After A's r2c4 (11, a tie with C's final 11) B and D still play, and neither can reach 11.
C4, A4, B4, D4 = (parse_marks(t, BOARD) for t in ("oooo/..../....", "xxxx/.oo./....", "xxxx/..../xxxx",
                                                  "xxxx/..../xxxx"))
BEFORE4 = GameState(BOARD, RULES, (C4, A4, B4, D4), active=1, first=0, turn=5, end_triggered=True)
NOW4 = GameState(BOARD, RULES, (C4, A4.with_marked((R2C4,)), B4, D4), active=2, first=0, turn=6,
                 end_triggered=True)


def test_four_players_the_tie_stays_exact_while_a_lost_seat_rolls() -> None:
    # B's every roll leaves B at 0 (its reach 6 below 11) and C and A at 1/2 each (D20), D at 0:
    # B's own view at a roll and play status's figures within B's turn are those exact figures
    from shelfie_solver.dice.play.chances import rest_final, within_turn_chances

    half, zero = Fraction(1, 2), Fraction(0)
    want = [(half, True), (half, True), (zero, True), (zero, True)]
    assert one_turn_reach(D4) == 6
    start = after_turn_chances(BEFORE4, Mark(1, (R2C4,)), NOW4)
    assert start == want
    for roll in space_for(RULES).rolls[:20]:
        for rerolls in (2, 0):
            now = seat_chances(NOW4, roll, rerolls)
            assert now == want
            scores = [score(BOARD, s, RULES) for s in NOW4.sheets]
            assert within_turn_chances(start, 2, now[2], scores, rest_final(NOW4, 2)) == want
