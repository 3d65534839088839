"""Many tile games between strategies (``shelfie-solve tile simulate``), summarised with the shared
statistics (:func:`shelfie_solver.core.stats.summarise`: exact means, 95% intervals).

Determinism as in the dice game (:mod:`shelfie_solver.core.tournament`): game ``i`` of a run with
seed ``S`` is played from the ``i``-th child of ``numpy.random.SeedSequence(S).spawn(games)``
(deal, first player T9, bag draws, the seats' random choices), results are gathered by game
index, so ``--jobs`` does not change them.
"""

from __future__ import annotations

from typing import Any

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from shelfie_solver.core.stats import SimulationError, Summary, summarise
from shelfie_solver.core.tournament import run_games
from shelfie_solver.tile.state import GoalScored
from shelfie_solver.tile.game import TileGame, game_to_json, play_game
from shelfie_solver.tile.rules import Layout, PersonalCard, TileRuleset
from shelfie_solver.tile.shelf import score_shelf
from shelfie_solver.tile.strategies import TILE_STRATEGIES, parse_tile_players

#: Per-seat statistics of a tile game (key, display name); ``win`` and ``score`` are the ones
#: :func:`shelfie_solver.core.stats.summarise` picks the leader by and pairs in its margins.
TILE_STATISTICS = (
    ("win", "win rate (T26)"),
    ("score", "score"),
    ("adjacency", "points from groups (T22)"),
    ("personal", "points from personal goal (T21)"),
    ("tokens", "points from common goals (T18)"),
    ("end_token", "end-game token (T23)"),
)


@dataclass(frozen=True)
class TileSeatResult:
    """One seat's numbers in one game, in points (``win`` 1 or 0: T26 always names one winner)."""

    win: Fraction
    score: int
    adjacency: int
    personal: int
    tokens: int
    end_token: int


@dataclass(frozen=True)
class TileGameResult:
    """One game: its length in rounds (turns per player, equal for all, T24) and each seat's result."""

    rounds: int
    seats: tuple[TileSeatResult, ...]


def tile_game_result(game: TileGame) -> TileGameResult:
    """The statistics of one finished game."""
    setup, state, over = game.setup, game.state, game.over
    seats = []
    for seat in range(setup.players):
        tokens = sum(e.points for e in game.events if isinstance(e, GoalScored) and e.player == seat)
        end = 1 if state.end_token == seat else 0
        breakdown = score_shelf(state.shelves[seat], setup.rules, setup.card(seat), tokens, end)
        seats.append(TileSeatResult(Fraction(1 if over.winner == seat else 0), breakdown.total, breakdown.adjacency,
                                    breakdown.personal, tokens, end))
    return TileGameResult(state.turns // setup.players, tuple(seats))


def play_tile_chunk(rules: TileRuleset, layout: Layout, cards: tuple[PersonalCard, ...], players: tuple[str, ...],
                    seeds: Sequence[np.random.SeedSequence], indices: Sequence[int], root: int,
                    save: bool) -> list[tuple[int, TileGameResult, str | None]]:
    """Play the games ``indices``, each from its own seed: ``(index, result, JSON line or None)``."""
    out = []
    for index, seed in zip(indices, seeds):
        game = play_game(rules, layout, cards, [TILE_STRATEGIES[name]() for name in players], seed)
        out.append((index, tile_game_result(game), game_to_json(game, game=index, seed=root) if save else None))
    return out


def simulate_tile(rules: TileRuleset, layout: Layout, cards: tuple[PersonalCard, ...], players: Sequence[str],
                  games: int, seed: int | None = None, jobs: int = 1, save: bool = False,
                  progress: Callable[[int], None] | None = None, scheduler: Any = None) -> tuple[Summary, list[str]]:
    """Play ``games`` games between ``players`` (2-4 tile strategy names), on ``jobs`` processes or
    the dask cluster at ``scheduler`` (:func:`tournament.run_games`; the same results either way).

    Returns:
        The :class:`~shelfie_solver.core.stats.Summary` (statistics :data:`TILE_STATISTICS`) and the
        games as JSON lines (empty unless ``save``).
    Raises:
        TileError: unknown strategies or a bad player count. SimulationError: games or jobs < 1.
    """
    names = parse_tile_players(",".join(players))
    if games < 1 or jobs < 1:
        raise SimulationError(f"--games and --jobs must be at least 1, got {games} and {jobs}")
    entropy = int(np.random.SeedSequence(seed).entropy)  # type: ignore[arg-type]
    # chunks on the shared runner (lazy seeds, workers capped at the cores, Ctrl-C / SIGTERM)
    done = run_games(play_tile_chunk, (rules, layout, cards, names), games, entropy, jobs, save, progress,
                     scheduler)
    summary = summarise([r for _, r, _ in done], names, entropy, TILE_STATISTICS)
    return summary, [line for _, _, line in done if line is not None]
