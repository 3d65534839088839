"""The immutable record of a full game (RULES.md D1, D5-D20): its events, the state a player
sees when a decision is due, the legal markings of a final roll, the strategy protocol and the
finished :class:`Game`.

Every action of a game becomes an immutable event (:class:`Start`, :class:`Roll`,
:class:`Hold`, :class:`Stop`, :class:`Mark`, :class:`UncheckedMark`, :class:`Fail`, :class:`Pass`,
:class:`Block`, :class:`EndTriggered`, :class:`GameOver`). :mod:`shelfie_solver.dice.game.turn`
plays a game and appends them; :mod:`shelfie_solver.dice.game.record` saves and replays them.

Seats are 0-based everywhere (events, JSON). Blocking (D15) is recorded only where it
eliminates something: one :class:`Block` per (completed line, other player who had available
items in it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import ClassVar, Protocol

import numpy as np

from shelfie_solver.dice import allocate
from shelfie_solver.dice.board import Board, ItemSets, Marks, item_sets, parse_marks
from shelfie_solver.dice.rolls import Counts
from shelfie_solver.core.errors import ShelfieError
from shelfie_solver.dice.rules import Ruleset
from shelfie_solver.dice.sheet_rules import end_trigger_shelves

#: The ``format`` key of a saved game (JSON object, one per line in JSON Lines).
GAME_FORMAT = "shelfie-solve game 1"
#: Most seats in a game (D1: 2-4 players; 1 is solitaire, this tool's extension of the rules).
MAX_PLAYERS = 4
#: The numbers of players a game may have, as every message and help says them: D1's 2 to 4, and
#: 1, solitaire, which the rules do not have (this tool plays it: ``simulate``, ``solve-game``).
PLAYER_COUNTS = f"2 to {MAX_PLAYERS} players (D1), or 1 for solitaire (this tool's extension)"


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
    is :class:`Stop` when a player says so (``play stop``); otherwise the next event of the turn
    is :class:`Mark` or :class:`Fail`, which ends the rolling (an implicit stop, not recorded)."""

    kind: ClassVar[str] = "hold"
    player: int
    keep: Counts


@dataclass(frozen=True)
class Stop:
    """``player`` keeps every die with re-rolls left and ends the roll phase (D7): the dice
    showing are final, a re-roll is refused. Recorded only when said (``play stop``, the
    session's ``stop``); :func:`turn.play_game` never makes one (a strategy keeping every die
    just goes on to its marking), and a file without any stays valid. The next event of the
    turn is :class:`Mark` or :class:`Fail`."""

    kind: ClassVar[str] = "stop"
    player: int


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
    most ``combinations_per_turn``), not the dice (D8, D10-D12). Never made by :func:`turn.play_game`."""

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
    """``player`` has no available item: the turn passes without a roll (:mod:`turn`'s docstring)."""

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


Event = Start | Roll | Hold | Stop | Mark | UncheckedMark | Fail | Pass | Block | EndTriggered | GameOver
EVENT_TYPES: dict[str, type] = {cls.kind: cls for cls in (Start, Roll, Hold, Stop, Mark, UncheckedMark, Fail, Pass,
                                                          Block, EndTriggered, GameOver)}


# --- the order of play ---------------------------------------------------------------------


def place_in_round(seat: int, first: int, players: int) -> int:
    """``seat``'s 0-based place in every round's order of play: play goes clockwise from the first
    player (D5), seat ``first`` opens each round and the seat before it closes it (D18: the
    round is played out after the end is triggered). The one home of the order of play; every
    other module asks this function or :class:`GameState`'s :meth:`~GameState.place`."""
    return (seat - first) % players


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
        """Closed shelves that trigger the end (D17; :func:`sheet_rules.end_trigger_shelves`)."""
        return end_trigger_shelves(self.board, self.rules)

    def place(self, seat: int) -> int:
        """``seat``'s 0-based place in every round's order of play (:func:`place_in_round`)."""
        return place_in_round(seat, self.first, self.players)

    def is_last_in_round(self, seat: int | None = None) -> bool:
        """Whether ``seat`` (default: the active seat) plays the last turn of each round (D5): once
        the end is triggered, the game ends after its turn (D18)."""
        return self.place(self.active if seat is None else seat) == self.players - 1

    def plays_later_this_round(self, seat: int) -> bool:
        """Whether ``seat`` still has a turn in this round after the active player's (D5, D18)."""
        return self.place(seat) > self.place(self.active)

    def turns_left_in_round(self) -> int:
        """Turns of this round after the active player's (D18: once the end is triggered, the
        turns left in the game)."""
        return self.players - 1 - self.place(self.active)


# --- legal markings, fast ------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class LegalMarkings:
    """The legal markings of a final roll (D8-D12) as :func:`allocate.legal_sets` lists them (by
    size, then cell order), with the item sets at hand for vectorised strategies.

    Attributes:
        index: ``int64 (K,)`` indices into :func:`board.item_sets` of the legal sets.
        every: every item set of the board (:func:`board.item_sets`), which ``index`` reads.
        sets: those sets (:class:`board.ItemSets`, ``K`` rows; taken from ``every`` when first
            read). ``K == 0``: a failed result (D13).
    """

    index: np.ndarray
    every: ItemSets
    _given: dict[tuple[int, ...], int] = field(default_factory=dict, init=False, repr=False)

    @property
    def sets(self) -> ItemSets:
        """The legal sets (:class:`board.ItemSets`, ``K`` rows), taken once when first asked."""
        found: ItemSets | None = self.__dict__.get("_sets")
        if found is None:
            found = self.every.take(self.index)
            object.__setattr__(self, "_sets", found)
        return found

    def __len__(self) -> int:
        return len(self.index)

    def cells(self, i: int) -> tuple[int, ...]:
        """Sorted cell indices of legal marking ``i``."""
        found = tuple(int(c) for c in self.every.cells[self.index[i]].tolist() if c >= 0)
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



def apply_to_sheets(event: Event, sheets: list[Marks]) -> bool:
    """Replay one event of a played game onto ``sheets`` (one :class:`Marks` per seat, changed in
    place): a :class:`Mark` marks its items (D8-D10), a :class:`Fail` or :class:`Block`
    eliminates its cells (D13, D15); returns whether the event is :class:`EndTriggered` (D17).
    Other events change no sheet."""
    if isinstance(event, Mark):
        sheets[event.player] = sheets[event.player].with_marked(event.cells)
    elif isinstance(event, (Fail, Block)):
        sheets[event.player] = sheets[event.player].with_eliminated(event.cells)
    return isinstance(event, EndTriggered)

def legal_sets(dice: Counts, board: Board, marks: Marks, rules: Ruleset) -> LegalMarkings:
    """The legal markings of the final ``dice`` on ``marks`` (D8-D12); empty = failed result."""
    index = allocate.legal_sets(dice, board, marks, rules)
    return LegalMarkings(index, item_sets(board, rules.combinations_per_turn))


# --- strategies -----------------------------------------------------------------------------


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

    def played_turns(self) -> list[tuple[GameState, Event]]:
        """Every turn that started with a roll (D6), in order: the state at its start (sheets as
        the earlier events, blocks included, left them; D15, D17) and the event that ended it (a
        :class:`Mark`, :class:`UncheckedMark` or :class:`Fail`). Turns passed without a roll are
        left out."""
        board, rules = self.board, self.rules
        start = self.events[0]
        assert isinstance(start, Start)
        sheets = [parse_marks(text, board) for text in start.sheets]
        triggered, turn = False, -1
        out: list[tuple[GameState, Event]] = []
        before: GameState | None = None
        for event in self.events:
            if isinstance(event, Roll) and event.rerolls_left == rules.rerolls:
                turn += 1
                before = GameState(board, rules, tuple(sheets), event.player, start.first, turn, triggered)
            if isinstance(event, (Mark, UncheckedMark, Fail)) and before is not None:
                out.append((before, event))
                before = None
            triggered = apply_to_sheets(event, sheets) or triggered
        return out

