"""A calibrated chance to win (D20) before the game's last turns: a logistic model of self-play
outcomes over the ``learned`` values, the objective ``win`` (docs/train.md, "The chance to win").

After a player's turn, the ``learned`` objective of that turn (:mod:`learned.objective`) gives the
player's expected final score ``P_me``, each opponent's ``P_j`` (after the player's blocking, D15)
and the phase: the player's game over (0), near the end (2) or far from it (3). The model is

    z = b0 + b1 r + (b2 + b3 r) g + (b4 + b5 r) h,     chance = 1 / (1 + exp(-z))

with ``g = P_me - max_j P_j`` and ``h = P_me - mean_j P_j`` in points and ``r`` the round, one
coefficient row per number of players (2-4) and phase. Coefficients are integers over
:data:`COEF_SCALE`; the chance of a position is the integer ``round(CHANCE_SCALE * sigma(z))``
(float64 ``exp``, whose error, below 1e-15, can move that integer only at an exact rounding tie),
so the engine's expectations over the dice are exact integers under the model. Fitted by
maximum likelihood (``scipy.optimize``, the share of victory as a soft target, D20) on positions
from seeded self-play of the ``learned`` strategy (:func:`fit`; :mod:`learned.win_fit`).

On the turns where :mod:`win_chance` is exact, advice uses that instead
(:func:`objective_names.advice_objective`). Fitting: :mod:`learned.win_fit`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from shelfie_solver.core.errors import ShelfieError, shorten
from shelfie_solver.dice.board import ItemSets, Marks
from shelfie_solver.core.files import json_kind
from shelfie_solver.dice.game.events import GameState
from shelfie_solver.dice.learned.model_file import LearnedModel, WEIGHT_SCALE, default_model
from shelfie_solver.dice.learned.objective import Learned, state_objective
from shelfie_solver.dice.learned.win_kernel import logit_floats
from shelfie_solver.dice.objectives import StateArrays
from shelfie_solver.dice.rules import Ruleset
from shelfie_solver.dice.sheet_rules import failed_result_shelves, markings_end_game, triggers_end

#: The numbers of players for which the objective ``win`` plays by the model (with others it would
#: play ``learned`` outside the exact turns). Every count: against ``learned`` seats the model's
#: advice reaches the fair share pooled over 2000 games each (2, 3, 4 players; one 600-game
#: 3-player run alone did not, 28.0% [24.5, 31.7]: benchmarks/tournament_win.py, docs/train.md).
#: ``win-model`` plays by the model always.
MODEL_PLAYERS = (2, 3, 4)
#: A sure win, in the model's units.
CHANCE_SCALE = 1_000_000
#: Coefficients are integers over this scale.
COEF_SCALE = 1_000_000
#: Coefficient rows: the player's game over after the turn (phase 0), near the end (2), far (3).
ROWS = (0, 2, 3)
FEATURES = ("constant", "round", "gap to the best", "gap to the best x round", "gap to the mean",
            "gap to the mean x round")
#: The ``format`` key of a model file.
WIN_FORMAT = "shelfie-solve win 1"
#: A win-model file, as recognised before it is replaced (:func:`files.check_overwrite`).
WIN_KIND = json_kind("a win-model file", WIN_FORMAT)
#: Ridge penalty (per coefficient, on the log loss summed over positions).
RIDGE = 1.0
DEFAULT_WIN_PATH = Path(__file__).parent.parent / "data" / "win.json"


class WinModelError(ShelfieError):
    """A win-model file that is missing, malformed or of the wrong shape."""


@dataclass(frozen=True, eq=False)
class WinModel:
    """Coefficients: players (2-4) -> ``int64 (3, 6)`` (rows :data:`ROWS`, columns
    :data:`FEATURES`) over :data:`COEF_SCALE`; ``info`` how they were made."""

    coefficients: dict[int, np.ndarray]
    info: dict[str, Any] = field(default_factory=dict)

    def for_players(self, players: int) -> np.ndarray:
        """``(3, 6)`` for ``players`` seats (the nearest count fitted)."""
        best = min(self.coefficients, key=lambda n: (abs(n - players), n))
        return self.coefficients[best]

    def to_dict(self) -> dict[str, Any]:
        return {"format": WIN_FORMAT, "coef_scale": COEF_SCALE, "chance_scale": CHANCE_SCALE,
                "rows": list(ROWS), "features": list(FEATURES),
                "coefficients": {str(n): c.tolist() for n, c in sorted(self.coefficients.items())}, **self.info}


def model_from_dict(data: Any, source: str) -> WinModel:
    """A :class:`WinModel` from its JSON form.

    Raises:
        WinModelError: not a win-model file of this version and shape.
    """
    try:
        if data["format"] != WIN_FORMAT or data["coef_scale"] != COEF_SCALE:
            raise ValueError("format")
        coefficients = {}
        for players, raw in data["coefficients"].items():
            if not all(type(c) is int for row in raw for c in row):
                raise ValueError("not whole numbers")
            table = np.array(raw, dtype=np.int64)
            if table.shape != (len(ROWS), len(FEATURES)) or int(players) not in range(2, 5):
                raise ValueError("shape")
            coefficients[int(players)] = table
    except (KeyError, ValueError, TypeError, AttributeError, OverflowError):
        raise WinModelError(f"{shorten(source)}: not a win-model file ({WIN_FORMAT!r}: coefficients for 2-4 "
                            f"players, {len(ROWS)} rows of {len(FEATURES)} whole numbers)") from None
    if not coefficients:
        raise WinModelError(f"{shorten(source)}: no coefficients")
    info = {k: v for k, v in data.items()
            if k not in ("format", "coef_scale", "chance_scale", "rows", "features", "coefficients")}
    return WinModel(coefficients, info)


def load_win_model(path: str | Path) -> WinModel:
    """Read a model file (at most 1 MiB, :func:`inputs.read_json`)."""
    from shelfie_solver.core.inputs import read_json

    data = read_json(path, WinModelError, 1 << 20, "a win-model file written by shelfie-solve train --win-model")
    return model_from_dict(data, str(path))


@cache
def default_win_model() -> WinModel:
    """The shipped model (data/win.json)."""
    return load_win_model(DEFAULT_WIN_PATH)


def design(phase: np.ndarray, own: np.ndarray, others: np.ndarray, leader: np.ndarray, opponents: int,
           round_number: int) -> np.ndarray:
    """``int64 (K, 6)``: :data:`FEATURES` over :data:`WEIGHT_SCALE` (the gaps) or whole (constant,
    round) — each column as the integer that multiplies its coefficient; see :func:`logits`."""
    k = len(own)
    g = own - leader
    h = (own * opponents - others) // max(opponents, 1)  # floor: integer arithmetic throughout
    r = np.full(k, round_number, dtype=np.int64)
    return np.stack([np.full(k, WEIGHT_SCALE, dtype=np.int64), r * WEIGHT_SCALE, g, g * r, h, h * r], axis=1)


def rows_of(phase: np.ndarray) -> np.ndarray:
    """Row index into :data:`ROWS` of each phase (0, 2, 3)."""
    return np.where(phase == 0, 0, np.where(phase == 2, 1, 2))


def chances(coefficients: np.ndarray, phase: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``int64 (K,)``: the chance to win over :data:`CHANCE_SCALE` of positions with features
    ``x`` (:func:`design`) in ``phase``."""
    c = coefficients[rows_of(phase)]  # (K, 6)
    # the exact integer z * COEF_SCALE * WEIGHT_SCALE, then one float conversion (win_kernel)
    z = logit_floats(c, x) / (COEF_SCALE * WEIGHT_SCALE)
    out: np.ndarray = np.rint(CHANCE_SCALE / (1.0 + np.exp(-np.clip(z, -60, 60)))).astype(np.int64)
    return out


@dataclass(frozen=True, eq=False)
class WinObjective(Learned):
    """The objective ``win``: the model's chance to win after the turn (module docstring), an
    absolute value (not a change) over :data:`CHANCE_SCALE`; ``calibration`` ``(3, 6)``."""

    calibration: np.ndarray = field(default_factory=lambda: np.zeros((len(ROWS), len(FEATURES)), dtype=np.int64))
    round_number: int = 1
    end_exact: Any = None
    sheets: tuple[Marks, ...] = ()
    seat: int = 0
    win_chance_exact: ClassVar[bool] = False

    def scale(self, rules: Ruleset) -> int:
        return CHANCE_SCALE

    def chance_of(self, state: StateArrays, m: np.ndarray, a: np.ndarray, mp: np.ndarray,
                  ap: np.ndarray) -> np.ndarray:
        """``int64 (K,)``: the chance after the turn of ``K`` sheets (line totals ``(K, L)``)."""
        phase, own, others, leader = self.table_values(state, m, a, mp, ap)
        x = design(phase, own, others, leader, self.opponents, self.round_number)
        return chances(self.calibration, phase, x)

    def ending_markings(self, state: StateArrays, sets: ItemSets) -> np.ndarray:
        """``bool (K,)``: the markings of ``sets`` after which the game ends at once or in this
        round (D17 on any sheet, after the blocks of D15: :func:`sheet_rules.markings_end_game`)
        and whose chance :attr:`end_exact` gives exactly; all False where it gives none."""
        if self.end_exact is None:
            return np.zeros(len(sets.sizes), dtype=bool)
        sheets = self.sheets or (state.marks,)
        sheets = sheets[:self.seat] + (state.marks,) + sheets[self.seat + 1:]
        return markings_end_game(state.board, state.rules, sheets, self.seat, sets)

    def exact_markings(self, state: StateArrays, sets: ItemSets) -> np.ndarray:
        """``bool (K,)``: the markings of ``sets`` whose value is the exact chance to win
        (:meth:`ending_markings`), the others the model's estimate."""
        return self.ending_markings(state, sets)

    def _ending_shelves(self, state: StateArrays, shelves: list[int]) -> np.ndarray:
        """``bool (S,)``: giving up each of ``shelves`` (D13) triggers the end (D17; nothing is
        marked, so nothing is blocked and only the player's sheet changes)."""
        lost = failed_result_shelves(state.board, state.marks)
        return np.array([triggers_end(state.board, state.marks.with_eliminated(lost[s]), state.rules)
                         for s in shelves], dtype=bool)

    def _exact_share(self, worth: np.ndarray, state: StateArrays) -> np.ndarray:
        """Exact chances over the exact objective's scale, rounded (half up) to :data:`CHANCE_SCALE`."""
        scale = self.end_exact.scale(state.rules)
        out: np.ndarray = (worth.astype(object) * CHANCE_SCALE * 2 + scale) // (2 * scale)
        return out.astype(np.int64)

    def values(self, state: StateArrays, sets: ItemSets) -> np.ndarray:
        m, a, mp, ap = state.line_totals
        count, points = sets.line_count, sets.line_points
        out = self.chance_of(state, m + count, a - count, mp + points, ap - points)
        if self.end_exact is not None:  # a marking that ends the game: the exact chance (win_chance)
            ending = np.flatnonzero(self.ending_markings(state, sets))
            if len(ending):
                out = out.copy()
                out[ending] = self._exact_share(self.end_exact.values(state, sets.take(ending)), state)
        return out

    def shelf_values(self, state: StateArrays) -> list[tuple[int, int]]:
        """For a failed result (D13): ``(shelf, chance)`` per shelf with an available item, best
        first (ties keep shelf order)."""
        board = state.board
        m, a, mp, ap = state.line_totals
        give_up = failed_result_shelves(board, state.marks)
        if not give_up:
            return []
        shelves = list(give_up)
        lost = np.zeros((len(shelves), board.n_cells), dtype=np.int64)
        for row, shelf in enumerate(shelves):
            lost[row, list(give_up[shelf])] = 1
        lost_count = lost @ board.line_matrix
        lost_points = (lost * board.value_array) @ board.line_matrix
        rows = len(shelves)
        after = self.chance_of(state, np.broadcast_to(m, (rows, len(m))), a - lost_count,
                               np.broadcast_to(mp, (rows, len(m))), ap - lost_points)
        if self.end_exact is not None:  # giving up a shelf that ends the game (D13, D17): exact
            ending = self._ending_shelves(state, shelves)
            if ending.any():
                exact_value = self._exact_share(np.array([self.end_exact.failed_value(state)]), state)[0]
                after = np.where(ending, exact_value, after)
        return sorted(((s, int(v)) for s, v in zip(shelves, after)), key=lambda item: -item[1])

    def failed_value(self, state: StateArrays) -> int:
        return max((value for _, value in self.shelf_values(state)), default=0)


def win_objective(state: GameState, model: WinModel | None = None, learned: LearnedModel | None = None,
                  name: str = "win") -> WinObjective:
    """The objective ``win`` of the active player in ``state`` (a game of 2-4 players)."""
    base = state_objective(state, learned or default_model())
    model = model or default_win_model()
    fields = {f: getattr(base, f) for f in base.__dataclass_fields__}
    fields["name"] = name
    return WinObjective(**fields, calibration=model.for_players(state.players), round_number=state.round,
                        end_exact=ending_objective(state), sheets=state.sheets, seat=state.active)


def ending_objective(state: GameState) -> Any:
    """The exact chance to win after a turn of the active player that triggers the end (D17),
    where it is known (:mod:`win_chance`): the last player of the round ends the game at once
    (D18), so every score is final; with two players and the opponent still to play this round,
    their last turn follows. ``None`` otherwise, or when the end is triggered already."""
    from shelfie_solver.dice.board import score
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


def float_chances(coefficients: np.ndarray, phase: np.ndarray, x: np.ndarray) -> np.ndarray:
    """:func:`chances` as floats in [0, 1] (for fitting and measuring)."""
    return chances(coefficients, phase, x) / CHANCE_SCALE


def fit(samples: Sequence[tuple[int, int, np.ndarray, float]], ridge: float = RIDGE) -> WinModel:
    """Maximum-likelihood coefficients per players and row (module docstring), rounded to
    integers over :data:`COEF_SCALE`. Deterministic in the samples (L-BFGS from 0)."""
    from scipy.optimize import minimize

    out = {}
    for n in sorted({s[0] for s in samples}):
        table = np.zeros((len(ROWS), len(FEATURES)), dtype=np.int64)
        for row, phase in enumerate(ROWS):
            chosen = [s for s in samples if s[0] == n and s[1] == phase]
            if len(chosen) < 20:
                continue
            x = np.array([s[2] for s in chosen], dtype=np.float64) / WEIGHT_SCALE
            y = np.array([s[3] for s in chosen])
            spread = np.maximum(np.abs(x).max(axis=0), 1e-9)
            xs = x / spread

            def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
                z = xs @ w
                # log(1 + e^z) - y z, stably
                value = float(np.sum(np.logaddexp(0, z) - y * z) + ridge * np.sum(w[1:] ** 2))
                grad = xs.T @ (1 / (1 + np.exp(-z)) - y) + 2 * ridge * np.concatenate([[0], w[1:]])
                return value, grad

            w = minimize(loss, np.zeros(len(FEATURES)), jac=True, method="L-BFGS-B").x / spread
            table[row] = np.rint(w * COEF_SCALE).astype(np.int64)
        out[n] = table
    return WinModel(out)


def replace_info(model: WinModel, **info: Any) -> WinModel:
    """The model with ``info`` recorded (seed, games, ...)."""
    return replace(model, info={**model.info, **info})


def model_text(model: WinModel) -> str:
    """The JSON text of a model file."""
    data = model.to_dict()
    rows = {n: "[" + ", ".join(json.dumps(r) for r in c) + "]" for n, c in data.pop("coefficients").items()}
    head = json.dumps(data, indent=1)[:-2]
    body = ",\n  ".join(f'"{n}": {text}' for n, text in rows.items())
    return f'{head},\n "coefficients": {{\n  {body}\n }}\n}}\n'



