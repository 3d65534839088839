"""The report of a tournament of either game (``shelfie-solve simulate``, docs/simulate.md;
``shelfie-solve tile simulate``, docs/tile.md), click-free: one column per seat and one row per
statistic, each a mean with its 95% interval (:class:`~shelfie_solver.core.stats.Estimate`),
the game length, the leader and the pairwise margins above. Each game passes its own parts
(:class:`TournamentParts`: what a game is called, where it is played, its statistics, how a
margin reads, its notes); the shape, the numbers' wording and the JSON are the same for both.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from fractions import Fraction

from shelfie_solver.core.report import Report, decimal, exact, interval, percent, share_texts, signed
from shelfie_solver.core.stats import UNANIMOUS_NOTE, Estimate, Margin, Summary, no_interval_words


def interval_text(e: Estimate, as_percent: bool = False, mean: str | None = None) -> str:
    """An estimate for a table cell: ``mean [low, high]`` (its 95% interval; a percentage with
    ``as_percent``), or where there is none ``mean [one game: no interval]``, ``mean [all 4;
    others <= 8.8%]`` (:func:`stats.no_interval_words`). ``mean``: the mean's text when the
    caller rounded it already (:func:`win_rate_texts`)."""
    if math.isnan(e.low):
        return f"{decimal(e.mean, 2)} [{no_interval_words(e)}]"
    if as_percent:
        return f"{mean or percent(e.mean, 1)} {interval(e.low, e.high, percent_end)}"
    return f"{decimal(e.mean, 2)} {interval(e.low, e.high, lambda x: f'{x:.2f}')}"


def percent_end(x: float) -> str:
    """An end of a win rate's interval (a float from 0 to 1) as :func:`core.report.percent`
    prints a chance at one decimal: never ``0.0%`` or ``100.0%`` short of a certainty."""
    return percent(Fraction(x), 1)


def margin_text(e: Estimate, places: int, scale: int = 1, unit: str = "") -> str:
    """A pairwise margin (a difference per game, leader minus other) with its 95% interval:
    ``+6.2 percentage points [+1.5, +10.9]`` (the mean and the ends :func:`core.report.signed`
    at ``places`` decimals, times ``scale``, ``unit`` after the mean; :func:`core.report.interval`),
    or where there is none ``[one game: no interval]`` (:func:`stats.no_interval_words`). The
    one form of the margins of ``simulate`` and ``tile simulate``."""
    mean = signed(float(e.mean) * scale, places) + unit
    if math.isnan(e.low):
        return f"{mean} [{no_interval_words(e)}]"
    return f"{mean} {interval(e.low, e.high, lambda x: signed(x * scale, places))}"


def win_rate_texts(estimates: Sequence[Estimate]) -> list[str]:
    """Every seat's win rate as a table cell (:func:`interval_text` in percent), the means rounded
    together so that they add up to exactly 100.0% (every game's shares of victory add up to 1,
    D20: :func:`core.report.share_units`, each mean within 0.1 of its own rounding; a mean of
    exactly 0 or 1 as :func:`percent` prints it); each rounded alone where they do not add up to 1.
    E.g. three seats of 1/3 each: ``33.4%``, ``33.3%``, ``33.3%``, not three ``33.3%``."""
    if len(estimates) < 2:
        return [interval_text(e, as_percent=True) for e in estimates]
    means = share_texts([Fraction(e.mean) for e in estimates], 1, lambda v: percent(v, 1))
    return [interval_text(e, True, mean) for e, mean in zip(estimates, means)]


def estimate_data(e: Estimate) -> dict[str, Any]:
    """An estimate as JSON: the exact mean (``"p/q"``) and its float, the standard deviation and
    the 95% interval (``None`` for one game, or every game the same value, which adds
    ``others_at_most``: :attr:`stats.Estimate.others_at_most`)."""
    ci = None if math.isnan(e.low) else [e.low, e.high]
    return {"mean": exact(e.mean), "mean_float": float(e.mean), "sd": e.sd, "ci95": ci,
            **({"others_at_most": e.others_at_most} if e.unanimous else {})}


def seat_label(summary: Summary, seat: int) -> str:
    """A seat's column header, e.g. ``seat 1: solver`` (1-based seat, its strategy)."""
    return f"seat {seat + 1}: {summary.players[seat]}"


@dataclass(frozen=True)
class TournamentParts:
    """What one game puts into :func:`tournament_report`.

    Attributes:
        game: what one game is called in the title, ``"game"`` or ``"tile game"`` (an ``s`` is
            added for several).
        place: where the games were played, as the title names it and the JSON key: e.g.
            ``("board", "default")`` or ``("layout", "standard")``.
        statistics: the per-seat statistics reported, ``(key, row label)`` in row order (keys
            of :attr:`SeatSummary.stats`; ``win`` is shown in percent).
        margin: the words of a pairwise margin after ``"seat 1: A vs seat 2: B: "``.
        notes: the footer lines (the saved file's line follows them).
        spread: the statistics followed by a row of their standard deviation over games
            (``"<key> standard deviation"``).
        data: keys added to the JSON after ``seats`` (e.g. the margins).
        records: the CSV records (``None``: the table's rows).
    """

    game: str
    place: tuple[str, str]
    statistics: Sequence[tuple[str, str]]
    margin: Callable[[Margin], str]
    notes: Sequence[str]
    spread: frozenset[str] = frozenset()
    data: Mapping[str, Any] = field(default_factory=dict)
    records: list[dict[str, Any]] | None = None


def tournament_report(summary: Summary, parts: TournamentParts, saved: str | None = None) -> Report:
    """The report of a tournament: the games, players, place and seed, the game length, the
    leader's win rate (with two seats or more) and each pairwise margin above; one row per
    statistic and one column per seat, each ``mean [low, high]`` (95% interval); the game's
    notes and, when the games were ``saved`` (a path), where. Rendered at a width, a table too
    wide for it is split into tables of as many seats as fit, each led by the statistic column.
    JSON: ``games``, ``players``, ``seed``, the place, ``rounds``, ``leader`` (1-based) and
    per seat every statistic (:func:`estimate_data`), then :attr:`TournamentParts.data`."""
    seats = summary.seats
    where, name = parts.place
    title = [f"{summary.games} {parts.game}{'s' if summary.games != 1 else ''} of {', '.join(summary.players)} "
             f"on {where} {name!r}, seed {summary.seed}",
             f"Game length: {interval_text(summary.rounds)} rounds (95% interval)"]
    wins = win_rate_texts([s.stats["win"] for s in seats]) if any(k == "win" for k, _ in parts.statistics) else []
    if len(seats) > 1:
        title.append(f"Leader: {seat_label(summary, summary.leader)}, "
                     f"win rate {wins[summary.leader] if wins else interval_text(seats[summary.leader].stats['win'], True)}")
    title += [f"{seat_label(summary, m.leader)} vs {seat_label(summary, m.other)}: {parts.margin(m)}"
              for m in summary.margins]
    headers = ["statistic"] + [seat_label(summary, s.seat) for s in seats]
    rows: list[list[Any]] = []
    for key, label in parts.statistics:
        rows.append([label] + (wins if key == "win" else [interval_text(s.stats[key]) for s in seats]))
        if key in parts.spread:
            rows.append([f"{key} standard deviation"] + [f"{s.stats[key].sd:.2f}" for s in seats])
    data: dict[str, Any] = {
        "games": summary.games, "players": list(summary.players), "seed": summary.seed, where: name,
        "rounds": estimate_data(summary.rounds), "leader": summary.leader + 1,
        "seats": [{"seat": s.seat + 1, "strategy": s.strategy,
                   **{key: estimate_data(s.stats[key]) for key, _ in parts.statistics}} for s in seats],
        **parts.data}
    notes = list(parts.notes)
    shown = [summary.rounds, *(s.stats[key] for s in seats for key, _ in parts.statistics),
             *(e for m in summary.margins for e in (m.score, m.win))]
    if any(e.unanimous for e in shown):
        notes.append(UNANIMOUS_NOTE[0].upper() + UNANIMOUS_NOTE[1:])
    if saved:
        notes.append(f"Games saved to {saved} (JSON Lines, replayable).")
    return Report(title, headers, rows, data, notes, records=parts.records,
                  split=[headers[:1], *([h] for h in headers[1:])])  # at 80 columns: as many seats a table as fit
