"""Full games: turn order, the roll / re-roll / mark turn, failed results, blocking, the end
trigger and scoring (RULES.md D1, D5-D20), recorded as immutable events.

A game is played by :func:`play_game` from a :class:`DiceSource` (the dice and the first
player) and one :class:`Strategy` per seat. Every action becomes an immutable event
(:class:`Start`, :class:`Roll`, :class:`Hold`, :class:`Mark`, :class:`Fail`, :class:`Pass`,
:class:`Block`, :class:`EndTriggered`, :class:`GameOver`), so a finished :class:`Game` can be
saved as JSON (:func:`game_to_json`, one game per line for many games) and replayed exactly
(:func:`replay`: the recorded dice and decisions are played through the engine again and every
derived event — blocks, the end trigger, the scores — must come out the same).

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

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, fields
from functools import cache
from typing import Any, ClassVar, Protocol, TypeVar

import numpy as np

from . import allocate
from .board import Board, ItemSets, Marks, board_from_dict, item_sets, parse_marks, score_breakdown
from .board import end_trigger_shelves as end_trigger_shelves  # D17; defined in board.py, kept importable here
from .dice import Counts, dice_codes, parse_dice
from .errors import ShelfieError
from .files import FileWriteError, write_text_atomically
from .inputs import check_json_text, decode, open_regular
from .rules import Ruleset, rules_from_dict

#: The ``format`` key of a saved game (JSON object, one per line in JSON Lines).
GAME_FORMAT = "shelfie-solve game 1"
MAX_PLAYERS = 4


class GameError(ShelfieError):
    """An illegal decision, a bad player count, or a saved game that is malformed or does not
    replay to the same events."""


# --- events ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Start:
    """The game starts: ``players`` seats, ``first`` plays first (D5), ``sheets`` the starting
    marks of every seat in compact text (all ``.`` in a normal game)."""

    kind: ClassVar[str] = "start"
    players: int
    first: int
    sheets: tuple[str, ...]


@dataclass(frozen=True)
class Roll:
    """``player``'s dice after the initial roll (D6) or a re-roll (D7); ``rerolls_left`` after it."""

    kind: ClassVar[str] = "roll"
    player: int
    dice: Counts
    rerolls_left: int


@dataclass(frozen=True)
class Hold:
    """``player`` keeps ``keep`` and re-rolls the other dice (D7). Stopping (keeping every die)
    is not an event: the next event of the turn is then :class:`Mark` or :class:`Fail`."""

    kind: ClassVar[str] = "hold"
    player: int
    keep: Counts


@dataclass(frozen=True)
class Mark:
    """``player`` marks ``cells`` (sorted cell indices) with the final dice (D8-D12, D14)."""

    kind: ClassVar[str] = "mark"
    player: int
    cells: tuple[int, ...]


@dataclass(frozen=True)
class UncheckedMark:
    """``player`` marked ``cells`` with dice nobody recorded (an opponent's marking told at the
    table, ``shelfie-solve play``): only D4 and D9 are checked (distinct available items, at
    most ``combinations_per_turn``), not the dice (D8, D10-D12). Never made by :func:`play_game`."""

    kind: ClassVar[str] = "unchecked"
    player: int
    cells: tuple[int, ...]


@dataclass(frozen=True)
class Fail:
    """Failed result (D13): ``player`` gives up ``shelf`` (0-based), eliminating ``cells``."""

    kind: ClassVar[str] = "fail"
    player: int
    shelf: int
    cells: tuple[int, ...]


@dataclass(frozen=True)
class Pass:
    """``player`` has no available item: the turn passes without a roll (module docstring)."""

    kind: ClassVar[str] = "pass"
    player: int


@dataclass(frozen=True)
class Block:
    """D15: ``by`` completed ``line`` (index into :attr:`Board.lines`: shelves, then columns), so
    ``player`` eliminates ``cells``, their available items of that line."""

    kind: ClassVar[str] = "block"
    by: int
    player: int
    line: int
    cells: tuple[int, ...]


@dataclass(frozen=True)
class EndTriggered:
    """D17: after ``by``'s turn the sheets of ``sheets`` have the trigger's number of shelves
    without an available item (blocking can trigger it on an opponent's sheet)."""

    kind: ClassVar[str] = "end"
    by: int
    sheets: tuple[int, ...]


@dataclass(frozen=True)
class GameOver:
    """The game ends (D18): ``rounds`` full rounds played; per seat the total score and its
    points from shelves and from columns (D19); ``winners`` the seats with the highest total
    (ties are shared victories, D20)."""

    kind: ClassVar[str] = "over"
    rounds: int
    scores: tuple[int, ...]
    shelf_points: tuple[int, ...]
    column_points: tuple[int, ...]
    winners: tuple[int, ...]


Event = Start | Roll | Hold | Mark | UncheckedMark | Fail | Pass | Block | EndTriggered | GameOver
EVENT_TYPES: dict[str, type] = {cls.kind: cls for cls in (Start, Roll, Hold, Mark, UncheckedMark, Fail, Pass, Block,
                                                          EndTriggered, GameOver)}


# --- the state strategies see ----------------------------------------------------------------


@dataclass(frozen=True)
class GameState:
    """What every player can see when a decision is due.

    Attributes:
        board, rules: the game's board and ruleset.
        sheets: every seat's marks (0-based seats).
        active: the seat whose turn it is.
        first: the seat that played first (D5).
        turn: turns already played (0-based number of this turn).
        end_triggered: whether D17's end trigger has fired (this is then the last round).
    """

    board: Board
    rules: Ruleset
    sheets: tuple[Marks, ...]
    active: int
    first: int
    turn: int
    end_triggered: bool

    @property
    def players(self) -> int:
        """Number of seats."""
        return len(self.sheets)

    @property
    def marks(self) -> Marks:
        """The active player's sheet."""
        return self.sheets[self.active]

    @property
    def round(self) -> int:
        """1-based round number of this turn."""
        return self.turn // self.players + 1

    @property
    def trigger_shelves(self) -> int:
        """Closed shelves that trigger the end (D17; module docstring for the ``min``)."""
        return end_trigger_shelves(self.board, self.rules)


# --- legal markings, fast ------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class LegalMarkings:
    """The legal markings of a final roll (D8-D12) as :func:`allocate.legal_sets` lists them (by
    size, then cell order), with the item sets at hand for vectorised strategies.

    Attributes:
        index: ``int64 (K,)`` indices into :func:`board.item_sets` of the legal sets.
        sets: those sets (:class:`board.ItemSets`, ``K`` rows). ``K == 0``: a failed result (D13).
    """

    index: np.ndarray
    sets: ItemSets
    _given: dict[tuple[int, ...], int] = field(default_factory=dict, init=False, repr=False)

    def __len__(self) -> int:
        return len(self.index)

    def cells(self, i: int) -> tuple[int, ...]:
        """Sorted cell indices of legal marking ``i``."""
        found = tuple(int(c) for c in self.sets.cells[i].tolist() if c >= 0)
        self._given[found] = i  # position() knows these without searching
        return found

    def all_cells(self) -> list[tuple[int, ...]]:
        """Every legal marking's cells, in order."""
        return [self.cells(i) for i in range(len(self))]

    def position(self, cells: Sequence[int]) -> int:
        """Position of the marking with these cells.

        Raises:
            GameError: the cells are not a legal marking of these dice (D8-D14).
        """
        key = tuple(sorted(cells))
        known = self._given.get(key)
        if known is not None:  # a marking this object handed out (cells(i)): legal by construction
            return known
        width = self.sets.cells.shape[1] if self.sets.cells.ndim == 2 else 0
        if len(key) <= width and len(set(key)) == len(key) and all(0 <= c < 1 << 31 for c in key):
            # one vectorised comparison of the padded rows
            row = np.array(key + (-1,) * (width - len(key)), dtype=np.int64)
            found = np.flatnonzero((self.sets.cells == row).all(axis=1))
            if len(found):
                return int(found[0])
        for i in range(len(self)):
            if self.cells(i) == key:
                return i
        raise GameError(f"marking {list(key)} is not legal with these dice (D8-D14); "
                        f"legal: {self.all_cells()[:5]}{' ...' if len(self) > 5 else ''}")


def legal_sets(dice: Counts, board: Board, marks: Marks, rules: Ruleset) -> LegalMarkings:
    """The legal markings of the final ``dice`` on ``marks`` (D8-D12); empty = failed result."""
    index = allocate.legal_sets(dice, board, marks, rules)
    return LegalMarkings(index, item_sets(board, rules.combinations_per_turn).take(index))


# --- strategies and dice --------------------------------------------------------------------


class Strategy(Protocol):
    """A player's decisions. ``rng`` is the seat's own generator (spawned from the game's), so a
    strategy that draws random numbers stays reproducible by seed."""

    name: str

    def choose_hold(self, state: GameState, dice: Counts, rerolls_left: int, rng: np.random.Generator) -> Counts:
        """Dice to keep before a re-roll (a sub-multiset of ``dice``); keeping all = stop (D7)."""
        ...

    def choose_marking(self, state: GameState, dice: Counts, legal: LegalMarkings,
                       rng: np.random.Generator) -> tuple[int, ...]:
        """Cells to mark: one of ``legal`` (non-empty; D14: a marking is compulsory)."""
        ...

    def choose_shelf(self, state: GameState, dice: Counts, shelves: tuple[int, ...],
                     rng: np.random.Generator) -> int:
        """Failed result (D13): the shelf to give up, one of ``shelves`` (each has an available item)."""
        ...


class DiceSource(Protocol):
    """Where the first player and the dice come from."""

    def first_player(self, players: int) -> int:
        """The seat that plays first (D5)."""
        ...

    def roll(self, keep: Counts, rules: Ruleset) -> Counts:
        """All dice after keeping ``keep`` and rolling the rest (D6: ``keep`` all zero)."""
        ...


@dataclass
class GeneratorDice:
    """Fair dice from a :class:`numpy.random.Generator` (D2: every side equally likely)."""

    rng: np.random.Generator

    def first_player(self, players: int) -> int:
        return int(self.rng.integers(players))

    def roll(self, keep: Counts, rules: Ruleset) -> Counts:
        counts = list(keep)
        # int32 draws: the same numbers and generator state as the default int64 (both take
        # numpy's buffered 32-bit bounded path for so few sides), about 30% cheaper per call
        for side in self.rng.integers(0, rules.n_sides, size=rules.dice - sum(keep), dtype=np.int32).tolist():
            counts[side] += 1
        return tuple(counts)


@dataclass
class ScriptedDice:
    """Dice given in advance: ``first`` plays first, ``rolls`` are the full dice of each roll
    and re-roll in order (for replays and hand-worked tests).

    Raises:
        GameError: the script runs out, or a roll does not contain the dice kept.
    """

    first: int
    rolls: list[Counts]
    _next: int = 0

    def first_player(self, players: int) -> int:
        return self.first

    def roll(self, keep: Counts, rules: Ruleset) -> Counts:
        if self._next >= len(self.rolls):
            raise GameError(f"the dice script ran out after {len(self.rolls)} rolls")
        dice = tuple(self.rolls[self._next])
        self._next += 1
        if len(dice) != rules.n_sides or sum(dice) != rules.dice or any(k > d for k, d in zip(keep, dice)):
            raise GameError(f"scripted roll {dice_codes(dice, rules)!r} is not {rules.dice} dice "
                            f"containing the dice kept {dice_codes(keep, rules)!r} (D7)")
        return dice


# --- the game -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Game:
    """A finished game.

    Attributes:
        board, rules: what was played.
        players: each seat's strategy name.
        events: every action, in order; the last is :class:`GameOver`.
        sheets: every seat's final marks.
    """

    board: Board
    rules: Ruleset
    players: tuple[str, ...]
    events: tuple[Event, ...]
    sheets: tuple[Marks, ...]

    @property
    def over(self) -> GameOver:
        """The final event: rounds, scores, winners."""
        last = self.events[-1]
        assert isinstance(last, GameOver)
        return last

    @property
    def scores(self) -> tuple[int, ...]:
        """Total score per seat (D19)."""
        return self.over.scores

    @property
    def winners(self) -> tuple[int, ...]:
        """Seats with the highest total (D20: ties are shared)."""
        return self.over.winners


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
        trigger = end_trigger_shelves(board, rules)
        shelves = _line_masks(board)[:board.n_shelves]  # Marks.closed_shelves by bit masks
        hit = tuple(p for p, m in enumerate(sheets)
                    if sum((m.marked | m.eliminated) & mask == mask for mask in shelves) >= trigger)
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
        return _mark_and_block(state, cells, events)
    shelves = tuple(s for s in range(board.n_shelves) if marks.shelf_has_available(s))
    shelf = int(strategy.choose_shelf(state, dice, shelves, rng))
    if shelf not in shelves:
        raise GameError(f"{strategy.name}: a failed result must give up a shelf with an available item "
                        f"(D13), one of {[s + 1 for s in shelves]} (1-based), got shelf {shelf + 1}")
    lost = tuple(c for c in board.lines[shelf] if marks.is_available(c))
    events.append(Fail(seat, shelf, lost))
    return _replace(state.sheets, seat, marks.with_eliminated(lost))


def _mark_and_block(state: GameState, cells: tuple[int, ...], events: list[Event]) -> tuple[Marks, ...]:
    """Mark ``cells`` on the active sheet, then block every line it completes (D15: shelves and
    columns, several at once) on every other sheet."""
    board, seat = state.board, state.active
    before = state.marks
    after = before.with_marked(cells)
    sheets = _replace(state.sheets, seat, after)
    # the lines through the marked cells: shelves first, then columns (Board.lines)
    touched = {board.shelf_of(c) for c in cells} | {board.n_shelves + board.column_of(c) for c in cells}
    masks = _line_masks(board)
    for line in sorted(touched):
        if after.marked & masks[line] != masks[line]:  # not every item of the line marked
            continue
        members = board.lines[line]
        for other in range(len(sheets)):
            if other == seat:
                continue
            lost = tuple(c for c in members if sheets[other].is_available(c))
            if lost:
                events.append(Block(seat, other, line, lost))
                sheets = _replace(sheets, other, sheets[other].with_eliminated(lost))
    return sheets


@cache
def _line_masks(board: Board) -> tuple[int, ...]:
    """Each line's items (:attr:`Board.lines`) as a bit mask over the cells."""
    return tuple(sum(1 << c for c in line) for line in board.lines)


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


# --- replay ---------------------------------------------------------------------------------


_Decision = TypeVar("_Decision", Hold, Mark, Fail)


class ScriptedStrategy:
    """Replays one seat's recorded decisions (:class:`Hold`, :class:`Mark`, :class:`Fail`).

    A roll followed by the seat's :class:`Hold` re-rolls; a roll followed by anything else
    stops (D7). Raises :class:`GameError` when the record does not fit the game.
    """

    def __init__(self, name: str, decisions: Iterable[Hold | Mark | Fail]):
        self.name = name
        self._decisions: list[Hold | Mark | Fail] = list(decisions)
        self._next = 0

    def _peek(self) -> Hold | Mark | Fail | None:
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
        return dice

    def choose_marking(self, state: GameState, dice: Counts, legal: LegalMarkings,
                       rng: np.random.Generator) -> tuple[int, ...]:
        return self._take(Mark).cells

    def choose_shelf(self, state: GameState, dice: Counts, shelves: tuple[int, ...],
                     rng: np.random.Generator) -> int:
        return self._take(Fail).shelf


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
    rolls = [e.dice for e in game.events if isinstance(e, Roll)]
    scripts = [ScriptedStrategy(name, (e for e in game.events if isinstance(e, (Hold, Mark, Fail))
                                       and e.player == seat)) for seat, name in enumerate(game.players)]
    try:
        again = play_game(game.board, game.rules, scripts, ScriptedDice(start.first, rolls), sheets=sheets)
    except ShelfieError as error:
        raise GameError(f"saved game does not replay: {error}") from None
    again = Game(game.board, game.rules, game.players, again.events, again.sheets)
    for i, (old, new) in enumerate(zip(game.events, again.events)):
        if old != new:
            raise GameError(f"saved game does not replay: event {i} is {old!r} but the rules give {new!r}")
    if len(game.events) != len(again.events):
        raise GameError(f"saved game does not replay: {len(game.events)} events recorded, "
                        f"the rules give {len(again.events)}")
    return again


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
                value = parse_dice(value, rules, count=rules.dice if name == "dice" else -1)
            elif name == "cells":
                value = tuple(board.parse_cell(c) for c in value)
            elif name == "sheets" and cls is Start:
                value = tuple(str(v) for v in value)
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


def _whole(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise GameError(f"saved game: expected a whole number, got {value!r}")
    return value


def rules_to_dict(rules: Ruleset) -> dict[str, Any]:
    """A ruleset as the dictionary :func:`rules.rules_from_dict` reads (the TOML keys)."""
    out: dict[str, Any] = {
        "name": rules.name, "dice": rules.dice, "rerolls": rules.rerolls,
        "combinations_per_turn": rules.combinations_per_turn, "scoring_threshold": rules.scoring_threshold,
        "end_trigger_shelves": rules.end_trigger_shelves,
        "faces": [{"name": f.name, "code": f.code} for f in rules.faces],
    }
    if rules.joker is None:
        out["joker"] = False
    else:
        out["joker"] = {"name": rules.joker.name, "code": rules.joker.code, "per_group": rules.jokers_per_group,
                        "alone": rules.joker_alone, "all_jokers_mark_any": rules.all_jokers_mark_any}
    return out


def board_to_dict(board: Board, rules: Ruleset) -> dict[str, Any]:
    """A board as the dictionary :func:`board.board_from_dict` reads (the TOML keys)."""
    return {"name": board.name, "columns": list(board.columns),
            "shelves": [{"faces": [rules.sides[f].name for f in faces], "values": list(values)}
                        for faces, values in zip(board.shelf_faces, board.values)]}


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
        rules = _cached_rules(json.dumps(data["rules"], sort_keys=True))
        board = _cached_board(json.dumps(data["board"], sort_keys=True), rules)
        players = tuple(str(p) for p in data["players"])
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
def _cached_rules(text: str) -> Ruleset:
    try:
        return rules_from_dict(json.loads(text), source="saved game rules")
    except ShelfieError as error:
        raise GameError(str(error)) from None


@cache
def _cached_board(text: str, rules: Ruleset) -> Board:
    try:
        return board_from_dict(json.loads(text), rules, source="saved game board")
    except ShelfieError as error:
        raise GameError(str(error)) from None


def game_from_json(line: str) -> Game:
    """Read one game from a line of JSON (:func:`game_from_dict`); the text is first checked
    for nesting and number size (:func:`inputs.check_json_text`).

    Raises:
        GameError: not JSON, nested too deep, a number too long, or not a valid game.
    """
    check_json_text(line, GameError, "saved game")
    try:
        data = json.loads(line)
    except ValueError as error:  # JSONDecodeError is a ValueError
        raise GameError(f"saved game is not valid JSON ({error})") from None
    return game_from_dict(data)


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
            yield game_from_json(text) if number else game_from_dict(json.loads(text))
        except GameError as error:
            raise GameError(f"{path} line {number}: {error}" if number else str(error)) from None


def game_texts(path: str) -> Iterator[tuple[int, str]]:
    """The JSON text of every game of a saved-games file, as ``(line number, text)``; a file
    holding one pretty-printed game gives ``(0, whole text)``, already checked to be one bounded
    JSON object. Only a regular file is read (at most :data:`MAX_GAMES_FILE_BYTES`, each game at
    most :data:`MAX_GAME_BYTES`), line by line, so memory stays small; a leading byte-order mark
    is ignored (:mod:`inputs`).

    Raises:
        GameError: the file cannot be read, is empty, a line is too long or not UTF-8.
    """
    expected = "a saved-games file (JSON Lines, simulate --save)"
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


def _whole_json(text: str) -> Any:
    """``text`` parsed as one JSON value, or ``None`` when it is not one (bounded first)."""
    try:
        check_json_text(text, GameError, "saved game")
        return json.loads(text)
    except ValueError:  # GameError and JSONDecodeError are ValueErrors
        return None


def save_games(path: str, lines: Iterable[str]) -> None:
    """Write JSON lines to ``path`` whole or not at all (:func:`files.write_text_atomically`:
    a temp file in the same directory, then ``os.replace``; a symbolic link is followed).

    Raises:
        GameError: the file cannot be written (an empty path, not a regular file, or an
            operating-system error); the old file, if any, is untouched.
    """
    text = "".join(f"{line}\n" for line in lines)
    try:
        write_text_atomically(path, text)
    except FileWriteError as error:
        raise GameError(str(error)) from None
