"""Tile-game policies for ``tile simulate``: ``random`` (a uniform legal move), ``greedy`` (the
best immediate score change, T25 now) and ``advisor`` (the evaluation of :mod:`.advise`)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from shelfie_solver.tile.errors import TileError
from shelfie_solver.tile.advise import best_moves
from shelfie_solver.tile.state import Move, Setup, State, legal_moves


class RandomTile:
    """A uniformly random legal move (T10-T14, merged orders)."""

    name = "random"

    def choose(self, setup: Setup, state: State, rng: np.random.Generator) -> Move:
        """Draw a legal move with ``rng``."""
        moves = legal_moves(state)
        return moves[int(rng.integers(len(moves)))]


class RankedTile:
    """A first-ranked move of :func:`advise.rank_moves` (``"greedy"``: immediate points only;
    ``"advisor"``: the full evaluation; ``"advisor-v1"``: without its race term); exact ties
    broken at random."""

    def __init__(self, name: str):
        self.name = name

    def choose(self, setup: Setup, state: State, rng: np.random.Generator) -> Move:
        """The best-ranked move; among moves tied on value, one drawn with ``rng``."""
        best = best_moves(setup, state, immediate_only=self.name == "greedy", race=self.name != "advisor-v1")
        return best[int(rng.integers(len(best)))]


TILE_STRATEGIES: dict[str, Callable[[], RandomTile | RankedTile]] = {
    "advisor": lambda: RankedTile("advisor"),
    "advisor-v1": lambda: RankedTile("advisor-v1"),
    "greedy": lambda: RankedTile("greedy"),
    "random": RandomTile,
}


def parse_tile_players(text: str) -> tuple[str, ...]:
    """``"advisor,greedy"`` -> names, 2-4 of them (T1).

    Raises:
        TileError: an unknown name or a bad count.
    """
    names = tuple(n.strip().lower() for n in text.split(",") if n.strip())
    for name in names:
        if name not in TILE_STRATEGIES:
            raise TileError(f"unknown tile strategy {name!r}; expected one of {', '.join(TILE_STRATEGIES)}")
    if not 2 <= len(names) <= 4:
        raise TileError(f"the tile game needs 2-4 players (T1), got {len(names)}; e.g. --players advisor,greedy")
    return names
