"""The combination allocator (D8-D12) against brute force.

Three methods must agree on whether a set of items can be marked: the closed form
(:func:`find_groups`), the networkx max-flow (:func:`find_groups_flow`) and a brute force written
here from the rules' text that tries every assignment of each die to a group (or unused).
:func:`legal_markings` is checked against a brute force over every subset of at most k
available items, and every marking it returns is checked legal by :func:`verify` below.
"""

from __future__ import annotations

import random
from itertools import combinations, product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shelfie_solver.dice.allocate import (Group, Marking, find_groups, find_groups_flow,
                                     legal_markings, set_indicator)
from shelfie_solver.dice.allocate import feasibility_arrays as feasibility_table
from shelfie_solver.dice.board import Board, Marks, item_sets, load_board, parse_marks
from shelfie_solver.dice.rolls import parse_dice, space_for
from shelfie_solver.dice.rules import DEFAULT_RULES, Ruleset

from conftest import EXAMPLES, small_rules


# --- the brute force, from the rules' text ----------------------------------------------------

def group_marks(group: list[int], cell: int, board: Board, rules: Ruleset) -> bool:
    """D8 + D11 for one group (a list of side numbers) and one item, straight from RULES.md:
    exactly n(c) dice; the non-Joker dice all show one face the shelf accepts; at most
    ``jokers_per_group`` Jokers; a group of Jokers only when the ruleset lets Jokers be alone."""
    if len(group) != board.need(cell):
        return False
    jokers = sum(1 for d in group if d == rules.joker_index)
    faces = {d for d in group if d != rules.joker_index}
    if jokers > rules.jokers_per_group:
        return False
    if not faces:
        return rules.joker_alone
    return len(faces) == 1 and faces.pop() in board.faces_of(cell)


def dice_list(counts: tuple[int, ...]) -> list[int]:
    return [side for side, n in enumerate(counts) for _ in range(n)]


def brute_can_mark(counts: tuple[int, ...], cells: tuple[int, ...], board: Board, rules: Ruleset) -> bool:
    """Try every assignment of each die to one of the items' groups or to "unused" (D9: a die
    in at most one group). Assignments that overfill a group are cut early (they can never
    be legal), which does not change the answer."""
    dice = dice_list(counts)
    k = len(cells)
    if sum(board.need(c) for c in cells) > len(dice):
        return False
    groups: list[list[int]] = [[] for _ in range(k)]

    def assign(i: int) -> bool:
        if i == len(dice):
            return all(group_marks(g, c, board, rules) for g, c in zip(groups, cells))
        if assign(i + 1):  # die i unused
            return True
        for g, cell in zip(groups, cells):
            if len(g) < board.need(cell):
                g.append(dice[i])
                ok = assign(i + 1)
                g.pop()
                if ok:
                    return True
        return False

    return assign(0)


def all_jokers(counts: tuple[int, ...], rules: Ruleset) -> bool:
    """D12 applies: every die a Joker and the ruleset lets that mark any one item."""
    return rules.joker is not None and rules.all_jokers_mark_any and counts[rules.joker_index] == rules.dice


def brute_markings_by_subsets(counts, board: Board, marks: Marks, rules: Ruleset) -> set[tuple[int, ...]]:
    """Every subset of at most k available items that the brute force can mark (D8-D11), and,
    for six Jokers, also every single available item (D12)."""
    available = [c for c in range(board.n_cells) if marks.is_available(c)]
    found = {cells for size in range(1, rules.combinations_per_turn + 1)
             for cells in combinations(available, size) if brute_can_mark(counts, cells, board, rules)}
    if all_jokers(counts, rules):
        found |= {(c,) for c in available}
    return found


def brute_markings_by_assignments(counts, board: Board, marks: Marks, rules: Ruleset) -> set[tuple[int, ...]]:
    """The same set, found the other way round: every assignment of each die to one of k
    labelled groups or unused; each non-empty group marks any available item it fits; the item
    sets with distinct items are the markings. Cheap on 5 x 5 boards."""
    available = [c for c in range(board.n_cells) if marks.is_available(c)]
    k = rules.combinations_per_turn
    dice = dice_list(counts)
    fits: dict[tuple[int, ...], list[int]] = {}
    found: set[tuple[int, ...]] = {(c,) for c in available} if all_jokers(counts, rules) else set()
    for labels in product(range(k + 1), repeat=len(dice)):
        groups = [tuple(sorted(d for d, label in zip(dice, labels) if label == g)) for g in range(k)]
        groups = [g for g in groups if g]
        if not groups:
            continue
        options = []
        for g in groups:
            if g not in fits:
                fits[g] = [c for c in available if group_marks(list(g), c, board, rules)]
            options.append(fits[g])
        for chosen in product(*options):
            if len(set(chosen)) == len(chosen):
                found.add(tuple(sorted(chosen)))
    return found


def verify(marking: Marking, counts, board: Board, marks: Marks, rules: Ruleset) -> None:
    """Assert a marking is legal: distinct available items, at most k (D9), one group per item
    with exactly n(c) dice of a face the shelf accepts, Joker limits (D11), disjoint groups
    drawn from the dice showing (D9); or D12's single item for six Jokers."""
    cells = marking.cells
    assert cells == tuple(sorted(set(cells))) and 1 <= len(cells) <= rules.combinations_per_turn
    assert all(marks.is_available(c) for c in cells)
    assert tuple(g.cell for g in marking.groups) == cells
    if all_jokers(counts, rules) and marking.groups[0].jokers == rules.dice:
        assert len(cells) == 1  # D12: all the dice mark one item
        return
    verify_groups(marking.groups, counts, board, rules)


def verify_groups(groups: tuple[Group, ...], counts, board: Board, rules: Ruleset) -> None:
    used = [0] * rules.n_sides
    for g in groups:
        assert g.face in board.faces_of(g.cell) and g.face != rules.joker_index
        assert g.matching + g.jokers == board.need(g.cell)
        assert 0 <= g.jokers <= rules.jokers_per_group
        assert g.matching >= (0 if rules.joker_alone else 1)
        used[g.face] += g.matching
        if g.jokers:
            used[rules.joker_index] += g.jokers
    assert all(u <= c for u, c in zip(used, counts))


# --- random configurations --------------------------------------------------------------------

def random_rules(rng: random.Random) -> Ruleset:
    return small_rules(dice=rng.randint(1, 5), faces=rng.randint(1, 3), joker=rng.random() < 0.8,
                       combos=rng.randint(1, 3), per_group=rng.choice([0, 1, 2]), alone=rng.random() < 0.3)


def random_board(rng: random.Random, rules: Ruleset, shelves: int = 3, columns: int = 3) -> Board:
    """A board with random shape, per-column dice needs in any order, and shelves accepting one
    or several faces."""
    n_shelves, n_columns = rng.randint(1, shelves), rng.randint(1, columns)
    needs = tuple(rng.randint(1, rules.dice) for _ in range(n_columns))
    faces = tuple(tuple(sorted(rng.sample(range(rules.n_faces), rng.randint(1, rules.n_faces))))
                  for _ in range(n_shelves))
    values = tuple(tuple(rng.randint(0, 9) for _ in range(n_columns)) for _ in range(n_shelves))
    return Board("random", needs, faces, values)


def random_marks(rng: random.Random, board: Board) -> Marks:
    marked = eliminated = 0
    for c in range(board.n_cells):
        x = rng.random()
        if x < 0.2:
            marked |= 1 << c
        elif x < 0.3:
            eliminated |= 1 << c
    return Marks(board.n_shelves, board.n_columns, marked, eliminated)


def random_roll(rng: random.Random, rules: Ruleset) -> tuple[int, ...]:
    counts = [0] * rules.n_sides
    for _ in range(rules.dice):
        counts[rng.randrange(rules.n_sides)] += 1
    return tuple(counts)


# --- find_groups == find_groups_flow == brute force ---------------------------------------------

def check_three_ways(counts, cells, board, rules) -> bool:
    closed = find_groups(counts, cells, board, rules)
    flow = find_groups_flow(counts, cells, board, rules)
    brute = brute_can_mark(counts, cells, board, rules)
    assert (closed is not None) == (flow is not None) == brute, (counts, cells, board, rules)
    for groups in (closed, flow):
        if groups is not None:
            assert tuple(g.cell for g in groups) == cells
            verify_groups(groups, counts, board, rules)
    return brute


def test_allocators_agree_on_small_random_configurations():
    """D8-D11: closed form == max-flow == brute force on 400 random rulesets (1-5 dice, 1-3
    faces, with/without Joker, per_group 0/1/2, Jokers alone or not), boards (shelves with
    several faces, column needs in any order), rolls and item sets."""
    rng = random.Random(20240501)
    outcomes = []
    for _ in range(400):
        rules = random_rules(rng)
        board = random_board(rng, rules)
        counts = random_roll(rng, rules)
        size = rng.randint(1, min(3, board.n_cells))
        cells = tuple(sorted(rng.sample(range(board.n_cells), size)))
        outcomes.append(check_three_ways(counts, cells, board, rules))
    assert 50 < sum(outcomes) < 350  # both answers are well represented


@pytest.mark.slow
@pytest.mark.parametrize("per_group, alone", [(0, False), (1, False), (2, False), (1, True), (2, True)])
def test_allocators_agree_on_every_roll_and_set(per_group, alone):
    """Every roll of 4 dice (3 faces + Joker) and every set of 1..3 items of a 2 x 3 board with a
    two-face shelf and columns 3, 1, 2: closed form == max-flow == brute force."""
    rules = small_rules(dice=4, faces=3, per_group=per_group, alone=alone)
    board = Board("t", (3, 1, 2), ((0, 1), (2,)), ((1, 2, 3), (4, 5, 6)))
    space = space_for(rules)
    for roll in space.rolls:
        for size in (1, 2, 3):
            for cells in combinations(range(board.n_cells), size):
                check_three_ways(roll, cells, board, rules)


@pytest.mark.slow
@pytest.mark.parametrize("board_name", ["default", "mixed-faces"])
def test_allocators_agree_on_full_boards(board_name):
    """Default rules on the 5 x 5 example boards: 150 random rolls and item sets."""
    rules = DEFAULT_RULES
    board = load_board(EXAMPLES / "boards" / f"{board_name}.toml", rules)
    rng = random.Random(7)
    space = space_for(rules)
    for _ in range(150):
        roll = rng.choice(space.rolls)
        cells = tuple(sorted(rng.sample(range(25), rng.randint(1, 3))))
        check_three_ways(roll, cells, board, rules)


def test_allocators_agree_where_it_is_tight():
    """Hand-picked tight cases on the mixed-faces board (columns 3 1 5 2 4; shelf 1 cat/book,
    shelf 3 game/award): Joker sharing between shelves and faces."""
    rules = DEFAULT_RULES
    board = load_board(EXAMPLES / "boards" / "mixed-faces.toml", rules)
    cases = [("CCBBJJ", ("r1c1", "r1c4")), ("CCBBJJ", ("r1c1", "r4c1")), ("CCBBJP", ("r1c1", "r4c4")),
             ("GGAAJJ", ("r3c1", "r5c1")), ("GGAAJJ", ("r3c1", "r3c4", "r5c4")), ("CCCCJJ", ("r1c3",)),
             ("GGGAJA", ("r3c5", "r3c2")), ("BBBBJJ", ("r1c5", "r4c2"))]
    for dice, names in cases:
        cells = tuple(sorted(board.parse_cell(n) for n in names))
        check_three_ways(parse_dice(dice, rules), cells, board, rules)


# --- legal_markings == brute force over every subset -------------------------------------------

def test_legal_markings_equal_subset_brute_force_random():
    """legal_markings == every subset of <= k available items the brute force can mark, on 300
    random rulesets, boards, states and rolls (D8-D12)."""
    rng = random.Random(12345)
    for _ in range(300):
        rules = random_rules(rng)
        board = random_board(rng, rules)
        marks = random_marks(rng, board)
        counts = random_roll(rng, rules)
        found = legal_markings(counts, board, marks, rules)
        for m in found:
            verify(m, counts, board, marks, rules)
        assert len({m.cells for m in found}) == len(found)
        assert {m.cells for m in found} == brute_markings_by_subsets(counts, board, marks, rules)


@pytest.mark.parametrize("per_group, alone", [(0, False), (1, False), (2, True)])
def test_legal_markings_every_roll_small_board(per_group, alone):
    """Every roll of 3 dice (2 faces + Joker) on a 3 x 3 board in two states, against brute force."""
    rules = small_rules(dice=3, faces=2, per_group=per_group, alone=alone)
    board = Board("t", (2, 1, 3), ((0,), (1,), (0, 1)), ((1, 2, 3), (4, 5, 6), (7, 8, 9)))
    for text in (".../.../...", "o.x/.x./x.o"):
        marks = parse_marks(text, board)
        for roll in space_for(rules).rolls:
            found = legal_markings(roll, board, marks, rules)
            for m in found:
                verify(m, roll, board, marks, rules)
            assert {m.cells for m in found} == brute_markings_by_subsets(roll, board, marks, rules)


def test_two_brute_forces_agree():
    """The two brute forces (by subsets, by assignments) agree: a check of the checkers."""
    rng = random.Random(99)
    for _ in range(100):
        rules = random_rules(rng)
        board = random_board(rng, rules)
        marks = random_marks(rng, board)
        counts = random_roll(rng, rules)
        assert brute_markings_by_subsets(counts, board, marks, rules) == \
            brute_markings_by_assignments(counts, board, marks, rules)


@pytest.mark.slow
@pytest.mark.parametrize("board_name", ["default", "mixed-faces"])
def test_legal_markings_equal_brute_force_on_full_boards(board_name):
    """Default rules, 5 x 5 example boards, 40 random rolls and states each (plus six Jokers):
    legal_markings == brute force over every die-to-group assignment; every marking legal."""
    rules = DEFAULT_RULES
    board = load_board(EXAMPLES / "boards" / f"{board_name}.toml", rules)
    rng = random.Random(board_name)
    space = space_for(rules)
    rolls = [rng.choice(space.rolls) for _ in range(40)] + [parse_dice("JJJJJJ", rules)]
    for roll in rolls:
        marks = random_marks(rng, board)
        found = legal_markings(roll, board, marks, rules)
        for m in found:
            verify(m, roll, board, marks, rules)
        assert {m.cells for m in found} == brute_markings_by_assignments(roll, board, marks, rules)


# --- hypothesis: every marking returned is legal -----------------------------------------------

@st.composite
def configurations(draw):
    rules = small_rules(dice=draw(st.integers(1, 6)), faces=draw(st.integers(1, 4)), joker=draw(st.booleans()),
                        combos=draw(st.integers(1, 3)), per_group=draw(st.integers(0, 2)), alone=draw(st.booleans()))
    n_shelves, n_columns = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    needs = tuple(draw(st.lists(st.integers(1, rules.dice), min_size=n_columns, max_size=n_columns)))
    faces = tuple(tuple(sorted(draw(st.sets(st.integers(0, rules.n_faces - 1), min_size=1))))
                  for _ in range(n_shelves))
    board = Board("h", needs, faces, tuple((1,) * n_columns for _ in range(n_shelves)))
    n = board.n_cells
    marked = draw(st.integers(0, 2 ** n - 1))
    eliminated = draw(st.integers(0, 2 ** n - 1)) & ~marked
    marks = Marks(n_shelves, n_columns, marked, eliminated)
    sides = draw(st.lists(st.integers(0, rules.n_sides - 1), min_size=rules.dice, max_size=rules.dice))
    counts = tuple(sides.count(s) for s in range(rules.n_sides))
    return rules, board, marks, counts


@settings(max_examples=300, deadline=None)
@given(configurations())
def test_every_marking_returned_is_legal(config):
    """Hypothesis: each marking legal_markings returns passes verify (disjoint groups, right
    sizes and faces, Joker limits, at most k items, available items only)."""
    rules, board, marks, counts = config
    found = legal_markings(counts, board, marks, rules)
    for m in found:
        verify(m, counts, board, marks, rules)
    # and no legal marking is missed: every single available item the brute force can mark is in
    singles = {m.cells for m in found if len(m.cells) == 1}
    expected = {(c,) for c in marks.available
                if all_jokers(counts, rules) or brute_can_mark(counts, (c,), board, rules)}
    assert singles == expected


# --- feasibility_arrays rows == find_groups for every roll ---------------------------------------

def table_rows(board: Board, rules: Ruleset) -> list[set[tuple[int, ...]]]:
    table = feasibility_table(board, rules)
    sets = table.sets
    n_sets = len(sets.sizes)
    ends = list(table.starts[1:]) + [len(table.members)]
    rows = []
    for start, end in zip(table.starts, ends):
        members = table.members[start:end]
        assert members[-1] == n_sets  # the sentinel ends every row
        rows.append({tuple(int(c) for c in sets.cells[m] if c >= 0) for m in members[:-1]})
    return rows


@pytest.mark.parametrize("rules", [
    small_rules(dice=4, faces=3), small_rules(dice=4, faces=3, per_group=2, alone=True),
    small_rules(dice=4, faces=2, joker=False, combos=2), small_rules(dice=5, faces=2, per_group=0, combos=3),
], ids=["default-joker", "two-jokers-alone", "no-joker", "joker-unused"])
def test_feasibility_table_rows_agree_with_find_groups(rules):
    """Every roll x every set of <= k items of a 3 x 3 board (a two-face shelf, columns in any
    order): the table row holds exactly the sets find_groups can mark (brute force too), and
    the all-Jokers row holds every single item (D12)."""
    board = Board("t", (3, 1, 2), ((0, 1), (1,), (0,)), ((1, 2, 3), (4, 5, 6), (7, 8, 9)))
    space = space_for(rules)
    rows = table_rows(board, rules)
    every = [cells for size in range(1, rules.combinations_per_turn + 1)
             for cells in combinations(range(board.n_cells), size)]
    assert len(item_sets(board, rules.combinations_per_turn).sizes) == len(every)
    for roll, row in zip(space.rolls, rows):
        expected = {cells for cells in every if find_groups(roll, cells, board, rules) is not None}
        if all_jokers(roll, rules):
            assert row == expected | {(c,) for c in range(board.n_cells)}
            continue
        assert row == expected
        assert expected == {cells for cells in every if brute_can_mark(roll, cells, board, rules)}


@pytest.mark.slow
def test_feasibility_table_default_board_sample(board, rules):
    """Default rules and board: 25 rolls (plus six Jokers), every set of <= 3 of the 25 items."""
    rows = table_rows(board, rules)
    space = space_for(rules)
    rng = random.Random(3)
    picks = rng.sample(range(len(space.rolls)), 25) + [space.roll_index[parse_dice("JJJJJJ", rules)]]
    every = [cells for size in (1, 2, 3) for cells in combinations(range(25), size)]
    for i in picks:
        roll = space.rolls[i]
        if all_jokers(roll, rules):
            assert rows[i] == {(c,) for c in range(25)}
        else:
            assert rows[i] == {cells for cells in every if find_groups(roll, cells, board, rules) is not None}


# --- set_indicator == the allocator on a one-item board --------------------------------------------

@pytest.mark.parametrize("rules", [pytest.param(DEFAULT_RULES, marks=pytest.mark.slow),
                                   small_rules(dice=4, faces=3, per_group=2, alone=True),
                                   small_rules(dice=4, faces=2, joker=False),
                                   small_rules(dice=5, faces=2, per_group=0)],
                         ids=["default", "two-jokers-alone", "no-joker", "joker-unused"])
def test_set_indicator_equals_brute_force(rules):
    """set_indicator(face, n) marks the rolls holding a group of exactly n dice of that face
    (D8, D11; not D12): the same rolls as the brute force on a one-item board needing n dice."""
    space = space_for(rules)
    for face in range(rules.n_faces):
        for n in range(1, rules.dice + 1):
            board = Board("one", (n,), ((face,),), ((1,),))
            expected = [int(brute_can_mark(roll, (0,), board, rules)) for roll in space.rolls]
            assert set_indicator(space, rules, face, n).tolist() == expected
