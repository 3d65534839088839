"""RULES.md as tests: each of D8-D19 checked by hand-worked examples on the default board.

The default board (shelfie_solver/dice/data/default_board.toml), written out here so every expected
value below can be checked by hand:

    columns need   1   2   3   4   5   dice of one face
    shelf 1 cat    1   2   4   7  11
    shelf 2 book   1   3   4   6  10
    shelf 3 plant  2   2   3   7  12
    shelf 4 game   1   2   5   6  11
    shelf 5 award  2   3   4   8   9

Dice codes: P plant, G game, B book, A award, C cat, J Joker.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from itertools import combinations

import pytest

from shelfie_solver.dice.advise.advice import advise, failed_options
from shelfie_solver.dice.allocate import find_groups, legal_markings
from shelfie_solver.dice.board import Marks, parse_marks, score, score_breakdown
from shelfie_solver.dice.rolls import parse_dice, space_for
from shelfie_solver.dice.engine.dp import final_values as final_table
from shelfie_solver.dice.errors import MarksError
from shelfie_solver.dice.objectives import CellTarget, Points, Safe, StateArrays, Strategic, shelf_losses
from shelfie_solver.dice.rules import DEFAULT_RULES, Ruleset

EMPTY = "...../...../...../...../....."


def cells(board, *names: str) -> tuple[int, ...]:
    """Cell indices of item names, sorted (the order legal_markings uses)."""
    return tuple(sorted(board.parse_cell(n) for n in names))


def marking_sets(dice: str, board, marks: str = EMPTY, rules: Ruleset = DEFAULT_RULES) -> set[tuple[str, ...]]:
    """The item sets legal_markings finds, as tuples of item names."""
    found = legal_markings(parse_dice(dice, rules), board, parse_marks(marks, board), rules)
    return {tuple(board.cell_name(c) for c in m.cells) for m in found}


def names(board, *items: str) -> tuple[str, ...]:
    return tuple(board.cell_name(c) for c in cells(board, *items))


def test_default_board_is_the_documented_one(board):
    """The hand-worked examples below rely on this layout."""
    assert board.columns == (1, 2, 3, 4, 5)
    assert board.values == ((1, 2, 4, 7, 11), (1, 3, 4, 6, 10), (2, 2, 3, 7, 12), (1, 2, 5, 6, 11), (2, 3, 4, 8, 9))
    faces = [DEFAULT_RULES.sides[f[0]].name for f in board.shelf_faces]
    assert faces == ["cat", "book", "plant", "game", "award"]


# --- D8: a group is exactly n(c) dice of one face the shelf accepts ---------------------------

def test_D8_same_face_and_shelf_face(board, rules):
    """D8: two cats mark the 2-dice cat item r1c2; two cats cannot mark the book shelf's r2c2."""
    cc = parse_dice("CCPGBA", rules)
    groups = find_groups(cc, cells(board, "r1c2"), board, rules)
    assert groups is not None and groups[0].face == rules.face_index("cat")
    assert (groups[0].matching, groups[0].jokers) == (2, 0)
    assert find_groups(cc, cells(board, "r2c2"), board, rules) is None


def test_D8_group_needs_the_column_number(board, rules):
    """D8: a 3-dice item needs three matching dice; two cats are not enough for r1c3."""
    assert find_groups(parse_dice("CCPGBA", rules), cells(board, "r1c3"), board, rules) is None
    assert find_groups(parse_dice("CCCGBA", rules), cells(board, "r1c3"), board, rules) is not None


def test_D8_mixed_faces_never_form_a_group(board, rules):
    """D8: cat + book is not a group of one face: r1c2 (cat) and r2c2 (book) both impossible."""
    dice = parse_dice("CBPPGA", rules)
    assert find_groups(dice, cells(board, "r1c2"), board, rules) is None
    assert find_groups(dice, cells(board, "r2c2"), board, rules) is None


def test_D8_D9_every_marking_of_CCPGBA_by_hand(board):
    """D8/D9: with C C P G B A and no Joker, the single items are the five 1-die items (one die
    each) and the 2-cat item r1c2; any 1..3 of them can be marked together except r1c1 with r1c2
    (that needs three cats). 6 singles + 14 pairs + 16 triples = 36 markings."""
    singles = ["r1c1", "r1c2", "r2c1", "r3c1", "r4c1", "r5c1"]
    expected = set()
    for size in (1, 2, 3):
        for combo in combinations(singles, size):
            if not {"r1c1", "r1c2"} <= set(combo):
                expected.add(names(board, *combo))
    assert len(expected) == 36
    assert marking_sets("CCPGBA", board) == expected


# --- D9: at most 3 items; a die in at most one group; unused dice fine ---------------------------

def test_D9_at_most_three_items(board):
    """D9: C P G B A could mark all five 1-die items, but a turn marks at most 3."""
    found = marking_sets("CPGBAJ", board)
    assert max(len(s) for s in found) == 3
    assert names(board, "r1c1", "r2c1", "r3c1") in found
    ones = ["r1c1", "r2c1", "r3c1", "r4c1", "r5c1"]
    assert all(names(board, *combo) in found for combo in combinations(ones, 3))


def test_D9_a_die_belongs_to_one_group(board, rules):
    """D9: two cats mark r1c1 (one die) or r1c2 (two dice), never both (that needs three)."""
    dice = parse_dice("CCPPGG", rules)
    assert find_groups(dice, cells(board, "r1c1"), board, rules) is not None
    assert find_groups(dice, cells(board, "r1c2"), board, rules) is not None
    assert find_groups(dice, cells(board, "r1c1", "r1c2"), board, rules) is None


def test_D9_unused_dice_are_fine(board, rules):
    """D9: one cat marks r1c1 with five dice left over; the marking uses one die."""
    found = legal_markings(parse_dice("CPPPPP", rules), board, Marks.empty(board), rules)
    single = [m for m in found if m.cells == cells(board, "r1c1")]
    assert len(single) == 1 and single[0].dice_used() == 1


# --- D10: several items on the same shelf in one turn ------------------------------------------

def test_D10_several_items_on_one_shelf(board, rules):
    """D10: three cats mark r1c1 (C) and r1c2 (CC) in the same turn."""
    dice = parse_dice("CCCPPG", rules)
    groups = find_groups(dice, cells(board, "r1c1", "r1c2"), board, rules)
    assert groups is not None
    assert sorted(g.codes(rules) for g in groups) == ["C", "CC"]
    assert names(board, "r1c1", "r1c2") in marking_sets("CCCPPG", board)


def test_D10_D14_all_cats_by_hand(board):
    """D10/D14: six cats on the empty board mark shelf-1 item sets whose dice needs sum to <= 6:
    5 singles, the pairs {1,2},{1,3},{1,4},{1,5},{2,3},{2,4} and the triple {1,2,3}; extra cats
    stay unused (e.g. r1c5 alone uses 5 of the 6)."""
    expected = set()
    for size in (1, 2, 3):
        for combo in combinations(range(1, 6), size):
            if sum(combo) <= 6:
                expected.add(names(board, *(f"r1c{c}" for c in combo)))
    assert len(expected) == 12
    assert marking_sets("CCCCCC", board) == expected


# --- D11: Joker limits --------------------------------------------------------------------------

def test_D11a_at_most_one_joker_per_group(board, rules):
    """D11(a): C C J J marks the 3-dice r1c3 (CC+J) but not the 4-dice r1c4 (CC+JJ)."""
    dice = parse_dice("CCJJPG", rules)
    groups = find_groups(dice, cells(board, "r1c3"), board, rules)
    assert groups is not None and (groups[0].matching, groups[0].jokers) == (2, 1)
    assert find_groups(dice, cells(board, "r1c4"), board, rules) is None


def test_D11b_joker_never_alone_and_never_marks_a_one_die_item(board, rules):
    """D11(b): with no cat showing, a Joker cannot mark the 1-die cat item r1c1, and J+J is not
    a 2-dice group either."""
    dice = parse_dice("JJPPPG", rules)
    assert find_groups(dice, cells(board, "r1c1"), board, rules) is None
    assert find_groups(dice, cells(board, "r1c2"), board, rules) is None
    assert not any(board.parse_cell("r1c1") in s or board.parse_cell("r1c2") in s
                   for s in (m.cells for m in legal_markings(dice, board, Marks.empty(board), rules)))


def test_D11_n_minus_one_plus_joker(board, rules):
    """D11: a group of n dice is n matching dice or n-1 matching plus one Joker:
    C+J marks r1c2, CCCC+J marks r1c5, CCC+JJ does not mark r1c5."""
    groups = find_groups(parse_dice("CJPPBG", rules), cells(board, "r1c2"), board, rules)
    assert groups is not None and (groups[0].matching, groups[0].jokers) == (1, 1)
    groups = find_groups(parse_dice("CCCCJP", rules), cells(board, "r1c5"), board, rules)
    assert groups is not None and (groups[0].matching, groups[0].jokers) == (4, 1)
    assert find_groups(parse_dice("CCCJJP", rules), cells(board, "r1c5"), board, rules) is None


def test_D11_one_joker_serves_one_group(board, rules):
    """D11/D9: C+J and P+J both need a Joker: one Joker marks r1c2 or r3c2, two mark both."""
    one = parse_dice("CPJGGB", rules)
    assert find_groups(one, cells(board, "r1c2"), board, rules) is not None
    assert find_groups(one, cells(board, "r3c2"), board, rules) is not None
    assert find_groups(one, cells(board, "r1c2", "r3c2"), board, rules) is None
    assert find_groups(parse_dice("CPJJGB", rules), cells(board, "r1c2", "r3c2"), board, rules) is not None


# --- D12: all six Jokers mark any one available item -----------------------------------------

def test_D12_all_jokers_mark_any_one_item(board, rules):
    """D12: six Jokers mark any one available item (25 on the empty board), never two."""
    found = legal_markings(parse_dice("JJJJJJ", rules), board, Marks.empty(board), rules)
    assert sorted(m.cells for m in found) == [(c,) for c in range(25)]
    assert all(m.groups[0].jokers == 6 for m in found)


def test_D12_only_available_items(board, rules):
    """D12: on a mid-game sheet six Jokers mark only the available items."""
    marks = parse_marks("oo.o./o.o../xoxxx/.oo../o....", board)
    found = legal_markings(parse_dice("JJJJJJ", rules), board, marks, rules)
    assert [m.cells[0] for m in found] == list(marks.available)
    assert len(found) == 25 - 13


def test_D12_five_jokers_are_ordinary(board, rules):
    """D12 is only for all six dice: five Jokers and one cat follow D11 (C+J marks r1c2, the
    5-dice r1c5 needs four cats)."""
    found = marking_sets("JJJJJC", board)
    assert found == {names(board, "r1c1"), names(board, "r1c2")}


def test_D12_switched_off(board):
    """D12 is configurable: without it six Jokers mark nothing (D11b) — a failed result."""
    rules = replace(DEFAULT_RULES, all_jokers_mark_any=False)
    assert marking_sets("JJJJJJ", board, rules=rules) == set()


def test_D12_in_the_engine(board, rules):
    """D12 in the final-roll table: the all-Jokers roll marks any item, e.g. the 5-dice r5c5."""
    space = space_for(rules)
    jokers = space.roll_index[parse_dice("JJJJJJ", rules)]
    table = final_table(board, Marks.empty(board), rules, CellTarget(board.parse_cell("r5c5")))
    assert table.columns[jokers, 0] == 1 and table.columns[jokers, 1] == 0


# --- D13: failed result ---------------------------------------------------------------------------

def test_D13_failed_result_when_nothing_markable(board, rules):
    """D13: six cats with every cat item marked or eliminated mark nothing: a failed result."""
    marks = parse_marks("ooxxx/...../...../...../.....", board)
    dice = parse_dice("CCCCCC", rules)
    assert legal_markings(dice, board, marks, rules) == []
    result = advise(dice, board, marks, rules, Strategic(), rerolls=0)
    assert result.markings == () and result.failed


def test_D13_shelf_to_give_up_by_hand(board, rules):
    """D13: with shelf 1 = o o x x x, the other shelves can be given up. The strategic potential
    (docs/objectives.md) has only two non-zero lines before: column 1 (1 marked of value 1, four
    available worth 1+2+1+2 = 6: (1/3)(7/2) = 7/6) and column 2 (1 marked worth 2, available
    3+2+2+3 = 10: (1/3)(12/2) = 2). Giving up shelf s removes one available item from each:
    change = -(v(s,1) + v(s,2)) / 6: shelf 2 -4/6, shelf 3 -4/6, shelf 4 -3/6, shelf 5 -5/6.
    Least costly first, ties in shelf order: 4, 2, 3, 5."""
    marks = parse_marks("ooxxx/...../...../...../.....", board)
    options = failed_options(board, marks, rules)
    assert [o.shelf + 1 for o in options] == [4, 2, 3, 5]
    assert [o.potential_change for o in options] == [Fraction(-1, 2), Fraction(-2, 3), Fraction(-2, 3), Fraction(-5, 6)]
    assert options[0].lost_points == 1 + 2 + 5 + 6 + 11 and len(options[0].lost_items) == 5
    state = StateArrays(board, rules, marks)
    assert Fraction(Strategic().failed_value(state), 6) == Fraction(-1, 2)
    result = advise(parse_dice("CCCCCC", rules), board, marks, rules, Strategic(), rerolls=0)
    assert result.value == Fraction(-1, 2)


def test_D13_only_shelves_with_an_available_item(board, rules):
    """D13: a shelf (never a column) with no available item cannot be the one given up."""
    marks = parse_marks("ooxxx/oxxxx/o.o.o/ooooo/.....", board)
    state = StateArrays(board, rules, marks)
    assert sorted(s for s, _ in shelf_losses(state)) == [2, 4]  # shelves 3 and 5 (0-based 2, 4)
    assert sorted(o.shelf for o in failed_options(board, marks, rules)) == [2, 4]
    option = next(o for o in failed_options(board, marks, rules) if o.shelf == 2)
    assert option.lost_items == cells(board, "r3c2", "r3c4")


def test_D13_marked_items_on_the_shelf_stay_and_score(board, rules):
    """D13: giving up shelf 2 eliminates its available items; its marked r2c1 stays marked and
    column 1 (r1c1 + r2c1 + r3c1 = 1 + 1 + 2) still scores 4."""
    marks = parse_marks("o..../o..../o..../...../.....", board)
    after = marks.with_eliminated([board.cell(1, c) for c in range(5)])
    assert str(after) == "o..../oxxxx/o..../...../....."
    assert score(board, marks, rules) == score(board, after, rules) == 4


def test_D13_nothing_left_to_give_up(board, rules):
    """D13: with no available item at all there is no shelf to give up (and nothing to mark)."""
    marks = parse_marks("ooxxx/xxxxx/ooooo/xxxxx/xoxox", board)
    assert failed_options(board, marks, rules) == ()
    assert legal_markings(parse_dice("JJJJJJ", rules), board, marks, rules) == []


# --- D14: must mark when possible ----------------------------------------------------------------

def test_D14_failed_result_only_when_nothing_markable(board, rules):
    """D14: in every final roll the engine's failed-result column is 1 exactly when no legal
    marking exists, for a sparse and a mid-game sheet; a roll that can mark never fails, even
    when the objective would prefer to mark nothing."""
    space = space_for(rules)
    for text in ("ooxxx/o.xxx/xx.xx/...xx/xxxx.", "oo.o./o.o../xoxxx/.oo../o...."):
        marks = parse_marks(text, board)
        table = final_table(board, marks, rules, Safe())
        for i, roll in enumerate(space.rolls):
            nothing = legal_markings(roll, board, marks, rules) == []
            assert table.columns[i, 1] == int(nothing)
            assert table.columns[i, 0] == int(not nothing)


def test_D14_advise_never_offers_a_failed_result_when_markable(board, rules):
    """D14: with one markable item the advice is to mark it, not to give up a shelf."""
    marks = parse_marks("oxxxx/xxxxx/xxxxx/xxxxx/xxxx.", board)
    result = advise(parse_dice("AAAAAP", rules), board, marks, rules, Points(), rerolls=0)
    assert result.failed == () and [m.marking.cells for m in result.markings] == [cells(board, "r5c5")]
    assert result.markings[0].marking.dice_used() == 5  # the extra dice stay unused


# --- D15/D16: eliminating keeps marks; eliminated items are never marked ----------------------------

def test_D15_eliminating_a_line_keeps_marks(board):
    """D15: an opponent completing column 3 eliminates my available items there; my marked r2c3
    stays marked."""
    marks = parse_marks("...../..o../...../...../.....", board)
    after = marks.with_eliminated([board.cell(s, 2) for s in range(5)])
    assert str(after) == "..x../..o../..x../..x../..x.."


def test_D16_eliminated_items_can_never_be_marked(board, rules):
    """D15/D16: an eliminated item cannot be marked (can_mark, with_marked, legal_markings)."""
    marks = parse_marks("x..../...../...../...../.....", board)
    r1c1 = board.parse_cell("r1c1")
    assert not marks.can_mark([r1c1])
    with pytest.raises(MarksError):
        marks.with_marked([r1c1])
    assert marks.can_mark([board.parse_cell("r1c2")])
    found = legal_markings(parse_dice("CPPPPP", rules), board, marks, rules)
    assert r1c1 not in {c for m in found for c in m.cells}


def test_D4_marked_items_cannot_be_marked_again(board):
    """D4: only available items can be marked; marking twice or repeating a cell is refused."""
    marks = Marks.empty(board).with_marked([0, 7])
    assert str(marks) == "o..../..o../...../...../....."
    assert not marks.can_mark([0]) and not marks.can_mark([3, 3])
    with pytest.raises(MarksError):
        marks.with_marked([7])


def test_D16_a_line_with_an_eliminated_item_cannot_be_completed(board):
    """D16: once an item of shelf 1 is eliminated, shelf 1 can never have all 5 items marked."""
    marks = parse_marks("oooox/...../...../...../.....", board)
    assert not marks.can_mark([board.parse_cell("r1c5")])
    assert marks.count_marked(board.lines[0]) == 4


# --- D17: end trigger counts shelves with no available item ------------------------------------------

@pytest.mark.parametrize("text, closed", [
    (EMPTY, 0),
    ("ooooo/...../...../...../.....", 1),
    ("ooooo/xxxxx/...../...../.....", 2),
    ("ooooo/xxxxx/oxoxo/o..../.....", 3),
    ("oooo./xxxx./oxox./o..../.....", 0),
    ("ooooo/xxxxx/oxoxo/xoxox/ooxxo", 5),
])
def test_D17_closed_shelves_any_mix(board, text, closed):
    """D17: a shelf counts toward the end trigger when none of its items is available, whether
    marked, eliminated or a mix; columns never count."""
    assert parse_marks(text, board).closed_shelves() == closed


# --- D19: scoring --------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, shelves, columns", [
    (EMPTY, 0, 0),
    # one or two marks in a line score nothing
    ("oo.../...../...../...../.....", 0, 0),
    ("o..../o..../...../...../.....", 0, 0),
    # shelf 1: 1 + 2 + 4 = 7; column 1: r1c1 + r2c1 + r3c1 = 1 + 1 + 2 = 4 (r1c1 counts twice)
    ("ooo../o..../o..../...../.....", 7, 4),
    # eliminated items score nothing; shelf 1 = 1 + 2 + 4
    ("oooxx/...../...../...../.....", 7, 0),
    # a full shelf: 1 + 2 + 4 + 7 + 11 = 25
    ("ooooo/...../...../...../.....", 25, 0),
    # column 5: 11 + 10 + 12 + 11 + 9 = 53; shelf 3 (.oo.o): 2 + 3 + 12 = 17
    ("....o/....o/.oo.o/....o/....o", 17, 53),
    # marked items on a given-up shelf still score: shelf 2 (oxoxo) 1 + 4 + 10 = 15
    ("...../oxoxo/...../...../.....", 15, 0),
])
def test_D19_scoring_by_hand(board, rules, text, shelves, columns):
    """D19: lines with >= 3 marks score the sum of their marked values; 1-2 marks score 0; an
    item counts in its shelf and its column."""
    marks = parse_marks(text, board)
    assert score_breakdown(board, marks, rules) == (shelves, columns)
    assert score(board, marks, rules) == shelves + columns


def test_D19_full_sheet_counts_every_item_twice(board, rules):
    """D19: every item marked: each value counts in its shelf and its column, 2 x 126 = 252."""
    total = 25 + 24 + 26 + 25 + 26
    assert score(board, parse_marks("ooooo/ooooo/ooooo/ooooo/ooooo", board), rules) == 2 * total == 252


def test_D19_threshold_is_configurable(board):
    """D19's threshold is a ruleset value: with threshold 2, o o . . . scores 1 + 2."""
    rules = replace(DEFAULT_RULES, scoring_threshold=2)
    assert score(board, parse_marks("oo.../...../...../...../.....", board), rules) == 3


def test_D19_points_objective_by_hand(board, rules):
    """D19 through the points objective: sheet o o . . . / . . . . . x4 and dice C C C P G B.
    The cats can only mark r1c3 (shelf 1 reaches 3 marks: +1+2+4 = +7); the other two groups
    are 1-die items in column 1, which holds r1c1: r2c1 + r3c1 gives column 1 = 1+1+2 = 4 and
    r3c1 + r4c1 gives 1+2+1 = 4, r2c1 + r4c1 only 1+1+1 = 3. Best: +11, a tie of two markings."""
    marks = parse_marks("oo.../...../...../...../.....", board)
    result = advise(parse_dice("CCCPGB", rules), board, marks, rules, Points(), rerolls=0)
    assert result.value == 11
    best = {m.marking.cells for m in result.markings if m.rank == 1}
    assert best == {cells(board, "r1c3", "r2c1", "r3c1"), cells(board, "r1c3", "r3c1", "r4c1")}
    third = [m for m in result.markings if m.marking.cells == cells(board, "r1c3", "r2c1", "r4c1")]
    assert third[0].value == 10 and third[0].rank == 3
