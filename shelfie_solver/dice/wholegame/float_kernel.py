"""The compiled kernels of the float whole-game solver (:mod:`float_solver`, docs/solve-game.md,
"The float path"): one state's turn in float64 (:func:`_finals`, :func:`_turn`), a layer's
states (:func:`_solve_members`, the DP in blocks of states by :func:`turn_steps.turn_dp`, shared
with the two-player solver) and every state's layer (:func:`_layer_of`), compiled by numba when it is installed (the ``[fast]`` extra; without
it they run as Python, correct but slow). The arrays they read are :class:`FloatArrays`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from shelfie_solver.core.compiled import import_numba
from shelfie_solver.dice.board import Board, Marks
from shelfie_solver.dice.rules import Ruleset
from shelfie_solver.dice.wholegame import turn_steps
from shelfie_solver.dice.wholegame.state_index import StateIndex, state_index
from shelfie_solver.dice.wholegame.turn_steps import turn_dp

#: Compiled, callees first (numba; without it they run as Python, correct but slow), after the
#: block DP they call (:mod:`turn_steps`), bound in this module compiled.
_COMPILED_ORDER = ("_score", "_encode", "_finals", "_turn", "_solve_members", "_layer_of")


@cache
def _compiled() -> bool:
    """Compile the kernels with numba (cached on disk) into this module; ``False`` without numba."""
    numba = import_numba()  # once for every kernel, without SciPy's BLAS probe (core/compiled.py)
    if numba is None:
        return False
    globals()["turn_dp"] = turn_steps.compiled()["turn_dp"]
    for name in _COMPILED_ORDER:
        func = globals()[name]
        try:
            globals()[name] = numba.njit(cache=True, nogil=True)(func)
        except RuntimeError:  # no writable cache directory
            globals()[name] = numba.njit(nogil=True)(func)
    return True


@dataclass(frozen=True, eq=False)
class FloatArrays:
    """The state-free arrays of a board and ruleset the kernels read.

    Attributes:
        index: the :class:`StateIndex`. set_masks: ``int64 (K,)`` each item set's cells as bits.
        set_starts, set_rolls: the rolls that can mark each set (:func:`kernel.set_rolls`).
        line_cells: ``int64 (L, W)`` each line's cells (D19), padded with -1. values: item points.
        extend, order, shrink: :func:`transitions.hold_steps`. empty: the hold of no die.
        n_rolls, sides, rerolls, threshold: counts and rules (D7, D19).
    """

    index: StateIndex
    set_masks: np.ndarray
    set_starts: np.ndarray
    set_rolls: np.ndarray
    line_cells: np.ndarray
    values: np.ndarray
    extend: np.ndarray
    order: np.ndarray
    shrink: np.ndarray
    empty: int
    n_rolls: int
    sides: int
    dice: int
    rerolls: int
    threshold: int

    def kernel_args(self) -> tuple[Any, ...]:
        """The arguments :func:`_turn` takes after ``index, values``."""
        ix = self.index
        return (ix.offset, ix.patterns, ix.starts, ix.n_shelves, ix.n_columns, ix.trigger, self.set_masks,
                self.set_starts, self.set_rolls, self.line_cells, self.values, self.threshold, self.extend,
                self.order, self.shrink, self.n_rolls, self.empty, self.rerolls)


@cache
def float_arrays(board: Board, rules: Ruleset) -> FloatArrays:
    """:class:`FloatArrays` of a board and ruleset (built once per process).

    Raises:
        ValueError: the board has more than 62 items (sheets as int64 bit masks).
    """
    from shelfie_solver.dice.allocate import feasibility_arrays, set_masks
    from shelfie_solver.dice.engine.kernel import set_rolls
    from shelfie_solver.dice.engine.transitions import hold_steps
    from shelfie_solver.dice.rolls import space_for

    feasible = feasibility_arrays(board, rules)
    masks = set_masks(feasible)
    if masks is None:
        raise ValueError("the float solver needs a board of at most 62 items")
    space = space_for(rules)
    extend, _, order, shrink = hold_steps(space)
    shrink = np.where(shrink < 0, len(extend), shrink)  # the sentinel hold, worth -inf (:func:`_turn`)
    starts, rolls = set_rolls(feasible)
    width = max(len(line) for line in board.lines)
    lines = np.full((len(board.lines), width), -1, dtype=np.int64)
    for i, line in enumerate(board.lines):
        lines[i, :len(line)] = line
    return FloatArrays(state_index(board, rules), masks.astype(np.int64), starts, rolls.astype(np.int64), lines,
                       board.value_array.astype(np.int64), extend, order, shrink,
                       space.hold_index[(0,) * space.n_sides], len(space.rolls), space.n_sides, space.n_dice,
                       rules.rerolls, rules.scoring_threshold)


# --- compiled kernels ---------------------------------------------------------------------------


def _score(marked: int, line_cells: np.ndarray, values: np.ndarray, threshold: int) -> float:  # pragma: no cover
    """The points of a sheet (D19): every line with ``threshold`` or more marked items scores them."""
    total = 0
    for line in range(line_cells.shape[0]):
        count = 0
        points = 0
        for j in range(line_cells.shape[1]):
            c = line_cells[line, j]
            if c < 0:
                break
            if (marked >> c) & 1:
                count += 1
                points += values[c]
        if count >= threshold:
            total += points
    return float(total)


def _encode(marked: int, closed: int, offset: np.ndarray, n_shelves: int, n_columns: int) -> int:  # pragma: no cover
    """The :class:`StateIndex` index of a non-terminal sheet: marked bits, closed shelves."""
    full = (1 << n_columns) - 1
    index = offset[closed]
    mult = 1
    for s in range(n_shelves):
        index += ((marked >> (s * n_columns)) & full) * mult
        mult *= full + 1 if (closed >> s) & 1 else full
    return int(index)


def _finals(index: int, values: np.ndarray, offset: np.ndarray, patterns: np.ndarray, starts: np.ndarray,
            n_shelves: int, n_columns: int, trigger: int, set_masks: np.ndarray, set_starts: np.ndarray,
            set_rolls: np.ndarray, line_cells: np.ndarray, cell_values: np.ndarray, threshold: int,
            finals: np.ndarray) -> bool:  # pragma: no cover - compiled
    """Fill ``finals (R,)`` with each final roll's value in state ``index``: its best usable
    feasible item set's successor (D8-D12, D14; a finished sheet's score, D17-D19) or the best
    open shelf to give up (D13). Returns whether a successor's value was missing (NaN)."""
    g = patterns.shape[0] - 1
    while starts[g] > index:
        g -= 1
    closed = patterns[g]
    rest = index - starts[g]
    full = (1 << n_columns) - 1
    marked = 0
    decided = 0
    for s in range(n_shelves):
        radix = full + 1 if (closed >> s) & 1 else full
        marked |= (rest % radix) << (s * n_columns)
        rest //= radix
        if (closed >> s) & 1:
            decided |= full << (s * n_columns)
    decided |= marked
    low = -np.inf
    n_rolls = finals.shape[0]
    for r in range(n_rolls):
        finals[r] = low
    missing = False
    for k in range(set_masks.shape[0]):
        mask = set_masks[k]
        if mask & decided:
            continue  # an item already marked or eliminated (D4)
        after = marked | mask
        now = closed
        count = 0
        for s in range(n_shelves):
            if ((after >> (s * n_columns)) & full) == full:
                now |= 1 << s
            count += (now >> s) & 1
        if count >= trigger:  # the game ends: the sheet's score (D17-D19)
            w = _score(after, line_cells, cell_values, threshold)
        else:
            w = values[_encode(after, now, offset, n_shelves, n_columns)]
            if w != w:
                missing = True
        for p in range(set_starts[k], set_starts[k + 1]):
            r = set_rolls[p]
            if w > finals[r]:
                finals[r] = w
    failed = low
    for r in range(n_rolls):
        if finals[r] == low:  # a failed result (D13): the best open shelf to give up
            if failed == low:
                for s in range(n_shelves):
                    if (closed >> s) & 1:
                        continue
                    now = closed | (1 << s)
                    count = 0
                    for t in range(n_shelves):
                        count += (now >> t) & 1
                    if count >= trigger:
                        w = _score(marked, line_cells, cell_values, threshold)
                    else:
                        w = values[_encode(marked, now, offset, n_shelves, n_columns)]
                        if w != w:
                            missing = True
                    if w > failed:
                        failed = w
            finals[r] = failed
    return missing


def _turn(index: int, values: np.ndarray, offset: np.ndarray, patterns: np.ndarray, starts: np.ndarray,
          n_shelves: int, n_columns: int, trigger: int, set_masks: np.ndarray, set_starts: np.ndarray,
          set_rolls: np.ndarray, line_cells: np.ndarray, cell_values: np.ndarray, threshold: int,
          extend: np.ndarray, order: np.ndarray, shrink: np.ndarray, n_rolls: int, empty: int, rerolls: int,
          finals: np.ndarray, expected: np.ndarray, sums: np.ndarray, best: np.ndarray) -> float:  # pragma: no cover
    """One state's whole turn (module docstring): fills ``finals (R,)`` (:func:`_finals`),
    ``expected (rerolls + 1, H)`` (row ``r >= 1``: E_r of every hold, rolls' rows stopping, D7)
    and returns the value at the start of the turn; NaN when a successor's value is missing.
    ``sums (H,)``, ``best (H + 1,)`` are scratch. :func:`turn_steps.turn_dp` does the same operations in
    the same order for a block of states."""
    if _finals(index, values, offset, patterns, starts, n_shelves, n_columns, trigger, set_masks, set_starts,
               set_rolls, line_cells, cell_values, threshold, finals):
        return np.nan
    low = -np.inf
    n_holds, sides = extend.shape
    for r in range(n_rolls):
        best[r] = finals[r]
    best[n_holds] = low  # the sentinel ``shrink`` points to where a hold has no die of a side
    for level in range(1, rerolls + 2):
        for r in range(n_rolls):
            sums[r] = best[r]
        for i in range(order.shape[0]):
            h = order[i]
            total = 0.0
            for f in range(sides):
                total += sums[extend[h, f]]
            sums[h] = total / sides
        if level == rerolls + 1:
            return float(sums[empty])  # the first roll of every die (D6)
        for h in range(n_rolls, n_holds):
            expected[level, h] = sums[h]
        for r in range(n_rolls):
            expected[level, r] = finals[r]  # keeping every die is stopping (D7)
        for h in range(n_holds - 1, -1, -1):  # fewer dice kept first: each shrink is done already
            b = expected[level, h]
            for f in range(sides):
                b = max(b, best[shrink[h, f]])
            best[h] = b
    return float(sums[empty])


#: States whose DP runs together in :func:`turn_steps.turn_dp` (the inner loops over them vectorise).
_BLOCK = 8


def _solve_members(members: np.ndarray, values: np.ndarray, offset: np.ndarray, patterns: np.ndarray,
                   starts: np.ndarray, n_shelves: int, n_columns: int, trigger: int, set_masks: np.ndarray,
                   set_starts: np.ndarray, set_rolls: np.ndarray, line_cells: np.ndarray, cell_values: np.ndarray,
                   threshold: int, extend: np.ndarray, order: np.ndarray, shrink: np.ndarray, n_rolls: int,
                   empty: int, rerolls: int) -> tuple[np.ndarray, float]:  # pragma: no cover - compiled
    """The values of the states ``members`` (indices), NaN where a successor was missing, and the
    largest final-roll value met; the DP in blocks of :data:`_BLOCK` states (:func:`turn_steps.turn_dp`)."""
    n_holds = extend.shape[0]
    n = members.shape[0]
    out = np.empty(n, np.float64)
    one = np.empty(n_rolls, np.float64)
    finals = np.empty((n_rolls, _BLOCK), np.float64)
    sums = np.empty((n_holds, _BLOCK), np.float64)
    expected = np.empty((n_holds, _BLOCK), np.float64)
    best = np.empty((n_holds + 1, _BLOCK), np.float64)
    block_out = np.empty(_BLOCK, np.float64)
    no_policy = np.zeros((1, 1, 1), np.int64)  # each roll keeps its best hold
    missing = np.zeros(_BLOCK, np.bool_)
    largest = 0.0
    for lo in range(0, n, _BLOCK):
        nb = min(_BLOCK, n - lo)
        for j in range(nb):
            missing[j] = _finals(members[lo + j], values, offset, patterns, starts, n_shelves, n_columns, trigger,
                                 set_masks, set_starts, set_rolls, line_cells, cell_values, threshold, one)
            for r in range(n_rolls):
                finals[r, j] = one[r]
                if one[r] > largest:
                    largest = one[r]
        turn_dp(finals, nb, no_policy, False, extend, order, shrink, n_rolls, empty, rerolls, sums, expected, best,
                block_out)
        for j in range(nb):
            out[lo + j] = np.nan if missing[j] else block_out[j]
    return out, largest


def _layer_of(count: int, patterns: np.ndarray, starts: np.ndarray, n_shelves: int,
              n_columns: int) -> np.ndarray:  # pragma: no cover - compiled
    """``uint8 (count,)``: the decided items (marked or eliminated) of every state."""
    out = np.empty(count, np.uint8)
    full = (1 << n_columns) - 1
    for g in range(patterns.shape[0]):
        closed = patterns[g]
        base = 0
        for s in range(n_shelves):
            base += n_columns * ((closed >> s) & 1)
        for index in range(starts[g], starts[g + 1]):
            rest = index - starts[g]
            decided = base
            for s in range(n_shelves):
                radix = full + 1 if (closed >> s) & 1 else full
                m = rest % radix
                rest //= radix
                if not (closed >> s) & 1:
                    while m:
                        decided += m & 1
                        m >>= 1
            out[index] = decided
    return out


# --- from Python -----------------------------------------------------------------------------------


@cache
def layer_of(board: Board, rules: Ruleset) -> np.ndarray:
    """``uint8 (states,)``: each state's layer (decided items), by :class:`StateIndex` index."""
    _compiled()
    ix = float_arrays(board, rules).index
    return _layer_of(ix.count, ix.patterns, ix.starts, ix.n_shelves, ix.n_columns)


def layer_members(board: Board, rules: Ruleset, layer: int) -> np.ndarray:
    """``int64``: the indices of the states of ``layer``, increasing."""
    return np.flatnonzero(layer_of(board, rules) == layer).astype(np.int64)


def solve_members(board: Board, rules: Ruleset, values: np.ndarray, members: np.ndarray) -> tuple[np.ndarray, float]:
    """The float64 values of the states ``members`` from ``values`` (float64, every later layer
    solved) and the largest final-roll value met (for :func:`layer_bound`)."""
    _compiled()
    arrays = float_arrays(board, rules)
    out, largest = _solve_members(np.ascontiguousarray(members, dtype=np.int64), values, *arrays.kernel_args())
    return out, float(largest)


def turn_values(board: Board, rules: Ruleset, values: np.ndarray, marks: Marks) -> tuple[float, np.ndarray, np.ndarray]:
    """One non-terminal state's float turn from the table ``values``: its value, ``finals (R,)``
    (each final roll's worth, D8-D14) and ``expected (rerolls + 1, H)`` (E_r of every hold, row 0
    unused), for the policy (:func:`_turn`)."""
    _compiled()
    arrays = float_arrays(board, rules)
    n_holds = arrays.extend.shape[0]
    finals = np.empty(arrays.n_rolls, np.float64)
    expected = np.zeros((arrays.rerolls + 1, n_holds), np.float64)
    turn: Any = _turn
    value = turn(arrays.index.index(marks), values, *arrays.kernel_args(), finals, expected,
                  np.empty(n_holds, np.float64), np.empty(n_holds + 1, np.float64))
    return float(value), finals, expected


def has_numba() -> bool:
    """Whether the kernels are compiled (numba installed); compiles them on the first call."""
    return _compiled()
