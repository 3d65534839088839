"""Every seat's chance to win (D20) before the game's last turns, one probability of one
position: a joint model of self-play outcomes over the ``learned`` values, the objective ``win``
(docs/train.md, "The chance to win"; docs/win-chance.md).

After a player's turn, the ``learned`` objective of that turn (:mod:`learned.objective`) gives
every seat's expected final score ``P`` (the opponents' after the player's blocking, D15) and the
phase: the player's game over (0), near the end (2) or far from it (3). Each seat ``i`` gets the
integer features ``x_i`` of :func:`design` (its ``P``, its score now, whether it is one closed
shelf short of the trigger, D17, whether another seat is, how soon it plays, D5, its lead over the
best other seat, with round interactions, and whether it has played one more turn than the seats
still to play in this round, D5, D18; and, format 4, how many of its shelves and of its columns
are in each state of items marked and available, D4: :func:`sheet_states`), and a strength
``z_i = c . x_i`` with one coefficient
row ``c`` per number of players (2-4) and phase, shared by the seats (format 5, with 2 seats: plus
an integer term of both seats' features through regression trees, :mod:`learned.win_trees`,
:meth:`WinModel.trees_for`; docs/win-chance.md "Both sheets: trees in integers"). The chances are the softmax

    chance_i = exp(z_i) / sum_j exp(z_j)

so they add up to 1 over the seats by construction, and the figure of any seat at a position is
read from the same function (the mover's for its advice, the others' for ``play status``).
Coefficients are integers over :data:`COEF_SCALE`; the differences ``z_j - z_i`` are exact
integers and a seat's chance is the integer ``round(CHANCE_SCALE / sum_j exp(z_j - z_i))``
(float64 ``exp``, whose error, below 1e-15, can move that integer only at an exact rounding
tie), so the engine's expectations over the dice are exact integers under the model. Fitted by
maximum likelihood (``scipy.optimize``, every seat's share of victory as a soft target, D20) on
the positions after every turn of seeded self-play of the ``learned`` strategy, every seat's
point of view at once (:func:`fit`; :mod:`learned.win_fit`). :func:`design` and
:func:`chances` are the one place that maps a position's values to chances. At evaluation the
strengths go through a monotone projection (:func:`monotone_columns`: the curve's lead clamped,
a negative slope in ``P`` raised to 0) so that every seat's chance is non-decreasing in its own
``P``, exactly (docs/win-chance.md, "Monotone in the lead"); the fit reads :func:`design` as it is.

Points are read in the default board's (:func:`board_scale`, :func:`in_board_points`): on a board
of higher values every ``P`` and score is divided by the board's value scale, exactly 1 on the
default board and every board of its range (docs/win-chance.md, "Boards of high values").

On the turns where :mod:`win_chance` is exact, advice uses that instead
(:func:`objective_names.advice_objective`). Fitting: :mod:`learned.win_fit`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import cache, lru_cache, reduce
from math import gcd, lcm
from operator import or_
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from shelfie_solver.core.errors import ShelfieError, shorten
from shelfie_solver.core.files import FileKind, json_kind
from shelfie_solver.dice.board import Board, ItemSets, Marks, highest_score, score, top_other_score
from shelfie_solver.dice.game.events import GameState, place_in_round
from shelfie_solver.dice.learned.model_file import (
    POINT_FEATURES,
    WEIGHT_SCALE,
    LearnedModel,
    default_model,
    players_key,
)
from shelfie_solver.dice.learned.objective import (
    Learned,
    game_objective,
    phase_rows,
    scores,
)
from shelfie_solver.dice.learned.win_bounds import (
    DESIGN_INPUT_BOUND,
    DESIGN_LEAD_BOUND,
    DESIGN_ROUND_BOUND,
    LINE_STATE_CAP,
    LINE_STATES,
)
from shelfie_solver.dice.learned.win_trees import NO_TREES, TREE_PLAYERS, WinTrees, trees_from_dict
from shelfie_solver.dice.objectives import StateArrays
from shelfie_solver.dice.rules import Ruleset
from shelfie_solver.dice.sheet_rules import (
    block as blocked_sheets,
    end_trigger_shelves,
    failed_result_shelves,
    line_masks,
    markings_block_out,
    markings_end_game,
    may_block_out,
    may_end_game,
)

#: The numbers of players for which the objective ``win`` plays by the model (with others it would
#: play ``learned`` outside the exact turns). Every count: against ``learned`` seats the shipped
#: file's advice wins 52.8% [52.1, 53.5] of 20,000 two-player games (seeds 7101-7104), 36.8%
#: [35.4, 38.4] of 4,000 three-player games (seed 7411) and 27.65% [26.7, 28.6] of 8,000
#: four-player games (seeds 7401-7402; benchmarks/tournament_win.py, docs/win-chance.md "A file
#: assembled per number of players"); through the monotone projection (:func:`monotone_columns`)
#: 53.2% [52.5, 53.9] of 20,000 two-player games (seeds 8601-8604), 37.3% [35.8, 38.8] of 4,000
#: three-player (8611), 27.3% [25.9, 28.7] of 4,000 four-player (8621; docs/win-chance.md
#: "Monotone in the lead"); the 2-player coefficients with "a turn ahead" (2026-12-06) 52.9% [52.4, 53.4] of
#: 40,000 two-player games (seed 14104; docs/win-chance.md "Who played first in the round"); with the
#: sheets' line states (format 4) 54.7% [54.0, 55.4] of 20,000 (seed 15108; "The sheets' line states");
#: the 3- and 4-player coefficients before "a turn ahead" 36.3% [35.7, 36.8] of 30,000 three-player games
#: (seed 14801) and 28.0% [27.6, 28.4] of 40,000 four-player games (seed 14802); with it (2026-12-06)
#: 37.0% [36.3, 37.7] of 20,000 three-player games (seed 15206) and 28.5% [27.9, 29.1] of 20,000
#: four-player games (seed 15207; docs/win-chance.md "A turn ahead with 3 and 4 players"); with the
#: line states for 3 and 4 players (2026-12-07) 39.8% [39.1, 40.5] and 30.5% [29.9, 31.2] of 20,000 each
#: (seeds 18116, 18117; "The sheets' line states with 3 and 4 players"); with 14 trees over both seats'
#: features for 2 players (format 5) 56.0% [55.4, 56.7] of 20,000 (seed 18022; "Both sheets: trees on
#: the line states").
#: ``win-model`` plays by the model always.
MODEL_PLAYERS = (2, 3, 4)
#: A sure win, in the model's units.
CHANCE_SCALE = 1_000_000
#: Coefficients are integers over this scale.
COEF_SCALE = 1_000_000
#: The largest ``|coefficient|`` of a model file (:func:`model_from_dict`): ``2**63 - 1``, so that
#: every coefficient and its absolute value are int64 (``-2**63`` is int64 but its ``abs`` is not:
#: the int64 bounds of :func:`strength_numerators` and :func:`learned.kernel._win_strengths_into`
#: would wrap and give strengths the coefficients do not define).
COEF_LIMIT = (1 << 63) - 1
#: Coefficient rows: the player's game over after the turn (phase 0), near the end (2), far (3).
ROWS = (0, 2, 3)
#: A seat's values that :func:`design` reads (int64 each): its expected final score ``P`` under
#: ``learned`` (over :data:`WEIGHT_SCALE`, after the blocks of the turn, D15), its score now (D19),
#: its closed shelves short of the end trigger (D17; 0 or less once it has triggered it) and the
#: turns until it plays next (0 for the seat that just played, D5); then, optionally, its
#: :data:`SHEET_COLUMNS` line-state counts (:func:`sheet_states`; absent: read as 0).
SEAT_COLUMNS = ("expected final score", "score", "shelves to the trigger", "turns until it plays")
#: Each seat's features (:func:`design`); ``r`` the round, ``F = P - score`` the points still to
#: come, "near" one closed shelf short of the trigger, "lead" ``P`` minus the best other seat's
#: (in points; its signed square over 10 lets the chance steepen where one seat is far ahead).
#: "a turn ahead": the seat has played one more turn than the seats still to play in this round
#: (D5, D18: after the turn of a seat that is not last in the round, it and the seats before it
#: have played once more than the seats after it; with two players, exactly "the player who just
#: played played first in the round"; 0 for every seat once the round is closed; docs/win-chance.md
#: "Who played first in the round").
BASE_FEATURES = ("P", "P x r", "score", "score x r", "near", "F x another seat near", "F x near",
                 "plays next", "plays next x r", "plays second", "plays third", "lead x |lead| / 10",
                 "lead x |lead| / 10 x r", "a turn ahead")
#: The sheet's line states (format 4; docs/win-chance.md, "The sheets' line states"): how many of
#: the seat's shelves, then of its columns, are in each state ``(m, a)`` (items marked, items
#: available, D4; :func:`learned.win_bounds.line_state`), each count times ``WEIGHT_SCALE``. The
#: player who just played is read on its sheet after the turn; every other seat on its sheet at the
#: start of that turn (before the turn's blocks, D15, which its ``P`` already has).
SHEET_FEATURES = tuple(f"{kind} m{m} a{a}" for kind in ("shelves", "columns")
                       for m in range(LINE_STATE_CAP + 1) for a in range(LINE_STATE_CAP + 1 - m))
#: The number of sheet-state columns of a seat (:data:`SHEET_FEATURES`).
SHEET_COLUMNS = len(SHEET_FEATURES)
#: Each seat's features (:func:`design`): :data:`BASE_FEATURES` then :data:`SHEET_FEATURES`.
FEATURES = BASE_FEATURES + SHEET_FEATURES
#: The ``format`` key of a model file (format 1, a logistic of one seat's gaps, is refused) without
#: trees: a model without trees is written in it (so a format-4 file is written back byte for byte).
WIN_FORMAT = "shelfie-solve win 4"
#: The ``format`` key of a model file with trees (:data:`TREES_KEY`; docs/formats.md, "Win-model
#: file"): format 4 and the optional 2-player trees over both seats' features
#: (:mod:`learned.win_trees`); a format-5 file without them gives exactly format 4's figures.
TREES_FORMAT = "shelfie-solve win 5"
#: The optional key of a format-5 file holding the trees (:func:`learned.win_trees.trees_from_dict`).
TREES_KEY = "trees"
#: The formats still read and the features their files have: a missing coefficient is 0, so such
#: a file gives exactly the figures it gave (:func:`model_from_dict`). Format 3: without the sheet
#: states; format 2: without "a turn ahead" either.
FORMER_FORMATS = {"shelfie-solve win 3": BASE_FEATURES, "shelfie-solve win 2": BASE_FEATURES[:13]}
#: The format before the sheet states (kept by name: tests and tools that write a format-3 file).
FORMER_FORMAT = "shelfie-solve win 3"
#: The features of a file of format 3 (:data:`FORMER_FORMAT`).
FORMER_FEATURES = BASE_FEATURES
#: A win-model file, as recognised before it is replaced (:func:`files.check_overwrite`): any format read.
WIN_KIND = FileKind("a win-model file", json_kind("a win-model file", WIN_FORMAT).patterns
                    + json_kind("a win-model file", TREES_FORMAT).patterns
                    + tuple(p for f in FORMER_FORMATS for p in json_kind("a win-model file", f).patterns))
#: The optional key of a model file recording, per number of players (``"2"``-``"4"``, exactly the
#: counts of ``"coefficients"``), how that count's coefficients were made (:func:`assemble`;
#: docs/formats.md, "Win-model file").
FITTED_KEY = "fitted"
#: The optional key of a model file naming the board shape its coefficients (their line states,
#: format 4) and trees (format 5) were fitted on, ``[shelves, columns]``; it comes with
#: :data:`OTHER_SHAPES_KEY` (docs/formats.md, "Win-model file"; docs/win-chance.md "Off the
#: fitted board's shape").
SHAPE_KEY = "shape"
#: The optional key of a model file holding the coefficients used on boards of any other shape
#: than :data:`SHAPE_KEY`: ``{"features": FORMER_FEATURES, "coefficients": {"2": rows, ...}}``
#: (and an optional ``"fitted"`` record), format 3's features, no line states and no trees, whose
#: meaning does not depend on the board's shape.
OTHER_SHAPES_KEY = "other_shapes"
#: Ridge penalty (per coefficient, on the log loss summed over positions).
RIDGE = 1.0
DEFAULT_WIN_PATH = Path(__file__).parent.parent / "data" / "win.json"


class WinModelError(ShelfieError):
    """A win-model file that is missing, malformed or of the wrong shape."""


@dataclass(frozen=True, eq=False)
class WinModel:
    """Coefficients: players (2-4) -> ``int64 (3, F)`` (rows :data:`ROWS`, columns
    :data:`FEATURES`) over :data:`COEF_SCALE`; ``info`` how they were made; ``trees`` players
    (2 only) -> the both-sheets trees added to the strengths (:mod:`learned.win_trees`, format 5;
    empty: none, format 4)."""

    coefficients: dict[int, np.ndarray]
    info: dict[str, Any] = field(default_factory=dict)
    trees: dict[int, WinTrees] = field(default_factory=dict)
    #: ``(shelves, columns)`` of the boards the coefficients and trees were fitted on, with
    #: :attr:`other_shapes` the model of every other shape; ``None`` (both): one model for every
    #: board (every file before 2026-12-07).
    shape: tuple[int, int] | None = None
    other_shapes: WinModel | None = None
    #: The exponent ``e`` of :func:`size_factor` by which an other-shapes model is put in the
    #: points of each board's own size (:meth:`for_board`): 0, the default board's points as they
    #: are (every file before 2026-12-07; a model of one shape), else the file's
    #: :data:`POINTS_EXPONENT_KEY`.
    points_exponent: Fraction = Fraction(0)

    def __post_init__(self) -> None:
        if (self.shape is None) != (self.other_shapes is None):
            raise ValueError("a win model's shape and its other shapes' model come together")
        other = self.other_shapes
        if other is not None and (other.trees or other.other_shapes is not None or any(
                c[:, len(FORMER_FEATURES):].any() for c in other.coefficients.values())):
            raise ValueError("the model of other shapes has format 3's features only: no line states, no trees")

    def for_board(self, board: Board) -> WinModel:
        """The model that gives the chances on ``board``: this one on a board of its
        :attr:`shape` (shelves x columns) or when it has none, else :attr:`other_shapes` (format
        3's features: the line states, D4, and the trees read a sheet as one of the shape they
        were fitted on, and on another shape they mislead: docs/win-chance.md "Off the fitted
        board's shape"); where that model has a :attr:`points_exponent`, its coefficients put in
        the points of the board's size, :func:`sized_model`)."""
        if self.other_shapes is None or (board.n_shelves, board.n_columns) == self.shape:
            return self
        return sized_model(self.other_shapes, board)

    def trees_for(self, players: int) -> WinTrees | None:
        """The trees added to the strengths of a position of ``players`` seats: the file's
        2-player block with exactly 2 seats (:data:`learned.win_trees.TREE_PLAYERS`), else
        ``None`` (no term; also for an empty block, whose term is 0)."""
        found = self.trees.get(players) if players == TREE_PLAYERS else None
        return None if found is None or found.empty else found

    def for_players(self, players: int) -> np.ndarray:
        """``(3, F)`` for ``players`` seats (the nearest count fitted)."""
        best = min(self.coefficients, key=lambda n: (abs(n - players), n))
        return self.coefficients[best]

    def fitted_for(self, players: int) -> dict[str, Any]:
        """How the coefficients for ``players`` seats were made: the file's :data:`FITTED_KEY`
        record of that count where it has one (a file assembled per count, :func:`assemble`), else
        the file's own record (``seed``, ``games``, ``strategy``, ...: one fit of every count).

        Raises:
            KeyError: no coefficients for ``players``.
        """
        if players not in self.coefficients:
            raise KeyError(players)
        fitted = self.info.get(FITTED_KEY)
        if isinstance(fitted, dict):
            record: dict[str, Any] = fitted[str(players)]
            return record
        return {k: v for k, v in self.info.items() if k != FITTED_KEY}

    def to_dict(self) -> dict[str, Any]:
        """The file's JSON form: format 5 (:data:`TREES_FORMAT`) with a ``"trees"`` key where the
        model has trees (a block, even empty), else format 4 (:data:`WIN_FORMAT`); with a
        :attr:`shape`, the :data:`OTHER_SHAPES_KEY` block (its :data:`POINTS_EXPONENT_KEY` after
        ``"features"`` where the exponent is not 0), its records each nested at most
        ``MAX_NESTING - 2`` deep (:func:`bounded_record`: one level below the file's own, so the
        file stays readable; a record read from a file is within it already)."""
        out = {"format": TREES_FORMAT if self.trees else WIN_FORMAT, "coef_scale": COEF_SCALE,
               "chance_scale": CHANCE_SCALE, "rows": list(ROWS), "features": list(FEATURES),
               "coefficients": {str(n): c.tolist() for n, c in sorted(self.coefficients.items())}, **self.info}
        if self.trees:
            out[TREES_KEY] = {str(n): t.to_dict() for n, t in sorted(self.trees.items())}
        if self.shape is not None and self.other_shapes is not None:
            other = self.other_shapes
            out[SHAPE_KEY] = list(self.shape)
            from shelfie_solver.core.inputs import MAX_NESTING

            # its records one level deeper than the file's own: within the nesting a file is read to
            records = {k: bounded_record(v, MAX_NESTING - 2) for k, v in other.info.items()}
            sized = {POINTS_EXPONENT_KEY: str(other.points_exponent)} if other.points_exponent else {}
            out[OTHER_SHAPES_KEY] = {"features": list(FORMER_FEATURES), **sized, **records, "coefficients": {
                str(n): c[:, :len(FORMER_FEATURES)].tolist() for n, c in sorted(other.coefficients.items())}}
        return out


#: The keys a win-model file is read by; the others record how it was made and are kept
#: (:attr:`WinModel.info`), except one that looks like a misspelling of these (:func:`model_from_dict`).
READ_KEYS = ("format", "coef_scale", "chance_scale", "rows", "features", "coefficients", FITTED_KEY, TREES_KEY,
             SHAPE_KEY, OTHER_SHAPES_KEY)


def model_from_dict(data: Any, source: str) -> WinModel:
    """A :class:`WinModel` from its JSON form (docs/formats.md, "Win-model file"): ``"format"``
    :data:`WIN_FORMAT`; ``"coef_scale"``, ``"chance_scale"``, ``"rows"`` and ``"features"`` exactly
    :data:`COEF_SCALE`, :data:`CHANCE_SCALE`, :data:`ROWS` and :data:`FEATURES` (what this version
    computes), or a file of one of :data:`FORMER_FORMATS` with its features, whose missing
    coefficients (the sheet states; format 2 also "a turn ahead") are read as 0 (the figures it gave); ``"coefficients"`` for each
    of the counts :data:`MODEL_PLAYERS` (2, 3 and 4, as ``train --win-model`` writes), keyed
    ``"2"``, ``"3"``, ``"4"`` only (:func:`model_file.players_key`), each :data:`ROWS` rows of :data:`FEATURES` whole numbers;
    the optional :data:`FITTED_KEY` record; any other key kept as provenance unless it looks like
    a misspelling of one of :data:`READ_KEYS`. A file of :data:`TREES_FORMAT` (format 5) is
    format 4 plus the optional :data:`TREES_KEY`, the 2-player trees
    (:func:`learned.win_trees.trees_from_dict`: a forest of int64 nodes, the leaves' sum bounded,
    monotone in each seat's own ``P``; :attr:`WinModel.trees`).

    Raises:
        WinModelError: one line naming the problem and the form expected.
    """
    name = shorten(source)
    if isinstance(data, dict) and data.get("format") == "shelfie-solve win 1":
        raise WinModelError(f"{name}: a win-model file of format 1 (a logistic of one seat's gaps), "
                            f"which this version no longer reads; fit a {WIN_FORMAT!r} file with "
                            "shelfie-solve train --win-model --seed S --output FILE")
    if not isinstance(data, dict) or (data.get("format") not in (WIN_FORMAT, TREES_FORMAT)
                                      and data.get("format") not in FORMER_FORMATS):
        raise WinModelError(f'{name}: not a win-model file (expected "format": "{WIN_FORMAT}", or '
                            f'"{TREES_FORMAT}" with "{TREES_KEY}")')
    features = FEATURES if data["format"] in (WIN_FORMAT, TREES_FORMAT) else FORMER_FORMATS[data["format"]]
    for key, value in (("coef_scale", COEF_SCALE), ("chance_scale", CHANCE_SCALE), ("rows", list(ROWS)),
                       ("features", list(features))):
        if key not in data or json.dumps(data[key]) != json.dumps(value):  # 1.0 or true would equal 1
            raise WinModelError(f'{name}: "{key}" must be {json.dumps(value)} (what this version computes); '
                                f"fit a new file with shelfie-solve train --win-model{_features_hint(data, key, value)}")
    misspelt = _misspelt_key(data)
    if misspelt is not None:
        raise WinModelError(f'{name}: unknown key {shorten(misspelt[0])}; did you mean "{misspelt[1]}"? '
                            f"(docs/formats.md, \"Win-model file\")")
    coefficients = _read_tables(data.get("coefficients"), features, name, data["format"], '"coefficients"')
    _check_fitted(data, coefficients, name, f'"{FITTED_KEY}"')
    info = {k: v for k, v in data.items() if k not in READ_KEYS or k == FITTED_KEY}
    shape, other = _read_other_shapes(data, name)
    return WinModel(coefficients, info, _read_trees(data, name), shape, other)


def _check_fitted(data: dict[str, Any], coefficients: dict[int, np.ndarray], name: str, key: str) -> None:
    """Refuse a :data:`FITTED_KEY` record of ``data`` (a model file, or its :data:`OTHER_SHAPES_KEY`
    block; ``key`` names it in the message) that does not map exactly the counts of its
    ``coefficients`` to records (:meth:`WinModel.fitted_for` reads it so); none is fine.

    Raises:
        WinModelError: one line naming the problem and the form expected."""
    fitted = data.get(FITTED_KEY)
    if FITTED_KEY in data and (not isinstance(fitted, dict) or set(fitted) != {str(n) for n in coefficients}
                               or not all(isinstance(record, dict) for record in fitted.values())):
        raise WinModelError(f"{name}: {key} must map each number of players of the "
                            f"coefficients ({PLAYER_KEYS}) to a record of how they were made (docs/formats.md)")


def _read_tables(raw_tables: Any, features: Sequence[str], name: str, fmt: Any, key: str) -> dict[int, np.ndarray]:
    """The coefficients ``raw_tables`` of a model file (of format ``fmt``; ``key`` names them in
    messages): players -> ``int64 (3, F)`` over :data:`FEATURES`, a file's missing features 0
    (``features``: those its rows have), each of :data:`MODEL_PLAYERS` required.

    Raises:
        WinModelError: one line naming the problem and the form expected."""
    odd = next((key for key in raw_tables if _count_of(key) is None), None) if isinstance(raw_tables, dict) else None
    if odd is not None:  # "+2" or " 2 " would replace "2" silently
        raise WinModelError(f"{name}: {key} has the key {json.dumps(odd)[:40]}; expected only the "
                            f"numbers of players {PLAYER_KEYS}")
    try:
        coefficients = {}
        for players, raw in raw_tables.items():
            if not all(type(c) is int for row in raw for c in row):
                raise ValueError("not whole numbers")
            wide = next((c for row in raw for c in row if not -COEF_LIMIT <= c <= COEF_LIMIT), None)
            if wide is not None:  # -2**63 passes int64 but not abs(): the int64 bounds' checks would wrap
                raise WinModelError(f'{name}: the coefficient {shorten(str(wide))} of {players} players is out of '
                                    f"range; expected whole numbers from -{COEF_LIMIT} to {COEF_LIMIT} (2**63 - 1)")
            table = np.array(raw, dtype=np.int64)
            if table.shape != (len(ROWS), len(features)):
                raise ValueError("shape")
            full = np.zeros((len(ROWS), len(FEATURES)), dtype=np.int64)  # a former file's missing coefficients: 0
            full[:, :len(features)] = table
            coefficients[int(players)] = full
    except WinModelError:
        raise
    except (KeyError, ValueError, TypeError, AttributeError, OverflowError):
        raise WinModelError(f"{name}: not a win-model file ({fmt!r}: {key} maps {PLAYER_KEYS} "
                            f"players to {len(ROWS)} rows of {len(features)} whole numbers)") from None
    missing = [n for n in MODEL_PLAYERS if n not in coefficients]
    if missing:  # a file of 3 players' coefficients would play 2-player games by them silently
        raise WinModelError(f"{name}: no coefficients for {', '.join(map(str, missing))} players; expected "
                            f"{key} for each of {PLAYER_KEYS} (as shelfie-solve train --win-model writes)")
    return coefficients


#: The keys of a file's coefficients, as messages name them: ``"2", "3", "4"``.
PLAYER_KEYS = ", ".join(f'"{n}"' for n in MODEL_PLAYERS)
#: The optional key of a model file's :data:`OTHER_SHAPES_KEY` block giving its
#: :attr:`WinModel.points_exponent` as a string ``"p/q"`` (or ``"0"``): the block's coefficients are
#: put in the points of each board's size (:func:`size_factor`, :func:`sized_model`); absent, they
#: read every board's points as the default board's.
POINTS_EXPONENT_KEY = "points_exponent"
#: The keys of a model file's :data:`OTHER_SHAPES_KEY` block that are read; the others record how
#: it was made and are kept, unless one looks like a misspelling of these.
OTHER_SHAPES_KEYS = ("features", "coefficients", FITTED_KEY, POINTS_EXPONENT_KEY)
#: The largest denominator and value of a :data:`POINTS_EXPONENT_KEY` (an integer root of that degree).
POINTS_EXPONENT_LIMITS = (12, Fraction(2))
#: The largest number of shelves or columns a :data:`SHAPE_KEY` names (a board has at most 62 items
#: in the compiled paths; a larger one is refused by the board's own checks).
MAX_SHAPE_SIDE = 1000


def _read_other_shapes(data: dict[str, Any], name: str) -> tuple[tuple[int, int] | None, WinModel | None]:
    """A model file's :data:`SHAPE_KEY` and :data:`OTHER_SHAPES_KEY` (:attr:`WinModel.shape`,
    :attr:`WinModel.other_shapes`): both or neither; the shape two whole numbers from 1 to
    :data:`MAX_SHAPE_SIDE`, in a file of format 4 or 5 only (the line states and trees it names); the block :data:`FORMER_FEATURES`' coefficients for each of
    :data:`MODEL_PLAYERS` (:func:`_read_tables`) and an optional ``"fitted"`` record (kept).

    Raises:
        WinModelError: one line naming the problem and the form expected."""
    where = '(docs/formats.md, "Win-model file")'
    if (SHAPE_KEY in data) != (OTHER_SHAPES_KEY in data):
        raise WinModelError(f'{name}: "{SHAPE_KEY}" and "{OTHER_SHAPES_KEY}" come together (the board shape the '
                            f"coefficients were fitted on, and the coefficients of every other shape) {where}")
    if SHAPE_KEY not in data:
        return None, None
    if data["format"] not in (WIN_FORMAT, TREES_FORMAT):  # no line states or trees for the shape to name
        raise WinModelError(f'{name}: "{SHAPE_KEY}" in a file of "format": {json.dumps(data["format"])}; expected '
                            f'"format": "{WIN_FORMAT}" or "{TREES_FORMAT}" {where}')
    shape, block = data[SHAPE_KEY], data[OTHER_SHAPES_KEY]
    if not (isinstance(shape, list) and len(shape) == 2
            and all(type(side) is int and 1 <= side <= MAX_SHAPE_SIDE for side in shape)):
        raise WinModelError(f'{name}: "{SHAPE_KEY}" must be [shelves, columns], two whole numbers from 1 to '
                            f"{MAX_SHAPE_SIDE}, e.g. [5, 5] {where}")
    if not isinstance(block, dict):
        raise WinModelError(f'{name}: "{OTHER_SHAPES_KEY}" must be an object of "features" (format 3\'s) and '
                            f'"coefficients", and records of how they were made {where}')
    misspelt = _misspelt_key(block, OTHER_SHAPES_KEYS)
    if misspelt is not None:
        raise WinModelError(f'{name}: "{OTHER_SHAPES_KEY}" has the unknown key {shorten(misspelt[0])}; did you mean '
                            f'"{misspelt[1]}"? {where}')
    if json.dumps(block.get("features")) != json.dumps(list(FORMER_FEATURES)):
        raise WinModelError(f'{name}: "{OTHER_SHAPES_KEY}": "features" must be {json.dumps(list(FORMER_FEATURES))} '
                            f"(format 3's: no line states) {where}")
    tables = _read_tables(block.get("coefficients"), FORMER_FEATURES, name, data["format"],
                          f'"{OTHER_SHAPES_KEY}": "coefficients"')
    _check_fitted(block, tables, name, f'"{OTHER_SHAPES_KEY}": "{FITTED_KEY}"')
    record = {k: v for k, v in block.items() if k not in ("features", "coefficients", POINTS_EXPONENT_KEY)}
    return (shape[0], shape[1]), WinModel(tables, record, points_exponent=_points_exponent(block, name))


def _points_exponent(block: dict[str, Any], name: str) -> Fraction:
    """The :data:`POINTS_EXPONENT_KEY` of a model file's other-shapes block (0 without it), read
    by :func:`points_exponent_from`.

    Raises:
        WinModelError: one line naming the problem and the form expected."""
    if POINTS_EXPONENT_KEY not in block:
        return Fraction(0)
    try:
        return points_exponent_from(block[POINTS_EXPONENT_KEY])
    except ValueError:
        raise WinModelError(f'{name}: "{OTHER_SHAPES_KEY}": "{POINTS_EXPONENT_KEY}" must be a fraction as a string, '
                            f'{POINTS_EXPONENT_FORM}, e.g. "3/4" (docs/formats.md, "Win-model file")') from None


#: What a points exponent must be (:func:`points_exponent_from`), as messages say it.
POINTS_EXPONENT_FORM = (f'from "0" to "{POINTS_EXPONENT_LIMITS[1]}" with a denominator of at most '
                        f"{POINTS_EXPONENT_LIMITS[0]}")


def points_exponent_from(raw: Any) -> Fraction:
    """A :attr:`WinModel.points_exponent` from its text ``raw``: ``"p/q"`` or a whole number's
    digits (``"3/4"``, ``"1"``, ``"0"``; no sign, spaces, decimals or floats), from 0 to 2, ``q``
    at most 12 (:data:`POINTS_EXPONENT_LIMITS`: an integer root of at most that degree,
    :func:`size_factor`). The one reading of the other-shapes block's :data:`POINTS_EXPONENT_KEY`
    and of ``train --win-model --points-exponent``; an exact ``Fraction``.

    Raises:
        ValueError: anything else (the form expected: :data:`POINTS_EXPONENT_FORM`)."""
    most_q, most = POINTS_EXPONENT_LIMITS
    shown = shorten(raw) if isinstance(raw, str) else repr(raw)[:60]
    refusal = f'expected a fraction {POINTS_EXPONENT_FORM}, e.g. "3/4", got {shown}'
    if not isinstance(raw, str) or not raw.isascii() or not raw.replace("/", "", 1).isdigit():
        raise ValueError(refusal)
    try:
        value = Fraction(raw)
    except (ValueError, ZeroDivisionError):
        raise ValueError(refusal) from None
    if value > most or value.denominator > most_q:
        raise ValueError(refusal)
    return value


def _read_trees(data: dict[str, Any], name: str) -> dict[int, WinTrees]:
    """The trees of a model file's :data:`TREES_KEY` (:func:`learned.win_trees.trees_from_dict`),
    ``{}`` without one; only in a file of :data:`TREES_FORMAT`.

    Raises:
        WinModelError: one line naming the problem and the form expected."""
    if TREES_KEY not in data:
        return {}
    if data["format"] != TREES_FORMAT:
        raise WinModelError(f'{name}: "{TREES_KEY}" in a file of "format": {json.dumps(data["format"])}; expected '
                            f'"format": "{TREES_FORMAT}" (docs/formats.md, "Win-model file")')
    try:
        return trees_from_dict(data[TREES_KEY], len(FEATURES))
    except ValueError as error:
        raise WinModelError(f"{name}: {error} (docs/formats.md, \"Win-model file\", format 5)") from None


def _features_hint(data: dict[str, Any], key: str, expected: Any) -> str:
    """The end of :func:`model_from_dict`'s message on a ``"features"`` list unlike the format's
    (``expected``): the format whose features the list is (a ``"format"`` edited without the
    coefficients), or the first place where it differs (a list of names in another order); ``""``
    for another key or a list that is not of names."""
    given = data.get(key)
    if key != "features" or not isinstance(given, list) or not all(isinstance(f, str) for f in given):
        return ""
    for fmt, names in ((WIN_FORMAT, FEATURES), *FORMER_FORMATS.items()):
        if given == list(names):
            return f' (the file\'s "features" are those of "format": "{fmt}", not {json.dumps(data.get("format"))})'
    at = next((i for i, (g, e) in enumerate(zip(given, expected)) if g != e), min(len(given), len(expected)))
    found = json.dumps(given[at])[:60] if at < len(given) else "the end of the list"
    wanted = json.dumps(expected[at]) if at < len(expected) else "the end of the list"
    return f" (feature {at + 1} of the file is {found}, expected {wanted}; {len(given)} features, expected {len(expected)})"


def _count_of(key: str) -> int | None:
    """The number of players of a ``"coefficients"`` key, ``None`` unless it is one of
    :data:`MODEL_PLAYERS` in canonical form (:func:`model_file.players_key`)."""
    try:
        return players_key(key, range(min(MODEL_PLAYERS), max(MODEL_PLAYERS) + 1))
    except (ValueError, TypeError):
        return None


def _misspelt_key(data: dict[str, Any], read_keys: Sequence[str] = READ_KEYS) -> tuple[str, str] | None:
    """``(key, read key)`` for the first key of ``data`` that is not one of ``read_keys`` but
    close to one (another case, or :func:`difflib.get_close_matches` at 0.8: ``"coefficient"``,
    ``"fited"``), which would otherwise be kept as provenance silently; ``None`` if none is."""
    from difflib import get_close_matches

    for key in data:
        if key in read_keys:
            continue
        close = get_close_matches(str(key).strip().lower(), read_keys, n=1, cutoff=0.8)
        if close:
            return key, close[0]
    return None


#: The largest win-model file read (:func:`load_win_model`): 8 MiB, room for a format-5 file's trees
#: (300 trees of 15 leaves take about 0.3 MB; a format-4 file about 10 KB).
MAX_WIN_FILE_BYTES = 1 << 23


def load_win_model(path: str | Path) -> WinModel:
    """Read a model file (at most :data:`MAX_WIN_FILE_BYTES`, :func:`inputs.read_json`)."""
    from shelfie_solver.core.inputs import read_json

    data = read_json(path, WinModelError, MAX_WIN_FILE_BYTES,
                     "a win-model file written by shelfie-solve train --win-model")
    return model_from_dict(data, str(path))


@cache
def default_win_model() -> WinModel:
    """The shipped model (data/win.json)."""
    return load_win_model(DEFAULT_WIN_PATH)


#: The model a command was given (``--win-model FILE``, :func:`chosen_win_model`), ``None``: the shipped.
_CHOSEN: ContextVar[WinModel | None] = ContextVar("shelfie_solve_win_model", default=None)


def win_model_in_use() -> WinModel:
    """The model that gives the chance to win where none is passed: the one a command chose
    (:func:`chosen_win_model`, ``--win-model FILE``), else the shipped :func:`default_win_model`."""
    chosen = _CHOSEN.get()
    return chosen if chosen is not None else default_win_model()


@contextmanager
def chosen_win_model(model: WinModel | None) -> Iterator[None]:
    """Within the block, ``model`` gives the chance to win wherever the shipped model would
    (:func:`win_model_in_use`: the objectives ``win`` and ``win-model``, ``play``'s seats'
    chances); ``None`` changes nothing. A strategy given its own model (:class:`strategies.WinStrategy`
    ``win_model``) keeps it. Not seen by worker processes: they are given the file's path."""
    token = _CHOSEN.set(model)
    try:
        yield
    finally:
        _CHOSEN.reset(token)


#: The largest item value of the default board (data/default_board.toml; a test checks it): the
#: model was fitted on that board, so :func:`board_scale` reads a board's points relative to it.
DEFAULT_TOP_VALUE = 12
#: The scale of the default board and of every board whose values are of its range.
UNIT_SCALE = Fraction(1)


@cache
def board_scale(board: Board) -> Fraction:
    """The board's value scale, by which :func:`design` divides every seat's points (``P``, the
    score and so the lead) before the model reads them: the board's largest item value over
    :data:`DEFAULT_TOP_VALUE`, and exactly 1 when that is at most 1 (the default board and every
    board whose values are of its range, 0 to 12: their features, chances and games are
    unchanged). So a board of the default board's values times ``k`` has scale ``k`` and is read
    as the default board (docs/win-chance.md, "Boards of high values"); an exact ``Fraction``."""
    top = max((v for row in board.values for v in row), default=0)
    return max(UNIT_SCALE, Fraction(top, DEFAULT_TOP_VALUE))


#: The sum of the default board's item values (examples/boards/default.toml), the reference of
#: :func:`size_factor`.
DEFAULT_VALUE_SUM = 126
#: :func:`size_factor` is a whole number of thousandths.
SIZE_SCALE_STEPS = 1000


def _integer_root(value: int, degree: int) -> int:
    """``floor(value ** (1 / degree))`` of a whole number ``value >= 0``, exactly (Newton's method in
    Python integers)."""
    if value < 2 or degree == 1:
        return value
    x = 1 << -(-value.bit_length() // degree)  # above the root
    while True:
        y = ((degree - 1) * x + value // x ** (degree - 1)) // degree
        if y >= x:
            return x
        x = y


def size_factor(board: Board, exponent: Fraction) -> Fraction:
    """How many of the default board's points one point of ``board`` is worth to a model of other
    shapes (:attr:`WinModel.points_exponent` ``e``): ``(V / (s 126)) ** e`` with ``V`` the sum of the
    board's item values, ``126`` the default board's (:data:`DEFAULT_VALUE_SUM`) and ``s`` its
    value scale (:func:`board_scale`, by which :func:`design` divides its points already), rounded
    down to thousandths (at least one thousandth): an exact ``Fraction``, a function of the board
    alone; exactly 1 at ``e = 0`` and on every board of the default board's values (times ``s``). A
    board of fewer or smaller items has final scores and leads of fewer points: on ``small-3x4``
    (``V`` 37) at ``e = 3/4`` the factor is 0.398, so a lead of 16 points is read as one of 40.2 of
    the default board's (docs/win-chance.md, "In the board's own points"). A board of values
    summing to 0 or less: 1."""
    total = sum(v for row in board.values for v in row)
    if exponent == 0 or total <= 0:
        return Fraction(1)
    ratio = Fraction(total) / (board_scale(board) * DEFAULT_VALUE_SUM)  # V / (s 126)
    p, q = exponent.numerator, exponent.denominator
    power = ratio ** p * SIZE_SCALE_STEPS ** q
    steps = _integer_root(power.numerator // power.denominator, q)  # floor(1000 ratio ** e)
    return Fraction(max(steps, 1), SIZE_SCALE_STEPS)


#: The columns of :data:`BASE_FEATURES` in points (their coefficients over a board's
#: :func:`size_factor` in :func:`sized_model`): ``P``, ``P x r``, score, ``score x r`` and the two
#: of ``F``; the two of the lead's signed square over its square; the others (flags, turns) as they are.
POINT_COLUMNS = (0, 1, 2, 3, 5, 6)
SQUARE_COLUMNS = (11, 12)


def _over(value: int, divisor: Fraction) -> int:
    """``value / divisor`` rounded to the nearest whole number (halves up), exactly."""
    exact = Fraction(value) / divisor
    return (exact.numerator * 2 + exact.denominator) // (exact.denominator * 2)


@lru_cache(maxsize=64)
def sized_model(model: WinModel, board: Board) -> WinModel:
    """``model`` (a model of other shapes, format 3's features) with its coefficients put in the
    points of ``board``'s size (:func:`size_factor` ``f`` at its :attr:`WinModel.points_exponent`):
    every coefficient of a column in points (:data:`POINT_COLUMNS`) over ``f``, of the lead's
    signed square (:data:`SQUARE_COLUMNS`) over ``f ** 2``, rounded to whole numbers (within
    :data:`COEF_LIMIT`), so that its strengths are, within that rounding, the strengths of
    ``model`` at every seat's points over ``f``; ``model`` itself where ``f`` is 1. One table per (model, board), kept (the compiled
    paths read it as any model's: the same integers on both)."""
    factor = size_factor(board, model.points_exponent)
    if factor == 1:
        return model

    def sized(table: np.ndarray) -> np.ndarray:
        out = table.copy()
        for column, divisor in [(c, factor) for c in POINT_COLUMNS] + [(c, factor ** 2) for c in SQUARE_COLUMNS]:
            out[:, column] = [max(-COEF_LIMIT, min(COEF_LIMIT, _over(int(v), divisor))) for v in table[:, column]]
        return out

    return replace(model, coefficients={n: sized(c) for n, c in model.coefficients.items()})


#: Scaled count weights stay below ``MAX_WEIGHT * 834`` (about 2**35; a scale is at most
#: 10,000 / 12, docs/formats.md): ``|F|`` stays below ``2**35 * 2,941,518`` (about 1e17, the feature
#: bound of :data:`model_file.MAX_WEIGHT`), in int64 in :mod:`learned.objective`'s numpy and compiled
#: code; the win-chance shape's larger product is not used by :class:`WinObjective`.
@lru_cache(maxsize=16)
def in_board_points(model: LearnedModel, scale: Fraction) -> LearnedModel:
    """``model`` with every weight of a feature that is not in points (:data:`POINT_FEATURES`:
    counts of items, lines, rounds, the constant) times the board's value scale ``scale``
    (:func:`board_scale`; floor, exact integers), so that a seat's ``P`` is in the board's points
    throughout: on a board of the default board's values times ``k`` every ``P`` is exactly ``k``
    times the default board's, and :func:`design` reads it back as that. ``model`` itself at
    scale 1. Only the win model's reading of ``P`` (:func:`win_objective`); the ``learned``
    objective keeps its weights."""
    if scale == 1:
        return model

    def scaled(w: np.ndarray) -> np.ndarray:
        out = np.array(w, dtype=np.int64, copy=True)
        counts = ~POINT_FEATURES
        out[:, counts] = np.array(w[:, counts].astype(object) * scale.numerator // scale.denominator, dtype=np.int64)
        return out

    return replace(model, weights={n: scaled(w) for n, w in model.weights.items()})


def design(phase: np.ndarray, seats: np.ndarray, round_number: int, scale: Fraction = UNIT_SCALE, *,
           to_play: int) -> np.ndarray:
    """``(K, n, F)``: :data:`FEATURES` of every seat of ``K`` positions, each column as the
    integer that multiplies its coefficient (see :func:`chances`); ``int64`` where every value
    provably fits (:mod:`learned.win_bounds`: ``DESIGN_INPUT_BOUND``, ``DESIGN_ROUND_BOUND``,
    ``DESIGN_LEAD_BOUND``, which the compiled :func:`learned.kernel._win_strengths_into` checks
    too), else exact Python integers in an object array.

    Args:
        phase: ``int (K,)`` the phase (0, 2, 3) after the turn (rows :data:`ROWS`; not read
            here, kept so that one signature maps a position to its features).
        seats: ``int64 (K, n, 4)`` or ``(K, n, 4 + SHEET_COLUMNS)``, per seat (the one that just
            played first, the others in seat order) its :data:`SEAT_COLUMNS`, then its line-state
            counts (:func:`sheet_states`; without them the sheet features are 0).
        round_number: the round of the turn just played (1-based, D5).
        scale: the board's value scale (:func:`board_scale`, a ``Fraction`` >= 1): each seat's
            ``P`` and ``score * WEIGHT_SCALE`` are divided by it (floor, exact integers) before
            every feature; at 1 (the default board) they are read as they are.
        to_play: how many seats still play in this round after the turn just played (D5, D18:
            ``n - 1`` minus the player's place in the round; 0 when it closed the round). A seat
            is "a turn ahead" when this is positive and the seat is not one of them: it has just
            played (turns until it plays 0) or plays later than they do (more than ``to_play``
            turns until it plays).

    Raises:
        ValueError: ``to_play`` not within 0 to ``n - 1``.
    """
    if not 0 <= to_play < max(seats.shape[1], 1):
        raise ValueError(f"to_play must be within 0 to {seats.shape[1] - 1} (the other seats), got {to_play}")
    w = WEIGHT_SCALE
    if scale == 1:
        p, s = seats[..., 0].astype(np.int64), seats[..., 1].astype(np.int64)
        inputs = max(int(np.abs(p).max(initial=0)), int(np.abs(s).max(initial=0)) * w)
        sw = s * w if inputs < DESIGN_INPUT_BOUND else seats[..., 1].astype(object) * w
    else:  # in the default board's points (board_scale), in Python integers first
        big = seats.astype(object)
        p = big[..., 0] * scale.denominator // scale.numerator
        sw = big[..., 1] * (w * scale.denominator) // scale.numerator
        inputs = max((abs(v) for v in [*p.ravel().tolist(), *sw.ravel().tolist()]), default=0)
        if inputs < DESIGN_INPUT_BOUND:
            p, sw = p.astype(np.int64), sw.astype(np.int64)
    counts = _sheet_columns(seats)
    exact = inputs < DESIGN_INPUT_BOUND and abs(round_number) < DESIGN_ROUND_BOUND \
        and int(np.abs(counts).max(initial=0)) < DESIGN_INPUT_BOUND // w
    if exact:
        lead = _leads(p)
        exact = int(np.abs(lead).max(initial=0)) < DESIGN_LEAD_BOUND
    if exact:
        rest = seats[..., 2:4].astype(np.int64)
        base = _design_columns(p, sw, rest[..., 0], rest[..., 1], round_number, lead, to_play).astype(np.int64)
        return np.concatenate([base, counts.astype(np.int64) * w], axis=-1)
    big_p, big_sw = p.astype(object), sw.astype(object)
    rest = seats[..., 2:4].astype(object)
    base = _design_columns(big_p, big_sw, rest[..., 0], rest[..., 1], round_number, _leads(big_p), to_play)
    return np.concatenate([base, counts.astype(object) * w], axis=-1)


def _sheet_columns(seats: np.ndarray) -> np.ndarray:
    """``(K, n, SHEET_COLUMNS)``: the line-state counts of ``seats`` (:func:`design`), 0 where it
    has only the 4 :data:`SEAT_COLUMNS`.

    Raises:
        ValueError: columns other than 4 or ``4 + SHEET_COLUMNS``.
    """
    width = seats.shape[-1]
    if width == len(SEAT_COLUMNS):
        return np.zeros((*seats.shape[:-1], SHEET_COLUMNS), dtype=np.int64)
    if width != len(SEAT_COLUMNS) + SHEET_COLUMNS:
        raise ValueError(f"seats must have {len(SEAT_COLUMNS)} or {len(SEAT_COLUMNS) + SHEET_COLUMNS} columns, "
                         f"got {width}")
    return seats[..., len(SEAT_COLUMNS):]


def sheet_states(m: np.ndarray, a: np.ndarray, n_shelves: int) -> np.ndarray:
    """``int64 (..., SHEET_COLUMNS)``: how many of a sheet's shelves (the first ``n_shelves`` lines),
    then of its columns, are in each line state (:func:`learned.win_bounds.line_state`: items
    marked ``m``, available ``a``, D4, capped at ``LINE_STATE_CAP``) from its line totals
    ``m, a (..., L)``: the sheet features of :func:`design` (:data:`SHEET_FEATURES`)."""
    mm = np.minimum(m, LINE_STATE_CAP)
    aa = np.minimum(a, LINE_STATE_CAP - mm)
    state = mm * (LINE_STATE_CAP + 1) - mm * (mm - 1) // 2 + aa
    state = state + np.where(np.arange(m.shape[-1]) < n_shelves, 0, LINE_STATES)
    onehot = state[..., None] == np.arange(SHEET_COLUMNS)
    out: np.ndarray = onehot.sum(axis=-2).astype(np.int64)
    return out


def _leads(p: np.ndarray) -> np.ndarray:
    """``(K, n)``: each seat's ``P`` minus the best other seat's (a tie for the top: 0), in the
    array's own integers."""
    ranked = np.sort(p, axis=1)
    top, second = ranked[:, -1:], ranked[:, -2:-1]
    out: np.ndarray = p - np.where(p == top, second, top)
    return out


def _design_columns(p: np.ndarray, sw: np.ndarray, d: np.ndarray, k: np.ndarray, r: int,
                    lead: np.ndarray, to_play: int) -> np.ndarray:
    """:func:`design`'s columns from every seat's ``P``, score times ``WEIGHT_SCALE`` ``sw``,
    shelves to the trigger ``d`` and turns until it plays ``k`` (each ``(K, n)``), its
    ``lead (K, n)`` and the seats still to play in the round ``to_play``, in the arrays' own
    integers (int64 within the bounds, else Python integers)."""
    w = WEIGHT_SCALE
    future = p - sw
    near = (d <= 1) & (d > 0)  # one closed shelf short of the trigger (D17)
    others_near = near.sum(axis=1, keepdims=True) - near > 0  # another seat one shelf short of the trigger
    curve = (lead * np.abs(lead)) // (10 * w)  # floor: integers throughout
    # a turn ahead (D5, D18): not one of the to_play seats still to play in this round
    ahead = ((k < 1) | (k > to_play)) * (w if to_play > 0 else 0)
    columns = [p, p * r, sw, sw * r, near * w, future * others_near, future * near,
               (k == 1) * w, (k == 1) * (w * r), (k == 2) * w, (k == 3) * w, curve, curve * r, ahead]
    return np.stack(columns, axis=-1)


def strength_numerators(coefficients: np.ndarray, phase: np.ndarray, x: np.ndarray, round_number: int,
                        trees: WinTrees | None = None) -> np.ndarray:
    """``(K, n)`` exact integers: each seat's strength ``z`` times ``COEF_SCALE * WEIGHT_SCALE``
    (int64 where the products provably fit, else Python integers in an object array), through the
    monotone projection of :func:`monotone_columns` (``round_number`` the round of :func:`design`);
    with ``trees`` (:meth:`WinModel.trees_for`, format 5) and exactly 2 seats, plus each seat's
    tree term ``T_i`` read from the RAW ``x`` and ``phase`` (:meth:`learned.win_trees.WinTrees.terms`);
    ``None``, an empty block or another number of seats: no term."""
    raw = x
    c = coefficients[phase_rows(phase)][:, None, :]  # (K, 1, F)
    x, extra = monotone_columns(coefficients, phase, x, round_number)
    bound = int(np.abs(x).max(initial=0)) * int(np.abs(c).max(initial=0)) * (x.shape[-1] + 4) \
        + int(np.abs(extra).max(initial=0)) * int(np.abs(x[..., :1]).max(initial=0))
    with_trees = trees is not None and not trees.empty and x.shape[1] == TREE_PLAYERS
    if with_trees:
        assert trees is not None
        bound += trees.bound  # |z + T| below 2**62: every difference of two strengths in int64
    if bound < 1 << 62 and x.dtype != object and extra.dtype != object:
        out: np.ndarray = (c * x).sum(axis=-1) + extra * x[..., 0]
    else:
        out = (c.astype(object) * x.astype(object)).sum(axis=-1) + extra.astype(object) * x[..., 0].astype(object)
    if with_trees:
        assert trees is not None
        terms = trees.terms(phase, raw)
        out = out + (terms.astype(object) if out.dtype == object else terms)
    return out


def monotone_columns(coefficients: np.ndarray, phase: np.ndarray, x: np.ndarray,
                     round_number: int) -> tuple[np.ndarray, np.ndarray]:
    """The monotone projection of the model at evaluation (docs/win-chance.md, "Monotone in the
    lead"): ``(x', extra)`` such that the strengths ``z_i = c . x'_i + extra_i * P_i`` make every
    seat's chance non-decreasing in its own ``P`` (the others' fixed), exactly, at every row,
    round and position; ``x'`` is ``x (K, n, F)`` (from :func:`design`) with the curve columns
    (``lead x |lead| / 10`` and its ``x r``) recomputed from the lead clamped to ``|lead| <= T``,
    ``extra (K, n)`` the slope added to a seat whose linear slope is negative.

    Per seat the strength's linear slope in ``P`` is ``A_i = c[P] + c[P x r] r + c[F x another
    seat near] o_i + c[F x near] n_i`` (``o_i``, ``n_i`` its near flags, D17) and the curve's
    coefficient ``B = c[curve] + c[curve x r] r``. Where ``A_i < 0`` the seat gets
    ``extra_i = -A_i`` (slope 0). Where ``B < 0`` the lead is clamped at
    ``T = floor(5 w (A - 2|B|) / (2|B|))`` (0 if ``A < 2|B|``), ``A`` the smallest slope of the
    position's seats (after ``extra``) and ``w`` :data:`WEIGHT_SCALE`: one unit more of ``P_i``
    adds ``A_i`` to ``z_i`` and moves ``i``'s own curve and any other seat's (whose lead falls by
    at most as much) by at most ``2 T / (10 w) + 1`` unit each (the floors), so every
    ``z_i - z_j`` is non-decreasing in ``P_i``. ``T`` is ``5`` points short of the continuous
    turning point ``2.5 A / |B|`` of the two-player difference ``A L + 2 B L |L| / 10``; where
    every lead is within ``T`` (or ``B >= 0`` and every ``A_i >= 0``) ``x'`` is ``x`` and
    ``extra`` 0: the old strengths. The same integers as :func:`learned.kernel._win_strengths_into`.
    """
    w = WEIGHT_SCALE
    r = round_number
    rows = coefficients[phase_rows(phase)]  # (K, F)
    big = x.dtype == object or int(np.abs(rows).max(initial=0)) * (abs(r) + 8) * 5 * w >= 1 << 62
    cr = rows.astype(object) if big else rows.astype(np.int64)
    near = x[..., 4] != 0  # (K, n): one closed shelf short of the trigger (design's near * w)
    others = (near.sum(axis=1, keepdims=True) - near) > 0
    slope = (cr[:, None, 0] + cr[:, None, 1] * r + cr[:, None, 5] * others + cr[:, None, 6] * near)  # (K, n)
    zero = np.zeros_like(slope)
    extra = np.maximum(-slope, zero)
    least = np.maximum(slope, zero).min(axis=1)  # (K,)
    b = cr[:, 11] + cr[:, 12] * r  # (K,)
    falling = b < 0
    if not falling.any():
        return x, extra
    two_b = np.where(falling, -2 * b, 1)
    limit = np.where(falling & (least >= two_b), (5 * w * (least - two_b)) // two_b, 0)  # (K,)
    lead = _leads(x[..., 0])
    binds = falling[:, None] & (abs(lead) > limit[:, None])
    if not binds.any():
        return x, extra
    x = x.copy()
    held = np.where(binds, np.where(lead < 0, -1, 1) * np.broadcast_to(limit[:, None], lead.shape), lead)
    curve = (held * abs(held)) // (10 * w)
    x[..., 11] = np.where(binds, curve, x[..., 11])
    x[..., 12] = np.where(binds, curve * r, x[..., 12])
    return x, extra


def all_chances(coefficients: np.ndarray, phase: np.ndarray, x: np.ndarray, round_number: int,
                trees: WinTrees | None = None) -> np.ndarray:
    """``int64 (K, n)``: every seat's chance to win over :data:`CHANCE_SCALE`, the softmax of the
    seats' strengths ``z_i = c . x_i`` (``c`` the row of the phase; ``x`` from :func:`design` at
    ``round_number``; through :func:`monotone_columns`):
    ``round(CHANCE_SCALE / sum_j exp(z_j - z_i))``. The differences ``z_j - z_i`` are exact
    integers before one float conversion each, so a seat's figure is an exact function of the
    integers (the float64 ``exp``'s error, below 1e-15, can move it only at an exact rounding
    tie); the seats add up to :data:`CHANCE_SCALE` within one unit per seat. ``trees``: the
    2-player tree terms (:func:`strength_numerators`)."""
    z = strength_numerators(coefficients, phase, x, round_number, trees)  # (K, n)
    return _softmax_shares(z[:, None, :] - z[:, :, None])  # (K, i, j): z_j - z_i, exact


def chances(coefficients: np.ndarray, phase: np.ndarray, x: np.ndarray, round_number: int,
            trees: WinTrees | None = None, lost: np.ndarray | None = None) -> np.ndarray:
    """``int64 (K,)``: the chance to win over :data:`CHANCE_SCALE` of the seat that just played
    (seat column 0 of :func:`design`) — :func:`all_chances`' first column, computed from that
    seat's differences only (the objective's hot path); the one place that maps features to
    chances. ``trees``: the 2-player tree terms (:func:`strength_numerators`). ``lost``: ``bool
    (K, n - 1)``, per row the opponents (seat columns 1 to n - 1) that can no longer win there
    (:func:`lost_rows`), left out of the softmax (:func:`without_lost`); ``None``: none."""
    z = strength_numerators(coefficients, phase, x, round_number, trees)  # (K, n)
    return _softmax_shares(without_lost(z - z[:, :1], lost), own_first=True)  # (K, j): z_j - z_0, exact


#: The strength difference that stands for a seat left out of the softmax (:func:`without_lost`):
#: past :func:`_softmax_shares`' clip at -60, whose ``exp`` (below 1e-26) is nothing at
#: :data:`CHANCE_SCALE`'s one millionth.
LOST_GAP = -61 * COEF_SCALE * WEIGHT_SCALE


def without_lost(gaps: np.ndarray, lost: np.ndarray | None) -> np.ndarray:
    """``gaps (K, n)`` (each row's strength differences ``z_j - z_0`` from the seat that just
    played) with the opponents marked in ``lost`` (``bool (K, n - 1)``, seat columns 1 to n - 1:
    :func:`lost_rows`) set to :data:`LOST_GAP`: a seat whose best final score is below another
    seat's score (the mover's after that terminal included) has no chance to win (D18-D20,
    :func:`win_chance.lost_at`), so the joint model's softmax is over the others. ``gaps`` itself
    where nothing is lost."""
    if lost is None or not lost.any():
        return gaps
    out = gaps.copy()
    out[:, 1:][lost] = LOST_GAP
    return out


def lost_columns(state: GameState) -> tuple[int, ...]:
    """The seat columns of :func:`design` (1 to n - 1: the active player's opponents in seat
    order) of the seats that can no longer win at the start of the active player's turn
    (:func:`win_chance.lost_seats`): lost at every terminal of the turn (an opponent's score does
    not change during it, D15 and D19); its own marking may put more out (:func:`lost_bounds`)."""
    from shelfie_solver.dice.win_chance import lost_seats

    scores_now = [score(state.board, sheet, state.rules) for sheet in state.sheets]
    lost = set(lost_seats(state, scores_now))
    others = [j for j in range(state.players) if j != state.active]
    return tuple(1 + i for i, j in enumerate(others) if j in lost)


def lost_bounds(state: GameState) -> np.ndarray:
    """``int64 (n - 1, 2)``: :func:`win_chance.lost_bounds` of the active player's turn, the
    :attr:`WinObjective.lost` of :func:`win_objective`."""
    from shelfie_solver.dice.win_chance import lost_bounds as bounds

    return bounds(state)


def lost_rows(bounds: np.ndarray, final: np.ndarray, over: np.ndarray) -> np.ndarray | None:
    """``bool (K, n - 1)``: :func:`win_chance.lost_at` of ``K`` terminals with the player's final
    score ``final (K,)`` and its game ``over (K,)`` after each, against ``bounds``
    (:func:`lost_bounds`); ``None`` where ``bounds`` is empty (no opponent, or none given)."""
    from shelfie_solver.dice.win_chance import lost_at

    if len(bounds) == 0:
        return None
    return lost_at(final, over, bounds)


def blocks_lost(state: StateArrays, table: tuple[tuple[Marks, ...], int, int, bool], m: np.ndarray,
                final: np.ndarray, over: np.ndarray, lost: np.ndarray | None) -> np.ndarray | None:
    """``lost`` (:func:`lost_rows` of ``K`` terminals of the player's turn, ``bool (K, n - 1)``, or
    ``None``) with the opponents that a terminal's own blocks (D15) put out:
    :func:`win_chance.lost_after_blocks` of the lines it completes (every opponent's reach taken
    from its sheet after those blocks, as ``play status`` takes it at the next turn's start,
    :func:`win_chance.lost_seats`), so that the joint model's softmax leaves them out
    (:func:`without_lost`) at the marking as status does right after it. ``table``: every
    seat's sheet at the turn's start, the player's seat, the first seat (D5) and whether the end
    was triggered before the turn; ``m (K, L)``: the player's marked items per line after each
    terminal (a line it completes blocks, D15: full now and not at the turn's start); ``final``,
    ``over`` as :func:`lost_rows`. Three or more players (with two, the one opponent out is an
    exact 1: :func:`blocks_put_out`); only the terminals that complete a line, one reach per
    opponent per set of lines completed (:func:`_line_codes`). The one home of the rule for the
    numpy (:meth:`WinObjective.chance_of`) and the compiled paths (:func:`_front_values`)."""
    from shelfie_solver.dice.win_chance import lost_after_blocks

    sheets, seat, first, triggered = table
    near = _near_lines(state)
    if len(sheets) < 3 or not len(near):
        return lost
    board = state.board
    new = m[:, near] == board.line_matrix.sum(axis=0)[near]  # (K, N): the near lines each completes
    rows = np.flatnonzero(new.any(axis=1))
    if not len(rows):
        return lost
    codes, lines = _line_codes(new[rows])
    masks = line_masks(board)
    # (a shelf and a column share an item: the lines' cells or-ed, not added)
    cells = [reduce(or_, (masks[near[line]] for line in completed), 0) for completed in lines]
    found = lost_after_blocks(GameState(board, state.rules, sheets, seat, first, 0, triggered), cells, codes,
                              final[rows], over[rows])
    if not found.any():
        return lost
    out = np.zeros((len(m), len(sheets) - 1), dtype=bool) if lost is None else lost.copy()
    out[rows] |= found
    return out


def _near_lines(state: StateArrays) -> np.ndarray:
    """``int64 (N,)``: the lines (:attr:`Board.lines`) one marking of the player's sheet ``state``
    may complete (D15): not complete yet, every item not marked still available, at most
    ``combinations_per_turn`` items short (D9); in increasing order."""
    m, a = state.line_totals[:2]
    sizes = state.board.line_matrix.sum(axis=0)
    out: np.ndarray = np.flatnonzero((m < sizes) & (m + a == sizes) & (sizes - m <= state.rules.combinations_per_turn))
    return out


def _softmax_shares(gaps: np.ndarray, own_first: bool = False) -> np.ndarray:
    """``int64 (...)``: ``round(CHANCE_SCALE / sum_j exp(gaps_j))`` over the last axis of the exact
    integer strength differences ``gaps`` (over ``COEF_SCALE * WEIGHT_SCALE``), each converted to
    float once (:func:`all_chances`); kept within 1 to ``CHANCE_SCALE - 1`` (an estimate, never
    a certainty). ``own_first``: the caller's promise that ``gaps[..., 0]`` is 0 (each row's
    differences from its own first seat, ``z_j - z_0``), which with two seats needs one ``exp``
    per row."""
    if own_first and gaps.dtype != object and gaps.ndim == 2 and gaps.shape[1] == 2:
        # two seats, the mover's own gap 0 (the objective's hot path): exp(0) is 1 and a sum of two
        # terms is one addition, so 1 + exp of the other column gives the same float, bit for bit
        # (tests/test_win_kernel.py), at half the exp; never a certainty, as below
        # (in place on one array: the same operations, the same floats, fewer allocations; np.clip's
        # bounds as a maximum then a minimum, alike for these finite values)
        pair = gaps[:, 1].astype(np.float64)
        np.divide(pair, COEF_SCALE * WEIGHT_SCALE, out=pair)
        np.exp(np.minimum(np.maximum(pair, -60.0, out=pair), 60.0, out=pair), out=pair)
        np.rint(np.divide(CHANCE_SCALE, np.add(pair, 1.0, out=pair), out=pair), out=pair)
        shares: np.ndarray = np.minimum(np.maximum(pair, 1.0, out=pair), CHANCE_SCALE - 1.0, out=pair).astype(np.int64)
        return shares
    scaled = np.array(gaps.tolist(), dtype=np.float64) / (COEF_SCALE * WEIGHT_SCALE) if gaps.dtype == object \
        else gaps.astype(np.float64) / (COEF_SCALE * WEIGHT_SCALE)
    total = np.exp(np.minimum(np.maximum(scaled, -60.0), 60.0)).sum(axis=-1)  # np.clip's values, cheaper
    # an estimate is never a certainty: 1 to CHANCE_SCALE - 1, so no model chance shows as 0% or
    # 100% (docs/play.md; only the exact chances of win_chance are 0 or 1)
    out: np.ndarray = np.clip(np.rint(CHANCE_SCALE / total), 1, CHANCE_SCALE - 1).astype(np.int64)
    return out


@dataclass(frozen=True, eq=False)
class WinObjective(Learned):
    """The objective ``win``: the model's chance to win after the turn (module docstring), an
    absolute value (not a change) over :data:`CHANCE_SCALE`; ``calibration`` ``(3, F)`` (rows
    :data:`ROWS`, columns :data:`FEATURES`) at the round ``round_number`` with ``to_play`` seats
    still to play in it after the turn (:func:`design`).

    ``settle``: :func:`win_chance.settled_bounds` of the turn, ``(low, high)``. A terminal after
    which the player's game is over (a marking or a shelf given up, D13; phase 0) with its final
    score below ``low`` (another seat's score now) is worth exactly 0, above ``high`` (every
    other seat's reach) exactly 1 (:meth:`settled`); those values are exact
    (:meth:`exact_markings`, :meth:`exact_shelves`), the others the model's.

    Every value is an integer over :data:`CHANCE_SCALE` (the engine's holds, D7, and the
    strategies' choices read them); an exact one is its exact chance rounded half up
    (:func:`rounded_chances`), and :meth:`exact_values` and :meth:`exact_shelf_values` give the
    exact ``Fraction`` itself (e.g. ``1/3`` for a three-way tie, D20), which the advice and
    ``play status`` show (:meth:`exact_layers`, :meth:`_shelf_layer`: one home of each kind).

    ``later``: with 3 or 4 players, the seats still to play in this round where some marking may
    leave them all without an available item (:func:`sheet_rules.may_block_out`), else empty. Such
    a marking ends the game at once (D15, D17, D18: they can only pass) with every score final, so
    its value is the exact share of the win (:meth:`blocking_out_markings`, D20).

    ``trees``: with 2 players, the model's trees (:meth:`WinModel.trees_for`, format 5) whose term
    is added to the strengths (:func:`strength_numerators`); ``None``: none (format 4).

    ``fitted_shape``: ``(shelves, columns)`` of the boards the model's line states and trees were
    fitted on when this board is of another shape and its other shapes' coefficients give the
    chances (:meth:`WinModel.for_board`; the advice's note says so), else ``None``.

    ``lost``: ``int64 (J, 2)``, per opponent the player's final score above which it can no
    longer win, after a terminal that ends the player's game or not (:func:`lost_bounds`); at
    each terminal those opponents are left out of the softmax (:func:`lost_rows`,
    :func:`without_lost`) in the numpy and the compiled paths alike, and with them those the
    terminal's own blocks put out (D15: :func:`blocks_lost`, from :attr:`sheets`). Empty: none.

    ``first``: the seat that plays first (D5): with :attr:`sheets` and :attr:`seat`, the order
    :func:`blocks_settled` reads to settle the markings whose blocks (D15) take reach from the
    seats still to play or trigger the end on another sheet (D17)."""

    calibration: np.ndarray = field(default_factory=lambda: np.zeros((len(ROWS), len(FEATURES)), dtype=np.int64))
    round_number: int = 1
    to_play: int = 0
    end_exact: Any = None
    sheets: tuple[Marks, ...] = ()
    seat: int = 0
    opponent_seats: np.ndarray = field(default_factory=lambda: np.zeros((0, 3 + SHEET_COLUMNS), dtype=np.int64))
    settle: tuple[int, int, int] = (-(1 << 62), 1 << 62, 0)
    later: tuple[int, ...] = ()
    trees: WinTrees | None = None
    fitted_shape: tuple[int, int] | None = None
    lost: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), dtype=np.int64))
    first: int = 0
    win_chance_exact: ClassVar[bool] = False

    def scale(self, rules: Ruleset) -> int:
        return CHANCE_SCALE

    def seat_columns(self, state: StateArrays, m: np.ndarray, a: np.ndarray, mp: np.ndarray,
                     ap: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(phase (K,), seats int64 (K, n, 4))``: :func:`design`'s input for ``K`` sheets of the
        active player after this turn (line totals ``(K, L)``): its :data:`SEAT_COLUMNS` first, then
        each opponent's in seat order (their ``P`` after this turn's blocks, D15; their score,
        distance to the trigger and turns until they play from :attr:`opponent_seats`), then every
        seat's line-state counts (:func:`sheet_states`: the player's of these sheets, the others'
        from :attr:`opponent_seats`: their sheets at the turn's start), ``(K, n, 4 + SHEET_COLUMNS)``."""
        board, rules = state.board, state.rules
        phase, own = self.own_values(state, m, a, mp, ap)
        each = self.opponent_after(state, m, phase)  # (K, J)
        k = len(m)
        distance = end_trigger_shelves(board, rules) - (a[:, : board.n_shelves] == 0).sum(axis=1)
        mine = np.concatenate([np.stack([own, scores(m, mp, rules.scoring_threshold), distance,
                                         np.zeros(k, dtype=np.int64)], axis=1),
                               sheet_states(m, a, board.n_shelves)], axis=1)
        rest = np.broadcast_to(self.opponent_seats, (k, *self.opponent_seats.shape))  # (K, J, 3 + SHEET_COLUMNS)
        theirs = np.concatenate([each[:, :, None], rest], axis=2)
        return phase, np.concatenate([mine[:, None, :], theirs], axis=1).astype(np.int64)

    def chance_of(self, state: StateArrays, m: np.ndarray, a: np.ndarray, mp: np.ndarray,
                  ap: np.ndarray) -> np.ndarray:
        """``int64 (K,)``: the chance after the turn of ``K`` sheets (line totals ``(K, L)``)."""
        phase, seats = self.seat_columns(state, m, a, mp, ap)
        x = design(phase, seats, self.round_number, board_scale(state.board), to_play=self.to_play)
        final, over = seats[:, 0, 1], phase == 0  # its score after the turn; phase 0: over
        lost = lost_rows(self.lost, final, over)
        if self.sheets:  # and those its own blocks put out (D15), as play status right after it
            lost = blocks_lost(state, (self._table(state), self.seat, self.first, self.triggered), m, final, over,
                               lost)
        return chances(self.calibration, phase, x, self.round_number, self.trees, lost)

    def every_chance(self, state: StateArrays) -> np.ndarray:
        """``int64 (n,)``: every seat's chance over :data:`CHANCE_SCALE` (the active player first,
        then the others in seat order) at the sheet ``state`` as it is, the active player's turn
        just played (:func:`all_chances`)."""
        m, a, mp, ap = (x[None] for x in state.line_totals)
        phase, seats = self.seat_columns(state, m, a, mp, ap)
        x = design(phase, seats, self.round_number, board_scale(state.board), to_play=self.to_play)
        out: np.ndarray = all_chances(self.calibration, phase, x, self.round_number, self.trees)[0]
        return out

    def ending_markings(self, state: StateArrays, sets: ItemSets) -> np.ndarray:
        """``bool (K,)``: the markings of ``sets`` after which the game ends at once or in this
        round (D17 on any sheet, after the blocks of D15: :func:`sheet_rules.markings_end_game`)
        and whose chance :attr:`end_exact` gives exactly; all False where it gives none."""
        if not self._may_end(state):
            return np.zeros(len(sets.sizes), dtype=bool)
        return markings_end_game(state.board, state.rules, self._table(state), self.seat, sets)

    def _table(self, state: StateArrays) -> tuple[Marks, ...]:
        """Every seat's sheet, the player's as ``state`` has it."""
        sheets = self.sheets or (state.marks,)
        return sheets[:self.seat] + (state.marks,) + sheets[self.seat + 1:]

    def _may_end(self, state: StateArrays) -> bool:
        """Whether some marking may end the game with its chance known exactly (:attr:`end_exact`
        set and :func:`sheet_rules.may_end_game`), kept for the last sheet asked (a turn asks twice)."""
        key = (state.marks.marked, state.marks.eliminated)
        known: tuple[tuple[int, int], bool] | None = self.__dict__.get("_may_end_of")
        if known is None or known[0] != key:
            known = (key, self.end_exact is not None
                     and may_end_game(state.board, state.rules, self._table(state), self.seat))
            object.__setattr__(self, "_may_end_of", known)
        return known[1]

    def exact_markings(self, state: StateArrays, sets: ItemSets) -> np.ndarray:
        """``bool (K,)``: the markings of ``sets`` whose value is the exact chance to win (a row of
        one of :meth:`exact_layers`), the others the model's estimate."""
        out = np.zeros(len(sets.sizes), dtype=bool)
        for rows, _, _ in self.exact_layers(state, sets):
            out[rows] = True
        return out

    def exact_values(self, state: StateArrays, sets: ItemSets) -> list[Fraction | None]:
        """Per marking of ``sets``, its exact chance to win as a ``Fraction`` where it has one
        (:meth:`exact_markings`; :meth:`exact_layers`: the same function that decides it), else
        ``None`` (the model's estimate, :meth:`values` over :data:`CHANCE_SCALE`). What the advice,
        ``play status`` and review show for an exact figure (D20: e.g. ``1/3`` for a three-way
        tie), where :meth:`values` has it rounded to millionths for the engine (D7)."""
        return layer_fractions(len(sets.sizes), self.exact_layers(state, sets))

    def exact_layers(self, state: StateArrays, sets: ItemSets) -> list[ExactLayer]:
        """The markings of ``sets`` whose value is the exact chance to win, by kind, each an
        :data:`ExactLayer` (rows of ``sets``, numerators, scale), in the order :meth:`values`
        applies them (a later kind's value stands where two apply): settled (:meth:`settled`: 0,
        1 or ``1/k``, D20), settled or two contenders left after the blocks of a marking that ends
        the player's game (:meth:`ending_settled`), then :meth:`_end_layers` (the markings that end
        the game where :attr:`end_exact` values them; those that block every later seat out). The
        one home of which exact chance a marking has: :meth:`values` rounds them to
        :data:`CHANCE_SCALE`, :meth:`exact_markings` and :meth:`exact_values` read them."""
        m, a, mp, _ = state.line_totals
        count = sets.line_count
        layers: list[ExactLayer | None] = [settled_layer(self.settled(state, m + count, a - count,
                                                                       mp + sets.line_points))]
        blocked, contest = self.ending_settled(state, sets)
        if blocked is not None:
            layers.append(settled_layer(blocked))
        layers.append(contest)
        put_out = blocks_put_out(state, self._table(state), self.seat, sets) if self.sheets else None
        if put_out is not None:
            layers.append(settled_layer(put_out))
        return [layer for layer in layers if layer is not None] + self._end_layers(state, sets)

    def _end_layers(self, state: StateArrays, sets: ItemSets) -> list[ExactLayer]:
        """The last of :meth:`exact_layers`: the markings of ``sets`` that end the game with their
        chance given by :attr:`end_exact` (:meth:`ending_markings`, over its scale), then those
        that leave every seat still to play in this round without an available item, by the exact
        share against the final scores (:meth:`blocking_out_markings`, D15, D17, D18, D20)."""
        layers: list[ExactLayer] = []
        if self.end_exact is not None:
            ending = np.flatnonzero(self.ending_markings(state, sets))
            if len(ending):
                layers.append((ending, np.asarray(self.end_exact.values(state, sets.take(ending))),
                               self.end_exact.scale(state.rules)))
        out_now = np.flatnonzero(self.blocking_out_markings(state, sets))
        if len(out_now):
            final = self._final_scores(state)
            layers.append((out_now, np.asarray(final.values(state, sets.take(out_now))), final.scale(state.rules)))
        return layers

    def blocking_out_markings(self, state: StateArrays, sets: ItemSets) -> np.ndarray:
        """``bool (K,)``: the markings of ``sets`` after whose blocks (D15) no seat of
        :attr:`later` has an available item: the game is over with every score final (D17, D18;
        :func:`sheet_rules.markings_block_out`); all False where :attr:`later` is empty."""
        if not self.later:
            return np.zeros(len(sets.sizes), dtype=bool)
        return markings_block_out(state.board, self._table(state), self.seat, self.later, sets)

    def _final_scores(self, state: StateArrays) -> Any:
        """:class:`win_chance.LastTurnWin` against the other seats' scores now, which are final
        after a marking of :meth:`blocking_out_markings` (its blocks change no score, D15, D19)."""
        from shelfie_solver.dice.win_chance import LastTurnWin

        return LastTurnWin(tuple(score(state.board, sheet, state.rules)
                                 for j, sheet in enumerate(self._table(state)) if j != self.seat))

    def exact_shelves(self, state: StateArrays) -> set[int]:
        """The shelves a failed result (D13) may give up whose value in :meth:`shelf_values` is
        the exact chance to win (:meth:`exact_shelf_values`); the others' values are the model's
        estimate."""
        return set(self.exact_shelf_values(state))

    def exact_shelf_values(self, state: StateArrays) -> dict[int, Fraction]:
        """Per shelf a failed result (D13) may give up whose value is the exact chance to win, that
        chance as a ``Fraction`` (:meth:`_shelf_layer`: what :meth:`shelf_values` has rounded to
        :data:`CHANCE_SCALE`); the others' values are the model's estimate."""
        shelves, *totals = self._give_up_totals(state)
        layer = self._shelf_layer(state, shelves, totals)
        if layer is None:
            return {}
        return {shelves[i]: chance for i, chance in enumerate(layer_fractions(len(shelves), [layer]))
                if chance is not None}

    def _shelf_layer(self, state: StateArrays, shelves: list[int], totals: Sequence[np.ndarray]) -> ExactLayer | None:
        """The shelves of ``shelves`` (line totals ``totals`` after giving up each) whose value is
        exact, as an :data:`ExactLayer` (rows of ``shelves``): where :attr:`end_exact` gives no
        exact value to the markings that end the game, two contenders left
        (:func:`contest_shelf_chance`, every shelf); where it does and giving up a shelf ends the
        game (:func:`end_shelf_chance`, every shelf); else the settled ones (:meth:`settled`). The
        one home of which exact chance a shelf given up has."""
        every = np.arange(len(shelves), dtype=np.int64)
        if self.end_exact is None:
            contest = self._contest_shelf_chance(state)
            if contest is not None and len(shelves):
                return fraction_layer(every, [contest] * len(shelves))
        else:
            ending = end_shelf_chance(self.end_exact, state)
            if ending is not None and len(shelves):
                return fraction_layer(every, [ending] * len(shelves))
        if not len(shelves):
            return None
        return settled_layer(given_up_settled(self.settled(state, *totals[:3]), state, shelves, self.settle[0]))

    @staticmethod
    def _giving_up_ends(state: StateArrays) -> bool:
        """Whether giving up a shelf (D13) triggers the end (D17): nothing is marked, so nothing is
        blocked and only the player's sheet changes, by one more closed shelf (each shelf that
        may be given up has an available item, and only its own items are given up), so alike
        for every shelf."""
        return state.marks.closed_shelves() + 1 >= end_trigger_shelves(state.board, state.rules)

    def _exact_share(self, worth: np.ndarray, state: StateArrays) -> np.ndarray:
        """:func:`_exact_shares` of :attr:`end_exact`."""
        return _exact_shares(self.end_exact, worth, state.rules)

    def values(self, state: StateArrays, sets: ItemSets) -> np.ndarray:
        m, a, mp, ap = state.line_totals
        count, points = sets.line_count, sets.line_points
        chances = self.chance_of(state, m + count, a - count, mp + points, ap - points)
        return with_layers(chances, self.exact_layers(state, sets))

    def ending_settled(self, state: StateArrays, sets: ItemSets) -> tuple[np.ndarray | None, ExactLayer | None]:
        """:func:`blocks_settled` and :func:`contest_values` of the markings ``sets`` where
        :attr:`end_exact` gives the markings that end the game no exact value (else, or where no
        marking may end the player's game, ``(None, None)``)."""
        table = self._table(state)
        if self.end_exact is not None or not self.sheets or not _may_be_over(state, table, self.seat, self.triggered):
            return None, None
        turns = _turns_over(state, table, self.seat, self.triggered, sets)
        return (blocks_settled(state, table, self.seat, self.first, self.triggered, sets, turns),
                contest_values(state, table, self.seat, self.first, self.triggered, sets, turns))

    def settled(self, state: StateArrays, m: np.ndarray, a: np.ndarray, mp: np.ndarray) -> np.ndarray:
        """``int8 (K,)``: :func:`win_chance.settled_shares` of ``K`` sheets of the player after
        this turn (line totals ``(K, L)``), with 1 where every opponent is out there
        (:func:`win_chance.lost_settled` of :func:`lost_rows`): 0 or 1 where the chance is exactly
        that (``k`` for ``1 / k``), else -1."""
        from shelfie_solver.dice.win_chance import lost_settled, settled_shares

        board, rules = state.board, state.rules
        own_distance = end_trigger_shelves(board, rules) - (a[:, : board.n_shelves] == 0).sum(axis=1)
        final, over = scores(m, mp, rules.scoring_threshold), self.game_over(own_distance)
        return lost_settled(settled_shares(final, over, *self.settle), lost_rows(self.lost, final, over))

    def _with_exact(self, state: StateArrays, sets: ItemSets, chances: np.ndarray) -> np.ndarray:
        """``chances (K,)`` of the markings ``sets`` with those of :meth:`_end_layers` (the markings
        that end the game where :attr:`end_exact` values them, those that block every later seat
        out) replaced by their exact chances, rounded (:func:`with_layers`)."""
        return with_layers(chances, self._end_layers(state, sets))

    def shelf_values(self, state: StateArrays) -> list[tuple[int, int]]:
        """For a failed result (D13): ``(shelf, chance)`` per shelf with an available item, best
        first (ties keep shelf order): the model's chance, or the exact one (:meth:`_shelf_layer`)
        rounded to :data:`CHANCE_SCALE`."""
        shelves, *totals = self._give_up_totals(state)
        if not shelves:
            return []
        layer = self._shelf_layer(state, shelves, totals)
        if layer is not None and len(layer[0]) == len(shelves):  # all exact: no model figure needed
            after = np.zeros(len(shelves), dtype=np.int64)
        else:
            after = self.chance_of(state, *totals)
        values: list[int] = with_layers(after, [] if layer is None else [layer]).tolist()
        return sorted(zip(shelves, values), key=lambda item: -item[1])

    def _contest_shelf_chance(self, state: StateArrays) -> Fraction | None:
        """:func:`contest_shelf_chance` of the player's sheet ``state`` (``None`` without the table)."""
        if not self.sheets:
            return None
        return contest_shelf_chance(state, self._table(state), self.seat, self.first, self.triggered)

    @staticmethod
    def _give_up_totals(state: StateArrays) -> tuple[Any, ...]:
        """``(shelves, m, a, mp, ap)``: the shelves a failed result may give up (D13), in shelf
        order, and the player's line totals ``(S, L)`` after giving up each (its available items
        eliminated; nothing marked)."""
        board = state.board
        m, a, mp, ap = state.line_totals
        give_up = failed_result_shelves(board, state.marks)
        shelves = list(give_up)
        lost = np.zeros((len(shelves), board.n_cells), dtype=np.int64)
        for row, shelf in enumerate(shelves):
            lost[row, list(give_up[shelf])] = 1
        lost_count = lost @ board.line_matrix
        lost_points = (lost * board.value_array) @ board.line_matrix
        rows = len(shelves)
        return (shelves, np.broadcast_to(m, (rows, len(m))), a - lost_count, np.broadcast_to(mp, (rows, len(m))),
                ap - lost_points)

    def compiled_turn_values(self, state: StateArrays) -> tuple[np.ndarray, np.ndarray, list[tuple[int, int]]] | None:
        """:meth:`values` of every item set of :func:`engine.kernel.turn_arrays` and
        :meth:`shelf_values`: the line totals, the strengths of the sets and of the shelves a
        failed result may give up (D13) and which markings end the game (D17) by one compiled
        call (:func:`learned.kernel._win_front`, numba), the softmax by :func:`_softmax_shares`
        and the exact chances of the markings that end the game by :attr:`end_exact`'s
        ``values_after``: ``(worth int64 (K+1,), 0 where unusable and at ``K``; usable bool
        (K+1,); the shelf values)``, the same integers as the numpy code. ``None`` without numba,
        on a board of more than 62 items, on a board whose value scale is not 1 (:func:`board_scale`: the
        kernel reads points as they are) or where a product could leave int64 (the numpy path's
        Python integers then)."""
        from shelfie_solver.dice.engine.kernel import (
            cell_lines,
            line_mask_array,
            turn_arrays,
        )
        from shelfie_solver.dice.learned.kernel import kernel_function, learned_deltas
        from shelfie_solver.dice.learned.objective import kernel_arrays, line_sizes

        front = kernel_function("_win_front")
        board, rules, marks = state.board, state.rules, state.marks
        if front is None or board.n_cells > 62 or board_scale(board) != 1:
            return None
        tables = turn_arrays(board, rules)
        arrays = kernel_arrays(self, board)
        exact = self.end_exact is not None and hasattr(self.end_exact, "values_after")
        others = [sheet for j, sheet in enumerate(self._table(state)) if j != self.seat] \
            if exact or self.sheets else []
        found = front(
            *learned_deltas(board, rules), tables.set_masks, marks.marked, marks.eliminated, cell_lines(board),
            board.value_array, line_sizes(board), rules.scoring_threshold, end_trigger_shelves(board, rules),
            board.n_shelves, arrays[0], arrays[1], arrays[2], self.threat, self.triggered, self.opponent_distance,
            arrays[4], arrays[5], WEIGHT_SCALE, np.ascontiguousarray(self.opponent_seats, dtype=np.int64),
            np.ascontiguousarray(self.calibration, dtype=np.int64), *_tree_arrays(self.trees), self.round_number,
            self.to_play, exact, bool(self.sheets),
            tables.set_lines,
            tables.set_counts, tables.set_points, np.array([o.marked for o in others], dtype=np.int64),
            np.array([o.eliminated for o in others], dtype=np.int64), line_mask_array(board), *self.settle)
        if not found[4]:
            return None
        table = (self._table(state), self.seat, self.first, self.triggered) if self.sheets else None
        out = _front_values(state, self.end_exact if exact else None, found, self.lost, self.settle[0], table)
        if self.end_exact is not None and not exact:
            self._compiled_exact(state, found[1], out[0])
        elif self.end_exact is None:
            _blocks_settled_into(state, self._table(state), self.seat, self.first, self.triggered, found[1], out[0])
            out = _contest_shelves(state, self._table(state), self.seat, self.first, self.triggered, out)
        _put_out_into(found, out[0])
        if self.later:
            _blocked_out_into(state, self._table(state), self.seat, self.later, found[1], out[0])
        return out

    def _compiled_exact(self, state: StateArrays, index: np.ndarray, worth: np.ndarray) -> None:
        """:meth:`_with_exact` of the item sets ``index`` (of :func:`engine.kernel.turn_arrays`)
        into ``worth``: the markings that end the game, their points and the opponents' sheets
        after their blocks by one compiled call (:func:`engine.kernel.markings_end`), their
        exact chances by :attr:`end_exact`'s ``values_after``; without that kernel or method,
        :meth:`_with_exact` itself."""
        from shelfie_solver.dice.engine.kernel import markings_end

        m, _, mp, _ = state.line_totals
        found = markings_end(state.board, state.rules, self._table(state), self.seat, index, m, mp) \
            if hasattr(self.end_exact, "values_after") else None
        if found is None:
            from shelfie_solver.dice.allocate import feasibility_arrays

            if self._may_end(state):
                sets = feasibility_arrays(state.board, state.rules).sets.take(index)
                worth[index] = self._with_exact(state, sets, worth[index])
            return
        ends, gains, blocked = found
        chosen = np.flatnonzero(ends)
        if len(chosen):
            now = score(state.board, state.marks, state.rules)
            worth[index[chosen]] = self._exact_share(
                self.end_exact.values_after(state, gains[chosen] + now, blocked[chosen]), state)

    def failed_value(self, state: StateArrays) -> int:
        return max((value for _, value in self.shelf_values(state)), default=0)


def _tree_arrays(trees: WinTrees | None) -> tuple[np.ndarray, np.ndarray]:
    """The compiled kernels' tree arguments (:func:`learned.kernel._win_gaps`): ``tree_nodes
    int64 (N, 5)`` and ``tree_roots int64 (R,)`` of ``trees``, empty (no term, at no cost) for
    ``None``."""
    found = NO_TREES if trees is None else trees
    return found.nodes, found.roots


def _settle(chances: np.ndarray, settled: np.ndarray) -> np.ndarray:
    """``int64``: the model's ``chances`` with the settled ones (``settled`` 0, or ``k >= 1`` for a
    share ``1 / k``, :func:`win_chance.settled_shares`) exactly 0, :data:`CHANCE_SCALE` or its
    ``k``-th rounded half up (:func:`settled_layer` through :func:`with_layers`, as
    :meth:`WinObjective.values`; whole for ``k`` 1, 2 and 4)."""
    layer = settled_layer(settled)
    return chances if layer is None else with_layers(chances, [layer])


#: Up to this many exact chances, :func:`rounded_chances` rounds them as Python integers.
_FEW_SHARES = 64


def rounded_chances(numerators: np.ndarray, scale: int) -> np.ndarray:
    """``int64``: the exact chances ``numerators / scale`` rounded (half up) to
    :data:`CHANCE_SCALE`: ``(n * 2 CHANCE_SCALE + scale) // (2 scale)``, every term divided by
    their common factor first, in int64 where the products provably fit (else Python integers;
    also for a few chances, where they cost less than numpy's calls: the same integers). The one
    rounding of an exact terminal to the model's millionths (the engine's values, D7)."""
    common = gcd(2 * CHANCE_SCALE, scale)
    times, add, over = 2 * CHANCE_SCALE // common, scale // common, 2 * scale // common
    if len(numerators) <= _FEW_SHARES:
        return np.array([(int(w) * times + add) // over for w in np.asarray(numerators).tolist()], dtype=np.int64)
    if int(np.abs(numerators).max()) * times + add < 1 << 62:
        fits: np.ndarray = (np.asarray(numerators, dtype=np.int64) * times + add) // over
        return fits
    out: np.ndarray = (np.asarray(numerators).astype(object) * times + add) // over
    return out.astype(np.int64)


def _exact_shares(end_exact: Any, worth: np.ndarray, rules: Ruleset) -> np.ndarray:
    """:func:`rounded_chances` of exact chances over ``end_exact``'s scale (:mod:`win_chance`)."""
    return rounded_chances(worth, end_exact.scale(rules))


#: Exact terminals of one kind (:meth:`WinObjective.exact_layers`): ``(rows int64 (R,), numerators
#: (R,), scale)``, the rows' exact chances to win ``numerators / scale`` (numerators int64, or Python
#: integers in an object array).
ExactLayer = tuple[np.ndarray, np.ndarray, int]


def settled_layer(settled: np.ndarray) -> ExactLayer | None:
    """The settled terminals of ``settled`` (``int8 (K,)``: 0, ``k >= 1`` for a share ``1 / k`` or
    -1, :func:`win_chance.settled_shares`) as exact chances over :data:`win_chance.WIN_UNIT` (every
    ``1/k`` whole for up to four ways, D20; else the lcm of ``1..k``);
    ``None`` where none is settled. The numpy and the compiled paths (:func:`_settle`) alike."""
    from shelfie_solver.dice.win_chance import WIN_UNIT

    rows = np.flatnonzero(np.asarray(settled) >= 0)
    if not len(rows):
        return None
    k = np.asarray(settled)[rows].astype(np.int64)
    top = int(k.max())
    scale = WIN_UNIT if top <= 4 else lcm(*range(1, top + 1))  # every 1/k whole (at most 4 ways, D1)
    out: ExactLayer = (rows, np.where(k > 0, scale // np.maximum(k, 1), 0), scale)
    return out


def fraction_layer(rows: np.ndarray, chances: Sequence[Fraction]) -> ExactLayer:
    """The exact chances ``chances`` of the terminals ``rows`` as an :data:`ExactLayer` (over the
    lcm of their denominators)."""
    scale = lcm(*(c.denominator for c in chances)) if len(chances) else 1
    numerators = [c.numerator * (scale // c.denominator) for c in chances]
    wide = any(abs(n) >= 1 << 62 for n in numerators)
    return np.asarray(rows, dtype=np.int64), np.array(numerators, dtype=object if wide else np.int64), scale


def with_layers(chances: np.ndarray, layers: Sequence[ExactLayer]) -> np.ndarray:
    """``chances (K,)`` (the model's, over :data:`CHANCE_SCALE`) with each layer's rows replaced by
    its exact chances rounded (:func:`rounded_chances`), in order (a later layer's value stands)."""
    out = chances
    for rows, numerators, scale in layers:
        if out is chances:
            out = np.array(chances, dtype=np.int64)
        out[rows] = rounded_chances(numerators, scale)
    return out


def layer_fractions(count: int, layers: Sequence[ExactLayer]) -> list[Fraction | None]:
    """Per terminal of ``count``, its exact chance as a ``Fraction`` from ``layers`` (a later
    layer's value stands, as :func:`with_layers`), ``None`` where none gives one."""
    out: list[Fraction | None] = [None] * count
    for rows, numerators, scale in layers:
        for row, n in zip(rows.tolist(), np.asarray(numerators).tolist()):
            out[row] = Fraction(int(n), scale)
    return out


def end_shelf_chance(end_exact: Any, state: StateArrays) -> Fraction | None:
    """The exact chance to win of giving up any shelf (D13) where that ends the game (D17,
    :meth:`WinObjective._giving_up_ends`: alike for every shelf) and ``end_exact`` (``None``:
    none) gives it, its ``failed_value`` over its scale; else ``None``."""
    if end_exact is None or not WinObjective._giving_up_ends(state):
        return None
    return Fraction(int(end_exact.failed_value(state)), end_exact.scale(state.rules))


def _ranked_shelves(end_exact: Any, state: StateArrays, shelves: list[int],
                    after: np.ndarray) -> list[tuple[int, int]]:
    """:meth:`WinObjective.shelf_values` from the model's chance ``after (S,)`` of giving up each of
    ``shelves``: exact by ``end_exact`` (``None``: none) where that ends the game (D13, D17,
    :func:`end_shelf_chance`, rounded), best first, ties in shelf order."""
    values: list[int] = after.tolist()  # Python ints
    exact = end_shelf_chance(end_exact, state)
    if exact is not None:
        values = [int(rounded_chances(np.array([exact.numerator]), exact.denominator)[0])] * len(values)
    return sorted(zip(shelves, values), key=lambda item: -item[1])


def given_up_settled(settled: np.ndarray, state: StateArrays, shelves: Sequence[int], low: int) -> np.ndarray:
    """``int8 (S,)``: the settled values ``settled`` (:meth:`WinObjective.settled`) of giving up
    each of ``shelves`` (D13) on the player's sheet ``state``, ``0`` where the player can no longer
    win after it (:func:`win_chance.given_up_lost` against ``low``, another seat's score now): the
    numpy path (:meth:`WinObjective._shelf_layer`) and the compiled one (:func:`_front_values`)
    alike, so a failed result that leaves the sheet's every-item ceiling below another score is
    an exact 0, not the model's estimate."""
    from shelfie_solver.dice.win_chance import given_up_lost

    out = np.asarray(settled, dtype=np.int8)
    if not len(shelves):
        return out
    lost = given_up_lost(state.board, state.rules, state.marks, shelves, low)
    return np.where(lost, 0, out).astype(np.int8)


def _front_values(state: StateArrays, end_exact: Any, found: tuple[Any, ...], lost: np.ndarray, low: int,
                  table: tuple[tuple[Marks, ...], int, int, bool] | None = None
                  ) -> tuple[np.ndarray, np.ndarray, list[tuple[int, int]]]:
    """:meth:`WinObjective.compiled_turn_values` from :func:`learned.kernel._win_front`'s results
    ``found`` (its markings that end the game computed when ``end_exact`` is not ``None``): the
    softmax (:func:`_softmax_shares`, without the opponents lost at each row: :func:`lost_rows`
    of ``lost``, :func:`lost_bounds`, from the kernel's final scores and game-over flags of the
    rows, and with ``table`` those the rows' own blocks put out, :func:`blocks_lost`, then
    :func:`without_lost`),
    the exact chances of the markings that end the game by
    ``end_exact``'s ``values_after`` (D17, D18, D20), the settled ones exactly 0 or 1
    (:meth:`WinObjective.settled`: the kernel's ``settled``; a shelf given up below ``low``,
    another seat's score now, exactly 0: :func:`given_up_settled`) and the shelves ranked (D13)."""
    from shelfie_solver.dice.win_chance import lost_settled

    gaps, index, shelf_rows, usable, _, ends, gains, blocked, settled, final, over, _ = found
    gone = lost_rows(lost, final, over)
    used = len(index)
    settled = lost_settled(settled, gone)
    if len(settled) > used:  # the shelves' rows, after the sets'
        settled = np.concatenate([settled[:used], given_up_settled(settled[used:], state, shelf_rows.tolist(), low)])
    if table is not None and used and len(_near_lines(state)):  # the sets' own blocks (D15); a shelf blocks nothing
        out_by_blocks = blocks_lost(state, table, _marked_after(state, index), final[:used], over[:used],
                                    None if gone is None else gone[:used])
        if out_by_blocks is not None:
            rest = gone[used:] if gone is not None else np.zeros((len(gaps) - used, out_by_blocks.shape[1]), dtype=bool)
            gone = np.concatenate([out_by_blocks, rest])
    shares = _settle(_softmax_shares(without_lost(gaps, gone), own_first=True), settled)  # the sets', then the shelves'
    worth = np.zeros(len(usable), dtype=np.int64)
    worth[index] = shares[:used]
    if end_exact is not None:
        chosen = np.flatnonzero(ends)
        if len(chosen):
            now = score(state.board, state.marks, state.rules)
            worth[index[chosen]] = _exact_shares(end_exact, end_exact.values_after(state, gains[chosen] + now,
                                                                                  blocked[chosen]), state.rules)
    shelves = shelf_rows.tolist()
    return worth, usable, _ranked_shelves(end_exact, state, shelves, shares[used:]) if shelves else []


def _marked_after(state: StateArrays, index: np.ndarray) -> np.ndarray:
    """``int64 (K, L)``: the player's marked items per line after marking each item set ``index``
    (of :func:`engine.kernel.turn_arrays`, as :func:`allocate.feasibility_arrays` numbers them)."""
    from shelfie_solver.dice.allocate import feasibility_arrays

    out: np.ndarray = state.line_totals[0] + feasibility_arrays(state.board, state.rules).sets.line_count[index]
    return out


def compiled_win_values(state: GameState, model: WinModel | None = None,
                        learned: LearnedModel | None = None) -> tuple[np.ndarray, np.ndarray,
                                                                       list[tuple[int, int]]] | None:
    """:meth:`WinObjective.compiled_turn_values` of :func:`win_objective` ``(state, model,
    learned)`` without building the objective: every seat's inputs from the sheets' bit masks and
    the active sheet's strengths in one compiled call (:func:`learned.kernel._win_turn`), then
    :func:`_front_values`. The same integers; ``None`` without numba, on a board of more than 62
    items, on a board whose value scale is not 1 (:func:`board_scale`) or where a product could
    leave int64 (then build the objective: its numpy path)."""
    from shelfie_solver.dice.learned.kernel import kernel_function
    from shelfie_solver.dice.win_chance import settled_bounds

    whole = kernel_function("_win_turn")
    board, rules = state.board, state.rules
    if whole is None or board.n_cells > 62 or board_scale(board) != 1:
        return None
    n, me, first = state.players, state.active, state.first
    weights, tables = _win_turn_constants(board, rules, n, (model or win_model_in_use()).for_board(board),
                                          learned or default_model())
    place = place_in_round(me, first, n)  # the seats after the player this round (game_objective's ends)
    ends = np.array([1 if j != me and place_in_round(j, first, n) > place else 0 for j in range(n)], dtype=np.int64)
    end_exact = ending_objective(state)
    sheets = state.sheets
    settle = settled_bounds(state)
    found = whole(
        np.array([m.marked for m in sheets], dtype=np.int64), np.array([m.eliminated for m in sheets], dtype=np.int64),
        me, ends, state.turn, state.end_triggered, *weights, end_exact is not None, *tables, *settle)
    if not found[4]:
        return None
    arrays = StateArrays(board, rules, state.marks)
    out = _front_values(arrays, end_exact, found, lost_bounds(state), settle[0],
                        (sheets, me, first, state.end_triggered))
    if end_exact is None:
        _blocks_settled_into(arrays, sheets, me, first, state.end_triggered, found[1], out[0])
        out = _contest_shelves(arrays, sheets, me, first, state.end_triggered, out)
    _put_out_into(found, out[0])
    later = blocking_out_seats(state)
    if later:
        _blocked_out_into(arrays, sheets, me, later, found[1], out[0])
    return out


def _may_be_over(state: StateArrays, sheets: tuple[Marks, ...], seat: int, triggered: bool) -> bool:
    """Whether some marking of ``seat`` may leave its game over (:func:`_turns_over`): the end
    triggered before this turn, or :func:`sheet_rules.may_end_game` (its own shelves or, through
    blocks, another sheet's, D15, D17); cheap, so that most turns skip the rest."""
    return triggered or may_end_game(state.board, state.rules, sheets, seat)


def _turns_over(state: StateArrays, sheets: tuple[Marks, ...], seat: int, triggered: bool,
                sets: ItemSets) -> tuple[np.ndarray, np.ndarray]:
    """``(new bool (K, L), over bool (K,))`` of the markings ``sets`` of ``seat`` (its sheet as
    ``state`` has it; ``sheets`` every seat's): the lines each completes (D15) and whether the
    player's game is over after it — the end triggered before this turn (``triggered``), or by
    its own closed shelves, or through its blocks by another sheet's (D17, D18;
    :func:`sheet_rules.markings_end_game`)."""
    board, rules = state.board, state.rules
    member = board.line_matrix
    sizes = member.sum(axis=0)
    before = sheets[seat].bit_arrays()[0] @ member  # (L,) marked items per line
    new = (before + sets.line_count == sizes) & (before < sizes)  # (K, L): the lines each completes
    if triggered:
        return new, np.ones(len(sets.sizes), dtype=bool)
    left = state.line_totals[1][None, : board.n_shelves] - sets.line_count[:, : board.n_shelves]
    over = (left == 0).sum(axis=1) >= end_trigger_shelves(board, rules)  # its own closed shelves (D17)
    if may_end_game(board, rules, sheets, seat):
        rows = np.flatnonzero(~over & new.any(axis=1))  # (blocks need a completed line)
        if len(rows):
            over[rows] = markings_end_game(board, rules, sheets, seat, sets.take(rows))
    return new, over


def blocks_put_out(state: StateArrays, sheets: tuple[Marks, ...], seat: int, sets: ItemSets) -> np.ndarray | None:
    """``int8 (K,)``: ``1`` for the markings of ``sets`` of ``seat`` (its sheet as ``state`` has it;
    ``sheets`` every seat's) that complete a line (D15) and after whose blocks every other seat's
    :func:`board.highest_score` (every item it still has available marked: the best it can end on
    however the game goes) is below the player's score after the marking, which never falls (D13,
    D15, D19): it wins alone (D20), its game over or not; ``-1`` for the others; ``None`` where
    no marking is such. :func:`win_chance.lost_bounds` reads the ceilings of the turn's start
    (an upper bound: the blocks only take items away); this sees the turn's own blocks. The one
    home of the rule in Python, for the numpy path (:meth:`WinObjective.exact_layers`) and the
    reference of its compiled implementation, :func:`learned.kernel._blocks_put_out`, which
    the compiled paths (:meth:`WinObjective.compiled_turn_values`, :func:`compiled_win_values`)
    run inside their turn kernel on the sheets' bit masks: the same integers (``None`` here, all
    -1 there, where no marking is such; tests/test_put_out_kernel.py). Cheapest first: a marking
    that completes a line must score above every other seat's score now (a ceiling never falls
    below its sheet's score: marked items stay, D15), then above :func:`_least_ceiling`, before
    its own blocks are tried."""
    if len(sheets) < 2:
        return None
    board, rules = state.board, state.rules
    member = board.line_matrix
    sizes = member.sum(axis=0)
    before = sheets[seat].bit_arrays()[0] @ member  # (L,) marked items per line
    line_count, line_points = sets.line_count, sets.line_points
    new = (before + line_count == sizes) & (before < sizes)  # (K, L): the lines each completes
    rows = np.flatnonzero(new.any(axis=1))
    if not len(rows):
        return None
    m, _, mp, _ = state.line_totals
    final = scores(m + line_count[rows], mp + line_points[rows], rules.scoring_threshold)
    if final.max() <= top_other_score(board, sheets, seat, rules):
        return None
    above = final > _least_ceiling(state, sheets, seat)  # the others' own blocks leave some opponent at least their score
    if not above.any():
        return None
    rows, final = rows[above], final[above]
    out = np.full(len(line_count), -1, dtype=np.int8)
    codes, lines = _line_codes(new[rows])
    for g, completed in enumerate(lines):
        ceiling = _best_ceiling(board, rules, sheets, seat, completed)
        chosen = np.flatnonzero(codes == g)
        out[rows[chosen]] = np.where(final[chosen] > ceiling, 1, -1)
    return out if (out == 1).any() else None


def _best_ceiling(board: Board, rules: Ruleset, sheets: tuple[Marks, ...], seat: int, lines: Iterable[int]) -> int:
    """The best other seat's :func:`board.highest_score` once ``seat``'s completed ``lines`` have
    blocked every other sheet (D15): the cells of those lines eliminated where still available."""
    masks = line_masks(board)
    cells = 0
    for line in lines:
        cells |= masks[line]
    return max(highest_score(board, sheet, rules, cells) for j, sheet in enumerate(sheets) if j != seat)


def _least_ceiling(state: StateArrays, sheets: tuple[Marks, ...], seat: int) -> int:
    """The least that the best opponent's ceiling (:func:`board.highest_score`) can fall to by the
    blocks (D15) of one marking of ``seat`` (every line a marking may complete, at most
    ``combinations_per_turn`` items short and every one available, blocked at once: blocks only
    take items away), so that no marking scoring at most this puts every opponent out
    (:func:`blocks_put_out`); with no line that near, the ceiling as it stands."""
    return _best_ceiling(state.board, state.rules, sheets, seat, _near_lines(state).tolist())


def _put_out_into(found: tuple[Any, ...], worth: np.ndarray) -> None:
    """The compiled paths' values ``worth`` of the usable item sets with the put-out rule applied
    as :meth:`WinObjective.values` applies it (:func:`_settle`: its rows exactly
    :data:`CHANCE_SCALE`), from :func:`learned.kernel._win_front`'s results ``found``: the usable
    sets ``found[1]`` and the rule's rows ``found[11]`` (:func:`learned.kernel._blocks_put_out`,
    the same integers as :func:`blocks_put_out`)."""
    index, sure = found[1], found[11]
    if (sure == 1).any():
        worth[index] = _settle(worth[index], sure)


def blocks_settled(state: StateArrays, sheets: tuple[Marks, ...], seat: int, first: int, triggered: bool,
                   sets: ItemSets, turns: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray | None:
    """``int8 (K,)``: :func:`win_chance.settled_shares` of the markings ``sets`` of ``seat`` (its
    sheet as ``state`` has it; ``sheets`` every seat's, ``first`` the first seat, D5,
    ``triggered`` whether the end was triggered before this turn) that complete a line (D15) and
    after which the player's game is over (:func:`_turns_over`) against
    :func:`win_chance.settled_bounds` of the sheets after its blocks: a block takes available
    items from the seats still to play, so their reach may fall below the player's final score
    (a seat that loses its last available item keeps its score). ``-1`` for the other markings
    (settled, where they are, by :meth:`WinObjective.settled`: the bounds of the turn's start are
    theirs); ``None`` where no marking is such. The one home of the rule for the numpy and the
    compiled paths (:func:`_blocks_settled_into`). ``turns``: :func:`_turns_over` of ``sets`` if
    known."""
    from shelfie_solver.dice.win_chance import settled_bounds, settled_shares

    board, rules = state.board, state.rules
    new, over = turns if turns is not None else _turns_over(state, sheets, seat, triggered, sets)
    rows = np.flatnonzero(new.any(axis=1) & over)
    if not len(rows):
        return None
    m, _, mp, _ = state.line_totals
    final = scores(m + sets.line_count[rows], mp + sets.line_points[rows], rules.scoring_threshold)
    out = np.full(len(sets.sizes), -1, dtype=np.int8)
    codes, lines = _line_codes(new[rows])
    for g, completed in enumerate(lines):
        after = blocked_sheets(board, sheets, seat, completed)[0]
        bounds = settled_bounds(GameState(board, rules, after, seat, first, 0, triggered))
        chosen = np.flatnonzero(codes == g)
        out[rows[chosen]] = settled_shares(final[chosen], np.ones(len(chosen), dtype=bool), *bounds)
    return out


def _line_codes(new: np.ndarray) -> tuple[np.ndarray, list[tuple[int, ...]]]:
    """``(group int64 (K,), lines)``: the rows of ``new`` (bool ``(K, L)``: the lines each marking
    completes) grouped by the lines they complete, ``lines[g]`` group ``g``'s in increasing order."""
    lines = new.shape[1]
    if lines > 62:
        found, group = np.unique(new, axis=0, return_inverse=True)
        return np.asarray(group).reshape(-1), [tuple(np.flatnonzero(row).tolist()) for row in found]
    # each row packed into one int64, the first line the highest bit: the same groups in the same
    # (lexicographic) order as np.unique over the rows, at a tenth of its cost
    packed = new.astype(np.int64) @ (np.int64(1) << np.arange(lines - 1, -1, -1, dtype=np.int64))
    codes, group = np.unique(packed, return_inverse=True)
    return (np.asarray(group).reshape(-1),
            [tuple(i for i in range(lines) if code >> (lines - 1 - i) & 1) for code in codes.tolist()])


def contest_values(state: StateArrays, sheets: tuple[Marks, ...], seat: int, first: int, triggered: bool,
                   sets: ItemSets, turns: tuple[np.ndarray, np.ndarray] | None = None) -> ExactLayer | None:
    """The markings of ``sets`` (arguments as :func:`blocks_settled`) after which the player's game
    is over (:func:`_turns_over`) with one seat left to decide the game (two contenders, or final
    scores beside)
    (:func:`win_chance.two_contender_chances` of the sheets after its blocks, D15, and its final
    score, D19), with their exact chances: an :data:`ExactLayer` (rows of ``sets``, numerators,
    scale; :func:`rounded_chances` gives the engine's millionths); ``None`` where there is none.
    The one home of the rule for the numpy and the compiled paths (:func:`_blocks_settled_into`;
    ``turns`` as there)."""
    from shelfie_solver.dice.win_chance import two_contender_chances

    board, rules = state.board, state.rules
    if len(sheets) < 3:  # two players: win_chance.BeforeLastWin (ending_objective)
        return None
    new, over = turns if turns is not None else _turns_over(state, sheets, seat, triggered, sets)
    rows = np.flatnonzero(over)
    if not len(rows):
        return None
    m, _, mp, _ = state.line_totals
    final = scores(m + sets.line_count[rows], mp + sets.line_points[rows], rules.scoring_threshold)
    codes, lines = _line_codes(new[rows])
    keys, group = np.unique(np.stack([codes, final], axis=1), axis=0, return_inverse=True)
    group = np.asarray(group).reshape(-1)
    after = [blocked_sheets(board, sheets, seat, completed)[0] if completed else sheets for completed in lines]
    chances = two_contender_chances(board, rules, seat, first, [(after[g], f) for g, f in keys.tolist()])
    chosen = np.flatnonzero(np.array([chances[g] is not None for g in group.tolist()], dtype=bool))
    if not len(chosen):
        return None
    found = [chances[g] for g in group[chosen].tolist()]
    return fraction_layer(rows[chosen], [chance for chance in found if chance is not None])


def contest_shelf_chance(state: StateArrays, sheets: tuple[Marks, ...], seat: int, first: int,
                         triggered: bool) -> Fraction | None:
    """The exact chance to win of giving up any shelf (D13) where that ends the player's game (the
    end triggered before, or its own closed shelves trigger it, D17, D18: alike for every shelf,
    :meth:`WinObjective._giving_up_ends`) with two contenders left
    (:func:`win_chance.two_contender_chances` of the sheets as they are, nothing being marked or
    blocked, and the player's score now); ``None`` otherwise (arguments as
    :func:`contest_values`)."""
    from shelfie_solver.dice.win_chance import two_contender_chances

    if len(sheets) < 3 or not (triggered or WinObjective._giving_up_ends(state)):
        return None
    return two_contender_chances(state.board, state.rules, seat, first,
                                 [(sheets, score(state.board, state.marks, state.rules))])[0]


def contest_shelf_value(state: StateArrays, sheets: tuple[Marks, ...], seat: int, first: int,
                        triggered: bool) -> int | None:
    """:func:`contest_shelf_chance` over :data:`CHANCE_SCALE` (:func:`rounded_chances`), or ``None``."""
    chance = contest_shelf_chance(state, sheets, seat, first, triggered)
    if chance is None:
        return None
    return int(rounded_chances(np.array([chance.numerator]), chance.denominator)[0])


def _contest_shelves(state: StateArrays, sheets: tuple[Marks, ...], seat: int, first: int, triggered: bool,
                     out: tuple[np.ndarray, np.ndarray, list[tuple[int, int]]]
                     ) -> tuple[np.ndarray, np.ndarray, list[tuple[int, int]]]:
    """The compiled paths' ``(worth, usable, shelf values)`` with the shelves' values
    :func:`contest_shelf_value` where it applies, in shelf order (as
    :meth:`WinObjective.shelf_values`)."""
    if not out[2]:
        return out
    value = contest_shelf_value(state, sheets, seat, first, triggered)
    if value is None:
        return out
    return out[0], out[1], [(shelf, value) for shelf in sorted(shelf for shelf, _ in out[2])]


def _blocks_settled_into(state: StateArrays, sheets: tuple[Marks, ...], seat: int, first: int, triggered: bool,
                         index: np.ndarray, worth: np.ndarray) -> None:
    """The compiled paths' values ``worth`` of the item sets ``index`` (of
    :func:`engine.kernel.turn_arrays`) with :func:`blocks_settled` and :func:`contest_values`
    applied, as :meth:`WinObjective.values` applies them (the kernel settles against the bounds
    of the turn's start only): the same integers as the numpy path."""
    from shelfie_solver.dice.allocate import feasibility_arrays

    if not len(index) or not _may_be_over(state, sheets, seat, triggered):
        return
    sets = feasibility_arrays(state.board, state.rules).sets.take(index)
    turns = _turns_over(state, sheets, seat, triggered, sets)
    found = blocks_settled(state, sheets, seat, first, triggered, sets, turns)
    if found is not None:
        worth[index] = _settle(worth[index], found)
    contest = contest_values(state, sheets, seat, first, triggered, sets, turns)
    if contest is not None:
        worth[index[contest[0]]] = rounded_chances(contest[1], contest[2])


def _blocked_out_into(state: StateArrays, sheets: tuple[Marks, ...], seat: int, later: tuple[int, ...],
                      index: np.ndarray, worth: np.ndarray) -> None:
    """:meth:`WinObjective._with_exact`'s exact shares of the markings that leave every seat of
    ``later`` without an available item (:meth:`WinObjective.blocking_out_markings`, D15, D17,
    D18, D20) among the item sets ``index`` (of :func:`engine.kernel.turn_arrays`) into ``worth``
    (the compiled paths' values: the same integers as the numpy path)."""
    from shelfie_solver.dice.allocate import feasibility_arrays
    from shelfie_solver.dice.win_chance import LastTurnWin

    sets = feasibility_arrays(state.board, state.rules).sets.take(index)
    chosen = np.flatnonzero(markings_block_out(state.board, sheets, seat, later, sets))
    if len(chosen):
        final = LastTurnWin(tuple(score(state.board, sheet, state.rules) for j, sheet in enumerate(sheets) if j != seat))
        worth[index[chosen]] = _exact_shares(final, final.values(state, sets.take(chosen)), state.rules)


#: :func:`_win_turn_constants` per (board, rules, players, models), with the models they came from.
_WIN_TURN_CONSTANTS: dict[tuple[Any, ...], tuple[WinModel, LearnedModel, tuple[Any, ...], tuple[Any, ...]]] = {}


def _win_turn_constants(board: Board, rules: Ruleset, players: int, model: WinModel,
                        learned: LearnedModel) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """The arguments of :func:`learned.kernel._win_turn` that :func:`compiled_win_values` takes
    from the board, the rules, the number of players and the models alone (not from the
    sheets), in its order: from ``per_turn`` to ``tree_roots`` (:func:`_tree_arrays`), and from ``set_ids`` to
    ``line_masks``; made once per (board, rules, players, models) and kept with the models (the
    models' tables, like :func:`learned.objective.kernel_weights`' cache, are never changed)."""
    from shelfie_solver.dice.engine.kernel import (
        cell_lines,
        line_mask_array,
        turn_arrays,
    )
    from shelfie_solver.dice.learned.kernel import learned_deltas
    from shelfie_solver.dice.learned.objective import (
        BLOCKING,
        FAR,
        kernel_weights,
        line_sizes,
    )

    key = (board, rules, players, id(model), id(learned))
    found = _WIN_TURN_CONSTANTS.get(key)
    if found is None or found[0] is not model or found[1] is not learned:
        coef, g, context_weights = kernel_weights(learned.for_board(players, board), board)
        tables = turn_arrays(board, rules)
        weights = (rules.combinations_per_turn, BLOCKING, coef, g, context_weights, WEIGHT_SCALE, FAR,
                   np.ascontiguousarray(model.for_players(players), dtype=np.int64),
                   *_tree_arrays(model.trees_for(players)))
        sheet = (*learned_deltas(board, rules), tables.set_masks, cell_lines(board), board.value_array,
                 line_sizes(board), rules.scoring_threshold, end_trigger_shelves(board, rules), board.n_shelves,
                 tables.set_lines, tables.set_counts, tables.set_points, line_mask_array(board))
        if len(_WIN_TURN_CONSTANTS) >= 64:
            _WIN_TURN_CONSTANTS.clear()
        found = _WIN_TURN_CONSTANTS[key] = (model, learned, weights, sheet)
    return found[2], found[3]


def win_objective(state: GameState, model: WinModel | None = None, learned: LearnedModel | None = None,
                  name: str = "win") -> WinObjective:
    """The objective ``win`` of the active player in ``state`` (a game of 2-4 players)."""
    from shelfie_solver.dice.win_chance import settled_bounds

    whole = model or win_model_in_use()
    model = whole.for_board(state.board)
    out = game_objective(state.board, state.rules, state.sheets, state.active, state.first, state.end_triggered,
                         in_board_points(learned or default_model(), board_scale(state.board)), state.turn,
                         kind=WinObjective,
                         extra={"name": name, "calibration": model.for_players(state.players),
                                "round_number": state.round, "to_play": seats_to_play(state),
                                "end_exact": ending_objective(state),
                                "sheets": state.sheets, "seat": state.active,
                                "opponent_seats": opponent_seats(state), "settle": settled_bounds(state),
                                "later": blocking_out_seats(state), "trees": model.trees_for(state.players),
                                "lost": lost_bounds(state), "first": state.first,
                                "fitted_shape": whole.shape if model is not whole else None})
    assert isinstance(out, WinObjective)
    return out


def blocking_out_seats(state: GameState) -> tuple[int, ...]:
    """With 3 or 4 players, the seats still to play in this round after the active player's turn
    (D5, D18) where some marking of the turn may leave them all without an available item
    (:func:`sheet_rules.may_block_out`; D15): :attr:`WinObjective.later`. Empty otherwise, and with
    2 players, whose such markings trigger the end (D17) and have their exact chance already
    (:func:`ending_objective`, :func:`win_chance.exact_objective`)."""
    if state.players < 3:
        return ()
    later = tuple(j for j in range(state.players) if j != state.active and state.plays_later_this_round(j))
    return later if may_block_out(state.board, state.rules, state.sheets, state.active, later) else ()


def seats_to_play(state: GameState) -> int:
    """How many seats still play in this round after the active player's turn (D5, D18): the
    ``to_play`` of :func:`design`, 0 when the active player closes the round."""
    return state.players - 1 - place_in_round(state.active, state.first, state.players)


def opponent_seats(state: GameState) -> np.ndarray:
    """``int64 (J, 3 + SHEET_COLUMNS)``: per opponent of the active player, in seat order, its
    score (D19), its closed shelves short of the trigger (D17) and the turns until it plays once
    the active player's turn is over (1 for the next seat, D5) — the last three
    :data:`SEAT_COLUMNS` — then its line-state counts (:func:`sheet_states`) on its sheet as the
    turn starts (before the turn's blocks, D15)."""

    board, rules, n, me = state.board, state.rules, state.players, state.active
    trigger = end_trigger_shelves(board, rules)
    rows = []
    for j in range(n):
        if j == me:
            continue
        m, a, _, _ = StateArrays(board, rules, state.sheets[j]).line_totals
        rows.append([score(board, state.sheets[j], rules), trigger - state.sheets[j].closed_shelves(), (j - me) % n,
                     *sheet_states(m, a, board.n_shelves).tolist()])
    return np.array(rows, dtype=np.int64).reshape(len(rows), 3 + SHEET_COLUMNS)


def ending_objective(state: GameState) -> Any:
    """The exact chance to win after a turn of the active player that triggers the end (D17),
    where it is known (:mod:`win_chance`): the last player of the round ends the game at once
    (D18), so every score is final; with two players and the opponent still to play this round,
    their last turn follows. ``None`` otherwise, or when the end is triggered already."""
    from shelfie_solver.dice.win_chance import BeforeLastWin, LastTurnWin

    n, me = state.players, state.active
    if state.end_triggered or n < 2:
        return None
    others = [j for j in range(n) if j != me]
    if state.is_last_in_round():
        return LastTurnWin(tuple(score(state.board, state.sheets[j], state.rules) for j in others))
    if n == 2:
        return BeforeLastWin(state.sheets[others[0]], (state.sheets[me], state.sheets[others[0]]))
    return None


def float_chances(coefficients: np.ndarray, phase: np.ndarray, x: np.ndarray, round_number: int,
                  trees: WinTrees | None = None) -> np.ndarray:
    """:func:`all_chances` as floats in [0, 1], ``(K, n)`` (for fitting and measuring)."""
    out: np.ndarray = all_chances(coefficients, phase, x, round_number, trees) / CHANCE_SCALE
    return out


#: A fitting sample: players, phase after the turn, :func:`design` ``int64 (n, F)`` (the seat
#: that just played first), every seat's share of victory ``float (n,)`` (D20) in that order.
Sample = tuple[int, int, np.ndarray, np.ndarray]


def fit_row(x: np.ndarray, y: np.ndarray, ridge: float = RIDGE) -> np.ndarray:
    """``float (F,)``: the coefficients (per unit of :func:`design`'s integers over
    :data:`WEIGHT_SCALE`) maximising the likelihood of the shares ``y (N, n)`` under the softmax
    of ``x (N, n, F)`` (soft targets, D20), with a ridge on the scaled coefficients;
    deterministic (L-BFGS from 0)."""
    from scipy.optimize import minimize
    from scipy.special import log_softmax, softmax

    xf = x.astype(np.float64) / WEIGHT_SCALE
    spread = np.maximum(np.abs(xf).max(axis=(0, 1)), 1e-9)
    xs = xf / spread

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        z = xs @ w  # (N, n)
        value = float(-(y * log_softmax(z, axis=1)).sum() + ridge * np.sum(w ** 2))
        grad = np.einsum("kif,ki->f", xs, softmax(z, axis=1) - y) + 2 * ridge * w
        return value, grad

    w: np.ndarray = minimize(loss, np.zeros(x.shape[-1]), jac=True, method="L-BFGS-B").x / spread
    return w


def fit(samples: Sequence[Sample], ridge: float = RIDGE, columns: int = len(FEATURES)) -> WinModel:
    """Maximum-likelihood coefficients per players and row (:func:`fit_row`) of the first
    ``columns`` features (the others 0: ``len(FORMER_FEATURES)``, format 3's, no line states),
    rounded to integers over :data:`COEF_SCALE`; a row with fewer than 20 samples stays 0 (even
    chances). Deterministic in the samples."""
    out = {}
    for n in sorted({s[0] for s in samples}):
        table = np.zeros((len(ROWS), len(FEATURES)), dtype=np.int64)
        for row, phase in enumerate(ROWS):
            chosen = [s for s in samples if s[0] == n and s[1] == phase]
            if len(chosen) < 20:
                continue
            w = fit_row(np.array([s[2][..., :columns] for s in chosen]), np.array([s[3] for s in chosen]), ridge)
            table[row, :columns] = np.rint(w * COEF_SCALE).astype(np.int64)
        out[n] = table
    return WinModel(out)


def fit_shaped(samples: Sequence[Sample], board: Board, ridge: float = RIDGE,
               points_exponent: Fraction = Fraction(0), sized: Sequence[Sample] | None = None) -> WinModel:
    """:func:`fit` of every feature, on boards of ``board``'s shape (:attr:`WinModel.shape`), with
    :func:`fit` of format 3's features for every other shape (:attr:`WinModel.other_shapes`: the
    line states, D4, read a sheet as one of the shape fitted on; docs/win-chance.md "Off the
    fitted board's shape"). Deterministic in the samples.

    ``points_exponent`` ``e`` (0: the points as they are): the other shapes' model put in the
    points of each board's size (:attr:`WinModel.points_exponent`, :func:`sized_model`), so it
    is fitted to ``sized``, the same positions with every seat's points read over ``board``'s
    :func:`size_factor` at ``e`` (:func:`learned.win_fit.game_positions` at ``e``), as
    :meth:`WinModel.for_board` will read any other board's; where that factor is 1 (the default
    board and its multiples) ``sized`` may be omitted: it is ``samples``.

    Raises:
        ValueError: ``sized`` omitted where ``board``'s factor at ``e`` is not 1, or not of the
            same number of positions as ``samples``.
    """
    if sized is None:
        if size_factor(board, points_exponent) != 1:
            raise ValueError(f"the positions with the points read at the size factor of {board.name} "
                             f"(exponent {points_exponent}) are needed: its factor is not 1")
        sized = samples
    if len(sized) != len(samples):
        raise ValueError(f"expected the same {len(samples)} positions read at the size factor, got {len(sized)}")
    other = replace(fit(sized, ridge, len(FORMER_FEATURES)), points_exponent=points_exponent)
    return replace(fit(samples, ridge), shape=(board.n_shelves, board.n_columns), other_shapes=other)


#: What stands for a record nested deeper than a model file can hold (:func:`bounded_record`).
CUT_RECORD = "(nested deeper than a win-model file is read: not kept)"


def bounded_record(value: Any, levels: int) -> Any:
    """``value`` (a model's :attr:`WinModel.info`, JSON-like) with its containers nested at most
    ``levels`` deep (a dict of numbers is 1 deep), every deeper one replaced by
    :data:`CUT_RECORD`: the record of another file kept inside a model file
    (``played_by_info``, the steps of a chain of ``train --win-model --self-play win
    --play-model``, each nesting the one before; ``fitted``) so that the file written stays
    within the nesting a file is read to (:data:`core.inputs.MAX_NESTING`), the newest levels
    kept. A record within ``levels`` is returned as it is."""
    if not isinstance(value, (dict, list)):
        return value
    if levels <= 0:
        return CUT_RECORD
    if isinstance(value, dict):
        return {k: bounded_record(v, levels - 1) for k, v in value.items()}
    return [bounded_record(v, levels - 1) for v in value]


#: The most bytes of JSON one record of another file takes in a model file (:func:`kept_record`):
#: three of them (``fitted``) and the rest stay below the 1 MiB a file is read to.
MAX_RECORD_BYTES = 1 << 18


def kept_record(value: Any, levels: int) -> Any:
    """``value``, the record of another file, as a model file keeps it: :func:`bounded_record` at
    ``levels``, or where its JSON is longer than :data:`MAX_RECORD_BYTES` a note saying so (a
    play model of a long note of how it was made would otherwise take the file written past the
    1 MiB a file is read to)."""
    bounded = bounded_record(value, levels)
    size = len(json.dumps(bounded).encode("utf-8"))
    if size > MAX_RECORD_BYTES:
        return f"(a record of {size:,} bytes, more than the {MAX_RECORD_BYTES:,} a win-model file keeps: not kept)"
    return bounded


def played_by_record(model: WinModel) -> Any:
    """The record ``played_by_info`` of a model file fitted on the games of ``model``: its info,
    nested at most :data:`core.inputs.MAX_NESTING` - 1 deep below the file's own level and of at
    most :data:`MAX_RECORD_BYTES` (:func:`kept_record`), so the file stays readable however long
    the chain of iterations."""
    from shelfie_solver.core.inputs import MAX_NESTING

    return kept_record(model.info, MAX_NESTING - 1)


def replace_info(model: WinModel, **info: Any) -> WinModel:
    """The model with ``info`` recorded (seed, games, ...)."""
    return replace(model, info={**model.info, **info})


def assemble(parts: dict[int, tuple[WinModel, str]], note: str = "") -> WinModel:
    """One model of the coefficients of ``parts``: players (2-4) -> ``(model, name)``, each
    count's coefficients taken from its model, with that model's record of them
    (:meth:`WinModel.fitted_for`) and ``name`` (``"file"``, where it came from) under
    :data:`FITTED_KEY`; the models' common ``board`` and ``note`` (``"assembled"``) recorded; a
    count's trees (format 5, :attr:`WinModel.trees`) come with its coefficients.
    How data/win.json is made from the fits of docs/win-chance.md ("A file assembled per number
    of players"); deterministic in its inputs.

    Raises:
        ValueError: no parts, a count outside 2-4 or missing from its model, or models fitted
            on different boards.
    """
    if not parts or not set(parts) <= {2, 3, 4}:
        raise ValueError(f"expected coefficients for 2-4 players, got counts {sorted(parts)}")
    missing = next((name for n, (model, name) in parts.items() if n not in model.coefficients), None)
    if missing is not None:
        raise ValueError(f"{missing} has no coefficients for a count asked of it")
    from shelfie_solver.core.inputs import MAX_NESTING

    # each record sits under the file, "fitted" and its count: within the nesting a file is read to
    records = {}
    for n, (model, name) in sorted(parts.items()):
        whole = {**model.fitted_for(n), "file": name}
        kept = kept_record(whole, MAX_NESTING - 2)
        # a record too large to keep still names its board and file (a record is an object)
        records[n] = kept if isinstance(kept, dict) else {"board": whole.get("board"), "file": name, "record": kept}
    boards = {record.get("board") for record in records.values()}
    if len(boards) != 1:
        raise ValueError(f"the parts were fitted on different boards: {sorted(map(str, boards))}")
    info: dict[str, Any] = {"board": boards.pop(), "players": sorted(parts)}
    if note:
        info["assembled"] = note
    info[FITTED_KEY] = {str(n): record for n, record in records.items()}
    trees = {n: model.trees[n] for n, (model, _) in sorted(parts.items()) if n in model.trees}  # format 5: with its count
    return WinModel({n: model.coefficients[n].copy() for n, (model, _) in sorted(parts.items())}, info, trees)


def _rows_text(rows: list[list[int]]) -> str:
    """A table of coefficients as :func:`model_text` writes it: its rows as one JSON list on one
    line (``[[...], [...], [...]]``), the file's own table and the other shapes' alike."""
    return "[" + ", ".join(json.dumps(r) for r in rows) + "]"


def model_text(model: WinModel) -> str:
    """The JSON text of a model file."""
    data = model.to_dict()
    rows = {n: _rows_text(c) for n, c in data.pop("coefficients").items()}
    trees = data.pop(TREES_KEY, None)
    other = data.pop(OTHER_SHAPES_KEY, None)
    head = json.dumps(data, indent=1)[:-2]
    body = ",\n  ".join(f'"{n}": {text}' for n, text in rows.items())
    text = f'{head},\n "coefficients": {{\n  {body}\n }}'
    if other is not None:  # its coefficients' rows one on a line, as the file's own
        tables = other.pop("coefficients")
        record = json.dumps(other, indent=1).replace("\n", "\n ")[:-3]
        body = ",\n   ".join(f'"{n}": {_rows_text(c)}' for n, c in tables.items())
        text += f',\n "{OTHER_SHAPES_KEY}": {record},\n  "coefficients": {{\n   {body}\n  }}\n }}'
    if trees is not None:  # format 5: each list of a block on one line
        blocks = ",\n  ".join(f'"{n}": {{\n   ' + ",\n   ".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in b.items())
                              + "\n  }" for n, b in trees.items())
        text += f',\n "{TREES_KEY}": {{\n  {blocks}\n }}'
    return text + "\n}\n"



