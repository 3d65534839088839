"""The move advisor (``shelfie-solve tile advise``): every legal move ranked by an evaluation
(:func:`rank_moves`), and the first-ranked moves alone (:func:`best_moves`, the strategies).

The evaluation of a move, in points (exact: integers in quarters, a ``Fraction`` at the end), is
the sum of

* ``immediate`` - the change of the score the mover would have if the game ended now (T25:
  groups T22, personal goal T21, the common-goal tokens taken this turn T18, the end token T23;
  :mod:`.gains`);
* ``groups`` - half the change of the group potential: each group of 2-5 tiles with an empty
  neighbour shelf cell is worth half the points its next tile would add (T22);
* ``personal`` - half the change of the personal potential: the points the still-empty cells of
  the card would add if each got its type (T21), halved; a wrong tile on a card cell loses it;
* ``tempo`` - minus half a point per missing cell of room for a 3-tile pick (T12): a shelf whose
  columns all have 1-2 free cells forces small picks (these four: :mod:`.placements`);
* ``denial`` - minus half of the best immediate gain the next player could take from the board
  this move leaves (their shelf, their card if known, the goals' next tokens). When the move
  triggers a refill (T16) the next player picks from a fresh random board: the gain is then its
  mean over a seeded sample of refills, with a 95% interval (``rank_moves(samples=...)``), or
  its exact expectation when the refill can draw few enough boards (:mod:`.refill`); the
  ``advisor`` strategy counts 0 there (:mod:`.denial`);
* ``race`` - the common-goal race (T18): for each goal the mover has not scored, the change of
  :func:`.race.race_quarters` (the token the mover can expect given how many tiles each player still
  needs, halved per tile needed, 0 beyond 3 tiles; :class:`.race.RaceTerm`).

Shelf outcomes depend only on (column, types placed), so each is computed once per position and
shared by every pick of the same types. The ``greedy`` baseline ranks by ``immediate`` alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from shelfie_solver.tile.denial import EXACT_REFILL_BOARDS, NextBest, RefillOutlook, refill_outlook
from shelfie_solver.tile.gains import QUARTER
from shelfie_solver.tile.placements import Placements, seat_placements
from shelfie_solver.tile.race import RaceTerm
from shelfie_solver.tile.rules import COLUMNS, EMPTY
from shelfie_solver.tile.state import (BOARD_NEIGHBOURS, Move, Setup, State, cell_orders, legal_moves, legal_picks,
                                       needs_refill, pick_orders)

#: The terms of the evaluation (module docstring), in the order of :attr:`RankedMove.parts`.
PARTS = ("immediate", "groups", "personal", "tempo", "denial", "race")


@dataclass(frozen=True)
class RankedMove:
    """A legal move with its evaluation.

    Attributes:
        move: the move. rank: 1 = best (equal values share a rank). value: the sum of ``parts``
        (points, exact). parts: each term of the module docstring (points, exact).
        goals: common goals (T-CG ids) it scores now. refill: whether it triggers a refill (T16).
        end: whether it fills the shelf first (T23). outlook: for a refill with sampling on, the
        next player's expected best gain on the new board (quarters of a point).
    """

    move: Move
    rank: int
    value: Fraction
    parts: dict[str, Fraction]
    goals: tuple[int, ...]
    refill: bool
    end: bool
    outlook: RefillOutlook | None = None


_Scored = tuple[int | Fraction, Move, tuple[int | Fraction, ...], tuple[int, ...], bool, bool, RefillOutlook | None]


def score_moves(setup: Setup, state: State, immediate_only: bool, samples: int = 0,
                rng: np.random.Generator | None = None, exact_boards: int = EXACT_REFILL_BOARDS,
                race: bool = True) -> list[_Scored]:
    """``(total x4, move, parts x4, goals, refill, end, outlook)`` for every legal move, unsorted;
    with ``samples`` > 0 (and ``rng``) a refill's denial is the expectation of
    :func:`refill_outlook` (exact up to ``exact_boards`` boards), else 0. ``immediate_only``
    (greedy): the total is the immediate gain and the other fields are empty. ``race``: with the
    race term (:class:`RaceTerm`; else 0, the first advisor's evaluation)."""
    seat = state.turn
    mine = seat_placements(setup, state, seat)
    nxt = (seat + 1) % setup.players
    opponent = seat_placements(setup, state, nxt) if not immediate_only else None
    denial_cache: dict[tuple[int, ...], tuple[int | Fraction, bool, RefillOutlook | None]] = {}
    next_best = NextBest(opponent, state.board) if opponent is not None else None
    outlooks: dict[tuple[int, ...], RefillOutlook] = {}
    racing = RaceTerm(setup, state, mine, opponent) if race and not immediate_only else None
    scored: list[_Scored] = []
    for move in legal_moves(state):
        if immediate_only:  # greedy: the incremental gain alone (goals and end not reported)
            scored.append((mine.immediate(move.column, move.types(state.board)), move, (), (), False, False, None))
            continue
        types = move.types(state.board)
        immediate, groups, personal, tempo, goals, end = mine.value(move.column, types)
        race_gain = racing.gain(move.column, types, goals) if racing is not None else 0
        picked = tuple(sorted(move.cells))
        hit = denial_cache.get(picked)
        if hit is None:
            board = list(state.board)
            for cell in picked:
                board[cell] = EMPTY
            after = tuple(board)
            refill = needs_refill(after)
            outlook = None
            denial: int | Fraction = 0
            if opponent is None:
                pass
            elif not refill and next_best is not None:
                denial = -(next_best.after(picked) // 2)
            elif samples > 0 and rng is not None:
                key = tuple(sorted(state.board[c] for c in picked)) if setup.rules.refill == "all" else after
                if key not in outlooks:
                    outlooks[key] = refill_outlook(setup, state, after, opponent, samples, rng, exact_boards)
                outlook = outlooks[key]
                denial = -outlook.mean / 2
            hit = denial_cache[picked] = (denial, refill, outlook)
        denial, refill, outlook = hit
        parts = (immediate, groups, personal, tempo, denial, race_gain)
        scored.append((sum(parts), move, parts, goals, refill, end, outlook))
    return scored


def _best_advised(setup: Setup, state: State, race: bool = True) -> list[Move]:
    """The moves of best total value of :func:`score_moves` (no refill sampling), in legal-move
    order, by bound and prune: the denial term is at most minus half the next player's best gain
    among its current picks that a pick leaves alone (:meth:`NextBest.kept`), so picks are
    scored exactly best bound first, and those whose bound is below the best total so far are
    skipped (they cannot reach it; exact ties are kept). The race term (with ``race``) is
    bounded by :meth:`RaceTerm.cap` in the bound and computed only for the placements of the picks
    reached whose bound reaches the best; a pick whose exact race values leave it below the best
    even with the kept denial is skipped before its denial is computed. Placements come from
    :meth:`Placements.sums` per multiset of types (shared by picks of the same types), and
    ``Move`` objects are built for the winners only."""
    seat = state.turn
    board = state.board
    mine = seat_placements(setup, state, seat)
    opponent = seat_placements(setup, state, (seat + 1) % setup.players)
    next_best = NextBest(opponent, board, kept_for_turn=True)
    racing = RaceTerm(setup, state, mine, opponent) if race else None
    racing_on = racing is not None and bool(racing.slots)
    caps = racing.cap_table() if racing is not None and racing_on else None
    tops, bounds = _pick_bounds(board, mine, next_best, caps)
    best, totals = _pruned_totals(tops, bounds, racing if racing_on else None, next_best)
    return _winner_moves(board, totals, best)


#: Per multiset of types (sorted): the best value plus race cap over its placements, and the
#: placements ``(column, types bottom first, value without race and denial, race cap, goals)``.
_Tops = dict[tuple[int, ...], tuple[int, list[tuple[int, tuple[int, ...], int, int, tuple[int, ...]]]]]
#: A pick's bound: ``(bound, kept denial, refill, position in legal_picks, pick, its types' key)``.
_Bound = tuple[int, int, bool, int, tuple[int, ...], tuple[int, ...]]


def _pick_bounds(board: tuple[int, ...], mine: Placements, next_best: NextBest,
                 caps: list[list[int]] | None) -> tuple[_Tops, list[_Bound]]:
    """The placements per multiset of types (:meth:`Placements.sums`; picks of the same types
    share them: the board does not enter a placement's value) and every legal pick's bound on
    its total, best first (:func:`_best_advised`): its types' best value plus race cap (``caps``
    per column and pick size, None without the race term) and the denial it keeps (0 when it
    triggers a refill, T16)."""
    # T16 after a pick: no two tiles left side by side. ``degree``: tiles next to each tile; a
    # straight pick of k tiles holds k - 1 of the board's ``pairs`` of touching tiles
    degree = {cell: sum(1 for n in BOARD_NEIGHBOURS[cell] if board[n] != EMPTY)
              for cell, t in enumerate(board) if t != EMPTY}
    pairs = sum(degree.values()) // 2
    tops: _Tops = {}
    bounds: list[_Bound] = []
    for position, pick in enumerate(legal_picks(board, mine.shelf)):  # pick_orders' order
        key = tuple(sorted([board[c] for c in pick]))
        found = tops.get(key)
        if found is None:
            k = len(key)
            items = []
            top: int | None = None
            for column, types, v, goals, _ in mine.sums(key):
                cap = caps[column][k] if caps is not None else 0
                items.append((column, types, v, cap, goals))
                if top is None or v + cap > top:
                    top = v + cap
            assert top is not None  # legal_picks: some column has room for the pick (T12)
            found = tops[key] = (top, items)
        refill = pairs == sum(degree[cell] for cell in pick) - (len(pick) - 1)  # T16: a fresh board, denial 0 here
        kept = 0 if refill else -(next_best.kept(pick) // 2)
        bounds.append((found[0] + kept, kept, refill, position, pick, key))
    bounds.sort(key=lambda item: -item[0])
    return tops, bounds


def _pruned_totals(tops: _Tops, bounds: list[_Bound], racing: RaceTerm | None,
                   next_best: NextBest) -> tuple[int | None, list[tuple[int, tuple[int, ...], int, int, tuple[int, ...]]]]:
    """The best total and the exact ``(total, pick, position, column, types)`` of the picks the
    bound and prune of :func:`_best_advised` reaches (``racing``: the race term, None when off)."""
    best: int | None = None
    totals: list[tuple[int, tuple[int, ...], int, int, tuple[int, ...]]] = []
    for bound, kept, refill, position, picked, key in bounds:
        if best is not None and bound < best:
            break
        scored = []
        for column, types, v, cap, goals in tops[key][1]:
            if racing is not None:
                if best is not None and v + cap + kept < best:
                    continue  # cannot reach the best even with the race's cap and the kept denial
                v += racing.gain(column, types, goals)
            scored.append((column, types, v))
        if not scored or (best is not None and max(v for _, _, v in scored) + kept < best):
            continue  # the exact race term leaves the pick below the best: skip its denial
        denial = 0 if refill else -(next_best.after(picked) // 2)
        for column, types, v in scored:
            total = v + denial
            totals.append((total, picked, position, column, types))
            if best is None or total > best:
                best = total
    return best, totals


def _winner_moves(board: tuple[int, ...], totals: list[tuple[int, tuple[int, ...], int, int, tuple[int, ...]]],
                  best: int | None) -> list[Move]:
    """The ``Move`` of every total equal to ``best``, in legal_moves' order: pick, column, then
    the pick's orders as cell_orders lists them."""
    winners = sorted((position, column, picked, types) for total, picked, position, column, types in totals
                     if total == best)
    orders: dict[tuple[int, ...], tuple[int, ...]] = {}
    ranks: dict[tuple[int, ...], int] = {}
    last = -1
    chosen = []
    for position, column, picked, types in winners:
        if position != last:
            last, orders = position, cell_orders(board, picked)
            ranks = {t: i for i, t in enumerate(orders)}
        chosen.append((position, column, ranks[types], orders[types]))
    chosen.sort()
    return [Move(cells, column) for _, column, _, cells in chosen]


def best_moves(setup: Setup, state: State, immediate_only: bool = False, race: bool = True) -> list[Move]:
    """The moves :func:`rank_moves` ranks first (exact ties: all of them, in legal-move order),
    without building the whole ranking (the strategies' fast path; a refill's denial counts 0
    here); with ``immediate_only`` the moves of best immediate score change (T25) instead;
    without ``race`` the race term counts 0 (the first advisor, ``advisor-v1``)."""
    if not immediate_only:
        return _best_advised(setup, state, race)
    # greedy: a move's gain is at most the best of its pick's types (kept per shelf, shared with the
    # advisor's denial term), so only moves whose pick reaches the best are scored one by one
    # (per pick, as :func:`legal_moves` lists them: pick, column with room, order; Move objects are
    # built only for the moves chosen)
    mine = seat_placements(setup, state, state.turn)
    room = mine.room
    picks = [(pick, orders, mine.best_immediate(next(iter(orders))))
             for pick, orders in pick_orders(state) if max(room) >= len(pick)]
    top = max(best for _, _, best in picks)
    immediate = mine.immediate
    return [Move(order, column) for pick, orders, best in picks if best == top
            for column in range(COLUMNS) if room[column] >= len(pick)
            for types, order in orders.items() if immediate(column, types) == top]


def rank_moves(setup: Setup, state: State, samples: int = 0, rng: np.random.Generator | None = None,
               exact_boards: int = EXACT_REFILL_BOARDS, race: bool = True) -> list[RankedMove]:
    """Every legal move of the active player, best first, with its evaluation (module docstring).

    Args:
        samples, rng: for a move that triggers a refill (T16), the denial term is minus half the
            next player's best gain on the refilled board, averaged over ``samples`` boards drawn
            with ``rng`` (0 samples or no ``rng``: the term is 0).
        exact_boards: a refill that can draw at most this many boards is averaged exactly over
            all of them (weighted by probability) instead of sampled.
        race: with the race term (:class:`RaceTerm`); else it counts 0.
    """
    scored = score_moves(setup, state, False, samples, rng, exact_boards, race)
    scored.sort(key=lambda item: -item[0])
    ranked = []
    rank = 0
    previous: int | Fraction | None = None
    for index, (total, move, parts, goals, refill, end, outlook) in enumerate(scored):
        if total != previous:
            rank, previous = index + 1, total
        ranked.append(RankedMove(move, rank, Fraction(total) / QUARTER,
                                 {name: Fraction(p) / QUARTER for name, p in zip(PARTS, parts)}, goals, refill, end,
                                 outlook))
    return ranked
