"""A new kept game as ``play new`` starts it (docs/play.md), click-free, and as ``serve``'s
page does while its game file is missing (docs/serve.md, ``POST /api/new``): the same checks,
the same draw, the same messages.
"""

from __future__ import annotations

from collections.abc import Sequence

from shelfie_solver.dice.board import Board
from shelfie_solver.dice.play.gamefile import KeptGame, draw_first, new_kept_game
from shelfie_solver.dice.rules import Ruleset


def new_game(board: Board, rules: Ruleset, players: Sequence[str], first: str | None,
             seed: int | None) -> KeptGame:
    """The start of a new game, every sheet empty: ``players`` the names in seat order
    (clockwise, D5; checked by :func:`gamefile.new_kept_game`: 2 to 4 players, D1, or 1 for
    solitaire, each one word, all different), ``first`` the name of who plays first (case-insensitive) or ``None``
    to draw them at random (D5) from a generator made from ``seed`` (``None``: fresh entropy).
    Nothing is written: the caller makes the file (:func:`gamefile.create_file`).

    Raises:
        KeptGameError: bad names, or ``first`` is none of them (``play new``'s messages).
    """
    kept = new_kept_game(board, rules, players, 0)
    seat = kept.seat_of(first) if first is not None else draw_first(len(kept.players), seed)
    return new_kept_game(board, rules, players, seat)
