"""The opponent's exact last-turn chance groups the markings by the lines they complete (D15,
:class:`win_chance.BeforeLastWin`): the same opponent sheet as blocking for each marking alone."""

from __future__ import annotations

import numpy as np


def test_grouped_blocks_equal_each_markings_block() -> None:
    """BeforeLastWin groups the markings by the lines they complete (D15): on random pairs of
    default-board sheets (seeded), every marking's opponent sheet from the groups equals the one
    :meth:`BeforeLastWin._opponent_after` builds for that marking alone."""
    from shelfie_solver.dice.board import Marks, item_sets, load_board
    from shelfie_solver.dice.rules import DEFAULT_RULES
    from shelfie_solver.dice.sheet_rules import block
    from shelfie_solver.dice.win_chance import BeforeLastWin

    board = load_board(None, DEFAULT_RULES)
    rng = np.random.default_rng(26)
    for _ in range(20):
        sheets = []
        for _ in range(2):
            state = rng.integers(0, 3, board.n_cells)  # 0 free, 1 marked, 2 eliminated
            marked = sum(1 << c for c in range(board.n_cells) if state[c] == 1)
            gone = sum(1 << c for c in range(board.n_cells) if state[c] == 2)
            sheets.append(Marks(board.n_shelves, board.n_columns, marked, gone))
        mine, theirs = sheets
        free = [c for c in range(board.n_cells) if mine.is_available(c)]
        sets = item_sets(board, 4)
        rows = [i for i, cells in enumerate(sets.cells) if all(c in free for c in cells if c >= 0)]
        sets = sets.take(np.array(rows[:400], dtype=np.int64))
        objective = BeforeLastWin(theirs, (mine, theirs))
        for lines, group in objective._new_lines(board, sets).items():
            grouped = block(board, (mine, theirs), 0, lines)[0][1] if lines else theirs
            for i in group:
                alone = objective._opponent_after(board, tuple(int(c) for c in sets.cells[i] if c >= 0))
                assert (alone.marked, alone.eliminated) == (grouped.marked, grouped.eliminated)
