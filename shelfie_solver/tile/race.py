"""The common-goal race (T18): how many tiles a shelf still needs before a common goal holds, and
the token a player can expect given how close the other players are.

:func:`tiles_needed` is the fewest tiles that, added to the shelf (T4: on top of its columns,
any types, ignoring the bag and the 22 tiles per type of T2), make common goal T-CG``goal`` hold:
exact for T-CG2 and T-CG5-T-CG12 and for T-CG1 under the ``"loose"`` reading without
``squares_same_type``; a lower bound for T-CG1's other readings (the blocks' groups are not
checked) and for T-CG3 / T-CG4 (a tile joins one group, so it adds at most one group of 4+ / 2+).
Checked against an exhaustive search on nearly full shelves in tests/test_tile_race.py.
"""

from __future__ import annotations

from collections.abc import Sequence

from .rules import CELLS, COLUMNS, EMPTY, ROWS, Shelf, TileRuleset
from .shelf import group_labels

#: "Cannot hold": more tiles needed than the shelf has room for, or no way at all.
FAR = 99


def _pattern(cells: Sequence[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """A set of shelf cells as ``(cells, height each column needs for them, 0 = none)`` (T4: cell
    (r, c) is filled once column c holds ``ROWS - r`` tiles)."""
    need = [0] * COLUMNS
    for cell in cells:
        need[cell % COLUMNS] = max(need[cell % COLUMNS], ROWS - cell // COLUMNS)
    return tuple(cells), tuple(need)


#: T-CG10's X windows, T-CG11's four diagonals and T-CG1's 2x2 blocks, as :func:`_pattern`.
X_PATTERNS = tuple(_pattern((r * COLUMNS + c, r * COLUMNS + c + 2, (r + 1) * COLUMNS + c + 1, (r + 2) * COLUMNS + c,
                             (r + 2) * COLUMNS + c + 2)) for r in range(ROWS - 2) for c in range(COLUMNS - 2))
DIAGONAL_PATTERNS = tuple(_pattern([(r0 + i) * COLUMNS + (i if down else COLUMNS - 1 - i) for i in range(COLUMNS)])
                          for r0 in (0, 1) for down in (True, False))
BLOCK_PATTERNS = tuple(_pattern((r * COLUMNS + c, r * COLUMNS + c + 1, (r + 1) * COLUMNS + c, (r + 1) * COLUMNS + c + 1))
                       for r in range(ROWS - 1) for c in range(COLUMNS - 1))


def _heights(shelf: Shelf) -> list[int]:
    """Tiles per column (T4: the top tile's row gives it)."""
    out = []
    for c in range(COLUMNS):
        r = 0
        while r < ROWS and shelf[r * COLUMNS + c] == EMPTY:
            r += 1
        out.append(ROWS - r)
    return out


def _fill(need: Sequence[int], heights: Sequence[int]) -> int:
    """Tiles to raise every column to the height ``need`` asks (T4)."""
    return sum(n - h for n, h in zip(need, heights) if n > h)


def _one_type(shelf: Shelf, cells: Sequence[int]) -> int | None:
    """The type the filled ``cells`` share (EMPTY when none is filled), None when they differ."""
    kinds = {shelf[c] for c in cells} - {EMPTY}
    return None if len(kinds) > 1 else (kinds.pop() if kinds else EMPTY)


def _best_lines(costs: list[tuple[int, bool]], need: int) -> int:
    """The sum of the ``need`` smallest costs among the feasible lines (FAR if too few)."""
    ok = sorted(cost for cost, feasible in costs if feasible)
    return sum(ok[:need]) if len(ok) >= need else FAR


def staircase_needed(heights: Sequence[int]) -> int:
    """T-CG12 from the column heights: the fewest tiles to heights 1-5 or 2-6, rising or falling."""
    need = FAR
    for low in (1, 2):
        for target in (range(low, low + COLUMNS), range(low + COLUMNS - 1, low - 1, -1)):
            if all(h <= t for h, t in zip(heights, target)):
                need = min(need, _fill(target, heights))
    return need


def columns_needed(goal: int, heights: Sequence[int], distinct: Sequence[int]) -> int:
    """T-CG2 / T-CG5 from the heights and the distinct types per column: the cheapest 2 / 3
    columns whose tiles allow 6 types / at most 3 types once full."""
    return _best_lines([(ROWS - h, n == h if goal == 2 else n <= 3) for h, n in zip(heights, distinct)],
                       2 if goal == 2 else 3)


def row_may(goal: int, tiles: Sequence[int]) -> bool:
    """Whether a row holding ``tiles`` can still qualify for T-CG6 (all distinct) / T-CG7 (<= 3 types)."""
    return len(set(tiles)) == len(tiles) if goal == 6 else len(set(tiles)) <= 3


def rows_needed(goal: int, heights: Sequence[int], may: Sequence[bool]) -> int:
    """T-CG6 / T-CG7 from the heights and :func:`row_may` per row (top first): filling a row fills
    the rows below it (T4), so the cost is that of the 2nd / 4th lowest row that may qualify."""
    count = 2 if goal == 6 else 4
    feasible = [r for r in range(ROWS - 1, -1, -1) if may[r]]
    return _fill([ROWS - feasible[count - 1]] * COLUMNS, heights) if len(feasible) >= count else FAR


def tiles_needed(goal: int, shelf: Shelf, rules: TileRuleset, at_least: tuple[int, int] | None = None) -> int:
    """The fewest tiles to add for common goal T-CG``goal`` to hold (module docstring; 0 when it
    holds, :data:`FAR` when it cannot within the shelf's empty cells).

    Args:
        at_least: for T-CG3 / T-CG4, ``(groups of 2+ tiles, groups of 4+ tiles)`` when known
            (T19), else computed from the shelf.
    """
    empty = shelf.count(EMPTY)
    heights = _heights(shelf) if goal in (2, 5, 6, 7, 12) else []
    if goal in (3, 4):
        if at_least is None:
            sizes = [size for _, size, _ in group_labels(shelf)[1]]
            at_least = (sum(1 for s in sizes if s >= 2), sum(1 for s in sizes if s >= 4))
        need = max(0, 4 - at_least[1]) if goal == 3 else max(0, 6 - at_least[0])
    elif goal == 9:
        need = max(0, 8 - max(shelf.count(t) for t in range(6)))
    elif goal == 12:
        need = staircase_needed(heights)
    elif goal in (2, 5):
        need = columns_needed(goal, heights, [len({shelf[r * COLUMNS + c] for r in range(ROWS)} - {EMPTY})
                                              for c in range(COLUMNS)])
    elif goal in (6, 7):
        need = rows_needed(goal, heights, [row_may(goal, [t for t in shelf[r * COLUMNS:(r + 1) * COLUMNS] if t != EMPTY])
                                           for r in range(ROWS)])
    else:  # T-CG1, T-CG8, T-CG10, T-CG11: the cheapest pattern that can still be of one type
        need = min((cost for cost, _, _ in pattern_targets(goal, shelf, rules)), default=FAR)
    return need if need <= empty else FAR


#: T-CG8's corners as one pattern: columns 0 and 4 full.
CORNERS = ((0, COLUMNS - 1, CELLS - COLUMNS, CELLS - 1), (ROWS, 0, 0, 0, ROWS))

#: A target of a pattern goal: (tiles to add, the height each column needs, its parts: (cells, the
#: type their filled cells share or EMPTY)); T-CG1's two blocks are two parts, the others one.
Target = tuple[int, tuple[int, ...], tuple[tuple[frozenset[int], int], ...]]


def pattern_targets(goal: int, shelf: Shelf, rules: TileRuleset, limit: int = FAR) -> list[Target]:
    """The patterns of T-CG1 (pairs of non-overlapping 2x2 blocks; with ``squares_same_type``
    of one type), T-CG8 (the corners), T-CG10 (X windows) or T-CG11 (diagonals) whose filled
    cells allow one type per part, costing at most ``limit`` tiles (T4)."""
    heights = _heights(shelf)
    out: list[Target] = []
    if goal == 1:
        blocks = [(frozenset(cells), need_h, kind) for cells, need_h in BLOCK_PATTERNS
                  if (kind := _one_type(shelf, cells)) is not None]
        for i, (cells_a, need_a, kind_a) in enumerate(blocks):
            for cells_b, need_b, kind_b in blocks[i + 1:]:
                if cells_a & cells_b:
                    continue
                if rules.squares_same_type and EMPTY not in (kind_a, kind_b) and kind_a != kind_b:
                    continue
                need = tuple(max(a, b) for a, b in zip(need_a, need_b))
                cost = _fill(need, heights)
                if cost <= limit:
                    parts = ((cells_a | cells_b, kind_a if kind_a != EMPTY else kind_b),) \
                        if rules.squares_same_type else ((cells_a, kind_a), (cells_b, kind_b))
                    out.append((cost, need, parts))
        return out
    patterns = (CORNERS,) if goal == 8 else X_PATTERNS if goal == 10 else DIAGONAL_PATTERNS
    for cells, need in patterns:
        kind = _one_type(shelf, cells)
        if kind is not None and (cost := _fill(need, heights)) <= limit:
            out.append((cost, need, ((frozenset(cells), kind),)))
    return out


def needed_after(targets: list[Target], heights: Sequence[int], column: int, placed: Sequence[tuple[int, int]]) -> int:
    """The fewest tiles among ``targets`` (:func:`pattern_targets` of a shelf with column
    ``heights``) once ``placed`` ``(cell, type)`` pairs are added to ``column`` (T4); FAR when
    none is left. Equal to :func:`pattern_targets` on the new shelf when every target was kept."""
    best = FAR
    k = len(placed)
    for cost, need, parts in targets:
        cost -= min(k, max(0, need[column] - heights[column]))
        if cost >= best:
            continue
        for cells, kind in parts:
            for cell, t in placed:
                if cell in cells:
                    if kind == EMPTY:
                        kind = t
                    elif kind != t:
                        break
            else:
                continue
            break
        else:
            best = cost
    return best


def cheapest_after(targets: list[Target], heights: Sequence[int], column: int, k: int) -> int:
    """A lower bound of :func:`needed_after` for any ``k`` tiles in ``column`` (types ignored)."""
    return min((cost - min(k, max(0, need[column] - heights[column])) for cost, need, _ in targets), default=FAR)


def expected_token(stack: Sequence[int], mine: int, others: Sequence[int]) -> int:
    """The token (points) a player ``mine`` tiles from a goal can expect (T18): the players who
    are as close or closer (``others``, tiles each still needs) are taken to score first, each
    taking the top token; 0 when the stack runs out or the goal is out of reach (:data:`FAR`)."""
    if mine >= FAR:
        return 0
    ahead = sum(1 for d in others if d <= mine)
    return stack[ahead] if ahead < len(stack) else 0
