"""Many seeded games in chunks, on this machine or a cluster: the runner of a tournament of either
game (``shelfie-solve simulate``, docs/simulate.md; ``shelfie-solve tile simulate``, docs/tile.md).

Determinism. Game ``i`` of a run with root seed ``S`` is played from the ``i``-th child of
``numpy.random.SeedSequence(S)`` (:func:`parallel.task_seed`), made when its chunk is handed out;
results are handed back in game order, so the same seed gives the same games whatever the number
of workers or the backend (:mod:`shelfie_solver.core.parallel`). What a game is, and what is kept
of it, is the caller's chunk function (the dice game's ``dice.simulate.play_chunk``, the tile
game's ``tile.simulate.play_tile_chunk``); the statistics are :mod:`shelfie_solver.core.stats`'.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from shelfie_solver.core.parallel import SpawnedSeeds, run_tasks, worker_count

#: Most games one run may play (a documented bound; docs/simulate.md). Seeds and chunks of
#: games are made lazily, but every game's numbers are kept for the exact statistics (about
#: 0.6 KB for two seats, 1 KB for four; with ``save`` also its JSON line, about 5 KB).
MAX_GAMES = 1_000_000
#: Seeds are whole numbers from 0 to this (128 bits, what numpy's SeedSequence draws).
MAX_SEED = 2**128 - 1
#: Bits of a fresh seed drawn when none is given: short enough to type back.
FRESH_SEED_BITS = 32


def fresh_seed() -> int:
    """A new root seed from the operating system's entropy (``secrets``), 0 <= seed < 2**32:
    printed with the results, so a person can type it back to repeat the run."""
    return secrets.randbits(FRESH_SEED_BITS)


Played = TypeVar("Played")


def run_games(play: Callable[..., list[tuple[int, Played, str | None]]], common: tuple[Any, ...], games: int,
              entropy: int, jobs: int = 1, save: bool = False, progress: Callable[[int], None] | None = None,
              scheduler: Any = None) -> list[tuple[int, Played, str | None]]:
    """Play games ``0 .. games-1`` in chunks on :func:`parallel.run_tasks`: each chunk is
    ``play(*common, seeds, indices, entropy, save)`` (the dice game's ``play_chunk``, or the tile
    game's), game ``i`` from :func:`parallel.task_seed` ``(entropy, i)``, made when its chunk is
    handed out. ``jobs`` workers (capped at the usable cores; 1, or a single chunk: here) or the
    dask ``scheduler``; ``progress`` gets the number of games of each chunk, in game order.

    Returns:
        Every chunk's ``(index, result, JSON line or None)``, in game order.
    Raises:
        ParallelError, Interrupted: as :func:`parallel.run_tasks`.
    """
    workers = 1 if scheduler is not None else worker_count(jobs)
    if games <= _chunk_size(games, workers) and scheduler is None:  # one chunk: no processes
        workers = 1
    tasks = ((SpawnedSeeds(entropy, lo, hi), range(lo, hi), entropy, save) for lo, hi in _chunks(games, workers))
    done: list[tuple[int, Played, str | None]] = []

    def consume(part: list[tuple[int, Played, str | None]]) -> None:
        done.extend(part)
        if progress:
            progress(len(part))

    run_tasks(play, tasks, common=common, jobs=workers, scheduler=scheduler, consume=consume)
    return done


def _chunk_size(games: int, jobs: int) -> int:
    """Games per chunk: a few chunks per worker (balance, progress), at most 25 games each."""
    return max(1, min(25, games // (jobs * 4) if jobs > 1 else 25))


def _chunks(games: int, jobs: int) -> Iterator[tuple[int, int]]:
    """Split game indices into ``[lo, hi)`` ranges, made lazily: a few per worker (balance,
    progress), at most 25 games each."""
    size = _chunk_size(games, jobs)
    return ((lo, min(games, lo + size)) for lo in range(0, games, size))
