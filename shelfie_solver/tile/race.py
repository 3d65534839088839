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
    return [sum(1 for r in range(ROWS) if shelf[r * COLUMNS + c] != EMPTY) for c in range(COLUMNS)]


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


def tiles_needed(goal: int, shelf: Shelf, rules: TileRuleset, at_least: tuple[int, int] | None = None) -> int:
    """The fewest tiles to add for common goal T-CG``goal`` to hold (module docstring; 0 when it
    holds, :data:`FAR` when it cannot within the shelf's empty cells).

    Args:
        at_least: for T-CG3 / T-CG4, ``(groups of 2+ tiles, groups of 4+ tiles)`` when known
            (T19), else computed from the shelf.
    """
    empty = shelf.count(EMPTY)
    heights = _heights(shelf)
    if goal in (3, 4):
        if at_least is None:
            sizes = [size for _, size, _ in group_labels(shelf)[1]]
            at_least = (sum(1 for s in sizes if s >= 2), sum(1 for s in sizes if s >= 4))
        need = max(0, 4 - at_least[1]) if goal == 3 else max(0, 6 - at_least[0])
    elif goal == 9:
        need = max(0, 8 - max(shelf.count(t) for t in range(6)))
    elif goal == 12:
        need = FAR
        for low in (1, 2):
            for target in (range(low, low + COLUMNS), range(low + COLUMNS - 1, low - 1, -1)):
                if all(h <= t for h, t in zip(heights, target)):
                    need = min(need, _fill(target, heights))
    elif goal == 8:
        corners = (0, COLUMNS - 1, CELLS - COLUMNS, CELLS - 1)
        need = FAR if _one_type(shelf, corners) is None else _fill((ROWS, 0, 0, 0, ROWS), heights)
    elif goal in (2, 5):
        columns = [{shelf[r * COLUMNS + c] for r in range(ROWS)} - {EMPTY} for c in range(COLUMNS)]
        need = _best_lines([(ROWS - h, len(kinds) == h if goal == 2 else len(kinds) <= 3)
                            for h, kinds in zip(heights, columns)], 2 if goal == 2 else 3)
    elif goal in (6, 7):
        # rows from the bottom; filling a row fills the rows below it, so the cost is that of the
        # highest row needed: the 2nd (T-CG6) / 4th (T-CG7) lowest row that can still qualify
        feasible = []
        for r in range(ROWS - 1, -1, -1):
            row = [t for t in shelf[r * COLUMNS:(r + 1) * COLUMNS] if t != EMPTY]
            if (len(set(row)) == len(row)) if goal == 6 else len(set(row)) <= 3:
                feasible.append(r)
        count = 2 if goal == 6 else 4
        need = _fill([ROWS - feasible[count - 1]] * COLUMNS, heights) if len(feasible) >= count else FAR
    elif goal in (10, 11):
        need = min((_fill(need_h, heights) for cells, need_h in (X_PATTERNS if goal == 10 else DIAGONAL_PATTERNS)
                    if _one_type(shelf, cells) is not None), default=FAR)
    else:  # T-CG1: two non-overlapping blocks each of one type (their groups are not checked)
        blocks = [(set(cells), need_h, _one_type(shelf, cells)) for cells, need_h in BLOCK_PATTERNS]
        usable = [b for b in blocks if b[2] is not None]
        need = FAR
        for i, (cells_a, need_a, kind_a) in enumerate(usable):
            for cells_b, need_b, kind_b in usable[i + 1:]:
                if cells_a & cells_b:
                    continue
                if rules.squares_same_type and EMPTY not in (kind_a, kind_b) and kind_a != kind_b:
                    continue
                need = min(need, _fill([max(a, b) for a, b in zip(need_a, need_b)], heights))
    return need if need <= empty else FAR


def expected_token(stack: Sequence[int], mine: int, others: Sequence[int]) -> int:
    """The token (points) a player ``mine`` tiles from a goal can expect (T18): the players who
    are as close or closer (``others``, tiles each still needs) are taken to score first, each
    taking the top token; 0 when the stack runs out or the goal is out of reach (:data:`FAR`)."""
    if mine >= FAR:
        return 0
    ahead = sum(1 for d in others if d <= mine)
    return stack[ahead] if ahead < len(stack) else 0
