"""The turn loop of a full game: turn order, the roll / re-roll / mark turn, failed results,
blocking, the end trigger and scoring (RULES.md D1, D5-D20), each action appended as an
immutable event (:mod:`shelfie_solver.dice.game.events`).

A game is played by :func:`play_game` from a :class:`DiceSource` (the dice and the first
player) and one :class:`Strategy` per seat; the finished :class:`Game` can be saved as JSON and
replayed exactly (:mod:`shelfie_solver.dice.game.record`, which replays a seat's recorded
decisions with :class:`ScriptedStrategy`). The rules acting on whole sheets — the shelves a
failed result may give up (D13), blocking (D15, D16), the end trigger (D17) — are those of
:mod:`shelfie_solver.dice.sheet_rules`.

Decisions and assumptions where the rulebook is silent:

* Seats are 0-based everywhere (events, JSON). 1 player is solitaire (D1 lists 2-4; the end
  trigger then applies to the one sheet and every round has one turn).
* The first player is drawn from the game's dice source (D5); seats do not rotate.
* End trigger (D17): a sheet with ``min(rules.end_trigger_shelves, board.n_shelves)`` shelves
  without an available item. The ``min`` only matters for a ruleset whose trigger exceeds the
  board's shelves: a sheet with no available item at all always triggers the end, so the game
  always ends (every turn marks or eliminates at least one of the active player's items).
* A player whose sheet has no available item when their turn comes (possible only in the round
  played out after the trigger, D18) passes (:class:`Pass`): nothing could be marked and D13
  has no shelf to give up, so no dice are rolled.
* Blocking (D15) is recorded only where it eliminates something: one :class:`Block` per
  (completed line, other player who had available items in it).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TypeVar

import numpy as np

from shelfie_solver.dice.board import Board, Marks
from shelfie_solver.dice.game.dice_sources import DiceSource, GeneratorDice
from shelfie_solver.dice.game.actions import Action, Position, apply, begin, verify_hold
from shelfie_solver.dice.game.events import (
    MAX_PLAYERS,
    PLAYER_COUNTS,
    Event,
    Fail,
    Game,
    GameError,
    GameState,
    Hold,
    LegalMarkings,
    Mark,
    Roll,
    Start,
    Stop,
    Strategy,
    legal_sets,
)
from shelfie_solver.dice.rolls import Counts
from shelfie_solver.dice.rules import Ruleset
from shelfie_solver.dice.sheet_rules import failed_result_shelves


def play_game(board: Board, rules: Ruleset, strategies: Sequence[Strategy], dice: DiceSource,
              rngs: Sequence[np.random.Generator] | None = None,
              sheets: Sequence[Marks] | None = None) -> Game:
    """Play one game to the end (D5-D20).

    Args:
        strategies: one per seat, :data:`events.PLAYER_COUNTS` (2 to 4, D1; 1 for solitaire).
        dice: the first player and the dice.
        rngs: one generator per seat handed to its strategy (default: generators seeded with 0,
            for strategies that draw no random numbers; :func:`play_seeded` spawns them from the
            game's seed).
        sheets: starting marks per seat (default: empty sheets).

    Returns:
        The finished :class:`Game`.

    Raises:
        GameError: a bad number of players, or a strategy's decision is illegal.
    """
    n = len(strategies)
    if not 1 <= n <= MAX_PLAYERS:
        raise GameError(f"a game needs {PLAYER_COUNTS}, got {n}")
    start = tuple(sheets) if sheets is not None else tuple(Marks.empty(board) for _ in range(n))
    if len(start) != n:
        raise GameError(f"{n} players but {len(start)} starting sheets")
    for sheet in start:
        if (sheet.n_shelves, sheet.n_columns) != (board.n_shelves, board.n_columns):
            raise GameError(f"a starting sheet is {sheet.n_shelves}x{sheet.n_columns} but the board is "
                            f"{board.n_shelves}x{board.n_columns}")
    seat_rngs = list(rngs) if rngs is not None else [np.random.default_rng(0) for _ in range(n)]
    first = dice.first_player(n)
    if not 0 <= first < n:
        raise GameError(f"first player {first} is not a seat 0..{n - 1}")
    events: list[Event] = [Start(n, first, tuple(str(m) for m in start))]
    names = tuple(s.name for s in strategies)
    position = begin(GameState(board, rules, start, first, first, 0, False), events)
    while position.over is None:
        seat = position.state.active
        position = _play_turn(position, strategies[seat], dice, seat_rngs[seat], names, events)
    return Game(board, rules, names, tuple(events), position.state.sheets)


def _play_turn(position: Position, strategy: Strategy, source: DiceSource, rng: np.random.Generator,
               names: tuple[str, ...], events: list[Event]) -> Position:
    """One turn of the active player (D6-D16), each decision of ``strategy`` applied by
    :func:`actions.apply`; appends its events and returns the position after the turn."""
    state = position.state
    board, rules, seat, marks = state.board, state.rules, state.active, state.marks
    dice = source.roll((0,) * rules.n_sides, rules)
    position = _act(position, (Roll(seat, dice, rules.rerolls),), names, events)
    while position.rerolls_left > 0:
        keep = tuple(map(int, strategy.choose_hold(state, dice, position.rerolls_left, rng)))
        if keep == dice:  # keeping every die is stopping (D7)
            break
        verify_hold(position, keep, names)
        dice = source.roll(keep, rules)
        position = _act(position, (Hold(seat, keep), Roll(seat, dice, position.rerolls_left - 1)), names, events)
    legal = legal_sets(dice, board, marks, rules)
    if len(legal):
        cells = legal.cells(legal.position(strategy.choose_marking(state, dice, legal, rng)))
        return _act(position, (Mark(seat, cells),), names, events, legal)
    options = failed_result_shelves(board, marks)
    shelf = int(strategy.choose_shelf(state, dice, tuple(options), rng))
    return _act(position, (Fail(seat, shelf, options.get(shelf, ())),), names, events)


def _act(position: Position, action: Action, names: tuple[str, ...], events: list[Event],
         legal: LegalMarkings | None = None) -> Position:
    """:func:`actions.apply`, its events appended to ``events``."""
    after, made = apply(position, action, names, legal)
    events.extend(made)
    return after


def play_seeded(board: Board, rules: Ruleset, strategies: Sequence[Strategy],
                seed: np.random.SeedSequence | int | None) -> Game:
    """Play one game whose dice, first player and every seat's random choices all come from
    ``seed``: the dice from ``default_rng(seed)``, each seat's generator spawned from it."""
    rng = np.random.default_rng(seed)
    return play_game(board, rules, strategies, GeneratorDice(rng), rngs=rng.spawn(len(strategies)))


# --- a recorded seat ------------------------------------------------------------------------


_Decision = TypeVar("_Decision", Hold, Stop, Mark, Fail)


class ScriptedStrategy:
    """Replays one seat's recorded decisions (:class:`Hold`, :class:`Stop`, :class:`Mark`,
    :class:`Fail`).

    A roll followed by the seat's :class:`Hold` re-rolls; a roll followed by its :class:`Stop`
    (taken here) or by anything else stops (D7). A :class:`Stop` where no hold is asked (no
    re-roll left) is left over, so the next decision's :meth:`_take` refuses it. Raises
    :class:`GameError` when the record does not fit the game.
    """

    def __init__(self, name: str, decisions: Iterable[Hold | Stop | Mark | Fail]):
        self.name = name
        self._decisions: list[Hold | Stop | Mark | Fail] = list(decisions)
        self._next = 0

    def _peek(self) -> Hold | Stop | Mark | Fail | None:
        return self._decisions[self._next] if self._next < len(self._decisions) else None

    def _take(self, kind: type[_Decision]) -> _Decision:
        event = self._peek()
        if not isinstance(event, kind):
            raise GameError(f"saved game: expected a {kind.__name__.lower()} decision of {self.name}, "
                            f"found {event!r}")
        self._next += 1
        return event

    def choose_hold(self, state: GameState, dice: Counts, rerolls_left: int, rng: np.random.Generator) -> Counts:
        if isinstance(self._peek(), Hold):
            return self._take(Hold).keep
        if isinstance(self._peek(), Stop):
            self._take(Stop)
        return dice

    def choose_marking(self, state: GameState, dice: Counts, legal: LegalMarkings,
                       rng: np.random.Generator) -> tuple[int, ...]:
        return self._take(Mark).cells

    def choose_shelf(self, state: GameState, dice: Counts, shelves: tuple[int, ...],
                     rng: np.random.Generator) -> int:
        return self._take(Fail).shelf
