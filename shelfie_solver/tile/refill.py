"""The exact distribution of a refill (T16-T17), for the advisor's refill term when it is small.

A refill draws ``k`` tiles from the bag without replacement (``k`` = the cells to fill, or the
whole bag when it runs short, T17) and lays them on the cells in random order; when the bag is
short the filled cells are a uniform random subset of size ``k``. So a particular board (cells
chosen, a type on each) has probability ``prod_t falling(bag_t, n_t) / falling(N, k)`` (N tiles
in the bag, ``n_t`` of type ``t`` drawn), divided by ``C(cells, k)`` for the subset: integers over
the common denominator ``C(cells, k) * falling(N, k)``. :func:`refill_count` counts the distinct
boards without listing them; :func:`refill_boards` lists them with their integer weights.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations
from math import comb, perm

from shelfie_solver.tile.state import Board, Setup, State, refill_source
from shelfie_solver.tile.rules import EMPTY


def refill_count(setup: Setup, state: State) -> int:
    """The number of distinct boards the refill of ``state`` can draw (T16-T17): the type
    sequences of length ``k`` that the bag's counts allow (``k! * [x^k] prod_t sum_{n <= bag_t}
    x^n / n!``, counted in integers), times the subsets of cells when the bag is short."""
    _, bag, cells = refill_source(setup, state)
    k = min(len(cells), sum(bag))
    ways = [1] + [0] * k  # ways[j]: type sequences of length j over the types seen so far
    for available in bag:
        ways = [sum(ways[j - n] * comb(j, n) for n in range(min(available, j) + 1)) for j in range(k + 1)]
    return ways[k] * comb(len(cells), k)


def refill_boards(setup: Setup, state: State) -> tuple[int, list[tuple[int, Board]]]:
    """Every board the refill of ``state`` can draw with its probability as an integer weight:
    ``(denominator, [(weight, board), ...])``, the weights summing to the denominator. Meant for
    refills with few outcomes (:func:`refill_count`); the list has that many entries."""
    returned, bag, cells = refill_source(setup, state)
    total = sum(bag)
    k = min(len(cells), total)
    base = [EMPTY] * len(state.board) if returned else list(state.board)
    outcomes = []
    for chosen in combinations(cells, k) if k < len(cells) else [tuple(cells)]:
        for weight, types in _sequences(list(bag), k):
            board = list(base)
            for cell, t in zip(chosen, types):
                board[cell] = t
            outcomes.append((weight, tuple(board)))
    return comb(len(cells), k) * perm(total, k), outcomes


def _sequences(bag: list[int], k: int) -> Iterator[tuple[int, tuple[int, ...]]]:
    """Every sequence of ``k`` types drawable from ``bag`` without replacement, with the product
    of the counts left at each draw (its probability times ``falling(sum(bag), k)``)."""
    if k == 0:
        yield 1, ()
        return
    for t, available in enumerate(bag):
        if available:
            bag[t] -= 1
            for weight, rest in _sequences(bag, k - 1):
                yield available * weight, (t,) + rest
            bag[t] += 1
