"""Saved games: replaying a recorded game through the rules (:func:`replay`), events and games
to and from JSON (``"shelfie-solve game 1"``, one game per line in JSON Lines; docs/formats.md),
and reading and writing saved-games files with their size limits.

A saved game is replayed exactly: the recorded dice and decisions are played through the turn
loop again and every derived event — blocks, the end trigger, the scores — must come out the
same.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import fields
from functools import cache
from typing import Any

from shelfie_solver.dice.board import Board, board_from_dict, board_to_dict, parse_marks
from shelfie_solver.dice.rolls import dice_codes, parse_dice
from shelfie_solver.core.errors import ShelfieError
from shelfie_solver.core.files import FileWriteError, json_kind, replace_checked
from shelfie_solver.core.inputs import (ConstantError, DuplicateKeyError, check_json_text, decode, json_refusal,
                                        open_regular, parse_json, strict_loads)
from shelfie_solver.dice.game.dice_sources import ScriptedDice
from shelfie_solver.dice.game.events import (
    EVENT_TYPES,
    GAME_FORMAT,
    Event,
    Fail,
    Game,
    GameError,
    GameOver,
    Hold,
    Mark,
    Roll,
    Start,
    Stop,
)
from shelfie_solver.dice.game.turn import ScriptedStrategy, play_game
from shelfie_solver.dice.rules import Ruleset, rules_from_dict, rules_to_dict


def replay(game: Game) -> Game:
    """Play a recorded game again from its dice and decisions and check that every event,
    derived ones included (blocks, the end trigger, scores, winners), comes out the same.

    Returns:
        The replayed game (equal to ``game`` when the record is consistent).

    Raises:
        GameError: the record is illegal or does not reproduce itself.
    """
    if not game.events or not isinstance(game.events[0], Start):
        raise GameError("saved game: the first event must be 'start'")
    start = game.events[0]
    if start.players != len(game.players):
        raise GameError(f"saved game: {len(game.players)} player names but {start.players} players")
    try:
        sheets = [parse_marks(text, game.board) for text in start.sheets]
    except ShelfieError as error:
        raise GameError(f"saved game: bad starting sheet: {error}") from None
    _check_stops(game.events)
    rolls = [e.dice for e in game.events if isinstance(e, Roll)]
    scripts = [ScriptedStrategy(name, (e for e in game.events if isinstance(e, (Hold, Stop, Mark, Fail))
                                       and e.player == seat)) for seat, name in enumerate(game.players)]
    try:
        again = play_game(game.board, game.rules, scripts, ScriptedDice(start.first, rolls), sheets=sheets)
    except ShelfieError as error:
        raise GameError(f"saved game does not replay: {error}") from None
    # the turn loop records no Stop (a strategy keeping every die just marks): compare without them
    recorded = [(i, e) for i, e in enumerate(game.events) if not isinstance(e, Stop)]
    for (i, old), new in zip(recorded, again.events):
        if old != new:
            raise GameError(f"saved game does not replay: event {i} is {old!r} but the rules give {new!r}")
    if len(recorded) != len(again.events):
        raise GameError(f"saved game does not replay: {len(recorded)} events recorded (besides stops), "
                        f"the rules give {len(again.events)}")
    return Game(game.board, game.rules, game.players, game.events, again.sheets)


def _check_stops(events: tuple[Event, ...]) -> None:
    """Every :class:`Stop` directly follows its player's :class:`Roll` with re-rolls left and
    is directly followed by that player's :class:`Mark` or :class:`Fail` (D7: stopping ends the
    roll phase).

    Raises:
        GameError: a stop elsewhere (naming the event).
    """
    for i, event in enumerate(events):
        if isinstance(event, Stop):
            before, after = events[i - 1] if i else None, events[i + 1] if i + 1 < len(events) else None
            if not (isinstance(before, Roll) and before.player == event.player and before.rerolls_left > 0
                    and isinstance(after, (Mark, Fail)) and after.player == event.player):
                raise GameError(f"saved game does not replay: event {i} is a stop of seat {event.player} but a stop "
                                "follows that player's roll with re-rolls left and precedes their marking or "
                                "failed result (D7)")


# --- JSON -----------------------------------------------------------------------------------


def event_to_dict(event: Event, board: Board, rules: Ruleset) -> dict[str, Any]:
    """An event as a JSON object: ``{"event": kind, ...fields}``; dice as one-letter codes
    (``"PPBCCJ"``), cells as item names (``"r2c4"``), seats and lines 0-based."""
    out: dict[str, Any] = {"event": event.kind}
    for f in fields(event):
        value = getattr(event, f.name)
        if f.name in ("dice", "keep"):
            value = dice_codes(value, rules)
        elif f.name == "cells":
            value = [board.cell_name(c) for c in value]
        elif isinstance(value, tuple):
            value = list(value)
        out[f.name] = value
    return out


def event_from_dict(data: dict[str, Any], board: Board, rules: Ruleset) -> Event:
    """Inverse of :func:`event_to_dict`.

    Raises:
        GameError: unknown event kind, missing or extra fields, or bad values.
    """
    if not isinstance(data, dict) or data.get("event") not in EVENT_TYPES:
        raise GameError(f"saved game: bad event {_shown(data)}; expected an object with \"event\" one of "
                        f"{', '.join(EVENT_TYPES)}")
    cls = EVENT_TYPES[data["event"]]
    names = [f.name for f in fields(cls)]
    types = {f.name: f.type for f in fields(cls)}
    if set(data) - {"event"} != set(names):
        raise GameError(f"saved game: event {data['event']!r} needs the fields {', '.join(names)}, got {_shown(data)}")
    kwargs: dict[str, Any] = {}
    try:
        for name in names:
            value = data[name]
            if name in ("dice", "keep"):
                if not isinstance(value, str):
                    raise GameError(f"{name} must be dice text such as \"CCBJPP\", got {_shown(value)}")
                value = parse_dice(value, rules, count=rules.dice if name == "dice" else -1)
            elif name == "cells":
                _check_texts(value, name, "item names such as \"r1c3\"")
                value = tuple(board.parse_cell(c) for c in value)
            elif name == "sheets" and cls is Start:
                _check_texts(value, name, "sheets such as \"...../...../...../...../.....\"")
                value = tuple(value)
            elif str(types[name]).startswith("tuple"):  # a list field: a list of whole numbers
                if not isinstance(value, list):
                    raise GameError(f"{name} must be a list of whole numbers, got {_shown(value)}")
                value = tuple(_whole(v) for v in value)
            else:
                value = _whole(value)
            kwargs[name] = value
    except (ShelfieError, TypeError, AttributeError) as error:
        raise GameError(f"saved game: bad {data['event']!r} event {_shown(data)}: {error}") from None
    event: Event = cls(**kwargs)
    return event


def _shown(data: Any) -> str:
    """An event as quoted in an error message, cut to 120 characters (a hand-edited event may
    hold a list of 100,000 items)."""
    text = repr(data)
    return text if len(text) <= 120 else text[:120] + "…"


def _check_texts(value: Any, name: str, expected: str) -> None:
    """A list field of text (``cells``, ``sheets``) is a list of JSON strings.

    Raises:
        GameError: it is not, naming the field and what is expected.
    """
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise GameError(f"{name} must be a list of {expected}, got {_shown(value)}")


def _whole(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise GameError(f"saved game: expected a whole number, got {value!r}")
    return value




def game_to_dict(record: Game, /, **extra: Any) -> dict[str, Any]:
    """A game as a JSON-ready object: ``format``, any ``extra`` keys (e.g. ``game`` index and
    ``seed``; ignored when loading), ``players``, ``rules``, ``board``, ``events``."""
    return {"format": GAME_FORMAT, **extra, "players": list(record.players),
            "rules": rules_to_dict(record.rules), "board": board_to_dict(record.board, record.rules),
            "events": [event_to_dict(e, record.board, record.rules) for e in record.events]}


def game_to_json(record: Game, /, **extra: Any) -> str:
    """One game as one line of JSON (no newline inside, for JSON Lines)."""
    return json.dumps(game_to_dict(record, **extra), separators=(",", ":"))


def game_from_dict(data: dict[str, Any]) -> Game:
    """Read a game saved by :func:`game_to_dict` and replay it (:func:`replay`), so the result
    is checked against the rules.

    Raises:
        GameError: not a saved game, bad rules/board/events, or it does not replay.
    """
    rules, board, players, events = saved_game_parts(data)
    if not events or not isinstance(events[-1], GameOver):
        raise GameError("saved game: the last event must be 'over'")
    return replay(Game(board, rules, players, events, ()))


def saved_game_parts(data: Any) -> tuple[Ruleset, Board, tuple[str, ...], tuple[Event, ...]]:
    """The rules, board, player names and events of a saved game's JSON object, each event
    read (:func:`event_from_dict`) but not yet checked against the rules (no replay).

    Raises:
        GameError: not a saved game, or bad rules, board or events (naming the first bad event).
    """
    if not isinstance(data, dict) or data.get("format") != GAME_FORMAT:
        raise GameError(f"not a saved game: expected a JSON object with \"format\": \"{GAME_FORMAT}\"")
    try:
        rules = cached_rules(json.dumps(data["rules"], sort_keys=True))
        board = cached_board(json.dumps(data["board"], sort_keys=True), rules)
        names = data["players"]
        if not isinstance(names, list) or not all(isinstance(p, str) for p in names):
            raise GameError("saved game: \"players\" must be a list of names (JSON strings), got "
                            f"{json.dumps(names)[:60]}")
        players = tuple(names)
        if not isinstance(data["events"], list):
            raise GameError(f"saved game: \"events\" must be a list of events, got {_shown(data['events'])}")
        events = []
        for i, item in enumerate(data["events"]):
            try:
                events.append(event_from_dict(item, board, rules))
            except GameError as error:
                raise GameError(f"event {i}: {error}") from None
    except KeyError as error:
        raise GameError(f"saved game: missing key {error}; expected format, players, rules, board, events") from None
    except TypeError as error:
        raise GameError(f"saved game: malformed ({error})") from None
    return rules, board, players, tuple(events)


@cache
def cached_rules(text: str) -> Ruleset:
    """The ruleset of a saved file's ``rules`` object, given as its JSON text with sorted keys
    (:func:`rules.rules_from_dict`), read once per distinct text (the games of one file share it).

    Raises:
        GameError: the rules are invalid (the :class:`RulesError` message).
    """
    try:
        return rules_from_dict(strict_loads(text), source="saved game rules")
    except ShelfieError as error:
        raise GameError(str(error)) from None


@cache
def cached_board(text: str, rules: Ruleset) -> Board:
    """The board of a saved file's ``board`` object under ``rules``, given as its JSON text with
    sorted keys (:func:`board.board_from_dict`), read once per distinct text and ruleset.

    Raises:
        GameError: the board is invalid (the :class:`BoardError` message).
    """
    try:
        return board_from_dict(strict_loads(text), rules, source="saved game board")
    except ShelfieError as error:
        raise GameError(str(error)) from None


def game_from_json(line: str) -> Game:
    """Read one game from a line of JSON (:func:`game_from_dict`), parsed by the one strict parser
    (:func:`inputs.parse_json`: nesting and number size bounded, a key given twice refused).

    Raises:
        GameError: not JSON, nested too deep, a number too long, a key given twice, or not a
            valid game.
    """
    return game_from_dict(parse_json(line, GameError, "saved game", "one saved game per line"))


#: Largest saved-games file read (read line by line, so memory stays small; docs/formats.md).
MAX_GAMES_FILE_BYTES = 1 << 30
#: Largest single game: one JSON line, or a whole file holding one (pretty-printed) game.
MAX_GAME_BYTES = 1 << 20


def load_games(path: str) -> Iterator[Game]:
    """Every game of a JSON Lines file (or of a file holding one JSON game), each replayed and
    checked (:func:`game_from_dict`), read by :func:`game_texts` (bounded, line by line).

    Raises:
        GameError: the file cannot be read, is empty, or a game is malformed or does not replay.
    """
    for number, text in game_texts(path):
        try:
            yield game_from_json(text) if number else game_from_dict(strict_loads(text))
        except GameError as error:
            raise GameError(f"{path} line {number}: {error}" if number else str(error)) from None


#: What a saved-games file is, in the messages that refuse a path.
GAMES_FILE = "a saved-games file (JSON Lines, simulate --save)"


def game_texts(path: str, expected: str = GAMES_FILE) -> Iterator[tuple[int, str]]:
    """The JSON text of every game of a saved-games file, as ``(line number, text)``; a file
    holding one pretty-printed game gives ``(0, whole text)``, already checked to be one bounded
    JSON object. Only a regular file is read (at most :data:`MAX_GAMES_FILE_BYTES`, each game at
    most :data:`MAX_GAME_BYTES`), line by line, so memory stays small; a leading byte-order mark
    is ignored (:mod:`inputs`). ``expected``: what the messages say the file should be.

    Raises:
        GameError: the file cannot be read, is empty, a line is too long or not UTF-8.
    """
    with open_regular(path, GameError, MAX_GAMES_FILE_BYTES, expected) as handle:
        number = games = 0
        try:
            head = handle.read(MAX_GAME_BYTES + 1)
            if len(head) <= MAX_GAME_BYTES and head.lstrip().startswith(b"{"):
                text = decode(head, GameError, path, expected)
                if "\n" in text.strip():  # perhaps one pretty-printed game
                    whole = _whole_json(text)
                    if isinstance(whole, dict):
                        yield 0, text.removeprefix("\ufeff")
                        return
            handle.seek(0)
            while line := handle.readline(MAX_GAME_BYTES + 2):
                number += 1
                if len(line.rstrip(b"\r\n")) > MAX_GAME_BYTES:
                    raise GameError(f"longer than {MAX_GAME_BYTES:,} bytes; expected one game per line")
                text = decode(line, GameError, "this line", expected)
                if text.strip():
                    games += 1
                    yield number, text
        except OSError as error:
            raise GameError(f"cannot read {path}: {error.strerror or error}") from None
        except GameError as error:
            raise GameError(f"{path} line {number}: {error}" if number else str(error)) from None
    if not games:
        raise GameError(f"{path} holds no game (it is empty); expected {expected}")


#: Games saved by ``simulate --save`` (JSON Lines, each line's ``"format"`` then ``"game"``), as
#: recognised before the file is replaced (:func:`files.check_overwrite`); a saved game of
#: ``play`` (no ``"game"`` key) is not one.
SAVED_GAMES_KIND = json_kind("games saved by simulate --save", GAME_FORMAT, "game")


def _whole_json(text: str) -> Any:
    """``text`` parsed as one JSON value, or ``None`` when it is not one (bounded first).

    Raises:
        GameError: one JSON value that gives a key twice, or holds NaN or Infinity.
    """
    try:
        check_json_text(text, GameError, "saved game")
        return strict_loads(text)
    except (DuplicateKeyError, ConstantError) as error:
        raise GameError(json_refusal(error, "saved game", "one saved game")) from None
    except ValueError:  # GameError and JSONDecodeError are ValueErrors
        return None


def save_games(path: str, lines: Iterable[str], force: bool = False) -> None:
    """Write JSON lines to ``path`` whole or not at all (:func:`files.replace_checked`: a temp
    file in the same directory, then ``os.replace``; a symbolic link is followed), never over a
    file that is not games saved so (:data:`SAVED_GAMES_KIND`: a game kept by ``play`` included)
    unless ``force``.

    Raises:
        GameError: the file cannot be written (an empty path, not a regular file, another kind
            of file, or an operating-system error); the old file, if any, is untouched.
    """
    text = "".join(f"{line}\n" for line in lines)
    try:
        replace_checked({path: (text.encode("utf-8"), SAVED_GAMES_KIND)}, force)
    except FileWriteError as error:
        raise GameError(str(error)) from None
