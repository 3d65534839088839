"""The ``denial`` term of the advisor's evaluation (:mod:`.advise`): minus half of the best
immediate gain (T25, :meth:`.gains.ImmediateGains.best_immediate`) the next player could take
from the board a move leaves (their shelf, their card if known, the goals' next tokens).

:func:`next_best` enumerates the next player's picks on a board (T10-T12); :class:`NextBest`
gives the same for every pick of the active player from one list of the next player's picks
on the current board (a pick only frees tiles, T10). When the move triggers a refill (T16) the
next player picks from a fresh random board instead: :func:`refill_outlook` averages the gain
exactly over every board the refill can draw when there are at most :data:`EXACT_REFILL_BOARDS`
(:mod:`.refill`), else over seeded samples, with a 95% interval
(:func:`shelfie_solver.core.stats.estimate`).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from shelfie_solver.core.stats import estimate
from shelfie_solver.tile.placements import Placements
from shelfie_solver.tile.refill import refill_boards, refill_count
from shelfie_solver.tile.rules import EMPTY, SIDE
from shelfie_solver.tile.state import BOARD_NEIGHBOURS, Board, Setup, State, draw_refill, free_cells, legal_picks


def next_best(opponent: Placements, board: Board) -> int:
    """The next player's best immediate gain (x4) on ``board``."""
    best = 0
    for pick in legal_picks(board, opponent.shelf):
        best = max(best, opponent.best_immediate(tuple(board[c] for c in pick)))
    return best


#: A refill (T16) is averaged exactly, over every board it can draw, when it has at most this many.
EXACT_REFILL_BOARDS = 1000


@dataclass(frozen=True)
class RefillOutlook:
    """The next player's best immediate gain on the board a refill (T16) would draw, in quarters
    of a point: with ``exact``, its expectation over all ``samples`` boards the refill can draw
    (each weighted by its probability, :func:`.refill.refill_boards`; ``low`` = ``high`` = the mean); otherwise
    the exact ``mean`` of ``samples`` seeded draws and its 95% interval ``low``-``high`` (display
    floats, quarters; NaN when every draw gave the same gain: no t interval, core/stats.Estimate).
    With the shipped layout a refill of a full bag has 6^13+ outcomes, so it is sampled; a bag of one or two types, or a nearly empty bag (T17), can be enumerated."""

    mean: Fraction
    samples: int
    low: float
    high: float
    exact: bool = False


def refill_outlook(setup: Setup, state: State, after: Board, opponent: Placements, samples: int,
                   rng: np.random.Generator, exact_boards: int = EXACT_REFILL_BOARDS) -> RefillOutlook:
    """The expectation of :func:`next_best` over the refill that follows a move leaving ``after``
    (the bag: ``state.bag``; with ``refill = "all"`` the board's tiles go back first, T16): exact
    when the refill can draw at most ``exact_boards`` boards (:func:`.refill.refill_count`),
    otherwise estimated from ``samples`` boards drawn with ``rng``."""
    before = State(after, state.bag, state.shelves, state.tokens, state.stacks, state.end_token, state.turn)
    count = refill_count(setup, before)
    if count <= exact_boards:
        denominator, boards = refill_boards(setup, before)
        mean = Fraction(sum(weight * next_best(opponent, board) for weight, board in boards), denominator)
        return RefillOutlook(mean, count, float(mean), float(mean), exact=True)
    base = [EMPTY] * len(after) if setup.rules.refill == "all" else list(after)
    values = []
    for _ in range(samples):
        event = draw_refill(setup, before, rng)
        board = list(base)
        for cell, t in zip(event.cells, event.types):
            board[cell] = t
        values.append(next_best(opponent, tuple(board)))
    stats = estimate(values)
    return RefillOutlook(stats.mean, samples, stats.low, stats.high)


#: ``_LINES[most][x]``: the straight lines of 1 to ``most`` board cells through cell ``x`` (along a
#: row, not wrapping past its end, or down a column; T11).
def _lines(x: int, most: int) -> tuple[tuple[int, ...], ...]:
    lines = []
    for step in (1, SIDE):
        for start in range(most):  # x at position ``start`` of the line
            for length in range(start + 1, most + 1):
                line = tuple(x - start * step + k * step for k in range(length))
                if all(0 <= c < SIDE * SIDE and (step == SIDE or c // SIDE == x // SIDE) for c in line):
                    lines.append(line)
    return tuple(lines)


_LINES = tuple(tuple(_lines(x, most) for x in range(SIDE * SIDE)) for most in range(4))


def _mask(cells: tuple[int, ...]) -> int:
    """Board cells as a bit mask (bit ``cell`` set)."""
    mask = 0
    for cell in cells:
        mask |= 1 << cell
    return mask


class NextBest:
    """The next player's best immediate gain (x4) after each pick of the active player, from one
    list of the next player's picks on the current board: removing tiles only frees tiles (T10),
    so a pick disjoint from the removed cells stays legal; the picks that become legal are those
    through a newly freed neighbour of a removed cell. Equal to :func:`next_best` on the board
    after the pick (checked in tests/test_tile_advise.py)."""

    def __init__(self, opponent: Placements, board: Board, kept_for_turn: bool = False):
        self.opponent, self.board = opponent, board
        # the best gain of a pick's types: with ``kept_for_turn`` from the placement sums that the
        # next player's own turn reuses (:meth:`Placements.best_from_sums`, the strategies), else
        # from the immediate gains alone (one position ranked)
        self.gain = opponent.best_from_sums if kept_for_turn else opponent.best_immediate
        self.free = set(free_cells(board))
        self.most = min(3, max(opponent.room))
        picks = legal_picks(board, opponent.shelf)
        self.ranked = sorted(((self.gain(tuple(board[c] for c in pick)), _mask(pick))
                              for pick in picks), key=lambda item: -item[0])

    def kept(self, taken: tuple[int, ...]) -> int:
        """A lower bound of :meth:`after`: the best gain (x4) among the next player's picks of the
        current board that avoid ``taken`` (still legal once it is removed, T10)."""
        removed = _mask(taken)
        return next((value for value, pick in self.ranked if not pick & removed), 0)

    def after(self, taken: tuple[int, ...]) -> int:
        """The best gain (x4) once ``taken`` is removed."""
        removed = set(taken)
        best = self.kept(taken)
        if self.most == 0:
            return best
        board = self.board
        fresh = {n for c in taken for n in BOARD_NEIGHBOURS[c]
                 if board[n] != EMPTY and n not in removed and n not in self.free}
        if not fresh:
            return best
        free = (self.free | fresh) - removed
        best_immediate = self.gain
        for x in fresh:
            for line in _LINES[self.most][x]:
                if free.issuperset(line):
                    value = best_immediate(tuple(board[c] for c in line))
                    if value > best:
                        best = value
        return best
