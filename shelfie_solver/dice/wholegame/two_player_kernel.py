"""The compiled turn of the two-player solver (:mod:`two_player`, the ``[fast]`` extra): each
final roll's value from the item sets' worths (D8-D14, D13), then the DP over (dice, re-rolls
left) (D6, D7), for a block of states, maximising or evaluating a fixed policy.

The re-roll expectation is taken one die at a time (:func:`transitions.hold_steps`) by the DP
the float solitaire solver uses too (:mod:`turn_steps`): ``S[h] = (sum over sides f of
S[h + f]) / sides``, ``S`` of a full roll its value, ``E_r[h] = S[h]`` (keeping every die is stopping, D7). Each
``S[h]`` is at most ``dice`` nested averages of ``sides`` non-negative terms, relative error at
most ``gamma_n``, ``n = sides * dice`` (docs/solve-game.md, the float path), no more than the
sparse product's ``gamma`` that :func:`two_player.gamma` states; so :func:`two_player.layer_bound`
holds for this path too. Without numba the functions here are not used (:func:`kernel`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from shelfie_solver.core.compiled import import_numba
from shelfie_solver.dice.wholegame import turn_steps
from shelfie_solver.dice.wholegame.turn_steps import average_holds, turn_dp


@dataclass(frozen=True, eq=False)
class HoldSteps:
    """The holds' one-die structure (:func:`transitions.hold_steps`) with the sentinel hold."""

    extend: np.ndarray
    order: np.ndarray
    shrink: np.ndarray
    empty: int
    n_rolls: int


@cache
def hold_steps_for(dice: int, sides: int) -> HoldSteps:
    """:class:`HoldSteps` of a dice space (``shrink``'s -1 replaced by the sentinel ``H``)."""
    from shelfie_solver.dice.engine.transitions import hold_steps
    from shelfie_solver.dice.rolls import dice_space

    space = dice_space(dice, sides)
    extend, _, order, shrink = hold_steps(space)
    shrink = np.where(shrink < 0, len(extend), shrink)
    return HoldSteps(extend, order, shrink, space.hold_index[(0,) * sides], len(space.rolls))


def _finals(worth: np.ndarray, failed: np.ndarray, starts: np.ndarray, members: np.ndarray,
            out: np.ndarray) -> float:  # pragma: no cover - compiled
    """``out (R, B)``: each roll's best usable set's ``worth (B, K)`` (-inf: unusable), or where
    none is usable ``failed (B,)`` (D13). Returns the largest value."""
    n_rolls, nb = out.shape
    n_sets = worth.shape[1]
    largest = 0.0
    for r in range(n_rolls):
        end = members.shape[0] if r + 1 == n_rolls else starts[r + 1]
        for j in range(nb):
            best = -np.inf
            for p in range(starts[r], end):
                k = members[p]
                if k < n_sets and worth[j, k] > best:
                    best = worth[j, k]
            if best == -np.inf:
                best = failed[j]
            out[r, j] = best
            if best > largest:
                largest = best
    return largest


def _dp(finals: np.ndarray, holds: np.ndarray, fixed: bool, extend: np.ndarray, order: np.ndarray,
        shrink: np.ndarray, empty: int, rerolls: int, out: np.ndarray) -> None:  # pragma: no cover - compiled
    """The turn's DP for ``B`` states: ``finals (R, B)``, ``out (B,)`` the values at the start.
    ``fixed``: roll ``r`` at level ``l`` keeps ``holds[l - 1, r, j]`` (policy evaluation);
    otherwise its best sub-hold (:func:`turn_steps.turn_dp`)."""
    n_rolls, nb = finals.shape
    n_holds = extend.shape[0]
    sums = np.empty((n_holds, nb))
    expected = np.empty((n_holds, nb))
    best = np.empty((n_holds + 1, nb))
    turn_dp(finals, nb, holds, fixed, extend, order, shrink, n_rolls, empty, rerolls, sums, expected, best, out)


def _greedy(worth: np.ndarray, failed: np.ndarray, starts: np.ndarray, members: np.ndarray, hold: np.ndarray,
            pair_starts: np.ndarray, extend: np.ndarray, order: np.ndarray, rerolls: int, tie: float,
            first: np.ndarray, holds: np.ndarray) -> None:  # pragma: no cover - compiled
    """The choices that maximise ``worth (B, K)`` (-inf: unusable; ``failed (B,)`` where no set is):
    ``first (B, R)`` each roll's first best set's position in ``members`` (-1: a failed result) and
    ``holds (rerolls, R, B)`` each roll's first best sub-hold per level (pairs in order: keeping
    more dice first, stopping first of all) within ``tie`` of the best (:func:`two_player.greedy_choices`)."""
    nb, n_sets = worth.shape
    n_rolls = starts.shape[0]
    n_holds = extend.shape[0]
    finals = np.empty((n_rolls, nb))
    for r in range(n_rolls):
        end = members.shape[0] if r + 1 == n_rolls else starts[r + 1]
        for j in range(nb):
            best, at = -np.inf, -1
            for p in range(starts[r], end):
                k = members[p]
                if k < n_sets and worth[j, k] > best:
                    best = worth[j, k]
            if best > -np.inf:
                for p in range(starts[r], end):
                    k = members[p]
                    if k < n_sets and worth[j, k] >= best - tie:
                        at = p
                        break
            first[j, r] = at
            finals[r, j] = failed[j] if at < 0 else best
    sums = np.empty((n_holds, nb))
    best_roll = finals.copy()
    for level in range(1, rerolls + 1):
        for r in range(n_rolls):
            for j in range(nb):
                sums[r, j] = best_roll[r, j]
        average_holds(sums, nb, extend, order)
        for r in range(n_rolls):
            end = hold.shape[0] if r + 1 == n_rolls else pair_starts[r + 1]
            for j in range(nb):
                top = -np.inf
                for p in range(pair_starts[r], end):
                    h = hold[p]
                    top = max(top, finals[h, j] if h < n_rolls else sums[h, j])
                for p in range(pair_starts[r], end):
                    h = hold[p]
                    value = finals[h, j] if h < n_rolls else sums[h, j]
                    if value >= top - tie:
                        holds[level - 1, r, j] = h
                        best_roll[r, j] = value
                        break


@cache
def kernel() -> Any | None:
    """The compiled ``(finals, dp)`` pair, or ``None`` without numba."""
    numba = import_numba()
    if numba is None:
        return None
    globals()["turn_dp"] = turn_steps.compiled()["turn_dp"]
    try:
        return numba.njit(cache=True, nogil=True)(_finals), numba.njit(cache=True, nogil=True)(_dp)
    except RuntimeError:  # no writable cache directory
        return numba.njit(nogil=True)(_finals), numba.njit(nogil=True)(_dp)


@cache
def greedy_kernel() -> Any | None:
    """The compiled :func:`_greedy`, or ``None`` without numba."""
    numba = import_numba()
    if numba is None:
        return None
    globals()["average_holds"] = turn_steps.compiled()["average_holds"]
    try:
        return numba.njit(cache=True, nogil=True)(_greedy)
    except RuntimeError:  # no writable cache directory
        return numba.njit(nogil=True)(_greedy)


def compiled_greedy(worth: np.ndarray, failed: np.ndarray, starts: np.ndarray, members: np.ndarray,
                    hold: np.ndarray, pair_starts: np.ndarray, steps: HoldSteps, rerolls: int,
                    tie: float) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_greedy`'s ``first (B, R)`` and ``holds (rerolls, R, B)``. Needs numba."""
    found = greedy_kernel()
    assert found is not None, "compiled_greedy needs numba"
    nb = len(worth)
    first = np.empty((nb, steps.n_rolls), dtype=np.int64)
    holds = np.empty((rerolls, steps.n_rolls, nb), dtype=np.int64)
    found(np.ascontiguousarray(worth), np.ascontiguousarray(failed), starts, members, hold, pair_starts,
          steps.extend, steps.order, rerolls, tie, first, holds)
    return first, holds


def compiled_turn(worth: np.ndarray, failed: np.ndarray, starts: np.ndarray, members: np.ndarray,
                  steps: HoldSteps, rerolls: int, holds: np.ndarray | None = None,
                  finals: np.ndarray | None = None) -> tuple[np.ndarray, float]:
    """The start values ``(B,)`` and the largest final-roll value of ``B`` states from their
    sets' ``worth (B, K)`` and failed results ``failed (B,)``, or from ``finals (R, B)`` when
    given; ``holds (rerolls, R, B)``: a fixed policy. Needs :func:`kernel` (numba)."""
    found = kernel()
    assert found is not None, "compiled_turn needs numba"
    finals_kernel, dp = found
    nb = len(worth) if finals is None else finals.shape[1]
    if finals is None:
        finals = np.empty((steps.n_rolls, nb))
        largest = float(finals_kernel(np.ascontiguousarray(worth), np.ascontiguousarray(failed), starts, members,
                                      finals))
    else:
        largest = float(finals.max(initial=0.0))
    out = np.empty(nb)
    fixed = holds is not None
    policy = holds if holds is not None else np.zeros((1, 1, 1), dtype=np.int64)
    dp(np.ascontiguousarray(finals), np.ascontiguousarray(policy, dtype=np.int64), fixed, steps.extend,
       steps.order, steps.shrink, steps.empty, rerolls, out)
    return out, largest
