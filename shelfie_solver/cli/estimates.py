"""How the CLI shows an :class:`~shelfie_solver.core.stats.Estimate` (a mean over games with its
95% interval) and a seat: the text of a table cell, the JSON record, the seat's column header.
Shared by ``simulate`` (docs/simulate.md) and ``tile simulate`` (docs/tile.md)."""

from __future__ import annotations

import math
from typing import Any

from shelfie_solver.core.report import decimal, exact, percent
from shelfie_solver.core.stats import Estimate, Summary


def interval_text(e: Estimate, as_percent: bool = False) -> str:
    """An estimate for a table cell: ``mean [low, high]`` (its 95% interval; a percentage with
    ``as_percent``), or ``mean [one game: no interval]``. Shared with ``tile simulate``."""
    if math.isnan(e.low):
        return f"{decimal(e.mean, 2)} [one game: no interval]"
    if as_percent:
        return f"{percent(e.mean, 1)} [{e.low * 100:.1f}%, {e.high * 100:.1f}%]"
    return f"{decimal(e.mean, 2)} [{e.low:.2f}, {e.high:.2f}]"


def estimate_data(e: Estimate) -> dict[str, Any]:
    """An estimate as JSON: the exact mean (``"p/q"``) and its float, the standard deviation and
    the 95% interval (``None`` for one game). Shared with ``tile simulate``."""
    ci = None if math.isnan(e.low) else [e.low, e.high]
    return {"mean": exact(e.mean), "mean_float": float(e.mean), "sd": e.sd, "ci95": ci}


def seat_label(summary: Summary, seat: int) -> str:
    """A seat's column header, e.g. ``seat 1: solver`` (1-based seat, its strategy)."""
    return f"seat {seat + 1}: {summary.players[seat]}"
