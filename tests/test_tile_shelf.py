"""Tile-game scoring and common goals (T19, T21, T22, T25, T-CG1-T-CG12): the five worked examples
of TILE-RULES.md, hand-built shelves per goal, and invariants by hypothesis."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shelfie_solver.tile.errors import TileError
from shelfie_solver.tile.rules import (COLUMNS, EMPTY, ROWS, PersonalCard, TileRuleset, parse_shelf)
from shelfie_solver.tile.shelf import (COMMON_GOALS, MIN_TILES, adjacency_points, goal_holds, goals_met, group_labels,
                                       score_shelf)

RULES = TileRuleset()

#: TILE-RULES.md's worked examples: shelf, adjacency points, the goals that hold (others false).
EXAMPLES = {
    "A": ("CBGFT/BGFTP/GFTPC/FTPCB/TPCBG/PCBGF", 0, {2, 6, 11}),
    "B": ("...../....C/...CB/..CBB/.CBBG/CGGGG", 10, {11, 12}),
    "C": ("...../...../...../GG.../CCCCB/CCCCB", 8, {9}),
    "D": ("PPTTP/PPTTF/GGBBF/GCCBB/GCCFF/PGBFP", 17, {1, 3, 4, 5, 7, 8}),
    "E": ("...../...../...../T.T../BTBB./TBTBF", 2, {10}),
}


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_worked_examples(name):
    """Worked examples A-E: adjacency points (T22) and exactly the listed common goals."""
    text, points, goals = EXAMPLES[name]
    shelf = parse_shelf(text)
    assert adjacency_points(shelf) == points
    assert set(goals_met(shelf, RULES)) == goals


def test_example_c_loose_squares_flag():
    """Example C: not T-CG1 (both squares in one group), true under the loose flag."""
    shelf = parse_shelf(EXAMPLES["C"][0])
    assert not goal_holds(1, shelf, RULES)
    assert goal_holds(1, shelf, TileRuleset(squares="loose"))


def test_example_d_total_39():
    """Example D with the made-up card T(0,0) B(2,2) C(3,1) F(4,3) G(5,1) P(5,4): 5 matches -> 9
    (T21); tokens 8 + 4 and the end token: 8 + 4 + 1 + 9 + 17 = 39 (T25)."""
    cell = lambda r, c: r * COLUMNS + c  # noqa: E731
    card = PersonalCard("D", (cell(3, 1), cell(2, 2), cell(5, 1), cell(4, 3), cell(0, 0), cell(5, 4)))  # C B G F T P
    breakdown = score_shelf(parse_shelf(EXAMPLES["D"][0]), RULES, card, tokens=12, end_token=1)
    assert (breakdown.personal_matches, breakdown.personal, breakdown.adjacency) == (5, 9, 17)
    assert breakdown.total == 39


@pytest.mark.parametrize("goal, yes, no", [
    (1, "...../...../...../CCGG./CCGG./BTBTB", "...../...../...../CCCC./CCCC./BTBTB"),
    (2, "CC.../BB.../GG.../FF.../TT.../PP...", "CC.../BB.../GG.../FF.../TT.../CP..."),
    (8, "C...C/T...T/TTTTT/TTTTT/TTTTT/CTTTC", "C...B/T...T/TTTTT/TTTTT/TTTTT/CTTTC"),
    (12, "...../....C/...CC/..CCC/.CCCC/CCCCC", "...../...../...CC/..CCC/.CCCC/CCCCC"),
    (12, "C..../CC.../CCC../CCCC./CCCCC/CCCCC", "...../...../...../...../...../....."),
])
def test_goal_examples(goal, yes, no):
    """Hand-built shelves: T-CG1 (two squares in separate groups), T-CG2 (two full columns of 6
    types), T-CG8 (corners), T-CG12 (staircase, either direction; h = 0 does not count)."""
    assert goal_holds(goal, parse_shelf(yes), RULES)
    assert not goal_holds(goal, parse_shelf(no), RULES)


def test_squares_same_type_flag():
    """T-CG1's Italian reading: both squares of one type."""
    shelf = parse_shelf("...../...../...../CCGG./CCGG./BTBTB")
    assert goal_holds(1, shelf, RULES)
    assert not goal_holds(1, shelf, TileRuleset(squares_same_type=True))


@pytest.mark.parametrize("text, message", [
    ("...../...../...../C..../...../.....", "floating"),
    ("CCCCC/CCCCC/CCCCC/CCCCC/CCCCC/CCCCC", "T2"),
    ("CCCC/CCCC", "6 lines"),
    ("...../...../...../...../...../XXXXX", "unknown letter"),
])
def test_bad_shelves(text, message):
    """T4 (no tile above an empty cell), T2 (at most 22 of a type), the shape and letters."""
    with pytest.raises(TileError, match=message):
        parse_shelf(text)


def _orthogonal(i: int) -> list[int]:
    r, c = divmod(i, COLUMNS)
    return [rr * COLUMNS + cc for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
            if 0 <= rr < ROWS and 0 <= cc < COLUMNS]


def _shelves() -> st.SearchStrategy[tuple[int, ...]]:
    """Random legal shelves: per column a height and types."""
    column = st.integers(0, ROWS).flatmap(lambda h: st.lists(st.integers(0, 5), min_size=h, max_size=h))

    def build(columns: list[list[int]]) -> tuple[int, ...]:
        cells = [EMPTY] * (ROWS * COLUMNS)
        for c, tiles in enumerate(columns):
            for k, t in enumerate(tiles):
                cells[(ROWS - 1 - k) * COLUMNS + c] = t
        return tuple(cells)
    return st.lists(column, min_size=COLUMNS, max_size=COLUMNS).map(build)


@settings(max_examples=150, deadline=None)
@given(_shelves())
def test_groups_partition_tiles_and_score_by_size(shelf):
    """T19: groups partition the tiles, each connected and of one type, no two same-type groups
    touching; T22 points are a function of each size; a group is open iff a tile of it touches
    an empty cell; T-CG9 iff some type has 8+ tiles."""
    labels, groups = group_labels(shelf)
    assert sum(size for _, size, _ in groups) == sum(1 for x in shelf if x != EMPTY)
    for cell, g in enumerate(labels):
        if g < 0:
            continue
        assert groups[g][0] == shelf[cell]
        r, c = divmod(cell, COLUMNS)
        for rr, cc in ((r + 1, c), (r, c + 1)):
            if rr < ROWS and cc < COLUMNS and shelf[rr * COLUMNS + cc] == shelf[cell]:
                assert labels[rr * COLUMNS + cc] == g
    table = {1: 0, 2: 0, 3: 2, 4: 3, 5: 5}
    assert adjacency_points(shelf) == sum(table.get(size, 8) for _, size, _ in groups)
    for g, (_, _, growing) in enumerate(groups):  # open: some tile of the group touches an empty cell
        cells = [i for i, label in enumerate(labels) if label == g]
        assert growing == any(shelf[j] == EMPTY for i in cells for j in _orthogonal(i))
    assert goal_holds(9, shelf, RULES) == any(shelf.count(t) >= 8 for t in range(6))
    tiles = sum(1 for x in shelf if x != EMPTY)
    for goal, (_, predicate) in COMMON_GOALS.items():  # the quick test never hides a goal
        assert goal_holds(goal, shelf, RULES) == predicate(shelf, RULES)
        assert not predicate(shelf, RULES) or tiles >= MIN_TILES[goal]
