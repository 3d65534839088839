"""Exact statistics of many games, with 95% intervals: the summary of a tournament of either game
(``shelfie-solve simulate``, docs/simulate.md; ``shelfie-solve tile simulate``, docs/tile.md).

Every statistic is summed exactly (integers and :class:`~fractions.Fraction`), so the same games
give identical numbers however they were gathered. Each mean comes with a 95% interval
(:class:`Estimate`): the Wilson score interval for a win rate (a shared victory counting 1/k to
each of its ``k`` winners, D20), Student t for the other means. A game's result is any record with
a length in ``rounds`` and per-seat records (:class:`GameRecord`); which per-seat fields are
summarised is the caller's: each game passes its own list (:func:`summarise`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import Any, Protocol

from shelfie_solver.core.errors import ShelfieError


class SimulationError(ShelfieError):
    """Bad simulation settings (games, jobs)."""


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
      to the range of the values seen; with one game there is no interval (NaN), and none either
      when every game gave the same value (:attr:`unanimous`: NaN, not a zero-width interval,
      which would claim the mean known exactly from finitely many games). What such games do
      show is :attr:`others_at_most`: how rare another value can be at 95%.

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
    def unanimous(self) -> bool:
        """Every one of two or more games gave the same value, and no bounds are known (a
        Student t mean): the sample has no spread, so there is no t interval (:attr:`low` and
        :attr:`high` NaN), and :attr:`others_at_most` says what the games show instead."""
        return self.bounds is None and self.n >= 2 and self.least == self.most

    @property
    def others_at_most(self) -> float:
        """The 95% upper bound on the share of games that give another value than every game
        seen gave (:attr:`unanimous`): the Wilson upper bound for 0 such games in ``n``,
        ``z^2 / (n + z^2)`` (about 3.84 / n: the "rule of three" bound 3 / n, on the two-sided
        95% of every other interval here, and right at small ``n`` too); the Wilson interval of
        the win rate at 0 wins. Display float."""
        z = _quantile(None)
        return z * z / (self.n + z * z)

    @property
    def half_width(self) -> float:
        """Half the interval's width (display); NaN when there is none (one game, or every game
        the same value, t interval)."""
        if self.bounds is None and self.n >= 2 and not self.unanimous:
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
        if self.n < 2 or self.unanimous:
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


def no_interval_words(e: Estimate) -> str:
    """What stands for a missing 95% interval in a report (:class:`Estimate` NaN): ``one game: no
    interval``, or where every game gave one value (:attr:`Estimate.unanimous`) ``all 17; others
    <= 8.8%``: the value, and the 95% bound on the share of games giving another
    (:attr:`Estimate.others_at_most`; :data:`UNANIMOUS_NOTE` says it under the table)."""
    if not e.unanimous:
        return "one game: no interval"
    value = e.least
    shown = str(value.numerator) if value.denominator == 1 else f"{float(value):.2f}"
    return f"all {shown}; others <= {e.others_at_most * 100:.1f}%"


#: The note under a table that shows :func:`no_interval_words` of a unanimous estimate.
UNANIMOUS_NOTE = ("all X; others <= p%: every game gave the same value X, so there is no Student t "
                  "interval (it would be zero wide, a certainty finitely many games cannot give); p is the 95% "
                  "upper bound on the share of games giving another value (Wilson at none seen, about 3.84 / "
                  "games: the rule of three).")


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


@dataclass(frozen=True)
class SeatSummary:
    """A seat's statistics over all games: ``stats[field]`` for each statistic :func:`summarise`
    was given."""

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
    """The result of :func:`summarise` (and so of each game's ``simulate``).

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
    """What :func:`summarise` reads of a game's result: its length and per-seat records (the dice
    game's ``dice.simulate.GameResult``, or the tile game's ``tile.simulate.TileGameResult``)."""

    @property
    def rounds(self) -> int | Fraction: ...  # noqa: D102

    @property
    def seats(self) -> Sequence[Any]: ...  # noqa: D102


def summarise(results: Sequence[GameRecord], players: Sequence[str], seed: int,
              statistics: Sequence[tuple[str, str]]) -> Summary:
    """Exact per-seat statistics of many games.

    Args:
        results: one record per game, with ``rounds`` and ``seats[i].win``, ``.score`` and a
            field for each of ``statistics``. players: each seat's strategy name. seed: the
            root seed, reported.
        statistics: ``(field, display name)`` of each per-seat statistic summarised (the dice
            game's ``dice.simulate.seat_statistics``, the tile game's ``TILE_STATISTICS``);
            ``"win"`` gets the Wilson interval, and so do the paired win-rate differences of
            :class:`Margin`.
    Raises:
        SimulationError: no games, or a win outside [0, 1].
    """
    seats = []
    for seat, name in enumerate(players):
        stats = {key: estimate([getattr(r.seats[seat], key) for r in results], PROPORTION if key == "win" else None)
                 for key, _ in statistics}
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
