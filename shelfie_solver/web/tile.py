"""The tile game's page of ``serve`` (``/tile``, docs/serve.md "The tile page"): stateless JSON
endpoints over a position sent whole by the page, in the keys of a ``tile advise`` position file
(:func:`tile.position.position_from_dict`, docs/tile.md). No file is read or written.

* :meth:`TilePage.info`: what the page needs to draw: tile types, the usable living-room cells
  per player count (T3), the personal cards (T20) and common goals (T-CG1-12) by name;
* :meth:`TilePage.advise`: ``{"position": {...}}`` -> ``{"advice": ...}``, exactly the JSON of
  ``tile advise POSITION --format json`` (:func:`tile.advice_json.advise`, its defaults);
* :meth:`TilePage.apply`: ``{"position": {...}, "move": "r5c2+r5c1@4"}`` -> the position after
  the move (:func:`tile.state.apply_move`: T14, T15, T18, T23, T24), the next seat to move. A
  refill (T16) is drawn at the table, not here: the answer says so and the page asks for the new
  board. The bag is left out of positions the page keeps: every tile not in sight is in it (T2);
* with a position file (``serve GAME --tile FILE.json``) :meth:`TilePage.read_file` and
  :meth:`TilePage.write_file`: the file read and written whole (JSON, ``core/files.py``), each
  write checked against the revision (the SHA-256 of the bytes) the page read, as the dice page's
  writes are, under the file's lock (:func:`files.locked`); only a position ``tile advise``
  accepts is written.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from typing import Any

from shelfie_solver.core.errors import ShelfieError, shorten
from shelfie_solver.core.files import link_leaves_folder, locked, write_text_atomically
from shelfie_solver.core.inputs import MAX_FILE_BYTES, check_keys, decode, open_regular
from shelfie_solver.tile.advice_json import advise, parse_move
from shelfie_solver.tile.errors import TileError
from shelfie_solver.tile.position import Position, parse_position_json, position_from_dict, position_to_dict
from shelfie_solver.tile.rules import (COLUMNS, PLAYERS, ROWS, SIDE, TYPE_NAMES, TYPES, Layout, PersonalCard,
                                       TileRuleset, default_cards, default_layout, default_ruleset, shelf_cell_name)
from shelfie_solver.tile.shelf import COMMON_GOALS, goal_text
from shelfie_solver.tile.state import TOKENS, EndToken, GoalScored, apply_move, board_cell_name, final_scores, needs_refill

#: The most characters of a move text (three cells and a column: ``r1c1+r1c2+r1c3@5``).
MAX_MOVE_CHARS = 40

#: The keys of each request body (docs/serve.md, "The tile API"); any other is refused, as a
#: position file's unknown key is (a typo such as ``"revison"`` would otherwise be ignored).
BODY_KEYS = {"advise": ("position",), "apply": ("position", "move"), "file": ("position", "revision")}


def check_body_keys(body: dict[str, Any], route: str) -> None:
    """Refuse a key of ``body`` that the request ``route`` (a key of :data:`BODY_KEYS`) does not
    have (:func:`core.inputs.check_keys`, the check of every body of ``serve``).

    Raises:
        TileError: one line naming the first unknown key and the keys expected.
    """
    check_keys(body, BODY_KEYS[route], TileError, f"the body of POST /api/tile/{route}", "docs/serve.md")


class StaleTile(TileError):
    """A write made on another revision of the position file than the file's (HTTP 409)."""

    def __init__(self, message: str, revision: str) -> None:
        super().__init__(message)
        self.revision = revision


@dataclass(frozen=True)
class TilePage:
    """The tile page's API over one ruleset, layout and card set (default: the shipped ones).

    Attributes:
        file: the position file kept for the page (``serve --tile FILE``, JSON), or ``None``: the
            position then lives only in the page's URL.
    """

    rules: TileRuleset = field(default_factory=default_ruleset)
    layout: Layout = field(default_factory=default_layout)
    cards: tuple[PersonalCard, ...] = field(default_factory=default_cards)
    file: str | None = None

    def info(self) -> dict[str, Any]:
        """Types (letter, name), the usable cells per player count (9 strings of 9, ``1``
        usable, T3), the goal tokens per player count (T7), the shelf size (T4), the cards with
        what they ask for (T20), the common goals by id and name (T-CG1-12)."""
        usable = {str(n): ["".join("1" if self.layout.usable(n)[r * SIDE + c] else "0" for c in range(SIDE))
                           for r in range(SIDE)] for n in PLAYERS}
        return {"types": [{"letter": letter, "name": name} for letter, name in zip(TYPES, TYPE_NAMES)],
                "side": SIDE, "rows": ROWS, "columns": COLUMNS, "players": list(PLAYERS), "usable": usable,
                "tokens": {str(n): list(TOKENS[n]) for n in PLAYERS},
                "layout": self.layout.name, "common_goals": self.rules.common_goals,
                "cards": [{"name": c.name, "words": c.words(),
                           "asks": {TYPES[t]: shelf_cell_name(cell) for t, cell in enumerate(c.cells)}}
                          for c in self.cards],
                "goals": [{"id": g, "name": COMMON_GOALS[g][0], "text": goal_text(g)} for g in COMMON_GOALS],
                "file": None if self.file is None else os.path.basename(self.file)}

    def position(self, body: dict[str, Any]) -> Position:
        """``body["position"]`` read and checked as a position file is (docs/tile.md).

        Raises:
            TileError: missing, not an object, or a position the rules refuse (one line).
        """
        raw = body.get("position")
        if not isinstance(raw, dict):
            raise TileError('expected {"position": {...}}: an object with the keys of a tile advise position '
                            "file (players, turn, goals, personal, board, shelf; docs/tile.md)")
        try:
            return position_from_dict(raw, self.rules, self.layout, self.cards)
        except ShelfieError:
            raise
        except (TypeError, ValueError, KeyError, AttributeError, IndexError) as bad:
            raise TileError(f"position: a value of the wrong kind ({shorten(str(bad))}); expected the keys and "
                            "values of a tile advise position file (docs/tile.md)") from None

    def advise(self, body: dict[str, Any]) -> dict[str, Any]:
        """``{"advice": the JSON of tile advise --format json}`` for ``body["position"]``.

        Raises:
            TileError: a key other than ``position`` (:data:`BODY_KEYS`), or a bad position.
        """
        check_body_keys(body, "advise")
        position = self.position(body)
        _, data = advise(position.setup, position.state)
        return {"advice": data}

    def apply(self, body: dict[str, Any]) -> dict[str, Any]:
        """The position after ``body["move"]`` (``r5c2+r5c1@4``), checked legal (T10-T14).

        Returns:
            ``position`` (the keys of a position file, no ``bag``), ``done`` (one line),
            ``refill`` (T16: the board needs the tiles drawn at the table), ``over`` and, once
            over, ``scores`` per seat (T25; opponents' unknown cards count 0).
        Raises:
            TileError: a key other than ``position`` and ``move``, a bad position or move text, or an
                illegal move.
        """
        check_body_keys(body, "apply")
        position = self.position(body)
        text = body.get("move")
        if not isinstance(text, str) or len(text) > MAX_MOVE_CHARS:
            raise TileError('expected "move": board cells joined by "+", "@" and a shelf column, e.g. r5c2+r5c1@4')
        move = parse_move(text, "move")
        setup, state = position.setup, position.state
        after, events = apply_move(setup, state, move)
        data = position_to_dict(setup, after)
        del data["bag"]
        data["personal"] = ""  # the next seat's card is theirs (T8): the page asks for it
        types = "".join(TYPES[t] for t in move.types(state.board))
        done = [f"Seat {state.turn + 1} took {' '.join(board_cell_name(c) for c in move.cells)} into column "
                f"{move.column + 1} (bottom to top {types})."]
        done += [f"Seat {e.player + 1} scores {goal_text(e.goal)}: {e.points} points (T18)."
                 for e in events if isinstance(e, GoalScored)]
        done += [f"Seat {e.player + 1} takes the end-game token (T23)." for e in events if isinstance(e, EndToken)]
        refill = not after.over and needs_refill(after.board)
        if refill:
            done.append("The board needs a refill (T16): enter the tiles drawn at the table.")
        answer: dict[str, Any] = {"position": data, "done": done, "refill": refill, "over": after.over}
        if after.over:
            answer["scores"] = list(final_scores(setup, after))
        return answer

    def _bytes(self) -> bytes | None:
        """The position file's bytes (bounded, regular file), ``None`` while it does not exist.

        Raises:
            TileError: not a regular file, too large, or a symbolic link that dangles or leads
                outside its folder (a write refuses it too; neither its target's bytes nor its
                digest are read, and the target is not named).
        """
        assert self.file is not None
        if not os.path.lexists(self.file):
            return None
        if link_leaves_folder(self.file):
            raise TileError(f"{os.path.basename(self.file)} is a symbolic link that dangles or leads outside its "
                            "folder; expected the --tile position file itself (docs/serve.md)")
        with open_regular(self.file, TileError, MAX_FILE_BYTES, "a tile position file in JSON (docs/tile.md)") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
        if len(data) > MAX_FILE_BYTES:
            raise TileError(f"{self.file} is larger than {MAX_FILE_BYTES:,} bytes; expected a tile position file")
        return data

    def check_file(self) -> None:
        """Refuse a ``--tile`` file that is not ``.json``, not a position, or a new file in a folder
        that does not exist (before serving: every write would be refused).

        Raises:
            TileError: one line naming the problem.
        """
        if self.file is None:
            return
        if not self.file.lower().endswith(".json"):
            raise TileError(f"--tile {shorten(self.file)}: the page writes the position as JSON; expected a file "
                            "name ending in .json (tile advise reads it too)")
        folder = os.path.dirname(os.path.abspath(self.file))
        if not os.path.lexists(self.file) and not os.path.isdir(folder):
            raise TileError(f"--tile {shorten(self.file)}: the folder {folder} does not exist; expected a "
                            "position file, or a new file name in an existing folder (made on the first Advise)")
        self.read_file()

    def read_file(self) -> dict[str, Any]:
        """``{"file", "exists", "revision", "position"}``: the file's position (``None`` while
        missing) and its revision, the SHA-256 of its bytes (``""`` while missing).

        Raises:
            TileError: no file served (``serve --tile``), or the file is not a position.
        """
        if self.file is None:
            raise TileError("this server keeps no tile position file; start it with serve GAME --tile FILE.json")
        data = self._bytes()
        if data is None:
            return {"file": os.path.basename(self.file), "exists": False, "revision": "", "position": None}
        return {"file": os.path.basename(self.file), "exists": True, "revision": hashlib.sha256(data).hexdigest(),
                "position": self._position_of(data)}

    def _position_of(self, data: bytes) -> dict[str, Any]:
        """The position file's ``data`` read as ``tile advise`` reads it (not as a body).

        Raises:
            TileError: not a position (one line naming the file).
        """
        assert self.file is not None
        text = decode(data, TileError, self.file, "a tile position file in JSON (docs/tile.md)")
        raw = parse_position_json(text, self.file)
        try:
            self.position({"position": raw})
        except TileError as bad:  # the file named: at start (serve --tile) and on the page
            raise TileError(f"{self.file}: {bad}") from None
        return raw

    def write_file(self, body: dict[str, Any]) -> dict[str, Any]:
        """Write ``body["position"]`` (checked as ``tile advise`` checks it) to the file whole, if
        the file is still at ``body["revision"]`` (the revision :meth:`read_file` gave, ``""``
        for a file not made yet); the new :meth:`read_file`.

        Raises:
            StaleTile: the file changed since (nothing written), its ``revision`` the new one's;
                TileError: bad input (a key other than ``position`` and ``revision`` included), or
                the file changed into one that is not a position (no digest of it is given).
        """
        if self.file is None:
            raise TileError("this server keeps no tile position file; start it with serve GAME --tile FILE.json")
        check_body_keys(body, "file")
        revision = body.get("revision")
        if not isinstance(revision, str) or len(revision) > 64:
            raise TileError('expected "revision": the text GET /api/tile/file gives ("" for a file not made yet)')
        raw = body.get("position")
        self.position(body)
        text = json.dumps(raw, indent=2) + "\n"
        self._bytes()  # a link out of the folder refused before the lock, whose refusal names its target
        with locked(self.file, TileError):  # other threads and other processes (a second serve)
            data = self._bytes()
            now = "" if data is None else hashlib.sha256(data).hexdigest()
            if now != revision:
                if data is not None:  # a revision only of a position: never the digest of another file,
                    self._position_of(data)  # e.g. one a symbolic link put there (TileError, 400)
                raise StaleTile(f"{os.path.basename(self.file)} changed since this page read it: nothing was written; "
                                "the page reloads it", now)
            write_text_atomically(self.file, text)
        return self.read_file()
