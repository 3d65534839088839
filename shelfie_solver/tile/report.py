"""The reports of ``shelfie-solve tile`` (docs/tile.md), click-free: a shelf's exact score with
the personal card's matching cells (``tile score``: T18, T21-T23, T25), every legal move ranked
with the rating of a move of the player's own (``tile advise``: T10-T16) and the tournament of
``tile simulate`` (the shared tournament report of :mod:`shelfie_solver.core.tournament_report`
with the tile game's parts: T9, T26).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from shelfie_solver.core.report import TABLE_WIDTH, Report, exact, fixed, interval, signed, wrap_lines
from shelfie_solver.tile.advice_json import move_record
from shelfie_solver.tile.advise import PARTS, RankedMove
from shelfie_solver.tile.gains import QUARTER
from shelfie_solver.tile.rules import TYPE_NAMES, TYPES, PersonalCard, Shelf, shelf_cell_name, shelf_text
from shelfie_solver.tile.shelf import ScoreBreakdown, goal_text
from shelfie_solver.tile.state import Move, Setup, State, board_cell_name

if TYPE_CHECKING:
    from shelfie_solver.core.stats import Estimate, Margin, Summary

#: Width of ``tile score``'s detail cells in the table at 80 columns: less the part ("end
#: token") and points columns and the gaps between them.
SCORE_DETAIL_WIDTH = TABLE_WIDTH - len("end token") - len("points") - 2 * 2


# --- score ------------------------------------------------------------------------------------


def matching_cells(shelf: Shelf, card: PersonalCard) -> list[int]:
    """The shelf cells (indices, row by row from the top) where ``shelf`` holds the type
    ``card`` asks for there (T21), in the card's type order."""
    return [cell for t, cell in enumerate(card.cells) if shelf[cell] == t]


def score_report(shelf: Shelf, breakdown: ScoreBreakdown, card: PersonalCard | None, goals: tuple[int, ...],
                 narrow: bool = False) -> Report:
    """The report of ``tile score``: one row per group (T22), the personal goal with its matching
    cells (T21), the tokens (T18, T23) and the total (T25); above, the shelf, the score's parts,
    the common ``goals`` (T-CG ids) of those checked that are met, and what ``card`` asks for.
    ``narrow``: the table at 80 columns, the matching cells on lines of their own within the
    detail column (:data:`SCORE_DETAIL_WIDTH`)."""
    tokens, end_token = breakdown.tokens, breakdown.end_token
    rows: list[list[Any]] = [["group", f"{TYPE_NAMES[t]} x {size}", points] for t, size, points in breakdown.groups]
    matching = [] if card is None else matching_cells(shelf, card)
    if card is not None:
        named = ", ".join(f"{TYPE_NAMES[shelf[c]]} {shelf_cell_name(c)}" for c in matching)
        detail = f"card {card.name}: {breakdown.personal_matches} of 6 cells match" + (f" ({named})" if named else "")
        if narrow:
            detail = "\n".join(wrap_lines([detail], SCORE_DETAIL_WIDTH))
        rows.append(["personal", detail, breakdown.personal])
    rows += [["tokens", "common goal tokens", tokens]] if tokens else []
    rows += [["end token", "filled first (T23)", 1]] if end_token else []
    rows.append(["total", "T25", breakdown.total])
    met = [g for g in goals if g in breakdown.goals_met]
    title = [shelf_text(shelf, " / "),
             f"Score {breakdown.total}: groups {breakdown.adjacency}, personal {breakdown.personal}, "
             f"tokens {tokens}, end token {end_token}",
             "Common goals met: " + (", ".join(goal_text(g) for g in met) or "none")
             + f" (of {len(goals)} checked)"]
    if card is not None:
        title.append(f"Personal card {card.name} asks for: {card.words()} (row 1 at the top, column 1 on the left)")
    data = {"shelf": shelf_text(shelf, "/"), "total": breakdown.total, "adjacency": breakdown.adjacency,
            "groups": [{"type": TYPES[t], "size": s, "points": p} for t, s, p in breakdown.groups],
            "personal": {"card": card.name, "matches": breakdown.personal_matches, "points": breakdown.personal,
                         "matching_cells": [shelf_cell_name(c) for c in matching],
                         "asks": {TYPE_NAMES[t]: shelf_cell_name(c) for t, c in enumerate(card.cells)}}
            if card else None,
            "tokens": tokens, "end_token": end_token,
            "goals": {f"T-CG{g}": g in breakdown.goals_met for g in goals}}
    return Report(title, ["part", "detail", "points"], rows, data)


# --- advise -----------------------------------------------------------------------------------


def _explain(r: RankedMove, board: tuple[int, ...]) -> str:
    gains = ", ".join(f"{name} {signed(float(v), 2)}" for name, v in r.parts.items() if v)
    extra = [f"scores T-CG{g}" for g in r.goals] + (["takes the end token"] if r.end else []) \
        + ([_refill_text(r)] if r.refill else [])
    return f"{_move_text(r.move, board)}: value {signed(float(r.value), 2)} ({gains or 'no change'})" + \
        (f"; {', '.join(extra)}" if extra else "")


def _refill_text(r: RankedMove) -> str:
    if r.outlook is None:
        return "triggers a refill (T16)"
    o = r.outlook
    how = f"exact over all {o.samples} boards it can draw" if o.exact else \
        f"{o.samples} sampled boards, 95% {interval(o.low, o.high, lambda x: fixed(x / QUARTER, 2))}" \
        if not math.isnan(o.low) \
        else f"all {o.samples} sampled boards alike, no interval"
    return f"triggers a refill (T16): next player's expected best gain {fixed(float(o.mean / QUARTER), 2)} ({how})"


def _refill_cell(r: RankedMove) -> str:
    """The table's refill column: how the denial term of a refill (T16) was computed."""
    if not r.refill:
        return ""
    if r.outlook is None:
        return "ignored"
    return "exact" if r.outlook.exact else f"{r.outlook.samples} samples"


def _rank_words(rank: int, ranks: list[int]) -> str:
    """``28`` or, for an exact tie, ``28 (tied with 4 others)`` (as ``advise`` marks ties)."""
    others = ranks.count(rank) - 1
    return f"{rank} (tied with {others} other{'s' if others != 1 else ''})" if others else str(rank)


def _move_text(move: Move, board: tuple[int, ...]) -> str:
    return (f"take {' '.join(board_cell_name(c) for c in move.cells)}, column {move.column + 1}, "
            f"bottom to top {''.join(TYPES[t] for t in move.types(board))}")


def rated_move(ranked: list[RankedMove], move: Move, board: tuple[int, ...]) -> RankedMove:
    """The ranked move that is ``move``: the one leading to the same state, with the same cells,
    column and types in order (T14; the order the cells are named in may differ).

    Raises:
        StopIteration: no ranked move is ``move`` (it was not checked legal first:
            :func:`state.check_move`).
    """
    key = (frozenset(move.cells), move.column, move.types(board))
    return next(r for r in ranked if (frozenset(r.move.cells), r.move.column, r.move.types(board)) == key)


def advise_report(setup: Setup, state: State, ranked: list[RankedMove], advice: dict[str, Any], top: int,
                  mine: Move | None = None) -> Report:
    """The report of ``tile advise``: the ``top`` moves of ``ranked`` (every legal move of the
    active player, best first, T10-T14) with their value and its parts, the best move and the
    next two explained; ``advice`` is their JSON (:func:`advice_json.advise`), which the JSON and
    CSV list in full; ``mine`` (a legal move) is also rated, with its rank and ties."""
    board = state.board
    ranks = [r.rank for r in ranked]
    rows = [[f"{r.rank}=" if ranks.count(r.rank) > 1 else r.rank, " ".join(board_cell_name(c) for c in r.move.cells),
             r.move.column + 1, "".join(TYPES[t] for t in r.move.types(board)), signed(float(r.value), 2)]
            + [signed(float(r.parts[p]), 2) for p in PARTS] + [_refill_cell(r)] for r in ranked[:top]]
    card = setup.card(state.turn)
    title = [f"Seat {state.turn + 1} to move ({setup.players} players); {len(ranked)} legal moves (T10-T14)",
             f"Personal card {card.name if card else '?'}" + (f": {card.words()}" if card else ""),
             f"Common goals: {', '.join(goal_text(g) for g in setup.goals)}"]
    title += [f"Best: {_explain(ranked[0], board)}"] if ranked else []
    if len(ranked) > 1:  # one move is played: the next best are other choices, not what follows
        title.append("Alternatives to the best move (instead of it, not after it):")
        title += [f"  rank {_rank_words(r.rank, ranks)}: {_explain(r, board)}" for r in ranked[1:3]]
    data: dict[str, Any] = {k: v for k, v in advice.items() if k not in ("legal_moves", "moves")}
    if mine is not None:
        rated = rated_move(ranked, mine, board)
        title.append(f"Your move, rank {_rank_words(rated.rank, ranks)} of {len(ranked)}: {_explain(rated, board)}")
        data["move"] = {**move_record(rated, board), "tied_with": ranks.count(rated.rank) - 1}
    notes = ["Board cells are r<row>c<column>, 1-9 from the top left; shelf columns 1-5 from the left; "
             "order bottom to top.",
             "value = immediate (score change now, T25) + groups + personal (potential) + tempo + denial + race "
             "(docs/tile.md); exact values in JSON."]
    moves = advice["moves"]  # JSON and CSV list all, as advise and odds do
    data["legal_moves"], data["moves"] = len(ranked), moves
    # At 80 columns: the moves with their value, then the value's parts (in two tables when wide
    # values need it), each led by rank, take and column.
    split = [["rank", "take", "column"], ["order", "value", "refill"], list(PARTS[:3]), list(PARTS[3:])]
    return Report(title, ["rank", "take", "column", "order", "value", *PARTS, "refill"], rows, data, notes,
                  records=moves, split=split)


# --- simulate ---------------------------------------------------------------------------------


def _ci(e: Estimate) -> dict[str, float | str]:
    """The interval's ends for CSV: empty cells when there is none (one game, or every game the
    same value), as ``simulate``'s."""
    return {"ci_low": "", "ci_high": ""} if math.isnan(e.low) else {"ci_low": e.low, "ci_high": e.high}


def _margin_words(m: Margin) -> str:
    """A pairwise margin of ``tile simulate``: the score, leader minus other, per game."""
    from shelfie_solver.core.tournament_report import margin_text

    return f"score {margin_text(m.score, 2)} per game"


def summary_report(summary: Summary, layout_name: str, saved: str | None) -> Report:
    """The report of ``tile simulate``: one column per seat, one row per statistic
    (:data:`tile.simulate.TILE_STATISTICS`), 95% intervals; CSV one record per seat and
    statistic. At a width, a table too wide for it is split into tables of as many seats as fit."""
    from shelfie_solver.core.tournament_report import TournamentParts, tournament_report
    from shelfie_solver.tile.simulate import TILE_STATISTICS  # with the simulation: advise starts faster

    notes = ["[low, high]: 95% interval over games. T26 names one winner per game; the first player is drawn "
             "at random each game (T9)."]
    records = [{"seat": s.seat + 1, "strategy": s.strategy, "statistic": key, "mean": exact(e.mean),
                "mean_float": float(e.mean), **_ci(e), "sd": e.sd, "games": e.n}
               for s in summary.seats for key, _ in TILE_STATISTICS for e in [s.stats[key]]]
    parts = TournamentParts("tile game", ("layout", layout_name), TILE_STATISTICS, _margin_words, notes,
                            records=records)
    return tournament_report(summary, parts, saved)
