"""A seat still to play once the mover's game is over has exactly one turn left (D18), so the
reach that settles the mover's exact 1 is the best score one turn can give that seat's sheet,
not its score with every available item marked (win_chance.settled_bounds, D13, D15, D17-D20).

The breaker's position (simulate --players win,win,win,win --games 1 --seed 5, then play undo 4,
exploration only): round 7, four players, seat 0 first (D5); seat 2 to mark with final dice
GGGBBJ. Seats 0 (79) and 1 (55) have played this round's turn; seat 3 (42) plays after seat 2.
Marking r2c3 closes seat 2's second shelf (D17): the round is played out (D18), seat 3 has one
turn left and no turn of it reaches 81, so seat 2 wins alone (D20). Before the fix its advice
said 100% only through a model figure (84.3%) and play status showed seat 3 15.7% (model) at
its last turn start while its own exact value was 0."""

from __future__ import annotations

from fractions import Fraction

from shelfie_solver.dice.allocate import legal_markings
from shelfie_solver.dice.board import load_board, parse_marks, score
from shelfie_solver.dice.game.events import GameState, Mark
from shelfie_solver.dice.play.chances import after_turn_chances, seat_chances
from shelfie_solver.dice.rolls import space_for
from shelfie_solver.dice.rules import DEFAULT_RULES
from shelfie_solver.dice.win_chance import settled_bounds

BOARD, RULES = load_board(None, DEFAULT_RULES), DEFAULT_RULES
TEXT = ("oo.oo/oxo../ooo../oxoo./ooo..", "xooox/xooo./xo.../xoo../xoo..",
        "xxoo./ox.oo/oxooo/xx.../ox...", "ox.o./oooxx/xo.../xxoo./ooo..")
SHEETS = tuple(parse_marks(t, BOARD) for t in TEXT)
BEFORE = GameState(BOARD, RULES, SHEETS, active=2, first=0, turn=26, end_triggered=False)
R2C3 = BOARD.cell(1, 2)


def one_turn_reach(index: int) -> int:
    """Brute force: the best score seat ``index`` can have after one turn (every final roll's
    every legal marking, D8-D12; a failed result keeps the score, D13; D19)."""
    marks = SHEETS[index]
    return max([score(BOARD, marks, RULES)] + [score(BOARD, marks.with_marked(m.cells), RULES)
                                               for roll in space_for(RULES).rolls
                                               for m in legal_markings(roll, BOARD, marks, RULES)])


def test_the_position_is_as_the_breaker_saw_it() -> None:
    assert [score(BOARD, s, RULES) for s in SHEETS] == [79, 55, 66, 42]
    assert score(BOARD, SHEETS[2].with_marked((R2C3,)), RULES) == 81


def test_the_high_bound_is_the_later_seat_s_one_turn_reach() -> None:
    # seats 0 and 1 are final (79, 55: they played before seat 2 this round, D18); seat 3 has one turn
    reach = one_turn_reach(3)
    assert reach < 79
    # high is seat 0's final 79; a final 79 of seat 2 would share the victory with seat 0 alone
    # (seat 3 cannot reach 79): 2 ways (D20)
    assert settled_bounds(BEFORE) == (79, max(79, 55, reach), 2)


def test_a_final_score_above_every_one_turn_reach_is_an_exact_one_at_the_hand_off() -> None:
    # r2c3 (no line of seat 2 completed: no block, D15) ends seat 2's game with 81, above the
    # final 79 and 55 and above seat 3's one-turn reach: seat 2 wins alone (D20), the others 0
    now = GameState(BOARD, RULES, SHEETS[:2] + (SHEETS[2].with_marked((R2C3,)), SHEETS[3]),
                    active=3, first=0, turn=27, end_triggered=True)
    want = [(Fraction(0), True), (Fraction(0), True), (Fraction(1), True), (Fraction(0), True)]
    assert after_turn_chances(BEFORE, Mark(2, (R2C3,)), now) == want  # the figure of the marking
    assert seat_chances(now) == want  # the last roller's own view agrees


def _sheet(marked: int, eliminated: int):
    from shelfie_solver.dice.board import Marks

    return Marks(BOARD.n_shelves, BOARD.n_columns, marked, eliminated)


#: The breaker's second position (simulate --players win,win,win,win --games 1 --seed 9, play undo
#: 12 and 11, exploration only): seat 1 (first in the round, D5) marks r4c4 (cell 18), its second
#: closed shelf (D17, its block D15 takes items from the others); seats 2, 3 and 0 have one turn
#: each (D18). Seat 2 (84 points) cannot reach seat 1's 130 in its one turn.
BEFORE_2 = GameState(BOARD, RULES, (_sheet(16137440, 98335), _sheet(15969739, 32), _sheet(24949896, 198755),
                                    _sheet(13872431, 2097216)), active=1, first=1, turn=32, end_triggered=False)
NOW_2 = GameState(BOARD, RULES, (_sheet(16137440, 98591), _sheet(16231883, 32), _sheet(24949896, 8587619),
                                 _sheet(13872431, 2359360)), active=2, first=1, turn=33, end_triggered=True)


def test_a_roller_that_cannot_win_is_an_exact_zero_and_the_mover_keeps_its_figure() -> None:
    # the roller's own value is an exact 0 (its one-turn reach, brute force, below 130: D19, D20);
    # shown as a model 0, the floor took a millionth from seat 1's figure, so play status right
    # after the marking said 84.0033% where the advice had said 84.0034% for it; now no seat
    # after seat 1 can reach 130 (the seats still to play: win_chance.lost_seats), so seat 1 is
    # an exact 1
    from shelfie_solver.dice.play.chances import model_floor

    marks = NOW_2.sheets[2]
    reach = max([score(BOARD, marks, RULES)] + [score(BOARD, marks.with_marked(m.cells), RULES)
                                               for roll in space_for(RULES).rolls
                                               for m in legal_markings(roll, BOARD, marks, RULES)])
    assert reach < 130 == score(BOARD, NOW_2.sheets[1], RULES)
    assert seat_chances(NOW_2)[2] == (Fraction(0), True)
    chances = after_turn_chances(BEFORE_2, Mark(1, (18,)), NOW_2)
    assert chances[2] == (Fraction(0), True)
    assert sum(c for c, _ in chances) == 1
    assert model_floor(chances) == chances  # nothing taken from the mover's figure
    # seats 3 and 0, the last two to play (D18), cannot reach 130 in their one turn either (brute
    # force): seat 1's 130 wins alone, an exact 1, every other an exact 0 (win_chance.lost_seats)
    for seat in (3, 0):
        marks = NOW_2.sheets[seat]
        assert max([score(BOARD, marks, RULES)] + [score(BOARD, marks.with_marked(m.cells), RULES)
                                                  for roll in space_for(RULES).rolls
                                                  for m in legal_markings(roll, BOARD, marks, RULES)]) < 130
    assert chances == [(Fraction(0), True), (Fraction(1), True), (Fraction(0), True), (Fraction(0), True)]
