"""Position files for ``shelfie-solve tile advise``: a game in progress typed as TOML or JSON
(docs/tile.md; example: examples/tile/position.toml).

Keys (JSON: the same names)::

    players = 2              # T1 (default: the number of [[shelf]] tables)
    first = 1                # the first player's seat, 1-based (T9; default 1)
    turn = 1                 # the active seat, 1-based (default 1)
    goals = [3, "four corners"]  # the common goal cards, by T-CG id or name (T7)
    personal = "4"           # the active player's personal card, by name (T20, our cards)
    end_token = 0            # the seat holding the end-game token, 0 = nobody (T23)
    board = ["----CB---", ...]   # 9 lines of 9: a tile letter, '.' no tile, '-' unusable
    bag = { C = 10, B = 12 }     # optional: tiles per type still in the bag (T2)
    [[shelf]]                    # one per seat, in seat order
    rows = [".....", ..., "CCB.."]   # 6 lines of 5, top row first (or one '/'-separated string)
    taken = [8, 0]               # token points taken from each goal card, 0 = not yet (T18)

Checks: T2 (at most 22 tiles of a type in sight and in the bag), T3 (tiles only on cells usable
at this player count), T4 (no floating tiles), T7 (tokens taken from the top of each stack),
T23 (the end token's holder has a full shelf). The form is checked as strictly in both files (and
in the page of ``serve``, docs/serve.md): no unknown key, no key given twice (a TOML rule, refused
in JSON too: :func:`parse_position_json`), ASCII text only in the board, the shelves and the goals (a
full-width one, U+FF11, is no goal id); tile letters may be typed in either case (``c`` is ``C``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from shelfie_solver.core.errors import shorten
from shelfie_solver.tile.errors import TileError
from shelfie_solver.core.inputs import MAX_FILE_BYTES, load_toml, parse_json, read_text
from shelfie_solver.tile.shelf import parse_goal
from shelfie_solver.tile.state import TOKENS, Setup, State, board_cell_name
from shelfie_solver.tile.rules import (EMPTY, SIDE, TILES_PER_TYPE, TYPE_NAMES, TYPES, Layout, PersonalCard, TileRuleset, check_shelf,
                    parse_shelf)

EXAMPLE = "examples/tile/position.toml"


@dataclass(frozen=True)
class Position:
    """A loaded position: the setup (hidden cards of opponents are -1) and the state."""

    setup: Setup
    state: State


def parse_position_json(text: str, source: str) -> dict[str, Any]:
    """A JSON position file's text parsed (:func:`core.inputs.parse_json`: bounded nesting and
    numbers) into its object, with no key given twice in any object (JSON would keep the last
    value silently; TOML refuses it, so a position reads the same in both forms).

    Raises:
        TileError: not JSON, not an object, or a key given twice (one line naming ``source``).
    """
    data = parse_json(text, TileError, source, f"a position like {EXAMPLE}")
    if not isinstance(data, dict):
        raise TileError(f"{source}: expected a JSON object like {EXAMPLE}")
    return data


def _read(path: str | Path) -> dict[str, Any]:
    if str(path).lower().endswith(".json"):
        text = read_text(path, TileError, MAX_FILE_BYTES, f"a position like {EXAMPLE}")
        return parse_position_json(text, str(path))
    return load_toml(path, TileError, EXAMPLE)


_KEYS = ("players", "first", "turn", "goals", "personal", "end_token", "board", "bag", "shelf")
_SHELF_KEYS = ("rows", "taken")


def _known(data: dict[str, Any], keys: tuple[str, ...], where: str) -> None:
    """Refuse a key the format does not have (a typo such as ``end_tokn`` would be ignored)."""
    unknown = sorted(str(k) for k in data if k not in keys)
    if unknown:
        raise TileError(f"position: unknown {where}key {shorten(unknown[0])}; expected {', '.join(keys)} "
                        f"(docs/tile.md)")


def _int(data: dict[str, Any], key: str, default: int, low: int, high: int) -> int:
    value = data.get(key, default)
    if type(value) is not int or not low <= value <= high:
        raise TileError(f"position: {key} must be a whole number from {low} to {high}, got {value!r}")
    return value


def _ascii(text: str, where: str, expected: str) -> None:
    """Refuse a character that is not ASCII (a full-width letter or digit, U+FF21 / U+FF11; a
    ligature such as U+FB00 that upper-cases to two letters; a Unicode space ``strip`` drops)."""
    if not text.isascii():
        bad = next(ch for ch in text if not ch.isascii())
        raise TileError(f"position: {where} has {bad!r} (U+{ord(bad):04X}), not an ASCII character; expected {expected}")


_SHELF_EXPECTED = "6 strings of 5 characters: a tile letter CBGFTP (either case) or '.', top row first (T4)"


def _shelf_text(raw: Any, seat: int) -> str:
    if isinstance(raw, str):
        _ascii(raw, f"shelf {seat + 1} rows", _SHELF_EXPECTED)
        return raw
    if isinstance(raw, list) and all(isinstance(line, str) for line in raw):
        for line in raw:
            _ascii(line, f"shelf {seat + 1} rows", _SHELF_EXPECTED)
        return "\n".join(raw)
    raise TileError(f"position: shelf {seat + 1} rows must be {_SHELF_EXPECTED}")


def position_from_dict(data: dict[str, Any], rules: TileRuleset, layout: Layout,
                       cards: tuple[PersonalCard, ...]) -> Position:
    """Build and check a position (module docstring).

    Raises:
        TileError: a missing or bad key, or a position the rules cannot reach (T2, T3, T4, T7, T23).
    """
    _known(data, _KEYS, "")
    shelves_raw = data.get("shelf")
    if not isinstance(shelves_raw, list) or not all(isinstance(s, dict) for s in shelves_raw):
        raise TileError(f"position: expected one [[shelf]] table per seat (2-4), as in {EXAMPLE}")
    for raw in shelves_raw:
        _known(raw, _SHELF_KEYS, "[[shelf]] ")
    players = _int(data, "players", len(shelves_raw), 2, 4)
    if len(shelves_raw) != players:
        raise TileError(f"position: {len(shelves_raw)} [[shelf]] tables for {players} players")
    first = _int(data, "first", 1, 1, players) - 1
    turn = _int(data, "turn", 1, 1, players) - 1
    goals = _goals(data.get("goals"))
    names = [c.name for c in cards]
    personal = str(data.get("personal", ""))
    if personal not in names:
        raise TileError(f"position: personal must name one of the cards {', '.join(names)} (T20)")
    shelves, tokens = _shelves(shelves_raw, len(goals))
    stacks = _stacks(tokens, goals, players)
    end_seat = _int(data, "end_token", 0, 0, players)
    end_token = end_seat - 1 if end_seat else None
    if end_token is not None and EMPTY in shelves[end_token]:
        raise TileError(f"position: seat {end_seat} holds the end token but its shelf is not full (T23)")
    board = _board(data.get("board"), layout.usable(players))
    seen = [board.count(t) + sum(s.count(t) for s in shelves) for t in range(len(TYPES))]
    bag = _bag(data.get("bag"), seen)
    setup = Setup(rules, layout, players, cards, tuple(names.index(personal) if s == turn else -1 for s in range(players)),
                  tuple(goals), first)
    state = State(board, bag, tuple(shelves), tuple(tokens), tuple(stacks), end_token, turn)
    if not any(t != EMPTY for t in board):
        raise TileError("position: the board holds no tile; at the start of a turn it never is empty (T13, T16)")
    if EMPTY not in shelves[turn]:
        raise TileError(f"position: the active seat {turn + 1} has a full shelf; its turn cannot come (T24)")
    return Position(setup, state)


def _goals(raw_goals: Any) -> list[int]:
    """The position's common goals (T7): 1 or 2 distinct, by id or name (:func:`parse_goal`).

    Raises:
        TileError: anything else.
    """
    expected = 'goals must list 1 or 2 distinct common goals by id 1-12 or name, e.g. [7, "diagonal of a type"] (T7)'
    if not isinstance(raw_goals, list) or not 1 <= len(raw_goals) <= 2 or any(isinstance(g, bool) for g in raw_goals):
        raise TileError(f"position: {expected}")
    for goal in raw_goals:
        if isinstance(goal, str):
            _ascii(goal, "goals", expected.removeprefix("goals must list "))
    try:
        goals = [parse_goal(g) for g in raw_goals]
    except TileError as error:
        raise TileError(f"position: {expected}; {error}") from None
    if len(set(goals)) != len(goals):
        raise TileError(f"position: {expected}")
    return goals


def _shelves(shelves_raw: list[dict[str, Any]], n_goals: int) -> tuple[list[tuple[int, ...]], list[tuple[int, ...]]]:
    """Each seat's shelf (checked: T2-T4) and the token values it took per goal card (0 = none).

    Raises:
        TileError: a bad shelf, or ``taken`` not one whole number per goal card.
    """
    shelves = []
    tokens = []
    for seat, raw in enumerate(shelves_raw):
        shelf = parse_shelf(_shelf_text(raw.get("rows"), seat))
        check_shelf(shelf, f"shelf {seat + 1}")
        shelves.append(shelf)
        taken = raw.get("taken", [0] * n_goals)
        if not isinstance(taken, list) or len(taken) != n_goals or not all(type(t) is int for t in taken):
            raise TileError(f"position: shelf {seat + 1} taken must list one token value per goal card (0 = none)")
        tokens.append(tuple(taken))
    return shelves, tokens


def _stacks(tokens: list[tuple[int, ...]], goals: list[int], players: int) -> list[tuple[int, ...]]:
    """The tokens left on each goal card: what T7 hands out from the top, less those taken.

    Raises:
        TileError: the tokens taken from a goal are not the top of its stack.
    """
    stacks = []
    for slot in range(len(goals)):
        won = sorted((t[slot] for t in tokens if t[slot]), reverse=True)
        if won != list(TOKENS[players][:len(won)]):
            raise TileError(f"position: tokens taken from goal {goals[slot]} are {won}; with {players} players T7 "
                            f"hands out {list(TOKENS[players])} from the top")
        stacks.append(TOKENS[players][len(won):])
    return stacks


def _board(raw: Any, usable: tuple[bool, ...]) -> tuple[int, ...]:
    expected = "board = 9 strings of 9 characters: a tile letter (CBGFTP, either case), '.' no tile, '-' unusable"
    if not isinstance(raw, list) or len(raw) != SIDE or not all(isinstance(r, str) and len(r) == SIDE for r in raw):
        raise TileError(f"position: bad board; expected {expected}")
    for r, row in enumerate(raw):
        _ascii(row, f"board row {r + 1}", expected)
    cells = []
    for i, ch in enumerate("".join(raw).upper()):
        if ch in ".-":
            cells.append(EMPTY)
        elif ch in TYPES:
            if not usable[i]:
                raise TileError(f"position: a tile at board cell {board_cell_name(i)}, which is unusable at "
                                "this player count (T3)")
            cells.append(TYPES.index(ch))
        else:
            raise TileError(f"position: unknown board character {ch!r}; expected {expected}")
    return tuple(cells)


def _kind(value: Any) -> str:
    """What a value read from TOML or JSON is, in words for a message."""
    kinds = {bool: "a boolean", str: "a string", float: "a decimal number", list: "a list", dict: "a table"}
    return next((name for kind, name in kinds.items() if isinstance(value, kind)), type(value).__name__)


def _bag(raw: Any, seen: list[int]) -> tuple[int, ...]:
    for t, count in enumerate(seen):
        if count > TILES_PER_TYPE:
            raise TileError(f"position: {count} {TYPE_NAMES[t]} tiles on the board and shelves; T2 has only "
                            f"{TILES_PER_TYPE}")
    if raw is None:
        return tuple(TILES_PER_TYPE - count for count in seen)
    if not isinstance(raw, dict) or set(raw) - set(TYPES):
        raise TileError("position: bag must be a table of type letters in capitals (CBGFTP) to counts, e.g. "
                        "bag = { C = 10, B = 12 }")
    bag = []
    for t, letter in enumerate(TYPES):
        count = raw.get(letter, 0)
        if type(count) is not int:  # '10' (a string), 10.0, true: not read as a count
            raise TileError(f"position: bag {letter} must be a whole number of tiles, e.g. bag = {{ {letter} = 10 }}, "
                            f"got {_kind(count)} {shorten(count) if isinstance(count, str) else repr(count)}")
        if count < 0 or count + seen[t] > TILES_PER_TYPE:
            raise TileError(f"position: bag {letter} = {count!r}; with {seen[t]} in sight T2 allows 0 to "
                            f"{TILES_PER_TYPE - seen[t]}")
        bag.append(count)
    return tuple(bag)


def load_position(path: str | Path, rules: TileRuleset, layout: Layout, cards: tuple[PersonalCard, ...]) -> Position:
    """Read a TOML or JSON (by the ``.json`` suffix) position file (raises :class:`TileError`)."""
    return position_from_dict(_read(path), rules, layout, cards)


def position_to_dict(setup: Setup, state: State) -> dict[str, Any]:
    """A position as the keys :func:`position_from_dict` reads (the active seat's card by name)."""
    from shelfie_solver.tile.rules import shelf_text

    board = ["".join("-" if not setup.usable[r * SIDE + c] else "." if state.board[r * SIDE + c] == EMPTY
                     else TYPES[state.board[r * SIDE + c]] for c in range(SIDE)) for r in range(SIDE)]
    card = setup.card(state.turn)
    return {"players": setup.players, "first": setup.first + 1, "turn": state.turn + 1, "goals": list(setup.goals),
            "personal": card.name if card else "", "end_token": 0 if state.end_token is None else state.end_token + 1,
            "board": board, "bag": dict(zip(TYPES, state.bag)),
            "shelf": [{"rows": shelf_text(s).split("\n"), "taken": list(t)} for s, t in zip(state.shelves, state.tokens)]}
