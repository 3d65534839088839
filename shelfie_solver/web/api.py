"""The JSON API of ``shelfie-solve serve`` (docs/serve.md), click-free and framework-free.

A :class:`GameServer` acts on one game file, the one ``play`` keeps, through the same core as
``play``: the typed-input actions of :mod:`dice.play.session` (the dice game's rules D6-D14, D13,
the unchecked marking D4/D9) applied by :func:`dice.play.gamefile.update_file` under the file's
lock and written whole (:mod:`core.files`), so the page and the terminal can take turns on one
game. Every answer is a JSON-ready ``dict``:

* :meth:`GameServer.state`: the revision, the layout, every sheet (``play status --format json``)
  and the advice of the step (``play advise --format json``), unchanged, so the page shows the
  same exact numbers as the CLI;
* :meth:`GameServer.write`: one action (roll, reroll, stop, mark, told, fail, undo). Every write names
  the revision it was made on — the number of events in the game file — and, optionally, the
  file's digest; a write made on another revision is refused (:class:`StaleWrite`, HTTP 409) and
  changes nothing, so two phones on one game never apply an action twice or on a state they did
  not see (the digest also tells apart two files with the same number of events after an undo);
* :meth:`GameServer.review`: every player's running difference to the best, as ``review``
  counts it (:func:`dice.review.review`).

Bad input raises :class:`core.errors.ShelfieError` (or :class:`BadRequest`) with the one-line
message the CLI would print; :mod:`web.app` turns it into HTTP 400.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from shelfie_solver.core.errors import ShelfieError
from shelfie_solver.core.inputs import check_keys
from shelfie_solver.dice.advise.report import value_words
from shelfie_solver.dice.board import line_points
from shelfie_solver.dice.game.events import Block, Event, Fail, Hold, Mark, Roll, Stop, UncheckedMark
from shelfie_solver.dice.play.gamefile import (
    PLAY_OBJECTIVE,
    KeptGame,
    KeptGameError,
    act,
    digest_of,
    objective_for,
    read_kept_game,
    revision_matches,
    split_actions,
    undo,
    update_file,
)
from shelfie_solver.dice.play.reading import PAGE
from shelfie_solver.dice.play.report import action_report, best_mark_note, describe, status_report, undone_line
from shelfie_solver.dice.rolls import dice_codes
from shelfie_solver.dice.play.session import (
    check_player,
    fail_action,
    mark_action,
    reroll_action,
    roll_action,
    stop_action,
    told_action,
    undo_count,
)

#: The page's refusal of every write but Undo once the game is over (D18), in its own words: its
#: Undo button, not the command line's ``play undo GAME`` (:data:`actions.GAME_OVER`).
PAGE_GAME_OVER = PAGE.over

if TYPE_CHECKING:  # the review (the engine's DP) is imported only when asked
    from shelfie_solver.dice.review import ReviewPoint

#: The keys of every write's body (docs/serve.md, "Writes"): the revision it was made on, the
#: file's digest, whose turn it is (``play --player``).
WRITE_KEYS = ("revision", "digest", "player")

#: Each write's own keys, by the last part of its path (``POST /api/<kind>``, docs/serve.md,
#: "Writes"); with :data:`WRITE_KEYS` the only keys of its body: any other is refused
#: (:func:`core.inputs.check_keys`), as the tile page's are, since a typo such as ``"plyer"`` or
#: ``"digst"`` would otherwise turn off the check it names.
WRITE_FIELDS: dict[str, tuple[str, ...]] = {
    "roll": ("dice",), "reroll": ("keep", "new"), "stop": (), "mark": ("items", "best"), "told": ("items",),
    "fail": ("shelf",), "undo": ("count",)}

#: The write actions, by the last part of their path (``POST /api/<kind>``).
WRITES = tuple(WRITE_FIELDS)

#: Longest text field of a request (dice, a keep, an item name, a player's name).
MAX_FIELD_CHARS = 200

#: Where each seat's running review stood after its last few reviews (:meth:`GameServer.review`
#: goes on from the longest one the game passed through: after an undo, an earlier one).
REVIEW_POINTS = 8

#: Most items one request names (a marking has at most 3, D9; more is a typo or an attack).
MAX_ITEMS = 32


class BadRequest(ShelfieError):
    """A request whose JSON is not of the documented form (a missing or mistyped field)."""


class StaleWrite(ShelfieError):
    """A write made on a revision the game file no longer has (HTTP 409): another page or the
    terminal acted first. ``revision`` and ``digest`` are the file's now."""

    def __init__(self, message: str, revision: int, digest: str) -> None:
        super().__init__(message)
        self.revision = revision
        self.digest = digest


def encode_answer(data: dict[str, Any]) -> bytes:
    """An answer as the bytes sent: compact JSON with every non-ASCII character escaped
    (``\\uXXXX``), so any answer can be sent, a lone surrogate in a hand-edited player name
    (``\\udcff`` from a non-UTF-8 byte on the command line) included.

    Raises:
        ValueError, TypeError: ``data`` holds a NaN or infinite float, or a value JSON cannot hold
            (a bug: checked by :meth:`GameServer.write` before the file is written).
    """
    import json

    return json.dumps(data, ensure_ascii=True, allow_nan=False, separators=(",", ":")).encode("ascii")


def value_unit(objective: str, opponents: bool) -> dict[str, str | bool]:
    """What an advice ``value`` is in a player's words, as ``advise`` and ``play`` word it
    (:func:`advise.report.value_words`): ``label`` (the table's value header), ``words`` (what
    the value is), ``percent`` (present and true for the chance to win, D20) and ``note`` (the
    footer)."""
    unit = value_words(objective, opponents)
    return {"label": unit.header, "words": unit.words, **({"percent": True} if unit.chance else {}),
            "note": " ".join(unit.notes)}


def layout(kept: KeptGame) -> dict[str, Any]:
    """The board and dice as the page draws them: per shelf its faces and values, per column the
    dice a mark needs (D3), the dice's sides (codes and names, D2), the re-rolls (D7) and the
    most items a turn marks (D9)."""
    board, rules = kept.board, kept.rules
    return {
        "board": board.name,
        "shelves": [{"number": s + 1, "label": board.shelf_label(s, rules),
                     "faces": [rules.sides[f].code for f in board.shelf_faces[s]],
                     "values": list(board.values[s]),
                     "cells": [board.cell_name(board.cell(s, c)) for c in range(board.n_columns)]}
                    for s in range(board.n_shelves)],
        "columns": list(board.columns),
        "sides": [{"code": f.code, "name": f.name} for f in rules.sides],
        "dice": rules.dice,
        "rerolls": rules.rerolls,
        "combinations_per_turn": rules.combinations_per_turn,
        "players": list(kept.players),
    }


def blocked_lines(kept: KeptGame) -> list[list[dict[str, str]]]:
    """Per seat, the lines blocked on that sheet (D15): ``{"line": "shelf 1", "by": "Ann"}``."""
    out: list[list[dict[str, str]]] = [[] for _ in kept.players]
    for event in kept.events:
        if isinstance(event, Block):
            out[event.player].append({"line": kept.board.line_name(event.line), "by": kept.players[event.by]})
    return out


def sheet_lines(kept: KeptGame) -> list[dict[str, list[int]]]:
    """Per seat, the points of each shelf and each column now (D19), as the sheet grids of
    ``play status`` show them at the end of each row and under each column."""
    board, t = kept.board, kept.rules.scoring_threshold
    return [{"shelves": [line_points(board, marks, board.lines[s], t) for s in range(board.n_shelves)],
             "columns": [line_points(board, marks, board.lines[board.n_shelves + c], t)
                         for c in range(board.n_columns)]}
            for marks in kept.sheets]


def last_action(kept: KeptGame) -> dict[str, Any] | None:
    """The last action (what ``POST /api/undo`` with ``count`` 1 takes back), ``None`` before
    the first: ``player`` (name), ``kind`` (the write that made it: roll, reroll, stop, mark,
    told, fail), ``words`` (the page's Undo label, the action and then who: ``"marking r2c3 + r3c3 by
    Ann"``, read alike for any name, ``me`` too) and
    ``redo``, the body fields (no revision) of the write that makes it again after an undo
    (``POST /api/<kind>``, checked against the revision as every write)."""
    actions = list(split_actions(kept.events))
    if not actions:
        return None
    board, rules = kept.board, kept.rules
    action = actions[-1][1]
    first = action[0]
    name = kept.players[getattr(first, "player", 0)]
    cells = [board.cell_name(c) for c in getattr(first, "cells", ())]
    redo: dict[str, Any]
    if isinstance(first, Hold) and len(action) == 2 and isinstance(action[1], Roll):
        held = dice_codes(first.keep, rules)
        fresh = tuple(n - k for n, k in zip(action[1].dice, first.keep))
        kind, what, redo = "reroll", f"re-roll ({'kept ' + held if held else 'all dice'})", \
            {"keep": held or "-", "new": dice_codes(fresh, rules)}
    elif isinstance(first, Roll):
        codes = dice_codes(first.dice, rules)
        kind, what, redo = "roll", f"roll {codes}", {"dice": codes}
    elif isinstance(first, Stop):
        kind, what, redo = "stop", "stop", {}
    elif isinstance(first, Mark):
        kind, what, redo = "mark", f"marking {' + '.join(cells)}", {"items": cells}
    elif isinstance(first, UncheckedMark):
        kind, what, redo = "told", f"told marking {' + '.join(cells)}", {"items": cells}
    elif isinstance(first, Fail):
        kind, what, redo = "fail", f"shelf {first.shelf + 1} given up", {"shelf": str(first.shelf + 1)}
    else:  # every input event is one of the above (gamefile.INPUT_EVENTS)
        return None
    words = f"{what} by {name}"  # never "{name}'s": "me's roll" for the README's player `me`
    return {"player": name, "kind": kind, "words": words, "redo": redo}


def advice_json(kept: KeptGame, objective: str, done: list[str] | None = None) -> dict[str, Any]:
    """What ``play STEP GAME --format json`` prints after a step (``done``: what it did), or
    ``play advise GAME --format json`` (``done`` empty): the advice of the current step with the
    game's warnings, or the final table. The JSON lists every choice whatever the table shows:
    the text table is built for one row only (``top`` 1), which the page never reads."""
    return action_report(kept, objective, list(done or []), 1).data


def shown_figures(advice: dict[str, Any], percent: bool) -> dict[str, list[dict[str, str | None]]]:
    """Every figure the page shows of ``advice`` (the JSON of ``play``, :func:`advice_json`) as
    the terminal's tables print it, from the exact ``p/q`` values by the tables' own functions
    (the page never rounds a float: a chance on a .x5 boundary, or a float a hair below one, would
    read 0.1 apart), one list per list of the advice, in its order:

    * ``holds[i]``: ``value`` (the chance to win, :func:`advise.words.chance_cell`: ``58.4%``,
      ``100%``, ``<0.1%``; else the value as the table's value column, :func:`core.report.decimal`),
      ``points`` (this turn, the table's ``points``: ``0.40``) and ``short``, how far it falls
      short of the best as the two figures shown read (:func:`core.report.shown_loss_cell`: the
      difference of the rounded figures, in percentage points at one decimal for a chance,
      ``58.4%`` and ``58.1%``: ``0.3``; ``<0.1`` where they print alike but differ, ``0`` for an
      exact tie; else at two decimals from the values' four);
    * ``markings[i]``: ``value`` and ``short``;
    * ``shelves[i]`` (a failed result, D13): ``value`` (``None`` where the table has none) and
      ``potential_change`` (the table's column, two decimals).

    ``percent``: the advice's ``value`` is the chance to win (:func:`value_unit`) where a record
    has no ``win_chance`` of its own."""
    from fractions import Fraction

    from shelfie_solver.core.report import VALUE_PLACES, decimal, shown_loss_cell
    from shelfie_solver.dice.advise.words import CHANCE_PLACES, chance_cell

    def value(record: dict[str, Any]) -> tuple[Fraction, bool] | None:
        if "win_chance" in record:
            return Fraction(record["win_chance"]), True
        if "value" in record:
            return Fraction(record["value"]), percent
        return None

    def cell(found: tuple[Fraction, bool] | None) -> str | None:
        if found is None:
            return None
        return chance_cell(found[0]) if found[1] else decimal(found[0], VALUE_PLACES)

    def short(found: tuple[Fraction, bool] | None, best: tuple[Fraction, bool] | None) -> str | None:
        if found is None or best is None:  # the difference of the two figures as shown (58.4 - 58.1: 0.3)
            return None
        if found[1]:
            return shown_loss_cell(best[0] * 100, found[0] * 100, CHANCE_PLACES, CHANCE_PLACES)
        return shown_loss_cell(best[0], found[0], VALUE_PLACES, 2)

    out: dict[str, list[dict[str, str | None]]] = {}
    for name in ("holds", "markings"):
        records = advice.get(name) or []
        best = value(records[0]) if records else None
        out[name] = [{"value": cell(value(r)), "short": short(value(r), best),
                      **({"points": decimal(Fraction(r["points"]), 2)} if name == "holds" else {})}
                     for r in records]
    out["shelves"] = [{"value": cell(value(r) if "win_chance" in r else None),
                       "potential_change": decimal(Fraction(r["potential_change"]), 2)}
                      for r in advice.get("shelves") or []]
    return out


def _text(body: dict[str, Any], key: str, default: str | None = None) -> str:
    value = body.get(key, default)
    if value is None:
        raise BadRequest(f"missing field {key!r}; expected a JSON object like {_EXAMPLES.get(key, '{}')}")
    if not isinstance(value, str) or len(value) > MAX_FIELD_CHARS:
        raise BadRequest(f"field {key!r} must be text of at most {MAX_FIELD_CHARS} characters")
    return value


def _items(body: dict[str, Any]) -> list[str]:
    items = body.get("items")
    if not isinstance(items, list) or not items or len(items) > MAX_ITEMS \
            or not all(isinstance(i, str) and len(i) <= MAX_FIELD_CHARS for i in items):
        raise BadRequest('field "items" must be a list of 1 to 32 item names, e.g. {"items": ["r1c3", "r2c2"]}')
    return items


_EXAMPLES = {"dice": '{"revision": 1, "dice": "CCBJPP"}', "new": '{"revision": 2, "keep": "CC", "new": "PGBB"}',
             "shelf": '{"revision": 3, "shelf": "2"}', "best": '{"revision": 2, "best": true}',
             "items": '{"revision": 2, "items": ["r1c3", "r2c2"]}'}


def _shelf(body: dict[str, Any]) -> str:
    """The ``shelf`` of a failed result as text: text as given, a whole number as its digits;
    absent or another JSON type (``true``, a list) refused naming the form and what to tap."""
    shelf = body.get("shelf")
    if isinstance(shelf, int) and not isinstance(shelf, bool):
        return str(shelf)
    if isinstance(shelf, str):
        return _text(body, "shelf")
    import json

    dumped = json.dumps(shelf)
    given = "missing" if "shelf" not in body else f"{dumped if len(dumped) <= 20 else dumped[:20] + '…'}, not a shelf"
    raise BadRequest(f'field "shelf" is {given}; expected the number of the shelf given up (D13), as text or a '
                     f'whole number, e.g. {_EXAMPLES["shelf"]}; on the page: give up a shelf by {PAGE.fail}')


def _best(body: dict[str, Any]) -> bool:
    """Whether a marking's body asks for the advice's best marking (``"best": true``, as ``play
    mark --best``); ``false`` or absent: the ``items`` named.

    Raises:
        BadRequest: ``best`` not a boolean, or ``true`` with ``items`` too (``play mark --best``
            takes no items): neither is silently dropped.
    """
    best = body.get("best", False)
    if not isinstance(best, bool):
        raise BadRequest('field "best" must be true (the advice\'s best marking, as play mark --best) or absent, '
                         f'e.g. {_EXAMPLES["best"]}')
    if best and "items" in body:
        raise BadRequest(f'"best": true takes no "items" (as play mark --best takes none); send '
                         f'{_EXAMPLES["best"]} for the best marking, or {_EXAMPLES["items"]} for those items')
    return best


def _revision(body: dict[str, Any]) -> int:
    value = body.get("revision")
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise BadRequest('every write carries "revision": the number of events of the state it was made on '
                         '(GET /api/state gives it), a whole number >= 0')
    return value


@dataclass
class GameServer:
    """The API over one game file.

    Attributes:
        path: the game file (``play new``); the only file read or written.
        objective: the objective of the advice (:func:`gamefile.objective_for`).
    """

    path: str
    objective: str = PLAY_OBJECTIVE
    _reviews: dict[tuple[int, str, tuple[Event, ...]], tuple[str | None, dict[str, Any]]] = field(
        default_factory=dict, repr=False)
    _points: dict[tuple[int, str], list[ReviewPoint]] = field(default_factory=dict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def check(self) -> KeptGame:
        """Read the game file and check the objective (before serving).

        Raises:
            ShelfieError: a bad file or objective (one line, as ``play``).
        """
        kept = read_kept_game(self.path)
        objective_for(self.objective, kept.state)
        return kept

    def revision(self) -> dict[str, Any]:
        """The revision only (cheap: what a page polls to see another page's action)."""
        kept = read_kept_game(self.path)
        return {"revision": len(kept.events), "digest": digest_of(kept)}

    def state(self, kept: KeptGame | None = None, done: list[str] | None = None) -> dict[str, Any]:
        """Everything the page shows (docs/serve.md, ``GET /api/state``)."""
        kept = kept if kept is not None else read_kept_game(self.path)
        advice = advice_json(kept, self.objective, done)
        unit = value_unit(self._advice_objective(kept, advice), len(kept.players) > 1)
        if advice.get("own_table"):  # learned alone on a board of its own table (as play and simulate say)
            unit["note"] = f"{unit['note']} {advice['own_table']}".strip()
        return {
            "revision": len(kept.events),
            "digest": digest_of(kept),
            "actions": kept.actions,
            "last_action": last_action(kept),
            "objective": self.objective,
            "unit": unit,
            "layout": layout(kept),
            "blocked": blocked_lines(kept),
            "lines": sheet_lines(kept),
            "done": list(done or []),
            "status": status_report(kept).data,
            "advice": advice,
            "shown": shown_figures(advice, bool(unit.get("percent"))),
        }

    def _advice_objective(self, kept: KeptGame, advice: dict[str, Any]) -> str:
        """The objective whose figures the state shows, for their unit's words: the advice's (a
        two-player table's name where it stood for ``win``), or before the roll, with no advice
        yet, the table that stands for the objective there (:func:`dice.review.table_standing_in`:
        the sheets' chances are then the exact table's, never the fitted model's), else the
        objective asked."""
        named = advice.get("objective")
        if named is not None:
            return str(named)
        if kept.over is None and len(kept.players) > 1:
            from shelfie_solver.dice.review import table_standing_in

            return table_standing_in(self.objective, objective_for(self.objective, kept.state)) or self.objective
        return self.objective

    def stop_advice(self) -> dict[str, Any]:
        """The markings of the dice showing, as if no re-roll were left (a preview: the file is
        unchanged; ``POST /api/stop`` records the stop, D7, as ``play stop GAME`` does).

        Raises:
            KeptGameError: no dice showing.
        """
        kept = read_kept_game(self.path)
        if kept.dice is None:
            raise BadRequest(f"{kept.active_name} has not rolled yet; enter the roll first")
        advice = advice_json(replace(kept, rerolls_left=0), self.objective)
        unit = value_unit(str(advice.get("objective", self.objective)), len(kept.players) > 1)
        return {"revision": len(kept.events), "digest": digest_of(kept), "advice": advice, "unit": unit,
                "shown": shown_figures(advice, bool(unit.get("percent")))}

    def write(self, kind: str, body: dict[str, Any]) -> dict[str, Any]:
        """Apply one action (``kind`` in :data:`WRITES`) made on ``body["revision"]``; return the
        new :meth:`state` with ``done``, the lines of what it did (``advice`` is then what the
        CLI step prints with ``--format json``).

        Raises:
            StaleWrite: the file is not at that revision (or digest): nothing is written.
            BadRequest, ShelfieError: bad input (a key not of that write's, :data:`WRITE_FIELDS`,
                included); the file stays byte for byte as it was.
        """
        if kind not in WRITES:
            raise BadRequest(f"no such action {kind!r}; expected one of {', '.join(WRITES)}")
        check_keys(body, WRITE_KEYS + WRITE_FIELDS[kind], BadRequest, f"the body of POST /api/{kind}",
                   "docs/serve.md")
        revision = _revision(body)
        digest = body.get("digest")
        if digest is not None and not isinstance(digest, str):
            raise BadRequest('"digest" must be the text GET /api/state gives, or absent')
        player = body.get("player")
        if player is not None and (not isinstance(player, str) or len(player) > MAX_FIELD_CHARS):
            raise BadRequest('"player" must be a player\'s name, or absent')
        step = self._step(kind, body)
        best = kind == "mark" and body.get("best") is True  # with re-rolls left: play mark --best's note
        answers: list[dict[str, Any]] = []

        def change(kept: KeptGame) -> KeptGame:
            now = len(kept.events)
            if not revision_matches(kept, revision, digest):
                raise StaleWrite(f"the game changed since your page loaded it (revision {now}, the page had "
                                 f"{revision}): nothing was applied; reload the state and try again",
                                 now, digest_of(kept))
            if kind != "undo" and kept.over is not None:
                raise KeptGameError(PAGE_GAME_OVER)
            check_player(kept, player)
            after = step(kept)
            if after.actions >= kept.actions:
                done = describe(kept, after, PAGE.unstop, best_mark_note(kept, self.objective) if best else ())
            else:
                done = [undone_line(kept, kept.actions - after.actions)]
            answer = self.state(after, done)
            encode_answer(answer)  # the whole answer is made (and sendable) before the file is written
            answers.append(answer)
            return after

        update_file(self.path, change)
        return answers[0]

    def _step(self, kind: str, body: dict[str, Any]) -> Callable[[KeptGame], KeptGame]:
        """The change of one action, its fields checked before the file is locked."""
        objective = self.objective
        if kind == "roll":
            dice = _text(body, "dice")
            return lambda t: act(t, roll_action(t, dice, PAGE))
        if kind == "reroll":
            keep, new = _text(body, "keep", ""), _text(body, "new")
            return lambda t: act(t, reroll_action(t, keep, new, PAGE))
        if kind == "mark":
            if _best(body):
                return lambda t: act(t, mark_action(t, ["best"], objective, PAGE))
            items = _items(body)
            return lambda t: act(t, mark_action(t, items, objective, PAGE))
        if kind == "stop":
            return lambda t: act(t, stop_action(t))
        if kind == "told":
            told = _items(body)
            return lambda t: act(t, told_action(t, told, PAGE))
        if kind == "fail":
            text = _shelf(body)
            return lambda t: act(t, fail_action(t, text, objective, PAGE))
        count = body.get("count", 1)
        if not isinstance(count, int) or isinstance(count, bool):
            raise BadRequest('"count" must be a whole number >= 1 (the actions to take back), or absent for 1; '
                             f"on the page: {PAGE.undo}")
        taken = undo_count(str(count), PAGE)  # 0 or less: refused in the page's words
        return lambda t: undo(t, taken)

    def review(self) -> dict[str, Any]:
        """Every player's running difference to the best so far, as ``review --objective
        OBJECTIVE`` counts it (:func:`dice.review.review`), each player's entry the review
        report's :func:`dice.review_report.progress_summary`: the decisions reviewed, the total
        and mean loss (exact ``p/q`` and float), the turns not reviewed (unchecked). The objective
        is named as ``review`` names it and its unit worded as the advice's (:func:`value_unit`):
        where the exact two-player table stood for it, ``win (exact two-player optimum)`` and the
        table's words (:func:`dice.review.table_standing_in`: any player's review, else the
        position now), not the fitted model's.

        A player's review depends only on the events up to that player's last action, so it is
        kept per (seat, those events) and only the players who acted since are reviewed again;
        and those not from the game's start: from where their last review stood
        (:func:`dice.review.review_from`, the last :data:`REVIEW_POINTS` points per seat, so an
        undo goes on from an earlier one), only the actions since are reviewed."""
        from shelfie_solver.dice.review import (  # the engine's DP: only when asked
            objective_named,
            review_from,
            table_standing_in,
        )
        from shelfie_solver.dice.review_report import progress_summary

        kept = read_kept_game(self.path)
        actions = list(split_actions(kept.events))
        players, tables = [], []
        for seat in range(len(kept.players)):
            ends = [i + len(a) for i, a in actions if getattr(a[0], "player", None) == seat]
            key = (seat, self.objective, kept.events[:ends[-1]] if ends else kept.events[:1])
            with self._lock:
                entry = self._reviews.get(key)
            if entry is None:
                with self._lock:
                    points = list(self._points.get((seat, self.objective), ()))
                reviewed, point = review_from(kept, seat, self.objective, points)
                entry = (reviewed.table, progress_summary(reviewed))
                with self._lock:
                    if len(self._reviews) > 256:
                        self._reviews.clear()
                    self._reviews[key] = entry
                    kept_points = self._points.setdefault((seat, self.objective), [])
                    kept_points.append(point)
                    del kept_points[:-REVIEW_POINTS]
            tables.append(entry[0])
            players.append(entry[1])
        table = next((t for t in tables if t is not None), None) \
            or table_standing_in(self.objective, objective_for(self.objective, kept.state))
        return {"revision": len(kept.events), "digest": digest_of(kept),
                "objective": objective_named(self.objective, table),
                "unit": value_unit(table or self.objective, len(kept.players) > 1), "players": players}
