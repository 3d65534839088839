"""Many tile games between strategies (``shelfie-solve tile simulate``), summarised with the dice
game's statistics (:func:`shelfie_solver.simulate.summarise`: exact means, 95% intervals).

Determinism as in the dice game: game ``i`` of a run with seed ``S`` is played from the ``i``-th
child of ``numpy.random.SeedSequence(S).spawn(games)`` (deal, first player T9, bag draws, the
seats' random choices), results are gathered by game index, so ``--jobs`` does not change them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..simulate import SimulationError, Summary, _chunks, run_parallel, summarise
from .engine import GoalScored
from .game import TileGame, game_to_json, play_game
from .rules import Layout, PersonalCard, TileRuleset
from .shelf import score_shelf
from .strategies import TILE_STRATEGIES, parse_tile_players

#: Per-seat statistics of a tile game (key, display name); ``win`` and ``score`` as the dice game's.
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
    table, state, over = game.table, game.state, game.over
    seats = []
    for seat in range(table.players):
        tokens = sum(e.points for e in game.events if isinstance(e, GoalScored) and e.player == seat)
        end = 1 if state.end_token == seat else 0
        breakdown = score_shelf(state.shelves[seat], table.rules, table.card(seat), tokens, end)
        seats.append(TileSeatResult(Fraction(1 if over.winner == seat else 0), breakdown.total, breakdown.adjacency,
                                    breakdown.personal, tokens, end))
    return TileGameResult(state.turns // table.players, tuple(seats))


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
                  progress: Callable[[int], None] | None = None) -> tuple[Summary, list[str]]:
    """Play ``games`` games between ``players`` (2-4 tile strategy names).

    Returns:
        The :class:`~shelfie_solver.simulate.Summary` (statistics :data:`TILE_STATISTICS`) and the
        games as JSON lines (empty unless ``save``).
    Raises:
        TileError: unknown strategies or a bad player count. SimulationError: games or jobs < 1.
    """
    names = parse_tile_players(",".join(players))
    if games < 1 or jobs < 1:
        raise SimulationError(f"--games and --jobs must be at least 1, got {games} and {jobs}")
    root = np.random.SeedSequence(seed)
    entropy = int(root.entropy)  # type: ignore[arg-type]
    children = root.spawn(games)
    chunks = _chunks(games, jobs)
    done: list[tuple[int, TileGameResult, str | None]] = []

    def finished(part: list[tuple[int, TileGameResult, str | None]]) -> None:
        done.extend(part)
        if progress:
            progress(len(part))

    if jobs == 1 or len(chunks) == 1:
        for lo, hi in chunks:
            finished(play_tile_chunk(rules, layout, cards, names, children[lo:hi], range(lo, hi), entropy, save))
    else:
        run_parallel(play_tile_chunk, [(rules, layout, cards, names, children[lo:hi], range(lo, hi), entropy, save)
                                       for lo, hi in chunks], jobs, finished)
    done.sort(key=lambda item: item[0])
    summary = summarise([r for _, r, _ in done], names, entropy, TILE_STATISTICS)
    return summary, [line for _, _, line in done if line is not None]
