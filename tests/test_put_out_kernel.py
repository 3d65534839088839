"""The put-out rule compiled (``learned.kernel._blocks_put_out``, run inside ``win``'s turn kernel
``_win_front`` / ``_win_turn`` on the sheets' bit masks) against its numpy implementation and
reference, ``win_model.blocks_put_out``: a marking that completes a line (D15) and after whose
blocks every other seat's ``board.highest_score`` is below the mover's score after it (D13, D19)
is an exact sure win (D20). Both implement one rule: the same integers for every usable item
set (``None`` from the numpy one where no set is a put-out, every row ``-1`` from the compiled
one).

Hand-worked on tiny-3x2 (shelves plant 1 3, book 2 2, award 3 1; columns need 1 and 2 dice; a line
scores from 3 marked items, D19, so only the two columns of 3 items ever score, 6 points each),
two players, 0-based cells row by row (r1c1 = 0, r1c2 = 1, r2c1 = 2, r2c2 = 3, r3c1 = 4, r3c2 = 5):

* the mover A ``o./o./..`` scores 0 now; any set with r3c1 (cell 4) completes column 1: 1 + 2 + 3
  = 6; the set r1c2 + r2c2 + r3c2 completes column 2: 3 + 2 + 1 = 6; every other set scores 0.
* the opponent B ``.x/../..``: column 2 holds an eliminated item (never 3 marked), so its ceiling
  is column 1, 6, now: not below 6, so no turn-start bound puts B out (a tie at 6 is shared, D20).
* A's column 1 blocks B's column 1 (D15): ceiling 0 < 6, B is out, A wins alone (D20). A's
  r1c2 + r2c2 + r3c2 completes shelves 1 and 2 too, which block B's r1c1 and r2c1: ceiling 0 <
  6, out too. A's r1c2 alone completes shelf 1 and blocks B's r1c1 (ceiling 0), but A scores 0:
  0 is not above 0, no put-out.

So the put-outs are exactly the usable sets holding cell 4 and the set {1, 3, 5}; A's game is not
over after most of them (D17 asks two closed shelves): the rule holds whether it is or not.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import EXAMPLES

from shelfie_solver.dice.allocate import feasibility_arrays
from shelfie_solver.dice.board import Board, Marks, highest_score, load_board, parse_marks, score
from shelfie_solver.dice.engine.kernel import cell_lines, line_mask_array, turn_arrays
from shelfie_solver.dice.learned.kernel import kernel_function
from shelfie_solver.dice.learned.win_model import blocks_put_out
from shelfie_solver.dice.objectives import StateArrays
from shelfie_solver.dice.rules import DEFAULT_RULES, Ruleset

pytest.importorskip("numba")

RULES = DEFAULT_RULES
BOARDS = ("tiny-2x3", "tiny-3x2", "small-3x4", "small-4x3", "small")


def board_named(name: str) -> Board:
    return load_board(EXAMPLES / "boards" / f"{name}.toml", RULES)


def usable_sets(board: Board, rules: Ruleset, marks: Marks) -> np.ndarray:
    """The item sets of :func:`engine.kernel.turn_arrays` (the feasibility arrays' sets) whose
    every item is available on ``marks`` (D4)."""
    sets = feasibility_arrays(board, rules).sets
    available = np.append(StateArrays(board, rules, marks).available, True)
    return np.flatnonzero(available[sets.cells].all(axis=1))


def compiled(board: Board, rules: Ruleset, sheets: tuple[Marks, ...], seat: int, index: np.ndarray) -> np.ndarray:
    """``learned.kernel._blocks_put_out`` of the sets ``index`` of ``sheets[seat]``."""
    rule = kernel_function("_blocks_put_out")
    others = [sheet for j, sheet in enumerate(sheets) if j != seat]
    out: np.ndarray = rule(turn_arrays(board, rules).set_masks, np.ascontiguousarray(index, dtype=np.int64),
                           sheets[seat].marked, np.array([o.marked for o in others], dtype=np.int64),
                           np.array([o.eliminated for o in others], dtype=np.int64), line_mask_array(board),
                           cell_lines(board), board.value_array, rules.scoring_threshold)
    return out


def numpy_rule(board: Board, rules: Ruleset, sheets: tuple[Marks, ...], seat: int, index: np.ndarray) -> np.ndarray:
    """``win_model.blocks_put_out`` of the same sets, ``None`` as every row ``-1``."""
    sets = feasibility_arrays(board, rules).sets.take(index)
    found = blocks_put_out(StateArrays(board, rules, sheets[seat]), sheets, seat, sets)
    return np.full(len(index), -1, dtype=np.int8) if found is None else found


def test_the_hand_worked_block_puts_the_only_opponent_out() -> None:
    board = board_named("tiny-3x2")
    a, b = parse_marks("o./o./..", board), parse_marks(".x/../..", board)
    # the hand-worked figures (D19): B's ceiling 6 now, 0 once A's column 1 or shelves 1 and 2 block it (D15)
    assert score(board, a, RULES) == 0 and score(board, a.with_marked([4]), RULES) == 6
    assert score(board, a.with_marked([1, 3, 5]), RULES) == 6 and score(board, a.with_marked([1]), RULES) == 0
    assert highest_score(board, b, RULES) == 6
    assert highest_score(board, b, RULES, blocked=0b010101) == 0  # column 1: cells 0, 2, 4
    assert highest_score(board, b, RULES, blocked=0b001111) == 0  # shelves 1 and 2: cells 0-3
    assert highest_score(board, b, RULES, blocked=0b000011) == 0  # shelf 1 alone
    index = usable_sets(board, RULES, a)
    cells = feasibility_arrays(board, RULES).sets.cells[index]
    members = [frozenset(c for c in row if c >= 0) for row in cells.tolist()]
    assert frozenset({1, 3, 5}) in members and frozenset({4}) in members and frozenset({1}) in members
    expected = [1 if 4 in m or m == {1, 3, 5} else -1 for m in members]
    for seat, sheets in ((0, (a, b)), (1, (b, a))):  # the mover first or second at the table
        assert compiled(board, RULES, sheets, seat, index).tolist() == expected
        assert numpy_rule(board, RULES, sheets, seat, index).tolist() == expected
    # with B's sheet empty both its columns can score (ceiling 12): A's column 1 alone leaves B's
    # column 2, 6 (not below 6); with it one of A's shelves completed (r1c2, r2c2 or r3c2 with
    # r3c1: shelf 1, 2 or 3) blocks one of column 2's items too, ceiling 0; r1c2 + r2c2 + r3c2
    # blocks B's column 2 and, by shelves 1 and 2, r1c1 and r2c1: 0
    free = parse_marks("../../..", board)
    assert highest_score(board, free, RULES) == 12 and highest_score(board, free, RULES, blocked=0b010101) == 6
    expected = [1 if (4 in m and m & {1, 3, 5}) or m == {1, 3, 5} else -1 for m in members]
    assert expected.count(1) >= 4 and frozenset({4}) in members
    assert compiled(board, RULES, (a, free), 0, index).tolist() == expected
    assert numpy_rule(board, RULES, (a, free), 0, index).tolist() == expected


def random_sheet(rng: np.random.Generator, board: Board) -> Marks:
    """A sheet with each item marked, eliminated or available at random (shares drawn per sheet:
    some nearly full, some nearly empty, so that put-outs and their near misses both occur)."""
    share = rng.dirichlet((1.0, 0.3, 1.0))
    state = rng.choice(3, size=board.n_cells, p=share)
    bits = 1 << np.arange(board.n_cells, dtype=object)
    return Marks(board.n_shelves, board.n_columns, int((bits * (state == 1)).sum()), int((bits * (state == 2)).sum()))


@pytest.mark.parametrize("name", BOARDS)
def test_the_compiled_rule_equals_blocks_put_out_on_random_tables(name: str) -> None:
    board = board_named(name)
    rng = np.random.default_rng(18108 + BOARDS.index(name))
    put_out = tables = 0
    for _ in range(150):
        players = int(rng.integers(2, 5))
        sheets = tuple(random_sheet(rng, board) for _ in range(players))
        seat = int(rng.integers(players))
        index = usable_sets(board, RULES, sheets[seat])
        found = compiled(board, RULES, sheets, seat, index)
        assert found.dtype == np.int8
        assert found.tolist() == numpy_rule(board, RULES, sheets, seat, index).tolist()
        put_out += int((found == 1).sum())
        tables += int((found == 1).any())
    assert tables >= 5 and put_out >= 20  # the sweep reaches the rule's 1s, not only its -1s


def test_one_seat_puts_no_one_out() -> None:
    board = board_named("tiny-2x3")
    a = parse_marks("oo./ooo", board)
    index = usable_sets(board, RULES, a)
    assert compiled(board, RULES, (a,), 0, index).tolist() == [-1] * len(index)
    assert numpy_rule(board, RULES, (a,), 0, index).tolist() == [-1] * len(index)
