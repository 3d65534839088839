"""The compact index of solitaire sheet states: every non-terminal state as one integer
``0 <= i < count``, a mixed radix (docs/solve-game.md, "The float path").

In solitaire only a failed result eliminates items, and it eliminates a whole shelf's available
items (D13), so a shelf is its *marked subset* and whether it is *closed* (no available item:
every item marked, or the rest eliminated). The game is over once ``trigger`` shelves are
closed (D17, D18 with one player), so a non-terminal state closes a set ``P`` of fewer than
``trigger`` shelves. The index lists the closed sets ``P`` one after the other (by size, then
as bit masks in increasing order); within ``P``, shelf ``s``'s marked mask ``m_s`` is a digit of
radix ``2^C - 1`` when the shelf is open (``m_s`` is not the full row) or ``2^C`` when closed,
shelf 0 the fastest digit::

    index = offset[P] + sum over shelves s of m_s * prod over shelves r < s of radix_r(P)

so ``count`` is exactly :func:`solver.state_count` (``tests/test_float_solver.py`` checks the
index is a bijection onto :func:`solver.layer_states`). Sheets are :class:`board.Marks` bit
masks: cell ``shelf * C + column``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from shelfie_solver.dice.board import Board, Marks
from shelfie_solver.dice.rules import Ruleset
from shelfie_solver.dice.sheet_rules import end_trigger_shelves


@dataclass(frozen=True, eq=False)
class StateIndex:
    """The mixed-radix index of one board's non-terminal solitaire states (module docstring).

    Attributes:
        n_shelves, n_columns: the board shape. trigger: closed shelves that end the game (D17).
        offset: ``int64 (2^S,)`` the first index of each closed set ``P`` (bit mask of shelves),
            -1 for sets of ``trigger`` or more shelves (terminal).
        patterns: ``int64 (G,)`` the closed sets in index order; starts: ``int64 (G + 1,)`` their
            first indices, then ``count``.
        count: the number of non-terminal states.
    """

    n_shelves: int
    n_columns: int
    trigger: int
    offset: np.ndarray
    patterns: np.ndarray
    starts: np.ndarray
    count: int

    def index(self, marks: Marks) -> int:
        """The index of a non-terminal solitaire sheet.

        Raises:
            ValueError: the sheet is terminal, not of this shape, or not a solitaire sheet (an
                eliminated item outside a closed shelf, or a closed shelf with an available item).
        """
        if (marks.n_shelves, marks.n_columns) != (self.n_shelves, self.n_columns):
            raise ValueError(f"a {marks.n_shelves}x{marks.n_columns} sheet is not on this "
                             f"{self.n_shelves}x{self.n_columns} board")
        c, full = self.n_columns, (1 << self.n_columns) - 1
        closed, digits = 0, []
        for s in range(self.n_shelves):
            m = (marks.marked >> (s * c)) & full
            e = (marks.eliminated >> (s * c)) & full
            if m & e or (e and (m | e) != full):
                raise ValueError(f"sheet {marks} is not a solitaire state (eliminated items must be whole "
                                 "shelves, D13)")
            if (m | e) == full:
                closed |= 1 << s
            digits.append(m)
        start = int(self.offset[closed])
        if start < 0:
            raise ValueError(f"sheet {marks} is terminal (D17): it has no index")
        index, mult = start, 1
        for s, m in enumerate(digits):
            index += m * mult
            mult *= full + 1 if closed >> s & 1 else full
        return index

    def marks(self, index: int) -> Marks:
        """The sheet of an index (the inverse of :meth:`index`).

        Raises:
            ValueError: the index is not in ``0 .. count - 1``.
        """
        if not 0 <= index < self.count:
            raise ValueError(f"state index {index} is not in 0..{self.count - 1}")
        g = int(np.searchsorted(self.starts, index, side="right")) - 1
        closed, rest = int(self.patterns[g]), index - int(self.starts[g])
        c, full = self.n_columns, (1 << self.n_columns) - 1
        marked = eliminated = 0
        for s in range(self.n_shelves):
            radix = full + 1 if closed >> s & 1 else full
            m, rest = rest % radix, rest // radix
            marked |= m << (s * c)
            if closed >> s & 1:
                eliminated |= (full & ~m) << (s * c)
        return Marks(self.n_shelves, self.n_columns, marked, eliminated)


@cache
def state_index(board: Board, rules: Ruleset) -> StateIndex:
    """The :class:`StateIndex` of a board and ruleset (built once per process; only the shape
    and the end trigger matter)."""
    return shaped_index(board.n_shelves, board.n_columns, end_trigger_shelves(board, rules))


@cache
def shaped_index(n_shelves: int, n_columns: int, trigger: int) -> StateIndex:
    """The :class:`StateIndex` of ``n_shelves`` shelves of ``n_columns`` items, the game over at
    ``trigger`` closed shelves."""
    open_radix, closed_radix = 2**n_columns - 1, 2**n_columns
    sets = sorted((p for p in range(2**n_shelves) if p.bit_count() < trigger), key=lambda p: (p.bit_count(), p))
    offset = np.full(2**n_shelves, -1, dtype=np.int64)
    starts, total = [], 0
    for p in sets:
        offset[p] = total
        starts.append(total)
        total += closed_radix ** p.bit_count() * open_radix ** (n_shelves - p.bit_count())
    starts.append(total)
    return StateIndex(n_shelves, n_columns, trigger, offset, np.array(sets, dtype=np.int64),
                      np.array(starts, dtype=np.int64), total)
