"""The JSON of ``tile advise`` (docs/tile.md, "Positions"), built once for the command and for the
page of ``serve`` (docs/serve.md, "The tile page"), so both give the same numbers: the move text
``r5c2+r5c1@4``, one ranked move as a record, the whole advice as a dict.
"""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np

from shelfie_solver.core.errors import shorten
from shelfie_solver.core.report import exact
from shelfie_solver.tile.advise import RankedMove, rank_moves
from shelfie_solver.tile.denial import EXACT_REFILL_BOARDS
from shelfie_solver.tile.errors import TileError
from shelfie_solver.tile.gains import QUARTER
from shelfie_solver.tile.rules import TYPE_NAMES, TYPES, shelf_cell_name
from shelfie_solver.tile.shelf import COMMON_GOALS
from shelfie_solver.tile.state import Move, Setup, State, board_cell_name, parse_board_cell

#: ``tile advise``'s defaults: refill boards sampled, their seed (fixed: the same position gives
#: the same advice), the most refill boards averaged exactly (docs/tile.md, "denial").
SAMPLES = 40
SEED = 0


def parse_move(text: str, label: str = "--move") -> Move:
    """``"r7c6+r7c5@4"`` -> the move taking board cells r7c6 then r7c5 (``r<row>c<column>``,
    1-based from the top left, :func:`state.parse_board_cell`) into shelf column 4 (1-5).
    ``label`` names the input in messages (``--move`` on the command line). ASCII only: a
    full-width digit is refused, not read as its ASCII twin.

    Raises:
        TileError: not of that form, or a cell given twice (T10; the rest of the legality is
            :func:`state.check_move`'s).
    """
    expected = "expected board cells r<row>c<column> (1-9) joined by '+', then '@' and a column 1-5, e.g. r7c6+r7c5@4"
    if not text.isascii():  # a full-width digit (U+FF14) would read as 4 through \\d and int()
        raise TileError(f"bad {label} {shorten(text)}: not ASCII text; {expected}")
    cells_text, at, column_text = text.replace(" ", "").partition("@")
    cells = []
    for part in cells_text.split("+"):
        old = re.fullmatch(r"(\d),(\d)", part)
        if old:  # the 0-based row,column of older versions: refused, never read as 1-based
            raise TileError(f"bad {label} {shorten(text)}: board cells are named r<row>c<column>, counted from 1 "
                            f"(the old {part} counted from 0: r{int(old[1]) + 1}c{int(old[2]) + 1}); {expected}")
        try:
            cells.append(parse_board_cell(part))
        except TileError:
            raise TileError(f"bad {label} {shorten(text)}: no board cell {shorten(part)}; {expected}") from None
        if cells.count(cells[-1]) > 1:  # r5c2+r5c2: one tile cannot be taken twice (T10)
            raise TileError(f"bad {label} {shorten(text)}: the cell {board_cell_name(cells[-1])} is given twice; a "
                            f"pick takes 1, 2 or 3 different tiles (T10); {expected}")
    if not at or not column_text.isdigit() or len(column_text) > 3:
        raise TileError(f"bad {label} {shorten(text)}; {expected}")
    return Move(tuple(cells), int(column_text) - 1)


def move_text(move: Move) -> str:
    """The move as :func:`parse_move` reads it: ``r7c6+r7c5@4``."""
    return "+".join(board_cell_name(c) for c in move.cells) + f"@{move.column + 1}"


def move_record(r: RankedMove, board: tuple[int, ...]) -> dict[str, Any]:
    """One ranked move as JSON: rank, cells (placement order, bottom first), column (1-5), order
    (types bottom to top), value and its parts as exact ``"p/q"`` points (plus ``value_float``),
    the goals it scores, refill and end token flags, the refill outlook (docs/tile.md)."""
    return {"rank": r.rank, "cells": [board_cell_name(c) for c in r.move.cells], "column": r.move.column + 1,
            "order": "".join(TYPES[t] for t in r.move.types(board)), "value": exact(r.value),
            "value_float": float(r.value), **{p: exact(v) for p, v in r.parts.items()},
            "goals": [f"T-CG{g}" for g in r.goals], "refill": r.refill, "end_token": r.end,
            "refill_outlook": None if r.outlook is None else {
                "next_player_gain": exact(r.outlook.mean / QUARTER),
                "method": "exact" if r.outlook.exact else "sampled",
                **({"boards": r.outlook.samples, "ci95": None} if r.outlook.exact else
                   {"samples": r.outlook.samples, "ci95": _outlook_interval(r)})}}


def _outlook_interval(r: RankedMove) -> list[float] | None:
    """A sampled refill outlook's 95% interval in points; ``None`` when every sampled board gave
    the same gain (no t interval, core/stats.Estimate)."""
    assert r.outlook is not None
    return None if math.isnan(r.outlook.low) else [r.outlook.low / QUARTER, r.outlook.high / QUARTER]


def advice_data(setup: Setup, state: State, ranked: list[RankedMove]) -> dict[str, Any]:
    """The JSON object of ``tile advise --format json`` without its ``move`` key: the active
    seat (1-based), players, goals by id and name, the active player's personal card and what it
    asks for, the number of legal moves (T10-T14) and every move ranked (:func:`move_record`)."""
    card = setup.card(state.turn)
    data: dict[str, Any] = {"turn": state.turn + 1, "players": setup.players, "goals": list(setup.goals),
                            "goal_names": [COMMON_GOALS[g][0] for g in setup.goals],
                            "personal": None if card is None else {
                                "card": card.name, "asks": {TYPE_NAMES[t]: shelf_cell_name(c)
                                                            for t, c in enumerate(card.cells)}}}
    data["legal_moves"], data["moves"] = len(ranked), [move_record(r, state.board) for r in ranked]
    return data


def advise(setup: Setup, state: State, samples: int = SAMPLES, seed: int = SEED,
           exact_boards: int = EXACT_REFILL_BOARDS) -> tuple[list[RankedMove], dict[str, Any]]:
    """Every legal move ranked (:func:`advise.rank_moves`, refill samples seeded with ``seed``)
    and :func:`advice_data` of them: what ``tile advise`` computes with the same options."""
    ranked = rank_moves(setup, state, samples=samples, rng=np.random.default_rng(seed), exact_boards=exact_boards)
    return ranked, advice_data(setup, state, ranked)
