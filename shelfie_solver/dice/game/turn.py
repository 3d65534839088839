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

from shelfie_solver.dice.board import Board, Marks, score_breakdown
from shelfie_solver.dice.game.dice_sources import DiceSource, GeneratorDice
from shelfie_solver.dice.game.events import (
    MAX_PLAYERS,
    Block,
    EndTriggered,
    Event,
    Fail,
    Game,
    GameError,
    GameOver,
    GameState,
    Hold,
    LegalMarkings,
    Mark,
    Pass,
    Roll,
    Start,
    Stop,
    Strategy,
    legal_sets,
)
from shelfie_solver.dice.rolls import Counts
from shelfie_solver.dice.rules import Ruleset
from shelfie_solver.dice.sheet_rules import block, completed_lines, failed_result_shelves, triggers_end


def play_game(board: Board, rules: Ruleset, strategies: Sequence[Strategy], dice: DiceSource,
              rngs: Sequence[np.random.Generator] | None = None,
              sheets: Sequence[Marks] | None = None) -> Game:
    """Play one game to the end (D5-D20).

    Args:
        strategies: one per seat, 1 to 4 (D1; 1 = solitaire).
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
        raise GameError(f"a game needs 1 to {MAX_PLAYERS} players (D1; 1 = solitaire), got {n}")
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
    state = GameState(board, rules, start, first, first, 0, False)
    while True:
        seat = state.active
        sheets_now = _play_turn(state, strategies[seat], dice, seat_rngs[seat], events)
        following = finish_turn(state, sheets_now, events)
        if following is None:
            break
        state = following
    return Game(board, rules, tuple(s.name for s in strategies), tuple(events), sheets_now)


def finish_turn(state: GameState, sheets: tuple[Marks, ...], events: list[Event]) -> GameState | None:
    """End the active player's turn, whose sheets are now ``sheets``: append :class:`EndTriggered`
    when this turn fires D17's trigger, and :class:`GameOver` when the game ends (D18: the round
    is played out once the end is triggered).

    Returns:
        The state of the next turn, or ``None`` when the game is over.
    """
    board, rules, seat, n = state.board, state.rules, state.active, state.players
    triggered = state.end_triggered
    if not triggered:
        hit = tuple(p for p, m in enumerate(sheets) if triggers_end(board, m, rules))
        if hit:
            events.append(EndTriggered(seat, hit))
            triggered = True
    if triggered and (seat - state.first) % n == n - 1:  # D18: the round is played out, then the game ends
        events.append(_game_over(board, rules, sheets, (state.turn + 1) // n))
        return None
    return GameState(board, rules, sheets, (seat + 1) % n, state.first, state.turn + 1, triggered)


def _play_turn(state: GameState, strategy: Strategy, source: DiceSource, rng: np.random.Generator,
               events: list[Event]) -> tuple[Marks, ...]:
    """One turn of the active player (D6-D16); appends its events and returns the new sheets."""
    board, rules, seat, marks = state.board, state.rules, state.active, state.marks
    if (marks.marked | marks.eliminated) == (1 << marks.n_cells) - 1:  # no available item (Marks.available)
        events.append(Pass(seat))
        return state.sheets
    dice = source.roll((0,) * rules.n_sides, rules)
    left = rules.rerolls
    events.append(Roll(seat, dice, left))
    while left > 0:
        keep = tuple(map(int, strategy.choose_hold(state, dice, left, rng)))
        if len(keep) != len(dice) or min(keep) < 0 or not all(map(int.__le__, keep, dice)):
            raise GameError(f"{strategy.name}: hold {keep} is not a part of the dice {dice} (D7)")
        if keep == dice:  # keeping every die is stopping (D7)
            break
        events.append(Hold(seat, keep))
        dice = source.roll(keep, rules)
        left -= 1
        events.append(Roll(seat, dice, left))
    legal = legal_sets(dice, board, marks, rules)
    if len(legal):
        cells = legal.cells(legal.position(strategy.choose_marking(state, dice, legal, rng)))
        events.append(Mark(seat, cells))
        return mark_and_block(state, cells, events)
    options = failed_result_shelves(board, marks)
    shelves = tuple(options)
    shelf = int(strategy.choose_shelf(state, dice, shelves, rng))
    if shelf not in shelves:
        raise GameError(f"{strategy.name}: a failed result must give up a shelf with an available item "
                        f"(D13), one of {[s + 1 for s in shelves]} (1-based), got shelf {shelf + 1}")
    lost = options[shelf]
    events.append(Fail(seat, shelf, lost))
    return _replace(state.sheets, seat, marks.with_eliminated(lost))


def mark_and_block(state: GameState, cells: tuple[int, ...], events: list[Event]) -> tuple[Marks, ...]:
    """Mark ``cells`` (cell indices, distinct available items) on the active sheet, then block
    every line it completes (D15: shelves and columns, several at once) on every other sheet
    (:func:`sheet_rules.block`), appending one :class:`Block` per line and sheet that lost items.

    Returns:
        Every seat's sheet after the marking and the blocking.

    Raises:
        MarksError: a cell is not available (D4).
    """
    board, seat = state.board, state.active
    after = state.marks.with_marked(cells)
    # the lines through the marked cells: shelves first, then columns (Board.lines)
    touched = {board.shelf_of(c) for c in cells} | {board.n_shelves + board.column_of(c) for c in cells}
    sheets, blocked = block(board, _replace(state.sheets, seat, after), seat,
                            completed_lines(board, after, sorted(touched)))
    events.extend(Block(seat, other, line, lost) for line, other, lost in blocked)
    return sheets


def _replace(sheets: tuple[Marks, ...], seat: int, marks: Marks) -> tuple[Marks, ...]:
    return sheets[:seat] + (marks,) + sheets[seat + 1:]


def _game_over(board: Board, rules: Ruleset, sheets: tuple[Marks, ...], rounds: int) -> GameOver:
    """Scores (D19) and winners (D20: every seat with the highest total wins)."""
    breakdown = [score_breakdown(board, m, rules) for m in sheets]
    totals = tuple(s + c for s, c in breakdown)
    best = max(totals)
    return GameOver(rounds, totals, tuple(s for s, _ in breakdown), tuple(c for _, c in breakdown),
                    tuple(p for p, t in enumerate(totals) if t == best))


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
