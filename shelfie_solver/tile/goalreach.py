"""Which open common goals a placement completes (T18, T-CG1-T-CG12), decided from what the
placement changes rather than by running each goal's predicate on the shelf after it.

A placement (1-3 tiles in one column, T12-T14) that does not complete a goal leaves it as it was,
so :class:`GoalReach` first keeps, per column, only the open goals a placement there may
complete (:meth:`GoalReach.live_columns`: from counts of tiles, full columns and rows, and the
patterns through the column's next cells), then decides those exactly from the cells placed
(:meth:`GoalReach.holds_after`). It is the base of :class:`.placements.Placements`, whose
evaluation terms (:mod:`.gains`, :mod:`.placements`) count the goals' next tokens (T18); the
checks are tested against the predicates (:func:`.shelf.goal_holds`) in
tests/test_tile_advise.py.
"""

from __future__ import annotations

from shelfie_solver.tile.rules import CELLS, COLUMNS, EMPTY, ROWS, Shelf, TileRuleset
from shelfie_solver.tile.shelf import MIN_TILES, goal_holds
from shelfie_solver.tile.state import Setup, State, place_tiles


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
    """What :meth:`GoalReach.holds_after` needs of a shelf: the open goals that already hold
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


class GoalReach:
    """The goal checks of a seat's placements (T18): the base of :class:`.placements.Placements`,
    which sets the shelf facts they read (declared here) in its ``__init__``.

    Attributes read:
        setup, state: the game's setup and the position. shelf: the seat's shelf. room: its
        empty cells per column. slots: per column, its next 1-3 cells (``slots[c][j][0]``, as
        :class:`.placements.Placements` lists them). row_gaps: per column, the empty cells of
        the row of each of those cells. counts: tiles per type. empty: empty cells. at_least:
        the groups of 2+ and 4+ tiles (by 2, 4). live_slots: the open ``(slot, goal)`` pairs
        that some placement may complete (:meth:`may_hold`).
    """

    setup: Setup
    state: State
    shelf: Shelf
    room: tuple[int, ...]
    slots: list[list[tuple[int, bool, dict[int, tuple[int, ...]], int]]]
    row_gaps: list[list[int]]
    counts: list[int]
    empty: int
    at_least: dict[int, int]
    live_slots: list[tuple[int, int]]
    #: the goal facts of the shelf (:class:`_GoalInfo`) and :meth:`live_columns`, made when first needed
    goal_info: _GoalInfo | None = None
    _live_columns: list[list[tuple[int, int]]] | None = None

    def goals_completed(self, live: list[tuple[int, int]] | None, column: int, types: tuple[int, ...], pairs: int,
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
                holds = CELLS - self.empty + k >= MIN_TILES[goal] and self.holds_after(goal, column, types, room)
            if holds:
                completed.append((slot, goal))
        return completed

    def may_hold(self, goal: int, gaps: list[int]) -> bool:
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
        necessary condition; :meth:`holds_after` decides): :attr:`live_slots` less, for T-CG1,
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
            self.goal_info = _GoalInfo(self.shelf, self.setup.rules, [goal for _, goal in self.live_slots])
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

    def holds_after(self, goal: int, column: int, types: tuple[int, ...], room: list[int]) -> bool:
        """Whether open common goal T-CG``goal`` (not 3 or 4) holds after placing ``types`` in
        ``column`` (``room``: the empty cells per column after it), exactly, mostly without the
        predicate: a goal that does not hold before the placement can only be completed by what
        it changes (T18-T19): the placed column for full columns (T-CG2, T-CG5), the rows it
        completes (T-CG6, T-CG7), tiles per type (T-CG9), column heights (T-CG12), patterns
        through a placed cell (T-CG1: a new 2x2 block is needed, T-CG10, T-CG11). Checked
        against the predicates (:func:`shelf.goal_holds`) in tests/test_tile_advise.py."""
        info = self.goal_info
        if info is None:
            info = self.goal_info = _GoalInfo(self.shelf, self.setup.rules, [goal for _, goal in self.live_slots])
        if goal in info.before:  # held before the placement (a position typed by hand): the predicate decides
            return goal_holds(goal, place_tiles(self.shelf, column, types), self.setup.rules)
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
                goal_holds(goal, place_tiles(self.shelf, column, types), self.setup.rules)
        if goal == 9:
            return max(self.counts[t] + types.count(t) for t in set(types)) >= 8
        if goal == 12:  # T-CG12 from the heights after: 1-5 or 2-6 rising or falling by one
            heights = [ROWS - r for r in room]
            return (heights[0] in (1, 2) and all(heights[c] == heights[0] + c for c in range(COLUMNS))) or \
                (heights[-1] in (1, 2) and all(heights[c] == heights[-1] + COLUMNS - 1 - c for c in range(COLUMNS)))
        if goal in (10, 11):  # an X or a diagonal of one type through a placed cell
            if max(self.counts[t] + types.count(t) for t in set(types)) < 5:
                return False
            shelf = place_tiles(self.shelf, column, types)
            lines = _X_THROUGH if goal == 10 else _DIAGONALS_THROUGH
            for j in range(len(types)):
                for line in lines[self.slots[column][j][0]]:
                    kind = shelf[line[0]]
                    if kind != EMPTY and all(shelf[c] == kind for c in line):
                        return True
            return False
        shelf = place_tiles(self.shelf, column, types)  # T-CG1: a 2x2 block through a placed cell, then the predicate
        for j in range(len(types)):
            for block in _BLOCKS_THROUGH[self.slots[column][j][0]]:
                kind = shelf[block[0]]
                if kind != EMPTY and all(shelf[c] == kind for c in block):
                    return goal_holds(goal, shelf, self.setup.rules)
        return False

    def count_goals(self, column: int, types: tuple[int, ...]) -> tuple[int | None, list[tuple[int, int]]]:
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
                if CELLS - self.empty + len(types) >= MIN_TILES[goal] and self.holds_after(goal, column, types, room):
                    fixed += self.state.stacks[slot][0]
            else:
                return None, []
        return fixed, counted
