"""The common-goal race (T18): how many tiles a shelf still needs before a common goal holds, and
the token a player can expect given how close the other players are.

:func:`tiles_needed` is the fewest tiles that, added to the shelf (T4: on top of its columns,
any types, ignoring the bag and the 22 tiles per type of T2), make common goal T-CG``goal`` hold:
exact for T-CG2 and T-CG5-T-CG12 and for T-CG1 under the ``"loose"`` reading without
``squares_same_type``; a lower bound for T-CG1's other readings (the blocks' groups are not
checked) and for T-CG3 / T-CG4 (a tile joins one group, so it adds at most one group of 4+ / 2+).
Checked against an exhaustive search on nearly full shelves in tests/test_tile_race.py.

:class:`RaceTerm` is the ``race`` term of the advisor's evaluation (:mod:`.advise`): for each
goal the mover has not scored, the change a placement makes to :func:`race_quarters` (the token
the mover can expect given how many tiles each player still needs, halved per tile needed, 0
beyond :data:`RACE_REACH` tiles).
"""

from __future__ import annotations

from collections.abc import Sequence

from shelfie_solver.tile.gains import QUARTER
from shelfie_solver.tile.placements import Placements
from shelfie_solver.tile.rules import CELLS, COLUMNS, EMPTY, ROWS, Shelf, TileRuleset
from shelfie_solver.tile.shelf import group_labels
from shelfie_solver.tile.state import Setup, State, place_tiles

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


# --- the race term of the evaluation ----------------------------------------------------------


#: :func:`tiles_needed` of recent shelves, by (goal, shelf, rules); cleared when it outgrows this.
_NEEDED: dict[tuple[int, Shelf, TileRuleset], int] = {}
_NEEDED_MAX = 4096


def _needed(goal: int, shelf: Shelf, rules: TileRuleset, known: Placements | None = None) -> int:
    """:func:`tiles_needed`, kept per shelf (each shelf is asked again by the next turns);
    ``known``: the shelf's :class:`Placements`, whose group counts T-CG3 / T-CG4 reuse. For
    T-CG1, T-CG8, T-CG10 and T-CG11 a distance beyond :data:`_RACE_LIMIT` is :data:`FAR` (from
    :func:`_limited_targets`): the race only tells distances up to :data:`RACE_REACH` apart
    (:func:`race_quarters`), and a goal farther than ``RACE_REACH + 3`` tiles stays beyond
    ``RACE_REACH`` after any placement."""
    key = (goal, shelf, rules)
    hit = _NEEDED.get(key)
    if hit is None:
        if len(_NEEDED) >= _NEEDED_MAX:
            _NEEDED.clear()
        if goal in (1, 8, 10, 11):
            need = min((cost for cost, _, _ in _limited_targets(goal, shelf, rules)), default=FAR)
            hit = _NEEDED[key] = need if need <= shelf.count(EMPTY) else FAR
        else:
            at_least = (known.at_least[2], known.at_least[4]) if known is not None else None
            hit = _NEEDED[key] = tiles_needed(goal, shelf, rules, at_least)
    return hit


#: :func:`pattern_targets` within :data:`_RACE_LIMIT` tiles of recent shelves, by (goal, shelf, rules).
_TARGETS: dict[tuple[int, Shelf, TileRuleset], list[Target]] = {}


def _limited_targets(goal: int, shelf: Shelf, rules: TileRuleset) -> list[Target]:
    """:func:`pattern_targets` of ``shelf`` within :data:`_RACE_LIMIT` tiles, kept per shelf
    (shared by :func:`_needed` and :meth:`RaceTerm._targets`)."""
    key = (goal, shelf, rules)
    hit = _TARGETS.get(key)
    if hit is None:
        if len(_TARGETS) >= _NEEDED_MAX:
            _TARGETS.clear()
        hit = _TARGETS[key] = pattern_targets(goal, shelf, rules, _RACE_LIMIT)
    return hit


#: The race counts goals at most this many tiles away (one pick, T10): farther is too uncertain.
RACE_REACH = 3


def race_quarters(stack: tuple[int, ...], mine: int, others: list[int]) -> int:
    """The race value (x4) of being ``mine`` >= 1 tiles from a goal whose tokens left are
    ``stack`` while the other players who have not scored it are ``others`` tiles from it: the
    token the player can expect (:func:`expected_token`, T18) halved for every tile still
    needed (1 tile: 1/2, 2 tiles: 1/4, 3 tiles: 1/8), 0 beyond :data:`RACE_REACH` tiles."""
    return (QUARTER * expected_token(stack, mine, others)) >> mine if mine <= RACE_REACH else 0


class RaceTerm:
    """The ``race`` term of the mover's placements: for each common goal the mover has not scored
    (T18), the change of :func:`race_quarters` from the shelf before to the shelf after (the goal
    completed: 0 after, its token is in ``immediate``), with the other players' distances
    (:func:`tiles_needed` on their shelves) fixed for the turn. ``cap(k)`` bounds the term
    for any placement of ``k`` tiles (a placement needs at least ``tiles needed - k`` more tiles,
    and the value falls as the distance grows), for the bound of :func:`.advise.best_moves`."""

    def __init__(self, setup: Setup, state: State, mine: Placements, known: Placements | None = None):
        self.mine, self.rules = mine, setup.rules
        self.cache: dict[tuple[int, tuple[int, ...]], int] = {}
        self.caps: list[list[int]] | None = None
        self.shares: dict[tuple[int, int], list[int]] = {}
        #: per open goal: (goal, tokens left, the others' distances, the value now, the tiles needed now)
        self.slots: list[tuple[int, tuple[int, ...], list[int], int, int]] = []
        self.targets: dict[int, list[Target]] = {}
        self.heights = [ROWS - r for r in mine.room]
        self.lines: tuple[list[int], list[set[int]], list[list[int]]] | None = None
        self.deltas: dict[int, list[list[list[int]]]] = {}
        seat = state.turn
        for slot, goal in mine.open_slots:
            stack = state.stacks[slot]
            mine_now = _needed(goal, mine.shelf, setup.rules, mine)
            if mine_now >= FAR or mine_now == 0:
                continue  # out of reach (the value stays 0), or holding already (typed positions)
            others = [_needed(goal, state.shelves[o], setup.rules, known if known and known.seat == o else None)
                      for o in range(setup.players) if o != seat and state.tokens[o][slot] == 0]
            before = race_quarters(stack, mine_now, others)
            best = [race_quarters(stack, max(1, mine_now - k), others) - before for k in range(4)]
            if best[3] == 0 and before == 0:
                continue  # no placement can change it
            self.slots.append((goal, stack, others, before, mine_now))

    def cap(self, column: int, k: int) -> int:
        """An upper bound of :meth:`gain` (x4) for any ``k`` tiles placed in ``column``: each goal's
        value at a lower bound of the tiles it needs after (:meth:`_needed_after` with the types
        chosen at best: T-CG12 and the heights exactly; T-CG2, T-CG5-T-CG7 with the columns / rows
        that may qualify now; patterns with their types ignored; T-CG3/T-CG4 with one tile's best
        type, else minus ``k``; T-CG9 minus ``k``)."""
        return self.cap_table()[column][k]

    def cap_table(self) -> list[list[int]]:
        """:meth:`cap` per column and ``k`` (0-3), computed once."""
        caps = self.caps
        if caps is None:
            caps = self.caps = [[self._cap(c, j) for j in range(4)] for c in range(COLUMNS)]
        return caps

    def _cap(self, column: int, k: int) -> int:
        """:meth:`cap`, uncached; each goal's share kept in :attr:`shares` (``(column, k)``: per slot)."""
        hit = 0
        if k and self.mine.room[column] >= k:
            heights = list(self.heights)
            heights[column] += k
            shares = self.shares[(column, k)] = []
            for goal, stack, others, before, now in self.slots:
                if goal in (1, 8, 10, 11):
                    least = cheapest_after(self._targets(goal), self.heights, column, k)
                elif goal == 12:
                    least = staircase_needed(heights)
                elif goal in (2, 5):
                    distinct, _, _ = self._lines()
                    if goal == 2 and distinct[column] == self.heights[column]:
                        distinct = list(distinct)
                        distinct[column] += k
                    least = columns_needed(goal, heights, distinct)
                elif goal in (6, 7):
                    least = rows_needed(goal, heights, [row_may(goal, row) for row in self._lines()[2]])
                elif goal in (3, 4):
                    # one tile: its best type; more: each run of one type adds at most one group
                    least = now - (max(self._deltas(4 if goal == 3 else 2)[column][0]) if k == 1 else k)
                else:
                    least = now - k
                share = race_quarters(stack, max(1, least), others) - before
                shares.append(share)
                hit += share
        return hit

    def _targets(self, goal: int) -> list[Target]:
        """:func:`pattern_targets` of the mover's shelf within :data:`_RACE_LIMIT` tiles."""
        targets = self.targets.get(goal)
        if targets is None:
            targets = self.targets[goal] = _limited_targets(goal, self.mine.shelf, self.rules)
        return targets

    def _deltas(self, least: int) -> list[list[list[int]]]:
        """Per column, next cell, type: the groups of ``least``+ tiles one tile there adds (T19)."""
        deltas = self.deltas.get(least)
        if deltas is None:
            deltas = self.deltas[least] = [[[(size >= least) - sum(1 for old in joined if old >= least)
                                             for _, size, joined, _ in cell] for cell in column_cells]
                                           for column_cells in self.mine.singles()]
        return deltas

    def gain(self, column: int, types: tuple[int, ...], goals: tuple[int, ...]) -> int:
        """The race term (x4) of placing ``types`` in ``column`` (``goals``: those it completes)."""
        if not self.slots:
            return 0
        key = (column, types)
        hit = self.cache.get(key)
        if hit is None:
            hit = 0
            self.cap_table()
            shares = self.shares[(column, len(types))]
            for (goal, stack, others, before, now), share in zip(self.slots, shares):
                if goal in goals:
                    hit -= before
                    continue
                if before == 0 and share == 0:
                    continue  # 0 <= the value after <= before + share: no change
                after = max(1, self._needed_after(goal, column, types))
                hit += race_quarters(stack, after, others) - before
            self.cache[key] = hit
        return hit

    def _needed_after(self, goal: int, column: int, types: tuple[int, ...]) -> int:
        """:func:`tiles_needed` after the placement, or a number > :data:`RACE_REACH` when
        that is (the race value is then 0, :func:`race_quarters`): T-CG1,
        T-CG8, T-CG10, T-CG11 from the shelf's targets within :data:`_RACE_LIMIT` tiles
        (:func:`needed_after`); T-CG3, T-CG4 from the groups the tiles join (T19)."""
        mine = self.mine
        if goal in (1, 8, 10, 11):
            slots = mine.slots[column]
            return needed_after(self._targets(goal), self.heights, column, [(slots[j][0], t) for j, t in enumerate(types)])
        if goal in (3, 4) and len(set(types)) == len(types):  # distinct types join distinct groups
            least = 4 if goal == 3 else 2
            cells = self._deltas(least)[column]
            count = mine.at_least[least]
            for j, t in enumerate(types):
                count += cells[j][t]
            short = (4 if goal == 3 else 6) - count
            return short if short <= mine.empty - len(types) else FAR
        k = len(types)
        heights = list(self.heights)
        heights[column] += k
        if goal == 9:
            need = 8 - max(mine.counts[t] + types.count(t) for t in set(types))
            need = max(0, min(need, 8 - max(mine.counts)))
        elif goal == 12:
            need = staircase_needed(heights)
        elif goal in (2, 5):
            distinct, kinds, _ = self._lines()
            distinct = list(distinct)
            distinct[column] = len(kinds[column].union(types))
            need = columns_needed(goal, heights, distinct)
        elif goal in (6, 7):
            rows = list(self._lines()[2])
            may = [row_may(goal, row) for row in rows]
            for j, t in enumerate(types):
                row = mine.slots[column][j][0] // COLUMNS
                rows[row] = rows[row] + [t]
                may[row] = row_may(goal, rows[row])
            need = rows_needed(goal, heights, may)
        else:
            return tiles_needed(goal, place_tiles(mine.shelf, column, types), self.rules)
        return need if need <= mine.empty - k else FAR

    def _lines(self) -> tuple[list[int], list[set[int]], list[list[int]]]:
        """The mover's shelf: distinct types per column, the types per column, the tiles per row."""
        if self.lines is None:
            shelf = self.mine.shelf
            kinds = [{shelf[r * COLUMNS + c] for r in range(ROWS)} - {EMPTY} for c in range(COLUMNS)]
            rows = [[t for t in shelf[r * COLUMNS:(r + 1) * COLUMNS] if t != EMPTY] for r in range(ROWS)]
            self.lines = [len(k) for k in kinds], kinds, rows
        return self.lines


#: The race's pattern targets (:meth:`RaceTerm._needed_after`) are kept up to this many tiles away:
#: a placement brings a target at most 3 tiles closer, and the race value is 0 beyond RACE_REACH.
_RACE_LIMIT = RACE_REACH + 3
