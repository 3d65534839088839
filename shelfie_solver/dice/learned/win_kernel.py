"""The arithmetic of the win model's logistic (:mod:`learned.win_model`), exact and fast: the
integer logit ``z * COEF_SCALE * WEIGHT_SCALE = sum_f c_f x_f`` of ``K`` positions in ``int64``
when a bound proves it cannot overflow, else in Python integers (object dtype), with the same
result either way.

Why it is exact. With ``C = max |c|`` and ``X = max |x|`` over the rows, every product is at most
``C X`` in magnitude and every partial sum of the ``F`` products at most ``F C X``; when
``F C X < 2**63`` (checked in Python integers before any ``int64`` arithmetic) no ``int64``
operation overflows, so the sums equal the exact integers. For the shipped model (coefficients
below ``10**6``, the features' gaps below ``250 * WEIGHT_SCALE`` times a round below 40) the
bound is ``6 * 10**6 * 10**9 = 6e15``, far inside. The conversion to ``float64`` is then the
correctly rounded one in both paths (``int64 -> float64`` casts and Python's ``float(int)`` both
round to nearest, ties to even), so the chances are the same integers (D20 shares).
"""

from __future__ import annotations

import numpy as np

#: ``int64`` sums are exact while their bound stays below this.
INT64_LIMIT = 1 << 63


def int64_exact(c: np.ndarray, x: np.ndarray) -> bool:
    """True when ``(c * x).sum(axis=1)`` of ``int64 (K, F)`` arrays cannot overflow ``int64``
    (module docstring: ``F * max|c| * max|x| < 2**63``, in Python integers)."""
    if c.size == 0 or x.size == 0:
        return True
    big_c = max(abs(int(c.max())), abs(int(c.min())))
    big_x = max(abs(int(x.max())), abs(int(x.min())))
    features: int = c.shape[1]
    return features * big_c * big_x < INT64_LIMIT


def logit_floats(c: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``float64 (K,)``: the exact integers ``sum_f c[k, f] * x[k, f]`` of ``int64 (K, F)``
    arrays, each rounded once to the nearest ``float64`` (module docstring)."""
    if int64_exact(c, x):
        exact: np.ndarray = (c * x).sum(axis=1)
        return exact.astype(np.float64)
    z_num = (c.astype(object) * x.astype(object)).sum(axis=1)
    return np.array([float(v) for v in z_num], dtype=np.float64)
