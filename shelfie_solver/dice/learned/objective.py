"""The ``learned`` objective: a game-aware value function fitted by self-play (docs/train.md).

A position's value for player ``i`` is their score now plus the points they are still expected
to add, ``P_i = score_i + F_i`` (D19). ``F`` is linear in integer features of the sheet and the
game context, with one weight vector per number of players (1-4) and per *phase* (in solitaire
also one per board shape, :attr:`LearnedModel.shapes`, docs/train.md "Tables per board shape"):

* phase 0 — the player has no turn left (the end is triggered, D17, and their last turn of the
  round is played, D18): ``F = 0`` exactly;
* phase 1 — the end is triggered and the player still plays once this round;
* phase 2 — not triggered, but some sheet is one closed shelf short of the trigger ("near");
* phase 3 — not triggered and every sheet at least two closed shelves short ("far").

Features (all integers; ``t`` the threshold, D19; per line ``m`` marks, ``a`` available items,
``M`` marked points, ``A`` available points). Lines are grouped by *kind*: kind 0 every shelf,
kind ``n`` (1-6) every column needing ``n`` dice (D3). Per kind, summed over its lines:

* scoring lines (``m >= t``): ``A``, ``a``;
* live lines (``m < t <= m + a``) needing ``j = min(t - m, 3)`` more marks, for j = 1, 2, 3:
  ``M``, ``A``, ``1``, ``a``; dead lines give nothing.

Then four global features: ``A`` and ``M`` of the player's scoring or live lines that an
opponent threatens to complete (D15: the opponent has at least ``len - 2`` items of the line
marked and none eliminated), a constant 1, and 1 if the player's own sheet is one closed shelf
short of the trigger. 7 x 14 + 4 = 102 features, :data:`FEATURE_NAMES`.

The objective. The active player's marking is worth ``V(after) - V(before)``. A marking that
closes the trigger's number of shelves ends the player's game (phase 0) and moves every
opponent to phase 1 (still to play this round) or 0; otherwise every player is in phase 2 or 3
according to the sheets after the marking. A marking that completes a line of the player's sheet
eliminates the opponents' available items on it (D15, :func:`block_values`), which lowers their
``P``. With opponents, ``V`` is a **win-chance shape** of the gap ``g = P_me - max_j P_j`` to the
best opponent: ``V = g / (s + |g|)`` (in ``(-1, 1)``, times :data:`WIN_SCALE`), where the spread
``s`` (:data:`WIN_SIGMA`) depends on how much play is left: 0 when every score is final after the
marking (then ``V`` is exactly win +1, tie 0, loss -1, D18, D20), about one turn's spread when the
player's game is over but an opponent still plays, more near the end and far from it. So the
player takes risks when behind and plays safe when ahead, like a player maximising the chance to
win rather than the expected score. With ``WIN_SIGMA = ()`` it is the expected final score
difference ``P_me - mean over opponents of P_j``. A failed result (D13) is worth the best shelf to
give up under the same ``V``. Solitaire: no opponents, ``V = P_me``.

Exactness. Weights are integers over :data:`WEIGHT_SCALE` (per point); ``V`` is rounded once
(half up, integer arithmetic) to units of ``1 / VALUE_SCALE`` point, so the per-turn DP
(:mod:`engine.dp`) works on integers; the win-chance shape is integer arithmetic too (floor
division). Left out: an end trigger caused by blocking (D17 on the opponent's sheet).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cache, lru_cache
from typing import Any

import numpy as np

from shelfie_solver.dice.board import Board, ItemSets, Marks
from shelfie_solver.dice.game.events import GameState, place_in_round
from shelfie_solver.dice.learned.model_file import (KINDS, LINE_FEATURES, N_FEATURES, PHASES,
                                                    WEIGHT_SCALE, LearnedModel, default_model, model_named)
from shelfie_solver.dice.objectives import StateArrays
from shelfie_solver.dice.rules import Ruleset
from shelfie_solver.dice.sheet_rules import block, end_trigger_shelves, failed_result_shelves

#: The objective's values are integers over this scale (points).
VALUE_SCALE = 16
#: Whether the objective values blocking an opponent (D15) by completing a line (:func:`block_values`).
BLOCKING = True
#: Win-chance shape with opponents (module docstring): the spread (points) of the final gap to the
#: best opponent when the player's game is over but an opponent still plays (phase 0), near the
#: end (phase 2) and far from it (phase 3); () = the plain expected score difference.
WIN_SIGMA: tuple[int, ...] = (10, 20, 30)
#: With the win-chance shape, values are in units of ``1 / (WIN_SCALE * VALUE_SCALE)`` of a win.
WIN_SCALE = 1000
#: More than any sheet's distance to the trigger (no opponents).
FAR = 1 << 20


# --- features -------------------------------------------------------------------------------


@cache
def line_kinds(board: Board) -> np.ndarray:
    """``int64 (L,)``: each line's kind (0 shelf, n column needing n dice, clipped to 1..6)."""
    columns = np.clip(np.array(board.columns, dtype=np.int64), 1, KINDS - 1)
    return np.concatenate([np.zeros(board.n_shelves, dtype=np.int64), columns])


def line_features(m: np.ndarray, a: np.ndarray, mp: np.ndarray, ap: np.ndarray, t: int) -> np.ndarray:
    """``int64 (..., L, 14)``: :data:`LINE_FEATURES` of each line; arguments ``(..., L)``."""
    scoring = m >= t
    live = (m < t) & (m + a >= t)
    need = np.clip(t - m, 1, 3)
    columns = [scoring * ap, scoring * a]
    for j in (1, 2, 3):
        on = live & (need == j)
        columns += [on * mp, on * ap, on.astype(np.int64), on * a]
    return np.stack(columns, axis=-1).astype(np.int64)


def global_features(m: np.ndarray, a: np.ndarray, mp: np.ndarray, ap: np.ndarray, t: int,
                    threat: np.ndarray, own_near: np.ndarray, context: np.ndarray) -> np.ndarray:
    """``int64 (..., 7)``: :data:`GLOBAL_FEATURES`; ``threat`` bool ``(L,)``, ``own_near`` ``(...)``,
    ``context`` ``(3,)`` from :func:`table_context`."""
    open_line = (m + a >= t) & threat
    live = open_line & (m < t)
    ones = np.ones(m.shape[:-1], dtype=np.int64)
    return np.stack([(open_line * ap).sum(axis=-1), (live * mp).sum(axis=-1), ones,
                     np.asarray(own_near, dtype=np.int64) * ones]
                    + [int(c) * ones for c in context], axis=-1).astype(np.int64)


def prior_weights(t: int) -> np.ndarray:
    """``float (N_FEATURES,)``: the strategic line potential minus the score (docs/objectives.md)
    in this feature space — scoring lines ``A/2``, live lines ``(m/t)(M + A/2)`` with
    ``m = t - need`` — and 0 for the global features. The fit starts from it and shrinks toward
    it (:mod:`train`)."""
    w = np.zeros(N_FEATURES)
    for k in range(KINDS):
        base = k * len(LINE_FEATURES)
        w[base] = 0.5
        for j in (1, 2, 3):
            share = max(t - j, 0) / t
            w[base + 2 + 4 * (j - 1)] = share
            w[base + 3 + 4 * (j - 1)] = share / 2
    return w


def table_context(sheets: tuple[Marks, ...], seat: int, turn: int) -> np.ndarray:
    """``int64 (3,)``: the round of turn ``turn`` (0-based turns, 1-based round), and the items
    marked and still available on ``seat``'s opponents' sheets — the game's clock, so that the
    fit does not credit a player's own marks with the time they take."""
    others = [m for j, m in enumerate(sheets) if j != seat]
    return np.array([turn // len(sheets) + 1, sum(m.marked.bit_count() for m in others),
                     sum(m.n_cells - (m.marked | m.eliminated).bit_count() for m in others)], dtype=np.int64)


def feature_vector(board: Board, rules: Ruleset, marks: Marks, threat: np.ndarray, own_near: bool,
                   context: np.ndarray) -> np.ndarray:
    """``int64 (N_FEATURES,)``: the features of one sheet (line features summed per kind)."""
    m, a, mp, ap = StateArrays(board, rules, marks).line_totals
    lines = line_features(m, a, mp, ap, rules.scoring_threshold)
    per_kind = np.zeros((KINDS, len(LINE_FEATURES)), dtype=np.int64)
    np.add.at(per_kind, line_kinds(board), lines)
    glob = global_features(m, a, mp, ap, rules.scoring_threshold, threat, np.array(own_near), context)
    return np.concatenate([per_kind.ravel(), glob])


@lru_cache(maxsize=1 << 12)
def threats(board: Board, rules: Ruleset, sheets: tuple[Marks, ...], seat: int) -> np.ndarray:
    """``bool (L,)``: lines of ``seat`` that an opponent threatens to complete (D15: at least
    ``len - 2`` of the line's items marked on the opponent's sheet and none eliminated); kept for
    the tables seen most recently (a read-only array)."""
    out = np.zeros(len(board.lines), dtype=bool)
    sizes = line_sizes(board)
    for other, marks in enumerate(sheets):
        if other == seat:
            continue
        m, a, _, _ = sheet_totals(board, rules, marks)
        out |= (m + a == sizes) & (m >= sizes - 2) & (m < sizes)
    out.flags.writeable = False  # kept by the cache
    return out


@lru_cache(maxsize=1 << 14)
def sheet_totals(board: Board, rules: Ruleset, marks: Marks) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:attr:`StateArrays.line_totals` of a sheet, kept for the sheets seen most recently (a
    turn's objective reads every seat's sheet several times); read-only arrays."""
    totals = StateArrays(board, rules, marks).line_totals
    for x in totals:
        x.flags.writeable = False
    return totals


@lru_cache(maxsize=64)
def _coefficients(weights: bytes, board: Board) -> np.ndarray:
    """``int64 (3, 4, L, 5)``: per phase row, the coefficient of ``M``, ``A``, ``1`` and ``a`` of
    each line in each status (live needing 1, 2, 3 marks, scoring, dead) — the line weights of
    :data:`LINE_FEATURES` rearranged so :func:`future_values` needs no feature matrix."""
    table = np.frombuffer(weights, dtype=np.int64).reshape(len(PHASES), N_FEATURES)
    kinds = line_kinds(board)
    out = np.zeros((len(PHASES), 4, len(kinds), 5), dtype=np.int64)
    for row in range(len(PHASES)):
        w = table[row, : KINDS * len(LINE_FEATURES)].reshape(KINDS, -1)[kinds]  # (L, 14)
        out[row, 1, :, 3], out[row, 3, :, 3] = w[:, 0], w[:, 1]
        for j in (1, 2, 3):
            base = 2 + 4 * (j - 1)
            for q in range(4):
                out[row, q, :, j - 1] = w[:, base + q]
    return out


def future_values(weights: np.ndarray, board: Board, t: int, m: np.ndarray, a: np.ndarray, mp: np.ndarray,
                  ap: np.ndarray, threat: np.ndarray, own_near: np.ndarray, phase: np.ndarray,
                  context: np.ndarray) -> np.ndarray:
    """``int64 (...)``: ``F`` over :data:`WEIGHT_SCALE` for sheets given by their line totals
    ``(..., L)`` in ``phase`` ``(...)`` (0-3; phase 0 is 0). Equal to the weights times
    :func:`feature_vector`, computed without building the features."""
    scoring = m >= t
    live = ~scoring & (m + a >= t)
    status = np.where(scoring, 3, np.where(live, np.clip(t - m, 1, 3) - 1, 4))
    open_threat = (scoring | live) & threat
    threatened_a = (open_threat * ap).sum(axis=-1)
    threatened_m = (open_threat & live).astype(np.int64) * mp
    coefficients = _coefficients(np.ascontiguousarray(weights, dtype=np.int64).tobytes(), board)
    lines = np.arange(m.shape[-1])
    phase = np.broadcast_to(phase, m.shape[:-1])
    out = np.zeros(m.shape[:-1], dtype=np.int64)
    for row, p in enumerate(PHASES):
        chosen = phase == p
        if not np.any(chosen):
            continue
        c = coefficients[row][:, lines, status]  # (4, ..., L)
        g = weights[row, KINDS * len(LINE_FEATURES):]
        value = (c[0] * mp + c[1] * ap + c[2] + c[3] * a).sum(axis=-1) + g[0] * threatened_a \
            + g[1] * threatened_m.sum(axis=-1) + g[2] + g[3] * np.asarray(own_near, dtype=np.int64) \
            + int(g[4:] @ np.asarray(context, dtype=np.int64))
        out = np.where(chosen, value, out)
    return out


def scores(m: np.ndarray, mp: np.ndarray, t: int) -> np.ndarray:
    """``int64 (...)``: the score (D19) of sheets given by their line totals ``(..., L)``."""
    total: np.ndarray = np.where(m >= t, mp, 0).sum(axis=-1).astype(np.int64)
    return total


# --- the objective ------------------------------------------------------------------------


def phase_rows(phase: np.ndarray) -> np.ndarray:
    """``int64 (K,)``: the row of each phase (0 -> 0, 2 -> 1, 3 -> 2) in the tables with one row
    per phase: the cases of :attr:`Learned.opponent_sums`, the win model's rows
    (:data:`win_model.ROWS`)."""
    rows: np.ndarray = np.where(phase == 0, 0, np.where(phase == 2, 1, 2))
    return rows


@dataclass(frozen=True, eq=False)
class Learned:
    """The ``learned`` objective for the active player in one game context (module docstring).

    Attributes:
        weights: ``(3, N_FEATURES)`` for this number of players.
        threat: ``bool (L,)`` the active player's lines threatened by an opponent (D15).
        triggered: the end is already triggered (D17): this is the player's last turn.
        opponent_distance: least ``trigger - closed shelves`` over the opponents (:data:`FAR`
            with none).
        opponents: number of opponents (0 = solitaire).
        opponent_sums: ``sum of P_j`` over opponents (over :data:`WEIGHT_SCALE`) if this turn
            ends the player's game (phase 1 for those still to play this round, else 0), if the
            game goes on near the end (phase 2), and far from it (phase 3).
        context: ``int64 (3,)`` :func:`table_context` of the active player (default: round 1,
            no opponents).
        opponent_values: ``int64 (J, 3)`` or None: each opponent's ``P`` in the three cases of
            ``opponent_sums`` (whose rows are its sums); needed by the win-chance shape and blocking.
        block: ``int64 (J, 3, L)`` or None: the change of each opponent's ``P`` (rows as
            ``opponent_sums``) when this turn completes line ``l`` of the player's sheet, so the
            opponent loses their available items on it (D15; :func:`block_values`). Several lines
            completed at once add up.
        end_open: some opponent still plays this round if this turn ends the player's game.
    """

    weights: np.ndarray
    threat: np.ndarray
    triggered: bool = False
    opponent_distance: int = FAR
    opponents: int = 0
    opponent_sums: tuple[int, int, int] = (0, 0, 0)
    context: np.ndarray = field(default_factory=lambda: np.array([1, 0, 0], dtype=np.int64))
    name: str = "learned"
    opponent_values: np.ndarray | None = None
    block: np.ndarray | None = None
    end_open: bool = True

    def scale(self, rules: Ruleset) -> int:
        return VALUE_SCALE

    def table_values(self, state: StateArrays, m: np.ndarray, a: np.ndarray, mp: np.ndarray,
                     ap: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """For ``K`` sheets of the active player after this turn, given by their line totals
        ``(K, L)``: ``(phase, own P, sum of the opponents' P, the best opponent's P)``, each
        ``int64 (K,)``, the ``P`` over :data:`WEIGHT_SCALE` (module docstring; the opponents'
        after the player's blocking, D15); phase 0 when the turn ends the player's game, else 2
        (near the end) or 3 (far)."""
        phase, own = self.own_values(state, m, a, mp, ap)
        if self.opponent_values is None:
            others = np.array(self.opponent_sums, dtype=np.int64)[phase_rows(phase)]
            return phase, own, others, others
        each = self.opponent_after(state, m, phase)
        return phase, own, each.sum(axis=1), each.max(axis=1)

    def own_values(self, state: StateArrays, m: np.ndarray, a: np.ndarray, mp: np.ndarray,
                   ap: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(phase, own P)`` of :meth:`table_values`, each ``int64 (K,)``."""
        board, rules = state.board, state.rules
        t = rules.scoring_threshold
        own_distance = end_trigger_shelves(board, rules) - (a[:, : board.n_shelves] == 0).sum(axis=1)
        distance = np.minimum(own_distance, self.opponent_distance)
        ends = self.game_over(own_distance)
        phase = np.where(ends, 0, np.where(distance == 1, 2, 3))
        own = WEIGHT_SCALE * scores(m, mp, t) + future_values(self.weights, board, t, m, a, mp, ap, self.threat,
                                                              own_distance == 1, phase, self.context)
        return phase, own

    def game_over(self, own_distance: np.ndarray) -> np.ndarray:
        """``bool (K,)``: whether the player's game is over after each of ``K`` turns (phase 0)
        whose sheets are ``own_distance (K,)`` closed shelves short of the end trigger: the end
        was triggered before this turn (its last, D18) or the turn triggers it (D17)."""
        out: np.ndarray = np.full(len(own_distance), self.triggered) | (own_distance <= 0)
        return out

    def opponent_after(self, state: StateArrays, m: np.ndarray, phase: np.ndarray) -> np.ndarray:
        """``int64 (K, J)``: each opponent's ``P`` (seat order, over :data:`WEIGHT_SCALE`) after
        ``K`` turns of the active player whose sheets have marks per line ``m (K, L)`` and that
        put the game in ``phase (K,)``: :attr:`opponent_values` in that phase's case, after the
        blocks of the lines each turn completes (D15, :attr:`block`). Needs
        :attr:`opponent_values`."""
        assert self.opponent_values is not None
        row = phase_rows(phase)  # (K,) case of opponent_sums
        each: np.ndarray = self.opponent_values[:, row].T  # (K, J)
        if self.block is not None:
            sizes = state.board.line_matrix.sum(axis=0)
            completed = ((m == sizes) & (state.line_totals[0] < sizes)).astype(np.int64)  # (K, L)
            change = np.einsum("kl,jrl->kjr", completed, self.block)  # (K, J, 3)
            each = each + np.take_along_axis(change, row[:, None, None], axis=2)[:, :, 0]
        return each

    def positions(self, state: StateArrays, m: np.ndarray, a: np.ndarray, mp: np.ndarray,
                  ap: np.ndarray) -> np.ndarray:
        """``int64 (K,)``: ``V`` over :data:`VALUE_SCALE` of ``K`` sheets after this turn, given
        by their line totals ``(K, L)``: points, or with opponents and :data:`WIN_SIGMA` the
        win-chance shape times :data:`WIN_SCALE` (module docstring)."""
        phase, own, others, leader = self.table_values(state, m, a, mp, ap)
        n = max(self.opponents, 1)
        if WIN_SIGMA and self.opponents:
            # win-chance shape of the gap to the best opponent (module docstring), over WEIGHT_SCALE
            gap = own - leader
            spread = np.where(phase == 0, WIN_SIGMA[0] if self.end_open else 0,
                              np.where(phase == 2, WIN_SIGMA[1], WIN_SIGMA[2])) * WEIGHT_SCALE
            win: np.ndarray = (WIN_SCALE * VALUE_SCALE * gap) // (spread + np.abs(gap) + 1)
            return win
        numerator = (own * n - others) * VALUE_SCALE
        denominator = WEIGHT_SCALE * n
        rounded: np.ndarray = (numerator + denominator // 2) // denominator
        return rounded

    def before(self, state: StateArrays) -> int:
        """``V`` of the sheet as it is (over :data:`VALUE_SCALE`)."""
        m, a, mp, ap = state.line_totals
        return int(self.positions(state, m[None], a[None], mp[None], ap[None])[0])

    def values(self, state: StateArrays, sets: ItemSets) -> np.ndarray:
        m, a, mp, ap = state.line_totals
        count, points = sets.line_count, sets.line_points
        after = self.positions(state, m + count, a - count, mp + points, ap - points)
        return after - self.before(state)

    def shelf_values(self, state: StateArrays) -> list[tuple[int, int]]:
        """For a failed result (D13): ``(shelf, V change)`` for each shelf with an available
        item, best first (ties keep shelf order)."""
        board = state.board
        m, a, mp, ap = state.line_totals
        give_up = failed_result_shelves(board, state.marks)
        lost = np.zeros((board.n_shelves, board.n_cells), dtype=np.int64)  # lost[s, c]: shelf s gives up cell c
        for shelf, cells in give_up.items():
            lost[shelf, list(cells)] = 1
        lost_count = lost @ board.line_matrix
        lost_points = (lost * board.value_array) @ board.line_matrix
        rows = len(lost)
        after = self.positions(state, np.broadcast_to(m, (rows, len(m))), a - lost_count,
                               np.broadcast_to(mp, (rows, len(m))), ap - lost_points)
        change = after - self.before(state)
        options = [(s, int(change[s])) for s in give_up]
        return sorted(options, key=lambda item: -item[1])

    def failed_value(self, state: StateArrays) -> int:
        return max((value for _, value in self.shelf_values(state)), default=0)

    def kernel_inputs(self, state: StateArrays) -> tuple[Any, ...]:
        """The arguments of the compiled kernels (:func:`learned.kernel._learned_worth` from
        ``m`` to ``win_scale``, with the item values after ``n_shelves``, as
        :func:`learned.kernel._learned_turn` takes them) for the sheet ``state``."""
        board, rules = state.board, state.rules
        m, a, mp, ap = state.line_totals
        arrays = kernel_arrays(self, board)
        return (m, a, mp, ap, line_sizes(board), rules.scoring_threshold, end_trigger_shelves(board, rules),
                board.n_shelves, board.value_array, arrays[0], arrays[1], arrays[2], self.threat, self.triggered,
                self.opponent_distance, self.opponents, arrays[3], arrays[4], arrays[5], self.end_open, arrays[6],
                WEIGHT_SCALE, VALUE_SCALE, WIN_SCALE)

    def seat_inputs(self, state: StateArrays) -> tuple[Any, ...]:
        """The arguments of :func:`learned.kernel._learned_seats` from ``m`` to ``weight_scale``
        (as :meth:`kernel_inputs` for :func:`learned.kernel._learned_worth`) for the sheet ``state``."""
        board, rules = state.board, state.rules
        m, a, mp, ap = state.line_totals
        arrays = kernel_arrays(self, board)
        return (m, a, mp, ap, line_sizes(board), rules.scoring_threshold, end_trigger_shelves(board, rules),
                board.n_shelves, arrays[0], arrays[1], arrays[2], self.threat, self.triggered,
                self.opponent_distance, arrays[4], arrays[5], WEIGHT_SCALE)

    def compiled_positions(self, state: StateArrays, ids: np.ndarray, lines: np.ndarray, counts: np.ndarray,
                           points: np.ndarray, masks: np.ndarray,
                           losing: bool) -> tuple[np.ndarray, np.ndarray] | None:
        """:meth:`positions` of ``K`` candidate sheets by the compiled kernel
        (:func:`learned.kernel._learned_worth`, numba), or ``None`` without numba: each candidate
        is the line changes ``ids (K, W)`` (padded with -1) into ``lines``/``counts``/``points``
        ``(D,)``, marking (``losing`` False) or losing (``losing`` True, D13) ``counts`` items
        worth ``points`` on ``lines``. Returns ``V (K+1,)`` (the last: the sheet as it
        is, :meth:`before`) and ``usable (K+1,)`` (D4, by the sets' bit ``masks``; every
        candidate when ``masks`` is empty). The same integers as :meth:`positions`."""
        from shelfie_solver.dice.learned.kernel import kernel_function

        worth = kernel_function("_learned_worth")
        if worth is None:
            return None
        board, rules = state.board, state.rules
        m, a, mp, ap = state.line_totals
        arrays = kernel_arrays(self, board)
        marks = state.marks
        found: tuple[np.ndarray, np.ndarray] = worth(
            ids, lines, counts, points, masks, marks.marked | marks.eliminated, losing, m, a, mp, ap, line_sizes(board),
            rules.scoring_threshold, end_trigger_shelves(board, rules), board.n_shelves, arrays[0], arrays[1],
            arrays[2], self.threat, self.triggered, self.opponent_distance, self.opponents, arrays[3], arrays[4],
            arrays[5], self.end_open, arrays[6], WEIGHT_SCALE, VALUE_SCALE, WIN_SCALE)
        return found

    def compiled_shelf_values(self, state: StateArrays) -> list[tuple[int, int]] | None:
        """:meth:`shelf_values` by the compiled kernel (:meth:`compiled_positions`), or ``None``
        without numba."""
        shelves, lines, counts, points = _give_up_arrays(state.board, state.marks)
        if not shelves:
            return []
        ids = np.arange(lines.size, dtype=np.int64).reshape(lines.shape)
        found = self.compiled_positions(state, ids, lines.ravel(), counts.ravel(), points.ravel(),
                                        np.zeros(0, dtype=np.int64), True)
        if found is None:
            return None
        v = found[0]
        options = [(s, int(v[row] - v[-1])) for row, s in enumerate(shelves)]
        return sorted(options, key=lambda item: -item[1])


@lru_cache(maxsize=1 << 12)
def _give_up_arrays(board: Board, marks: Marks) -> tuple[tuple[int, ...], np.ndarray, np.ndarray, np.ndarray]:
    """The failed result's choices (D13, :func:`failed_result_shelves`) as candidates of
    :meth:`Learned.compiled_positions`: the shelves in order, and per shelf the lines losing
    items (the shelf, then every column: a column losing no item is no change), the items and
    points lost, ``(S, 1 + columns)``."""
    available = marks.bit_arrays()[1].reshape(board.n_shelves, board.n_columns).astype(np.int64)
    shelves = np.flatnonzero(available.any(axis=1))  # failed_result_shelves: those with an available item
    lost = available[shelves]
    lost_points = lost * board.value_array.reshape(board.n_shelves, board.n_columns)[shelves]
    lines = np.concatenate([shelves[:, None], np.broadcast_to(board.n_shelves + np.arange(board.n_columns),
                                                              (len(shelves), board.n_columns))], axis=1)
    counts = np.concatenate([lost.sum(axis=1, keepdims=True), lost], axis=1)
    points = np.concatenate([lost_points.sum(axis=1, keepdims=True), lost_points], axis=1)
    return tuple(int(s) for s in shelves), lines.astype(np.int64), counts, points


@cache
def line_sizes(board: Board) -> np.ndarray:
    """``int64 (L,)``: items per line (:attr:`Board.lines`)."""
    sizes: np.ndarray = board.line_matrix.sum(axis=0).astype(np.int64)
    return sizes


def kernel_arrays(objective: Learned, board: Board) -> tuple[np.ndarray, ...]:
    """The arrays :func:`learned.kernel._learned_worth` reads from ``objective`` (made once per
    objective): line coefficients ``(3, 4, L, 5)``, global weights ``(3, 4)``, the context term
    ``(3,)``, the opponents' sums ``(3,)``, values ``(J, 3)`` and blocking ``(J, 3, L)`` (J = 0
    when absent), the win-chance spreads."""
    found: tuple[np.ndarray, ...] | None = objective.__dict__.get("_kernel_arrays")
    if found is None:
        coef, g, context_weights = kernel_weights(objective.weights, board)
        lines = len(board.lines)
        found = (coef, g, context_weights @ np.asarray(objective.context, dtype=np.int64),
                 np.array(objective.opponent_sums, dtype=np.int64),
                 np.zeros((0, 3), dtype=np.int64) if objective.opponent_values is None
                 else np.ascontiguousarray(objective.opponent_values, dtype=np.int64),
                 np.zeros((0, 3, lines), dtype=np.int64) if objective.block is None or objective.opponent_values is None
                 else np.ascontiguousarray(objective.block, dtype=np.int64),
                 np.array(WIN_SIGMA, dtype=np.int64))
        object.__setattr__(objective, "_kernel_arrays", found)
    return found


def player_values(weights: np.ndarray, board: Board, rules: Ruleset, sheets: tuple[Marks, ...], seat: int,
                  phases: tuple[int, ...], turn: int = 0) -> list[int]:
    """``P`` of ``seat`` (score plus ``F``) in each of ``phases``, over :data:`WEIGHT_SCALE`
    (numpy; :func:`game_objective` has a compiled form, :func:`_compiled_opponents`)."""
    marks = sheets[seat]
    m, a, mp, ap = StateArrays(board, rules, marks).line_totals
    t = rules.scoring_threshold
    trigger = end_trigger_shelves(board, rules)
    near = np.array(trigger - marks.closed_shelves() == 1)
    rows = len(phases)
    m3, a3, mp3, ap3 = (np.broadcast_to(x, (rows, len(x))) for x in (m, a, mp, ap))
    future = future_values(weights, board, t, m3, a3, mp3, ap3, threats(board, rules, sheets, seat), near,
                           np.array(phases), table_context(sheets, seat, turn))
    return [int(WEIGHT_SCALE * scores(m, mp, t) + f) for f in future]


def player_value(weights: np.ndarray, board: Board, rules: Ruleset, sheets: tuple[Marks, ...], seat: int,
                 phase: int, turn: int = 0) -> int:
    """``P`` of ``seat`` (score plus ``F`` in ``phase``) over :data:`WEIGHT_SCALE`."""
    return player_values(weights, board, rules, sheets, seat, (phase,), turn)[0]


def block_values(weights: np.ndarray, board: Board, rules: Ruleset, sheets: tuple[Marks, ...], active: int,
                 phases: tuple[dict[int, int], int, int], turn: int = 0) -> np.ndarray | None:
    """``int64 (J, 3, L)`` over the opponents ``j`` in seat order: for each line the active player
    can complete this turn (no item eliminated, at most ``combinations_per_turn`` items missing,
    D9), the change of the opponent's ``P`` when their available items on it are eliminated (D15),
    with the opponent in their end phase ``phases[0][seat]`` (0 or 1), in phase 2 and in phase 3;
    0 for the other lines. None when no line can be completed or no opponent has an item to lose.
    Left out: an end trigger caused by the elimination (D17)."""
    m, a, _, _ = sheet_totals(board, rules, sheets[active])
    sizes = line_sizes(board)
    reachable = np.flatnonzero((m + a == sizes) & (m < sizes) & (sizes - m <= rules.combinations_per_turn))
    if not len(reachable):
        return None
    opponents = [j for j in range(len(sheets)) if j != active]
    out = np.zeros((len(opponents), 3, len(sizes)), dtype=np.int64)
    ends, near, far = phases
    base: dict[int, list[int]] = {}
    for line in reachable:
        blocked, lost = block(board, sheets, active, (int(line),))
        for _, j, _ in lost:  # the opponents with an available item on the line, in seat order
            index = opponents.index(j)
            rows = (ends[j], near, far)
            if j not in base:
                base[j] = player_values(weights, board, rules, sheets, j, rows, turn)
            after = sheets[:j] + (blocked[j],) + sheets[j + 1:]  # only this opponent's sheet changes
            values = player_values(weights, board, rules, after, j, rows, turn)
            out[index, :, line] = np.array(values) - np.array(base[j])
    return out if out.any() else None


_WEIGHT_ARRAYS: dict[tuple[int, Board], tuple[np.ndarray, tuple[np.ndarray, np.ndarray, np.ndarray]]] = {}


def kernel_weights(weights: np.ndarray, board: Board) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The compiled kernels' form of a ``(3, N_FEATURES)`` weight table on ``board``: line
    coefficients ``(3, 4, L, 5)`` (:func:`_coefficients`), the first four global weights
    ``(3, 4)`` and the context weights ``(3, N_CONTEXT)``; made once per table (a model's
    tables live as long as the model, which is kept with them here)."""
    key = (id(weights), board)
    found = _WEIGHT_ARRAYS.get(key)
    if found is None or found[0] is not weights:
        table = np.ascontiguousarray(weights, dtype=np.int64)
        start = KINDS * len(LINE_FEATURES)
        found = (weights, (_coefficients(table.tobytes(), board), np.ascontiguousarray(table[:, start:start + 4]),
                           np.ascontiguousarray(table[:, start + 4:])))
        if len(_WEIGHT_ARRAYS) > 64:
            _WEIGHT_ARRAYS.clear()
        _WEIGHT_ARRAYS[key] = found
    return found[1]


def _compiled_opponents(weights: np.ndarray, board: Board, rules: Ruleset, sheets: tuple[Marks, ...], active: int,
                        ends: dict[int, int],
                        turn: int) -> tuple[np.ndarray, np.ndarray | None, np.ndarray] | None:
    """What :func:`game_objective` needs of the opponents, by one compiled call
    (:func:`learned.kernel._learned_opponents`, numba, which runs
    :func:`learned.kernel._learned_blocks` per opponent): their ``P`` ``int64 (J, 3)`` in phases
    ``(ends[j], 2, 3)`` (:func:`player_values`), :func:`block_values` (with :data:`BLOCKING`;
    else None) and the active player's :func:`threats`. The same integers; ``None`` without
    numba or on a board of more than 62 items."""
    from shelfie_solver.dice.engine.kernel import cell_lines
    from shelfie_solver.dice.learned.kernel import kernel_function

    found = kernel_function("_learned_opponents")
    if found is None or board.n_cells > 62:
        return None
    coef, g, context_weights = kernel_weights(weights, board)
    each, out, threat = found(
        np.array([m.marked for m in sheets], dtype=np.int64), np.array([m.eliminated for m in sheets], dtype=np.int64),
        active, np.array([ends.get(j, 0) for j in range(len(sheets))], dtype=np.int64), turn, cell_lines(board),
        board.value_array, line_sizes(board), rules.scoring_threshold, end_trigger_shelves(board, rules),
        board.n_shelves, rules.combinations_per_turn, BLOCKING, coef, g, context_weights, WEIGHT_SCALE)
    threat.flags.writeable = False  # as threats' (kept by its cache)
    return each, (out if np.count_nonzero(out) else None), threat


def game_objective(board: Board, rules: Ruleset, sheets: tuple[Marks, ...], active: int, first: int,
                   triggered: bool, model: LearnedModel | None = None, turn: int = 0,
                   compiled: bool = True, kind: type[Learned] | None = None,
                   extra: dict[str, Any] | None = None) -> Learned:
    """The ``learned`` objective of the player ``active`` at the start of their turn.

    Args:
        sheets: every seat's marks (0-based seats); ``first`` the seat that played first (D5).
        triggered: the end is triggered (D17), so this is the last round (D18).
        turn: turns already played (0-based number of this turn; it gives the round).
        model: the parameters (default: the shipped ones).
        compiled: the opponents' values by the compiled kernel when numba is installed
            (:func:`_compiled_opponents`); False: numpy only. The same objective either way.
        kind, extra: the class built (default :class:`Learned`; a subclass such as
            ``win_model.WinObjective``, its further fields in ``extra``), so a subclass's
            objective is made in one step.
    """
    model = model or default_model()
    n = len(sheets)
    weights = model.for_board(n, board)
    trigger = end_trigger_shelves(board, rules)
    opponents = [j for j in range(n) if j != active]
    position = place_in_round(active, first, n)
    ends = {j: 1 if place_in_round(j, first, n) > position else 0 for j in opponents}
    fast = _compiled_opponents(weights, board, rules, sheets, active, ends, turn) if compiled else None
    if fast is None:
        each = np.array([player_values(weights, board, rules, sheets, j, (ends[j], 2, 3), turn) for j in opponents],
                        dtype=np.int64).reshape(len(opponents), 3)
        block = block_values(weights, board, rules, sheets, active, (ends, 2, 3), turn) if BLOCKING else None
        threat = threats(board, rules, sheets, active)
    else:
        each, block, threat = fast
    end_sum, near_sum, far_sum = each.sum(axis=0).tolist()
    distance = min((trigger - sheets[j].closed_shelves() for j in opponents), default=FAR)
    return (kind or Learned)(weights, threat, triggered, distance, len(opponents), (end_sum, near_sum, far_sum),
                             table_context(sheets, active, turn), opponent_values=each if opponents else None,
                             block=block, end_open=any(ends.values()), **(extra or {}))


def state_objective(state: GameState, model: LearnedModel | None = None, compiled: bool = True) -> Learned:
    """:func:`game_objective` for a :class:`events.GameState` (the state strategies see)."""
    return game_objective(state.board, state.rules, state.sheets, state.active, state.first,
                          state.end_triggered, model, state.turn, compiled)


def solitaire_objective(board: Board, model: LearnedModel | None = None) -> Learned:
    """The no-context form: one player (solitaire weights), end not triggered — what
    ``advise --objective learned`` uses."""
    model = model or default_model()
    return Learned(model.for_board(1, board), np.zeros(len(board.lines), dtype=bool))


def named_objective(name: str, board: Board, state: GameState | None = None) -> Learned:
    """The objective ``learned`` or ``learned:FILE`` (:func:`model_named`): the whole-game form
    (:func:`state_objective`) for a ``state``, else the no-context form on ``board``
    (:func:`solitaire_objective`); a file's objective is named ``learned:FILE`` in reports.

    Raises:
        ModelError: a bad ``learned:FILE``.
    """
    model = model_named(name)
    if model is not None:
        model.verify_players(1 if state is None else state.players, name)
    objective = solitaire_objective(board, model) if state is None else state_objective(state, model)
    return objective if model is None else replace(objective, name=name.strip())
