"""A compiled kernel for the DP of :mod:`engine` (issue 12 §3), used by :mod:`batch` and the
``solver`` strategy when numba is installed (``pip install 'shelfie-solve[fast]'``).

The kernel runs the very recursion of :func:`engine.solve` on int64 (the callers check the
int64 bound first): E_r[h] = sum of weight * V_(r-1)[roll] over hold ``h``'s transition row,
the full rolls' rows set to stopping (D7), and each roll's best hold by a scan of its sub-holds
in hold order keeping the first of the best (max column 0, then min column 1), the tie rule
of :func:`engine._best_holds`. One pass per state touches each transition once per level, so
it runs at memory speed without numpy's per-call overhead. ``advise`` and ``odds`` never
import this module (start-up), and without numba everything runs on numpy, with equal results.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from .board import Board
    from .dice import DiceSpace


def _jit(func: Callable[..., Any]) -> Any:
    """``func`` compiled by numba (cached on disk), or ``None`` when numba is not installed."""
    try:
        import numba
    except ImportError:
        return None
    try:
        compiled = numba.njit(cache=True, nogil=True)(func)
    except RuntimeError:  # no writable place for numba's cache (a read-only install): compile per process
        compiled = numba.njit(nogil=True)(func)
    if func is _potential:
        return compiled  # called from compiled code only

    def call(*args: Any) -> Any:
        try:
            return compiled(*args)
        except SystemError as error:
            # a signal handler that raised while the compiled call was returning (Ctrl-C,
            # SIGTERM in simulate): numba reports SystemError(s); hand on the real exception
            cause: BaseException = error
            while isinstance(cause, SystemError) and cause.__cause__ is not None:
                cause = cause.__cause__
            if cause is error:
                raise
            raise cause from None

    return call


@cache
def compiled() -> Any:
    """The jitted DP function :func:`_dp`, or ``None`` without numba."""
    return _jit(_dp)


def _dp(extend: np.ndarray, power: np.ndarray, order: np.ndarray, pair_hold: np.ndarray,
        pair_starts: np.ndarray, level0: np.ndarray, denominator: int,
        rerolls: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # pragma: no cover - compiled
    """``level0`` ``(N, R, Q)`` int64 -> values ``(rerolls+1, N, R, Q)``, hold values
    ``(rerolls+1, N, H, Q)`` (level 0 unused) and policy ``(rerolls+1, N, R)`` (level 0 unused).

    The re-roll expectation one die at a time (:func:`dp_tables`): ``S[h]``, the sum of
    V_(r-1) over every ordered way to roll the dice ``h`` leaves free, is ``V_(r-1)[h]`` for a
    full roll and ``sum over sides f of S[h + f]`` otherwise (``extend[h, f]``, holds taken in
    ``order``: more dice kept first); then ``E_r[h] = power[h] * S[h]`` with ``power[h] =
    sides ** kept(h)``, the integer of the transition weights ``multinomial * sides ** kept``.
    The same integers as the sparse product, with about half the multiply-adds."""
    n_states, n_rolls, q = level0.shape
    n_holds, n_sides = extend.shape
    n_pairs = pair_hold.shape[0]
    values = np.zeros((rerolls + 1, n_states, n_rolls, q), np.int64)
    hold_values = np.zeros((rerolls + 1, n_states, n_holds, q), np.int64)
    policy = np.zeros((rerolls + 1, n_states, n_rolls), np.int64)
    sums = np.zeros((n_holds, q), np.int64)
    for n in range(n_states):
        base = level0[n]
        values[0, n] = base
        factor = 1
        for level in range(1, rerolls + 1):
            factor *= denominator
            prev = values[level - 1, n]
            expected = hold_values[level, n]
            chosen = values[level, n]
            for r in range(n_rolls):
                for c in range(q):
                    sums[r, c] = prev[r, c]
            for i in range(order.shape[0]):
                h = order[i]
                for c in range(q):
                    sums[h, c] = 0
                for f in range(n_sides):
                    g = extend[h, f]
                    for c in range(q):
                        sums[h, c] += sums[g, c]
                for c in range(q):
                    expected[h, c] = power[h] * sums[h, c]
            for r in range(n_rolls):  # keeping every die is stopping (D7)
                for c in range(q):
                    expected[r, c] = base[r, c] * factor
            for r in range(n_rolls):
                lo = pair_starts[r]
                hi = pair_starts[r + 1] if r + 1 < n_rolls else n_pairs
                best = pair_hold[lo]
                for p in range(lo + 1, hi):
                    h = pair_hold[p]
                    a = expected[h, 0]
                    b = expected[best, 0]
                    if a > b or (q >= 2 and a == b and expected[h, 1] < expected[best, 1]):
                        best = h
                policy[level, n, r] = best
                for c in range(q):
                    chosen[r, c] = expected[best, c]
    return values, hold_values, policy


@cache
def dp_tables(space: DiceSpace) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The holds' one-die structure for :func:`_dp`: ``extend int64 (H, sides)`` (the hold with
    one more die showing each side; -1 for full rolls), ``power int64 (H,)`` (``sides ** kept``)
    and ``order int64`` (the holds that are not full rolls, most dice kept first)."""
    holds = space.holds
    extend = np.full((len(holds), space.n_sides), -1, dtype=np.int64)
    kept = np.array([sum(h) for h in holds], dtype=np.int64)
    for i, hold in enumerate(holds):
        if kept[i] < space.n_dice:
            for f in range(space.n_sides):
                extend[i, f] = space.hold_index[hold[:f] + (hold[f] + 1,) + hold[f + 1:]]
    power = np.array([space.n_sides ** int(k) for k in kept], dtype=np.int64)
    order = np.argsort(-kept, kind="stable")
    order = order[kept[order] < space.n_dice].astype(np.int64)
    return extend, power, order


@cache
def compiled_best_marking() -> Any:
    """The jitted :func:`_best_marking`, or ``None`` without numba."""
    return _jit(_best_marking)


def _best_marking(worth: np.ndarray, usable: np.ndarray, sizes: np.ndarray, members: np.ndarray,
                  starts: np.ndarray, failed: int, most: int) -> np.ndarray:  # pragma: no cover - compiled
    """The columns of :func:`engine.final_table` ``(R, 1 + most)``: column 0 each roll's most
    valuable usable feasible item set (ties: the first in item-set order, as the stable sort
    there) or ``failed``; column 1 the failed-result indicator (D13); column ``j`` (2..most)
    1 when some usable feasible set has at least ``j`` items. ``worth``/``usable``/``sizes``
    are per item set (the sentinel, last, never usable)."""
    n_rolls = starts.shape[0]
    nnz = members.shape[0]
    out = np.zeros((n_rolls, max(2, 1 + most)), np.int64)
    for r in range(n_rolls):
        lo = starts[r]
        hi = starts[r + 1] if r + 1 < n_rolls else nnz
        best = np.iinfo(np.int64).min
        largest = 0
        for k in range(lo, hi):  # branch-free: the usable test is a select, not a jump
            s = members[k]
            u = usable[s]
            best = max(best, worth[s] if u else np.iinfo(np.int64).min)
            largest = max(largest, sizes[s] if u else 0)
        if largest > 0:  # some usable set (every item set has at least one item)
            out[r, 0] = best
        else:
            out[r, 0] = failed
            out[r, 1] = 1
        for j in range(2, most + 1):
            if largest >= j:
                out[r, j] = 1
    return out


@cache
def compiled_top_hold() -> Any:
    """The jitted :func:`_top_hold`, or ``None`` without numba."""
    return _jit(_top_hold)


def _top_hold(starts: np.ndarray, columns: np.ndarray, weights: np.ndarray, pair_hold: np.ndarray,
              pair_starts: np.ndarray, below: np.ndarray, level0: np.ndarray, factor: int,
              roll: int) -> int:  # pragma: no cover - compiled
    """The hold :func:`engine.solve` chooses for ``roll`` one level above ``below`` ``(R, Q)``
    (E over each of the roll's holds, the roll itself worth ``level0[roll] * factor``; max
    column 0, then min column 1, then the first listed): :func:`engine._top_hold` compiled."""
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


@cache
def compiled_strategic() -> Any:
    """The jitted :func:`_strategic`, or ``None`` without numba."""
    potential = _jit(_potential)
    if potential is None:
        return None
    globals()["_potential"] = potential  # _strategic calls it: numba needs the compiled one
    return _jit(_strategic)


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
    return worth, usable, failed
