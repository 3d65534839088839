"""A board's own solitaire table (``learned.own_table``, docs/train.md "A board's own table"): the
sub-boards (hand-checked on tiny boards), the vectorised sheets, features, scores and least-squares
sums against the per-state functions they replace (``StateIndex.marks``,
``objective.feature_vector``, ``board.score``, ``fit_solved._sums``), the exact products and the
mix."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from shelfie_solver.dice.board import Board, Marks, board_from_dict, board_to_dict, score
from shelfie_solver.dice.learned import fit_solved
from shelfie_solver.dice.learned import own_table as ot
from shelfie_solver.dice.learned.objective import feature_vector
from shelfie_solver.dice.rules import DEFAULT_RULES
from shelfie_solver.dice.sheet_rules import end_trigger_shelves
from shelfie_solver.dice.wholegame.float_solver import solve_float
from shelfie_solver.dice.wholegame.state_index import state_index

#: 2 shelves x 3 columns: item values 1..6 read row by row.
WIDE = Board("wide", (1, 3, 2), ((0,), (1,)), ((1, 2, 3), (4, 5, 6)))
#: 3 shelves x 2 columns.
TALL = Board("tall", (2, 1), ((0,), (1,), (2,)), ((1, 2), (3, 4), (5, 6)))
#: A 3 x 3 board small enough to take every state (1,519 states).
SMALL = Board("small", (1, 3, 2), ((0,), (1,), (2,)), ((1, 5, 3), (2, 6, 4), (2, 7, 3)))


def test_sub_boards_drop_each_column_of_a_wide_board_on_its_long_side() -> None:
    subs = ot.sub_boards(WIDE, "long")
    assert [(b.name, b.columns, b.shelf_faces, b.values) for b in subs] == [
        ("wide without column 1", (3, 2), ((0,), (1,)), ((2, 3), (5, 6))),
        ("wide without column 2", (1, 2), ((0,), (1,)), ((1, 3), (4, 6))),
        ("wide without column 3", (1, 3), ((0,), (1,)), ((1, 2), (4, 5))),
    ]


def test_sub_boards_drop_each_shelf_of_a_tall_board() -> None:
    expected = [
        ("tall without shelf 1", (2, 1), ((1,), (2,)), ((3, 4), (5, 6))),
        ("tall without shelf 2", (2, 1), ((0,), (2,)), ((1, 2), (5, 6))),
        ("tall without shelf 3", (2, 1), ((0,), (1,)), ((1, 2), (3, 4))),
    ]
    for sides in ("shelves", "long"):
        assert [(b.name, b.columns, b.shelf_faces, b.values) for b in ot.sub_boards(TALL, sides)] == expected


def test_sub_boards_by_default_drop_each_shelf_whatever_the_shape() -> None:
    assert ot.SIDES == "shelves"
    assert [(b.name, b.columns, b.shelf_faces, b.values) for b in ot.sub_boards(WIDE)] == [
        ("wide without shelf 1", (1, 3, 2), ((1,),), ((4, 5, 6),)),
        ("wide without shelf 2", (1, 3, 2), ((0,),), ((1, 2, 3),)),
    ]


def test_sub_boards_of_both_sides_and_bad_requests() -> None:
    both = ot.sub_boards(WIDE, "both")
    assert [b.name for b in both] == ["wide without column 1", "wide without column 2", "wide without column 3",
                                      "wide without shelf 1", "wide without shelf 2"]
    assert both[3].values == ((4, 5, 6),) and both[3].columns == (1, 3, 2)
    with pytest.raises(ValueError, match="long, both or shelves"):
        ot.sub_boards(WIDE, "short")
    with pytest.raises(ValueError, match="one shelf"):
        ot.sub_boards(Board("one", (1,), ((0,),), ((3,),)))


def test_sub_boards_are_valid_boards_with_a_sensible_end_trigger() -> None:
    """Each sub-board reads back as a board file (D3) and ends at the ruleset's two closed shelves
    (D17) when it has more than two shelves, as its board does."""
    big = Board("big", (4, 2, 1, 3, 3), tuple((f,) for f in range(4)),
                tuple(tuple(range(1 + 5 * s, 6 + 5 * s)) for s in range(4)))
    tall = Board("tall5", (3, 1, 3, 3), tuple((f,) for f in range(5)),
                 tuple(tuple(range(1 + 4 * s, 5 + 4 * s)) for s in range(5)))
    for board, sides, shape in ((big, "long", (4, 4)), (tall, "long", (4, 4)), (big, "shelves", (3, 5)),
                                (tall, "shelves", (4, 4))):
        for sub in ot.sub_boards(board, sides):
            assert (sub.n_shelves, sub.n_columns) == shape
            assert board_from_dict(board_to_dict(sub, DEFAULT_RULES), DEFAULT_RULES) == sub
            assert end_trigger_shelves(sub, DEFAULT_RULES) == end_trigger_shelves(board, DEFAULT_RULES) == 2


def test_index_marks_equals_the_state_index() -> None:
    index = state_index(SMALL, DEFAULT_RULES)
    marked, eliminated, closed = ot.index_marks(SMALL, DEFAULT_RULES, np.arange(index.count))
    for at in range(index.count):
        marks = index.marks(at)
        assert (int(marked[at]), int(eliminated[at]), int(closed[at])) == (
            marks.marked, marks.eliminated, marks.closed_shelves())


def test_state_features_and_scores_equal_the_per_state_functions() -> None:
    index = state_index(SMALL, DEFAULT_RULES)
    marked, eliminated, closed = ot.index_marks(SMALL, DEFAULT_RULES, np.arange(index.count))
    near = end_trigger_shelves(SMALL, DEFAULT_RULES) - closed == 1
    features = ot.state_features(SMALL, DEFAULT_RULES, marked, eliminated, near)
    scores = ot.sheet_scores(SMALL, DEFAULT_RULES, marked)
    threat = np.zeros(len(SMALL.lines), dtype=bool)
    context = np.array([1, 0, 0], dtype=np.int64)
    for at in range(index.count):
        marks = Marks(3, 3, int(marked[at]), int(eliminated[at]))
        expected = feature_vector(SMALL, DEFAULT_RULES, marks, threat, bool(near[at]), context)
        assert features[at].tolist() == expected.tolist()
        assert int(scores[at]) == score(SMALL, marks, DEFAULT_RULES)


def test_table_sums_equal_the_per_state_sums() -> None:
    """The vectorised sums are the same integers as :func:`fit_solved._sums` over every state (in
    chunks smaller than the table, so the chunks' sums are added too)."""
    solution = solve_float(SMALL, DEFAULT_RULES)
    index = state_index(SMALL, DEFAULT_RULES)
    values = {}
    for at in range(index.count):
        marks = index.marks(at)
        values[(marks.marked, marks.eliminated)] = float(solution.values[at])
    expected = fit_solved._sums(SMALL, DEFAULT_RULES, values)
    chunk = ot.CHUNK
    try:
        ot.CHUNK = 500
        got = ot.table_sums(SMALL, DEFAULT_RULES, np.asarray(solution.values, dtype=np.float64))
    finally:
        ot.CHUNK = chunk
    for p in (1, 2, 3):
        assert got[p].count == expected[p].count
        assert got[p].yy == expected[p].yy
        assert (got[p].xtx == expected[p].xtx).all() and (got[p].xty == expected[p].xty).all()
    with pytest.raises(ValueError, match="values for the"):
        ot.table_sums(SMALL, DEFAULT_RULES, np.zeros(3))


@pytest.mark.parametrize("magnitude", [7, 1 << 20, 1 << 31, 1 << 40])
def test_exact_product_is_exact_at_every_magnitude(magnitude: int) -> None:
    rng = np.random.default_rng(np.random.SeedSequence(27))
    left = rng.integers(-magnitude, magnitude + 1, size=(3, 50), dtype=np.int64)
    right = rng.integers(-magnitude, magnitude + 1, size=(50, 2), dtype=np.int64)
    expected = [[sum(int(left[i, k]) * int(right[k, j]) for k in range(50)) for j in range(2)] for i in range(3)]
    assert ot._exact_product(left, right).tolist() == expected


def test_mix_rounds_down_weight_by_weight() -> None:
    own = np.array([[1, 3, -1, 10]], dtype=np.int64)
    base = np.array([[2, 2, 0, 0]], dtype=np.int64)
    assert ot.mix(own, base).tolist() == [[1, 2, -1, 5]]  # (1+2)//2, (3+2)//2, (-1+0)//2, 10//2
    assert ot.mix(own, base, Fraction(1, 4)).tolist() == [[1, 2, -1, 2]]  # (1+6)//4, (3+6)//4, -1//4, 10//4
    assert ot.mix(own, base, Fraction(1)).tolist() == own.tolist()


def test_benchmark_scores_are_the_simulated_games_and_the_interval_is_normal() -> None:
    """benchmarks/own_table.py: ``scores`` gives each game's score of ``simulate``'s games (their
    mean is the summary's), ``interval`` the mean with 1.96 standard errors either side."""
    from conftest import EXAMPLES, load_benchmark

    from shelfie_solver.dice.board import load_board
    from shelfie_solver.dice.simulate import simulate

    bench = load_benchmark("own_table")
    board = load_board(EXAMPLES / "boards" / "small.toml", DEFAULT_RULES)
    got = bench.scores(board, "greedy", 12, 4, 1)
    summary, _ = simulate(board, DEFAULT_RULES, ["greedy"], 12, 4)
    assert len(got) == 12 and Fraction(int(got.sum()), 12) == summary.seats[0].stats["score"].mean
    mean, low, high = bench.interval(np.array([1.0, 2.0, 3.0]))
    assert mean == 2.0 and high - mean == pytest.approx(1.96 / 3 ** 0.5) and mean - low == pytest.approx(high - mean)
