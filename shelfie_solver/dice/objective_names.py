"""The objectives by name, as typed after ``--objective``: the registry above every objective.

The base objectives live in :mod:`objectives`, the game-aware ``learned`` one in
:mod:`learned.objective` and the exact ``table:FILE`` one in :mod:`wholegame.values`; this
module maps a name to one of them (docs/objectives.md), loading the last two only when they are
named (start-up).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from shelfie_solver.core.errors import shorten
from shelfie_solver.dice.board import Board
from shelfie_solver.dice.errors import ObjectiveError
from shelfie_solver.dice.objectives import CellTarget, MarkCount, Objective, Points, Safe, Strategic

if TYPE_CHECKING:
    from shelfie_solver.dice.game.events import GameState

OBJECTIVE_NAMES = ("strategic", "learned", "learned:FILE", "points", "marks", "safe", "cell:rXcY", "table:FILE")


def is_learned(name: str) -> bool:
    """Whether an objective or strategy name is ``learned`` or ``learned:FILE`` (any case), the
    objective that sees the whole table when it is given one (:func:`learned.named_objective`)."""
    word = name.strip().lower()
    return word == "learned" or word.startswith("learned:")


def parse_objective(text: str, board: Board, state: GameState | None = None) -> Objective:
    """An objective from its name: ``strategic``, ``learned``, ``learned:FILE`` (parameters written by
    ``train``), ``points``, ``marks``, ``safe``, ``cell:r2c4`` or ``table:FILE`` (an exact solitaire
    value table, :class:`value_table.TableObjective`).

    ``state`` (a game in progress) is read by ``learned`` alone, which then sees the whole game
    (:func:`learned.state_objective`); without it ``learned`` is the no-context form. Every other
    objective looks at the active sheet only.

    Raises:
        ObjectiveError: unknown name or an item not on the board. ModelError: a bad parameter file.
    """
    word = text.strip().lower()
    simple: dict[str, Objective] = {"strategic": Strategic(), "points": Points(), "marks": MarkCount(),
                                    "safe": Safe()}
    if word in simple:
        return simple[word]
    if is_learned(word):  # learned:FILE = train's output
        from shelfie_solver.dice.learned.objective import named_objective  # its parameters load only when asked for

        return named_objective(text, board, state)
    if word.startswith("cell:"):
        try:
            return CellTarget(board.parse_cell(word[5:]))
        except ValueError as error:
            raise ObjectiveError(f"objective {shorten(text)}: {error}") from None
    if word.startswith("table:"):
        from shelfie_solver.dice.wholegame.values import table_objective

        return table_objective(text.strip()[6:], board)
    raise ObjectiveError(f"unknown objective {shorten(text)}; expected one of {', '.join(OBJECTIVE_NAMES)}")
