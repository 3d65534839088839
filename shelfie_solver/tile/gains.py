"""The immediate gain of a placement: the change of the T25 score the seat would have if the game
ended now (groups T22, personal goal T21, the next tokens of the common goals it completes T18,
the end token T23), the first term of the advisor's evaluation (:mod:`.advise`), in quarters of a
point (:data:`QUARTER`).

:class:`ImmediateGains` computes it without the potentials (tile by tile for distinct types, from
runs of one type for repeated ones, T19) and the best of it over every column and order of a
pick's types (:meth:`ImmediateGains.best_immediate`): what the ``greedy`` strategy ranks by and
the next player's best gain of the denial term (:mod:`.denial`). :meth:`ImmediateGains.evaluate`
is the general evaluation of a placement (any types, every term of :mod:`.placements` with
``full``). It is the base of :class:`.placements.Placements`, which sets the shelf facts it reads.
"""

from __future__ import annotations

from functools import cache
from itertools import permutations

from shelfie_solver.tile.goalreach import GoalReach
from shelfie_solver.tile.rules import CELLS, COLUMNS, EMPTY, PERSONAL_POINTS, PersonalCard
from shelfie_solver.tile.shelf import GROUP_POINTS, MIN_TILES

#: Evaluation unit: quarters of a point.
QUARTER = 4


#: A group's potential (quarters of a point) by size (capped at 6) when it can still grow: half of
#: what its next tile adds (T22); 0 for a single tile and from 6 tiles on.
POTENTIAL = tuple(2 * (GROUP_POINTS[s + 1] - GROUP_POINTS[s]) if 0 < s < 6 else 0 for s in range(7))


@cache
def type_orders(types: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """The distinct orders of the tile types ``types`` (T14: swapping same-type tiles is one order)."""
    return tuple(sorted(set(permutations(types))))


class ImmediateGains(GoalReach):
    """The immediate gains of a seat's placements (T25), a base of :class:`.placements.Placements`
    (which sets the shelf facts read here, declared below, and those of :class:`.goalreach.GoalReach`).

    Attributes read:
        card: the seat's personal card (None: hidden). matches, pending: its cells matched and
        still empty (T21). groups: the shelf's groups ``(type, size, can grow)`` (T22), by the
        labels of :func:`.shelf.group_labels`; reach: per group, its empty neighbour cells (a bit
        mask). base_tempo: the shelf's tempo term (x4). end_open: whether the end token is still
        free (T23). gains, best_cache, singles_cache: this class's caches (start empty / None).
    """

    card: PersonalCard | None
    matches: int
    pending: int
    groups: list[tuple[int, int, bool]]
    reach: list[int]
    base_tempo: int
    end_open: bool
    gains: dict[tuple[int, tuple[int, ...]], int]
    best_cache: dict[tuple[int, ...], int]
    singles_cache: list[list[list[tuple[int, int, tuple[int, ...], int]]]] | None

    def evaluate(self, column: int, types: tuple[int, ...],
                 full: bool) -> tuple[int, int, int, int, tuple[int, ...], bool]:
        """:meth:`.placements.Placements.value` uncached, for any types (from the runs of one type,
        T19); without ``full`` only the immediate gain and the goals (the potentials and tempo are 0)."""
        k = len(types)
        placed, hits, covered, runs = _runs(self.slots[column], types)
        gain, potential, sizes, joined_groups = self._groups_after(column, k, placed, runs, full)
        personal, personal_potential = self._personal(hits, covered, full)
        room = list(self.room)
        room[column] -= k
        empty = self.empty - k
        tempo = -2 * max(0, min(3, empty) - max(room)) - self.base_tempo if full else 0
        goals = []
        tokens = 0
        live = self.live_columns()[column]
        if live:  # T18: the next token if the goal holds now; T-CG3 / T-CG4 from the groups after it
            groups = self.groups

            def gained(least: int) -> int:
                return (sum(1 for size in sizes if size >= least)
                        - sum(1 for g in joined_groups if groups[g][1] >= least))

            for slot, goal in self.goals_completed(live, column, types, gained(2), gained(4)):
                goals.append(goal)
                tokens += self.state.stacks[slot][0]
        end = self.end_open and empty == 0  # T23
        return (QUARTER * (gain + personal + tokens + end), potential if full else 0, personal_potential, tempo,
                tuple(goals), end)

    def _groups_after(self, column: int, k: int, placed: int, runs: list[tuple[int, set[int], bool]],
                      full: bool) -> tuple[int, int, list[int], set[int]]:
        """The groups' change (T22) when the ``runs`` of :func:`_runs` are placed in ``column``
        (cells ``placed``, a bit mask): the points gained, the potential's change (quarters; the
        other groups next to the placed cells too with ``full``), each run's group size after it
        and the groups the runs joined."""
        groups, reach, slots = self.groups, self.reach, self.slots[column]
        gain = potential = 0
        keep = ~placed
        sizes = []
        absorbed: set[int] = set()
        for size, joined, growing in runs:
            for g in joined:
                old = groups[g][1]
                size += old
                gain -= GROUP_POINTS[min(old, 6)]
                if reach[g]:
                    potential -= POTENTIAL[min(old, 6)]
                    growing = growing or bool(reach[g] & keep)
            absorbed |= joined
            sizes.append(size)
            gain += GROUP_POINTS[min(size, 6)]
            if growing:
                potential += POTENTIAL[min(size, 6)]
        joined_groups = set(absorbed)
        for j in range(k if full else 0):  # other groups next to the placed cells may lose their last empty neighbour
            for near_groups in slots[j][2].values():
                for g in near_groups:
                    if g not in absorbed:
                        absorbed.add(g)
                        if reach[g] and not reach[g] & keep:
                            potential -= POTENTIAL[min(groups[g][1], 6)]
        return gain, potential, sizes, joined_groups

    def _personal(self, hits: int, covered: int, full: bool) -> tuple[int, int]:
        """The personal goal's points gained (T21) by ``hits`` more matched cells, and with
        ``full`` the change of its potential (quarters) when ``covered`` of its pending cells are
        filled; ``(0, 0)`` with the card hidden."""
        if self.card is None:
            return 0, 0
        matches = self.matches + hits
        personal = PERSONAL_POINTS[matches] - PERSONAL_POINTS[self.matches]
        if not full:
            return personal, 0
        return personal, 2 * ((PERSONAL_POINTS[matches + self.pending - covered] - PERSONAL_POINTS[matches])
                              - (PERSONAL_POINTS[self.matches + self.pending] - PERSONAL_POINTS[self.matches]))

    def immediate(self, column: int, types: tuple[int, ...]) -> int:
        """The change of the T25 score (x4) of placing ``types`` in ``column``: ``value(...)[0]``,
        computed without the potentials when not known yet."""
        key = (column, types)
        hit = self.gains.get(key)
        if hit is None:
            if len(set(types)) == len(types):
                hit = self._distinct_gain(column, types)
            else:
                hit = self.evaluate(column, types, False)[0]
            self.gains[key] = hit
        return hit

    def _distinct_gain(self, column: int, types: tuple[int, ...]) -> int:
        """:meth:`immediate` for tiles of distinct types, which join distinct groups (T19), so
        their group points add up tile by tile (T22)."""
        singles = self.singles()
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
                holds = self.holds_after(goal, column, types, room)
            if holds:
                gain += self.state.stacks[slot][0]
        if self.end_open and empty == 0:  # T23
            gain += 1
        return QUARTER * gain

    def singles(self) -> list[list[list[tuple[int, int, tuple[int, ...], int]]]]:
        """Per column, per next cell (1-3), per type: :meth:`_single` (computed once per shelf)."""
        singles = self.singles_cache
        if singles is None:
            singles = self.singles_cache = []
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
        (T18, checked as in :meth:`evaluate`): :meth:`evaluate`'s immediate gain without the
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
        for slot, _ in self.goals_completed(live, column, order, pairs, quartets):  # T18: the next token
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
            orders = type_orders(key)
            end = QUARTER * (self.end_open and self.empty == k)  # T23
            top = None
            for c in columns:
                value = max(self._runs_gain(c, order, live[c]) for order in orders) + end
                if top is None or value > top:
                    top = value
            assert top is not None
            best = top
        else:  # distinct types: :meth:`_distinct_gain` inline, with the goals that need no predicate
            singles = self.singles()
            matches = self.matches
            personal = PERSONAL_POINTS if self.card is not None else (0,) * len(PERSONAL_POINTS)
            end = self.end_open and self.empty == k
            top = None
            for c in columns:
                fixed, counted = self.count_goals(c, key) if live[c] else (0, [])
                if fixed is None:  # a goal whose pattern depends on the order: the general path
                    value = max(self.immediate(c, order) for order in type_orders(key)) // QUARTER - end \
                        + personal[matches]
                    if top is None or value > top:
                        top = value
                    continue
                cells = singles[c]
                for order in type_orders(key):
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


def _runs(slots: list[tuple[int, bool, dict[int, tuple[int, ...]], int]],
          types: tuple[int, ...]) -> tuple[int, int, int, list[tuple[int, set[int], bool]]]:
    """The placed tiles ``types`` (lowest first) in a column's ``slots`` as runs of one type
    (T19): the cells placed (a bit mask), the personal-card cells they match and cover (T21),
    and per run its tiles, the groups it joins and whether it keeps an empty neighbour (the
    lowest and the top run joined when one group touches both)."""
    placed = hits = covered = 0
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
    if slots[len(types) - 1][0] >= COLUMNS:  # the cell above the top tile is empty (T4)
        opens[-1] = True
    if len(kinds) == 3 and kinds[0] == kinds[2] and joins[0] & joins[2]:  # lowest and top join via a group
        tiles[0] += tiles.pop()
        joins[0] |= joins.pop()
        opens[0] = opens[0] or opens.pop()
    return placed, hits, covered, list(zip(tiles, joins, opens))
