"""The ``learned`` objective compiled (:class:`learned.objective.Learned`, docs/learned.md):
a sheet's worth after each candidate item set or lost shelf (:func:`_learned_worth`), a
player's ``P`` after each line an opponent could block (:func:`_learned_blocks`, D15) and the
``learned`` strategy's whole turn in one call (:func:`_learned_turn`, as
:func:`engine.kernel._solver_turn` is for ``solver``). The same integers as the numpy code of
:mod:`learned.objective`.

Compiled by numba only when first asked (:func:`kernel_function`; ``advise`` and ``odds`` never
import this module) and only when numba is installed (the ``[fast]`` extra); without it
everything runs on numpy. The one-turn DP these call (:func:`engine.kernel._scan`,
:func:`engine.kernel._level`) is the engine's: bound here, compiled, before anything here
compiles (numba's on-disk cache of this module does not notice a change in
``engine/kernel.py``: clear ``__pycache__`` after changing one of those two).
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

import numpy as np

from shelfie_solver.dice.engine.kernel import calling, compile_into, compiled_kernels, small_index, turn_arrays
from shelfie_solver.dice.learned.win_bounds import (
    DESIGN_INPUT_BOUND,
    DESIGN_LEAD_BOUND,
    DESIGN_ROUND_BOUND,
    LINE_STATE_CAP,
    LINE_STATES,
)

if TYPE_CHECKING:
    from shelfie_solver.dice.board import Board
    from shelfie_solver.dice.rules import Ruleset


#: The compiled functions, callees first (:func:`engine.kernel.compile_into`).
_COMPILED_ORDER = ("_learned_line", "_learned_sheet", "_learned_seats", "_learned_worth", "_learned_blocks",
                   "_learned_opponents", "_shelf_candidates", "_learned_turn", "_line_state", "_sheet_states", "_win_tree_term",
                   "_win_tree_fixed", "_win_strengths_into", "_win_strengths", "_win_tree_strengths", "_win_gaps",
                   "_marked_points", "_blocks_put_out", "_win_front", "_win_turn")

#: The engine's compiled kernels the ones here call, bound by :func:`_compiled` (``None`` until then).
_ENGINE = ("_scan", "_level", "_turn_levels", "_bit_line_totals", "_markings_end")
_bit_line_totals: Any = None
_markings_end: Any = None
_scan: Any = None
_level: Any = None
_turn_levels: Any = None


@cache
def _compiled() -> dict[str, Any] | None:
    """Every function of :data:`_COMPILED_ORDER` compiled by numba, after binding the engine's
    compiled :data:`_ENGINE` kernels in this module; ``None`` without numba."""
    engine = compiled_kernels()
    if engine is None:
        return None
    for name in _ENGINE:
        globals()[name] = engine[name]
    return compile_into(globals(), _COMPILED_ORDER)


@cache
def kernel_function(name: str) -> Any:
    """The compiled function ``name`` of :data:`_COMPILED_ORDER` (e.g. ``"_learned_turn"``),
    wrapped for calls from Python (:func:`engine.kernel.calling`), or ``None`` without numba."""
    found = _compiled()
    return None if found is None else calling(found[name])


def _learned_line(line: int, m: int, a: int, mp: int, ap: int, t: int, coef: np.ndarray, threat: np.ndarray,
                  rows: np.ndarray) -> tuple[int, int, int, int]:  # pragma: no cover - compiled
    """One line's part of :func:`learned.objective.future_values` (before the global weights):
    writes the line's ``F`` term of each phase row into ``rows (3,)`` and returns (threatened
    ``A``, threatened ``M``, points scored (D19), 1 if the line has no available item)."""
    if m >= t:
        status = 3
    elif m + a >= t:
        status = min(max(t - m, 1), 3) - 1
    else:
        status = 4
    for r in range(coef.shape[0]):
        rows[r] = coef[r, 0, line, status] * mp + coef[r, 1, line, status] * ap + coef[r, 2, line, status] \
            + coef[r, 3, line, status] * a
    open_threat = status != 4 and threat[line]
    return (ap if open_threat else 0), (mp if open_threat and status < 3 else 0), (mp if m >= t else 0), \
        (1 if a == 0 else 0)


def _learned_sheet(m: np.ndarray, a: np.ndarray, mp: np.ndarray, ap: np.ndarray, t: int, coef: np.ndarray,
                   threat: np.ndarray, n_shelves: int) -> tuple[np.ndarray, int, int, int, int]:  # pragma: no cover
    """A sheet's totals for :func:`learned.objective.future_values` from its line totals ``(L,)``:
    the line terms of ``F`` per phase row ``int64 (3,)``, threatened ``A``, threatened ``M``, the
    score (D19) and the closed shelves (D17)."""
    total = np.zeros(coef.shape[0], np.int64)
    rows = np.zeros(coef.shape[0], np.int64)
    ta = 0
    tm = 0
    score = 0
    closed = 0
    for line in range(m.shape[0]):
        x, y, s, c = _learned_line(line, m[line], a[line], mp[line], ap[line], t, coef, threat, rows)
        ta += x
        tm += y
        score += s
        if line < n_shelves:
            closed += c
        for r in range(total.shape[0]):
            total[r] += rows[r]
    return total, ta, tm, score, closed


def _learned_seats(set_ids: np.ndarray, d_lines: np.ndarray, d_counts: np.ndarray, d_points: np.ndarray,
                   set_masks: np.ndarray, closed_bits: int, losing: bool, m: np.ndarray, a: np.ndarray, mp: np.ndarray,
                   ap: np.ndarray, sizes: np.ndarray, t: int, trigger: int, n_shelves: int, coef: np.ndarray,
                   glob: np.ndarray, ctx: np.ndarray, threat: np.ndarray, triggered: bool, opponent_distance: int,
                   opponent_values: np.ndarray, block: np.ndarray,
                   weight_scale: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                               np.ndarray]:  # pragma: no cover - compiled
    """What :meth:`learned.objective.Learned.table_values` knows of ``K`` candidate sheets at once
    (candidates and weights as :func:`_learned_worth`): ``usable (K+1,)``, the phase (0, 2, 3),
    the player's ``P``, score (D19) and closed shelves short of the trigger (D17), each
    ``int64 (K+1,)``, and each opponent's ``P`` after the blocks of the candidate (D15)
    ``int64 (K+1, J)``; row ``K`` the sheet as it is. Each distinct line change is evaluated
    once per call (item sets share them: :func:`learned_deltas`), then summed per candidate.
    The same integers as the numpy code (:meth:`Learned.own_values`, :meth:`Learned.opponent_after`)."""
    n_sets = set_ids.shape[0]
    rows = coef.shape[0]
    total, ta0, tm0, score0, closed0 = _learned_sheet(m, a, mp, ap, t, coef, threat, n_shelves)
    n_lines = m.shape[0]
    old_rows = np.zeros((n_lines, rows), np.int64)  # each line's terms as it is (the same for every set)
    old = np.zeros((n_lines, 4), np.int64)
    for line in range(n_lines):
        x, y, s, c = _learned_line(line, m[line], a[line], mp[line], ap[line], t, coef, threat, old_rows[line])
        old[line, 0] = x
        old[line, 1] = y
        old[line, 2] = s
        old[line, 3] = c
    n_deltas = d_lines.shape[0]
    d_rows = np.zeros((n_deltas, rows), np.int64)  # each line change's effect on the sheet's totals
    d_other = np.zeros((n_deltas, 5), np.int64)  # threatened A, threatened M, score, closed, completed
    line_rows = np.zeros(rows, np.int64)
    for d in range(n_deltas):
        line = d_lines[d]
        n = d_counts[d]
        p = d_points[d]
        if line < 0 or a[line] < n:  # (a change no usable set makes)
            continue
        m2 = m[line] if losing else m[line] + n
        mp2 = mp[line] if losing else mp[line] + p
        x, y, s, c = _learned_line(line, m2, a[line] - n, mp2, ap[line] - p, t, coef, threat, line_rows)
        for r in range(rows):
            d_rows[d, r] = line_rows[r] - old_rows[line, r]
        d_other[d, 0] = x - old[line, 0]
        d_other[d, 1] = y - old[line, 1]
        d_other[d, 2] = s - old[line, 2]
        d_other[d, 3] = (c - old[line, 3]) if line < n_shelves else 0
        d_other[d, 4] = 1 if block.shape[0] > 0 and m2 == sizes[line] and m[line] < sizes[line] else 0  # D15
    usable = np.zeros(n_sets + 1, np.bool_)
    phases = np.zeros(n_sets + 1, np.int64)
    owns = np.zeros(n_sets + 1, np.int64)
    scores = np.zeros(n_sets + 1, np.int64)
    distances = np.zeros(n_sets + 1, np.int64)
    n_opp = opponent_values.shape[0]
    each = np.zeros((n_sets + 1, n_opp), np.int64)
    f = np.zeros(rows, np.int64)
    change = np.zeros((max(n_opp, 1), 3), np.int64)
    for k in range(n_sets + 1):
        if k < n_sets:
            if set_masks.shape[0] == n_sets and (set_masks[k] & closed_bits) != 0:
                continue
        usable[k] = True
        for r in range(rows):
            f[r] = total[r]
        ta = ta0
        tm = tm0
        score = score0
        closed = closed0
        completed = 0
        if k < n_sets:
            for w in range(set_ids.shape[1]):
                d = set_ids[k, w]
                if d < 0:
                    break
                for r in range(rows):
                    f[r] += d_rows[d, r]
                ta += d_other[d, 0]
                tm += d_other[d, 1]
                score += d_other[d, 2]
                closed += d_other[d, 3]
                completed += d_other[d, 4]
        for j in range(n_opp):
            for r in range(3):
                change[j, r] = 0
        if completed > 0:
            for w in range(set_ids.shape[1]):
                d = set_ids[k, w]
                if d < 0:
                    break
                if d_other[d, 4] > 0:
                    for j in range(n_opp):
                        for r in range(3):
                            change[j, r] += block[j, r, d_lines[d]]
        own_distance = trigger - closed
        distance = min(own_distance, opponent_distance)
        if triggered or own_distance <= 0:
            phase = 0
        elif distance == 1:
            phase = 2
        else:
            phase = 3
        own = weight_scale * score
        if phase > 0:
            r = phase - 1
            own += f[r] + glob[r, 0] * ta + glob[r, 1] * tm + glob[r, 2] + glob[r, 3] * (1 if own_distance == 1 else 0) \
                + ctx[r]
        row = 0 if phase == 0 else (1 if phase == 2 else 2)
        for j in range(n_opp):
            each[k, j] = opponent_values[j, row] + change[j, row]
        phases[k] = phase
        owns[k] = own
        scores[k] = score
        distances[k] = own_distance
    return usable, phases, owns, scores, distances, each


def _learned_worth(set_ids: np.ndarray, d_lines: np.ndarray, d_counts: np.ndarray, d_points: np.ndarray,
                   set_masks: np.ndarray, closed_bits: int, losing: bool, m: np.ndarray, a: np.ndarray, mp: np.ndarray,
                   ap: np.ndarray, sizes: np.ndarray, t: int, trigger: int, n_shelves: int, coef: np.ndarray,
                   glob: np.ndarray, ctx: np.ndarray, threat: np.ndarray, triggered: bool, opponent_distance: int,
                   opponents: int, opponent_sums: np.ndarray, opponent_values: np.ndarray, block: np.ndarray,
                   end_open: bool, sigma: np.ndarray, weight_scale: int, value_scale: int,
                   win_scale: int) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover - compiled
    """:meth:`learned.objective.Learned.positions` of ``K`` candidate sheets at once. Each
    candidate is a list of *line changes* (``set_ids (K, W)`` into ``d_lines``/``d_counts``/
    ``d_points`` ``(D,)``, padded with -1): ``d_counts`` items worth ``d_points`` on line
    ``d_lines`` are marked (``losing`` False: ``m, M`` up, ``a, A`` down) or lost (``losing``
    True, a failed result's shelf, D13: ``a, A`` down); the seats' values by
    :func:`_learned_seats`. Returns ``V (K+1,)`` (index ``K``: the sheet as it is) and
    ``usable (K+1,)`` (the set's items all available, D4, by ``set_masks`` against
    ``closed_bits``; every candidate when ``set_masks`` is empty). ``coef (3, 4, L, 5)``,
    ``glob (3, 4)`` and ``ctx (3,)`` (the context term) are the weights per phase row;
    ``opponent_values (J, 3)`` and ``block (J, 3, L)`` (J may be 0); ``sigma (3,)`` the
    win-chance spreads (empty: the plain difference). The same integers as the numpy code."""
    usable, phases, owns, _, _, each = _learned_seats(
        set_ids, d_lines, d_counts, d_points, set_masks, closed_bits, losing, m, a, mp, ap, sizes, t, trigger,
        n_shelves, coef, glob, ctx, threat, triggered, opponent_distance, opponent_values, block, weight_scale)
    n_sets = set_ids.shape[0]
    out = np.zeros(n_sets + 1, np.int64)
    n_opp = opponent_values.shape[0]
    for k in range(n_sets + 1):
        if not usable[k]:
            continue
        phase = phases[k]
        own = owns[k]
        row = 0 if phase == 0 else (1 if phase == 2 else 2)
        if n_opp == 0:
            others = opponent_sums[row]
            leader = others
        else:
            others = 0
            leader = 0
            for j in range(n_opp):
                v = each[k, j]
                others += v
                leader = v if j == 0 else max(leader, v)
        if sigma.shape[0] > 0 and opponents > 0:
            gap = own - leader
            if phase == 0:
                spread = sigma[0] if end_open else 0
            elif phase == 2:
                spread = sigma[1]
            else:
                spread = sigma[2]
            out[k] = (win_scale * value_scale * gap) // (spread * weight_scale + abs(gap) + 1)
        else:
            seats = max(opponents, 1)
            numerator = (own * seats - others) * value_scale
            denominator = weight_scale * seats
            out[k] = (numerator + denominator // 2) // denominator
    return out, usable


@cache
def learned_deltas(board: Board, rules: Ruleset) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The item sets of :func:`engine.kernel.turn_arrays` as lists of distinct line changes, the candidates of
    :func:`_learned_worth`: ``(ids (K, W) padded with -1, lines (D,), counts (D,), points (D,))``
    (on the default board 160 distinct changes for 12,750 (set, line) pairs)."""
    tables = turn_arrays(board, rules)
    index: dict[tuple[int, int, int], int] = {}
    ids = np.full(tables.set_lines.shape, -1, dtype=np.int64)
    for k in range(tables.set_lines.shape[0]):
        for w in range(tables.set_lines.shape[1]):
            line = int(tables.set_lines[k, w])
            if line < 0:
                break
            key = (line, int(tables.set_counts[k, w]), int(tables.set_points[k, w]))
            ids[k, w] = index.setdefault(key, len(index))
    keys = np.array(list(index), dtype=np.int64).reshape(-1, 3)
    return small_index(ids), keys[:, 0].copy(), keys[:, 1].copy(), keys[:, 2].copy()


def _learned_blocks(lines: np.ndarray, marked_bits: int, eliminated_bits: int, cell_lines: np.ndarray,
                    values: np.ndarray, m: np.ndarray, a: np.ndarray, mp: np.ndarray, ap: np.ndarray, t: int,
                    trigger: int, n_shelves: int, coef: np.ndarray, glob: np.ndarray, ctx: np.ndarray,
                    threat: np.ndarray, weight_scale: int) -> np.ndarray:  # pragma: no cover - compiled
    """A player's ``P`` (:func:`learned.objective.player_values`, over ``weight_scale``) in each
    phase 0-3, ``int64 (K+1, 4)``: row ``k`` after the player's available items on line
    ``lines[k]`` are eliminated (an opponent completed it, D15: the line and each lost item's
    crossing line lose them), row ``K`` the sheet as it is (given by its bit masks and line
    totals ``m, a, mp, ap``). Weights as :func:`_learned_worth`; ``threat`` the player's
    threatened lines (the opponents' sheets do not change)."""
    n_sets = lines.shape[0]
    rows = coef.shape[0]
    out = np.zeros((n_sets + 1, 4), np.int64)
    a2 = a.copy()
    ap2 = ap.copy()
    closed_bits = marked_bits | eliminated_bits
    for k in range(n_sets + 1):
        for line in range(m.shape[0]):
            a2[line] = a[line]
            ap2[line] = ap[line]
        if k < n_sets:
            line = lines[k]
            for c in range(cell_lines.shape[0]):
                if (closed_bits >> c) & 1:
                    continue
                if cell_lines[c, 0] == line:
                    cross = cell_lines[c, 1]
                elif cell_lines[c, 1] == line:
                    cross = cell_lines[c, 0]
                else:
                    continue
                a2[line] -= 1
                ap2[line] -= values[c]
                a2[cross] -= 1
                ap2[cross] -= values[c]
        total, ta, tm, score, closed = _learned_sheet(m, a2, mp, ap2, t, coef, threat, n_shelves)
        near = 1 if trigger - closed == 1 else 0
        out[k, 0] = weight_scale * score
        for r in range(rows):
            out[k, r + 1] = weight_scale * score + total[r] + glob[r, 0] * ta + glob[r, 1] * tm + glob[r, 2] \
                + glob[r, 3] * near + ctx[r]
    return out


def _learned_opponents(marked: np.ndarray, eliminated: np.ndarray, active: int, ends: np.ndarray, turn: int,
                       cell_lines: np.ndarray, values: np.ndarray, sizes: np.ndarray, t: int, trigger: int,
                       n_shelves: int, per_turn: int, blocking: bool, coef: np.ndarray, glob: np.ndarray,
                       context_weights: np.ndarray,
                       weight_scale: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # pragma: no cover - compiled
    """What :func:`learned.objective.game_objective` needs of the opponents of ``active`` in one
    call, the sheets given by their bit masks ``marked``/``eliminated`` ``(n,)``: each
    opponent's ``P`` in phases ``(ends[j], 2, 3)``, ``int64 (J, 3)``
    (:func:`learned.objective.player_values`, by :func:`_learned_blocks` with that opponent's
    :func:`learned.objective.table_context` and :func:`learned.objective.threats`), the change
    of each when the active player completes each line it can complete this turn (``blocking``;
    :func:`learned.objective.block_values`), ``int64 (J, 3, L)`` (0 elsewhere), and the active
    player's threatened lines, ``bool (L,)``. The same integers as
    :func:`learned.objective._compiled_opponents` before it was one call."""
    n = marked.shape[0]
    n_lines = sizes.shape[0]
    n_cells = cell_lines.shape[0]
    ms = np.zeros((n, n_lines), np.int64)
    as_ = np.zeros((n, n_lines), np.int64)
    mps = np.zeros((n, n_lines), np.int64)
    aps = np.zeros((n, n_lines), np.int64)
    marks_count = np.zeros(n, np.int64)
    free_count = np.zeros(n, np.int64)
    for i in range(n):
        m, a, mp, ap = _bit_line_totals(marked[i], eliminated[i], cell_lines, values, n_lines)
        ms[i] = m
        as_[i] = a
        mps[i] = mp
        aps[i] = ap
        for c in range(n_cells):
            marks_count[i] += (marked[i] >> c) & 1
            free_count[i] += 1 - (((marked[i] | eliminated[i]) >> c) & 1)
    # lines a sheet's owner is threatened on: another sheet has it open, at most 2 items short (D15)
    near = np.zeros((n, n_lines), np.bool_)
    for i in range(n):
        for line in range(n_lines):
            m = ms[i, line]
            near[i, line] = m + as_[i, line] == sizes[line] and m >= sizes[line] - 2 and m < sizes[line]
    threat = np.zeros((n, n_lines), np.bool_)
    for j in range(n):
        for i in range(n):
            if i != j:
                for line in range(n_lines):
                    threat[j, line] = threat[j, line] or near[i, line]
    reachable = np.zeros(n_lines, np.int64)
    n_reach = 0
    if blocking:
        for line in range(n_lines):
            m = ms[active, line]
            if m + as_[active, line] == sizes[line] and m < sizes[line] and sizes[line] - m <= per_turn:
                reachable[n_reach] = line
                n_reach += 1
    lines = reachable[:n_reach].copy()
    each = np.zeros((n - 1, 3), np.int64)
    out = np.zeros((n - 1, 3, n_lines), np.int64)
    ctx = np.zeros(context_weights.shape[0], np.int64)
    index = 0
    for j in range(n):
        if j == active:
            continue
        context = np.zeros(3, np.int64)
        context[0] = turn // n + 1
        for i in range(n):
            if i != j:
                context[1] += marks_count[i]
                context[2] += free_count[i]
        for r in range(context_weights.shape[0]):
            total = 0
            for q in range(3):
                total += context_weights[r, q] * context[q]
            ctx[r] = total
        found = _learned_blocks(lines, marked[j], eliminated[j], cell_lines, values, ms[j], as_[j], mps[j], aps[j], t,
                                trigger, n_shelves, coef, glob, ctx, threat[j], weight_scale)
        columns = (ends[j], 2, 3)
        for q in range(3):
            each[index, q] = found[n_reach, columns[q]]
            for k in range(n_reach):
                out[index, q, lines[k]] = found[k, columns[q]] - found[n_reach, columns[q]]
        index += 1
    return each, out, threat[active].copy()


def _shelf_candidates(values: np.ndarray, n_shelves: int,
                      closed_bits: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:  # pragma: no cover
    """The failed result's candidates (D13) for :func:`_learned_seats` with ``losing``: shelf
    ``s`` loses its available items (its line, and each column one item; a column losing none
    is no change). Returns ``ids (S, 1 + columns)``, ``lines``, ``counts``, ``points`` (flat);
    ``counts[s * (1 + columns)] > 0`` tells the shelves that have an available item."""
    n_cells = values.shape[0]
    n_columns = n_cells // n_shelves
    width = 1 + n_columns
    shelf_ids = np.full((n_shelves, width), -1, np.int64)
    s_lines = np.zeros(n_shelves * width, np.int64)
    s_counts = np.zeros(n_shelves * width, np.int64)
    s_points = np.zeros(n_shelves * width, np.int64)
    for s in range(n_shelves):
        base = s * width
        s_lines[base] = s
        for col in range(n_columns):
            c = s * n_columns + col
            s_lines[base + 1 + col] = n_shelves + col
            if not (closed_bits >> c) & 1:
                s_counts[base] += 1
                s_points[base] += values[c]
                s_counts[base + 1 + col] = 1
                s_points[base + 1 + col] = values[c]
        for w in range(width):
            shelf_ids[s, w] = base + w
    return shelf_ids, s_lines, s_counts, s_points


def _learned_turn(ids: np.ndarray, d_lines: np.ndarray, d_counts: np.ndarray, d_points: np.ndarray,
                  set_masks: np.ndarray, marked_bits: int, eliminated_bits: int, m: np.ndarray, a: np.ndarray,
                  mp: np.ndarray, ap: np.ndarray, sizes: np.ndarray, t: int, trigger: int, n_shelves: int,
                  values: np.ndarray, coef: np.ndarray, glob: np.ndarray, ctx: np.ndarray, threat: np.ndarray,
                  triggered: bool, opponent_distance: int, opponents: int, opponent_sums: np.ndarray,
                  opponent_values: np.ndarray, block: np.ndarray, end_open: bool, sigma: np.ndarray,
                  weight_scale: int, value_scale: int, win_scale: int, set_sizes: np.ndarray, set_starts: np.ndarray,
                  set_rolls: np.ndarray, extend: np.ndarray, power: np.ndarray, order: np.ndarray, shrink: np.ndarray,
                  denominator: int, rerolls: int,
                  cap: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, bool]:  # pragma: no cover
    """The ``learned`` strategy's turn in one call (as :func:`_solver_turn` for ``solver``): the
    worth of every item set (:func:`_learned_worth`, 0 where unusable), the failed result's value
    (D13: the best shelf to give up, :func:`_shelf_candidates`), then :func:`engine.kernel._turn_levels`
    (``rerolls >= 1``).

    Returns ``worth (K+1,)``, the shelves' value changes ``(n_shelves,)`` (those without an
    available item: the lowest int64, never chosen), values ``(rerolls, R, 2)`` (levels
    0..rerolls-1), policy ``(rerolls, R)`` (level 0 unused) and ``True``; or ``False`` last (the
    levels not solved) when the final values' magnitude ``b`` has ``b + 1 >= cap``
    (:func:`engine.kernel.int64_cap`)."""
    v, usable = _learned_worth(ids, d_lines, d_counts, d_points, set_masks, marked_bits | eliminated_bits, False,
                               m, a, mp, ap, sizes, t, trigger, n_shelves, coef, glob, ctx, threat, triggered,
                               opponent_distance, opponents, opponent_sums, opponent_values, block, end_open,
                               sigma, weight_scale, value_scale, win_scale)
    n_sets = ids.shape[0]
    worth = np.zeros(n_sets + 1, np.int64)
    for k in range(n_sets):
        if usable[k]:
            worth[k] = v[k] - v[n_sets]
    shelf_ids, s_lines, s_counts, s_points = _shelf_candidates(values, n_shelves, marked_bits | eliminated_bits)
    width = shelf_ids.shape[1]
    sv, _ = _learned_worth(shelf_ids, s_lines, s_counts, s_points, np.zeros(0, np.int64), 0, True, m, a, mp, ap,
                           sizes, t, trigger, n_shelves, coef, glob, ctx, threat, triggered, opponent_distance,
                           opponents, opponent_sums, opponent_values, block, end_open, sigma, weight_scale,
                           value_scale, win_scale)
    low = np.iinfo(np.int64).min
    shelves = np.full(n_shelves, low, np.int64)
    failed = 0
    found = False
    for s in range(n_shelves):
        if s_counts[s * width] > 0:
            shelves[s] = sv[s] - sv[n_shelves]
            if not found or shelves[s] > failed:
                failed = shelves[s]
                found = True
    done, policy, ok = _turn_levels(worth, usable, failed, set_sizes, set_starts, set_rolls, extend, power, order,
                                    shrink, denominator, rerolls, cap)
    return worth, shelves, done, policy, ok


def _line_state(line: int, m: int, a: int, n_shelves: int) -> int:  # pragma: no cover - compiled
    """The sheet-feature column of a line with ``m`` items marked and ``a`` available (D4):
    :func:`learned.win_bounds.line_state`, plus ``LINE_STATES`` for a column (``line >=
    n_shelves``); the same integer as :func:`learned.win_model.sheet_states`."""
    mm = min(m, LINE_STATE_CAP)
    aa = min(a, LINE_STATE_CAP - mm)
    state = mm * (LINE_STATE_CAP + 1) - mm * (mm - 1) // 2 + aa
    return state if line < n_shelves else state + LINE_STATES


def _sheet_states(m: np.ndarray, a: np.ndarray, n_shelves: int,
                  out: np.ndarray) -> None:  # pragma: no cover - compiled
    """A sheet's line-state counts (:func:`learned.win_model.sheet_states`) from its line totals
    ``m, a (L,)`` into ``out (2 * LINE_STATES,)``."""
    for q in range(out.shape[0]):
        out[q] = 0
    for line in range(m.shape[0]):
        out[_line_state(line, m[line], a[line], n_shelves)] += 1


def _win_strengths(seats: np.ndarray, c: np.ndarray, round_number: int, to_play: int, weight_scale: int,
                   z: np.ndarray) -> int:  # pragma: no cover - compiled
    """Each seat's strength numerator ``z_i = c . x_i`` into ``z (n,)``, ``x`` the features of
    :func:`learned.win_model.design` of one position (``seats (n, 4)``: the
    :data:`win_model.SEAT_COLUMNS`, the seat that just played first; ``c (F,)`` the phase's
    coefficient row; ``to_play`` the seats still to play in the round, D5, D18; ``seats (n, 4 +
    2 * LINE_STATES)`` carries each seat's line-state counts too, else the sheet features are 0;
    ``c`` of :data:`win_model.FEATURES`' length). Returns the
    largest ``|x|`` (the int64 bound of :func:`win_model.strength_numerators`), or ``2**62`` where
    an input or a seat's lead is beyond the bounds within which :func:`win_model.design` computes
    in int64 (:mod:`learned.win_bounds`: ``DESIGN_INPUT_BOUND``, ``DESIGN_ROUND_BOUND``,
    ``DESIGN_LEAD_BOUND``): then ``z`` is not set and the caller takes the numpy path's Python integers. Otherwise the same
    integers as the numpy code."""
    return _win_strengths_into(seats, c, round_number, to_play, weight_scale, z, np.zeros(c.shape[0], np.int64), 0,
                               False, np.zeros((2, 2 * c.shape[0] + 1), np.int64))


def _win_tree_strengths(seats: np.ndarray, c: np.ndarray, round_number: int, to_play: int, weight_scale: int,
                        z: np.ndarray, phase: int, tree_nodes: np.ndarray,
                        tree_roots: np.ndarray) -> int:  # pragma: no cover - compiled
    """:func:`_win_strengths` with the 2-player trees ``tree_nodes (N, 5)``, ``tree_roots (R,)``
    (:class:`learned.win_trees.WinTrees`) read at ``phase`` (0, 2, 3): with 2 seats each
    ``z_i`` plus its tree term (:func:`_win_tree_term`)."""
    u = np.zeros((2, 2 * c.shape[0] + 1), np.int64)
    trees = seats.shape[0] == 2 and tree_roots.shape[0] > 0
    out = _win_strengths_into(seats, c, round_number, to_play, weight_scale, z, np.zeros(c.shape[0], np.int64),
                              phase, trees, u)
    if trees and out < (1 << 62):
        z[0] += _win_tree_term(tree_nodes, tree_roots, u[0])
        z[1] += _win_tree_term(tree_nodes, tree_roots, u[1])
    return out


def _win_tree_term(tree_nodes: np.ndarray, tree_roots: np.ndarray, u: np.ndarray) -> int:  # pragma: no cover
    """A seat's tree term ``T_i`` (:meth:`learned.win_trees.WinTrees.terms`): the sum over the
    trees ``tree_roots (R,)`` of the leaf value reached by ``u = [own (F,), other (F,), phase]``
    ``(2F + 1,)`` (the seat's and the other seat's RAW features, :func:`learned.win_model.design`)
    through the nodes ``tree_nodes (N, 5)`` (feature, threshold, left, right, value: left when
    ``u[feature] <= threshold``; the right child is the column after the left's). Exact int64
    (the leaves' bound is checked at load)."""
    total = 0
    for t in range(tree_roots.shape[0]):
        k = tree_roots[t]
        f = tree_nodes[k, 0]
        while f >= 0:
            k = tree_nodes[k, 2 + (1 if u[f] > tree_nodes[k, 1] else 0)]
            f = tree_nodes[k, 0]
        total += tree_nodes[k, 4]
    return total


def _win_tree_fixed(tree_nodes: np.ndarray, tree_roots: np.ndarray, u: np.ndarray, fixed: np.ndarray,
                    out_nodes: np.ndarray, out_roots: np.ndarray) -> tuple[int, int]:  # pragma: no cover
    """The trees with the inputs ``fixed (2F + 1,)`` (bool) at their values in ``u``: every node
    splitting on a fixed input replaced by the child ``u`` goes to, into ``out_nodes (>= N, 5)``
    and ``out_roots (>= R,)``; the trees left with one leaf summed instead. Returns ``(roots
    written, the sum of those leaves)``: for every ``v`` equal to ``u`` on the fixed inputs,
    ``_win_tree_term(tree_nodes, tree_roots, v) == sum + _win_tree_term(out_nodes,
    out_roots[:roots], v)`` (what :func:`_win_gaps` evaluates per candidate: the inputs alike for
    all of a turn's candidates are read once)."""
    n_nodes = tree_nodes.shape[0]
    stack = np.zeros((max(n_nodes, 1), 3), np.int64)  # (node, parent in out, side)
    count = 0
    n_roots = 0
    offset = 0
    for t in range(tree_roots.shape[0]):
        k = tree_roots[t]
        while tree_nodes[k, 0] >= 0 and fixed[tree_nodes[k, 0]]:
            k = tree_nodes[k, 2 + (1 if u[tree_nodes[k, 0]] > tree_nodes[k, 1] else 0)]
        if tree_nodes[k, 0] < 0:
            offset += tree_nodes[k, 4]
            continue
        out_roots[n_roots] = count
        n_roots += 1
        top = 0
        stack[0, 0] = k
        stack[0, 1] = -1
        stack[0, 2] = 0
        top = 1
        while top > 0:
            top -= 1
            k = stack[top, 0]
            parent = stack[top, 1]
            side = stack[top, 2]
            here = count
            count += 1
            for q in range(5):
                out_nodes[here, q] = tree_nodes[k, q]
            if parent >= 0:
                out_nodes[parent, 2 + side] = here
            if tree_nodes[k, 0] >= 0:
                for side in range(2):
                    child = tree_nodes[k, 2 + side]
                    while tree_nodes[child, 0] >= 0 and fixed[tree_nodes[child, 0]]:
                        f = tree_nodes[child, 0]
                        child = tree_nodes[child, 2 + (1 if u[f] > tree_nodes[child, 1] else 0)]
                    stack[top, 0] = child
                    stack[top, 1] = here
                    stack[top, 2] = side
                    top += 1
    return n_roots, offset


def _win_strengths_into(seats: np.ndarray, c: np.ndarray, round_number: int, to_play: int, weight_scale: int,
                        z: np.ndarray, x: np.ndarray, phase: int, trees: bool,
                        u: np.ndarray) -> int:  # pragma: no cover - compiled
    """:func:`_win_strengths` with the features' scratch row ``x (F,)`` given (one per call of
    :func:`_win_gaps`, not one per candidate); with ``trees`` (2 seats) each seat's tree inputs
    (:func:`_win_tree_term`: its RAW features, the curve columns 11 and 12 before the projection,
    then the other seat's, then ``phase``) into the scratch ``u (2, 2F + 1)`` (the caller adds
    the terms)."""
    n = seats.shape[0]
    w = weight_scale
    r = round_number
    beyond = 1 << 62
    if abs(r) >= DESIGN_ROUND_BOUND:
        return beyond
    sheet = seats.shape[1] > 4
    for i in range(n):  # checked before any product
        if abs(seats[i, 0]) >= DESIGN_INPUT_BOUND or abs(seats[i, 1]) >= DESIGN_INPUT_BOUND // w:
            return beyond
        if sheet:
            for q in range(4, seats.shape[1]):
                if abs(seats[i, q]) >= DESIGN_INPUT_BOUND // w:
                    return beyond
    near_count = 0
    top = seats[0, 0]
    for i in range(n):
        if seats[i, 2] == 1:  # one closed shelf short of the trigger (D17)
            near_count += 1
        top = max(top, seats[i, 0])
    tops = 0
    second = top
    found = False
    for i in range(n):  # the second of the sorted P (the top again when two seats share it)
        if seats[i, 0] == top:
            tops += 1
        elif not found or seats[i, 0] > second:
            second = seats[i, 0]
            found = True
    if tops > 1:
        second = top
    # the monotone projection of win_model.monotone_columns (docs/win-chance.md, "Monotone in the lead")
    size = 0
    for f in (0, 1, 5, 6, 11, 12):
        size = max(size, abs(c[f]))
    if size >= beyond // ((abs(r) + 8) * 5 * w):  # T's integers might leave int64: the numpy path's
        return beyond
    b = c[11] + c[12] * r
    least = -1
    for i in range(n):
        near = 1 if seats[i, 2] == 1 else 0
        others_near = 1 if near_count - near > 0 else 0
        slope = max(c[0] + c[1] * r + c[5] * others_near + c[6] * near, 0)
        least = slope if least < 0 else min(least, slope)
    limit = -1  # no clamp
    if b < 0:
        limit = (5 * w * (least + 2 * b)) // (-2 * b) if least >= -2 * b else 0
    largest = 0
    for i in range(n):
        p = seats[i, 0]
        s = seats[i, 1] * w
        near = 1 if seats[i, 2] == 1 else 0
        others_near = 1 if near_count - near > 0 else 0
        k = seats[i, 3]
        future = p - s
        lead = p - (second if p == top else top)
        if abs(lead) >= DESIGN_LEAD_BOUND:  # lead * |lead| would leave int64
            return beyond
        held = lead
        if limit >= 0 and abs(lead) > limit:
            held = -limit if lead < 0 else limit
        curve = (held * abs(held)) // (10 * w)
        slope = c[0] + c[1] * r + c[5] * others_near + c[6] * near
        extra = -slope if slope < 0 else 0
        x[0] = p
        x[1] = p * r
        x[2] = s
        x[3] = s * r
        x[4] = near * w
        x[5] = future * others_near
        x[6] = future * near
        x[7] = w if k == 1 else 0
        x[8] = w * r if k == 1 else 0
        x[9] = w if k == 2 else 0
        x[10] = w if k == 3 else 0
        x[11] = curve
        x[12] = curve * r
        # a turn ahead (D5, D18): not one of the to_play seats still to play in this round
        x[13] = w if to_play > 0 and (k < 1 or k > to_play) else 0
        for q in range(14, c.shape[0]):  # the line-state counts (format 4), 0 without them
            x[q] = seats[i, q - 10] * w if sheet else 0
        total = extra * p
        for f in range(c.shape[0]):
            total += c[f] * x[f]
            largest = max(largest, abs(x[f]))
        z[i] = total
        if trees:  # the trees read the RAW features: the curve of the lead as it is
            width = c.shape[0]
            for f in range(width):
                u[i, f] = x[f]
                u[1 - i, width + f] = x[f]
            u[i, 11] = (lead * abs(lead)) // (10 * w)
            u[i, 12] = u[i, 11] * r
            u[1 - i, width + 11] = u[i, 11]
            u[1 - i, width + 12] = u[i, 12]
            u[i, 2 * width] = phase
    return largest


def _win_gaps(set_ids: np.ndarray, d_lines: np.ndarray, d_counts: np.ndarray, d_points: np.ndarray,
              set_masks: np.ndarray, closed_bits: int, losing: bool, m: np.ndarray, a: np.ndarray, mp: np.ndarray,
              ap: np.ndarray, sizes: np.ndarray, t: int, trigger: int, n_shelves: int, coef: np.ndarray,
              glob: np.ndarray, ctx: np.ndarray, threat: np.ndarray, triggered: bool, opponent_distance: int,
              opponent_values: np.ndarray, block: np.ndarray, weight_scale: int, rest: np.ndarray,
              calibration: np.ndarray, tree_nodes: np.ndarray, tree_roots: np.ndarray, round_number: int,
              to_play: int, low: int, high: int, ways: int) -> tuple[np.ndarray, np.ndarray, bool, np.ndarray,
                                                                      np.ndarray, np.ndarray]:  # pragma: no cover
    """The ``win`` objective's strength differences of ``K`` candidate sheets at once
    (:meth:`win_model.WinObjective.chance_of` up to the softmax): per candidate (as
    :func:`_learned_seats`) every seat's :data:`win_model.SEAT_COLUMNS` (the player's, then each
    opponent's ``P`` after the blocks with ``rest (J, 3 + S)``, :attr:`WinObjective.opponent_seats`:
    ``S`` line-state counts, 0 or ``2 * LINE_STATES``; the player's candidate sheets' own
    counts are the sheet's moved by each changed line, :func:`_line_state`, or, where every sheet
    coefficient is 0, the sheet's: the same strengths),
    the strengths (:func:`_win_strengths`, ``calibration (3, F)`` rows :data:`win_model.ROWS`,
    at ``round_number`` with ``to_play`` seats still to play in the round; with 2 seats plus the
    tree terms of ``tree_nodes (N, 5)``, ``tree_roots (R,)``, :func:`_win_tree_strengths`, R 0: none)
    and ``gaps[k, j] = z_j - z_0`` ``int64 (K+1, 1 + J)``. Returns ``gaps``, ``usable (K+1,)``
    and whether every product fits int64 (``False``: use the numpy path, whose Python integers
    are exact), and per candidate ``settled int64 (K+1,)``: :func:`win_chance.settled_shares` of
    its score against ``low``, ``high``, ``ways`` (:func:`win_chance.settled_bounds`) where it
    ends the player's game (phase 0): 0 below ``low``, 1 above ``high``, ``ways`` at ``low`` when
    ``ways`` is not 0 (a share ``1 / ways``, D20), else -1; then per candidate its score (D19) and
    its phase (:func:`_learned_seats`: 0 where the player's game is over), from which
    :func:`win_model.lost_rows` reads the opponents it puts out of the game."""
    usable, phases, owns, scores, distances, each = _learned_seats(
        set_ids, d_lines, d_counts, d_points, set_masks, closed_bits, losing, m, a, mp, ap, sizes, t, trigger,
        n_shelves, coef, glob, ctx, threat, triggered, opponent_distance, opponent_values, block, weight_scale)
    n_rows = usable.shape[0]
    n_opp = each.shape[1]
    n = 1 + n_opp
    gaps = np.zeros((n_rows, n), np.int64)
    n_states = rest.shape[1] - 3  # the opponents' line-state counts (0 columns: no sheet features)
    seats = np.zeros((n, 4 + n_states), np.int64)
    z = np.zeros(n, np.int64)
    x = np.zeros(calibration.shape[1], np.int64)
    width = calibration.shape[1]
    trees = n == 2 and tree_roots.shape[0] > 0
    u = np.zeros((2, 2 * width + 1 if trees else 1), np.int64)  # (not written without trees)
    base = np.zeros(max(n_states, 1), np.int64)
    # the trees with the inputs alike for every candidate read once (_win_tree_fixed), per seat:
    # the player's ``plays next`` columns and "a turn ahead" (it has just played), the other seat's
    # score, near flag, ``plays next`` columns, "a turn ahead" and line states (as the turn starts)
    own_nodes = np.zeros((tree_nodes.shape[0] if trees else 0, 5), np.int64)
    own_roots = np.zeros(tree_roots.shape[0] if trees else 0, np.int64)
    other_nodes = np.zeros_like(own_nodes)
    other_roots = np.zeros_like(own_roots)
    n_own = 0
    n_other = 0
    own_offset = 0
    other_offset = 0
    ready = False
    moved = trees  # the candidates' own states, needed only where a sheet coefficient is not 0 or trees read them
    for r in range(calibration.shape[0]):
        for f in range(14, calibration.shape[1]):
            moved = moved or calibration[r, f] != 0
    if n_states > 0:
        _sheet_states(m, a, n_shelves, base)
    for j in range(n_opp):
        for q in range(n_states):
            seats[1 + j, 4 + q] = rest[j, 3 + q]
    settled = np.full(n_rows, -1, np.int64)
    largest = 0
    for k in range(n_rows):
        if not usable[k]:
            continue
        if phases[k] == 0:  # the player's game is over: win_chance.settled_shares
            if scores[k] < low:
                settled[k] = 0
            elif scores[k] > high:
                settled[k] = 1
            elif ways > 0 and scores[k] == low:
                settled[k] = ways
        seats[0, 0] = owns[k]
        seats[0, 1] = scores[k]
        seats[0, 2] = distances[k]
        seats[0, 3] = 0
        if n_states > 0:  # the candidate sheet's line states: the sheet's, each changed line moved
            for q in range(n_states):
                seats[0, 4 + q] = base[q]
            if moved and k < n_rows - 1:
                for ww in range(set_ids.shape[1]):
                    d = set_ids[k, ww]
                    if d < 0:
                        break
                    line = d_lines[d]
                    gone = d_counts[d]
                    seats[0, 4 + _line_state(line, m[line], a[line], n_shelves)] -= 1
                    seats[0, 4 + _line_state(line, m[line] if losing else m[line] + gone, a[line] - gone,
                                             n_shelves)] += 1
        for j in range(n_opp):
            seats[1 + j, 0] = each[k, j]
            seats[1 + j, 1] = rest[j, 0]
            seats[1 + j, 2] = rest[j, 1]
            seats[1 + j, 3] = rest[j, 2]
        phase = phases[k]
        row = 0 if phase == 0 else (1 if phase == 2 else 2)
        found = _win_strengths_into(seats, calibration[row], round_number, to_play, weight_scale, z, x, phase, trees, u)
        largest = max(largest, found)
        if trees and found < (1 << 62):
            if not ready:
                mover = np.zeros(width, np.bool_)  # the player's inputs alike for every candidate
                other = np.zeros(width, np.bool_)  # the other seat's
                for f in (7, 8, 9, 10, 13):
                    mover[f] = True
                    other[f] = True
                for f in (2, 3, 4):
                    other[f] = True
                for f in range(14, width):
                    other[f] = True
                fixed = np.zeros(2 * width + 1, np.bool_)
                for f in range(width):  # the player's term: u = [player, other seat, phase]
                    fixed[f] = mover[f]
                    fixed[width + f] = other[f]
                n_own, own_offset = _win_tree_fixed(tree_nodes, tree_roots, u[0], fixed, own_nodes, own_roots)
                for f in range(width):  # the other seat's term: u = [other seat, player, phase]
                    fixed[f] = other[f]
                    fixed[width + f] = mover[f]
                n_other, other_offset = _win_tree_fixed(tree_nodes, tree_roots, u[1], fixed, other_nodes,
                                                        other_roots)
                ready = True
            z[0] += own_offset + _win_tree_term(own_nodes, own_roots[:n_own], u[0])
            z[1] += other_offset + _win_tree_term(other_nodes, other_roots[:n_other], u[1])
        for j in range(n):
            gaps[k, j] = z[j] - z[0]
    most = 0
    for r in range(calibration.shape[0]):
        for f in range(calibration.shape[1]):
            most = max(most, abs(calibration[r, f]))
    limit = 1 << 60 if trees else 1 << 62  # with trees |c . x| below 2**60 and |T| below 2**61 (win_trees)
    per = most * calibration.shape[1]
    ok = largest < limit and most < limit // 64 and (per == 0 or largest < limit // per)  # bound < 2^62
    # (win_model.strength_numerators; ``largest == 2^62``: a feature beyond win_model.design's int64 bounds)
    return gaps, usable, ok, settled, scores, phases


def _marked_points(bits: int, cell_lines: np.ndarray, values: np.ndarray, t: int, count: np.ndarray,
                   points: np.ndarray) -> int:  # pragma: no cover - compiled
    """The score (D19) of a sheet whose marked items are the bits of ``bits`` (bit ``i``: cell
    ``i``): each line (``cell_lines (cells, 2)``: a cell's shelf and column) with at least ``t``
    marked items scores their ``values``. ``count``, ``points``: scratch ``int64 (L,)``."""
    for line in range(count.shape[0]):
        count[line] = 0
        points[line] = 0
    for c in range(cell_lines.shape[0]):
        if (bits >> c) & 1:
            for q in range(2):
                line = cell_lines[c, q]
                count[line] += 1
                points[line] += values[c]
    total = 0
    for line in range(count.shape[0]):
        if count[line] >= t:
            total += points[line]
    return total


def _blocks_put_out(set_masks: np.ndarray, index: np.ndarray, marked_bits: int, other_marked: np.ndarray,
                    other_eliminated: np.ndarray, line_masks: np.ndarray, cell_lines: np.ndarray,
                    values: np.ndarray, t: int) -> np.ndarray:  # pragma: no cover - compiled
    """The put-out rule, compiled (:func:`win_model.blocks_put_out` is its numpy implementation and
    the reference; the two give the same integers, tests/test_put_out_kernel.py): ``int8 (n,)``,
    ``1`` for the item sets ``index`` (into ``set_masks``, each of available items of the player's
    sheet, whose marked items are ``marked_bits``) that complete a line (D15: ``line_masks``, every
    item marked after the set, not before) and after whose blocks every other sheet's
    :func:`board.highest_score` (``other_marked``/``other_eliminated`` ``(J,)``: every item still
    available and not on a completed line marked, D13, D15, D19) is below the player's score after
    the set (D19): it wins alone (D20); ``-1`` for the others (all of them with no other sheet).
    Cheapest first: a set must complete a line and score above every other sheet's score now (a
    ceiling is never below it: marked items stay); each set of blocked cells' ceiling is computed
    once per call."""
    n = index.shape[0]
    out = np.full(n, -1, np.int8)
    n_others = other_marked.shape[0]
    if n_others == 0:
        return out
    n_lines = line_masks.shape[0]
    full = (np.int64(1) << np.int64(cell_lines.shape[0])) - 1
    count = np.zeros(n_lines, np.int64)
    points = np.zeros(n_lines, np.int64)
    top = _marked_points(other_marked[0], cell_lines, values, t, count, points)  # the best other score now
    for j in range(1, n_others):
        top = max(top, _marked_points(other_marked[j], cell_lines, values, t, count, points))
    seen_cells = np.zeros(n, np.int64)  # the blocked cells met so far and their best other ceiling
    seen_ceiling = np.zeros(n, np.int64)
    n_seen = 0
    for i in range(n):
        after = marked_bits | set_masks[index[i]]
        cells = 0  # the items of the lines the set completes
        for line in range(n_lines):
            lm = line_masks[line]
            if after & lm == lm and marked_bits & lm != lm:
                cells |= lm
        if cells == 0:
            continue
        final = _marked_points(after, cell_lines, values, t, count, points)
        if final <= top:
            continue
        ceiling = 0
        known = False
        for q in range(n_seen):
            if seen_cells[q] == cells:
                ceiling = seen_ceiling[q]
                known = True
                break
        if not known:
            for j in range(n_others):
                theirs = other_marked[j]
                reach = theirs | (~(theirs | other_eliminated[j] | cells) & full)
                found = _marked_points(reach, cell_lines, values, t, count, points)
                ceiling = found if j == 0 else max(ceiling, found)
            seen_cells[n_seen] = cells
            seen_ceiling[n_seen] = ceiling
            n_seen += 1
        if final > ceiling:
            out[i] = 1
    return out


def _win_front(set_ids: np.ndarray, d_lines: np.ndarray, d_counts: np.ndarray, d_points: np.ndarray,
               set_masks: np.ndarray, marked_bits: int, eliminated_bits: int, cell_lines: np.ndarray,
               values: np.ndarray, sizes: np.ndarray, t: int, trigger: int, n_shelves: int, coef: np.ndarray,
               glob: np.ndarray, ctx: np.ndarray, threat: np.ndarray, triggered: bool, opponent_distance: int,
               opponent_values: np.ndarray, block: np.ndarray, weight_scale: int, rest: np.ndarray,
               calibration: np.ndarray, tree_nodes: np.ndarray, tree_roots: np.ndarray, round_number: int,
               to_play: int, exact: bool, put_out: bool, set_lines: np.ndarray,
               set_counts: np.ndarray, set_points: np.ndarray, other_marked: np.ndarray,
               other_eliminated: np.ndarray, line_masks: np.ndarray, low: int,
               high: int, ways: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, bool, np.ndarray,
                                              np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                              np.ndarray, np.ndarray]:  # pragma: no cover
    """The front half of ``win``'s turn (:meth:`win_model.WinObjective.compiled_turn_values`)
    from the player's sheet as bit masks, in one call: the line totals (:func:`engine.kernel.
    _bit_line_totals`), the strength differences of every item set and of every shelf a failed
    result may give up (D13; :func:`_win_gaps` twice, the shelves by :func:`_shelf_candidates`),
    and, when ``exact``, :func:`engine.kernel._markings_end` of the usable sets (D15, D17, D19),
    when ``put_out``, :func:`_blocks_put_out` of them against ``other_marked``/``other_eliminated``;
    ``tree_nodes``, ``tree_roots``: the 2-player trees (:func:`_win_gaps`; zero roots: none).

    Returns ``(gaps int64 (U + S, 1 + J)`` — the usable sets' rows, then the shelves', in the
    order of :func:`_win_gaps`' rows; ``index (U,)`` the usable sets; ``shelves (S,)`` those with
    an available item; ``usable (K+1,)``; whether every product fits int64; and
    ``_markings_end``'s ``ends``, ``gains``, ``blocked`` of ``index`` (empty unless ``exact``);
    then the rows' ``settled (U + S,)`` (:func:`_win_gaps`, ``low``, ``high``, ``ways``), the rows'
    scores ``int64 (U + S,)`` (D19) and whether the player's game is over after each, ``bool (U +
    S,)`` (phase 0: :func:`win_model.lost_rows`) and :func:`_blocks_put_out` of ``index``, ``int8
    (U,)``, all -1 unless ``put_out``). The same integers as those calls made one by one."""
    n_lines = sizes.shape[0]
    m, a, mp, ap = _bit_line_totals(marked_bits, eliminated_bits, cell_lines, values, n_lines)
    closed = marked_bits | eliminated_bits
    gaps, usable, ok, settled, scores, phases = _win_gaps(
        set_ids, d_lines, d_counts, d_points, set_masks, closed, False, m, a, mp, ap, sizes, t, trigger, n_shelves,
        coef, glob, ctx, threat, triggered, opponent_distance, opponent_values, block, weight_scale, rest,
        calibration, tree_nodes, tree_roots, round_number, to_play, low, high, ways)
    shelf_ids, s_lines, s_counts, s_points = _shelf_candidates(values, n_shelves, closed)
    shelf_gaps, _, shelf_ok, shelf_settled, shelf_scores, shelf_phases = _win_gaps(
        shelf_ids, s_lines, s_counts, s_points, np.zeros(0, np.int64), 0, True, m, a, mp, ap, sizes, t, trigger,
        n_shelves, coef, glob, ctx, threat, triggered, opponent_distance, opponent_values, block, weight_scale, rest,
        calibration, tree_nodes, tree_roots, round_number, to_play, low, high, ways)
    n_sets = usable.shape[0] - 1
    n_used = 0
    for k in range(n_sets):
        if usable[k]:
            n_used += 1
    index = np.zeros(n_used, np.int64)
    i = 0
    for k in range(n_sets):
        if usable[k]:
            index[i] = k
            i += 1
    width = shelf_ids.shape[1]
    n_open = 0
    for s in range(n_shelves):
        if s_counts[s * width] > 0:
            n_open += 1
    shelves = np.zeros(n_open, np.int64)
    i = 0
    for s in range(n_shelves):
        if s_counts[s * width] > 0:
            shelves[i] = s
            i += 1
    n = gaps.shape[1]
    out = np.zeros((n_used + n_open, n), np.int64)
    out_settled = np.zeros(n_used + n_open, np.int64)
    out_scores = np.zeros(n_used + n_open, np.int64)
    out_over = np.zeros(n_used + n_open, np.bool_)
    for i in range(n_used):
        out_settled[i] = settled[index[i]]
        out_scores[i] = scores[index[i]]
        out_over[i] = phases[index[i]] == 0
        for j in range(n):
            out[i, j] = gaps[index[i], j]
    for i in range(n_open):
        out_settled[n_used + i] = shelf_settled[shelves[i]]
        out_scores[n_used + i] = shelf_scores[shelves[i]]
        out_over[n_used + i] = shelf_phases[shelves[i]] == 0
        for j in range(n):
            out[n_used + i, j] = shelf_gaps[shelves[i], j]
    if exact:
        ends, gains, blocked = _markings_end(set_masks, set_lines, set_counts, set_points, index, marked_bits,
                                             eliminated_bits, other_marked, other_eliminated, line_masks, n_shelves,
                                             trigger, m, mp, t)
    else:
        ends = np.zeros(0, np.bool_)
        gains = np.zeros(0, np.int64)
        blocked = np.zeros((0, other_marked.shape[0]), np.int64)
    if put_out:
        sure = _blocks_put_out(set_masks, index, marked_bits, other_marked, other_eliminated, line_masks, cell_lines,
                               values, t)
    else:
        sure = np.full(n_used, -1, np.int8)
    return out, index, shelves, usable, ok and shelf_ok, ends, gains, blocked, out_settled, out_scores, out_over, \
        sure


def _win_turn(marked: np.ndarray, eliminated: np.ndarray, active: int, ends: np.ndarray, turn: int, triggered: bool,
              per_turn: int, blocking: bool, coef: np.ndarray, glob: np.ndarray, context_weights: np.ndarray,
              weight_scale: int, far: int, calibration: np.ndarray, tree_nodes: np.ndarray, tree_roots: np.ndarray,
              exact: bool, set_ids: np.ndarray,
              d_lines: np.ndarray, d_counts: np.ndarray, d_points: np.ndarray, set_masks: np.ndarray,
              cell_lines: np.ndarray, values: np.ndarray, sizes: np.ndarray, t: int, trigger: int, n_shelves: int,
              set_lines: np.ndarray, set_counts: np.ndarray, set_points: np.ndarray,
              line_masks: np.ndarray, low: int, high: int, ways: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                                                    bool, np.ndarray, np.ndarray, np.ndarray,
                                                                    np.ndarray, np.ndarray,
                                                                    np.ndarray, np.ndarray]:  # pragma: no cover - compiled
    """``win``'s turn up to the softmax from every seat's sheet as bit masks ``marked``/``eliminated``
    ``(n,)``, in one call: what :func:`win_model.win_objective` builds for the active seat — the
    opponents' ``P``, the blocks and the threatened lines (:func:`_learned_opponents`, with
    ``ends`` as :func:`learned.objective.game_objective` gives it), the context term (the
    weights ``context_weights`` times :func:`learned.objective.table_context`), the opponents'
    least distance to the trigger (``far`` with none, D17) and their
    :data:`win_model.SEAT_COLUMNS` (score, D19; closed shelves short of the trigger; turns
    until they play, D5: :func:`win_model.opponent_seats`) — then :func:`_win_front` of the
    active sheet (the round, ``turn // n + 1``, as :attr:`GameState.round`; the seats still to play
    in it, ``to_play`` of :func:`win_model.design`, the seats marked in ``ends``). The same integers
    as those functions and :meth:`win_model.WinObjective.compiled_turn_values`; returns
    :func:`_win_front`'s, the put-out rule's rows among them (:func:`_blocks_put_out` against every
    other seat; ``low``, ``high``, ``ways``: :func:`win_chance.settled_bounds`; ``tree_nodes``,
    ``tree_roots``: the 2-player trees, :func:`_win_gaps`)."""
    n = marked.shape[0]
    n_lines = sizes.shape[0]
    n_cells = cell_lines.shape[0]
    each, block, threat = _learned_opponents(marked, eliminated, active, ends, turn, cell_lines, values, sizes, t,
                                             trigger, n_shelves, per_turn, blocking, coef, glob, context_weights,
                                             weight_scale)
    n_states = calibration.shape[1] - 14 if calibration.shape[1] > 14 else 0
    rest = np.zeros((n - 1, 3 + n_states), np.int64)
    states = np.zeros(max(n_states, 1), np.int64)
    other_marked = np.zeros(n - 1, np.int64)
    other_eliminated = np.zeros(n - 1, np.int64)
    context = np.zeros(3, np.int64)
    context[0] = turn // n + 1
    distance = far
    to_play = 0
    i = 0
    for j in range(n):
        if j == active:
            continue
        to_play += ends[j]
        mb = marked[j]
        eb = eliminated[j]
        for c in range(n_cells):
            context[1] += (mb >> c) & 1
            context[2] += 1 - (((mb | eb) >> c) & 1)
        m, a, mp, _ = _bit_line_totals(mb, eb, cell_lines, values, n_lines)
        points = 0
        for line in range(n_lines):
            if m[line] >= t:  # D19: a line scores its marked items once it has t of them
                points += mp[line]
        closed = 0
        for shelf in range(n_shelves):
            if a[shelf] == 0:
                closed += 1
        rest[i, 0] = points
        rest[i, 1] = trigger - closed
        rest[i, 2] = (j - active) % n
        if n_states > 0:  # its line states at the turn's start (win_model.opponent_seats)
            _sheet_states(m, a, n_shelves, states)
            for q in range(n_states):
                rest[i, 3 + q] = states[q]
        distance = min(distance, trigger - closed)
        other_marked[i] = mb
        other_eliminated[i] = eb
        i += 1
    ctx = np.zeros(context_weights.shape[0], np.int64)
    for r in range(context_weights.shape[0]):
        total = 0
        for q in range(3):
            total += context_weights[r, q] * context[q]
        ctx[r] = total
    return _win_front(set_ids, d_lines, d_counts, d_points, set_masks, marked[active], eliminated[active], cell_lines,
                      values, sizes, t, trigger, n_shelves, coef, glob, ctx, threat, triggered, distance, each, block,
                      weight_scale, rest, calibration, tree_nodes, tree_roots, turn // n + 1, to_play, exact, True,
                      set_lines,
                      set_counts, set_points,
                      other_marked, other_eliminated, line_masks, low, high, ways)
