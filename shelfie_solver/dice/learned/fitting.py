"""What both fits of the ``learned`` weights share (docs/train.md): exact least-squares sums
(:class:`Sums`, Python integers added in any order), the ridge solve toward a prior
(:func:`fit`), the error of bad settings (:class:`TrainError`) and tasks on the shared runner
(:func:`run_tasks`). Self-play is :mod:`learned.train`, the fit to solved boards
:mod:`learned.fit_solved`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from shelfie_solver.core.errors import ShelfieError
from shelfie_solver.dice.learned.model_file import N_FEATURES, WEIGHT_SCALE

#: Ridge penalty added to the diagonal of X^T X (features are whole numbers of points/items).
RIDGE = 1.0


R = TypeVar("R")


class TrainError(ShelfieError):
    """Bad training settings or an unusable checkpoint file."""


@dataclass
class Sums:
    """Exact least-squares sums for one (players, phase): ``xtx (F, F)``, ``xty (F,)`` as
    Python-int object arrays, the sample count and the sum of squared targets."""

    xtx: np.ndarray
    xty: np.ndarray
    count: int = 0
    yy: int = 0

    @classmethod
    def zero(cls) -> Sums:
        return cls(np.zeros((N_FEATURES, N_FEATURES), dtype=object), np.zeros(N_FEATURES, dtype=object))

    def add(self, other: Sums) -> None:
        self.xtx = self.xtx + other.xtx
        self.xty = self.xty + other.xty
        self.count += other.count
        self.yy += other.yy


def run_tasks(function: Callable[..., R], tasks: Sequence[tuple[Any, ...]], jobs: int,
              progress: Callable[[int], None] | None = None, scheduler: Any = None) -> list[R]:
    """``[function(*task) for task in tasks]``, in task order, on the shared runner
    (:func:`parallel.run_tasks`: ``jobs`` processes, or a dask cluster at ``scheduler``).
    ``progress`` is called with 1 per finished task."""
    from shelfie_solver.core.parallel import run_tasks as run_parallel

    out: list[R] = []

    def keep(result: R) -> None:
        out.append(result)
        if progress:
            progress(1)

    run_parallel(function, tasks, jobs=jobs, scheduler=scheduler, consume=keep)
    return out


def fit(sums: Sums, prior: np.ndarray, basis: np.ndarray, ridge: float = RIDGE) -> tuple[np.ndarray, float]:
    """Ridge least squares from exact sums, shrunk toward ``prior`` (``float (F,)``, points):
    the weights are ``prior + basis @ u`` with ``u`` fitted (``basis`` ``(F, k)``, :func:`basis`:
    a column of the identity frees one feature) and ``ridge`` added to the diagonal. Returns
    ``int64 (F,)`` weights over WEIGHT_SCALE and the root-mean-square error of the fit (points,
    display)."""
    w = prior.astype(float).copy()
    if sums.count == 0 or basis.shape[1] == 0:
        return np.rint(w * WEIGHT_SCALE).astype(np.int64), 0.0
    xtx = sums.xtx.astype(float)
    xty = sums.xty.astype(float)
    b = basis.astype(float)
    lhs = b.T @ xtx @ b + ridge * np.eye(b.shape[1])
    rhs = b.T @ (xty - xtx @ w)
    w = w + b @ np.linalg.solve(lhs, rhs)
    residual = float(sums.yy) - 2 * float(w @ xty) + float(w @ xtx @ w)
    return np.rint(w * WEIGHT_SCALE).astype(np.int64), float(np.sqrt(max(residual, 0.0) / sums.count))


def basis(free: np.ndarray) -> np.ndarray:
    """``(F, k)`` basis of the fitted corrections (:func:`fit`): one identity column per free feature."""
    return np.eye(N_FEATURES)[:, free]


def chunks(count: int, size: int) -> list[tuple[int, int]]:
    """``[lo, hi)`` ranges of at most ``size`` covering ``range(count)``."""
    return [(lo, min(count, lo + size)) for lo in range(0, count, size)]
