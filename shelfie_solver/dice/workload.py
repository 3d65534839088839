"""How much work a board and ruleset cost the exact engine, estimated BEFORE any table is built,
so that input which would run for minutes or exhaust memory is refused up front with one line
(the limits are in docs/formats.md, "Limits").

The engine's tables (:mod:`rolls`, :mod:`allocate`, :mod:`engine.dp`) have sizes that follow from
a handful of counts, all computed here in closed form (no table is built):

* ``rolls`` R = C(d + s - 1, d) and ``holds`` H = C(d + s, d) for d dice of s sides (D6, D7);
* ``transitions``: the non-zero re-roll weights, sum over k of C(k + s - 1, k) * C(d - k + s - 1, d - k);
* ``item_sets`` K: the sets of 1..k items (k = combinations_per_turn, D9), and ``set_options``:
  those sets once every several-face item has chosen its face (the elementary symmetric sums
  of the faces per item);
* ``columns`` Q = k + 1 carried through the dynamic programme (objective, failed result,
  at least 2..k items).

:func:`estimate_work` turns them into a peak-memory figure (bytes) and a time figure
(element operations), each a sum of the engine's largest arrays with measured constants
(measured: docs/formats.md), and :func:`check_work` refuses anything past :data:`MAX_BYTES` or
:data:`MAX_OPERATIONS` for the number of turn solves a command needs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from shelfie_solver.dice.board import Board
from shelfie_solver.core.errors import ShelfieError
from shelfie_solver.dice.engine.transitions import INT64_SAFE
from shelfie_solver.dice.rules import Ruleset

#: Peak memory allowed for the engine's tables (bytes; with Python and numpy themselves, about
#: 150 MB resident in all).
MAX_BYTES = 100_000_000
#: Memory allowed for the tables kept while a cheat sheet is drawn (kept tables plus one solve):
#: matplotlib and the sheet add about 95 MB resident on top of them (measured: docs/formats.md).
MAX_SHEET_BYTES = 55_000_000
#: Element operations allowed for one command (under a minute on one core of the reference machine).
MAX_OPERATIONS = 10_000_000_000
#: (roll, item-set option) pairs the feasibility test evaluates at once (:mod:`allocate`; about
#: 4 MB per temporary).
BLOCK_PAIRS = 1 << 22


class WorkError(ShelfieError):
    """A board and ruleset (or a command's number of solves) would cost the exact engine more
    time or memory than the documented bounds (docs/formats.md)."""


@dataclass(frozen=True)
class Work:
    """The sizes that set the engine's cost for one board and ruleset (module docstring).

    Attributes:
        rolls, holds, transitions, item_sets, set_options, columns: the counts R, H, nnz, K, O, Q.
        lines: shelves + columns of the board. per_set: k, the longest item set.
        rerolls: re-roll levels solved. big_ints: whether values overflow int64 (Python ints).
    """

    rolls: int
    holds: int
    transitions: int
    item_sets: int
    set_options: int
    columns: int
    lines: int
    per_set: int
    sides: int
    rerolls: int
    big_ints: bool

    @property
    def table_bytes(self) -> int:
        """Bytes of the state-free tables kept for the whole run: the re-roll transitions in CSR
        form (16 bytes per non-zero weight) with the sub-holds of every roll (``(R, M)`` int64,
        M at most ``min(H, 2**s)``), the item sets (``(K, k + 2L)`` int64) and the feasible
        (roll, item set) pairs (8 bytes a pair, at most an eighth of all pairs feasible: 0.5% on
        the default board, 5% with 10 dice)."""
        space = 16 * self.transitions + 8 * self.rolls * min(self.holds, 1 << self.sides)
        sets = 8 * self.item_sets * (self.per_set + 2 * self.lines)
        feasible = self.rolls * (self.item_sets + 1) + 8 * self.rolls
        return space + sets + feasible

    @property
    def build_bytes(self) -> int:
        """Peak bytes of the temporaries while the tables are built, the largest of: the
        transitions and sub-holds (about 130 bytes per non-zero weight, measured), and the
        feasibility test, run on blocks of rolls of about :data:`BLOCK_PAIRS` (roll, item-set
        option) pairs (8 bytes a pair) after the several-face sets were expanded in Python
        (about 400 bytes per extra option, measured)."""
        block = min(self.rolls, max(1, BLOCK_PAIRS // max(1, self.set_options)))
        feasibility = 8 * block * self.set_options + 400 * (self.set_options - self.item_sets)
        return max(130 * self.transitions, feasibility)

    @property
    def solve_bytes(self) -> int:
        """Peak bytes of one turn solve: the final table over the item sets (a dozen ``(K, L)``
        int64 arrays), and per re-roll level ``(H, Q)`` values plus the ``nnz`` gathers of the
        expectation (int64 limbs when values overflow int64: about 3 times as much)."""
        final = 12 * 8 * self.item_sets * self.lines
        width = 24 if self.big_ints else 8
        levels = width * (self.holds * self.columns * (self.rerolls + 1) + 3 * self.transitions)
        return final + levels

    @property
    def peak_bytes(self) -> int:
        """Estimated peak memory of the engine's arrays (bytes): the kept tables plus the larger
        of the build temporaries and one solve."""
        return self.table_bytes + max(self.build_bytes, self.solve_bytes)

    @property
    def table_operations(self) -> int:
        """Element operations to build the state-free tables (the face loop of the feasibility
        test over ``(R, O)``; the several-face expansion runs in Python, weighted 10,000 an
        option, measured)."""
        return (12 * self.rolls * self.set_options + 10_000 * (self.set_options - self.item_sets)
                + 10 * self.transitions)

    @property
    def solve_operations(self) -> int:
        """Element operations of one turn solve: the expectation over ``nnz`` per column and
        level (int64 limbs weighted 3), plus the final table over ``(R, K)``."""
        weight = 3 if self.big_ints else 1
        return weight * 4 * self.transitions * self.columns * max(1, self.rerolls) + 2 * self.rolls * self.item_sets


def _elementary_sums(sizes: list[int], most: int) -> list[int]:
    """``e[j]`` = sum over j-subsets of the product of their ``sizes``, j = 0..most."""
    e = [1] + [0] * most
    for m in sizes:
        for j in range(most, 0, -1):
            e[j] += e[j - 1] * m
    return e


def estimate_work(board: Board | None, rules: Ruleset) -> Work:
    """The :class:`Work` of ``board`` under ``rules``, in closed form (module docstring); cheap
    for any accepted input (at most 49 items, 12 dice, 12 sides). ``board`` None: the dice
    alone (e.g. ``odds`` on a dice target), no item sets."""
    d, s = rules.dice, rules.n_sides
    cells = board.n_cells if board is not None else 0
    k = min(rules.combinations_per_turn, cells)
    rolls = math.comb(d + s - 1, d)
    holds = math.comb(d + s, d)
    transitions = sum(math.comb(j + s - 1, j) * math.comb(d - j + s - 1, d - j) for j in range(d + 1))
    item_sets = sum(math.comb(cells, j) for j in range(1, k + 1))
    faces = [len(board.faces_of(c)) for c in range(cells)] if board is not None else []
    options = sum(_elementary_sums(faces, k)[1:])
    # the largest level-0 value: the strategic objective (scale 2t) changes each line's points,
    # and every item lies in two lines (objectives.py)
    bound = 4 * max(1, rules.scoring_threshold) * sum(board.value(c) for c in range(cells)) if board else 1
    big = (bound + 1) * (s ** d) ** (rules.rerolls + 1) >= INT64_SAFE  # else int64 limbs (engine.wide)
    lines = len(board.lines) if board is not None else 0
    return Work(rolls, holds, transitions, item_sets, options, k + 1, lines, k, s, rules.rerolls, big)


def check_work(board: Board | None, rules: Ruleset, solves: int = 1, what: str = "this command",
               sheet: bool = False) -> Work:
    """Refuse, before any table is built, a board and ruleset whose tables would pass
    :data:`MAX_BYTES` (with ``sheet``, a cheat sheet: also whose kept tables and one solve would
    pass :data:`MAX_SHEET_BYTES`), or whose ``solves`` turn solves would pass :data:`MAX_OPERATIONS`.

    Args:
        board: the board, or None for the dice alone (:func:`estimate_work`).
        solves: turn solves the command needs (advise 1; cheatsheet one per item and more).
        what: the command, for the message.
    Returns:
        The :class:`Work` estimate.
    Raises:
        WorkError: one line naming the counts and the way out (fewer dice, faces, items or
            combinations per turn).
    """
    work = estimate_work(board, rules)
    shape = (f"{rules.dice} dice of {rules.n_sides} sides: {work.rolls:,} rolls x {work.holds:,} holds"
             if board is None else
             f"{rules.dice} dice of {rules.n_sides} sides, {board.n_cells} items, up to "
             f"{work.per_set} combinations per turn: {work.rolls:,} rolls x {work.set_options:,} item sets")
    if work.peak_bytes > MAX_BYTES:
        raise WorkError(f"{shape} would need about {work.peak_bytes / 1e6:,.0f} MB for the exact engine "
                        f"(at most {MAX_BYTES / 1e6:,.0f} MB); use fewer dice, faces, items or combinations "
                        "per turn (docs/formats.md)")
    kept = work.table_bytes + work.solve_bytes
    if sheet and kept > MAX_SHEET_BYTES:
        raise WorkError(f"{shape}: {what} would keep about {kept / 1e6:,.0f} MB of tables while it is drawn "
                        f"(at most {MAX_SHEET_BYTES / 1e6:,.0f} MB); use fewer dice, faces, items or "
                        "combinations per turn (docs/formats.md)")
    operations = work.table_operations + solves * work.solve_operations
    if operations > MAX_OPERATIONS:
        raise WorkError(f"{shape}: {what} would take about {operations / 1e9:,.0f} billion steps "
                        f"(at most {MAX_OPERATIONS / 1e9:,.0f} billion); use fewer dice, faces, items or "
                        "combinations per turn (docs/formats.md)")
    return work
