"""Exact integers wider than int64 as numpy int64 *limbs* (no Python-object arrays).

The engine's level ``r`` holds integers over ``scale * D^r`` (``D = sides ** dice``): with 3
re-rolls of 6 dice, or 2 re-rolls of 8 dice, they outgrow int64. A :class:`Limbs` array holds
each integer ``v`` as ``L`` int64 arrays ``a_0 .. a_(L-1)`` with

    v = sum_i a_i * 2^(b*i),   0 <= a_i < 2^b for i < L-1,   a_(L-1) signed

(``b`` = :attr:`Limbs.bits` <= 31), so sums and products by small non-negative weights run
limb by limb in int64 and a carry pass restores the form; every number stays exact. Order is
read from :meth:`Limbs.keys`: pairs of limbs packed into one int64 each, most significant first,
compared lexicographically (two keys cover 2b + 62 bits).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from shelfie_solver.dice.engine.transitions import INT64_SAFE


def limb_bits(weight_sum: int) -> int:
    """Bits per limb so that a weighted sum with non-negative weights summing to at most
    ``weight_sum`` of limbs below ``2^b`` stays under 2^62 (at most 31, so two limbs pack into
    one int64 key)."""
    return max(1, min(31, 61 - int(weight_sum).bit_length()))


def limbs_needed(bound: int, bits: int) -> int:
    """Limbs of ``bits`` bits (:func:`limb_bits`) for integers of magnitude at most ``bound``,
    every intermediate of a weighted sum included: the top limb stays below ``2^(60 - bits)``,
    so it may be packed with the next limb into one int64 key and weighted sums of the
    (smaller) inputs stay in int64."""
    count = 1
    while (bound >> (bits * (count - 1))) + 2 > 1 << (60 - bits):
        count += 1
    return count


@dataclass(frozen=True, eq=False)
class Limbs:
    """An array of exact integers as int64 limbs (module docstring).

    Attributes:
        parts: ``int64 (L, *shape)``, least significant limb first, normalised.
        bits: ``b``, bits per limb (1..31).
    """

    parts: np.ndarray
    bits: int

    @staticmethod
    def from_ints(values: np.ndarray, count: int, bits: int) -> Limbs:
        """Split int64 or Python-int ``object`` integers into ``count`` limbs of ``bits`` bits.

        Raises:
            OverflowError: a value does not fit in ``count`` limbs with an int64 top limb.
        """
        mask = (1 << bits) - 1
        parts = np.empty((count,) + values.shape, dtype=np.int64)
        rest = values
        for i in range(count - 1):
            parts[i] = (rest & mask).astype(np.int64)
            rest = rest >> bits
        parts[count - 1] = np.asarray(rest).astype(np.int64) if rest.dtype != object else _to_int64(rest)
        return Limbs(parts, bits)

    def to_objects(self) -> np.ndarray:
        """The exact integers as a Python-int ``object`` array of the limbs' shape."""
        out: np.ndarray = self.parts[-1].astype(object)
        for i in range(len(self.parts) - 2, -1, -1):
            out = (out << self.bits) + self.parts[i].astype(object)
        return out

    def normalised(self) -> Limbs:
        """Carry every limb into range (``0 <= a_i < 2^b`` below the top); same integers."""
        parts = self.parts.copy()
        mask = (1 << self.bits) - 1
        for i in range(len(parts) - 1):
            parts[i + 1] += parts[i] >> self.bits  # arithmetic shift: floor division
            parts[i] &= mask
        return Limbs(parts, self.bits)

    def map(self, func: Callable[[np.ndarray], np.ndarray]) -> Limbs:
        """Apply a linear map with non-negative integer weights (summing to at most the weight
        sum the limbs were sized for) to every limb, then normalise."""
        return Limbs(np.stack([func(p) for p in self.parts]), self.bits).normalised()

    def map_rows(self, func: Callable[[np.ndarray], np.ndarray]) -> Limbs:
        """:meth:`map` for a linear map of rows, applied once to all limbs side by side:
        ``parts (L, N, Q)`` -> ``func((N, L*Q)) -> (M, L*Q)`` -> ``(L, M, Q)``, normalised."""
        count, rows, columns = self.parts.shape
        wide = self.parts.transpose(1, 0, 2).reshape(rows, count * columns)
        out = np.asarray(func(wide)).reshape(-1, count, columns).transpose(1, 0, 2)
        return Limbs(np.ascontiguousarray(out), self.bits).normalised()

    def times(self, factor: int) -> Limbs:
        """Multiply by a non-negative integer ``factor`` (at most the weight sum)."""
        return Limbs(self.parts * factor, self.bits).normalised()

    def take(self, index: np.ndarray | slice | tuple[object, ...]) -> Limbs:
        """``self[index]`` on every limb."""
        return Limbs(np.stack([p[index] for p in self.parts]), self.bits)

    def keys(self) -> list[np.ndarray]:
        """int64 arrays, most significant first, whose lexicographic order is the integers'
        order (limbs packed two per key)."""
        keys = []
        top = len(self.parts) - 1
        if top % 2 == 0:
            keys.append(self.parts[top])
            top -= 1
        while top > 0:
            keys.append((self.parts[top] << self.bits) + self.parts[top - 1])
            top -= 2
        return keys


def _to_int64(values: np.ndarray) -> np.ndarray:
    top = [int(v) for v in values.ravel()]
    if any(not -INT64_SAFE <= v < INT64_SAFE for v in top):
        raise OverflowError("top limb does not fit in int64")
    return np.array(top, dtype=np.int64).reshape(values.shape)
