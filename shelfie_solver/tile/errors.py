"""The tile game's input error (a :class:`~shelfie_solver.core.errors.ShelfieError`)."""

from __future__ import annotations

from shelfie_solver.core.errors import ShelfieError


class TileError(ShelfieError):
    """Tile-game input is malformed: a layout, personal card, shelf, position or move that breaks
    TILE-RULES.md (T2, T3, T4, T10-T14, T20)."""
