"""A new game from the page of ``shelfie-solve serve`` (docs/serve.md, ``POST /api/new``).

When the game file named on the command line does not exist yet, ``serve`` starts anyway and
the page shows a "New game" screen. :class:`NewGame` makes the game with ``play new``'s own
click-free function, :func:`dice.play.newgame.new_game`: the same checks and messages (2 to 4
players, D1, or 1 for solitaire; names one word each, all different), who plays first by name or drawn at random
(D5, from the server's ``--seed``), on the server's board and rules; then
:func:`gamefile.create_file`, which never overwrites a file. No path comes from the client: the
file is the server's one game file.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from shelfie_solver.core.errors import ShelfieError
from shelfie_solver.core.inputs import check_keys
from shelfie_solver.dice.board import Board, load_board
from shelfie_solver.dice.game.events import MAX_PLAYERS, PLAYER_COUNTS
from shelfie_solver.dice.play.gamefile import (
    KeptGame,
    KeptGameError,
    create_file,
    new_kept_game,
    objective_for,
)
from shelfie_solver.dice.play.newgame import new_game
from shelfie_solver.dice.rules import DEFAULT_RULES, Ruleset

#: The keys of ``POST /api/new``'s body (docs/serve.md); any other is refused
#: (:func:`core.inputs.check_keys`): a typo such as ``"frist"`` would otherwise draw who plays first.
NEW_KEYS = ("players", "first")

#: Longest player name accepted from a request (``new_kept_game`` checks the form).
MAX_NAME_CHARS = 200


class GameExists(ShelfieError):
    """``POST /api/new`` on a file that exists already (HTTP 409): nothing is overwritten."""


@dataclass(frozen=True)
class NewGame:
    """How the page creates the one game file.

    Attributes:
        path: the game file (the command line's ``GAME``); the only file written.
        rules, board: the game's ruleset and board (``serve --rules/--board``; default the
            standard game, docs/rules.md).
        seed: the seed of the draw of the first player (``serve --seed``); ``None``: fresh entropy,
            as ``play new`` without ``--seed``.
    """

    path: str
    rules: Ruleset = DEFAULT_RULES
    board: Board = field(default_factory=lambda: load_board(None, DEFAULT_RULES))
    seed: int | None = None

    def exists(self) -> bool:
        """Whether the game file exists (then no new game is made)."""
        return os.path.lexists(self.path)

    def check(self, objective: str) -> None:
        """Before serving a missing file: its folder exists and the objective is known.

        Raises:
            KeptGameError: no such folder. ObjectiveError: an unknown objective.
        """
        folder = os.path.dirname(os.path.abspath(self.path))
        if not os.path.isdir(folder):
            raise KeptGameError(f"cannot create {self.path}: the folder {folder} does not exist; expected a game "
                                "file (play new GAME) or a new file name in an existing folder")
        objective_for(objective, new_kept_game(self.board, self.rules, ["A", "B"], 0).state)

    def info(self) -> dict[str, Any]:
        """What the New game screen shows (``GET /api/new``): whether the file exists, its name
        (not its folder), the board, the rules and the most players (D1)."""
        return {"exists": self.exists(), "file": os.path.basename(self.path), "board": self.board.name,
                "rules": self.rules.name, "max_players": MAX_PLAYERS}

    def create(self, body: dict[str, Any]) -> tuple[KeptGame, list[str]]:
        """Create the game file from ``body``: ``{"players": ["Ann", "Ben"], "first": "Ben"}``
        (``players`` also as ``"Ann,Ben"``, as ``play new --players``; ``first`` absent or
        ``null``: drawn at random, D5). Returns the new game and the line saying what was done.

        Raises:
            GameExists: the file exists already (nothing written).
            KeptGameError: a key other than ``players`` and ``first`` (:data:`NEW_KEYS`); bad names or first player, with ``play new``'s message; the file
                cannot be written.
        """
        check_keys(body, NEW_KEYS, KeptGameError, "the body of POST /api/new", "docs/serve.md")
        players = body.get("players")
        if isinstance(players, str) and len(players) <= MAX_PLAYERS * (MAX_NAME_CHARS + 1):
            players = players.split(",")
        if not isinstance(players, list) or len(players) > 4 * MAX_PLAYERS \
                or not all(isinstance(p, str) and len(p) <= MAX_NAME_CHARS for p in players):
            raise KeptGameError('"players" must be the names in seat order, e.g. {"players": ["Ann", "Ben"]} '
                                f"({PLAYER_COUNTS})")
        first = body.get("first")
        if first is not None and (not isinstance(first, str) or len(first) > MAX_NAME_CHARS):
            raise KeptGameError('"first" must be a player\'s name, or absent/null to draw who plays first (D5)')
        if self.exists():
            raise self._exists()
        kept = new_game(self.board, self.rules, players, first, self.seed)
        try:
            create_file(self.path, kept)
        except KeptGameError:
            if self.exists():  # made meanwhile (another page, `play new`): never replaced
                raise self._exists() from None
            raise
        how = "chosen" if first is not None else "drawn at random"
        return kept, [f"New game in {os.path.basename(self.path)}: {', '.join(kept.players)}; "
                       f"{kept.players[kept.state.first]} plays first ({how}, D5)."]

    def _exists(self) -> GameExists:
        return GameExists(f"{os.path.basename(self.path)} exists already: a game is under way or finished and "
                          "is never overwritten; reload the page (a new game needs serve with a new file name)")
