"""The re-roll transitions (D6, D7) in the forms the exact solvers read, and their int64 bound.

:class:`~shelfie_solver.dice.rolls.DiceSpace` holds the transitions as CSR arrays and each
roll's sub-holds as a padded matrix. The one-turn DP (:mod:`~shelfie_solver.dice.engine.dp`),
the batched DP (:mod:`~shelfie_solver.dice.engine.batched`) and the compiled kernel
(:mod:`~shelfie_solver.dice.engine.kernel`) each want them in another shape, built once per
dice space (docs/engine.md):

* :func:`transition_matrix` — the ``(H, R)`` weights as one scipy sparse matrix (``T @ V``);
* :func:`pairs` — every (roll, sub-hold) pair as flat segments (each roll's best hold by
  segment reductions);
* :func:`hold_steps` — the holds' one-die structure (the kernel's re-roll expectation one die
  at a time).

:data:`INT64_SAFE` is the bound every solver checks before running on int64: the DP's level
``r`` is at most ``max|final| * D^r`` (``D = sides ** dice``), partial sums included.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from shelfie_solver.dice.rolls import DiceSpace

#: Largest magnitude an int64 value of the DP (any level, any partial sum) may reach; past it
#: the solvers fall back on int64 limbs (:mod:`~shelfie_solver.dice.engine.wide`).
INT64_SAFE = 2**62


@dataclass(frozen=True, eq=False)
class Pairs:
    """Every (roll, sub-hold) pair, roll by roll, holds in hold order: ``hold (P,)``,
    ``starts (R,)`` (segment starts), ``segment (P,)`` (the roll of each pair)."""

    hold: np.ndarray
    starts: np.ndarray
    segment: np.ndarray


@cache
def pairs(space: DiceSpace) -> Pairs:
    """The :class:`Pairs` of a dice space (:attr:`DiceSpace.sub_holds` without its padding),
    built once per process."""
    subs = space.sub_holds
    valid = subs < len(space.holds)
    per_roll = valid.sum(axis=1)
    return Pairs(subs[valid], np.cumsum(per_roll) - per_roll, np.repeat(np.arange(len(subs)), per_roll))


@cache
def transition_matrix(space: DiceSpace) -> Any:
    """The ``(H, R)`` transition weights as a scipy CSR matrix (int64)."""
    from scipy.sparse import csr_matrix

    starts, columns, weights = space.transitions
    return csr_matrix((weights, columns, np.append(starts, len(columns))), shape=(len(space.holds), len(space.rolls)))


@cache
def hold_steps(space: DiceSpace) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The holds' one-die structure for :func:`kernel._dp`: ``extend int64 (H, sides)`` (the hold with
    one more die showing each side; -1 for full rolls), ``power int64 (H,)`` (``sides ** kept``),
    ``order int64`` (the holds that are not full rolls, most dice kept first) and ``shrink
    int64 (H, sides)`` (the hold with one die of each side fewer; -1 where it has none)."""
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
    shrink = np.full_like(extend, -1)
    for i in range(len(holds)):
        for f in range(space.n_sides):
            if extend[i, f] >= 0:
                shrink[extend[i, f], f] = i
    return extend, power, order, shrink
