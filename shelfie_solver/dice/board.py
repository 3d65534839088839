"""The bookshelf: board layout (D3), board state / marks (D4) and scoring (D19).

Cells are numbered ``shelf * n_columns + column`` (0-based) and named ``r<shelf>c<column>``
(1-based, shelf 1 at the top). Lines are the shelves (rows) followed by the columns.

Board TOML form (docs/formats.md)::

    name = "..."
    columns = [1, 2, 3, 4, 5]    # same-face dice each column needs, left to right (D3)
    [[shelves]]                  # top to bottom
    faces = ["cat"]              # face names or codes this shelf accepts (one or several)
    values = [1, 2, 4, 7, 11]    # point value of each item, left to right
"""

from __future__ import annotations

import math
import re
import sys
from dataclasses import dataclass
from enum import StrEnum
from functools import cache, cached_property, lru_cache
from itertools import combinations
from pathlib import Path
from collections.abc import Callable, Sequence
from typing import Any, TextIO

import numpy as np

from shelfie_solver.core.errors import shorten
from shelfie_solver.dice.errors import BoardError, MarksError, RulesError
from shelfie_solver.core.inputs import load_toml, parse_toml, read_text, text_or_file
from shelfie_solver.dice.rules import DEFAULT_RULES, Ruleset

#: An item name ``r<shelf>c<column>``: ASCII digits, at most 6 each after leading zeros (no board
#: is that large; a 5000-digit number would pass int()'s digit limit: ValueError, not BoardError).
_CELL_NAME = re.compile(r"^r0*([0-9]{1,6})c0*([0-9]{1,6})$", re.IGNORECASE)
#: Board size limits: marks are bit masks of the cells (an int64 in numpy), and the engine's
#: table of every roll x every set of items grows with the cells cubed.
MAX_SHELVES = MAX_COLUMNS = 7
MAX_VALUE = 10_000


@dataclass(frozen=True)
class Board:
    """An immutable bookshelf layout (D3).

    Attributes:
        name: a label for output.
        columns: per column, how many dice of the same face mark an item there (n(c)).
        shelf_faces: per shelf, the side numbers (ruleset item faces) that may mark its items.
        values: per shelf, per column, the item's point value.
    """

    name: str
    columns: tuple[int, ...]
    shelf_faces: tuple[tuple[int, ...], ...]
    values: tuple[tuple[int, ...], ...]

    @property
    def n_shelves(self) -> int:
        """Number of shelves (rows)."""
        return len(self.shelf_faces)

    @property
    def n_columns(self) -> int:
        """Number of columns."""
        return len(self.columns)

    @property
    def n_cells(self) -> int:
        """Number of items on the board."""
        return self.n_shelves * self.n_columns

    def __hash__(self) -> int:  # boards key process-wide caches: hash the fields once
        return self._hash

    @cached_property
    def _hash(self) -> int:
        return hash((self.name, self.columns, self.shelf_faces, self.values))

    def cell(self, shelf: int, column: int) -> int:
        """Cell index of (shelf, column), both 0-based."""
        return shelf * self.n_columns + column

    def shelf_of(self, cell: int) -> int:
        """0-based shelf of a cell."""
        return cell // self.n_columns

    def column_of(self, cell: int) -> int:
        """0-based column of a cell."""
        return cell % self.n_columns

    def cell_name(self, cell: int) -> str:
        """Item name ``r<shelf>c<column>``, 1-based, e.g. ``r1c1`` for the top-left item."""
        return f"r{self.shelf_of(cell) + 1}c{self.column_of(cell) + 1}"

    def parse_cell(self, name: str) -> int:
        """Cell index of an item name such as ``r2c4``.

        Raises:
            BoardError: the name is malformed or outside the board.
        """
        match = _CELL_NAME.match(name.strip())
        last = f"r{self.n_shelves}c{self.n_columns}"
        if not match:
            parts = [p for p in re.split(r"[,;]", name) if p.strip()]
            if len(parts) > 1 and all(_CELL_NAME.match(p.strip()) for p in parts):  # 'r1c5,r3c1': several items
                raise BoardError(f"bad item name {shorten(name)}: several items, separate them by spaces, not "
                                 f"commas: {' '.join(p.strip() for p in parts)}")
            raise BoardError(f"bad item name {shorten(name)}; expected r<shelf>c<column> such as r2c4 "
                             f"(r1c1..{last})")
        shelf, column = int(match.group(1)), int(match.group(2))
        if not (1 <= shelf <= self.n_shelves and 1 <= column <= self.n_columns):
            raise BoardError(f"item {shorten(name)} is not on the board; items run from r1c1 to {last}")
        return self.cell(shelf - 1, column - 1)

    def value(self, cell: int) -> int:
        """Point value of an item."""
        return self.values[self.shelf_of(cell)][self.column_of(cell)]

    def need(self, cell: int) -> int:
        """Dice of one face needed to mark an item (its column's number, D3/D8)."""
        return self.columns[self.column_of(cell)]

    def faces_of(self, cell: int) -> tuple[int, ...]:
        """Side numbers that may mark an item (its shelf's faces, D3/D8)."""
        return self.shelf_faces[self.shelf_of(cell)]

    @cached_property
    def lines(self) -> tuple[tuple[int, ...], ...]:
        """Cells of every line: the shelves top to bottom, then the columns left to right (D19)."""
        shelves = tuple(tuple(self.cell(s, c) for c in range(self.n_columns)) for s in range(self.n_shelves))
        columns = tuple(tuple(self.cell(s, c) for s in range(self.n_shelves)) for c in range(self.n_columns))
        return shelves + columns

    @cached_property
    def line_matrix(self) -> np.ndarray:
        """``int64 (cells, L)``: 1 where a cell lies on a line of :attr:`lines`."""
        member = np.zeros((self.n_cells, len(self.lines)), dtype=np.int64)
        for line, cells in enumerate(self.lines):
            member[list(cells), line] = 1
        return member

    @cached_property
    def value_array(self) -> np.ndarray:
        """``int64 (cells,)``: every item's point value."""
        return np.array([v for row in self.values for v in row], dtype=np.int64)

    def line_name(self, line: int) -> str:
        """``shelf 2`` or ``column 4`` (1-based) for a line index of :attr:`lines`."""
        if line < self.n_shelves:
            return f"shelf {line + 1}"
        return f"column {line - self.n_shelves + 1}"

    def shelf_label(self, shelf: int, rules: Ruleset) -> str:
        """The faces a shelf accepts, e.g. ``cat`` or ``cat/book``."""
        return "/".join(rules.sides[f].name for f in self.shelf_faces[shelf])


class CellState(StrEnum):
    """State of one item (D4), with its character in the compact marks text."""

    AVAILABLE = "."
    MARKED = "o"
    ELIMINATED = "x"


@dataclass(frozen=True)
class Marks:
    """An immutable board state (D4): which items are marked and which eliminated.

    Attributes:
        n_shelves, n_columns: the board shape.
        marked: bit ``i`` set when cell ``i`` is marked (circled).
        eliminated: bit ``i`` set when cell ``i`` is eliminated (crossed out).

    The compact text form lists the shelves top to bottom separated by ``/``, one character per
    item: ``.`` available, ``o`` marked, ``x`` eliminated, e.g. ``oo.../...../x..../...../.....``.
    """

    n_shelves: int
    n_columns: int
    marked: int = 0
    eliminated: int = 0

    @classmethod
    def empty(cls, board: Board) -> Marks:
        """The state at the start of a game: every item available."""
        return cls(board.n_shelves, board.n_columns)

    @property
    def n_cells(self) -> int:
        """Number of items."""
        return self.n_shelves * self.n_columns

    def state(self, cell: int) -> CellState:
        """State of one cell."""
        if self.marked >> cell & 1:
            return CellState.MARKED
        if self.eliminated >> cell & 1:
            return CellState.ELIMINATED
        return CellState.AVAILABLE

    def is_available(self, cell: int) -> bool:
        """Whether the item can still be marked (D4)."""
        return not ((self.marked | self.eliminated) >> cell & 1)

    @property
    def available(self) -> tuple[int, ...]:
        """Available cells, in index order (kept on the instance: its fields never change)."""
        found: tuple[int, ...] | None = self.__dict__.get("_available")
        if found is None:
            free = ~(self.marked | self.eliminated) & ((1 << self.n_cells) - 1)
            cells = []
            while free:  # the lowest set bit each time: index order
                low = free & -free
                cells.append(low.bit_length() - 1)
                free ^= low
            found = tuple(cells)
            object.__setattr__(self, "_available", found)
        return found

    @property
    def has_available(self) -> bool:
        """Whether some item can still be marked (D4): :attr:`available` is not empty, read from
        the bits without listing the items."""
        return ~(self.marked | self.eliminated) & ((1 << self.n_cells) - 1) != 0

    def can_mark(self, cells: tuple[int, ...] | list[int]) -> bool:
        """Whether every cell is available and none repeats (D4)."""
        return len(set(cells)) == len(cells) and all(0 <= c < self.n_cells and self.is_available(c) for c in cells)

    def verify_mark(self, cells: tuple[int, ...] | list[int]) -> None:
        """Raise :class:`MarksError` unless :meth:`can_mark` holds."""
        if not self.can_mark(cells):
            raise MarksError(f"cannot mark cells {sorted(cells)}: only distinct available items can be marked (D4)")

    def with_marked(self, cells: tuple[int, ...] | list[int]) -> Marks:
        """A new state with ``cells`` marked (D4: only available items).

        Raises:
            MarksError: a cell is not available.
        """
        self.verify_mark(cells)
        bits = sum(1 << c for c in cells)
        return Marks(self.n_shelves, self.n_columns, self.marked | bits, self.eliminated)

    def with_eliminated(self, cells: tuple[int, ...] | list[int]) -> Marks:
        """A new state with the *available* cells among ``cells`` eliminated (D13, D15).

        Marked cells stay marked (they still score).
        """
        bits = sum(1 << c for c in cells if self.is_available(c))
        return Marks(self.n_shelves, self.n_columns, self.marked, self.eliminated | bits)

    def with_eliminated_bits(self, blocked: int) -> Marks:
        """:meth:`with_eliminated` of the cells of the bit mask ``blocked`` (bit ``i``: cell ``i``;
        another seat's blocks, D15): the sheet itself where none of them is available."""
        hit = blocked & ~(self.marked | self.eliminated) & ((1 << self.n_cells) - 1)
        return Marks(self.n_shelves, self.n_columns, self.marked, self.eliminated | hit) if hit else self

    def shelf_has_available(self, shelf: int) -> bool:
        """Whether a shelf still has an available item (D13, D17)."""
        row = (1 << self.n_columns) - 1
        return ((self.marked | self.eliminated) >> (shelf * self.n_columns)) & row != row

    def bit_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """``(marked, available)`` as ``int64 (cells,)`` 0/1 arrays."""
        return _bit_arrays(self.n_cells, self.marked, self.eliminated)

    def count_marked(self, cells: tuple[int, ...]) -> int:
        """How many of ``cells`` are marked."""
        return sum(self.marked >> c & 1 for c in cells)

    def closed_shelves(self) -> int:
        """Shelves with no available item (D17's end trigger counts these; kept on the instance)."""
        found: int | None = self.__dict__.get("_closed")
        if found is None:
            done, row, width = self.marked | self.eliminated, (1 << self.n_columns) - 1, self.n_columns
            found = sum((done >> (s * width)) & row == row for s in range(self.n_shelves))
            object.__setattr__(self, "_closed", found)
        return found

    def __str__(self) -> str:
        rows = []
        for s in range(self.n_shelves):
            rows.append("".join(self.state(s * self.n_columns + c).value for c in range(self.n_columns)))
        return "/".join(rows)


def parse_marks(text: str, board: Board) -> Marks:
    """Parse the compact marks text (``.`` available, ``o`` marked, ``x`` eliminated).

    Shelves are separated by ``/`` or new lines; spaces are ignored; ``#`` starts a comment.

    Raises:
        MarksError: a bad character or a shape that does not match the board.
    """
    rows = _shelf_rows(text)
    example = _example_marks(board)
    if "" in rows:
        raise MarksError(f"marks {shorten(text.strip())} have an empty shelf ('//', a '/' before the first shelf "
                         f"or two after the last); expected {board.n_shelves} shelves of {board.n_columns} items "
                         f"separated by '/', e.g. {example}")
    if len(rows) != board.n_shelves or any(len(row) != board.n_columns for row in rows):
        raise MarksError(f"marks {shorten(text.strip())} do not fit the board: expected {board.n_shelves} shelves of "
                         f"{board.n_columns} items separated by '/', e.g. {example}")
    marked = eliminated = 0
    for s, row in enumerate(rows):
        for c, char in enumerate(row.lower()):
            bit = 1 << board.cell(s, c)
            if char == "o":
                marked |= bit
            elif char == "x":
                eliminated |= bit
            elif char != ".":
                raise MarksError(f"bad character {char!r} in marks; use '.' available, 'o' marked, 'x' eliminated")
    return Marks(board.n_shelves, board.n_columns, marked, eliminated)


#: The one rule for "marks text or a file" (docs/formats.md): text made only of these characters
#: (marks ``.ox``, upper or lower case, the shelf separator ``/`` and white space) is always marks
#: text, never a path; ``-`` is standard input; anything else is a path.
MARKS_TEXT_CHARS = frozenset(".oxOX/ \t\r\n")
#: Marks files are a few lines; anything larger is not a marks file.
MAX_MARKS_BYTES = 64 * 1024
_BOM = "\ufeff"


def is_marks_text(text: str) -> bool:
    """Whether ``text`` is marks text by the rule of :data:`MARKS_TEXT_CHARS` (a leading BOM and
    surrounding white space aside); such text is never taken for a file name."""
    return bool(text.removeprefix(_BOM).strip()) and text_or_file(text, MARKS_TEXT_CHARS) == "text"


def _shelf_rows(text: str) -> list[str]:
    """The shelves of marks text: lines and ``/`` separate shelves; white space, ``#`` comments,
    blank lines and one ``/`` at a line's end (``...../`` then a new line) are dropped. Any other
    empty shelf (``//``, a ``/`` first, a line of ``/`` alone) is kept as ``""``, which
    :func:`parse_marks` refuses as it refuses a sixth shelf."""
    parts = []
    for line in text.splitlines():
        part = "".join(line.split("#", 1)[0].split())
        if part:
            parts.append(part.removesuffix("/"))
    return "/".join(parts).split("/") if parts else []


def load_marks(text_or_path: str | None, board: Board, stdin: TextIO | None = None) -> Marks:
    """Marks from compact text, from standard input (``-``) or from a file holding them.

    The rule (docs/formats.md, one for every "text or a file" option): text made only of
    ``. o x / `` and white space is marks text (:func:`is_marks_text`); ``-`` reads standard input
    (``stdin``, default ``sys.stdin``) until it holds as many shelves as the board; anything else
    is the path of a regular file (one shelf per line allowed, ``#`` comments). A leading UTF-8
    byte-order mark is ignored everywhere. ``None`` gives the empty board.

    Raises:
        MarksError: as :func:`parse_marks`; a missing, non-regular (FIFO, device, directory),
            unreadable or oversized file; or text that is neither marks nor a file name.
    """
    if text_or_path is None:
        return Marks.empty(board)
    kind = text_or_file(text_or_path, MARKS_TEXT_CHARS, stdin=True)  # the rule shared with tile --shelf
    if kind == "stdin":
        source = sys.stdin if stdin is None else stdin
        if source is None:  # the process was started with standard input closed
            raise MarksError("'-' reads the marks from standard input, which is closed; give the marks as "
                             "text or a file")
        text = _read_shelves(source, board)
        try:
            return parse_marks(text.removeprefix(_BOM), board)
        except MarksError as error:
            raise MarksError(f"marks from standard input: {error}") from None
    if kind == "text":
        try:
            return parse_marks(text_or_path.removeprefix(_BOM), board)  # empty text reports the expected form
        except MarksError as error:
            if _is_kind(Path(text_or_path), Path.exists):
                raise MarksError(f"{error} (text made only of '.ox/' is marks, never a file name: "
                                 f"rename the file, e.g. to {shorten(text_or_path + '.txt')})") from None
            raise
    return _marks_file(text_or_path, board)


def _marks_file(name: str, board: Board) -> Marks:
    """Marks from the regular file ``name`` (never a FIFO or device, which could block)."""
    path = Path(name)
    example = _example_marks(board)
    if not _is_kind(path, Path.exists):
        strange = next(char for char in name.removeprefix(_BOM) if char not in MARKS_TEXT_CHARS)
        raise MarksError(f"marks {shorten(name)}: not found as a file, and not marks text (bad character "
                         f"{strange!r}; marks use only '.', 'o', 'x', '/' and spaces, e.g. {example})")
    if _is_kind(path, Path.is_dir):
        raise MarksError(f"marks {shorten(name)} is a directory; expected marks like {example} or a file holding them")
    if not _is_kind(path, Path.is_file):
        raise MarksError(f"marks {shorten(name)} is not a regular file; expected marks like {example}, a file "
                         "holding them, or '-' for standard input")
    # the shared bounded reader: opened non-blocking (a FIFO swapped in cannot hang it), size cap, BOM removed
    text = read_text(name, MarksError, MAX_MARKS_BYTES, f"a marks file: a few lines like {example}")
    try:
        return parse_marks(text, board)
    except MarksError as error:
        raise MarksError(f"marks file {shorten(name)}: {error}") from None


def _read_shelves(stream: TextIO, board: Board) -> str:
    """Lines of ``stream`` until they hold ``board.n_shelves`` shelves (or end of input, or
    :data:`MAX_MARKS_BYTES`): a pipe that stays open after the marks does not block."""
    lines: list[str] = []
    size = 0
    while size <= MAX_MARKS_BYTES:
        line = stream.readline(MAX_MARKS_BYTES + 1 - size)
        if not line:
            break
        lines.append(line)
        size += len(line)
        if sum(1 for row in _shelf_rows("".join(lines).removeprefix(_BOM)) if row) >= board.n_shelves:
            break
    return "".join(lines)


def _is_kind(path: Path, test: Callable[[Path], bool]) -> bool:
    """``test(path)``, False when the operating system refuses the name (e.g. too long)."""
    try:
        return test(path)
    except OSError:
        return False


def _example_marks(board: Board) -> str:
    return "/".join(["." * board.n_columns] * board.n_shelves)


def verify_marks_fit(marks: Marks, board: Board) -> None:
    """Raise :class:`MarksError` when a state's shape differs from the board's."""
    if (marks.n_shelves, marks.n_columns) != (board.n_shelves, board.n_columns):
        raise MarksError(f"marks are {marks.n_shelves}x{marks.n_columns} but the board is "
                         f"{board.n_shelves}x{board.n_columns}")


def line_points(board: Board, marks: Marks, line: tuple[int, ...], threshold: int) -> int:
    """Points of one line (D19): the sum of its marked values when it has >= threshold marks."""
    marked = [c for c in line if marks.marked >> c & 1]
    return sum(board.value(c) for c in marked) if len(marked) >= threshold else 0


def score_breakdown(board: Board, marks: Marks, rules: Ruleset = DEFAULT_RULES) -> tuple[int, int]:
    """(points from shelves, points from columns) under D19; a marked item may count in both.
    From the marked items' bit mask, line by line (:func:`_line_planes`)."""
    marked, t, shelves = marks.marked, rules.scoring_threshold, board.n_shelves
    totals = [0, 0]
    for line, (mask, planes) in enumerate(_line_planes(board)):
        if (marked & mask).bit_count() >= t:  # D19: the line scores its marked items' points
            totals[line >= shelves] += sum(value * (marked & cells).bit_count() for value, cells in planes)
    return totals[0], totals[1]


@cache
def _line_planes(board: Board) -> tuple[tuple[int, tuple[tuple[int, int], ...]], ...]:
    """Per line (:attr:`Board.lines`): its items' bit mask and, per point value, the bit mask of
    its items of that value."""
    out = []
    for line in board.lines:
        planes: dict[int, int] = {}
        for c in line:
            planes[board.value(c)] = planes.get(board.value(c), 0) | 1 << c
        out.append((sum(1 << c for c in line), tuple(sorted(planes.items()))))
    return tuple(out)


def marked_line_totals(board: Board, marks: Marks) -> tuple[np.ndarray, np.ndarray]:
    """``(marked items, their points)``, each ``int64 (L,)`` over :attr:`Board.lines` (shelves,
    then columns)."""
    marked = marks.bit_arrays()[0]
    member = board.line_matrix
    count: np.ndarray = marked @ member
    points: np.ndarray = (marked * board.value_array) @ member
    return count, points


def totals_breakdown(board: Board, count: np.ndarray, points: np.ndarray, rules: Ruleset) -> tuple[int, int]:
    """:func:`score_breakdown` from a sheet's :func:`marked_line_totals` (D19: a line scores the
    points of its marked items when at least the threshold of them are marked)."""
    scoring = np.where(count >= rules.scoring_threshold, points, 0)  # line_points of every line
    return int(scoring[: board.n_shelves].sum()), int(scoring[board.n_shelves:].sum())


def score(board: Board, marks: Marks, rules: Ruleset = DEFAULT_RULES) -> int:
    """Total points of a sheet (D19); kept for the marked items seen most recently (a game's
    every turn scores every seat's sheet, blocks (D15) change only the eliminated items, and a
    rollout's play-outs meet the same sheets again)."""
    return _marked_score(board, marks.n_shelves, marks.n_columns, marks.marked, rules)


def top_other_score(board: Board, sheets: Sequence[Marks], seat: int, rules: Ruleset = DEFAULT_RULES) -> int:
    """The highest :func:`score` now (points, D19) of the sheets of ``sheets`` other than seat
    ``seat``'s (``len(sheets) >= 2``): a score never falls (marked items stay, D13, D15), so no
    other seat ends below it and no other seat's :func:`highest_score` is below it.

    Raises ``ValueError`` (from ``max``) with fewer than two sheets."""
    return max(score(board, sheet, rules) for j, sheet in enumerate(sheets) if j != seat)


def highest_score(board: Board, marks: Marks, rules: Ruleset = DEFAULT_RULES, blocked: int = 0) -> int:
    """The most points the sheet ``marks`` can ever score: :func:`score` with every available item
    marked too. An upper bound of its final score however the game goes: only available items
    can be marked (D4), an eliminated item never comes back (D13, D15, D16), and item values are
    never negative, so marking more never lowers a line's score (D19: a line's sum only grows,
    and passing the threshold only adds lines); the rules have no other points. Its score itself
    when it has no available item. The one home of this bound (the expected final score's
    ceiling in the advice, a seat's reach in :mod:`win_chance`).

    ``blocked``: a bit mask of cells (bit ``i``: cell ``i``) whose available items are
    eliminated first (another seat's blocks, D15: its marked items there stay and score), the
    bound of the sheet ``sheet_rules.block`` would give, without building it."""
    everything = marks.marked | ~(marks.marked | marks.eliminated | blocked) & ((1 << marks.n_cells) - 1)
    return _marked_score(board, marks.n_shelves, marks.n_columns, everything, rules)


@lru_cache(maxsize=1 << 14)
def _marked_score(board: Board, n_shelves: int, n_columns: int, marked: int, rules: Ruleset) -> int:
    """:func:`score` of the sheet with ``marked`` items (D19 reads only those)."""
    return sum(score_breakdown(board, Marks(n_shelves, n_columns, marked), rules))


@dataclass(frozen=True, eq=False)
class ItemSets:
    """Every set of 1..k items of a board, with what each set adds to every line (state-free).

    Attributes:
        cells: ``int64 (K, k)`` cell indices of each set, padded with ``-1``.
        sizes: ``int64 (K,)`` items per set.
        line_count: ``int64 (K, L)`` items each set adds to each line (:attr:`Board.lines`).
        line_points: ``int64 (K, L)`` points of those items per line.
    """

    cells: np.ndarray
    sizes: np.ndarray
    line_count: np.ndarray
    line_points: np.ndarray

    def take(self, index: np.ndarray) -> ItemSets:
        """The sets at ``index`` (an integer array), in that order."""
        return ItemSets(self.cells[index], self.sizes[index], self.line_count[index], self.line_points[index])


@cache
def item_sets(board: Board, k: int) -> ItemSets:
    """All sets of 1..k items of ``board`` (by size, then cell order), built once per process
    or read from the disk cache (:mod:`shelfie_solver.core.diskcache`: building them is a few ms
    of ``advise``'s start-up, docs/performance.md)."""
    from shelfie_solver.core.diskcache import all_within, load_or_build

    k = min(k, board.n_cells)
    sets, lines = sum(math.comb(board.n_cells, size) for size in range(1, k + 1)), len(board.lines)
    arrays = load_or_build("item-sets", f"{board!r}\n{k}", {"cells": (sets, k), "sizes": (sets,),
                                                            "line_count": (sets, lines), "line_points": (sets, lines)},
                           lambda: _build_item_sets(board, k),
                           lambda found: _item_sets_fit(board, found))
    return ItemSets(arrays["cells"], arrays["sizes"], arrays["line_count"], arrays["line_points"])


def _item_sets_fit(board: Board, found: dict[str, np.ndarray]) -> bool:
    """Whether the arrays read for :func:`item_sets` are the ones it builds (a forged or damaged
    cache entry is refused and rebuilt, never a traceback): cells within the board with ``-1``
    padding only after a row's items, each row's items increasing, ``sizes`` its count (1 or
    more), rows by size then in cell order (with the layout's row count: exactly every set once),
    and the line totals those of the cells."""
    from shelfie_solver.core.diskcache import all_within

    cells, sizes = found["cells"], found["sizes"]
    if not all_within(cells, -1, board.n_cells):
        return False
    real = cells >= 0
    if not np.array_equal(sizes, real.sum(axis=1)) or (sizes < 1).any() or (real[:, 1:] & ~real[:, :-1]).any():
        return False
    if ((cells[:, 1:] <= cells[:, :-1]) & real[:, 1:]).any() or (np.diff(sizes) < 0).any():
        return False
    if len(cells) > 1:
        before, after = cells[:-1], cells[1:]
        differ = before != after
        first = differ.argmax(axis=1)
        rows = np.arange(len(before))
        ordered = differ.any(axis=1) & (before[rows, first] < after[rows, first])
        if ((sizes[:-1] == sizes[1:]) & ~ordered).any():
            return False
    member = np.zeros((board.n_cells + 1, len(board.lines)), dtype=np.int64)  # last row: padding
    for line, line_cells in enumerate(board.lines):
        member[list(line_cells), line] = 1
    values = np.array([board.value(c) for c in range(board.n_cells)] + [0], dtype=np.int64)
    return bool(np.array_equal(found["line_count"], member[cells].sum(axis=1))
                and np.array_equal(found["line_points"], (member * values[:, None])[cells].sum(axis=1)))


def _build_item_sets(board: Board, k: int) -> dict[str, np.ndarray]:
    """The arrays of :class:`ItemSets` for sets of 1..k items, computed."""
    sets = [c for size in range(1, k + 1) for c in combinations(range(board.n_cells), size)]
    cells = np.full((len(sets), k), -1, dtype=np.int64)
    for i, chosen in enumerate(sets):
        cells[i, : len(chosen)] = chosen
    member = np.zeros((board.n_cells + 1, len(board.lines)), dtype=np.int64)  # last row: padding
    for line, line_cells in enumerate(board.lines):
        member[list(line_cells), line] = 1
    values = np.array([board.value(c) for c in range(board.n_cells)] + [0], dtype=np.int64)
    return {"cells": cells, "sizes": (cells >= 0).sum(axis=1), "line_count": member[cells].sum(axis=1),
            "line_points": (member * values[:, None])[cells].sum(axis=1)}


# --- board files ---------------------------------------------------------------------------

_BOARD_KEYS = frozenset(("name", "columns", "shelves"))
_SHELF_KEYS = frozenset(("faces", "values", "name"))


def board_from_dict(data: dict[str, Any], rules: Ruleset = DEFAULT_RULES, source: str = "board") -> Board:
    """Build a :class:`Board` from parsed TOML, resolving face names/codes against ``rules``.

    Raises:
        BoardError: unknown keys, a wrong shape, an unknown face, or bad dice counts / values.
    """
    if not isinstance(data, dict):
        raise BoardError(f"{source}: expected a table of name, columns and [[shelves]], got {type(data).__name__}")
    unknown = sorted(set(data) - _BOARD_KEYS)
    if unknown:
        raise BoardError(f"{source}: unknown key {unknown[0]!r}; expected name, columns and [[shelves]]")
    columns = data.get("columns")
    if not isinstance(columns, list) or not columns or not all(_is_int(n) for n in columns):
        raise BoardError(f"{source}: columns must be a list of dice counts, e.g. columns = [1, 2, 3, 4, 5]")
    if len(columns) > MAX_COLUMNS:
        raise BoardError(f"{source}: at most {MAX_COLUMNS} columns, got {len(columns)}")
    for n in columns:
        if not 1 <= n <= rules.dice:
            raise BoardError(f"{source}: a column needs between 1 and {rules.dice} dice (the ruleset's dice), got {n}")
    shelves = data.get("shelves")
    if not isinstance(shelves, list) or not shelves:
        raise BoardError(f"{source}: expected at least one [[shelves]] table with faces and values")
    if len(shelves) > MAX_SHELVES:
        raise BoardError(f"{source}: at most {MAX_SHELVES} shelves, got {len(shelves)}")
    shelf_faces, values = [], []
    for number, shelf in enumerate(shelves, start=1):
        faces, row = _shelf_from(shelf, number, len(columns), rules, source)
        shelf_faces.append(faces)
        values.append(row)
    name = data.get("name", Path(source).stem)
    if not isinstance(name, str):
        raise BoardError(f"{source}: name must be a string")
    return Board(name, tuple(columns), tuple(shelf_faces), tuple(values))


def board_to_dict(board: Board, rules: Ruleset) -> dict[str, Any]:
    """A board as the dictionary :func:`board_from_dict` reads (the TOML keys)."""
    return {"name": board.name, "columns": list(board.columns),
            "shelves": [{"faces": [rules.sides[f].name for f in faces], "values": list(values)}
                        for faces, values in zip(board.shelf_faces, board.values)]}


def _shelf_from(shelf: Any, number: int, n_columns: int, rules: Ruleset, source: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    where = f"{source}: shelf {number}"
    if not isinstance(shelf, dict):
        raise BoardError(f"{where}: expected a table with faces = [...] and values = [...]")
    unknown = sorted(str(k) for k in set(shelf) - _SHELF_KEYS)
    if unknown:
        raise BoardError(f"{where}: unknown key {unknown[0]!r}; a shelf has faces = [...], values = [...] "
                         f"and an optional name")
    faces = shelf.get("faces")
    if isinstance(faces, str):  # one face is still a list (docs/formats.md)
        import json  # the error path only: advise's start-up loads no json (tests/test_startup.py)

        quoted = json.dumps(faces, ensure_ascii=False)
        raise BoardError(f"{where}: faces must be a list of face names, e.g. faces = [{quoted}] "
                         f"(not faces = {quoted})")
    if not isinstance(faces, list) or not faces or not all(isinstance(f, str) for f in faces):
        raise BoardError(f"{where}: faces must be a list of face names, e.g. faces = [\"cat\"]")
    indices = []
    for word in faces:
        try:
            index = rules.face_index(word)
        except RulesError:
            names = ", ".join(f.name for f in rules.faces)
            raise BoardError(f"{where}: unknown face {word!r}; expected one of {names}") from None
        if index == rules.joker_index:
            raise BoardError(f"{where}: the Joker is not an item face; expected one of "
                             f"{', '.join(f.name for f in rules.faces)}")
        if index not in indices:
            indices.append(index)
    row = shelf.get("values")
    if not isinstance(row, list) or not all(_is_int(v) for v in row):
        raise BoardError(f"{where}: values must be a list of whole numbers, one per column")
    if len(row) != n_columns:
        raise BoardError(f"{where} has {len(row)} values but the board has {n_columns} columns; "
                         f"give one value per column")
    if any(not 0 <= v <= MAX_VALUE for v in row):
        raise BoardError(f"{where}: values must be whole numbers from 0 to {MAX_VALUE}")
    return tuple(sorted(indices)), tuple(row)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def load_board(path: str | Path | None = None, rules: Ruleset = DEFAULT_RULES) -> Board:
    """Load a board TOML file, or the embedded default board when ``path`` is None.

    Raises:
        BoardError: the file cannot be read, is not TOML, or does not describe a board.
    """
    if path is None:
        # read beside this module rather than through importlib.resources: same file, and
        # `advise` starts ~15 ms sooner without that import
        text = (Path(__file__).parent / "data" / "default_board.toml").read_text("utf-8")
        try:
            return board_from_dict(parse_toml(text, BoardError, "default board", "examples/boards/default.toml"), rules,
                                  source="default board")
        except BoardError as error:
            raise BoardError(f"{error}: the default board is made for the RULES.md faces; with this "
                             "ruleset pass --board FILE (e.g. examples/boards/five-dice.toml for "
                             "examples/rules/five-dice.toml)") from None
    return board_from_dict(load_toml(path, BoardError, "examples/boards/default.toml"), rules, source=str(path))


@lru_cache(maxsize=8192)
def _bit_arrays(n_cells: int, marked: int, eliminated: int) -> tuple[np.ndarray, np.ndarray]:
    """:meth:`Marks.bit_arrays`, cached per state (read-only arrays: states recur in a game)."""
    index = np.arange(n_cells, dtype=np.int64)
    done = (marked >> index) & 1
    available = 1 - (done | ((eliminated >> index) & 1))
    done.flags.writeable = False
    available.flags.writeable = False
    return done, available
