"""Whole tile games: playing one from a seed, and saving / replaying it as JSON (like the dice
game's :mod:`shelfie_solver.dice.game.record`: one JSON object per game, JSON Lines for many,
checked by replay)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from shelfie_solver.tile.errors import TileError
from shelfie_solver.core.files import json_kind
from shelfie_solver.tile.state import (Deal, EndToken, Event, GoalScored, Move, Over, Refill, Setup, State, Turn, apply_move,
                     apply_refill, deal, draw_refill, needs_refill, start_state)
from shelfie_solver.tile.rules import Layout, PersonalCard, TileRuleset, card_from_dict, layout_from_dict, ruleset_from_dict

TILE_GAME_FORMAT = "shelfie-solve-tile-game/1"
#: Games saved by ``tile simulate --save`` (JSON Lines, each line's ``"format"`` then ``"game"``), as
#: recognised before the file is replaced (:func:`files.check_overwrite`).
TILE_SAVED_GAMES_KIND = json_kind("tile games saved by tile simulate --save", TILE_GAME_FORMAT, "game")


class TileStrategy(Protocol):
    """A seat's policy: ``choose`` returns one of the active player's legal moves."""

    name: str

    def choose(self, setup: Setup, state: State, rng: np.random.Generator) -> Move:
        """The move to play in ``state`` (``state.turn`` is this seat)."""
        ...


@dataclass(frozen=True)
class TileGame:
    """A played game: its setup, players' strategy names, events and final state."""

    setup: Setup
    players: tuple[str, ...]
    events: tuple[Event, ...]
    state: State

    @property
    def over(self) -> Over:
        """The final :class:`Over` event (raises :class:`TileError` for an unfinished game)."""
        last = self.events[-1] if self.events else None
        if not isinstance(last, Over):
            raise TileError("the game is not over")
        return last


def play_game(rules: TileRuleset, layout: Layout, cards: tuple[PersonalCard, ...],
              strategies: Sequence[TileStrategy], seed: np.random.SeedSequence | int | None) -> TileGame:
    """Play one game: the deal, the bag's draws and every seat's random choices all come from
    ``seed`` (one generator for the deal and the bag, the seats' generators spawned from it)."""
    rng = np.random.default_rng(seed)
    seats = rng.spawn(len(strategies))
    setup = deal(rules, layout, cards, len(strategies), rng)
    events: list[Event] = [Deal(setup.goals, setup.personal, setup.first)]
    state = start_state(setup)
    fill = draw_refill(setup, state, rng)
    state = apply_refill(setup, state, fill)
    events.append(fill)
    while not state.over:
        seat = state.turn
        move = strategies[seat].choose(setup, state, seats[seat])
        state, happened = apply_move(setup, state, move, check=False)
        events.extend(happened)
        if not state.over and needs_refill(state.board):  # T15, T16
            fill = draw_refill(setup, state, rng)
            state = apply_refill(setup, state, fill)
            events.append(fill)
    return TileGame(setup, tuple(s.name for s in strategies), tuple(events), state)


def replay(setup: Setup, players: tuple[str, ...], events: Sequence[Event]) -> TileGame:
    """Re-play recorded events, checking every move and every derived event.

    Raises:
        TileError: an illegal move, a refill that does not fit, or a recorded goal / end token /
            result that the rules do not give.
    """
    state = start_state(setup)
    derived: list[Event] = []
    for index, event in enumerate(events):
        if isinstance(event, Deal):
            if index != 0 or event != Deal(setup.goals, setup.personal, setup.first):
                raise TileError("saved tile game: the deal must come first and match the table")
        elif isinstance(event, Refill):
            if index > 1 and not needs_refill(state.board):
                raise TileError(f"saved tile game: event {index}: a refill while tiles still touch (T16)")
            state = apply_refill(setup, state, event)
        elif isinstance(event, Turn):
            if derived:
                raise TileError(f"saved tile game: event {index}: missing {derived[0]}")
            if event.player != state.turn:
                raise TileError(f"saved tile game: event {index}: seat {event.player + 1} moved out of turn")
            state, happened = apply_move(setup, state, event.move)
            derived = happened[1:]
        else:
            if not derived or derived[0] != event:
                raise TileError(f"saved tile game: event {index}: {event} does not follow from the rules")
            derived.pop(0)
    if derived:
        raise TileError(f"saved tile game: missing {derived[0]}")
    return TileGame(setup, players, tuple(events), state)


def event_to_dict(event: Event) -> dict[str, Any]:
    """One event as a JSON object with a ``"type"`` key."""
    if isinstance(event, Deal):
        return {"type": "deal", "goals": list(event.goals), "personal": list(event.personal), "first": event.first}
    if isinstance(event, Refill):
        return {"type": "refill", "cells": list(event.cells), "types": list(event.types), "returned": event.returned}
    if isinstance(event, Turn):
        return {"type": "turn", "player": event.player, "cells": list(event.move.cells), "column": event.move.column}
    if isinstance(event, GoalScored):
        return {"type": "goal", "player": event.player, "goal": event.goal, "points": event.points}
    if isinstance(event, EndToken):
        return {"type": "end", "player": event.player}
    return {"type": "over", "scores": list(event.scores), "winner": event.winner}


def event_from_dict(data: dict[str, Any]) -> Event:
    """The inverse of :func:`event_to_dict` (raises :class:`TileError`)."""
    try:
        kind = data["type"]
        if kind == "deal":
            return Deal(tuple(int(g) for g in data["goals"]), tuple(int(p) for p in data["personal"]), int(data["first"]))
        if kind == "refill":
            return Refill(tuple(int(c) for c in data["cells"]), tuple(int(t) for t in data["types"]), bool(data["returned"]))
        if kind == "turn":
            return Turn(int(data["player"]), Move(tuple(int(c) for c in data["cells"]), int(data["column"])))
        if kind == "goal":
            return GoalScored(int(data["player"]), int(data["goal"]), int(data["points"]))
        if kind == "end":
            return EndToken(int(data["player"]))
        if kind == "over":
            return Over(tuple(int(s) for s in data["scores"]), int(data["winner"]))
    except (KeyError, TypeError, ValueError) as error:
        raise TileError(f"saved tile game: malformed event ({error})") from None
    raise TileError(f"saved tile game: unknown event type {kind!r}")


def game_to_dict(game: TileGame, /, **extra: Any) -> dict[str, Any]:
    """A game as a JSON object: format, players, rules, layout, cards and events."""
    return {"format": TILE_GAME_FORMAT, **extra, "players": list(game.players), "rules": game.setup.rules.to_dict(),
            "layout": game.setup.layout.to_dict(), "cards": [c.to_dict() for c in game.setup.cards],
            "events": [event_to_dict(e) for e in game.events]}


def game_to_json(game: TileGame, /, **extra: Any) -> str:
    """One game as one line of JSON."""
    return json.dumps(game_to_dict(game, **extra), separators=(",", ":"))


def game_from_dict(data: dict[str, Any]) -> TileGame:
    """Read a saved game and replay it (:func:`replay`).

    Raises:
        TileError: not a saved tile game, or it does not replay.
    """
    if not isinstance(data, dict) or data.get("format") != TILE_GAME_FORMAT:
        raise TileError(f"not a saved tile game: expected a JSON object with \"format\": \"{TILE_GAME_FORMAT}\"")
    try:
        rules = ruleset_from_dict(data["rules"])
        layout = layout_from_dict(data["layout"])
        cards = tuple(card_from_dict(c) for c in data["cards"])
        events = [event_from_dict(e) for e in data["events"]]
        players = tuple(str(p) for p in data["players"])
    except (KeyError, TypeError) as error:
        raise TileError(f"saved tile game: missing or malformed {error}") from None
    first = events[0] if events else None
    if not isinstance(first, Deal):
        raise TileError("saved tile game: the first event must be the deal")
    setup = Setup(rules, layout, len(players), cards, first.personal, first.goals, first.first)
    return replay(setup, players, events)
