"""The report of ``shelfie-solve simulate`` (docs/simulate.md), click-free: the tournament
report of :mod:`shelfie_solver.core.tournament_report` with the dice game's parts (its per-seat
statistics, the win-rate and score margins, its notes: D5, D15, D20), or one row per seat and
statistic for CSV.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from shelfie_solver.core.report import Report, exact
from shelfie_solver.core.stats import Estimate, Margin, Summary
from shelfie_solver.core.tournament_report import TournamentParts, estimate_data, margin_text, tournament_report
from shelfie_solver.dice.simulate import seat_statistics


def _margin_words(margin: Margin) -> str:
    """A pairwise margin: the win rate in percentage points and the score, leader minus other
    (:func:`core.tournament_report.margin_text`)."""
    return (f"win rate {margin_text(margin.win, 1, 100, ' percentage points')}, "
            f"score {margin_text(margin.score, 2)} per game")


def summary_report(summary: Summary, board_name: str, saved: str | None = None, long_form: bool = False) -> Report:
    """The report of ``shelfie-solve simulate``: one column per seat (table, Markdown, JSON), or
    with ``long_form`` one row per seat and statistic, numbers only (CSV: seat, strategy,
    statistic, mean, ci_low, ci_high, sd, games). Rendered at a width, a table too wide for it
    is split into tables of as many seats as fit, each led by the statistic column."""
    notes = [("[low, high]: 95% interval (win rate: Wilson score interval; other means: Student t over "
              "games). Win rate: a k-way tie gives each winner 1/k (D20). First player drawn at random "
              "each game (D5); seats do not rotate."),
             "Lines blocked: this seat's lines that lost items to an opponent's completed line (D15)."]
    if len(summary.seats) == 1:
        notes = ["[low, high]: 95% interval (Student t over games).", "Solitaire: no win rate, no lines blocked."]
    margins = [{"leader": m.leader + 1, "other": m.other + 1, "score": estimate_data(m.score),
                "win": estimate_data(m.win)} for m in summary.margins]
    parts = TournamentParts("game", ("board", board_name), seat_statistics(len(summary.seats)), _margin_words,
                            notes, spread=frozenset(("score",)), data={"margins": margins})
    report = tournament_report(summary, parts, saved)
    if long_form:
        headers, rows = _long_rows(summary)
        report = replace(report, headers=headers, rows=rows)
    return report


def _ci(e: Estimate) -> tuple[float | str, float | str]:
    """The interval's ends for CSV: empty cells when there is none (one game, or every game the
    same value)."""
    return ("", "") if math.isnan(e.low) else (e.low, e.high)


def _long_rows(summary: Summary) -> tuple[list[str], list[list[Any]]]:
    headers = ["seat", "strategy", "statistic", "mean", "mean_exact", "ci_low", "ci_high", "sd", "games"]
    rows: list[list[Any]] = []
    for s in summary.seats:
        for key, _ in seat_statistics(len(summary.seats)):
            e = s.stats[key]
            rows.append([s.seat + 1, s.strategy, key, float(e.mean), exact(e.mean), *_ci(e), e.sd, e.n])
    e = summary.rounds
    rows.append(["", "", "rounds", float(e.mean), exact(e.mean), *_ci(e), e.sd, e.n])
    for m in summary.margins:  # pairwise: leader's seat minus the other's, per game
        for key, e in (("win_margin", m.win), ("score_margin", m.score)):
            rows.append([f"{m.leader + 1}-{m.other + 1}", "", key, float(e.mean), exact(e.mean), *_ci(e), e.sd, e.n])
    return headers, rows
