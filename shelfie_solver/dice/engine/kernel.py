"""A compiled kernel for the DP of :mod:`dp` (docs/engine.md), used by :mod:`batched` and the
``solver`` strategy when numba is installed (``pip install '.[fast]'`` in the clone).

The kernel runs the very recursion of :func:`dp.solve` on int64 (the callers check the
int64 bound first): E_r[h] = sum of weight * V_(r-1)[roll] over hold ``h``'s transition row
(summed one die at a time), the full rolls' rows set to stopping (D7), and each roll's best
hold among its sub-holds (found one die at a time too) with the tie rule of
:func:`dp._best_holds` (max column 0, then min column 1, then the lower hold index). The
final values (each roll's most valuable usable item set, D8-D14) and the ``strategic``
objective are compiled too, so the solver's whole turn is one call (:func:`_solver_turn`) and a
batch of states two (:func:`_finals_many`, :func:`_dp_minor`). ``advise`` and ``odds`` never
import this module (start-up), and without numba everything runs on numpy, with equal results.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

import numpy as np

from shelfie_solver.core.compiled import import_numba
from shelfie_solver.dice.engine.transitions import INT64_SAFE, hold_steps, pairs

if TYPE_CHECKING:
    from collections.abc import Sequence

    from shelfie_solver.dice.allocate import FeasibilityArrays
    from shelfie_solver.dice.board import Board, Marks
    from shelfie_solver.dice.rules import Ruleset


#: The compiled functions, callees first: each is compiled by numba and put in this module's
#: namespace in place of the Python function, so the later ones call the compiled ones (the
#: compiled ``learned`` objective, which calls :func:`_scan`, :func:`_level` and :func:`_turn_levels`, is
#: :mod:`learned.kernel`).
_COMPILED_ORDER = ("_potential", "_sum_columns", "_level", "_top_hold", "_dp_minor", "_failed", "_strategic", "_usable_list",
                   "_strategic_sets", "_scan", "_best_points", "_markings_end", "_line_totals", "_bit_line_totals",
                   "_n_lines", "_best_scores",
                   "_sheet", "_dp", "_best_marking", "_turn_levels", "_solver_turn", "_finals_many",
                   "_last_turn_block", "_last_turn_starts", "_before_last_values")


def compile_into(namespace: dict[str, Any], names: tuple[str, ...]) -> dict[str, Any] | None:
    """Compile the functions ``names`` of a module's ``namespace`` (its ``globals()``), callees
    first, with numba (cached on disk), each put in the namespace in place of the Python function
    so the later ones call the compiled ones. Returns ``{name: compiled}``, or ``None`` when numba
    is not installed (the namespace unchanged)."""
    numba = import_numba()  # once for every kernel, without SciPy's BLAS probe (core/compiled.py)
    if numba is None:
        return None
    out = {}
    for name in names:
        func = namespace[name]
        try:
            done = numba.njit(cache=True, nogil=True)(func)
        except RuntimeError:  # no writable place for numba's cache (a read-only install): compile per process
            done = numba.njit(nogil=True)(func)
        namespace[name] = out[name] = done
    return out


@cache
def compiled_kernels() -> dict[str, Any] | None:
    """Every function of :data:`_COMPILED_ORDER` compiled by numba (:func:`compile_into`),
    unwrapped (to be called from other compiled code, e.g. :mod:`learned.kernel`), or ``None``
    when numba is not installed."""
    return compile_into(globals(), _COMPILED_ORDER)


def calling(compiled_func: Any) -> Any:
    """``compiled_func`` (a numba dispatcher) wrapped for calls from Python: a signal handler
    that raised while the compiled call was returning (Ctrl-C, SIGTERM in simulate) surfaces as
    that exception, not numba's ``SystemError``."""

    def call(*args: Any) -> Any:
        try:
            return compiled_func(*args)
        except SystemError as error:
            # numba reports SystemError(s); hand on the real exception
            cause: BaseException = error
            while isinstance(cause, SystemError) and cause.__cause__ is not None:
                cause = cause.__cause__
            if cause is error:
                raise
            raise cause from None

    return call


@cache
def kernel_function(name: str) -> Any:
    """The compiled function ``name`` of :data:`_COMPILED_ORDER` (e.g. ``"_solver_turn"``),
    wrapped for calls from Python (:func:`calling`), or ``None`` without numba."""
    found = compiled_kernels()
    return None if found is None else calling(found[name])


def compiled() -> Any:
    """The jitted DP function :func:`_dp`, or ``None`` without numba."""
    return kernel_function("_dp")



def _dp(extend: np.ndarray, power: np.ndarray, order: np.ndarray, shrink: np.ndarray, level0: np.ndarray,
        denominator: int, rerolls: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # pragma: no cover - compiled
    """``level0`` ``(N, R, Q)`` int64 -> values ``(rerolls+1, N, R, Q)``, hold values
    ``(rerolls+1, N, H, Q)`` (level 0 unused) and policy ``(rerolls+1, N, R)`` (level 0 unused).

    The re-roll expectation one die at a time (:func:`transitions.hold_steps`): ``S[h]``, the sum of
    V_(r-1) over every ordered way to roll the dice ``h`` leaves free, is ``V_(r-1)[h]`` for a
    full roll and ``sum over sides f of S[h + f]`` otherwise (``extend[h, f]``, holds taken in
    ``order``: more dice kept first); then ``E_r[h] = power[h] * S[h]`` with ``power[h] =
    sides ** kept(h)``, the integer of the transition weights ``multinomial * sides ** kept``.
    The same integers as the sparse product, with about half the multiply-adds.

    Each roll's best hold one die at a time too (:func:`_level`): the best sub-hold of ``h``
    is the best of ``h`` itself and of the best sub-holds of ``h`` less one die (``shrink``),
    under the total order of :func:`dp._best_holds` (max column 0, then min column 1,
    then the lower hold index), so it equals the scan of every sub-hold with 6 comparisons
    per hold instead of one per (roll, sub-hold) pair."""
    n_states, n_rolls, q = level0.shape
    n_holds = extend.shape[0]
    values = np.zeros((rerolls + 1, n_states, n_rolls, q), np.int64)
    hold_values = np.zeros((rerolls + 1, n_states, n_holds, q), np.int64)
    policy = np.zeros((rerolls + 1, n_states, n_rolls), np.int64)
    sums = np.zeros((n_holds, q), np.int64)
    best = np.zeros(n_holds, np.int64)
    for n in range(n_states):
        values[0, n] = level0[n]
        factor = 1
        for level in range(1, rerolls + 1):
            factor *= denominator
            _level(extend, power, order, shrink, level0[n], values[level - 1, n], factor, sums, best,
                   hold_values[level, n], values[level, n], policy[level, n])
    return values, hold_values, policy


#: States solved together by :func:`_dp_minor`: their rows stay in the core's cache (measured
#: on 64 random states: blocks of 16 took 0.6x the time of blocks of 8 and 0.4x that of 32).
_BLOCK_STATES = 16


def _dp_minor(extend: np.ndarray, power: np.ndarray, order: np.ndarray, shrink: np.ndarray, level0: np.ndarray,
              denominator: int, rerolls: int, values: np.ndarray, hold_values: np.ndarray,
              policy: np.ndarray) -> None:  # pragma: no cover - compiled
    """:func:`_dp` for many states at once, state-minor: from ``level0`` ``(R, N, Q)`` int64, fill
    ``values (rerolls, R, N, Q)``, ``hold_values (rerolls, H, N, Q)`` and ``policy (rerolls, R, N)``
    with levels 1..rerolls (index ``level - 1``; level 0 is ``level0`` itself), the layout of
    :class:`batched.BatchSolution`. The caller allocates them (numpy asks for huge pages for
    large arrays: fresh memory costs a page fault per 4 KiB otherwise, dear on this host).

    The same recursion and tie rule as :func:`_level`, each step done for a block of
    :data:`_BLOCK_STATES` states in one contiguous run (the inner loops vectorise: no per-state
    gathers, the best hold's columns kept beside its index); the block's rows stay in the
    core's cache, scratch arrays are allocated once."""
    n_rolls, n_states, q = level0.shape
    n_holds, n_sides = extend.shape
    most = min(n_states, _BLOCK_STATES)
    sums = np.zeros((n_holds, most * q), np.int64)
    expected = np.zeros((n_holds, most * q), np.int64)
    prev = np.zeros((n_rolls, most * q), np.int64)
    base = np.zeros((n_rolls, most * q), np.int64)
    best = np.zeros((n_holds, most), np.int64)
    best0 = np.zeros((n_holds, most), np.int64)
    best1 = np.zeros((n_holds, most), np.int64)
    for lo in range(0, n_states, _BLOCK_STATES):
        hi = min(n_states, lo + _BLOCK_STATES)
        nb = hi - lo
        width = nb * q
        for r in range(n_rolls):
            for n in range(nb):
                for c in range(q):
                    base[r, n * q + c] = level0[r, lo + n, c]
                    prev[r, n * q + c] = level0[r, lo + n, c]
        factor = 1
        for level in range(1, rerolls + 1):
            factor *= denominator
            for r in range(n_rolls):
                for j in range(width):
                    sums[r, j] = prev[r, j]
            for i in range(order.shape[0]):
                h = order[i]
                for j in range(width):
                    sums[h, j] = 0
                for f in range(n_sides):
                    g = extend[h, f]
                    for j in range(width):
                        sums[h, j] += sums[g, j]
                for j in range(width):
                    expected[h, j] = power[h] * sums[h, j]
            for r in range(n_rolls):  # keeping every die is stopping (D7)
                for j in range(width):
                    expected[r, j] = base[r, j] * factor
            for h in range(n_holds - 1, -1, -1):  # fewer dice kept first: each shrink is done already
                for n in range(nb):
                    best[h, n] = h
                    best0[h, n] = expected[h, n * q]
                    best1[h, n] = expected[h, n * q + 1] if q >= 2 else 0
                for f in range(n_sides):
                    g = shrink[h, f]
                    if g < 0:
                        continue
                    for n in range(nb):  # max column 0, then min column 1, then the lower hold index
                        k = best[g, n]
                        k0 = best0[g, n]
                        k1 = best1[g, n]
                        b = best[h, n]
                        b0 = best0[h, n]
                        b1 = best1[h, n]
                        mask = -np.int64((k0 > b0) | ((k0 == b0) & ((k1 < b1) | ((k1 == b1) & (k < b)))))
                        best[h, n] = b ^ ((b ^ k) & mask)
                        best0[h, n] = b0 ^ ((b0 ^ k0) & mask)
                        best1[h, n] = b1 ^ ((b1 ^ k1) & mask)
            for h in range(n_holds):
                for n in range(nb):
                    for c in range(q):
                        hold_values[level - 1, h, lo + n, c] = expected[h, n * q + c]
            for r in range(n_rolls):
                for n in range(nb):
                    k = best[r, n]
                    policy[level - 1, r, lo + n] = k
                    for c in range(q):
                        v = expected[k, n * q + c]
                        prev[r, n * q + c] = v
                        values[level - 1, r, lo + n, c] = v


#: Last turns solved together by :func:`_last_turn_block`: one value per case in each inner loop
#: (contiguous, so the loops vectorise), the block's rows kept in the core's cache.
_LAST_TURN_BLOCK = 8


def _last_turn_block(best: np.ndarray, sheet: np.ndarray, tops: np.ndarray, ties: np.ndarray, lo: int, hi: int,
                     win_unit: int, extend: np.ndarray, power: np.ndarray, order: np.ndarray, shrink: np.ndarray,
                     denominator: int, rerolls: int, start_columns: np.ndarray, start_weights: np.ndarray,
                     out: np.ndarray, base: np.ndarray, sums: np.ndarray,
                     worth: np.ndarray) -> None:  # pragma: no cover - compiled
    """The start numerators of the :class:`win_chance.LastTurnWin` turns ``lo..hi-1`` (at most
    :data:`_LAST_TURN_BLOCK`; a player's last turn against final scores, D18, D20) into
    ``out[lo:hi]``, without their holds or policy: case ``i`` is the sheet whose best score per
    final roll is ``best[sheet[i]] (R,)`` (:func:`win_chance.best_final_scores`) against a best
    other score ``tops[i]`` reached by ``ties[i] - 1`` players. A final roll is worth ``win_unit``
    above it, ``win_unit // ties[i]`` at it, else 0 (:func:`win_chance._shares_below`); then the
    DP of :func:`_level` (the re-roll expectation by ``extend``/``power``/``order``, keeping every
    die stops, D7) where only the values are kept: a roll's value is the most any of its
    sub-holds is worth (the tie rule picks among equal values, so it moves no value), then the
    initial roll's weighted sum (``start_columns``/``start_weights``, :func:`dp.initial_roll_row`:
    :func:`dp.start_sums`). The same integers as :func:`batched.solve_finals`'
    ``start_numerators`` of those final values; the caller checks that ``win_unit * D^(rerolls +
    1)`` fits int64. ``base (R, B)``, ``sums (H, B)`` and ``worth (H, B)`` are scratch."""
    n_holds, n_sides = extend.shape
    n_rolls = n_holds - order.shape[0]  # the full rolls come first among the holds
    nb = hi - lo
    for b in range(nb):
        top = tops[lo + b]
        at_top = win_unit // ties[lo + b]
        row = sheet[lo + b]
        for r in range(n_rolls):
            score = best[row, r]
            base[r, b] = win_unit if score > top else (at_top if score == top else 0)
    for r in range(n_rolls):
        for b in range(nb):
            sums[r, b] = base[r, b]  # level 0: the final values
    factor = 1
    for _ in range(rerolls):
        factor *= denominator
        for j in range(order.shape[0]):  # more dice kept first: each extension is summed already
            h = order[j]
            for b in range(nb):
                sums[h, b] = 0
            for f in range(n_sides):
                g = extend[h, f]
                for b in range(nb):
                    sums[h, b] += sums[g, b]
            for b in range(nb):
                worth[h, b] = power[h] * sums[h, b]
        for r in range(n_rolls):  # keeping every die is stopping (D7)
            for b in range(nb):
                worth[r, b] = base[r, b] * factor
        for h in range(n_holds - 1, -1, -1):  # fewer dice kept first: each shrink is done already
            for f in range(n_sides):
                g = shrink[h, f]
                if g >= 0:
                    for b in range(nb):
                        worth[h, b] = max(worth[h, b], worth[g, b])
        for r in range(n_rolls):
            for b in range(nb):
                sums[r, b] = worth[r, b]  # this level's values, the next level's sums of full rolls
    for b in range(nb):
        out[lo + b] = 0
    for k in range(start_columns.shape[0]):
        w = start_weights[k]
        c = start_columns[k]
        for b in range(nb):
            out[lo + b] += w * sums[c, b]


def _last_turn_starts(best: np.ndarray, sheet: np.ndarray, tops: np.ndarray, ties: np.ndarray, win_unit: int,
                      extend: np.ndarray, power: np.ndarray, order: np.ndarray, shrink: np.ndarray, denominator: int,
                      rerolls: int, start_columns: np.ndarray,
                      start_weights: np.ndarray) -> np.ndarray:  # pragma: no cover - compiled
    """:func:`_last_turn_block` of ``N`` cases, ``int64 (N,)``, in blocks of
    :data:`_LAST_TURN_BLOCK`: case ``i`` the sheet ``sheet[i]`` of ``best (S, R)`` against
    ``tops[i]`` and ``ties[i]``."""
    n_holds = extend.shape[0]
    n = tops.shape[0]
    out = np.empty(n, np.int64)
    base = np.empty((n_holds - order.shape[0], _LAST_TURN_BLOCK), np.int64)
    sums = np.empty((n_holds, _LAST_TURN_BLOCK), np.int64)
    worth = np.empty((n_holds, _LAST_TURN_BLOCK), np.int64)
    for lo in range(0, n, _LAST_TURN_BLOCK):
        _last_turn_block(best, sheet, tops, ties, lo, min(n, lo + _LAST_TURN_BLOCK), win_unit, extend, power, order,
                         shrink, denominator, rerolls, start_columns, start_weights, out, base, sums, worth)
    return out


def _before_last_values(after: np.ndarray, blocked: np.ndarray, marked_bits: int, eliminated_bits: int,
                        win_unit: int, cell_lines: np.ndarray, values: np.ndarray, set_lines: np.ndarray,
                        set_counts: np.ndarray, set_points: np.ndarray, set_masks: np.ndarray, t: int,
                        sizes: np.ndarray, set_starts: np.ndarray, set_rolls: np.ndarray, extend: np.ndarray,
                        power: np.ndarray, order: np.ndarray, shrink: np.ndarray, denominator: int, rerolls: int,
                        start_columns: np.ndarray, start_weights: np.ndarray) -> np.ndarray:  # pragma: no cover
    """:meth:`win_chance.BeforeLastWin.values_after` in one call (two players; the opponent plays
    the game's last turn after this one, D18): per marking ``k``, the player's score after it
    ``after[k]`` and the opponent's eliminated items after its blocks ``blocked[k]`` (D15; their
    marked items ``marked_bits`` do not change, their sheet now has ``eliminated_bits``), ``1 -``
    the opponent's chance on their last turn against that score (a tie shares the victory, D20),
    ``int64 (K,)`` over ``win_unit * D^(rerolls + 1)`` (:func:`win_chance.chance_scale`).

    Decided without a DP as the Python code decides it: 0 below the opponent's score now (their
    every final roll wins, D19), the whole scale above the best score their sheet before the
    blocks can reach (blocking never raises it), and, per sheet after the blocks, a sure loss
    or win where its every best final score (:func:`_best_scores`) is above or below the
    player's score, a sheet with no available item by its score alone; the other cases by
    :func:`_last_turn_starts` against ``(after[k],)``. Each distinct blocked sheet's best scores
    and each distinct (sheet, score) case are computed once. The same integers as the Python code."""
    n = after.shape[0]
    n_rolls = extend.shape[0] - order.shape[0]  # the full rolls come first among the holds
    scale = win_unit
    for _ in range(rerolls + 1):
        scale *= denominator
    unit = scale // win_unit
    full = (1 << cell_lines.shape[0]) - 1
    n_lines = _n_lines(cell_lines)
    m, _, mp, _ = _bit_line_totals(marked_bits, eliminated_bits, cell_lines, values, n_lines)
    now = 0  # the opponent's score (D19): blocking changes no marked item, so every sheet's
    for line in range(n_lines):
        if m[line] >= t:
            now += mp[line]
    high = now
    if (marked_bits | eliminated_bits) != full:
        best_now = _best_scores(marked_bits, eliminated_bits, cell_lines, values, set_lines, set_counts, set_points,
                                set_masks, t, sizes, set_starts, set_rolls, n_rolls)
        high = best_now.max()
    sheets = np.empty(n, np.int64)  # the distinct blocked sheets met, by their eliminated items
    bests = np.empty((n, n_rolls), np.int64)
    lows = np.empty(n, np.int64)
    highs = np.empty(n, np.int64)
    n_sheets = 0
    case_sheet = np.empty(n, np.int64)  # the distinct (sheet, score) cases, their values (-1: to solve)
    case_score = np.empty(n, np.int64)
    case_value = np.empty(n, np.int64)
    n_cases = 0
    case_of = np.full(n, -1, np.int64)  # each marking's case (-1: decided by the score alone)
    out = np.empty(n, np.int64)
    for k in range(n):
        mine = after[k]
        if mine > high:  # above their reach: a sure win
            out[k] = scale
            continue
        if mine < now:  # below their score now: a sure loss
            out[k] = 0
            continue
        theirs = blocked[k]
        s = -1
        for i in range(n_sheets):
            if sheets[i] == theirs:
                s = i
                break
        if s < 0:
            s = n_sheets
            n_sheets += 1
            sheets[s] = theirs
            if (marked_bits | theirs) != full:
                bests[s] = _best_scores(marked_bits, theirs, cell_lines, values, set_lines, set_counts, set_points,
                                        set_masks, t, sizes, set_starts, set_rolls, n_rolls)
                lows[s] = bests[s].min()
                highs[s] = bests[s].max()
        c = -1
        for i in range(n_cases):
            if case_sheet[i] == s and case_score[i] == mine:
                c = i
                break
        if c < 0:
            c = n_cases
            n_cases += 1
            case_sheet[c] = s
            case_score[c] = mine
            if (marked_bits | theirs) == full:  # no available item: their score stands (D13)
                case_value[c] = (win_unit if now > mine else (win_unit // 2 if now == mine else 0)) * unit
            elif lows[s] > mine:  # their every final roll wins alone (D20)
                case_value[c] = win_unit * unit
            elif highs[s] < mine:  # no roll of theirs reaches the player's score
                case_value[c] = 0
            else:
                case_value[c] = -1
        case_of[k] = c
    solve = np.empty(n_cases, np.int64)  # the cases left to the DP, against (mine,): one other seat, tied 2
    n_solve = 0
    for c in range(n_cases):
        if case_value[c] < 0:
            solve[n_solve] = c
            n_solve += 1
    if n_solve:
        found = _last_turn_starts(bests, case_sheet[solve[:n_solve]], case_score[solve[:n_solve]],
                                  np.full(n_solve, 2, np.int64), win_unit, extend, power, order, shrink, denominator,
                                  rerolls, start_columns, start_weights)
        for i in range(n_solve):
            case_value[solve[i]] = found[i]
    for k in range(n):
        if case_of[k] >= 0:
            out[k] = scale - case_value[case_of[k]]  # 1 - theirs (two players, D20)
    return out


def _sum_columns(extend: np.ndarray, power: np.ndarray, order: np.ndarray, sums: np.ndarray, expected: np.ndarray,
                 c: int, d: int) -> None:  # pragma: no cover - compiled
    """Columns ``c`` and ``d`` of :func:`_level`'s re-roll expectation (``c == d``: one column):
    ``sums[h] = sum over sides f of sums[extend[h, f]]`` for the holds in ``order``, and
    ``expected[h] = power[h] * sums[h]``. Two columns per pass keep the sums in registers."""
    for i in range(order.shape[0]):
        h = order[i]
        s0 = 0
        s1 = 0
        for f in range(extend.shape[1]):
            g = extend[h, f]
            s0 += sums[g, c]
            s1 += sums[g, d]
        sums[h, c] = s0
        sums[h, d] = s1
        expected[h, c] = power[h] * s0
        expected[h, d] = power[h] * s1


def _level(extend: np.ndarray, power: np.ndarray, order: np.ndarray, shrink: np.ndarray, base: np.ndarray,
           prev: np.ndarray, factor: int, sums: np.ndarray, best: np.ndarray, expected: np.ndarray,
           chosen: np.ndarray, policy: np.ndarray) -> None:  # pragma: no cover - compiled
    """One level of :func:`_dp` for one state: ``expected (H, Q)`` (E_r), ``chosen (R, Q)`` (V_r)
    and ``policy (R,)`` from ``prev (R, Q)`` (V_(r-1)) and ``base (R, Q)`` (the final values,
    stopping is worth ``base * factor``, D7). ``sums (H, Q)`` and ``best (H,)`` are scratch."""
    n_rolls, q = base.shape
    n_holds, n_sides = extend.shape
    for r in range(n_rolls):
        for c in range(q):
            sums[r, c] = prev[r, c]
    for c in range(0, q - 1, 2):  # two columns at a time (constants when q == 2: the solver's case)
        _sum_columns(extend, power, order, sums, expected, c, c + 1)
    if q % 2:
        _sum_columns(extend, power, order, sums, expected, q - 1, q - 1)
    for r in range(n_rolls):  # keeping every die is stopping (D7)
        for c in range(q):
            expected[r, c] = base[r, c] * factor
    for h in range(n_holds - 1, -1, -1):  # fewer dice kept first: each shrink is done already
        b = np.int64(h)
        b0 = expected[h, 0]
        b1 = expected[h, 1] if q >= 2 else 0
        for f in range(n_sides):
            g = shrink[h, f]
            if g < 0:
                continue
            k = best[g]
            k0 = expected[k, 0]
            k1 = expected[k, 1] if q >= 2 else 0
            # branch-free (bit masks): data-dependent jumps mispredict often here
            mask = -np.int64((k0 > b0) | ((k0 == b0) & ((k1 < b1) | ((k1 == b1) & (k < b)))))
            b = b ^ ((b ^ k) & mask)
            b0 = b0 ^ ((b0 ^ k0) & mask)
            b1 = b1 ^ ((b1 ^ k1) & mask)
        best[h] = b
    for r in range(n_rolls):
        k = best[r]
        policy[r] = k
        for c in range(q):
            chosen[r, c] = expected[k, c]


def compiled_best_marking() -> Any:
    """The jitted :func:`_best_marking`, or ``None`` without numba."""
    return kernel_function("_best_marking")


def _best_marking(worth: np.ndarray, usable: np.ndarray, sizes: np.ndarray, set_starts: np.ndarray,
                  set_rolls: np.ndarray, n_rolls: int, failed: int, most: int) -> np.ndarray:  # pragma: no cover
    """The columns of :func:`dp.final_values` ``(R, max(2, 1 + most))`` (:func:`_scan`)."""
    out = np.zeros((n_rolls, max(2, 1 + most)), np.int64)
    _scan(worth, usable, sizes, set_starts, set_rolls, failed, most, out)
    return out


def _usable_list(usable: np.ndarray, n_sets: int) -> np.ndarray:  # pragma: no cover - compiled
    """The indices ``k < n_sets`` with ``usable[k]``, in order (a branch-free compaction: no jump
    depends on the data, so none is mispredicted)."""
    found = np.empty(n_sets, np.int64)
    count = 0
    for k in range(n_sets):
        found[count] = k
        count += usable[k]
    return found[:count]


def _scan(worth: np.ndarray, usable: np.ndarray, sizes: np.ndarray, set_starts: np.ndarray, set_rolls: np.ndarray,
          failed: int, most: int, out: np.ndarray) -> int:  # pragma: no cover - compiled
    """Write into ``out (R, >= max(2, 1 + most))`` (zeros) the columns of :func:`dp.final_values`:
    column 0 each roll's most valuable usable feasible item set, or ``failed``; column 1 the
    failed-result indicator (D13); column ``j`` (2..most) 1 when some usable feasible set has
    at least ``j`` items. Only the values are written, so which of several equally valuable
    sets is the best does not matter. ``worth``/``usable``/``sizes`` are per item set; the
    feasible sets are read set by set (:func:`set_rolls`: the rolls that can mark each set),
    so an unusable set (D4) costs one test. Returns the largest magnitude written (the int64
    bound check of :func:`dp.solve`)."""
    n_rolls = out.shape[0]
    low = np.iinfo(np.int64).min
    best = np.full(n_rolls, low, np.int64)
    largest = np.zeros(n_rolls, np.int64)
    for s in _usable_list(usable, set_starts.shape[0] - 1):
        w = worth[s]
        z = sizes[s]
        for p in range(set_starts[s], set_starts[s + 1]):
            r = set_rolls[p]
            best[r] = max(best[r], w)
            largest[r] = max(largest[r], z)
    bound = 0
    for r in range(n_rolls):
        if largest[r] > 0:  # some usable set (every item set has at least one item)
            out[r, 0] = best[r]
        else:
            out[r, 0] = failed
            out[r, 1] = 1
        for j in range(2, most + 1):
            if largest[r] >= j:
                out[r, j] = 1
                bound = max(bound, 1)
        bound = max(bound, abs(out[r, 0]), out[r, 1])
    return bound


def _best_points(set_lines: np.ndarray, set_counts: np.ndarray, set_points: np.ndarray, set_masks: np.ndarray,
                 closed_bits: int, m: np.ndarray, mp: np.ndarray, t: int, sizes: np.ndarray, set_starts: np.ndarray,
                 set_rolls: np.ndarray, n_rolls: int) -> np.ndarray:  # pragma: no cover - compiled
    """Column 0 of :func:`dp.final_values` for the objective ``points`` (:class:`objectives.Points`,
    D19) in a sheet given by its marks per line ``m`` and marked points ``mp`` and its closed
    items ``closed_bits`` (D4, against the sets' bit ``set_masks``): per final roll the most
    points a usable feasible item set adds (each line it touches scores ``M + points`` once it
    has ``t`` marks, minus what it scored), 0 for a failed result (D13), ``int64 (R,)``."""
    n_sets = set_lines.shape[0]
    worth = np.zeros(n_sets + 1, np.int64)
    usable = np.zeros(n_sets + 1, np.bool_)
    for k in range(n_sets):
        usable[k] = (set_masks[k] & closed_bits) == 0
    for k in _usable_list(usable, n_sets):
        total = 0
        for j in range(set_lines.shape[1]):
            line = set_lines[k, j]
            if line < 0:
                break
            after = mp[line] + set_points[k, j] if m[line] + set_counts[k, j] >= t else 0
            total += after - (mp[line] if m[line] >= t else 0)
        worth[k] = total
    out = np.zeros((n_rolls, 2), np.int64)
    _scan(worth, usable, sizes, set_starts, set_rolls, 0, 1, out)
    return out[:, 0].copy()


def _n_lines(cell_lines: np.ndarray) -> int:  # pragma: no cover - compiled
    """The board's lines (shelves, then columns) from each cell's two lines ``cell_lines (C, 2)``:
    every line holds a cell, so one more than the highest index."""
    most = 0
    for c in range(cell_lines.shape[0]):
        most = max(most, cell_lines[c, 0], cell_lines[c, 1])
    return most + 1


def _best_scores(marked_bits: int, eliminated_bits: int, cell_lines: np.ndarray, values: np.ndarray,
                 set_lines: np.ndarray, set_counts: np.ndarray, set_points: np.ndarray, set_masks: np.ndarray, t: int,
                 sizes: np.ndarray, set_starts: np.ndarray, set_rolls: np.ndarray,
                 n_rolls: int) -> np.ndarray:  # pragma: no cover - compiled
    """:func:`win_chance.best_final_scores` of a sheet given by its bit masks: its line totals
    (:func:`_bit_line_totals`), its score (D19: a line with ``t`` marked items scores their
    points) plus :func:`_best_points` per final roll, ``int64 (R,)``."""
    n_lines = _n_lines(cell_lines)  # (``sizes`` are the item sets' sizes, not the lines')
    m, _, mp, _ = _bit_line_totals(marked_bits, eliminated_bits, cell_lines, values, n_lines)
    now = 0
    for line in range(n_lines):
        if m[line] >= t:
            now += mp[line]
    out = _best_points(set_lines, set_counts, set_points, set_masks, marked_bits | eliminated_bits, m, mp, t, sizes,
                       set_starts, set_rolls, n_rolls)
    for r in range(n_rolls):
        out[r] += now
    return out


def _markings_end(set_masks: np.ndarray, set_lines: np.ndarray, set_counts: np.ndarray, set_points: np.ndarray,
                  index: np.ndarray, marked_bits: int, eliminated_bits: int, other_marked: np.ndarray,
                  other_eliminated: np.ndarray, line_masks: np.ndarray, n_shelves: int, need: int, m: np.ndarray,
                  mp: np.ndarray, t: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # pragma: no cover - compiled
    """:func:`sheet_rules.markings_end_game` of the item sets ``index`` (available items of the
    player's sheet, given by its bit masks, line totals ``m``, ``mp`` and the sets' bit
    ``set_masks``), the other sheets by their bit masks ``other_marked``/``other_eliminated``
    ``(J,)`` and the lines' bit masks ``line_masks`` (shelves first). Returns ``(ends bool
    (n,), gains int64 (n,), blocked int64 (n, J))``: whether the marking leaves ``need`` closed
    shelves on some sheet (D17, after every line then complete on the player's sheet blocked the
    others, D15), the points it adds (as :func:`_best_points`, D19) and each other sheet's
    eliminated items after the lines the marking completes (not complete before) blocked it (D15)."""
    n = index.shape[0]
    n_lines = line_masks.shape[0]
    n_others = other_marked.shape[0]
    ends = np.zeros(n, np.bool_)
    gains = np.zeros(n, np.int64)
    blocked = np.zeros((n, n_others), np.int64)
    closed = marked_bits | eliminated_bits
    for i in range(n):
        k = index[i]
        mask = set_masks[k]
        after = marked_bits | mask
        shut = closed | mask
        count = 0
        for shelf in range(n_shelves):
            if shut & line_masks[shelf] == line_masks[shelf]:
                count += 1
        end = count >= need
        every = 0  # the items of every line complete after the marking
        new = 0  # of the lines it completes
        for line in range(n_lines):
            lm = line_masks[line]
            if after & lm == lm:
                every |= lm
                if marked_bits & lm != lm:
                    new |= lm
        for j in range(n_others):
            theirs = other_marked[j] | other_eliminated[j]
            count = 0
            for shelf in range(n_shelves):
                if (theirs | every) & line_masks[shelf] == line_masks[shelf]:
                    count += 1
            if count >= need:
                end = True
            blocked[i, j] = other_eliminated[j] | (new & ~theirs)
        ends[i] = end
        total = 0
        for j in range(set_lines.shape[1]):
            line = set_lines[k, j]
            if line < 0:
                break
            total += (mp[line] + set_points[k, j] if m[line] + set_counts[k, j] >= t else 0) \
                - (mp[line] if m[line] >= t else 0)
        gains[i] = total
    return ends, gains, blocked


def markings_end(board: Board, rules: Ruleset, sheets: Sequence[Marks], seat: int, index: np.ndarray,
                 m: np.ndarray, mp: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """:func:`sheet_rules.markings_end_game` of the item sets ``index`` (into
    :func:`turn_arrays`' sets, each of available items of ``sheets[seat]``, whose line totals of
    marked items and points are ``m``, ``mp``) by one compiled call (:func:`_markings_end`), with
    each marking's points (D19) and the other sheets' eliminated items after its blocks (D15):
    ``(ends bool (n,), gains int64 (n,), blocked int64 (n, J))``, the others in seat order.
    ``None`` without numba or on a board of more than 62 items."""
    from shelfie_solver.dice.sheet_rules import end_trigger_shelves

    found = kernel_function("_markings_end")
    tables = turn_arrays(board, rules)
    if found is None or len(tables.set_masks) != len(tables.sizes):
        return None
    others = [sheets[j] for j in range(len(sheets)) if j != seat]
    mine = sheets[seat]
    out: tuple[np.ndarray, np.ndarray, np.ndarray] = found(
        tables.set_masks, tables.set_lines, tables.set_counts, tables.set_points, index, mine.marked, mine.eliminated,
        np.array([o.marked for o in others], dtype=np.int64), np.array([o.eliminated for o in others], dtype=np.int64),
        line_mask_array(board), board.n_shelves, end_trigger_shelves(board, rules), m, mp, rules.scoring_threshold)
    return out


@cache
def line_mask_array(board: Board) -> np.ndarray:
    """:func:`sheet_rules.line_masks` as ``int64 (L,)``."""
    from shelfie_solver.dice.sheet_rules import line_masks

    return np.array(line_masks(board), dtype=np.int64)


@cache
def set_rolls(feasible: FeasibilityArrays) -> tuple[np.ndarray, np.ndarray]:
    """The feasibility arrays set by set (their transpose, without the sentinel): the rolls that can
    mark item set ``s`` are ``rolls[starts[s]:starts[s + 1]]``. Returns ``(starts int64 (K+1,),
    rolls)``, rolls as int16 when they fit (a smaller array stays in cache)."""
    members, n_sets, n_rolls = feasible.members, len(feasible.sets.sizes), len(feasible.starts)
    rows = np.repeat(np.arange(n_rolls), np.diff(np.append(feasible.starts, len(members))))
    keep = members < n_sets
    order = np.argsort(members[keep], kind="stable")
    counts = np.bincount(members[keep], minlength=n_sets)
    starts = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    return starts, rows[keep][order].astype(np.int16 if n_rolls < 2**15 else np.int64)


def small_index(array: np.ndarray) -> np.ndarray:
    """``array`` of indices as int8 or int16 when its values fit (less memory to pull into the
    cache per compiled call), else as it is."""
    for kind in (np.int8, np.int16):
        info = np.iinfo(kind)
        if array.size == 0 or (array.min() >= info.min and array.max() <= info.max):
            return array.astype(kind)
    return array


def _strategic_sets(cells: np.ndarray, set_lines: np.ndarray, set_counts: np.ndarray, set_points: np.ndarray,
                    set_masks: np.ndarray, available: np.ndarray, m: np.ndarray, a: np.ndarray, mp: np.ndarray, ap: np.ndarray, t: int,
                    cell_lines: np.ndarray, values: np.ndarray,
                    n_shelves: int) -> tuple[np.ndarray, np.ndarray, int]:  # pragma: no cover - compiled
    """:func:`_strategic` with each set's lines read from :func:`set_lines` (what the set adds to
    each line it touches, state-free) instead of worked out per call, and each line's change of
    Phi branch-free: with ``S = 2M + A`` a line's Phi times 2T is ``min(m, T) * S`` when live
    (``m + a >= T``), else 0; marking ``n`` of its items worth ``p`` points keeps ``m + a`` and
    makes it ``min(m + n, T) * (S + p)`` (:func:`_potential`'s three cases in one). The same
    three results as :func:`_strategic`."""
    n_sets, width = cells.shape
    n_lines = m.shape[0]
    worth = np.zeros(n_sets + 1, np.int64)
    usable = np.zeros(n_sets + 1, np.bool_)
    live = np.zeros(n_lines, np.int64)
    total_s = np.zeros(n_lines, np.int64)
    before = np.zeros(n_lines, np.int64)
    for line in range(n_lines):
        live[line] = 1 if m[line] + a[line] >= t else 0
        total_s[line] = 2 * mp[line] + ap[line]
        before[line] = min(m[line], t) * total_s[line]
    if set_masks.shape[0] == n_sets:  # usable (D4): no item of the set marked or eliminated, by bit masks
        closed = 0
        for c in range(available.shape[0]):
            if not available[c]:
                closed |= 1 << c
        for k in range(n_sets):
            usable[k] = (set_masks[k] & closed) == 0
    else:
        for k in range(n_sets):
            ok = True
            for j in range(width):
                c = cells[k, j]
                ok &= c < 0 or available[c]
            usable[k] = ok
    for k in _usable_list(usable, n_sets):  # most sets are not usable later in a game
        total = 0
        for j in range(set_lines.shape[1]):
            line = set_lines[k, j]
            if line < 0:
                break
            total += live[line] * (min(m[line] + set_counts[k, j], t) * (total_s[line] + set_points[k, j])
                                   - before[line])
        worth[k] = total
    return worth, usable, _failed(available, m, a, mp, ap, t, cell_lines, values, n_shelves)


def set_lines(board: Board, cells: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """What each item set adds to each line it touches (:attr:`Board.lines`): ``(lines, counts,
    points)``, each ``(K, W)`` (``W`` the most lines a set touches), lines padded with -1 (then
    counts and points 0)."""
    line_of = cell_lines(board)
    values = board.value_array
    rows = []
    for chosen in cells:
        found: dict[int, list[int]] = {}
        for c in chosen:
            if c < 0:
                continue
            for line in line_of[c]:
                entry = found.setdefault(int(line), [0, 0])
                entry[0] += 1
                entry[1] += int(values[c])
        rows.append(sorted(found.items()))
    width = max((len(r) for r in rows), default=0)
    lines = np.full((len(rows), width), -1, dtype=np.int64)
    counts = np.zeros((len(rows), width), dtype=np.int64)
    points = np.zeros((len(rows), width), dtype=np.int64)
    for i, row in enumerate(rows):
        for j, (line, (count, total)) in enumerate(row):
            lines[i, j], counts[i, j], points[i, j] = line, count, total
    return lines, counts, points


def _top_hold(starts: np.ndarray, columns: np.ndarray, weights: np.ndarray, pair_hold: np.ndarray,
              pair_starts: np.ndarray, below: np.ndarray, level0: np.ndarray, factor: int,
              roll: int) -> int:  # pragma: no cover - compiled
    """The hold :func:`dp.solve` chooses for ``roll`` one level above ``below`` ``(R, Q)``
    (E over each of the roll's holds, the roll itself worth ``level0[roll] * factor``; max
    column 0, then min column 1, then the first listed): :func:`dp._top_hold` compiled."""
    n_holds = starts.shape[0]
    n_rolls = below.shape[0]
    q = below.shape[1]
    nnz = columns.shape[0]
    lo = pair_starts[roll]
    hi = pair_starts[roll + 1] if roll + 1 < n_rolls else pair_hold.shape[0]
    best = -1
    best0 = 0
    best1 = 0
    for p in range(lo, hi):
        h = pair_hold[p]
        e0 = 0
        e1 = 0
        if h < n_rolls:  # keeping every die is stopping (D7)
            e0 = level0[h, 0] * factor
            if q >= 2:
                e1 = level0[h, 1] * factor
        else:
            end = starts[h + 1] if h + 1 < n_holds else nnz
            for k in range(starts[h], end):
                e0 += weights[k] * below[columns[k], 0]
                if q >= 2:
                    e1 += weights[k] * below[columns[k], 1]
        if best < 0 or e0 > best0 or (q >= 2 and e0 == best0 and e1 < best1):
            best, best0, best1 = h, e0, e1
    return best



@cache
def cell_lines(board: Board) -> np.ndarray:
    """``int64 (cells, 2)``: each item's shelf line and column line in :attr:`Board.lines`
    (the ``cell_lines`` argument of :func:`_strategic`)."""
    return np.array([[board.shelf_of(c), board.n_shelves + board.column_of(c)] for c in range(board.n_cells)],
                    dtype=np.int64).reshape(board.n_cells, 2)


def compiled_strategic() -> Any:
    """The jitted :func:`_strategic`, or ``None`` without numba."""
    return kernel_function("_strategic")


def _potential(m: int, a: int, mp: int, ap: int, t: int) -> int:  # pragma: no cover - compiled
    """One line's Phi times 2T: :func:`objectives.line_potential` for scalars."""
    if m >= t:
        return 2 * t * mp + t * ap
    if m + a >= t:
        return m * (2 * mp + ap)
    return 0


def _strategic(cells: np.ndarray, available: np.ndarray, m: np.ndarray, a: np.ndarray, mp: np.ndarray,
               ap: np.ndarray, t: int, cell_lines: np.ndarray, values: np.ndarray,
               n_shelves: int) -> tuple[np.ndarray, np.ndarray, int]:  # pragma: no cover - compiled
    """The ``strategic`` objective (:class:`objectives.Strategic`) of every item set at once:
    ``worth (K+1,)`` (0 where unusable and for the sentinel), ``usable (K+1,)`` (every item of
    the set available, D4) and the failed-result value (the best shelf to give up, D13; 0 when
    none has an available item). Only the lines a set touches change Phi, so each set costs at
    most ``2k`` line evaluations. ``cells (K, k)`` padded with -1; ``cell_lines (cells, 2)``
    the shelf and column line of each item; ``m, a, mp, ap`` per line (:attr:`StateArrays.line_totals`)."""
    n_sets, width = cells.shape
    worth = np.zeros(n_sets + 1, np.int64)
    usable = np.zeros(n_sets + 1, np.bool_)
    lines = np.zeros(2 * width, np.int64)
    counts = np.zeros(2 * width, np.int64)
    points = np.zeros(2 * width, np.int64)
    base = np.zeros(m.shape[0], np.int64)  # each line's Phi now (the same for every set)
    for line in range(m.shape[0]):
        base[line] = _potential(m[line], a[line], mp[line], ap[line], t)
    for k in range(n_sets):
        ok = True
        for j in range(width):  # usable first (D4): most sets are not, later in a game
            c = cells[k, j]
            if c >= 0 and not available[c]:
                ok = False
                break
        if not ok:
            continue
        used = 0
        for j in range(width):
            c = cells[k, j]
            if c < 0:
                continue
            for side in range(2):
                line = cell_lines[c, side]
                slot = -1
                for u in range(used):
                    if lines[u] == line:
                        slot = u
                if slot < 0:
                    slot = used
                    lines[slot] = line
                    counts[slot] = 0
                    points[slot] = 0
                    used += 1
                counts[slot] += 1
                points[slot] += values[c]
        usable[k] = True
        total = 0
        for u in range(used):
            line = lines[u]
            total += _potential(m[line] + counts[u], a[line] - counts[u], mp[line] + points[u],
                                ap[line] - points[u], t) - base[line]
        worth[k] = total
    return worth, usable, _failed(available, m, a, mp, ap, t, cell_lines, values, n_shelves)


def _failed(available: np.ndarray, m: np.ndarray, a: np.ndarray, mp: np.ndarray, ap: np.ndarray, t: int,
            cell_lines: np.ndarray, values: np.ndarray, n_shelves: int) -> int:  # pragma: no cover - compiled
    """The ``strategic`` value of a failed result (the best shelf to give up, D13; 0 when none
    has an available item): :meth:`objectives.Strategic.failed_value`."""
    failed = 0
    found = False
    n_cells = available.shape[0]
    n_columns = n_cells // n_shelves
    for shelf in range(n_shelves):
        lost = 0
        lost_points = 0
        change = 0
        for col in range(n_columns):
            c = shelf * n_columns + col
            if available[c]:
                lost += 1
                lost_points += values[c]
                line = cell_lines[c, 1]  # the item's column loses it
                change += _potential(m[line], a[line] - 1, mp[line], ap[line] - values[c], t) \
                    - _potential(m[line], a[line], mp[line], ap[line], t)
        if lost == 0:
            continue
        line = cell_lines[shelf * n_columns, 0]
        change += _potential(m[line], a[line] - lost, mp[line], ap[line] - lost_points, t) \
            - _potential(m[line], a[line], mp[line], ap[line], t)
        if not found or change > failed:
            failed = change
            found = True
    return failed


def _line_totals(marked: np.ndarray, available: np.ndarray, cell_lines: np.ndarray, values: np.ndarray,
                 n_lines: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:  # pragma: no cover - compiled
    """:attr:`objectives.StateArrays.line_totals` from ``marked``/``available`` 0/1 ``(cells,)``:
    (marked count, available count, marked points, available points) per line."""
    m = np.zeros(n_lines, np.int64)
    a = np.zeros(n_lines, np.int64)
    mp = np.zeros(n_lines, np.int64)
    ap = np.zeros(n_lines, np.int64)
    for c in range(marked.shape[0]):
        for side in range(2):
            line = cell_lines[c, side]
            m[line] += marked[c]
            a[line] += available[c]
            mp[line] += marked[c] * values[c]
            ap[line] += available[c] * values[c]
    return m, a, mp, ap


def _bit_line_totals(marked_bits: int, eliminated_bits: int, cell_lines: np.ndarray, values: np.ndarray,
                     n_lines: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:  # pragma: no cover
    """:func:`_line_totals` of a sheet given by its bit masks (D4: an item neither marked nor
    eliminated is available)."""
    m = np.zeros(n_lines, np.int64)
    a = np.zeros(n_lines, np.int64)
    mp = np.zeros(n_lines, np.int64)
    ap = np.zeros(n_lines, np.int64)
    for c in range(cell_lines.shape[0]):
        marked = (marked_bits >> c) & 1
        available = 1 - (marked | ((eliminated_bits >> c) & 1))
        for side in range(2):
            line = cell_lines[c, side]
            m[line] += marked
            a[line] += available
            mp[line] += marked * values[c]
            ap[line] += available * values[c]
    return m, a, mp, ap


def _turn_levels(worth: np.ndarray, usable: np.ndarray, failed: int, set_sizes: np.ndarray, set_starts: np.ndarray,
                 set_rolls: np.ndarray, extend: np.ndarray, power: np.ndarray, order: np.ndarray, shrink: np.ndarray,
                 denominator: int, rerolls: int,
                 cap: int) -> tuple[np.ndarray, np.ndarray, bool]:  # pragma: no cover - compiled
    """A turn's DP from every item set's ``worth`` (``usable`` ones) and the failed result's
    value ``failed`` (D13): columns 0-1 of the final values (:func:`_scan`) and the levels below
    the top (:func:`_level`). Returns values ``(rerolls, R, 2)`` (levels 0..rerolls-1), policy
    ``(rerolls, R)`` (level 0 unused) and ``True``; or ``False`` last (the levels not solved)
    when the final values' magnitude ``b`` has ``b + 1 >= cap`` (:func:`int64_cap`)."""
    n_rolls = extend.shape[0] - order.shape[0]
    done = np.zeros((max(rerolls, 1), n_rolls, 2), np.int64)
    policy = np.zeros((max(rerolls, 1), n_rolls), np.int64)
    bound = _scan(worth, usable, set_sizes, set_starts, set_rolls, failed, 1, done[0])
    if bound + 1 >= cap:
        return done, policy, False
    sums = np.zeros((extend.shape[0], 2), np.int64)
    expected = np.zeros((extend.shape[0], 2), np.int64)
    best = np.zeros(extend.shape[0], np.int64)
    factor = 1
    for level in range(1, rerolls):
        factor *= denominator
        _level(extend, power, order, shrink, done[0], done[level - 1], factor, sums, best, expected, done[level],
               policy[level])
    return done, policy, True


def _solver_turn(marked_bits: int, eliminated_bits: int, cells: np.ndarray, set_lines: np.ndarray,
                 set_counts: np.ndarray, set_points: np.ndarray, set_masks: np.ndarray, t: int, cell_lines: np.ndarray,
                 values: np.ndarray, n_shelves: int, n_lines: int, sizes: np.ndarray, set_starts: np.ndarray,
                 set_rolls: np.ndarray, extend: np.ndarray, power: np.ndarray, order: np.ndarray,
                 shrink: np.ndarray, starts: np.ndarray, columns: np.ndarray, weights: np.ndarray,
                 pair_hold: np.ndarray, pair_starts: np.ndarray, denominator: int, rerolls: int, cap: int,
                 roll: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, bool]:  # pragma: no cover
    """The ``solver`` strategy's whole turn in one call: the ``strategic`` worth of every item set
    (:func:`_strategic_sets`), columns 0-1 of the final values (:func:`_scan`; the later columns
    never move the policy), the levels below the top of the DP (:func:`_turn_levels`; ``rerolls >= 1``)
    and the top level's hold of ``roll`` alone (:func:`_top_hold`; none when ``roll < 0``), as
    :func:`dp.plan_turn` does. The sheet is given as :class:`board.Marks`' bit masks (boards
    hold at most 7 x 7 items, :data:`board.MAX_SHELVES`), so no per-state array is built in Python.

    Returns ``worth (K+1,)``, values ``(rerolls, R, 2)`` (levels 0..rerolls-1), policy
    ``(rerolls, R)`` (level 0 unused), the top hold of ``roll`` (-1 when none) and ``True``;
    or ``False`` last (nothing solved) when the final values' magnitude ``b`` has
    ``b + 1 >= cap`` (``cap = ceil(2^62 / D^rerolls)``: :func:`dp.solve`'s int64 bound)."""
    marked, available = _sheet(marked_bits, eliminated_bits, cell_lines.shape[0])
    m, a, mp, ap = _line_totals(marked, available, cell_lines, values, n_lines)
    worth, usable, failed = _strategic_sets(cells, set_lines, set_counts, set_points, set_masks, available > 0, m, a,
                                            mp, ap, t, cell_lines, values, n_shelves)
    done, policy, ok = _turn_levels(worth, usable, failed, sizes, set_starts, set_rolls, extend, power, order, shrink,
                                    denominator, rerolls, cap)
    if not ok:
        return worth, done, policy, -1, False
    scale = 1  # the top level's common denominator D^rerolls
    for _ in range(rerolls):
        scale *= denominator
    top = -1
    if roll >= 0:
        top = _top_hold(starts, columns, weights, pair_hold, pair_starts, done[rerolls - 1], done[0], scale, roll)
    return worth, done, policy, top, True


def _sheet(marked_bits: int, eliminated_bits: int, n_cells: int) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover
    """``(marked, available)`` ``int64 (cells,)`` 0/1 of a sheet's bit masks (:meth:`board.Marks.bit_arrays`)."""
    marked = np.zeros(n_cells, np.int64)
    available = np.zeros(n_cells, np.int64)
    for c in range(n_cells):
        marked[c] = (marked_bits >> c) & 1
        available[c] = 1 - (((marked_bits | eliminated_bits) >> c) & 1)
    return marked, available


def _finals_many(marked_bits: np.ndarray, eliminated_bits: np.ndarray, cells: np.ndarray, set_lines: np.ndarray,
                 set_counts: np.ndarray, set_points: np.ndarray, set_masks: np.ndarray, t: int, cell_lines: np.ndarray,
                 values: np.ndarray, n_shelves: int, n_lines: int, sizes: np.ndarray, set_starts: np.ndarray,
                 set_rolls: np.ndarray, n_rolls: int, most: int) -> tuple[np.ndarray, int]:  # pragma: no cover
    """The ``strategic`` final values of ``N`` sheets (:class:`board.Marks`' bit masks ``int64 (N,)``)
    as ``int64 (R, N, max(2, 1 + most))`` (:func:`_scan`'s columns), and their largest magnitude."""
    n_states = marked_bits.shape[0]
    out = np.zeros((n_rolls, n_states, max(2, 1 + most)), np.int64)
    bound = 0
    for i in range(n_states):
        marked, available = _sheet(marked_bits[i], eliminated_bits[i], cell_lines.shape[0])
        m, a, mp, ap = _line_totals(marked, available, cell_lines, values, n_lines)
        worth, usable, failed = _strategic_sets(cells, set_lines, set_counts, set_points, set_masks, available > 0,
                                                m, a, mp, ap, t, cell_lines, values, n_shelves)
        bound = max(bound, _scan(worth, usable, sizes, set_starts, set_rolls, failed, most, out[:, i]))
    return out, bound


@dataclass(frozen=True, eq=False)
class TurnArrays:
    """The state-free arrays of one board and ruleset that :func:`_solver_turn` and
    :func:`_finals_many` read, index arrays in the smallest integer type that holds them.

    Attributes:
        cells: the item sets' cells (:attr:`board.ItemSets.cells`). set_lines, set_counts,
            set_points: :func:`set_lines`. set_masks: each set's items as a bit mask (empty when
            the board has more than 62 items). lines: :func:`cell_lines`.
        values: item points. sizes: items per set. set_starts, set_rolls: :func:`set_rolls`.
        extend, power, order, shrink: :func:`transitions.hold_steps`. starts, columns, weights: the transitions
            (:attr:`rolls.DiceSpace.transitions`). pair_hold, pair_starts: every roll's sub-holds
            (:func:`transitions.pairs`). n_rolls, n_lines: counts.
    """

    cells: np.ndarray
    set_lines: np.ndarray
    set_counts: np.ndarray
    set_points: np.ndarray
    set_masks: np.ndarray
    lines: np.ndarray
    values: np.ndarray
    sizes: np.ndarray
    set_starts: np.ndarray
    set_rolls: np.ndarray
    extend: np.ndarray
    power: np.ndarray
    order: np.ndarray
    shrink: np.ndarray
    starts: np.ndarray
    columns: np.ndarray
    weights: np.ndarray
    pair_hold: np.ndarray
    pair_starts: np.ndarray
    n_rolls: int
    n_lines: int


@cache
def turn_arrays(board: Board, rules: Ruleset) -> TurnArrays:
    """:class:`TurnArrays` of a board and ruleset (built once per process)."""
    from shelfie_solver.dice.allocate import feasibility_arrays, set_masks
    from shelfie_solver.dice.rolls import space_for

    feasible = feasibility_arrays(board, rules)
    masks = set_masks(feasible)
    space = space_for(rules)
    extend, power, order, shrink = hold_steps(space)
    starts, rolls = set_rolls(feasible)
    lines, counts, points = set_lines(board, feasible.sets.cells)
    segments = pairs(space)
    moves, columns, weights = space.transitions
    return TurnArrays(small_index(feasible.sets.cells), small_index(lines), counts, points,
                      np.zeros(0, np.int64) if masks is None else masks, cell_lines(board),
                      board.value_array,
                      feasible.sets.sizes, starts, rolls, small_index(extend), power, small_index(order),
                      small_index(shrink), moves, small_index(columns), weights, small_index(segments.hold),
                      segments.starts, len(space.rolls), len(board.lines))


@cache
def int64_cap(denominator: int, rerolls: int) -> int:
    """``ceil(2^62 / denominator^rerolls)``, at most 2^63 - 1: final values of magnitude ``b``
    stay in int64 through ``rerolls`` levels when ``b + 1 < cap`` (:func:`dp.solve`'s bound
    ``(b + 1) * D^r < 2^62``, :data:`transitions.INT64_SAFE`)."""
    return int(min(-(-INT64_SAFE // denominator**rerolls), 2**63 - 1))
