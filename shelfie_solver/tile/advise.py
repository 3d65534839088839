"""The move advisor (``shelfie-solve tile advise``): every legal move ranked by an evaluation.

The evaluation of a move, in points (exact: integers in quarters, a ``Fraction`` at the end), is
the sum of

* ``immediate`` - the change of the score the mover would have if the game ended now (T25:
  groups T22, personal goal T21, the common-goal tokens taken this turn T18, the end token T23);
* ``groups`` - half the change of the group potential: each group of 2-5 tiles with an empty
  neighbour shelf cell is worth half the points its next tile would add (T22);
* ``personal`` - half the change of the personal potential: the points the still-empty cells of
  the card would add if each got its type (T21), halved; a wrong tile on a card cell loses it;
* ``tempo`` - minus half a point per missing cell of room for a 3-tile pick (T12): a shelf whose
  columns all have 1-2 free cells forces small picks;
* ``denial`` - minus half of the best immediate gain the next player could take from the board
  this move leaves (their shelf, their card if known, the goals' next tokens). When the move
  triggers a refill (T16) the next player picks from a fresh random board: the gain is then its
  mean over a seeded sample of refills, with a 95% interval (``rank_moves(samples=...)``), or
  its exact expectation when the refill can draw few enough boards (:mod:`.refill`); the
  ``advisor`` strategy counts 0 there;
* ``race`` - the common-goal race (T18): for each goal the mover has not scored, the change of
  :func:`race_quarters` (the token the mover can expect given how many tiles each player still
  needs, :mod:`.race`, halved per tile needed, 0 beyond 3 tiles); :class:`_Race`.

Shelf outcomes depend only on (column, types placed), so each is computed once per position and
shared by every pick of the same types. The ``greedy`` baseline ranks by ``immediate`` alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from itertools import permutations

import numpy as np


from .engine import (BOARD_NEIGHBOURS, Board, Move, State, Table, cell_orders, column_room, draw_refill, free_cells,
                     legal_moves, legal_picks, needs_refill, pick_orders)
from .race import (FAR, Target, cheapest_after, columns_needed, expected_token, needed_after, pattern_targets, row_may, rows_needed,
                   staircase_needed, tiles_needed)
from .rules import CELLS, COLUMNS, EMPTY, PERSONAL_POINTS, ROWS, SIDE, PersonalCard, Shelf, TileRuleset
from .shelf import GROUP_POINTS, MIN_TILES, NEIGHBOURS, goal_holds, group_labels

#: Evaluation unit: quarters of a point.
QUARTER = 4
PARTS = ("immediate", "groups", "personal", "tempo", "denial", "race")


@dataclass(frozen=True)
class RankedMove:
    """A legal move with its evaluation.

    Attributes:
        move: the move. rank: 1 = best (equal values share a rank). value: the sum of ``parts``
        (points, exact). parts: each term of the module docstring (points, exact).
        goals: common goals (T-CG ids) it scores now. refill: whether it triggers a refill (T16).
        end: whether it fills the shelf first (T23). outlook: for a refill with sampling on, the
        next player's expected best gain on the new board (quarters of a point).
    """

    move: Move
    rank: int
    value: Fraction
    parts: dict[str, Fraction]
    goals: tuple[int, ...]
    refill: bool
    end: bool
    outlook: RefillOutlook | None = None


def _place(shelf: Shelf, column: int, types: tuple[int, ...]) -> Shelf:
    cells = list(shelf)
    row = ROWS - 1
    while cells[row * COLUMNS + column] != EMPTY:
        row -= 1
    for t in types:
        cells[row * COLUMNS + column] = t
        row -= 1
    return tuple(cells)


def _features(shelf: Shelf, card: PersonalCard | None) -> tuple[int, int, int, int]:
    """``(adjacency points, personal points, group potential x4, personal potential x4)``; a hidden
    card (None) counts 0."""
    adjacency = group_potential = 0
    for _, size, growing in group_labels(shelf)[1]:
        if size >= 6:
            adjacency += 8
            continue
        adjacency += GROUP_POINTS[size]
        if growing:
            group_potential += 2 * (GROUP_POINTS[size + 1] - GROUP_POINTS[size])
    if card is None:
        return adjacency, 0, group_potential, 0
    matches = card.matches(shelf)
    pending = sum(1 for cell in card.cells if shelf[cell] == EMPTY)
    personal_potential = 2 * (PERSONAL_POINTS[matches + pending] - PERSONAL_POINTS[matches])
    return adjacency, PERSONAL_POINTS[matches], group_potential, personal_potential


def _tempo(shelf: Shelf) -> int:
    """Minus 2 quarters per cell of room missing for a 3-tile pick (T12)."""
    empty = shelf.count(EMPTY)
    return -2 * max(0, min(3, empty) - max(column_room(shelf)))


#: A group's potential (quarters of a point) by size (capped at 6) when it can still grow: half of
#: what its next tile adds (T22); 0 for a single tile and from 6 tiles on.
_POTENTIAL = tuple(2 * (GROUP_POINTS[s + 1] - GROUP_POINTS[s]) if 0 < s < 6 else 0 for s in range(7))
#: Placement outcomes of recent shelves (:func:`_placements`), so a seat's turn reuses what the
#: previous seat's denial term computed for its shelf; the oldest shelf is dropped beyond this
#: many (a game needs the last few: each seat's shelf changes once per round).
_RECENT: dict[tuple[object, ...], _Placements] = {}
_RECENT_MAX = 8


def _through(patterns: list[tuple[int, ...]]) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """Per shelf cell, the ``patterns`` (tuples of cells) that contain it."""
    return tuple(tuple(p for p in patterns if cell in p) for cell in range(CELLS))


#: Per shelf cell: the X windows (T-CG10), the 4 diagonals (T-CG11) and the 2x2 blocks (T-CG1) through it.
_X_THROUGH = _through([(r * COLUMNS + c, r * COLUMNS + c + 2, (r + 1) * COLUMNS + c + 1, (r + 2) * COLUMNS + c,
                        (r + 2) * COLUMNS + c + 2) for r in range(ROWS - 2) for c in range(COLUMNS - 2)])
_DIAGONALS_THROUGH = _through([tuple((r0 + i) * COLUMNS + (i if down else COLUMNS - 1 - i) for i in range(COLUMNS))
                               for r0 in (0, 1) for down in (True, False)])
_BLOCKS_THROUGH = _through([(r * COLUMNS + c, r * COLUMNS + c + 1, (r + 1) * COLUMNS + c, (r + 1) * COLUMNS + c + 1)
                            for r in range(ROWS - 1) for c in range(COLUMNS - 1)])


class _GoalInfo:
    """What :meth:`_Placements._holds_after` needs of a shelf: the open goals that already hold
    (``before``), the types in each column and row, and the full columns / rows meeting T-CG2,
    T-CG5 (by goal) and T-CG6, T-CG7."""

    def __init__(self, shelf: Shelf, rules: TileRuleset, goals: list[int]):
        self.before = {goal for goal in goals if goal not in (3, 4) and goal_holds(goal, shelf, rules)}
        columns = [[shelf[r * COLUMNS + c] for r in range(ROWS)] for c in range(COLUMNS)]
        rows = [list(shelf[r * COLUMNS:(r + 1) * COLUMNS]) for r in range(ROWS)]
        self.column_kinds = [set(line) - {EMPTY} for line in columns]
        self.row_kinds = [set(line) - {EMPTY} for line in rows]
        full_columns = [len(set(line)) for line in columns if EMPTY not in line]
        full_rows = [len(set(line)) for line in rows if EMPTY not in line]
        self.full_columns = {2: full_columns.count(6), 5: sum(1 for n in full_columns if n <= 3)}
        self.full_rows = {6: full_rows.count(5), 7: sum(1 for n in full_rows if n <= 3)}


def _row_may_complete(goal: int, kinds: set[int]) -> bool:
    """Whether a row holding 4 tiles of ``kinds`` can qualify for T-CG6 (5 types: its 4 tiles
    must differ) / T-CG7 (at most 3 types) once one more tile fills it."""
    return len(kinds) == 4 if goal == 6 else len(kinds) <= 3


#: ``_ALONE[want][t]``: :meth:`_Placements._tile_terms` of a tile of type ``t`` next to no group
#: of its type (a group of 1: no points, no potential, T22) on a cell where the card wants
#: ``want`` (EMPTY: none).
_ALONE = {want: tuple((0, int(want == t), 0, 0, 0) for t in range(6)) for want in (*range(6), EMPTY)}


class _Placements:
    """A seat's shelf outcomes by (column, types), each computed once per shelf.

    ``value(column, types)`` = ``(immediate x4, groups x4, personal x4, tempo x4, goals, end)``,
    computed incrementally (T22: only the groups the placed tiles join or touch change; T21: only
    the placed cells can match the card), equal to :func:`_full_value` on the whole shelf (checked in
    tests/test_tile_advise.py).
    """

    def __init__(self, table: Table, state: State, seat: int):
        self.table, self.state, self.seat = table, state, seat
        self.shelf = shelf = state.shelves[seat]
        self.card = card = table.card(seat)
        self.room = column_room(shelf)
        self.cache: dict[tuple[int, tuple[int, ...]], tuple[int, int, int, int, tuple[int, ...], bool]] = {}
        self.best_cache: dict[tuple[int, ...], int] = {}
        self.gains: dict[tuple[int, tuple[int, ...]], int] = {}
        self.singles: list[list[list[tuple[int, int, tuple[int, ...], int]]]] | None = None
        self.goal_info: _GoalInfo | None = None
        self.column_base: dict[tuple[int, int], tuple[int, int, int, int, bool]] = {}
        self.terms: dict[tuple[int, int], tuple[list[list[tuple[int, int, int, int, int]]], list[tuple[int, int]]]] = {}
        self.sums_cache: dict[tuple[int, ...], list[tuple[int, tuple[int, ...], int, tuple[int, ...], int]]] = {}
        self.labels, self.groups = labels, groups = group_labels(shelf)
        self.matches = card.matches(shelf) if card else 0
        self.pending = sum(1 for cell in card.cells if shelf[cell] == EMPTY) if card else 0
        self.open_slots = [(slot, goal) for slot, goal in enumerate(table.goals)
                           if state.tokens[seat][slot] == 0 and state.stacks[slot]]
        self.empty = shelf.count(EMPTY)
        self.base_tempo = _tempo(shelf)
        self.end_open = state.end_token is None
        # for the goal checks: groups of 2+ / 4+ tiles, tiles per type, full rows, empty cells per row
        self.at_least = {least: sum(1 for _, size, _ in groups if size >= least) for least in (2, 4)}
        self.counts = [shelf.count(t) for t in range(6)]
        gaps = [sum(1 for c in range(COLUMNS) if shelf[r * COLUMNS + c] == EMPTY) for r in range(ROWS)]
        self.full_rows = gaps.count(0)
        self.live_slots = [(slot, goal) for slot, goal in self.open_slots if self._may_hold(goal, gaps)]
        self._live_columns: list[list[tuple[int, int]]] | None = None
        # the empty cells next to each group (bit masks): a group can grow while it has one
        self.reach = reach = [0] * len(groups)
        for cell, g in enumerate(labels):
            if g >= 0:
                for n in NEIGHBOURS[cell]:
                    if shelf[n] == EMPTY:
                        reach[g] |= 1 << n
        wanted = [EMPTY] * len(shelf)
        if card is not None:
            for t, cell in enumerate(card.cells):
                wanted[cell] = t
        # per column, the cells the next 1-3 tiles land on: (cell, an empty side neighbour,
        # {type: groups of that type next to it}, the type the card wants there or EMPTY)
        self.slots: list[list[tuple[int, bool, dict[int, tuple[int, ...]], int]]] = []
        for column in range(COLUMNS):
            height = ROWS - self.room[column]
            slots = []
            for j in range(min(3, self.room[column])):
                cell = (ROWS - 1 - height - j) * COLUMNS + column
                near: dict[int, list[int]] = {}
                side_empty = False
                for n in NEIGHBOURS[cell]:
                    if n == cell - COLUMNS or (n == cell + COLUMNS and j):
                        continue  # above: empty or a placed tile; below a placed tile: a placed tile
                    if shelf[n] == EMPTY:
                        side_empty = True
                    elif labels[n] not in near.setdefault(shelf[n], []):
                        near[shelf[n]].append(labels[n])
                slots.append((cell, side_empty, {t: tuple(gs) for t, gs in near.items()}, wanted[cell]))
            self.slots.append(slots)
        #: per column, the empty cells of the row of each of its next 1-3 cells
        self.row_gaps = [[gaps[cell // COLUMNS] for cell, _, _, _ in column_slots] for column_slots in self.slots]

    def value(self, column: int, types: tuple[int, ...]) -> tuple[int, int, int, int, tuple[int, ...], bool]:
        """Place ``types`` (bottom first) in ``column``: the evaluation terms (quarters of a
        point), the goals completed (T18) and whether the shelf is now full first (T23)."""
        key = (column, types)
        hit = self.cache.get(key)
        if hit is None:
            if len(set(types)) == len(types):
                hit = self.cache[key] = self._distinct_value(column, types)
            else:
                hit = self.cache[key] = self._evaluate(column, types, True)
            self.gains[key] = hit[0]
        return hit

    def _distinct_value(self, column: int, types: tuple[int, ...]) -> tuple[int, int, int, int, tuple[int, ...], bool]:
        """:meth:`_evaluate` for tiles of distinct types (each joins only groups of its type, T19):
        tile by tile from :meth:`_tile_terms`, with what depends only on the cells filled (the
        potential lost by neighbour groups left with no empty neighbour, tempo, card cells
        covered) kept per (column, number of tiles); the goals within reach
        (:meth:`live_columns`) checked as in :meth:`_evaluate`."""
        k = len(types)
        terms, by_hits = self._tile_terms(column, k)
        total, goals, immediate, hits = self._distinct_sum(column, types, terms, by_hits)
        _, loss, tempo, _, _ = self.column_base[(column, k)]
        rest, immediate_rest = by_hits[hits]
        # total - rest = tile terms + tokens; immediate - immediate_rest = group points + tokens
        groups = (total - rest) - (immediate - immediate_rest) - loss
        personal_potential = rest - immediate_rest - tempo + loss  # by_hits: end + tempo - loss + personal
        return immediate, groups, personal_potential, tempo, goals, self.end_open and self.empty == k  # T23

    def _goals_completed(self, live: list[tuple[int, int]] | None, column: int, types: tuple[int, ...], pairs: int,
                         quartets: int) -> list[tuple[int, int]]:
        """``(slot, goal)`` of the goals ``live`` (within reach of ``column``, :meth:`live_columns`)
        that hold once ``types`` (bottom first) are placed there (T18, T-CG1-12); ``pairs`` and
        ``quartets`` are the groups of 2+ / 4+ tiles the placement gains (T-CG4 / T-CG3)."""
        if not live:
            return []
        k = len(types)
        room = list(self.room)
        room[column] -= k
        completed = []
        for slot, goal in live:
            if goal == 3:
                holds = self.at_least[4] + quartets >= 4
            elif goal == 4:
                holds = self.at_least[2] + pairs >= 6
            else:
                holds = CELLS - self.empty + k >= MIN_TILES[goal] and self._holds_after(goal, column, types, room)
            if holds:
                completed.append((slot, goal))
        return completed

    def _distinct_sum(self, column: int, types: tuple[int, ...], terms: list[list[tuple[int, int, int, int, int]]],
                      by_hits: list[tuple[int, int]]) -> tuple[int, tuple[int, ...], int, int]:
        """Tiles of distinct ``types`` in ``column`` from :meth:`_tile_terms` (``terms``,
        ``by_hits``): ``(immediate + groups + personal + tempo (x4), the goals within reach
        that hold after it (T18), the immediate gain (x4), the card hits)``."""
        v = hits = gained = pairs = quartets = 0
        for j, t in enumerate(types):
            term, hit, points, pair, quartet = terms[j][t]
            v += term
            hits += hit
            gained += points
            pairs += pair
            quartets += quartet
        completed = self._goals_completed(self.live_columns()[column], column, types, pairs, quartets)
        done = [goal for _, goal in completed]
        tokens = sum(self.state.stacks[slot][0] for slot, _ in completed)
        rest, personal = by_hits[hits]
        return v + rest + QUARTER * tokens, tuple(done), gained + personal + QUARTER * tokens, hits

    def sums(self, key: tuple[int, ...]) -> list[tuple[int, tuple[int, ...], int, tuple[int, ...], int]]:
        """Every placement of the tile types ``key`` (sorted), kept per shelf: ``(column, types
        bottom first, immediate + groups + personal + tempo (x4), goals completed, immediate
        (x4))`` per column with room, per order of :func:`_orders` (the bound of
        :func:`_best_advised`, and the next player's best gain, :meth:`best_from_sums`). Equal
        to :meth:`value` (checked in tests/test_tile_advise.py); for distinct types from
        :meth:`_tile_terms` (T19: each tile joins only groups of its type, so the terms add up
        tile by tile) without building the placement, the goals within reach checked per order."""
        out = self.sums_cache.get(key)
        if out is not None:
            return out
        k = len(key)
        out = self.sums_cache[key] = []
        live = self.live_columns()
        distinct = len(set(key)) == k
        orders = _orders(key)
        for column in range(COLUMNS):
            if self.room[column] < k:
                continue
            slots = self.slots[column]
            if not distinct and any(t in slots[j][2] for j in range(k) for t in key):
                for types in orders:  # a tile joins a group of its type (T19): the runs of _evaluate
                    immediate, groups, personal, tempo, goals, _ = self.value(column, types)
                    out.append((column, types, immediate + groups + personal + tempo, goals, immediate))
                continue
            terms, by_hits = self._tile_terms(column, k)
            if not distinct:
                self._alone_runs(column, key, terms, by_hits, out)
                continue
            if live[column]:  # the goals within reach checked per order (T18)
                for types in orders:
                    v, goals, immediate, _ = self._distinct_sum(column, types, terms, by_hits)
                    out.append((column, types, v, goals, immediate))
            elif k == 1:
                for types in orders:
                    v, h, i, _, _ = terms[0][types[0]]
                    rest, gained = by_hits[h]
                    out.append((column, types, v + rest, (), i + gained))
            elif k == 2:
                first, second = terms
                for types in orders:
                    v, h, i, _, _ = first[types[0]]
                    v2, h2, i2, _, _ = second[types[1]]
                    rest, gained = by_hits[h + h2]
                    out.append((column, types, v + v2 + rest, (), i + i2 + gained))
            else:
                first, second, third = terms
                for types in orders:
                    v, h, i, _, _ = first[types[0]]
                    v2, h2, i2, _, _ = second[types[1]]
                    v3, h3, i3, _, _ = third[types[2]]
                    rest, gained = by_hits[h + h2 + h3]
                    out.append((column, types, v + v2 + v3 + rest, (), i + i2 + i3 + gained))
        return out

    def _alone_runs(self, column: int, key: tuple[int, ...], terms: list[list[tuple[int, int, int, int, int]]],
                    by_hits: list[tuple[int, int]],
                    out: list[tuple[int, tuple[int, ...], int, tuple[int, ...], int]]) -> None:
        """:meth:`sums` of repeated types ``key`` in ``column`` when none of the column's next
        ``k`` cells has a group of any of these types next to it (the caller checks), so each
        run of one type is a group of its own (T19): per order, the runs' group points and
        potential (T22; a run grows while one of its cells has an empty side neighbour, or it is
        on top with room above, T4), the rest from ``by_hits`` (:meth:`_tile_terms`: personal
        points and potential, tempo, the potential lost by neighbour groups, the end token) and
        the goals within reach (T18), as :meth:`_evaluate` computes them."""
        k = len(key)
        slots = self.slots[column]
        top_open = slots[k - 1][0] >= COLUMNS
        live = self.live_columns()[column]
        for types in _orders(key):
            hits = 0
            runs: list[int] = []
            grows: list[bool] = []
            for j, t in enumerate(types):
                hits += terms[j][t][1]
                if j and types[j - 1] == t:
                    runs[-1] += 1
                    grows[-1] = grows[-1] or slots[j][1]
                else:
                    runs.append(1)
                    grows.append(slots[j][1])
            if top_open:
                grows[-1] = True
            points = sum(GROUP_POINTS[size] for size in runs)
            potential = sum(_POTENTIAL[size] for size, grow in zip(runs, grows) if grow)
            goals = []
            tokens = 0
            if live:  # T-CG3 / T-CG4: the runs are new groups
                for slot, goal in self._goals_completed(live, column, types, sum(size >= 2 for size in runs),
                                                        sum(size >= 4 for size in runs)):
                    goals.append(goal)
                    tokens += self.state.stacks[slot][0]
            rest, personal = by_hits[hits]
            gained = QUARTER * (points + tokens)
            out.append((column, types, gained + potential + rest, tuple(goals), gained + personal))

    def best_from_sums(self, types: tuple[int, ...]) -> int:
        """:meth:`best_immediate` as the best immediate gain among :meth:`sums`: the next
        player's, whose placements are kept for their own turn (their shelf moves next)."""
        key = tuple(sorted(types))
        hit = self.best_cache.get(key)
        if hit is None:
            hit = self.best_cache[key] = max(item[4] for item in self.sums(key))
        return hit

    def _tile_terms(self, column: int, k: int) -> tuple[list[list[tuple[int, int, int, int, int]]], list[tuple[int, int]]]:
        """For ``k`` tiles of distinct types placed in ``column`` (kept per (column, k)): per
        tile position, per type, ``(4 x group points gained + group potential change x4, whether
        the card wants that type there, 4 x group points gained, groups of 2+ and of 4+ tiles
        gained: T-CG4, T-CG3)``, and per number of card hits
        the rest of :meth:`_distinct_value`'s sum with no goal completed (personal points and
        potential, tempo, the potential lost by neighbour groups, the end token) and of its
        immediate gain (personal points, the end token)."""
        hit = self.terms.get((column, k))
        if hit is not None:
            return hit
        base = self.column_base.get((column, k))
        if base is None:
            base = self.column_base[(column, k)] = self._column_base(column, k)
        keep, loss, tempo, covered, top_open = base
        groups, reach = self.groups, self.reach
        terms = []
        for j, (_, side_empty, near, want) in enumerate(self.slots[column][:k]):
            row = list(_ALONE[want])
            for t in near:
                growing = side_empty
                gain = potential = pairs = quartets = 0
                size = 1
                for g in near.get(t, ()):
                    old = groups[g][1]
                    size += old
                    pairs -= old >= 2
                    quartets -= old >= 4
                    old = min(old, 6)
                    gain -= GROUP_POINTS[old]
                    if reach[g] & keep:
                        potential -= _POTENTIAL[old]
                        growing = True
                pairs += size >= 2
                quartets += size >= 4
                size = min(size, 6)
                gain += GROUP_POINTS[size]
                if growing or (top_open and j == k - 1):
                    potential += _POTENTIAL[size]
                row[t] = (QUARTER * gain + potential, int(want == t), QUARTER * gain, pairs, quartets)
            terms.append(row)
        end = QUARTER * (self.end_open and self.empty == k)  # T23
        by_hits = []
        for hits in range(covered + 1):  # at most one hit per card cell covered (T21)
            if self.card is None:
                by_hits.append((end + tempo - loss, end))
                continue
            matches = self.matches + hits
            personal = PERSONAL_POINTS[matches] - PERSONAL_POINTS[self.matches]
            personal_potential = 2 * ((PERSONAL_POINTS[matches + self.pending - covered] - PERSONAL_POINTS[matches])
                                      - (PERSONAL_POINTS[self.matches + self.pending] - PERSONAL_POINTS[self.matches]))
            by_hits.append((end + tempo - loss + QUARTER * personal + personal_potential, end + QUARTER * personal))
        hit = self.terms[(column, k)] = (terms, by_hits)
        return hit

    def _column_base(self, column: int, k: int) -> tuple[int, int, int, int, bool]:
        """For ``k`` tiles placed in ``column``: ``(the cells left, as a mask to and with; the
        potential (x4) of the neighbour groups that lose their last empty neighbour; the tempo
        change (x4); the card cells covered; whether the cell above the top tile is empty)``."""
        slots = self.slots[column][:k]
        placed = 0
        for cell, _, _, _ in slots:
            placed |= 1 << cell
        keep = ~placed
        loss = 0
        seen: set[int] = set()
        for _, _, near, _ in slots:
            for near_groups in near.values():
                for g in near_groups:
                    if g not in seen:
                        seen.add(g)
                        if self.reach[g] and not self.reach[g] & keep:
                            loss += _POTENTIAL[min(self.groups[g][1], 6)]
        room = list(self.room)
        room[column] -= k
        empty = self.empty - k
        tempo = -2 * max(0, min(3, empty) - max(room)) - self.base_tempo
        covered = sum(1 for _, _, _, want in slots if want != EMPTY)
        return keep, loss, tempo, covered, slots[-1][0] >= COLUMNS

    def _evaluate(self, column: int, types: tuple[int, ...],
                  full: bool) -> tuple[int, int, int, int, tuple[int, ...], bool]:
        """:meth:`value` uncached; without ``full`` only the immediate gain and the goals (the
        potentials and tempo are 0)."""
        slots = self.slots[column]
        groups, reach = self.groups, self.reach
        k = len(types)
        placed = hits = covered = 0
        # runs of one type among the placed tiles (T19): type, tiles, groups joined, an empty neighbour
        kinds: list[int] = []
        tiles: list[int] = []
        joins: list[set[int]] = []
        opens: list[bool] = []
        for j, t in enumerate(types):
            cell, side_empty, near, want = slots[j]
            placed |= 1 << cell
            if want != EMPTY:
                covered += 1
                hits += want == t
            if j and types[j - 1] == t:
                tiles[-1] += 1
                joins[-1].update(near.get(t, ()))
                opens[-1] = opens[-1] or side_empty
            else:
                kinds.append(t)
                tiles.append(1)
                joins.append(set(near.get(t, ())))
                opens.append(side_empty)
        if slots[k - 1][0] >= COLUMNS:  # the cell above the top tile is empty (T4)
            opens[-1] = True
        if len(kinds) == 3 and kinds[0] == kinds[2] and joins[0] & joins[2]:  # lowest and top join via a group
            tiles[0] += tiles.pop()
            joins[0] |= joins.pop()
            opens[0] = opens[0] or opens.pop()
        gain = potential = 0
        keep = ~placed
        sizes = []
        absorbed: set[int] = set()
        for size, joined, growing in zip(tiles, joins, opens):
            for g in joined:
                old = groups[g][1]
                size += old
                gain -= GROUP_POINTS[min(old, 6)]
                if reach[g]:
                    potential -= _POTENTIAL[min(old, 6)]
                    growing = growing or bool(reach[g] & keep)
            absorbed |= joined
            sizes.append(size)
            gain += GROUP_POINTS[min(size, 6)]
            if growing:
                potential += _POTENTIAL[min(size, 6)]
        joined_groups = set(absorbed)
        for j in range(k if full else 0):  # other groups next to the placed cells may lose their last empty neighbour
            for near_groups in slots[j][2].values():
                for g in near_groups:
                    if g not in absorbed:
                        absorbed.add(g)
                        if reach[g] and not reach[g] & keep:
                            potential -= _POTENTIAL[min(groups[g][1], 6)]
        personal = personal_potential = 0
        if self.card is not None:
            matches = self.matches + hits
            personal = PERSONAL_POINTS[matches] - PERSONAL_POINTS[self.matches]
            if full:
                personal_potential = 2 * ((PERSONAL_POINTS[matches + self.pending - covered] - PERSONAL_POINTS[matches])
                                          - (PERSONAL_POINTS[self.matches + self.pending]
                                             - PERSONAL_POINTS[self.matches]))
        room = list(self.room)
        room[column] -= k
        empty = self.empty - k
        tempo = -2 * max(0, min(3, empty) - max(room)) - self.base_tempo if full else 0
        goals = []
        tokens = 0
        live = self.live_columns()[column]
        if live:  # T18: the next token if the goal holds now; T-CG3 / T-CG4 from the groups after it
            def gained(least: int) -> int:
                return (sum(1 for size in sizes if size >= least)
                        - sum(1 for g in joined_groups if groups[g][1] >= least))

            for slot, goal in self._goals_completed(live, column, types, gained(2), gained(4)):
                goals.append(goal)
                tokens += self.state.stacks[slot][0]
        end = self.end_open and empty == 0  # T23
        return (QUARTER * (gain + personal + tokens + end), potential if full else 0, personal_potential, tempo,
                tuple(goals), end)

    def _may_hold(self, goal: int, gaps: list[int]) -> bool:
        """False when open goal T-CG``goal`` cannot hold after any one placement (1-3 tiles in one
        column, T12-T14; ``gaps``: the empty cells per row), from counts alone (a goal that holds
        now passes): too few tiles, too few full or nearly full columns (T-CG2, T-CG5, T-CG8) or
        rows (T-CG6, T-CG7), too few tiles of one type (T-CG9-T-CG11)."""
        room = self.room
        if CELLS - self.empty + min(3, max(room)) < MIN_TILES[goal]:
            return False
        if goal in (2, 5):
            return room.count(0) + any(0 < r <= 3 for r in room) >= (2 if goal == 2 else 3)
        if goal in (6, 7):
            return gaps.count(0) + min(3, gaps.count(1)) >= (2 if goal == 6 else 4)
        if goal == 8:
            return min(room[0], room[-1]) == 0 and max(room[0], room[-1]) <= 3
        if goal in (9, 10, 11):
            return max(self.counts) + 3 >= (8 if goal == 9 else 5)
        return True

    def live_columns(self) -> list[list[tuple[int, int]]]:
        """Per column, the open ``(slot, goal)`` pairs that a placement there may complete (a
        necessary condition; :meth:`_holds_after` decides): :attr:`live_slots` less, for T-CG1,
        T-CG10 and T-CG11, the columns with no 2x2 block / X / diagonal through their next 1-3
        cells whose tiles are all of one type and whose empty cells are those next cells; for
        T-CG2, T-CG5 the columns that cannot fill up; for T-CG6, T-CG7 the columns completing too
        few rows that may qualify (T-CG6: 4 distinct types before the last tile, T-CG7: at most
        3); for T-CG8 the columns other than the corners'; for T-CG12 those whose 1-3 more
        tiles give no staircase (goals that hold already stay)."""
        live = self._live_columns
        if live is None:
            live = self._live_columns = [[(slot, goal) for slot, goal in self.live_slots if self._column_may(goal, c)]
                                         for c in range(COLUMNS)]
        return live

    def _column_may(self, goal: int, column: int) -> bool:
        """See :meth:`live_columns`."""
        room = self.room
        most = min(3, room[column])
        if most == 0:
            return False
        if self.goal_info is None:
            self.goal_info = _GoalInfo(self.shelf, self.table.rules, [goal for _, goal in self.live_slots])
        if goal in self.goal_info.before or goal in (3, 4, 9):
            return True
        cells = [self.slots[column][j][0] for j in range(most)]
        shelf = self.shelf
        if goal in (1, 10, 11):
            patterns = _BLOCKS_THROUGH if goal == 1 else _X_THROUGH if goal == 10 else _DIAGONALS_THROUGH
            for cell in cells:
                for pattern in patterns[cell]:
                    if len({shelf[x] for x in pattern if x not in cells}) <= 1 and \
                            all(shelf[x] != EMPTY or x in cells for x in pattern):
                        return True
            return False
        if goal in (2, 5):
            return room[column] <= 3 and room.count(0) + 1 >= (2 if goal == 2 else 3)
        if goal in (6, 7):  # the rows qualifying now plus those the column's next cells complete and may qualify
            info = self.goal_info
            assert info is not None  # set above
            completing = sum(1 for j, gaps in enumerate(self.row_gaps[column][:most])
                             if gaps == 1 and _row_may_complete(goal, info.row_kinds[self.slots[column][j][0] // COLUMNS]))
            return info.full_rows[goal] + completing >= (2 if goal == 6 else 4)
        if goal == 8:
            return column in (0, COLUMNS - 1) and room[column] <= 3 and room[COLUMNS - 1 - column] == 0
        if goal == 12:
            heights = [ROWS - r for r in room]
            for k in range(1, most + 1):
                heights[column] += 1
                if (heights[0] in (1, 2) and all(heights[c] == heights[0] + c for c in range(COLUMNS))) or \
                        (heights[-1] in (1, 2) and all(heights[c] == heights[-1] + COLUMNS - 1 - c for c in range(COLUMNS))):
                    return True
            return False
        return True

    def _holds_after(self, goal: int, column: int, types: tuple[int, ...], room: list[int]) -> bool:
        """Whether open common goal T-CG``goal`` (not 3 or 4) holds after placing ``types`` in
        ``column`` (``room``: the empty cells per column after it), exactly, mostly without the
        predicate: a goal that does not hold before the placement can only be completed by what
        it changes (T18-T19): the placed column for full columns (T-CG2, T-CG5), the rows it
        completes (T-CG6, T-CG7), tiles per type (T-CG9), column heights (T-CG12), patterns
        through a placed cell (T-CG1: a new 2x2 block is needed, T-CG10, T-CG11). Checked
        against the predicates (:func:`shelf.goal_holds`) in tests/test_tile_advise.py."""
        info = self.goal_info
        if info is None:
            info = self.goal_info = _GoalInfo(self.shelf, self.table.rules, [goal for _, goal in self.live_slots])
        if goal in info.before:  # held before the placement (a position typed by hand): the predicate decides
            return goal_holds(goal, _place(self.shelf, column, types), self.table.rules)
        if goal in (2, 5):
            if room[column]:
                return False
            kinds = len(info.column_kinds[column].union(types))
            return info.full_columns[goal] + (kinds == 6 if goal == 2 else kinds <= 3) >= (2 if goal == 2 else 3)
        if goal in (6, 7):
            count = info.full_rows[goal]
            for j, t in enumerate(types):
                if self.row_gaps[column][j] == 1:
                    kinds = len(info.row_kinds[self.slots[column][j][0] // COLUMNS] | {t})
                    count += kinds == 5 if goal == 6 else kinds <= 3
            return count >= (2 if goal == 6 else 4)
        if goal == 8:
            return room[0] == 0 and room[COLUMNS - 1] == 0 and \
                goal_holds(goal, _place(self.shelf, column, types), self.table.rules)
        if goal == 9:
            return max(self.counts[t] + types.count(t) for t in set(types)) >= 8
        if goal == 12:  # T-CG12 from the heights after: 1-5 or 2-6 rising or falling by one
            heights = [ROWS - r for r in room]
            return (heights[0] in (1, 2) and all(heights[c] == heights[0] + c for c in range(COLUMNS))) or \
                (heights[-1] in (1, 2) and all(heights[c] == heights[-1] + COLUMNS - 1 - c for c in range(COLUMNS)))
        if goal in (10, 11):  # an X or a diagonal of one type through a placed cell
            if max(self.counts[t] + types.count(t) for t in set(types)) < 5:
                return False
            shelf = _place(self.shelf, column, types)
            lines = _X_THROUGH if goal == 10 else _DIAGONALS_THROUGH
            for j in range(len(types)):
                for line in lines[self.slots[column][j][0]]:
                    kind = shelf[line[0]]
                    if kind != EMPTY and all(shelf[c] == kind for c in line):
                        return True
            return False
        shelf = _place(self.shelf, column, types)  # T-CG1: a 2x2 block through a placed cell, then the predicate
        for j in range(len(types)):
            for block in _BLOCKS_THROUGH[self.slots[column][j][0]]:
                kind = shelf[block[0]]
                if kind != EMPTY and all(shelf[c] == kind for c in block):
                    return goal_holds(goal, shelf, self.table.rules)
        return False

    def immediate(self, column: int, types: tuple[int, ...]) -> int:
        """The change of the T25 score (x4) of placing ``types`` in ``column``: ``value(...)[0]``,
        computed without the potentials when not known yet."""
        key = (column, types)
        hit = self.gains.get(key)
        if hit is None:
            if len(set(types)) == len(types):
                hit = self._distinct_gain(column, types)
            else:
                hit = self._evaluate(column, types, False)[0]
            self.gains[key] = hit
        return hit

    def _distinct_gain(self, column: int, types: tuple[int, ...]) -> int:
        """:meth:`immediate` for tiles of distinct types, which join distinct groups (T19), so
        their group points add up tile by tile (T22)."""
        singles = self._singles()
        k = len(types)
        gain = hits = 0
        for j, t in enumerate(types):
            tile_gain, _, _, want = singles[column][j][t]
            gain += tile_gain
            hits += want == t
        empty = self.empty - k
        if self.card is not None:
            gain += PERSONAL_POINTS[self.matches + hits] - PERSONAL_POINTS[self.matches]
        for slot, goal in self.live_columns()[column]:  # T18
            if goal in (3, 4):  # the groups after the placement, counted exactly
                least = 4 if goal == 3 else 2
                count = self.at_least[least]
                for j, t in enumerate(types):
                    _, size, joined, _ = singles[column][j][t]
                    count += (size >= least) - sum(1 for old in joined if old >= least)
                holds = count >= (4 if goal == 3 else 6)
            elif CELLS - empty < MIN_TILES[goal]:
                holds = False
            else:
                room = list(self.room)
                room[column] -= k
                holds = self._holds_after(goal, column, types, room)
            if holds:
                gain += self.state.stacks[slot][0]
        if self.end_open and empty == 0:  # T23
            gain += 1
        return QUARTER * gain

    def _singles(self) -> list[list[list[tuple[int, int, tuple[int, ...], int]]]]:
        """Per column, per next cell (1-3), per type: :meth:`_single` (computed once per shelf)."""
        singles = self.singles
        if singles is None:
            singles = self.singles = []
            for column_slots in self.slots:
                column = []
                for slot in column_slots:
                    alone = (0, 1, (), slot[3])  # a tile next to no group of its type
                    near = slot[2]
                    column.append([self._single(slot, t) if t in near else alone for t in range(6)])
                singles.append(column)
        return singles

    def _single(self, slot: tuple[int, bool, dict[int, tuple[int, ...]], int],
                t: int) -> tuple[int, int, tuple[int, ...], int]:
        """One tile of type ``t`` on ``slot``: ``(group points gained, its group's size, the sizes of
        the groups it joins, the type the card wants there)``."""
        sizes = tuple(self.groups[g][1] for g in slot[2].get(t, ()))
        size = 1 + sum(sizes)
        return (GROUP_POINTS[min(size, 6)] - sum(GROUP_POINTS[min(old, 6)] for old in sizes), size, sizes, slot[3])

    def _runs_gain(self, column: int, order: tuple[int, ...], live: list[tuple[int, int]] | None = None) -> int:
        """The group (T22) and personal (T21) points (x4) of placing ``order`` in ``column``, from
        its runs of one type (each run's tiles join one group with the groups of its type next to
        them, T19; with three runs of types a b a, the two a runs join when they touch a common
        group), plus the tokens of the goals of ``live`` (``(slot, goal)`` pairs) it completes
        (T18, checked as in :meth:`_evaluate`): :meth:`_evaluate`'s immediate gain without the
        end token."""
        slots = self.slots[column]
        groups = self.groups
        hits = 0
        runs: list[tuple[int, set[int]]] = []  # (tiles, groups joined) per run
        kinds: list[int] = []
        for j, t in enumerate(order):
            _, _, near, want = slots[j]
            hits += want == t
            if j and order[j - 1] == t:
                tiles, joined = runs[-1]
                joined.update(near.get(t, ()))
                runs[-1] = (tiles + 1, joined)
            else:
                kinds.append(t)
                runs.append((1, set(near.get(t, ()))))
        if len(runs) == 3 and kinds[0] == kinds[2] and runs[0][1] & runs[2][1]:
            tiles, joined = runs.pop()
            runs[0] = (runs[0][0] + tiles, runs[0][1] | joined)
        gain = pairs = quartets = 0  # groups of 2+ / 4+ tiles gained (T-CG4 / T-CG3)
        for size, joined in runs:
            for g in joined:
                old = groups[g][1]
                size += old
                pairs -= old >= 2
                quartets -= old >= 4
                gain -= GROUP_POINTS[min(old, 6)]
            pairs += size >= 2
            quartets += size >= 4
            gain += GROUP_POINTS[min(size, 6)]
        if self.card is not None:
            gain += PERSONAL_POINTS[self.matches + hits] - PERSONAL_POINTS[self.matches]
        for slot, _ in self._goals_completed(live, column, order, pairs, quartets):  # T18: the next token
            gain += self.state.stacks[slot][0]
        return QUARTER * gain

    def best_immediate(self, types: tuple[int, ...]) -> int:
        """The best immediate gain (x4) of placing these tile types (any order, any column)."""
        key = tuple(sorted(types))
        hit = self.best_cache.get(key)
        if hit is not None:
            return hit
        k = len(key)
        columns = [c for c in range(COLUMNS) if self.room[c] >= k]
        live = self.live_columns()
        if len(set(key)) < k:  # repeated types: per order, from the runs of one type (T19)
            orders = _orders(key)
            end = QUARTER * (self.end_open and self.empty == k)  # T23
            top = None
            for c in columns:
                value = max(self._runs_gain(c, order, live[c]) for order in orders) + end
                if top is None or value > top:
                    top = value
            assert top is not None
            best = top
        else:  # distinct types: :meth:`_distinct_gain` inline, with the goals that need no predicate
            singles = self._singles()
            matches = self.matches
            personal = PERSONAL_POINTS if self.card is not None else (0,) * len(PERSONAL_POINTS)
            end = self.end_open and self.empty == k
            top = None
            for c in columns:
                fixed, counted = self._count_goals(c, key) if live[c] else (0, [])
                if fixed is None:  # a goal whose pattern depends on the order: the general path
                    value = max(self.immediate(c, order) for order in _orders(key)) // QUARTER - end \
                        + personal[matches]
                    if top is None or value > top:
                        top = value
                    continue
                cells = singles[c]
                for order in _orders(key):
                    gain = hits = pairs = quartets = 0
                    for j, t in enumerate(order):
                        tile_gain, size, joined, want = cells[j][t]
                        gain += tile_gain
                        hits += want == t
                        if counted:  # T-CG3 / T-CG4: groups of 4+ / 2+ gained and absorbed
                            pairs += (size >= 2) - sum(1 for old in joined if old >= 2)
                            quartets += (size >= 4) - sum(1 for old in joined if old >= 4)
                    gain += personal[matches + hits] + fixed
                    for slot, goal in counted:
                        if (self.at_least[4] + quartets >= 4) if goal == 3 else (self.at_least[2] + pairs >= 6):
                            gain += self.state.stacks[slot][0]
                    if top is None or gain > top:
                        top = gain
            assert top is not None
            best = QUARTER * (top - personal[matches] + end)
        self.best_cache[key] = best
        return best


    def _count_goals(self, column: int, types: tuple[int, ...]) -> tuple[int | None, list[tuple[int, int]]]:
        """For tiles of distinct ``types`` placed in ``column`` in any order, the goals within reach
        (:meth:`live_columns`) split: ``(the tokens of those that do not depend on the order -
        T-CG2, T-CG5: the column's types; T-CG9: tiles per type -, the (slot, goal) of T-CG3 and
        T-CG4, counted per order from the groups)``; ``(None, [])`` when another goal is in reach."""
        fixed = 0
        counted = []
        room: list[int] | None = None
        for slot, goal in self.live_columns()[column]:
            if goal in (3, 4):
                counted.append((slot, goal))
            elif goal in (2, 5, 9):
                if room is None:
                    room = list(self.room)
                    room[column] -= len(types)
                if CELLS - self.empty + len(types) >= MIN_TILES[goal] and self._holds_after(goal, column, types, room):
                    fixed += self.state.stacks[slot][0]
            else:
                return None, []
        return fixed, counted


@cache
def _orders(types: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """The distinct orders of the tile types ``types`` (T14: swapping same-type tiles is one order)."""
    return tuple(sorted(set(permutations(types))))


def _placements(table: Table, state: State, seat: int) -> _Placements:
    """:class:`_Placements` of ``seat``, reused from a recent call when everything its values
    depend on is equal (the shelf, the card, the rules, each open goal and its next token, whether
    the end token is still free)."""
    card = table.card(seat)
    key = (state.shelves[seat], card.cells if card else None, table.rules,
           tuple((goal, state.stacks[slot][0]) for slot, goal in enumerate(table.goals)
                 if state.tokens[seat][slot] == 0 and state.stacks[slot]), state.end_token is None)
    found = _RECENT.get(key)
    if found is None:
        if len(_RECENT) >= _RECENT_MAX:
            del _RECENT[next(iter(_RECENT))]  # the oldest shelf
        found = _RECENT[key] = _Placements(table, state, seat)
    return found


def _full_value(placements: _Placements, column: int,
                types: tuple[int, ...]) -> tuple[int, int, int, int, tuple[int, ...], bool]:
    """:meth:`_Placements.value` recomputed on the whole shelf after the placement (the reference
    the incremental evaluation is tested against, and the benchmark's baseline)."""
    table, state, seat = placements.table, placements.state, placements.seat
    base = _features(placements.shelf, placements.card)
    shelf = _place(placements.shelf, column, types)
    adjacency, personal, group_potential, personal_potential = _features(shelf, placements.card)
    goals = []
    tokens = 0
    for slot, goal in enumerate(table.goals):  # T18: the next token if the goal holds now
        if state.tokens[seat][slot] == 0 and state.stacks[slot] and goal_holds(goal, shelf, table.rules):
            goals.append(goal)
            tokens += state.stacks[slot][0]
    end = state.end_token is None and EMPTY not in shelf  # T23
    immediate = (adjacency - base[0]) + (personal - base[1]) + tokens + (1 if end else 0)
    return (QUARTER * immediate, group_potential - base[2], personal_potential - base[3],
            _tempo(shelf) - _tempo(placements.shelf), tuple(goals), end)


#: :func:`race.tiles_needed` of recent shelves, by (goal, shelf, rules); cleared when it outgrows this.
_NEEDED: dict[tuple[int, Shelf, TileRuleset], int] = {}
_NEEDED_MAX = 4096


def _needed(goal: int, shelf: Shelf, rules: TileRuleset, known: _Placements | None = None) -> int:
    """:func:`race.tiles_needed`, kept per shelf (each shelf is asked again by the next turns);
    ``known``: the shelf's :class:`_Placements`, whose group counts T-CG3 / T-CG4 reuse. For
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


#: :func:`race.pattern_targets` within :data:`_RACE_LIMIT` tiles of recent shelves, by (goal, shelf, rules).
_TARGETS: dict[tuple[int, Shelf, TileRuleset], list[Target]] = {}


def _limited_targets(goal: int, shelf: Shelf, rules: TileRuleset) -> list[Target]:
    """:func:`race.pattern_targets` of ``shelf`` within :data:`_RACE_LIMIT` tiles, kept per shelf
    (shared by :func:`_needed` and :meth:`_Race._targets`)."""
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
    token the player can expect (:func:`race.expected_token`, T18) halved for every tile still
    needed (1 tile: 1/2, 2 tiles: 1/4, 3 tiles: 1/8), 0 beyond :data:`RACE_REACH` tiles."""
    return (QUARTER * expected_token(stack, mine, others)) >> mine if mine <= RACE_REACH else 0


class _Race:
    """The ``race`` term of the mover's placements: for each common goal the mover has not scored
    (T18), the change of :func:`race_quarters` from the shelf before to the shelf after (the goal
    completed: 0 after, its token is in ``immediate``), with the other players' distances
    (:func:`race.tiles_needed` on their shelves) fixed for the turn. ``cap(k)`` bounds the term
    for any placement of ``k`` tiles (a placement needs at least ``tiles needed - k`` more tiles,
    and the value falls as the distance grows), for :func:`_best_advised`'s bound."""

    def __init__(self, table: Table, state: State, mine: _Placements, known: _Placements | None = None):
        self.mine, self.rules = mine, table.rules
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
            mine_now = _needed(goal, mine.shelf, table.rules, mine)
            if mine_now >= FAR or mine_now == 0:
                continue  # out of reach (the value stays 0), or holding already (typed positions)
            others = [_needed(goal, state.shelves[o], table.rules, known if known and known.seat == o else None)
                      for o in range(table.players) if o != seat and state.tokens[o][slot] == 0]
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
        """:func:`race.pattern_targets` of the mover's shelf within :data:`_RACE_LIMIT` tiles."""
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
                                           for column_cells in self.mine._singles()]
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
        """:func:`race.tiles_needed` after the placement, or a number > :data:`RACE_REACH` when
        that is (the race value is then 0, :func:`race_quarters`): T-CG1,
        T-CG8, T-CG10, T-CG11 from the shelf's targets within :data:`_RACE_LIMIT` tiles
        (:func:`race.needed_after`); T-CG3, T-CG4 from the groups the tiles join (T19)."""
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
            return tiles_needed(goal, _place(mine.shelf, column, types), self.rules)
        return need if need <= mine.empty - k else FAR

    def _lines(self) -> tuple[list[int], list[set[int]], list[list[int]]]:
        """The mover's shelf: distinct types per column, the types per column, the tiles per row."""
        if self.lines is None:
            shelf = self.mine.shelf
            kinds = [{shelf[r * COLUMNS + c] for r in range(ROWS)} - {EMPTY} for c in range(COLUMNS)]
            rows = [[t for t in shelf[r * COLUMNS:(r + 1) * COLUMNS] if t != EMPTY] for r in range(ROWS)]
            self.lines = [len(k) for k in kinds], kinds, rows
        return self.lines


#: The race's pattern targets (:meth:`_Race._needed_after`) are kept up to this many tiles away:
#: a placement brings a target at most 3 tiles closer, and the race value is 0 beyond RACE_REACH.
_RACE_LIMIT = RACE_REACH + 3


def _next_best(opponent: _Placements, board: Board) -> int:
    """The next player's best immediate gain (x4) on ``board``."""
    best = 0
    for pick in legal_picks(board, opponent.shelf):
        best = max(best, opponent.best_immediate(tuple(board[c] for c in pick)))
    return best


#: A refill (T16) is averaged exactly, over every board it can draw, when it has at most this many.
EXACT_REFILL_BOARDS = 1000


@dataclass(frozen=True)
class RefillOutlook:
    """The next player's best immediate gain on the board a refill (T16) would draw, in quarters
    of a point: with ``exact``, its expectation over all ``samples`` boards the refill can draw
    (each weighted by its probability, :mod:`.refill`; ``low`` = ``high`` = the mean); otherwise
    the exact ``mean`` of ``samples`` seeded draws and its 95% interval ``low``-``high`` (display
    floats, quarters). With the shipped layout a refill of a full bag has 6^13+ outcomes, so it
    is sampled; a bag of one or two types, or a nearly empty bag (T17), can be enumerated."""

    mean: Fraction
    samples: int
    low: float
    high: float
    exact: bool = False


def _refill_outlook(table: Table, state: State, after: Board, opponent: _Placements, samples: int,
                    rng: np.random.Generator, exact_boards: int = EXACT_REFILL_BOARDS) -> RefillOutlook:
    """The expectation of :func:`_next_best` over the refill that follows a move leaving ``after``
    (the bag: ``state.bag``; with ``refill = "all"`` the board's tiles go back first, T16): exact
    when the refill can draw at most ``exact_boards`` boards (:func:`refill.refill_count`),
    otherwise estimated from ``samples`` boards drawn with ``rng``."""
    from .refill import refill_boards, refill_count

    before = State(after, state.bag, state.shelves, state.tokens, state.stacks, state.end_token, state.turn)
    count = refill_count(table, before)
    if count <= exact_boards:
        denominator, boards = refill_boards(table, before)
        mean = Fraction(sum(weight * _next_best(opponent, board) for weight, board in boards), denominator)
        return RefillOutlook(mean, count, float(mean), float(mean), exact=True)
    from ..simulate import estimate  # here: the dice game's simulation module is not needed otherwise

    base = [EMPTY] * len(after) if table.rules.refill == "all" else list(after)
    values = []
    for _ in range(samples):
        event = draw_refill(table, before, rng)
        board = list(base)
        for cell, t in zip(event.cells, event.types):
            board[cell] = t
        values.append(_next_best(opponent, tuple(board)))
    stats = estimate(values)
    return RefillOutlook(stats.mean, samples, stats.low, stats.high)


#: ``_LINES[most][x]``: the straight lines of 1 to ``most`` board cells through cell ``x`` (along a
#: row, not wrapping past its end, or down a column; T11).
def _lines(x: int, most: int) -> tuple[tuple[int, ...], ...]:
    lines = []
    for step in (1, SIDE):
        for start in range(most):  # x at position ``start`` of the line
            for length in range(start + 1, most + 1):
                line = tuple(x - start * step + k * step for k in range(length))
                if all(0 <= c < SIDE * SIDE and (step == SIDE or c // SIDE == x // SIDE) for c in line):
                    lines.append(line)
    return tuple(lines)


_LINES = tuple(tuple(_lines(x, most) for x in range(SIDE * SIDE)) for most in range(4))


def _mask(cells: tuple[int, ...]) -> int:
    """Board cells as a bit mask (bit ``cell`` set)."""
    mask = 0
    for cell in cells:
        mask |= 1 << cell
    return mask


class _NextBest:
    """The next player's best immediate gain (x4) after each pick of the active player, from one
    list of the next player's picks on the current board: removing tiles only frees tiles (T10),
    so a pick disjoint from the removed cells stays legal; the picks that become legal are those
    through a newly freed neighbour of a removed cell. Equal to :func:`_next_best` on the board
    after the pick (checked in tests/test_tile_advise.py)."""

    def __init__(self, opponent: _Placements, board: Board, kept_for_turn: bool = False):
        self.opponent, self.board = opponent, board
        # the best gain of a pick's types: with ``kept_for_turn`` from the placement sums that the
        # next player's own turn reuses (:meth:`_Placements.best_from_sums`, the strategies), else
        # from the immediate gains alone (one position ranked)
        self.gain = opponent.best_from_sums if kept_for_turn else opponent.best_immediate
        self.free = set(free_cells(board))
        self.most = min(3, max(opponent.room))
        picks = legal_picks(board, opponent.shelf)
        self.ranked = sorted(((self.gain(tuple(board[c] for c in pick)), _mask(pick))
                              for pick in picks), key=lambda item: -item[0])

    def kept(self, taken: tuple[int, ...]) -> int:
        """A lower bound of :meth:`after`: the best gain (x4) among the next player's picks of the
        current board that avoid ``taken`` (still legal once it is removed, T10)."""
        removed = _mask(taken)
        return next((value for value, pick in self.ranked if not pick & removed), 0)

    def after(self, taken: tuple[int, ...]) -> int:
        """The best gain (x4) once ``taken`` is removed."""
        removed = set(taken)
        best = self.kept(taken)
        if self.most == 0:
            return best
        board = self.board
        fresh = {n for c in taken for n in BOARD_NEIGHBOURS[c]
                 if board[n] != EMPTY and n not in removed and n not in self.free}
        if not fresh:
            return best
        free = (self.free | fresh) - removed
        best_immediate = self.gain
        for x in fresh:
            for line in _LINES[self.most][x]:
                if free.issuperset(line):
                    value = best_immediate(tuple(board[c] for c in line))
                    if value > best:
                        best = value
        return best


_Scored = tuple[int | Fraction, Move, tuple[int | Fraction, ...], tuple[int, ...], bool, bool, RefillOutlook | None]


def _score_moves(table: Table, state: State, immediate_only: bool, samples: int = 0,
                 rng: np.random.Generator | None = None, exact_boards: int = EXACT_REFILL_BOARDS,
                 race: bool = True) -> list[_Scored]:
    """``(total x4, move, parts x4, goals, refill, end, outlook)`` for every legal move, unsorted;
    with ``samples`` > 0 (and ``rng``) a refill's denial is the expectation of
    :func:`_refill_outlook` (exact up to ``exact_boards`` boards), else 0. ``immediate_only``
    (greedy): the total is the immediate gain and the other fields are empty. ``race``: with the
    race term (:class:`_Race`; else 0, the first advisor's evaluation)."""
    seat = state.turn
    mine = _placements(table, state, seat)
    nxt = (seat + 1) % table.players
    opponent = _placements(table, state, nxt) if not immediate_only else None
    denial_cache: dict[tuple[int, ...], tuple[int | Fraction, bool, RefillOutlook | None]] = {}
    next_best = _NextBest(opponent, state.board) if opponent is not None else None
    outlooks: dict[tuple[int, ...], RefillOutlook] = {}
    racing = _Race(table, state, mine, opponent) if race and not immediate_only else None
    scored: list[_Scored] = []
    for move in legal_moves(state):
        if immediate_only:  # greedy: the incremental gain alone (goals and end not reported)
            scored.append((mine.immediate(move.column, move.types(state.board)), move, (), (), False, False, None))
            continue
        types = move.types(state.board)
        immediate, groups, personal, tempo, goals, end = mine.value(move.column, types)
        race_gain = racing.gain(move.column, types, goals) if racing is not None else 0
        picked = tuple(sorted(move.cells))
        hit = denial_cache.get(picked)
        if hit is None:
            board = list(state.board)
            for cell in picked:
                board[cell] = EMPTY
            after = tuple(board)
            refill = needs_refill(after)
            outlook = None
            denial: int | Fraction = 0
            if opponent is None:
                pass
            elif not refill and next_best is not None:
                denial = -(next_best.after(picked) // 2)
            elif samples > 0 and rng is not None:
                key = tuple(sorted(state.board[c] for c in picked)) if table.rules.refill == "all" else after
                if key not in outlooks:
                    outlooks[key] = _refill_outlook(table, state, after, opponent, samples, rng, exact_boards)
                outlook = outlooks[key]
                denial = -outlook.mean / 2
            hit = denial_cache[picked] = (denial, refill, outlook)
        denial, refill, outlook = hit
        parts = (immediate, groups, personal, tempo, denial, race_gain)
        scored.append((sum(parts), move, parts, goals, refill, end, outlook))
    return scored


def _best_advised(table: Table, state: State, race: bool = True) -> list[Move]:
    """The moves of best total value of :func:`_score_moves` (no refill sampling), in legal-move
    order, by bound and prune: the denial term is at most minus half the next player's best gain
    among its current picks that a pick leaves alone (:meth:`_NextBest.kept`), so picks are
    scored exactly best bound first, and those whose bound is below the best total so far are
    skipped (they cannot reach it; exact ties are kept). The race term (with ``race``) is
    bounded by :meth:`_Race.cap` in the bound and computed only for the placements of the picks
    reached whose bound reaches the best; a pick whose exact race values leave it below the best
    even with the kept denial is skipped before its denial is computed. Placements come from
    :meth:`_Placements.sums` per multiset of types (shared by picks of the same types), and
    ``Move`` objects are built for the winners only."""
    seat = state.turn
    board = state.board
    mine = _placements(table, state, seat)
    opponent = _placements(table, state, (seat + 1) % table.players)
    next_best = _NextBest(opponent, board, kept_for_turn=True)
    racing = _Race(table, state, mine, opponent) if race else None
    racing_on = racing is not None and bool(racing.slots)
    caps = racing.cap_table() if racing is not None and racing_on else None
    # T16 after a pick: no two tiles left side by side. ``degree``: tiles next to each tile; a
    # straight pick of k tiles holds k - 1 of the board's ``pairs`` of touching tiles
    degree = {cell: sum(1 for n in BOARD_NEIGHBOURS[cell] if board[n] != EMPTY)
              for cell, t in enumerate(board) if t != EMPTY}
    pairs = sum(degree.values()) // 2
    # per multiset of types (sorted): the best value plus race cap over its placements, and the
    # placements (column, types bottom first, value without race and denial, race cap, goals);
    # picks of the same types share them (the board does not enter a placement's value)
    tops: dict[tuple[int, ...], tuple[int, list[tuple[int, tuple[int, ...], int, int, tuple[int, ...]]]]] = {}
    bounds = []
    for position, pick in enumerate(legal_picks(board, mine.shelf)):  # pick_orders' order
        key = tuple(sorted([board[c] for c in pick]))
        found = tops.get(key)
        if found is None:
            k = len(key)
            items = []
            top: int | None = None
            for column, types, v, goals, _ in mine.sums(key):
                cap = caps[column][k] if caps is not None else 0
                items.append((column, types, v, cap, goals))
                if top is None or v + cap > top:
                    top = v + cap
            assert top is not None  # legal_picks: some column has room for the pick (T12)
            found = tops[key] = (top, items)
        refill = pairs == sum(degree[cell] for cell in pick) - (len(pick) - 1)  # T16: a fresh board, denial 0 here
        kept = 0 if refill else -(next_best.kept(pick) // 2)
        bounds.append((found[0] + kept, kept, refill, position, pick, key))
    bounds.sort(key=lambda item: -item[0])
    best: int | None = None
    totals: list[tuple[int, tuple[int, ...], int, int, tuple[int, ...]]] = []  # (total, pick, position, column, types)
    for bound, kept, refill, position, picked, key in bounds:
        if best is not None and bound < best:
            break
        scored = []
        for column, types, v, cap, goals in tops[key][1]:
            if racing is not None and racing_on:
                if best is not None and v + cap + kept < best:
                    continue  # cannot reach the best even with the race's cap and the kept denial
                v += racing.gain(column, types, goals)
            scored.append((column, types, v))
        if not scored or (best is not None and max(v for _, _, v in scored) + kept < best):
            continue  # the exact race term leaves the pick below the best: skip its denial
        denial = 0 if refill else -(next_best.after(picked) // 2)
        for column, types, v in scored:
            total = v + denial
            totals.append((total, picked, position, column, types))
            if best is None or total > best:
                best = total
    # the winners in legal_moves' order: pick, column, then the pick's orders as cell_orders lists them
    winners = sorted((position, column, picked, types) for total, picked, position, column, types in totals
                     if total == best)
    moves = []
    orders: dict[tuple[int, ...], tuple[int, ...]] = {}
    ranks: dict[tuple[int, ...], int] = {}
    last = -1
    chosen = []
    for position, column, picked, types in winners:
        if position != last:
            last, orders = position, cell_orders(board, picked)
            ranks = {t: i for i, t in enumerate(orders)}
        chosen.append((position, column, ranks[types], orders[types]))
    chosen.sort()
    for _, column, _, cells in chosen:
        moves.append(Move(cells, column))
    return moves


def best_moves(table: Table, state: State, immediate_only: bool = False, race: bool = True) -> list[Move]:
    """The moves :func:`rank_moves` ranks first (exact ties: all of them, in legal-move order),
    without building the whole ranking (the strategies' fast path; a refill's denial counts 0
    here); with ``immediate_only`` the moves of best immediate score change (T25) instead;
    without ``race`` the race term counts 0 (the first advisor, ``advisor-v1``)."""
    if not immediate_only:
        return _best_advised(table, state, race)
    # greedy: a move's gain is at most the best of its pick's types (kept per shelf, shared with the
    # advisor's denial term), so only moves whose pick reaches the best are scored one by one
    # (per pick, as :func:`legal_moves` lists them: pick, column with room, order; Move objects are
    # built only for the moves chosen)
    mine = _placements(table, state, state.turn)
    room = mine.room
    picks = [(pick, orders, mine.best_immediate(next(iter(orders))))
             for pick, orders in pick_orders(state) if max(room) >= len(pick)]
    top = max(best for _, _, best in picks)
    immediate = mine.immediate
    return [Move(order, column) for pick, orders, best in picks if best == top
            for column in range(COLUMNS) if room[column] >= len(pick)
            for types, order in orders.items() if immediate(column, types) == top]


def rank_moves(table: Table, state: State, samples: int = 0, rng: np.random.Generator | None = None,
               exact_boards: int = EXACT_REFILL_BOARDS, race: bool = True) -> list[RankedMove]:
    """Every legal move of the active player, best first, with its evaluation (module docstring).

    Args:
        samples, rng: for a move that triggers a refill (T16), the denial term is minus half the
            next player's best gain on the refilled board, averaged over ``samples`` boards drawn
            with ``rng`` (0 samples or no ``rng``: the term is 0).
        exact_boards: a refill that can draw at most this many boards is averaged exactly over
            all of them (weighted by probability) instead of sampled.
        race: with the race term (:class:`_Race`); else it counts 0.
    """
    scored = _score_moves(table, state, False, samples, rng, exact_boards, race)
    scored.sort(key=lambda item: -item[0])
    ranked = []
    rank = 0
    previous: int | Fraction | None = None
    for index, (total, move, parts, goals, refill, end, outlook) in enumerate(scored):
        if total != previous:
            rank, previous = index + 1, total
        ranked.append(RankedMove(move, rank, Fraction(total) / QUARTER,
                                 {name: Fraction(p) / QUARTER for name, p in zip(PARTS, parts)}, goals, refill, end,
                                 outlook))
    return ranked
