"""Many full games between strategies, and their statistics (click-free; ``shelfie-solve simulate``).

Determinism. Game ``i`` of a run with seed ``S`` is played from the ``i``-th child of
``numpy.random.SeedSequence(S).spawn(games)`` (:func:`game.play_seeded`): its dice, its first
player (D5: drawn at random, seats do not rotate) and the random choices of every seat. Results
are gathered by game index and every statistic is summed exactly (integers and
:class:`~fractions.Fraction`), so the same seed gives identical output whatever ``jobs`` is.

Statistics, per seat, each with a 95% interval (:class:`Estimate`: Wilson for the win rate,
Student t for the other means):

* win rate — a won game counts 1, a game shared by ``k`` winners 1/k to each (D20);
  not in solitaire (:data:`SOLITAIRE_OMITS`);
* score, and its standard deviation; points from shelves and from columns (D19);
* failed results (D13) per game;
* lines completed per game (shelves and columns the seat has all marked, D15) and lines
  blocked per game (the seat's lines that lost available items to an opponent's completed line;
  not in solitaire);
* and, for the whole game, its length in rounds (D18).
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import Any, Protocol, TypeVar

import numpy as np

from .board import Board
from .errors import ShelfieError, shorten
from .game import Block, Fail, Game, game_to_json, play_seeded
from .parallel import SpawnedSeeds, run_tasks, worker_count
from .rules import Ruleset
from .strategies import parse_players, strategy_named

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


class SimulationError(ShelfieError):
    """Bad simulation settings (games, jobs)."""


@dataclass(frozen=True)
class SeatResult:
    """One seat's numbers in one game (exact).

    Attributes:
        win: 1, 1/k for a k-way shared victory (D20), or 0.
        score, shelf_points, column_points: points (D19).
        fails: failed results (D13). completed: lines all marked (D15). blocked: the seat's
        lines that lost items to an opponent's completed line.
    """

    win: Fraction
    score: int
    shelf_points: int
    column_points: int
    fails: int
    completed: int
    blocked: int


@dataclass(frozen=True)
class GameResult:
    """One game's numbers: its length in rounds and every seat's :class:`SeatResult`."""

    rounds: int
    seats: tuple[SeatResult, ...]


def game_result(game: Game) -> GameResult:
    """The statistics of one finished game."""
    over = game.over
    share = Fraction(1, len(over.winners))
    seats = []
    for seat, sheet in enumerate(game.sheets):
        fails = sum(1 for e in game.events if isinstance(e, Fail) and e.player == seat)
        blocked = len({e.line for e in game.events if isinstance(e, Block) and e.player == seat})
        completed = sum(sheet.count_marked(line) == len(line) for line in game.board.lines)
        seats.append(SeatResult(share if seat in over.winners else Fraction(0), over.scores[seat],
                                over.shelf_points[seat], over.column_points[seat], fails, completed, blocked))
    return GameResult(over.rounds, tuple(seats))


#: Confidence of every interval.
CONFIDENCE = 0.95


@cache
def _quantile(df: int | None) -> float:
    """The two-sided :data:`CONFIDENCE` quantile: normal (``df`` None; the standard library's
    ``statistics.NormalDist``) or Student's t (``scipy.special.stdtrit``, the function behind
    ``scipy.stats.t.ppf``, imported here only: ``scipy.stats`` costs about 1.5 s CPU to import)."""
    q = 0.5 + CONFIDENCE / 2
    if df is None:
        from statistics import NormalDist

        return NormalDist().inv_cdf(q)
    from scipy import special  # heavy import, only once a t interval is printed

    return float(special.stdtrit(df, q))


@dataclass(frozen=True)
class Estimate:
    """Mean of per-game values with a 95% interval (display floats, :attr:`low`, :attr:`high`).

    * ``bounds = (lo, hi)`` (values known to lie in ``[lo, hi]``: the win rate in [0, 1], a
      paired win-rate difference in [-1, 1]): the **Wilson score interval** on the mean mapped
      to [0, 1], right at any number of games and never of zero width (20 wins in 20 games:
      [83.9%, 100%]). A shared victory counts 1/k (D20); such values vary less than 0/1 wins
      of the same mean, so the interval stays conservative.
    * otherwise: the **Student t interval** ``mean +- t(0.975, n-1) * sd / sqrt(n)``, clipped
      to the range of the values seen; with one game there is no interval (NaN).

    Attributes:
        n: number of games. mean: exact mean. variance: exact sample variance (0 when n = 1).
        least, most: the smallest and largest value. bounds: see above (``None``: t interval).
    """

    n: int
    mean: Fraction
    variance: Fraction
    least: Fraction
    most: Fraction
    bounds: tuple[Fraction, Fraction] | None = None

    @property
    def sd(self) -> float:
        """Sample standard deviation (display)."""
        return math.sqrt(self.variance)

    @property
    def half_width(self) -> float:
        """Half the interval's width (display); NaN when there is none (one game, t interval)."""
        if self.bounds is None and self.n >= 2:
            return _quantile(self.n - 1) * math.sqrt(self.variance / self.n)
        return (self.high - self.low) / 2

    def _interval(self) -> tuple[float, float]:
        if self.bounds is not None:
            lo, hi = (float(b) for b in self.bounds)
            z, n, p = _quantile(None), self.n, float((self.mean - self.bounds[0]) / (self.bounds[1] - self.bounds[0]))
            centre = (p + z * z / (2 * n)) / (1 + z * z / n)
            spread = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
            low, high = max(0.0, min(p, centre - spread)), min(1.0, max(p, centre + spread))  # p: rounding
            return lo + (hi - lo) * low, lo + (hi - lo) * high
        if self.n < 2:
            return math.nan, math.nan
        half = self.half_width
        return max(float(self.least), float(self.mean) - half), min(float(self.most), float(self.mean) + half)

    @property
    def low(self) -> float:
        """Lower end of the 95% interval (display; NaN when there is none)."""
        return self._interval()[0]

    @property
    def high(self) -> float:
        """Upper end of the 95% interval (display; NaN when there is none)."""
        return self._interval()[1]


#: Bounds of a win rate and of a paired win-rate difference (:class:`Estimate`).
PROPORTION = (Fraction(0), Fraction(1))
DIFFERENCE = (Fraction(-1), Fraction(1))


def estimate(values: Sequence[int | Fraction], bounds: tuple[Fraction, Fraction] | None = None) -> Estimate:
    """Exact mean and sample variance of ``values`` (at least one); ``bounds``: the values are
    known to lie in that range, and get the Wilson interval (:class:`Estimate`).

    Raises:
        SimulationError: no values, or a value outside ``bounds``.
    """
    n = len(values)
    if n == 0:
        raise SimulationError("no games to summarise")
    mean = Fraction(sum(values, Fraction(0))) / n
    least, most = Fraction(min(values)), Fraction(max(values))
    if bounds is not None and not (bounds[0] <= least and most <= bounds[1] and bounds[0] < bounds[1]):
        raise SimulationError(f"values from {least} to {most} are not within {bounds[0]}..{bounds[1]}")
    if n == 1:
        return Estimate(1, mean, Fraction(0), least, most, bounds)
    squares = sum(((Fraction(v) - mean) ** 2 for v in values), Fraction(0))
    return Estimate(n, mean, squares / (n - 1), least, most, bounds)


#: SeatResult fields summarised per seat, with their display names.
SEAT_STATISTICS = (
    ("win", "win rate (ties shared)"),
    ("score", "score"),
    ("shelf_points", "points from shelves"),
    ("column_points", "points from columns"),
    ("fails", "failed results / game"),
    ("completed", "lines completed / game"),
    ("blocked", "lines blocked / game"),
)
#: Statistics that mean nothing for one player (nobody to beat, nobody to block): left out.
SOLITAIRE_OMITS = frozenset(("win", "blocked"))


def seat_statistics(players: int) -> tuple[tuple[str, str], ...]:
    """The :data:`SEAT_STATISTICS` reported for ``players`` seats (solitaire: without
    :data:`SOLITAIRE_OMITS`)."""
    return tuple(item for item in SEAT_STATISTICS if players > 1 or item[0] not in SOLITAIRE_OMITS)


@dataclass(frozen=True)
class SeatSummary:
    """A seat's statistics over all games: ``stats[field]`` for each of :func:`seat_statistics`."""

    seat: int
    strategy: str
    stats: dict[str, Estimate]


@dataclass(frozen=True)
class Margin:
    """How far the leading seat is ahead of another: per-game score difference and win-rate
    difference (paired over the same games)."""

    leader: int
    other: int
    score: Estimate
    win: Estimate


@dataclass(frozen=True)
class Summary:
    """The result of :func:`simulate`.

    Attributes:
        games: games played. players: each seat's strategy. seed: the root seed (entropy).
        rounds: game length in rounds. seats: per-seat statistics. leader: the seat with the
        highest win rate (ties: higher mean score, then lower seat). margins: the leader against
        every other seat.
    """

    games: int
    players: tuple[str, ...]
    seed: int
    rounds: Estimate
    seats: tuple[SeatSummary, ...]
    leader: int
    margins: tuple[Margin, ...]


class GameRecord(Protocol):
    """What :func:`summarise` reads of a game's result: its length and per-seat records (a
    :class:`GameResult`, or the tile game's ``tile.simulate.TileGameResult``)."""

    @property
    def rounds(self) -> int | Fraction: ...  # noqa: D102

    @property
    def seats(self) -> Sequence[Any]: ...  # noqa: D102


def summarise(results: Sequence[GameRecord], players: Sequence[str], seed: int,
              statistics: Sequence[tuple[str, str]] | None = None) -> Summary:
    """Exact per-seat statistics of many games (:func:`seat_statistics`, or ``statistics``: the
    tile game passes its own result records, with ``rounds``, ``seats[i].win``, ``.score``...;
    the win rate with the Wilson interval, and so the paired win-rate differences of :class:`Margin`)."""
    seats = []
    for seat, name in enumerate(players):
        stats = {key: estimate([getattr(r.seats[seat], key) for r in results], PROPORTION if key == "win" else None)
                 for key, _ in (statistics if statistics is not None else seat_statistics(len(players)))}
        seats.append(SeatSummary(seat, name, stats))
    leader = max(range(len(players)), key=lambda s: (seats[s].stats["win"].mean if len(players) > 1 else 0,
                                                     seats[s].stats["score"].mean, -s))
    margins = tuple(
        Margin(leader, other,
               estimate([r.seats[leader].score - r.seats[other].score for r in results]),
               estimate([r.seats[leader].win - r.seats[other].win for r in results], DIFFERENCE))
        for other in range(len(players)) if other != leader)
    return Summary(len(results), tuple(players), seed, estimate([r.rounds for r in results]), tuple(seats),
                   leader, margins)


# --- running games --------------------------------------------------------------------------


def play_chunk(board: Board, rules: Ruleset, players: tuple[str, ...], seeds: Sequence[np.random.SeedSequence],
               indices: Sequence[int], root: int, save: bool) -> list[tuple[int, GameResult, str | None]]:
    """Play the games ``indices`` (each from its own seed); a worker's unit of work.

    Returns ``(index, result, JSON line or None)`` per game.
    """
    strategies = [strategy_named(name) for name in players]
    out = []
    for index, seed in zip(indices, seeds):
        game = play_seeded(board, rules, strategies, seed)
        line = game_to_json(game, game=index, seed=root) if save else None
        out.append((index, game_result(game), line))
    return out


def simulate(board: Board, rules: Ruleset, players: Sequence[str], games: int, seed: int | None = None,
             jobs: int = 1, save: bool = False,
             progress: Callable[[int], None] | None = None, scheduler: Any = None) -> tuple[Summary, list[str]]:
    """Play ``games`` games between ``players`` (strategy names, one per seat, 1 to 4).

    Game ``i`` is played from :func:`parallel.task_seed` ``(entropy, i)``, the ``i``-th child of
    ``SeedSequence(seed)``, made when its chunk is handed out (no up-front spawn); chunks of
    games (:func:`play_chunk`) run on :func:`parallel.run_tasks`.

    Args:
        seed: root seed (``None``: fresh entropy, reported in :attr:`Summary.seed`).
        jobs: worker processes (``concurrent.futures.ProcessPoolExecutor``, capped at the usable
            cores: :func:`parallel.worker_count`); 1 plays here.
        save: also return every game as a JSON line (:func:`game.game_to_json`), in game order.
        progress: called with the number of games just finished.
        scheduler: a dask.distributed scheduler address (``"tcp://host:8786"``) or cluster
            object; the games run there (``jobs`` is then ignored). Same output as ``jobs=1``.

    Returns:
        The :class:`Summary` and the JSON lines (empty unless ``save``).

    Raises:
        StrategyError: an unknown strategy or a bad number of players.
        SimulationError: games outside 1 .. :data:`MAX_GAMES`, or jobs below 1.
        ParallelError: the dask extra missing, the scheduler unreachable, a worker died.
        Interrupted: SIGINT or SIGTERM during the run (every worker stopped first).
    """
    names = parse_players(",".join(players))
    if games < 1:
        raise SimulationError(f"--games must be at least 1, got {games}")
    if games > MAX_GAMES:
        raise SimulationError(f"--games must be at most {MAX_GAMES:,}, got {shorten(str(games))}")
    if jobs < 1:
        raise SimulationError(f"--jobs must be at least 1, got {jobs}")
    entropy = int(np.random.SeedSequence(seed).entropy)  # type: ignore[arg-type]
    done = run_games(play_chunk, (board, rules, names), games, entropy, jobs, save, progress, scheduler)
    summary = summarise([r for _, r, _ in done], names, entropy)
    return summary, [line for _, _, line in done if line is not None]


Played = TypeVar("Played")


def run_games(play: Callable[..., list[tuple[int, Played, str | None]]], common: tuple[Any, ...], games: int,
              entropy: int, jobs: int = 1, save: bool = False, progress: Callable[[int], None] | None = None,
              scheduler: Any = None) -> list[tuple[int, Played, str | None]]:
    """Play games ``0 .. games-1`` in chunks on :func:`parallel.run_tasks`: each chunk is
    ``play(*common, seeds, indices, entropy, save)`` (:func:`play_chunk`, or the tile game's),
    game ``i`` from :func:`parallel.task_seed` ``(entropy, i)``, made when its chunk is handed
    out. ``jobs`` workers (capped at the usable cores; 1, or a single chunk: here) or the dask
    ``scheduler``; ``progress`` gets the number of games of each chunk, in game order.

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
