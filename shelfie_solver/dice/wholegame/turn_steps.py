"""The one-turn DP over (dice, re-rolls left) for a block of states in float64 (D6, D7), shared
by the compiled kernels of the float solitaire solver (:mod:`float_kernel`) and of the two-player
solver (:mod:`two_player_kernel`): one home for the re-roll expectation and the best hold.

The holds' one-die structure is :func:`transitions.hold_steps`: ``extend[h, f]`` is hold ``h``
with one more die showing side ``f`` (a full roll when ``h`` has every die but one), ``order``
the holds that are not full rolls, most dice first, ``shrink[h, f]`` hold ``h`` with one die of
side ``f`` fewer (the sentinel ``H`` where it has none; ``best[H]`` is ``-inf``). The re-roll
expectation is taken one die at a time, ``S[h] = (sum over sides f of S[extend[h, f]]) / sides``,
``S`` of a full roll its value (:func:`average_holds`); the best hold of a roll is the maximum
over its one-die shrink chain (:func:`best_holds`, keeping every die is stopping, D7). The float
error of these operations is the bound of docs/solve-game.md ("The float path").

Plain Python, compiled by numba into the modules that call it (``engine.kernel.compile_into``
binds the compiled functions in the caller's namespace before the caller compiles). numba's
on-disk cache of a caller does not notice a change here: clear the ``__pycache__`` folders of
``dice/wholegame`` after changing this module.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

#: Compiled, callees first (:func:`engine.kernel.compile_into`).
COMPILED_ORDER = ("average_holds", "best_holds", "turn_dp")


def average_holds(sums: np.ndarray, nb: int, extend: np.ndarray, order: np.ndarray) -> None:  # pragma: no cover
    """In place, for ``nb`` states (columns of ``sums (H, B)``, rows of full rolls filled): each
    hold of ``order`` gets the mean over the sides of its one-die extensions (D6: fair dice)."""
    sides = extend.shape[1]
    for i in range(order.shape[0]):
        h = order[i]
        for j in range(nb):
            sums[h, j] = 0.0
        for f in range(sides):
            g = extend[h, f]
            for j in range(nb):
                sums[h, j] += sums[g, j]
        for j in range(nb):
            sums[h, j] /= sides


def best_holds(best: np.ndarray, expected: np.ndarray, nb: int, shrink: np.ndarray) -> None:  # pragma: no cover
    """In place, for ``nb`` states: ``best[h] = max(expected[h], best of every hold one die
    smaller)``, fewer dice first so each shrink is done already; ``best (H + 1, B)`` with the
    sentinel row ``H`` at ``-inf``."""
    n_holds, sides = shrink.shape
    for h in range(n_holds - 1, -1, -1):
        for j in range(nb):
            best[h, j] = expected[h, j]
        for f in range(sides):
            g = shrink[h, f]
            for j in range(nb):
                best[h, j] = max(best[h, j], best[g, j])


def turn_dp(finals: np.ndarray, nb: int, holds: np.ndarray, fixed: bool, extend: np.ndarray, order: np.ndarray,
            shrink: np.ndarray, n_rolls: int, empty: int, rerolls: int, sums: np.ndarray, expected: np.ndarray,
            best: np.ndarray, out: np.ndarray) -> None:  # pragma: no cover - compiled
    """The turn's value at its start, ``out[j]`` for ``j < nb``, from each final roll's value
    ``finals (R, B)`` (rolls first among the holds) with ``rerolls`` re-rolls (D7).

    ``fixed``: roll ``r`` at level ``l`` keeps ``holds[l - 1, r, j]`` (a policy evaluated);
    otherwise its best sub-hold (:func:`best_holds`). ``sums``, ``expected`` ``(H, B)`` and
    ``best (H + 1, B)`` are scratch."""
    n_holds = extend.shape[0]
    for j in range(nb):
        best[n_holds, j] = -np.inf
    for r in range(n_rolls):
        for j in range(nb):
            best[r, j] = finals[r, j]
    for level in range(1, rerolls + 2):
        for r in range(n_rolls):
            for j in range(nb):
                sums[r, j] = best[r, j]
        average_holds(sums, nb, extend, order)
        if level == rerolls + 1:
            for j in range(nb):
                out[j] = sums[empty, j]  # the first roll of every die (D6)
            return
        for h in range(n_rolls, n_holds):
            for j in range(nb):
                expected[h, j] = sums[h, j]
        for r in range(n_rolls):
            for j in range(nb):
                expected[r, j] = finals[r, j]  # keeping every die is stopping (D7)
        if fixed:
            for r in range(n_rolls):
                for j in range(nb):
                    best[r, j] = expected[holds[level - 1, r, j], j]
            continue
        best_holds(best, expected, nb, shrink)


@cache
def compiled() -> dict[str, Any]:
    """The functions of :data:`COMPILED_ORDER` compiled by numba (cached on disk), to be bound in
    a calling kernel's namespace before it compiles; empty without numba (the namespace then
    keeps the Python functions)."""
    from shelfie_solver.dice.engine.kernel import compile_into

    return compile_into(globals(), COMPILED_ORDER) or {}
