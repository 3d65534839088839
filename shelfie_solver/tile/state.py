"""The tile game's state, legal moves and turns, as immutable replayable events (T6-T18, T23-T26).

A game is a :class:`Setup` (ruleset, layout, player count, the 12 personal cards and who holds
which) and a sequence of events: :class:`Deal`, :class:`Refill` (the tiles drawn, so replay needs
no random generator), :class:`Turn` (a move), and the derived :class:`GoalScored`,
:class:`EndToken` and :class:`Over`. :func:`apply_move` and :func:`apply_refill` are pure: they
return a new :class:`State`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache
from itertools import permutations

import numpy as np

from shelfie_solver.tile.errors import TileError
from shelfie_solver.tile.rules import (COLUMNS, EMPTY, ROWS, SIDE, TILES_PER_TYPE, TYPES, Layout, PersonalCard, Shelf, TileRuleset)
from shelfie_solver.tile.shelf import goal_holds, score_shelf

#: T7: tokens on each common goal card, by player count, highest first.
TOKENS = {2: (8, 4), 3: (8, 6, 4), 4: (8, 6, 4, 2)}
Board = tuple[int, ...]
"""The living room: 81 type ids or :data:`EMPTY`, index ``r * 9 + c``."""


def board_cell_name(cell: int) -> str:
    """A board cell as ``r<row>c<column>``, 1-based from the top left (``r1c1`` to ``r9c9``),
    as the dice game names items and as shelf columns count (1-5)."""
    return f"r{cell // SIDE + 1}c{cell % SIDE + 1}"


def parse_board_cell(text: str) -> int:
    """The board cell named ``r<row>c<column>`` (1-9 each, case-insensitive): the inverse of
    :func:`board_cell_name`. The 0-based ``row,column`` of older versions is refused, not read
    (``4,1`` would otherwise name another cell).

    Raises:
        TileError: not of that form, or out of the 9 x 9 board.
    """
    match = re.fullmatch(r"[rR](\d)[cC](\d)", text.strip())
    if match is None or not all(1 <= int(x) <= SIDE for x in match.groups()):
        hint = "; row,column numbers are no longer read (they counted from 0)" if "," in text else ""
        raise TileError(f"bad board cell {text[:20]!r}; expected r<row>c<column>, 1-9 from the top left, "
                        f"e.g. r5c2{hint}")
    return (int(match.group(1)) - 1) * SIDE + int(match.group(2)) - 1


#: Orthogonal neighbours of each board cell inside the 9 x 9 grid.
BOARD_NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(
    tuple(n for n, ok in ((i - SIDE, i >= SIDE), (i + SIDE, i < SIDE * (SIDE - 1)),
                          (i - 1, i % SIDE > 0), (i + 1, i % SIDE < SIDE - 1)) if ok)
    for i in range(SIDE * SIDE))


@dataclass(frozen=True)
class Setup:
    """What does not change during a game: its setup (T1-T9).

    Attributes:
        rules: the ruleset flags. layout: the living room (T3). players: 2-4 (T1).
        cards: the 12 personal cards (T20). personal: each seat's card index into ``cards`` (T8),
        or -1 when it is hidden (an opponent's card in a position file).
        goals: the common goal cards drawn (T-CG ids, T7). first: the first player's seat (T9).
    """

    rules: TileRuleset
    layout: Layout
    players: int
    cards: tuple[PersonalCard, ...]
    personal: tuple[int, ...]
    goals: tuple[int, ...]
    first: int

    @cached_property
    def usable(self) -> tuple[bool, ...]:
        """Board cells used at this player count (T3)."""
        return self.layout.usable(self.players)

    @cached_property
    def usable_cells(self) -> tuple[int, ...]:
        """Indices of the usable board cells, in order."""
        return tuple(i for i, ok in enumerate(self.usable) if ok)

    def card(self, seat: int) -> PersonalCard | None:
        """The personal card of ``seat`` (None when hidden)."""
        index = self.personal[seat]
        return self.cards[index] if index >= 0 else None

    @property
    def last(self) -> int:
        """The seat last in turn order (T24: right of the first player)."""
        return (self.first - 1) % self.players


@dataclass(frozen=True)
class Move:
    """A move (T14): board ``cells`` taken, in placement order (the first lands lowest), into
    shelf ``column`` (0-4)."""

    cells: tuple[int, ...]
    column: int

    def types(self, board: Board) -> tuple[int, ...]:
        """The tile types placed, bottom first."""
        return tuple(board[c] for c in self.cells)

    def text(self, board: Board) -> str:
        """E.g. ``r5c4 r5c5 -> column 2 as CB``."""
        return (f"{' '.join(board_cell_name(c) for c in self.cells)} -> column {self.column + 1} as "
                f"{''.join(TYPES[t] for t in self.types(board))}")


@dataclass(frozen=True)
class State:
    """A position (immutable).

    Attributes:
        board: the living room (81 cells). bag: tiles left per type (T2, T6).
        shelves: one per seat. tokens: per seat, the token points taken from each common goal
        card (0 = not yet; T18). stacks: per card, the tokens still on it, top first.
        end_token: the seat holding the end-game token (T23), or None. turn: the active seat.
        turns: turns played. over: whether the game has ended (T24).
    """

    board: Board
    bag: tuple[int, ...]
    shelves: tuple[Shelf, ...]
    tokens: tuple[tuple[int, ...], ...]
    stacks: tuple[tuple[int, ...], ...]
    end_token: int | None
    turn: int
    turns: int = 0
    over: bool = False


# --- events -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Deal:
    """Setup (T7-T9): the common goals, the personal cards (indices) and the first player."""

    goals: tuple[int, ...]
    personal: tuple[int, ...]
    first: int


@dataclass(frozen=True)
class Refill:
    """Tiles drawn from the bag onto the board (T6, T16-T17): ``cells[i]`` gets ``types[i]``;
    ``returned`` tells whether the board's tiles first went back to the bag (T16)."""

    cells: tuple[int, ...]
    types: tuple[int, ...]
    returned: bool


@dataclass(frozen=True)
class Turn:
    """A player's move (T10-T14)."""

    player: int
    move: Move


@dataclass(frozen=True)
class GoalScored:
    """T18: ``player`` took the top token (``points``) of common goal ``goal``."""

    player: int
    goal: int
    points: int


@dataclass(frozen=True)
class EndToken:
    """T23: ``player`` filled their shelf first and took the end-game token (+1)."""

    player: int


@dataclass(frozen=True)
class Over:
    """T24-T26: final scores per seat and the winner."""

    scores: tuple[int, ...]
    winner: int


Event = Deal | Refill | Turn | GoalScored | EndToken | Over


# --- setup ------------------------------------------------------------------------------------


def start_state(setup: Setup) -> State:
    """The state after the deal, before the board is filled: full bag, empty board and shelves."""
    n = setup.players
    return State(board=(EMPTY,) * (SIDE * SIDE), bag=(TILES_PER_TYPE,) * len(TYPES),
                 shelves=((EMPTY,) * (ROWS * COLUMNS),) * n, tokens=((0,) * len(setup.goals),) * n,
                 stacks=(TOKENS[n],) * len(setup.goals), end_token=None, turn=setup.first)


def deal(rules: TileRuleset, layout: Layout, cards: tuple[PersonalCard, ...], players: int,
         rng: np.random.Generator) -> Setup:
    """T7-T9: draw the common goals, deal personal cards and pick the first player at random.

    Raises:
        TileError: a player count outside 2-4 (T1).
    """
    if players not in TOKENS:
        raise TileError(f"the tile game is for 2-4 players (T1), got {players}")
    goals = tuple(sorted(int(g) + 1 for g in rng.choice(12, rules.common_goals, replace=False)))
    personal = tuple(int(c) for c in rng.choice(len(cards), players, replace=False))
    first = int(rng.integers(players))
    return Setup(rules, layout, players, cards, personal, goals, first)


# --- refill -----------------------------------------------------------------------------------


def needs_refill(board: Board) -> bool:
    """T16: no board tile has an orthogonally adjacent tile (all isolated, or the board empty)."""
    for i, t in enumerate(board):
        if t != EMPTY and any(board[n] != EMPTY for n in BOARD_NEIGHBOURS[i]):
            return False
    return True


def refill_source(setup: Setup, state: State) -> tuple[bool, tuple[int, ...], list[int]]:
    """What a refill (T16) draws from and onto: ``(whether the board's tiles go back first,
    tiles per type in the bag then, the cells to fill)``; with ``refill = "all"`` the board's
    tiles return and every usable cell is filled, with ``"empty"`` only the empty ones."""
    returned = setup.rules.refill == "all"
    bag = list(state.bag)
    if returned:
        for t in state.board:
            if t != EMPTY:
                bag[t] += 1
        cells = list(setup.usable_cells)
    else:
        cells = [i for i in setup.usable_cells if state.board[i] == EMPTY]
    return returned, tuple(bag), cells


def draw_refill(setup: Setup, state: State, rng: np.random.Generator) -> Refill:
    """Draw the tiles of a refill (T6, T16, T17): with ``refill = "all"`` the board's tiles go back
    to the bag first and every usable cell is filled, with ``"empty"`` only the empty ones. When
    the bag runs short, it is emptied onto a random subset of the cells (T17)."""
    returned, counts_before, cells = refill_source(setup, state)
    bag = np.array(counts_before, dtype=np.int64)
    k = min(len(cells), int(bag.sum()))
    if k < len(cells):
        cells = sorted(int(c) for c in rng.choice(cells, k, replace=False))
    counts = rng.multivariate_hypergeometric(bag, k)
    tiles = np.repeat(np.arange(len(TYPES)), counts)
    rng.shuffle(tiles)
    return Refill(tuple(cells), tuple(int(t) for t in tiles), returned)


def apply_refill(setup: Setup, state: State, event: Refill) -> State:
    """The state after ``event``.

    Raises:
        TileError: a cell not usable or not empty, or more tiles of a type than the bag holds (T2).
    """
    board = list(state.board)
    bag = list(state.bag)
    if event.returned:
        for i, t in enumerate(board):
            if t != EMPTY:
                bag[t] += 1
                board[i] = EMPTY
    if len(event.cells) != len(event.types):
        raise TileError("refill: cells and types differ in length")
    for cell, t in zip(event.cells, event.types):
        if not (0 <= cell < SIDE * SIDE) or not setup.usable[cell] or board[cell] != EMPTY:
            raise TileError(f"refill: cell {cell} is not an empty usable board cell (T3)")
        if not (0 <= t < len(TYPES)) or bag[t] == 0:
            raise TileError(f"refill: no {t} tile left in the bag (T2)")
        bag[t] -= 1
        board[cell] = t
    return replace(state, board=tuple(board), bag=tuple(bag))


# --- moves ------------------------------------------------------------------------------------


@lru_cache(maxsize=16)
def free_cells(board: Board) -> tuple[int, ...]:
    """T10: board tiles with a free side (an orthogonal neighbour without a tile, or the edge);
    the last few boards' answers are kept (both seats' picks on one board need them)."""
    return tuple(i for i, t in enumerate(board)
                 if t != EMPTY and (len(BOARD_NEIGHBOURS[i]) < 4 or any(board[n] == EMPTY for n in BOARD_NEIGHBOURS[i])))


@lru_cache(maxsize=64)
def column_room(shelf: Shelf) -> tuple[int, ...]:
    """Empty cells per shelf column (the last shelves' answers are kept: each shelf is asked
    for its legal picks, placements and moves in several turns)."""
    return tuple(sum(1 for r in range(ROWS) if shelf[r * COLUMNS + c] == EMPTY) for c in range(COLUMNS))


def place_tiles(shelf: Shelf, column: int, types: tuple[int, ...]) -> Shelf:
    """The shelf after tiles of ``types`` are placed in ``column``, the first lowest (T4, T14);
    the column must have room for them (T12)."""
    cells = list(shelf)
    row = ROWS - 1
    while cells[row * COLUMNS + column] != EMPTY:
        row -= 1
    for t in types:
        cells[row * COLUMNS + column] = t
        row -= 1
    return tuple(cells)


def legal_picks(board: Board, shelf: Shelf) -> list[tuple[int, ...]]:
    """T10-T12: the sets of board cells the active player may take (sorted tuples): 1-3 tiles with
    a free side at turn start, in one straight line without gaps, at most the most room in a column."""
    return list(_straight_picks(board, min(3, max(column_room(shelf)))))


@lru_cache(maxsize=16)
def _straight_picks(board: Board, most: int) -> tuple[tuple[int, ...], ...]:
    """:func:`legal_picks` of at most ``most`` tiles (the last boards' answers are kept: both
    seats' picks on one board are asked, and mostly with the same ``most``)."""
    if most == 0:
        return ()
    free = free_cells(board)
    is_free = set(free)
    picks: list[tuple[int, ...]] = [(i,) for i in free]
    for i in free:
        for step in (1, SIDE):  # along a row (no wrapping past its end), down a column
            line: tuple[int, ...] = (i,)
            for _ in range(most - 1):
                j = line[-1] + step
                if (step == 1 and j % SIDE == 0) or j not in is_free:
                    break
                line = line + (j,)
                picks.append(line)
    return tuple(picks)


def pick_orders(state: State) -> list[tuple[tuple[int, ...], dict[tuple[int, ...], tuple[int, ...]]]]:
    """The active player's picks (T10-T12, sorted cells) with their placement orders (T14): per
    pick, ``{types placed bottom first: the first order of cells giving them}`` (orders that
    differ only by swapping same-type tiles are one)."""
    board = state.board
    return [(pick, cell_orders(board, pick)) for pick in legal_picks(board, state.shelves[state.turn])]


def cell_orders(board: Board, pick: tuple[int, ...]) -> dict[tuple[int, ...], tuple[int, ...]]:
    """The placement orders of one pick (T14): ``{types placed bottom first: the first order of
    the cells (in ``itertools.permutations`` order) giving them}``."""
    orders: dict[tuple[int, ...], tuple[int, ...]] = {}
    for order in permutations(pick):
        orders.setdefault(tuple(board[c] for c in order), order)
    return orders


def legal_moves(state: State) -> list[Move]:
    """Every legal move of the active player (T10-T14), per pick of :func:`pick_orders`, per
    column with room (T12), per order. Orders that differ only by swapping same-type tiles give
    one move (T14)."""
    room = column_room(state.shelves[state.turn])
    moves: list[Move] = []
    for pick, orders in pick_orders(state):
        for column in range(COLUMNS):
            if room[column] >= len(pick):
                moves.extend(Move(order, column) for order in orders.values())
    return moves


def check_move(state: State, move: Move) -> None:
    """Raise :class:`TileError` (naming the rule) unless ``move`` is legal for the active player."""
    cells = move.cells
    twice = next((c for i, c in enumerate(cells) if c in cells[:i]), None)
    if twice is not None and 0 <= twice < SIDE * SIDE:
        raise TileError(f"illegal pick: the cell {board_cell_name(twice)} is given twice; take 1, 2 or 3 "
                        "different tiles (T10)")
    if not 1 <= len(cells) <= 3 or len(set(cells)) != len(cells):
        raise TileError(f"illegal pick: take 1, 2 or 3 distinct tiles (T10), got {len(cells)}")
    if not all(0 <= c < SIDE * SIDE for c in cells):
        raise TileError("illegal pick: a cell off the board (T10)")
    empty = [board_cell_name(c) for c in cells if state.board[c] == EMPTY]
    if empty:
        raise TileError(f"illegal pick: {', '.join(empty)} holds no tile (T10)")
    if tuple(sorted(cells)) not in set(legal_picks(state.board, (EMPTY,) * (ROWS * COLUMNS))):
        raise TileError("illegal pick: tiles need a free side and must be in one straight line without gaps (T10-T11)")
    if not 0 <= move.column < COLUMNS:
        raise TileError(f"illegal placement: column {move.column + 1} is not 1-5")
    if column_room(state.shelves[state.turn])[move.column] < len(cells):
        raise TileError(f"illegal placement: column {move.column + 1} has fewer than {len(cells)} empty cells (T12, T14)")


def apply_move(setup: Setup, state: State, move: Move, check: bool = True) -> tuple[State, list[Event]]:
    """Play ``move`` for the active player and end the turn (T14, T15: common goals T18, end
    trigger T23, end of game T24); the refill check (T16) is the caller's (it needs the bag's
    random draws): see :func:`needs_refill`.

    Returns:
        The new state and the events (the :class:`Turn`, then any :class:`GoalScored`,
        :class:`EndToken`, :class:`Over`).
    Raises:
        TileError: the game is over or the move is illegal (with ``check``).
    """
    if state.over:
        raise TileError("the game is over (T24)")
    if check:
        check_move(state, move)
    seat = state.turn
    shelf = list(state.shelves[seat])
    board = list(state.board)
    row = ROWS - 1
    while shelf[row * COLUMNS + move.column] != EMPTY:
        row -= 1
    for cell in move.cells:
        shelf[row * COLUMNS + move.column] = board[cell]
        board[cell] = EMPTY
        row -= 1
    new_shelf = tuple(shelf)
    events: list[Event] = [Turn(seat, move)]
    tokens = list(state.tokens[seat])
    stacks = list(state.stacks)
    for slot, goal in enumerate(setup.goals):  # T18
        if tokens[slot] == 0 and stacks[slot] and goal_holds(goal, new_shelf, setup.rules):
            tokens[slot] = stacks[slot][0]
            stacks[slot] = stacks[slot][1:]
            events.append(GoalScored(seat, goal, tokens[slot]))
    end_token = state.end_token
    if end_token is None and EMPTY not in new_shelf:  # T23
        end_token = seat
        events.append(EndToken(seat))
    shelves = state.shelves[:seat] + (new_shelf,) + state.shelves[seat + 1:]
    all_tokens = state.tokens[:seat] + (tuple(tokens),) + state.tokens[seat + 1:]
    over = end_token is not None and seat == setup.last  # T24
    new = State(tuple(board), state.bag, shelves, all_tokens, tuple(stacks), end_token,
                (seat + 1) % setup.players, state.turns + 1, over)
    if over:
        scores = final_scores(setup, new)
        events.append(Over(scores, winner(setup, scores)))
    return new, events


def total_score(setup: Setup, state: State, seat: int) -> int:
    """T25: the seat's score if the game ended now."""
    return score_shelf(state.shelves[seat], setup.rules, setup.card(seat), sum(state.tokens[seat]),
                       1 if state.end_token == seat else 0).total


def final_scores(setup: Setup, state: State) -> tuple[int, ...]:
    """T25 for every seat."""
    return tuple(total_score(setup, state, seat) for seat in range(setup.players))


def winner(setup: Setup, scores: tuple[int, ...]) -> int:
    """T26: the highest total; among tied players the latest in turn order from the first player."""
    return max(range(setup.players), key=lambda s: (scores[s], (s - setup.first) % setup.players))
