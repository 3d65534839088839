"""The tile game's data: tile types (T2), the living-room layout (T3), personal goal cards (T20),
the ruleset's assumption flags, and shelves typed as text (T4).

Layouts, cards and rulesets are TOML files; the package ships our own (``tile/data``), never the
publisher's. Every loader checks the rule it stands for and raises :class:`TileError` (one line).
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from shelfie_solver.core.errors import shorten
from shelfie_solver.tile.errors import TileError
from shelfie_solver.core.inputs import MAX_FILE_BYTES, load_toml, read_text, text_or_file

#: T2: the six tile types, as letters (index = type id 0..5) and names.
TYPES = "CBGFTP"
TYPE_NAMES = ("cat", "book", "game", "frame", "trophy", "plant")
#: T2: tiles of each type.
TILES_PER_TYPE = 22
#: T4: shelf shape.
ROWS, COLUMNS = 6, 5
CELLS = ROWS * COLUMNS
#: The empty shelf / board cell.
EMPTY = -1
#: T3: the living room is 9 x 9; usable cells per player count.
SIDE = 9
LAYOUT_COUNTS = {2: 29, 3: 37, 4: 45}
#: T21: personal-goal points for 0..6 matches.
PERSONAL_POINTS = (0, 1, 2, 4, 6, 9, 12)
#: T1.
PLAYERS = (2, 3, 4)

Shelf = tuple[int, ...]
"""A shelf: 30 type ids (or :data:`EMPTY`), index ``r * 5 + c``, row 0 on top (T4)."""

REFILL_METHODS = ("all", "empty")
SQUARES_READINGS = ("groups", "loose")


@dataclass(frozen=True)
class TileRuleset:
    """The assumption flags of TILE-RULES.md.

    Attributes:
        name: a label. refill: ``"all"`` (T16, rulebook) or ``"empty"`` (keep isolated tiles,
        fill empty cells). squares: T-CG1 reading, ``"groups"`` (pottibot) or ``"loose"``.
        squares_same_type: T-CG1's Italian reading. common_goals: cards per game (T7: 2, or 1).
    """

    name: str = "My Shelfie tile game (TILE-RULES.md)"
    refill: str = "all"
    squares: str = "groups"
    squares_same_type: bool = False
    common_goals: int = 2

    def to_dict(self) -> dict[str, Any]:
        """The ruleset as the TOML/JSON keys it is read from."""
        return {"name": self.name, "refill": self.refill, "squares": self.squares,
                "squares_same_type": self.squares_same_type, "common_goals": self.common_goals}


def ruleset_from_dict(data: dict[str, Any], source: str = "ruleset") -> TileRuleset:
    """A :class:`TileRuleset` from its keys (all optional).

    Raises:
        TileError: an unknown key or a bad value.
    """
    allowed = set(TileRuleset().to_dict())
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise TileError(f"{source}: unknown key {unknown[0]!r}; expected {', '.join(sorted(allowed))}")
    rules = TileRuleset(**data)
    if rules.refill not in REFILL_METHODS:
        raise TileError(f"{source}: refill must be one of {', '.join(REFILL_METHODS)}, got {rules.refill!r}")
    if rules.squares not in SQUARES_READINGS:
        raise TileError(f"{source}: squares must be one of {', '.join(SQUARES_READINGS)}, got {rules.squares!r}")
    if not isinstance(rules.squares_same_type, bool):
        raise TileError(f"{source}: squares_same_type must be true or false")
    if rules.common_goals not in (1, 2) or isinstance(rules.common_goals, bool):
        raise TileError(f"{source}: common_goals must be 1 or 2 (T7), got {rules.common_goals!r}")
    if not isinstance(rules.name, str):
        raise TileError(f"{source}: name must be a string")
    return rules


@dataclass(frozen=True)
class Layout:
    """The living-room board (T3): ``grid[r * 9 + c]`` is 0 (unusable) or the least player count
    from which the cell is used (2, 3 or 4)."""

    name: str
    grid: tuple[int, ...]

    def usable(self, players: int) -> tuple[bool, ...]:
        """Per board cell (81), whether it is used with ``players`` players."""
        return tuple(0 < g <= players for g in self.grid)

    def to_dict(self) -> dict[str, Any]:
        """The layout as its TOML keys."""
        return {"name": self.name, "grid": ["".join("-" if g == 0 else str(g) for g in self.grid[r * SIDE:(r + 1) * SIDE])
                                            for r in range(SIDE)]}


def layout_from_dict(data: dict[str, Any], source: str = "layout") -> Layout:
    """A :class:`Layout` from ``{"name": ..., "grid": [9 strings of 9 of '-', '2', '3', '4']}``.

    Raises:
        TileError: wrong shape, an unknown character, or cell counts other than 29 / 8 / 8 (T3).
    """
    grid = data.get("grid")
    expected = "grid = 9 strings of 9 characters '-', '2', '3' or '4'"
    if not isinstance(grid, list) or len(grid) != SIDE or not all(isinstance(r, str) and len(r) == SIDE for r in grid):
        raise TileError(f"{source}: bad layout shape; expected {expected}")
    text = "".join(grid)
    bad = set(text) - set("-234")
    if bad:
        raise TileError(f"{source}: unknown layout character {sorted(bad)[0]!r}; expected {expected}")
    cells = tuple(0 if ch == "-" else int(ch) for ch in text)
    for players, total in LAYOUT_COUNTS.items():
        got = sum(1 for g in cells if 0 < g <= players)
        if got != total:
            raise TileError(f"{source}: {got} cells usable with {players} players; T3 needs 29 / 37 / 45 "
                            f"(29 '2', 8 '3', 8 '4')")
    return Layout(str(data.get("name", source)), cells)


@dataclass(frozen=True)
class PersonalCard:
    """A personal goal card (T20): ``cells[t]`` is the shelf cell (index ``r * 5 + c``) that asks
    for type ``t`` (:data:`TYPES` order)."""

    name: str
    cells: tuple[int, ...]

    def matches(self, shelf: Shelf) -> int:
        """T21: how many of the card's cells hold the named type."""
        return sum(1 for t, cell in enumerate(self.cells) if shelf[cell] == t)

    def points(self, shelf: Shelf) -> int:
        """T21: the card's points on ``shelf``."""
        return PERSONAL_POINTS[self.matches(shelf)]

    def to_dict(self) -> dict[str, Any]:
        """The card as its TOML keys (cells ``r<row>c<column>``, 1-based)."""
        return {"name": self.name, **{TYPES[t]: shelf_cell_name(cell) for t, cell in enumerate(self.cells)}}

    def words(self) -> str:
        """What the card asks for, in words: ``cat r1c4, book r3c1, ...`` (shelf cells
        ``r<row>c<column>``, row 1 at the top, column 1 on the left)."""
        return ", ".join(f"{TYPE_NAMES[t]} {shelf_cell_name(cell)}" for t, cell in enumerate(self.cells))


def shelf_cell_name(cell: int) -> str:
    """A shelf cell (index ``r * 5 + c``) as ``r<row>c<column>``, 1-based: row 1 at the top
    (1-6), column 1 on the left (1-5), as board cells and the dice game's items are named."""
    return f"r{cell // COLUMNS + 1}c{cell % COLUMNS + 1}"


def _card_cell(where: Any) -> int | None:
    """A card's cell: ``"r1c4"`` (1-based), or the older ``[row, column]`` counted from 0 (still
    read, so saved games replay: a list is always 0-based, a string always 1-based)."""
    if isinstance(where, str):
        match = re.fullmatch(r"[rR](\d)[cC](\d)", where.strip())
        if match and 1 <= int(match[1]) <= ROWS and 1 <= int(match[2]) <= COLUMNS:
            return (int(match[1]) - 1) * COLUMNS + int(match[2]) - 1
        return None
    if (isinstance(where, list) and len(where) == 2 and all(type(x) is int for x in where)
            and 0 <= where[0] < ROWS and 0 <= where[1] < COLUMNS):
        return int(where[0]) * COLUMNS + int(where[1])
    return None


def card_from_dict(data: dict[str, Any], source: str = "card") -> PersonalCard:
    """A :class:`PersonalCard` from ``{"name": ..., "C": "r1c4", ..., "P": "r6c5"}`` (shelf cells,
    1-based; the older ``[row, column]`` from 0 is read too: :func:`_card_cell`).

    Raises:
        TileError: a type missing or unknown, a cell out of range, or two types on one cell (T20).
    """
    if not isinstance(data, dict):
        raise TileError(f"{source}: expected a table name = ..., C = [r, c], ..., P = [r, c]")
    name = str(data.get("name", source))
    unknown = sorted(set(data) - set(TYPES) - {"name"})
    if unknown:
        raise TileError(f"personal card {name!r}: unknown key {unknown[0]!r}; expected one of name, {', '.join(TYPES)}")
    cells = []
    for t in TYPES:
        cell = _card_cell(data.get(t))
        if cell is None:
            raise TileError(f"personal card {name!r}: {t} needs a shelf cell \"r<row>c<column>\", row 1-6 from the top "
                            "and column 1-5 from the left, e.g. \"r1c4\" (T20)")
        cells.append(cell)
    if len(set(cells)) != len(cells):
        raise TileError(f"personal card {name!r}: two types share a cell; T20 needs 6 distinct cells")
    return PersonalCard(name, tuple(cells))


def cards_from_dict(data: dict[str, Any], source: str = "cards") -> tuple[PersonalCard, ...]:
    """The 12 personal cards of a ``[[card]]`` TOML file.

    Raises:
        TileError: not 12 cards, a bad card, or two equal cards (T20).
    """
    raw = data.get("card")
    if not isinstance(raw, list) or len(raw) != 12:
        raise TileError(f"{source}: expected 12 [[card]] tables (T20), got {len(raw) if isinstance(raw, list) else 0}")
    cards = tuple(card_from_dict(item, f"{source} card {i + 1}") for i, item in enumerate(raw))
    if len({c.cells for c in cards}) != len(cards):
        raise TileError(f"{source}: two personal cards are equal; T20 needs 12 distinct cards")
    if len({c.name for c in cards}) != len(cards):
        raise TileError(f"{source}: two personal cards share a name")
    return cards


def _data(name: str) -> dict[str, Any]:
    return tomllib.loads(resources.files("shelfie_solver.tile.data").joinpath(name).read_text(encoding="utf-8"))


@cache
def default_layout() -> Layout:
    """Our own layout (``tile/data/layout.toml``)."""
    return layout_from_dict(_data("layout.toml"), "layout.toml")


@cache
def default_cards() -> tuple[PersonalCard, ...]:
    """Our own 12 personal cards (``tile/data/personal.toml``)."""
    return cards_from_dict(_data("personal.toml"), "personal.toml")


@cache
def default_ruleset() -> TileRuleset:
    """The default flags (``tile/data/ruleset.toml``)."""
    return ruleset_from_dict(_data("ruleset.toml"), "ruleset.toml")


def load_layout(path: str | Path | None) -> Layout:
    """A layout file, or ours when ``path`` is None (raises :class:`TileError`)."""
    if path is None:
        return default_layout()
    return layout_from_dict(load_toml(path, TileError, "shelfie_solver/tile/data/layout.toml"), str(path))


def load_cards(path: str | Path | None) -> tuple[PersonalCard, ...]:
    """A personal-cards file, or ours when ``path`` is None (raises :class:`TileError`)."""
    if path is None:
        return default_cards()
    return cards_from_dict(load_toml(path, TileError, "shelfie_solver/tile/data/personal.toml"), str(path))


def load_ruleset(path: str | Path | None) -> TileRuleset:
    """A tile ruleset file, or the defaults when ``path`` is None (raises :class:`TileError`)."""
    if path is None:
        return default_ruleset()
    return ruleset_from_dict(load_toml(path, TileError, "shelfie_solver/tile/data/ruleset.toml"), str(path))


def read_shelf(text: str) -> Shelf:
    """A shelf given as text or as a file holding it, told apart by the one rule of
    docs/formats.md: text made only of tile letters, ``.``, ``/`` and white space is always
    shelf text; otherwise an existing path is read as a regular file of at most 100,000 bytes
    (:func:`inputs.read_text`: a FIFO, device or directory is refused, never read); anything else
    is parsed as text, so its first bad character is reported.

    Raises:
        TileError: the file cannot be read, or the shelf is bad (:func:`parse_shelf`).
    """
    if text_or_file(text, set(TYPES + TYPES.lower() + "./ \t\r\n")) == "text":
        return parse_shelf(text.removeprefix("\ufeff"))  # a leading byte-order mark is ignored (docs/formats.md)
    if _exists(text):
        return parse_shelf(read_text(text, TileError, MAX_FILE_BYTES, "a shelf file: 6 lines of 5 characters"))
    try:
        return parse_shelf(text)
    except TileError as error:  # neither: say both, as the marks rule does
        raise TileError(f"{error} (and no file {shorten(text)} exists)") from None


def _exists(path: str) -> bool:
    try:
        return os.path.lexists(path)
    except (OSError, ValueError):  # a name too long, an embedded NUL byte
        return False


def parse_shelf(text: str) -> Shelf:
    """A shelf typed as 6 lines of 5 characters (top row first; letters :data:`TYPES`, ``.`` empty),
    lines separated by newlines or ``/``.

    Raises:
        TileError: wrong shape, an unknown letter, a floating tile (T4) or more than 22 tiles of a
            type (T2).
    """
    rows = [line.strip() for line in text.replace("/", "\n").splitlines() if line.strip()]
    expected = "6 lines of 5 characters from CBGFTP or '.', top row first (e.g. ...../...../...../...../...../CBGFT)"
    if len(rows) != ROWS or any(len(r) != COLUMNS for r in rows):
        raise TileError(f"bad shelf {shorten(text)}: expected {expected}")
    cells = []
    for ch in "".join(rows).upper():
        if ch == ".":
            cells.append(EMPTY)
        elif ch in TYPES:
            cells.append(TYPES.index(ch))
        else:
            raise TileError(f"bad shelf: unknown letter {ch!r}; expected {expected}")
    shelf = tuple(cells)
    check_shelf(shelf)
    return shelf


def check_shelf(shelf: Shelf, label: str = "shelf") -> None:
    """Raise :class:`TileError` when ``shelf`` has a tile above an empty cell (T4) or more than 22
    tiles of one type (T2)."""
    for cell in range(COLUMNS, CELLS):
        if shelf[cell] == EMPTY and shelf[cell - COLUMNS] != EMPTY:
            raise TileError(f"{label}: floating tile at {shelf_cell_name(cell - COLUMNS)} above an empty cell "
                            f"(T4: tiles fill a column from the bottom)")
    for t in range(len(TYPES)):
        if shelf.count(t) > TILES_PER_TYPE:
            raise TileError(f"{label}: {shelf.count(t)} {TYPE_NAMES[t]} tiles; T2 has only {TILES_PER_TYPE}")


def shelf_text(shelf: Shelf, sep: str = "\n") -> str:
    """A shelf as 6 lines of 5 characters (the inverse of :func:`parse_shelf`)."""
    chars = "".join("." if x == EMPTY else TYPES[x] for x in shelf)
    return sep.join(chars[r * COLUMNS:(r + 1) * COLUMNS] for r in range(ROWS))
