"""Both sheets' trees of the 2-player win model (win-model file format 5; docs/win-chance.md,
"Both sheets: trees in integers (format 5)"; docs/formats.md, "Win-model file").

A block of regression trees adds to each seat's strength of a 2-player position an exact integer
``T_i``: the sum over the trees of the leaf reached by that seat's inputs

    u_i = [x_i[0..F-1], x_j[0..F-1], phase]       (length 2F + 1)

``x`` the RAW :func:`win_model.design` integers (before :func:`win_model.monotone_columns`'
projection), ``i`` the seat, ``j`` the other seat, ``phase`` the position's phase after the turn
(0, 2 or 3: the row key). A node sends ``u`` left when ``u[feature] <= threshold`` (integers
throughout). Leaf values are in units of ``1 / (COEF_SCALE * WEIGHT_SCALE)`` of strength, the
units of :func:`win_model.strength_numerators`, so ``z_i`` becomes ``c . x'_i + T_i`` exactly.

The nodes of all trees are one flat table (:class:`WinTrees`), every child after its parent, so
the file is a forest by construction, checked at load (:func:`trees_from_dict`), with the sum over
the trees of their largest ``|leaf|`` below :data:`TREE_BOUND` (so ``z + T`` stays in int64 with
the strengths' own bound) and every tree monotone in its seat's own ``P`` (:data:`OWN_COLUMNS`):
non-decreasing in ``u[f]`` and non-increasing in ``u[F + f]`` for ``f`` in :data:`OWN_COLUMNS`,
by the sufficient condition that at a node splitting on such a column every leaf of one side is
at most every leaf of the other (docs/win-chance.md, "Monotone in the lead": every seat's chance
non-decreasing in its own ``P``). The same integers as the compiled
:func:`learned.kernel._win_tree_term`. Kept apart from :mod:`learned.win_model` (which reads the
file and threads the trees to every place the coefficients go) for its size only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

#: The one number of players whose coefficients may have trees (this format: ``"2"`` only).
TREE_PLAYERS = 2
#: The columns of a seat's features that increase with its own ``P`` (indices of
#: :data:`win_model.FEATURES`: "P", "P x r", "F x another seat near", "F x near", "lead x |lead| /
#: 10", "... x r"): the trees must be non-decreasing in these of ``x_i`` and non-increasing in
#: these of ``x_j`` (the module docstring; a test checks the names).
OWN_COLUMNS = (0, 1, 5, 6, 11, 12)
#: The sum over the trees of the largest ``|leaf value|`` is below this (2**61): with the strengths'
#: own int64 bound (below 2**61 where trees are present) every ``z + T`` and difference fits int64.
TREE_BOUND = 1 << 61
#: The arrays of a block, one entry per node, in the order of :attr:`WinTrees.nodes`' columns.
NODE_KEYS = ("feature", "threshold", "left", "right", "value")
#: The keys of a block: :data:`NODE_KEYS`, ``"roots"`` and the optional free record ``"fitted"``.
BLOCK_KEYS = (*NODE_KEYS, "roots", "fitted")
#: The smallest and largest integer of a block (int64, as the compiled path reads them).
INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1
#: Rows of ``u`` evaluated at once by :meth:`WinTrees.terms` (bounds its scratch memory).
_CHUNK_CELLS = 1 << 20


@dataclass(frozen=True, eq=False)
class WinTrees:
    """A block of trees over a seat's inputs ``u (2F + 1,)`` (module docstring).

    ``nodes`` ``int64 (N, 5)``: per node its ``feature`` (input index 0..2F, or -1 at a leaf),
    ``threshold`` (left when ``u[feature] <= threshold``), ``left`` and ``right`` child indices
    (-1 at a leaf, each greater than the node's own) and ``value`` (the leaf's integer
    contribution in units of ``1 / (COEF_SCALE * WEIGHT_SCALE)`` of strength; 0 at internal
    nodes); ``roots`` ``int64 (R,)`` each tree's root; ``depth`` the most internal nodes on a
    path; ``bound`` the sum over the trees of their largest ``|leaf|`` (below
    :data:`TREE_BOUND`); ``fitted`` the block's free record of how it was made (``None``: none)."""

    nodes: np.ndarray = field(default_factory=lambda: np.zeros((0, len(NODE_KEYS)), dtype=np.int64))
    roots: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    depth: int = 0
    bound: int = 0
    fitted: Any = None

    @property
    def empty(self) -> bool:
        """Whether the block has no tree (then ``T`` is 0: the format-4 strengths)."""
        return len(self.roots) == 0

    def to_dict(self) -> dict[str, Any]:
        """The block's JSON form (docs/formats.md, "Win-model file")."""
        out: dict[str, Any] = {key: self.nodes[:, q].tolist() for q, key in enumerate(NODE_KEYS)}
        out["roots"] = self.roots.tolist()
        if self.fitted is not None:
            out["fitted"] = self.fitted
        return out

    def terms(self, phase: np.ndarray, x: np.ndarray) -> np.ndarray:
        """``int64 (K, 2)``: each seat's tree term ``T_i`` of ``K`` two-player positions, ``x``
        ``(K, 2, F)`` the RAW :func:`win_model.design` (int64, or Python integers in an object
        array beyond its int64 bounds: compared exactly) and ``phase (K,)`` (0, 2, 3). All trees
        of a chunk of positions at once, one step of depth at a time (index arrays)."""
        k, n, width = x.shape
        out = np.zeros((k, n), dtype=np.int64)
        if self.empty or k == 0:
            return out
        if n != TREE_PLAYERS:
            raise ValueError(f"the trees read 2-player positions, got {n} seats")
        ph = np.asarray(phase).reshape(k, 1, 1)
        ph = ph.astype(object) if x.dtype == object else ph.astype(np.int64)
        u = np.concatenate([x, x[:, ::-1, :], np.broadcast_to(ph, (k, n, 1))], axis=-1).reshape(k * n, 2 * width + 1)
        feature, threshold, left, right, value = (self.nodes[:, q] for q in range(len(NODE_KEYS)))
        terms = np.zeros(k * n, dtype=np.int64)
        step = max(1, _CHUNK_CELLS // len(self.roots))
        for start in range(0, k * n, step):
            rows = u[start:start + step]
            node = np.broadcast_to(self.roots, (len(rows), len(self.roots))).copy()
            which = np.arange(len(rows))[:, None]
            for _ in range(self.depth):
                f = feature[node]
                inner = f >= 0
                if not inner.any():
                    break
                seen = rows[which, np.maximum(f, 0)]
                left_side = np.asarray(seen <= threshold[node], dtype=bool)
                node = np.where(inner, np.where(left_side, left[node], right[node]), node)
            terms[start:start + step] = value[node].sum(axis=1)
        return terms.reshape(k, n)


#: No trees: the format-4 strengths (what a block of zero nodes gives; the compiled path's
#: arguments for a model without trees).
NO_TREES = WinTrees()


def _whole_list(block: dict[str, Any], key: str) -> list[int]:
    """``block[key]``, a list of int64 whole numbers (no ``true``, no ``1.0``).

    Raises:
        ValueError: not such a list (one line)."""
    raw = block.get(key)
    if not isinstance(raw, list) or not all(type(v) is int and INT64_MIN <= v <= INT64_MAX for v in raw):
        raise ValueError(f'"{key}" must be a list of whole numbers from -2**63 to 2**63 - 1')
    return raw


def trees_from_dict(raw: Any, features: int) -> dict[int, WinTrees]:
    """The trees of a format-5 file's ``"trees"`` value (docs/formats.md, "Win-model file"):
    ``{"2": BLOCK}``, BLOCK with :data:`NODE_KEYS` (one entry per node, all of one length),
    ``"roots"`` and an optional ``"fitted"`` record; ``features`` is ``F`` (inputs ``0..2F``).

    Checks: whole numbers only; a leaf has feature -1, children -1, threshold 0; an internal node
    a feature in ``0..2F``, value 0 and children after it and within the table; every node the
    child of exactly one node or exactly one root, roots distinct; the sum over the trees of
    their largest ``|leaf|`` below :data:`TREE_BOUND`; each tree monotone in its seat's own ``P``
    (module docstring; at a node splitting on ``f`` of :data:`OWN_COLUMNS`, the left subtree's
    largest leaf at most the right's smallest; on ``F + f``, the left's smallest at least the
    right's largest).

    Raises:
        ValueError: one line naming the problem (the caller adds the file's name and the form).
    """
    if not isinstance(raw, dict) or set(raw) != {str(TREE_PLAYERS)}:
        keys = sorted(map(str, raw)) if isinstance(raw, dict) else type(raw).__name__
        raise ValueError(f'"trees" must be an object with the one key "{TREE_PLAYERS}" (2-player trees only '
                         f"in this format), got {str(keys)[:60]}")
    block = raw[str(TREE_PLAYERS)]
    if not isinstance(block, dict):
        raise ValueError(f'"trees" "{TREE_PLAYERS}" must be an object with the keys {", ".join(BLOCK_KEYS[:-1])}')
    odd = next((key for key in block if key not in BLOCK_KEYS), None)
    if odd is not None:
        raise ValueError(f'"trees" has the unknown key {str(odd)[:40]!r}; expected {", ".join(BLOCK_KEYS)}')
    columns = [_whole_list(block, key) for key in NODE_KEYS]
    roots = _whole_list(block, "roots")
    n = len(columns[0])
    if any(len(c) != n for c in columns):
        lengths = ", ".join(f"{key} {len(c)}" for key, c in zip(NODE_KEYS, columns))
        raise ValueError(f'the node lists of "trees" must be of one length, got {lengths}')
    feature, threshold, left, right, value = columns
    last = 2 * features
    parents = [0] * n
    for i in range(n):
        if feature[i] == -1:
            if left[i] != -1 or right[i] != -1 or threshold[i] != 0:
                raise ValueError(f"tree node {i} is a leaf (feature -1) but has children or a threshold; "
                                 "expected left -1, right -1, threshold 0")
            continue
        if not 0 <= feature[i] <= last:
            raise ValueError(f"tree node {i} splits on feature {feature[i]}; expected -1 (a leaf) or 0 to {last}")
        if value[i] != 0:
            raise ValueError(f"tree node {i} is internal but has the value {value[i]}; expected 0")
        for child in (left[i], right[i]):
            if not i < child < n:
                raise ValueError(f"tree node {i} has the child {child}; expected a node after it ({i + 1} to {n - 1})")
            parents[child] += 1
    for root in roots:
        if not 0 <= root < n:
            raise ValueError(f'"roots" has {root}; expected node indices 0 to {n - 1}')
        parents[root] += 1
    bad = next((i for i in range(n) if parents[i] != 1), None)
    if bad is not None or len(set(roots)) != len(roots):
        raise ValueError(f"tree node {bad} is reached {parents[bad] if bad is not None else 2} times; expected "
                         "every node the child of one node or one root (a forest)")
    low, high, depth = list(value), list(value), [0] * n
    for i in reversed(range(n)):  # children after parents: each subtree's leaves known before its parent
        if feature[i] == -1:
            continue
        a, b = left[i], right[i]
        low[i], high[i], depth[i] = min(low[a], low[b]), max(high[a], high[b]), 1 + max(depth[a], depth[b])
        f = feature[i]
        if f < features and f in OWN_COLUMNS and high[a] > low[b]:
            raise ValueError(f"tree node {i} splits on the seat's own feature {f} with a left leaf {high[a]} above a "
                             f"right leaf {low[b]}; expected trees non-decreasing in the seat's own P")
        if features <= f < last and f - features in OWN_COLUMNS and low[a] < high[b]:
            raise ValueError(f"tree node {i} splits on the other seat's feature {f - features} with a left leaf "
                             f"{low[a]} below a right leaf {high[b]}; expected trees non-increasing in the other "
                             "seat's P")
    bound = sum(max(abs(low[r]), abs(high[r])) for r in roots)
    if bound >= TREE_BOUND:
        raise ValueError(f"the trees' largest leaves add up to {bound}; expected below 2**61")
    nodes = np.array(columns, dtype=np.int64).T.reshape(n, len(NODE_KEYS)).copy()
    return {TREE_PLAYERS: WinTrees(nodes, np.array(roots, dtype=np.int64), max((depth[r] for r in roots), default=0),
                                   bound, block.get("fitted"))}
