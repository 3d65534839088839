"""What a shelf is worth: groups (T19), adjacency points (T22), the 12 common goal predicates
(T18-T19, T-CG1-T-CG12) and the exact breakdown of a final score (T21, T22, T25)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from shelfie_solver.tile.errors import TileError
from shelfie_solver.tile.rules import CELLS, COLUMNS, EMPTY, ROWS, PersonalCard, Shelf, TileRuleset

#: Orthogonal neighbours of each shelf cell (T19: diagonal contact does not link).
NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(
    tuple(n for n, ok in ((i - COLUMNS, i >= COLUMNS), (i + COLUMNS, i < CELLS - COLUMNS),
                          (i - 1, i % COLUMNS > 0), (i + 1, i % COLUMNS < COLUMNS - 1)) if ok)
    for i in range(CELLS))
#: T22: points of a group by size (index = size, capped at 6).
GROUP_POINTS = (0, 0, 0, 2, 3, 5, 8)


def group_points(size: int) -> int:
    """T22: a group of ``size`` tiles scores 0 (1-2), 2 (3), 3 (4), 5 (5) or 8 (6+)."""
    return GROUP_POINTS[min(size, 6)]


def group_labels(shelf: Shelf) -> tuple[list[int], list[tuple[int, int, bool]]]:
    """Label every tile with its group (T19).

    Returns:
        ``(labels, groups)``: ``labels[cell]`` the group index (-1 for an empty cell) and
        ``groups[g] = (type, size, open)``, ``open`` when some tile of the group has an empty
        orthogonal neighbour (the group can still grow).
    """
    labels = [-1] * CELLS
    groups: list[tuple[int, int, bool]] = []
    for start in range(CELLS):
        kind = shelf[start]
        if kind == EMPTY or labels[start] >= 0:
            continue
        g = len(groups)
        labels[start] = g
        stack, size, growing = [start], 0, False
        while stack:
            cell = stack.pop()
            size += 1
            for n in NEIGHBOURS[cell]:
                other = shelf[n]
                if other == kind:
                    if labels[n] < 0:
                        labels[n] = g
                        stack.append(n)
                elif other == EMPTY:
                    growing = True
        groups.append((kind, size, growing))
    return labels, groups


def adjacency_points(shelf: Shelf) -> int:
    """T22: the sum of every group's points."""
    return sum(group_points(size) for _, size, _ in group_labels(shelf)[1])


def heights(shelf: Shelf) -> tuple[int, ...]:
    """Tiles per column (T4: a column's tiles fill its lowest cells)."""
    return tuple(sum(1 for r in range(ROWS) if shelf[r * COLUMNS + c] != EMPTY) for c in range(COLUMNS))


def _column(shelf: Shelf, c: int) -> list[int]:
    return [shelf[r * COLUMNS + c] for r in range(ROWS)]


def _row(shelf: Shelf, r: int) -> list[int]:
    return list(shelf[r * COLUMNS:(r + 1) * COLUMNS])


def _full_lines(lines: list[list[int]], test: Callable[[int], bool], need: int) -> bool:
    return sum(1 for line in lines if EMPTY not in line and test(len(set(line)))) >= need


def _squares(shelf: Shelf, rules: TileRuleset) -> bool:
    """T-CG1: two 2x2 blocks in separate groups (flag ``squares = "loose"``: any two
    non-overlapping blocks), of one type with ``squares_same_type``."""
    blocks = []
    for r in range(ROWS - 1):
        for c in range(COLUMNS - 1):
            i = r * COLUMNS + c
            kind = shelf[i]
            if kind != EMPTY and shelf[i + 1] == kind and shelf[i + COLUMNS] == kind and shelf[i + COLUMNS + 1] == kind:
                blocks.append((kind, frozenset((i, i + 1, i + COLUMNS, i + COLUMNS + 1))))
    if len(blocks) < 2:
        return False
    labels = group_labels(shelf)[0] if rules.squares == "groups" else None
    for a in range(len(blocks)):
        for b in range(a + 1, len(blocks)):
            (ka, ca), (kb, cb) = blocks[a], blocks[b]
            if rules.squares_same_type and ka != kb:
                continue
            if labels is not None:
                if labels[min(ca)] != labels[min(cb)]:
                    return True
            elif not ca & cb:
                return True
    return False


def _groups_at_least(shelf: Shelf, size: int, need: int) -> bool:
    """T-CG3 / T-CG4: ``need`` separate groups of ``size``+ tiles (each maximal group counts once)."""
    return sum(1 for _, s, _ in group_labels(shelf)[1] if s >= size) >= need


def _corners(shelf: Shelf) -> bool:
    kinds = {shelf[0], shelf[COLUMNS - 1], shelf[CELLS - COLUMNS], shelf[CELLS - 1]}
    return len(kinds) == 1 and EMPTY not in kinds


def _eight_of_a_type(shelf: Shelf) -> bool:
    return any(shelf.count(t) >= 8 for t in range(6))


def _x(shelf: Shelf) -> bool:
    for r in range(ROWS - 2):
        for c in range(COLUMNS - 2):
            i = r * COLUMNS + c
            kind = shelf[i]
            if kind != EMPTY and all(shelf[j] == kind for j in (i + 2, i + COLUMNS + 1, i + 2 * COLUMNS, i + 2 * COLUMNS + 2)):
                return True
    return False


def _diagonal(shelf: Shelf) -> bool:
    for r0 in (0, 1):
        for line in ([(r0 + i) * COLUMNS + i for i in range(5)], [(r0 + i) * COLUMNS + 4 - i for i in range(5)]):
            kinds = {shelf[j] for j in line}
            if len(kinds) == 1 and EMPTY not in kinds:
                return True
    return False


def _staircase(shelf: Shelf) -> bool:
    h = heights(shelf)
    up = tuple(range(h[0], h[0] + COLUMNS))
    down = tuple(range(h[4], h[4] + COLUMNS))[::-1]
    return (h == up and h[0] in (1, 2)) or (h == down and h[4] in (1, 2))


#: T-CG1 ... T-CG12: (short name, predicate(shelf, rules)).
COMMON_GOALS: dict[int, tuple[str, Callable[[Shelf, TileRuleset], bool]]] = {
    1: ("two 2x2 squares", _squares),
    2: ("two columns of 6 types", lambda s, r: _full_lines([_column(s, c) for c in range(COLUMNS)], lambda n: n == 6, 2)),
    3: ("four groups of 4", lambda s, r: _groups_at_least(s, 4, 4)),
    4: ("six groups of 2", lambda s, r: _groups_at_least(s, 2, 6)),
    5: ("three columns of <=3 types", lambda s, r: _full_lines([_column(s, c) for c in range(COLUMNS)], lambda n: n <= 3, 3)),
    6: ("two rows of 5 types", lambda s, r: _full_lines([_row(s, q) for q in range(ROWS)], lambda n: n == 5, 2)),
    7: ("four rows of <=3 types", lambda s, r: _full_lines([_row(s, q) for q in range(ROWS)], lambda n: n <= 3, 4)),
    8: ("four corners", lambda s, r: _corners(s)),
    9: ("eight of a type", lambda s, r: _eight_of_a_type(s)),
    10: ("X of a type", lambda s, r: _x(s)),
    11: ("diagonal of a type", lambda s, r: _diagonal(s)),
    12: ("staircase", lambda s, r: _staircase(s)),
}


#: The fewest tiles a shelf needs before each goal can hold (a quick test before the predicate):
#: e.g. T-CG8 needs columns 0 and 4 full (12), T-CG12 heights 1-5 (15), T-CG7 four full rows (20).
MIN_TILES = {1: 8, 2: 12, 3: 16, 4: 12, 5: 18, 6: 10, 7: 20, 8: 12, 9: 8, 10: 5, 11: 5, 12: 15}


def goal_holds(goal: int, shelf: Shelf, rules: TileRuleset) -> bool:
    """Whether common goal T-CG``goal`` holds on ``shelf`` (T18-T19)."""
    if CELLS - shelf.count(EMPTY) < MIN_TILES[goal]:
        return False
    return COMMON_GOALS[goal][1](shelf, rules)


def goal_text(goal: int) -> str:
    """A common goal as a player reads it: ``T-CG8 (four corners)``."""
    return f"T-CG{goal} ({COMMON_GOALS[goal][0]})"


def _goal_key(text: str) -> str:
    return " ".join(text.lower().replace("-", " ").replace("_", " ").split())


def parse_goal(value: object) -> int:
    """A common goal card (T5, T-CG1-12) as typed: its id (``8``, ``"8"``, ``"T-CG8"``) or its
    name (``"four corners"``; case, hyphens and spaces do not matter).

    Raises:
        TileError: neither an id 1-12 nor a name of :data:`COMMON_GOALS` (the message lists them).
    """
    if type(value) is int and value in COMMON_GOALS:
        return value
    if isinstance(value, str):
        key = _goal_key(value)  # hyphens become spaces: "-8" and "T-CG-8" would read as goal 8
        number = key.removeprefix("t cg").strip()
        if number.isdigit() and re.search(r"-\s*[0-9]+\s*$", value):
            raise TileError(f"no common goal {repr(value)[:40]}: a goal id is never negative; expected an id "
                            "1-12 (8 or T-CG8) or a name (T-CG1-12)")
        if number.isdigit() and len(number) <= 2 and int(number) in COMMON_GOALS:
            return int(number)
        for goal, (name, _) in COMMON_GOALS.items():
            if _goal_key(name) == key:
                return goal
    names = ", ".join(f"{g} {name}" for g, (name, _) in COMMON_GOALS.items())
    raise TileError(f"no common goal {repr(value)[:40]}; expected an id 1-12 or a name: {names} (T-CG1-12)")


def goals_met(shelf: Shelf, rules: TileRuleset) -> tuple[int, ...]:
    """The common goals (1-12) whose predicate holds on ``shelf``."""
    return tuple(g for g in COMMON_GOALS if goal_holds(g, shelf, rules))


@dataclass(frozen=True)
class ScoreBreakdown:
    """An exact score (T25), all in points.

    Attributes:
        groups: ``(type, size, points)`` per group of 3+ tiles (T22), largest first.
        adjacency: their sum. personal_matches, personal: T21 (0 without a card).
        tokens: common-goal tokens (T18). end_token: 1 for the end-game token (T23).
        goals_met: the common goals that hold now (T-CG ids).
    """

    groups: tuple[tuple[int, int, int], ...]
    adjacency: int
    personal_matches: int
    personal: int
    tokens: int
    end_token: int
    goals_met: tuple[int, ...]

    @property
    def total(self) -> int:
        """T25: tokens + end token + personal + adjacency."""
        return self.tokens + self.end_token + self.personal + self.adjacency


def score_shelf(shelf: Shelf, rules: TileRuleset, card: PersonalCard | None = None, tokens: int = 0,
                end_token: int = 0) -> ScoreBreakdown:
    """The breakdown of ``shelf``'s score (T21, T22, T25) with the given tokens."""
    groups = sorted(((kind, size, group_points(size)) for kind, size, _ in group_labels(shelf)[1] if size >= 3),
                    key=lambda g: (-g[1], g[0]))
    matches = card.matches(shelf) if card else 0
    return ScoreBreakdown(tuple(groups), sum(g[2] for g in groups), matches,
                          card.points(shelf) if card else 0, tokens, end_token, goals_met(shelf, rules))
