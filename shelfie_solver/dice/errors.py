"""The dice game's input errors (each a :class:`~shelfie_solver.core.errors.ShelfieError`: one line
saying how to fix the input)."""

from __future__ import annotations

from shelfie_solver.core.errors import ShelfieError


class RulesError(ShelfieError):
    """A ruleset file or value is malformed (unknown key, wrong type, impossible value)."""


class BoardError(ShelfieError):
    """A board file is malformed: wrong shape, unknown face, bad dice count or value."""


class MarksError(ShelfieError):
    """A board state (marks) is malformed or does not fit the board."""


class DiceError(ShelfieError):
    """Dice text names an unknown face or has the wrong number of dice."""


class ObjectiveError(ShelfieError):
    """An objective name is unknown or names an item that is not on the board."""


class TargetError(ShelfieError):
    """An odds target does not follow the target grammar."""
