"""A seat's placements and their evaluation terms, each computed once per shelf: putting 1-3
tiles of given types, bottom first, into one shelf column (T12-T14), as the advisor
(:mod:`.advise`) and the strategies see it.

:meth:`Placements.value` gives, in quarters of a point (:data:`.gains.QUARTER`), the first four
terms of the evaluation: ``immediate`` (the T25 score change: T18, T21-T23, :mod:`.gains`),
``groups`` (half the change of the group potential, T22), ``personal`` (half the change of the
personal potential, T21) and ``tempo`` (T12), with the goals completed (T18, :mod:`.goalreach`)
and whether the shelf is now full first (T23); :meth:`Placements.sums` lists them for every
placement of a multiset of types. They are computed incrementally (only the groups the placed
tiles join or touch change, T19) and equal the whole-shelf recomputation :func:`full_value`
(tests/test_tile_advise.py). :func:`seat_placements` reuses a recent seat's placements when
nothing they depend on changed.
"""

from __future__ import annotations

from shelfie_solver.tile.gains import POTENTIAL, QUARTER, ImmediateGains, type_orders
from shelfie_solver.tile.rules import COLUMNS, EMPTY, PERSONAL_POINTS, ROWS, PersonalCard, Shelf
from shelfie_solver.tile.shelf import GROUP_POINTS, NEIGHBOURS, goal_holds, group_labels
from shelfie_solver.tile.state import Setup, State, column_room, place_tiles


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


#: Placement outcomes of recent shelves (:func:`seat_placements`), so a seat's turn reuses what the
#: previous seat's denial term computed for its shelf; the oldest shelf is dropped beyond this
#: many (a game needs the last few: each seat's shelf changes once per round).
_RECENT: dict[tuple[object, ...], Placements] = {}
_RECENT_MAX = 8


#: ``_ALONE[want][t]``: :meth:`Placements._tile_terms` of a tile of type ``t`` next to no group
#: of its type (a group of 1: no points, no potential, T22) on a cell where the card wants
#: ``want`` (EMPTY: none).
_ALONE = {want: tuple((0, int(want == t), 0, 0, 0) for t in range(6)) for want in (*range(6), EMPTY)}


class Placements(ImmediateGains):
    """A seat's shelf outcomes by (column, types), each computed once per shelf.

    ``value(column, types)`` = ``(immediate x4, groups x4, personal x4, tempo x4, goals, end)``,
    computed incrementally (T22: only the groups the placed tiles join or touch change; T21: only
    the placed cells can match the card), equal to :func:`full_value` on the whole shelf (checked in
    tests/test_tile_advise.py). The immediate gains alone are :class:`.gains.ImmediateGains`', the
    goals a placement completes :class:`.goalreach.GoalReach`'s (the bases; this ``__init__`` sets
    the shelf facts all three read).
    """

    def __init__(self, setup: Setup, state: State, seat: int):
        self.setup, self.state, self.seat = setup, state, seat
        self.shelf = shelf = state.shelves[seat]
        self.card = card = setup.card(seat)
        self.room = column_room(shelf)
        self.cache: dict[tuple[int, tuple[int, ...]], tuple[int, int, int, int, tuple[int, ...], bool]] = {}
        self.best_cache = {}
        self.gains = {}
        self.singles_cache = None
        self.column_base: dict[tuple[int, int], tuple[int, int, int, int, bool]] = {}
        self.terms: dict[tuple[int, int], tuple[list[list[tuple[int, int, int, int, int]]], list[tuple[int, int]]]] = {}
        self.sums_cache: dict[tuple[int, ...], list[tuple[int, tuple[int, ...], int, tuple[int, ...], int]]] = {}
        self.labels, self.groups = labels, groups = group_labels(shelf)
        self.matches = card.matches(shelf) if card else 0
        self.pending = sum(1 for cell in card.cells if shelf[cell] == EMPTY) if card else 0
        self.open_slots = [(slot, goal) for slot, goal in enumerate(setup.goals)
                           if state.tokens[seat][slot] == 0 and state.stacks[slot]]
        self.empty = shelf.count(EMPTY)
        self.base_tempo = _tempo(shelf)
        self.end_open = state.end_token is None
        # for the goal checks: groups of 2+ / 4+ tiles, tiles per type, full rows, empty cells per row
        self.at_least = {least: sum(1 for _, size, _ in groups if size >= least) for least in (2, 4)}
        self.counts = [shelf.count(t) for t in range(6)]
        gaps = [sum(1 for c in range(COLUMNS) if shelf[r * COLUMNS + c] == EMPTY) for r in range(ROWS)]
        self.full_rows = gaps.count(0)
        self.live_slots = [(slot, goal) for slot, goal in self.open_slots if self.may_hold(goal, gaps)]
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
                hit = self.cache[key] = self.evaluate(column, types, True)
            self.gains[key] = hit[0]
        return hit

    def _distinct_value(self, column: int, types: tuple[int, ...]) -> tuple[int, int, int, int, tuple[int, ...], bool]:
        """:meth:`evaluate` for tiles of distinct types (each joins only groups of its type, T19):
        tile by tile from :meth:`_tile_terms`, with what depends only on the cells filled (the
        potential lost by neighbour groups left with no empty neighbour, tempo, card cells
        covered) kept per (column, number of tiles); the goals within reach
        (:meth:`live_columns`) checked as in :meth:`evaluate`."""
        k = len(types)
        terms, by_hits = self._tile_terms(column, k)
        total, goals, immediate, hits = self._distinct_sum(column, types, terms, by_hits)
        _, loss, tempo, _, _ = self.column_base[(column, k)]
        rest, immediate_rest = by_hits[hits]
        # total - rest = tile terms + tokens; immediate - immediate_rest = group points + tokens
        groups = (total - rest) - (immediate - immediate_rest) - loss
        personal_potential = rest - immediate_rest - tempo + loss  # by_hits: end + tempo - loss + personal
        return immediate, groups, personal_potential, tempo, goals, self.end_open and self.empty == k  # T23

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
        completed = self.goals_completed(self.live_columns()[column], column, types, pairs, quartets)
        done = [goal for _, goal in completed]
        tokens = sum(self.state.stacks[slot][0] for slot, _ in completed)
        rest, personal = by_hits[hits]
        return v + rest + QUARTER * tokens, tuple(done), gained + personal + QUARTER * tokens, hits

    def sums(self, key: tuple[int, ...]) -> list[tuple[int, tuple[int, ...], int, tuple[int, ...], int]]:
        """Every placement of the tile types ``key`` (sorted), kept per shelf: ``(column, types
        bottom first, immediate + groups + personal + tempo (x4), goals completed, immediate
        (x4))`` per column with room, per order of :func:`.gains.type_orders` (the bound of
        :func:`.advise.best_moves`, and the next player's best gain, :meth:`best_from_sums`). Equal
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
        orders = type_orders(key)
        for column in range(COLUMNS):
            if self.room[column] < k:
                continue
            slots = self.slots[column]
            if not distinct and any(t in slots[j][2] for j in range(k) for t in key):
                for types in orders:  # a tile joins a group of its type (T19): the runs of evaluate
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
        the goals within reach (T18), as :meth:`evaluate` computes them."""
        k = len(key)
        slots = self.slots[column]
        top_open = slots[k - 1][0] >= COLUMNS
        live = self.live_columns()[column]
        for types in type_orders(key):
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
            potential = sum(POTENTIAL[size] for size, grow in zip(runs, grows) if grow)
            goals = []
            tokens = 0
            if live:  # T-CG3 / T-CG4: the runs are new groups
                for slot, goal in self.goals_completed(live, column, types, sum(size >= 2 for size in runs),
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
                        potential -= POTENTIAL[old]
                        growing = True
                pairs += size >= 2
                quartets += size >= 4
                size = min(size, 6)
                gain += GROUP_POINTS[size]
                if growing or (top_open and j == k - 1):
                    potential += POTENTIAL[size]
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
                            loss += POTENTIAL[min(self.groups[g][1], 6)]
        room = list(self.room)
        room[column] -= k
        empty = self.empty - k
        tempo = -2 * max(0, min(3, empty) - max(room)) - self.base_tempo
        covered = sum(1 for _, _, _, want in slots if want != EMPTY)
        return keep, loss, tempo, covered, slots[-1][0] >= COLUMNS


def seat_placements(setup: Setup, state: State, seat: int) -> Placements:
    """:class:`Placements` of ``seat``, reused from a recent call when everything its values
    depend on is equal (the shelf, the card, the rules, each open goal and its next token, whether
    the end token is still free)."""
    card = setup.card(seat)
    key = (state.shelves[seat], card.cells if card else None, setup.rules,
           tuple((goal, state.stacks[slot][0]) for slot, goal in enumerate(setup.goals)
                 if state.tokens[seat][slot] == 0 and state.stacks[slot]), state.end_token is None)
    found = _RECENT.get(key)
    if found is None:
        if len(_RECENT) >= _RECENT_MAX:
            del _RECENT[next(iter(_RECENT))]  # the oldest shelf
        found = _RECENT[key] = Placements(setup, state, seat)
    return found


def full_value(placements: Placements, column: int,
               types: tuple[int, ...]) -> tuple[int, int, int, int, tuple[int, ...], bool]:
    """:meth:`Placements.value` recomputed on the whole shelf after the placement (the reference
    the incremental evaluation is tested against, and the benchmark's baseline)."""
    setup, state, seat = placements.setup, placements.state, placements.seat
    base = _features(placements.shelf, placements.card)
    shelf = place_tiles(placements.shelf, column, types)
    adjacency, personal, group_potential, personal_potential = _features(shelf, placements.card)
    goals = []
    tokens = 0
    for slot, goal in enumerate(setup.goals):  # T18: the next token if the goal holds now
        if state.tokens[seat][slot] == 0 and state.stacks[slot] and goal_holds(goal, shelf, setup.rules):
            goals.append(goal)
            tokens += state.stacks[slot][0]
    end = state.end_token is None and EMPTY not in shelf  # T23
    immediate = (adjacency - base[0]) + (personal - base[1]) + tokens + (1 if end else 0)
    return (QUARTER * immediate, group_potential - base[2], personal_potential - base[3],
            _tempo(shelf) - _tempo(placements.shelf), tuple(goals), end)
