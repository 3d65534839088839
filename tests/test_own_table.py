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


def _table(board: Board) -> np.ndarray:
    """A solitaire weight table for ``board``: the sub-board fit of :func:`ot.fit_sub_boards`
    (the table-clock weights 0, as every solitaire table's)."""
    weights = ot.fit_sub_boards(board, DEFAULT_RULES)
    assert not weights[:, -3:].any()
    return weights


def test_turn_targets_are_the_per_state_turn_values() -> None:
    """Value iteration's targets (:func:`ot.turn_targets`) against the per-state path: the numpy
    DP of the ``learned`` objective (:func:`dp.solve_turn`, :meth:`Learned.before`), the start
    of a turn's expected ``V`` after it minus the score now (D6-D19), rounded half up to
    ``1 / TABLE_SCALE``; and the batched policy is the per-state one at every level."""
    from shelfie_solver.dice.engine.dp import solve_turn
    from shelfie_solver.dice.learned.objective import VALUE_SCALE, Learned
    from shelfie_solver.dice.objectives import StateArrays

    weights = _table(SMALL)
    index = state_index(SMALL, DEFAULT_RULES)
    rng = np.random.default_rng(np.random.SeedSequence(61))
    trigger = end_trigger_shelves(SMALL, DEFAULT_RULES)
    sheets = [Marks.empty(SMALL)] + [m for m in (index.marks(int(at)) for at in rng.integers(0, index.count, 60))
                                     if m.closed_shelves() < trigger]
    assert len(sheets) > 20 and any(trigger - m.closed_shelves() == 1 for m in sheets)
    targets, solution, _, _ = ot.turn_targets(SMALL, DEFAULT_RULES, weights, sheets)
    objective = Learned(weights, np.zeros(len(SMALL.lines), dtype=bool))
    for i, marks in enumerate(sheets):
        alone = solve_turn(SMALL, marks, DEFAULT_RULES, objective)
        before = Fraction(objective.before(StateArrays(SMALL, DEFAULT_RULES, marks)), VALUE_SCALE)
        exact = (before + alone.start_values()[0] - score(SMALL, marks, DEFAULT_RULES)) * fit_solved.TABLE_SCALE
        assert int(targets[i]) == (exact + Fraction(1, 2)).__floor__()
        for r in range(1, DEFAULT_RULES.rerolls + 1):
            assert solution.policy[r][:, i].tolist() == alone.policy[r].tolist()


@pytest.mark.parametrize("seed", [3, 4])
def test_value_iteration_games_are_learned_games(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """A lockstep game of :func:`ot.iteration_sums` (one game) is the game the ``learned``
    strategy of the same weights plays on the same dice (each roll and re-roll replayed by
    ``ScriptedDice``, D6-D18): the same final score; and its sums have one row per turn, each
    a start-of-turn sheet with its target (:func:`ot.turn_targets`)."""
    from shelfie_solver.dice.game.dice_sources import ScriptedDice
    from shelfie_solver.dice.game.events import Fail, Mark
    from shelfie_solver.dice.game.turn import play_game
    from shelfie_solver.dice.learned.fitting import Sums
    from shelfie_solver.dice.strategies import LearnedStrategy

    weights = _table(SMALL)
    rolls: list[tuple[int, ...]] = []
    roll = ot._roll

    def recorded(hold: tuple[int, ...], n_dice: int, rng: np.random.Generator) -> tuple[int, ...]:
        rolls.append(roll(hold, n_dice, rng))
        return rolls[-1]

    monkeypatch.setattr(ot, "_roll", recorded)
    sums, finished = ot.iteration_sums(SMALL, DEFAULT_RULES, weights, 1, np.random.default_rng(seed))
    game = play_game(SMALL, DEFAULT_RULES, [LearnedStrategy(ot.candidate_model(weights, SMALL))],
                     ScriptedDice(0, list(rolls)))
    assert finished == [score(SMALL, game.sheets[0], DEFAULT_RULES)]
    starts = [Marks.empty(SMALL)]
    for event in game.events:  # the sheet after each turn (D8-D14, D13)
        if isinstance(event, Mark):
            starts.append(starts[-1].with_marked(event.cells))
        elif isinstance(event, Fail):
            starts.append(starts[-1].with_eliminated(event.cells))
    starts = starts[:-1]
    targets, _, _, _ = ot.turn_targets(SMALL, DEFAULT_RULES, weights, starts)
    near = np.array([end_trigger_shelves(SMALL, DEFAULT_RULES) - m.closed_shelves() == 1 for m in starts])
    x = ot.state_features(SMALL, DEFAULT_RULES, np.array([m.marked for m in starts], dtype=np.int64),
                          np.array([m.eliminated for m in starts], dtype=np.int64), near)
    for p, rows in ((2, near), (3, ~near)):
        expected = Sums.zero()
        for row, y in zip(x[rows], targets[rows]):
            expected.add(Sums(np.outer(row, row).astype(object) * fit_solved.TABLE_SCALE, row.astype(object) * int(y),
                              1, int(y) * int(y)))
        assert sums[p].count == expected.count and (sums[p].xtx == expected.xtx).all()
        assert (sums[p].xty == expected.xty).all() and sums[p].yy == expected.yy // fit_solved.TABLE_SCALE


def test_iterate_weights_is_a_function_of_its_arguments() -> None:
    """The same seed gives the same weights; no step gives the weights back; one step is the ridge
    fit of one step's sums (:func:`fit_solved.fit_table_sums`), mixed at ``step``."""
    weights = _table(SMALL)
    assert ot.iterate_weights(SMALL, DEFAULT_RULES, weights, 20, 0, 9).tolist() == weights.tolist()
    once = ot.iterate_weights(SMALL, DEFAULT_RULES, weights, 20, 1, 9)
    assert once.tolist() == ot.iterate_weights(SMALL, DEFAULT_RULES, weights, 20, 1, 9).tolist()
    sums, _ = ot.iteration_sums(SMALL, DEFAULT_RULES, weights, 20, np.random.default_rng(9))
    fitted, _ = fit_solved.fit_table_sums([sums], DEFAULT_RULES.scoring_threshold)
    assert once.tolist() == fitted.tolist()
    half = ot.iterate_weights(SMALL, DEFAULT_RULES, weights, 20, 1, 9, step=Fraction(1, 2))
    assert half.tolist() == ot.mix(fitted, weights).tolist()


def test_iterate_weights_selects_the_weights_that_scored_most() -> None:
    """With ``select``, each step's games are dealt the same dice (the seed's) and the weights of
    the highest mean score are returned, of the start and the step's (played too)."""
    weights = _table(SMALL)
    sums, first = ot.iteration_sums(SMALL, DEFAULT_RULES, weights, 30, np.random.default_rng(5))
    fitted, _ = fit_solved.fit_table_sums([sums], DEFAULT_RULES.scoring_threshold)
    _, second = ot.iteration_sums(SMALL, DEFAULT_RULES, fitted, 30, np.random.default_rng(5))
    assert len(first) == len(second) == 30
    expected = fitted if sum(second) > sum(first) else weights
    got = ot.iterate_weights(SMALL, DEFAULT_RULES, weights, 30, 1, 5, select=True)
    assert got.tolist() == expected.tolist()


def test_games_for_scales_the_games_to_the_pilots_spread() -> None:
    """Pilot scores 0 and 10: mean 5, sample variance 50; for a standard error of 1/10 of the mean
    (0.5 points) ``50 / 0.5 ** 2 = 200`` games, by hand; bounded below by ``games`` and above by
    ``max_games``; a pilot whose mean is 0 keeps ``games``."""
    assert ot.games_for([0, 10], Fraction(1, 10), 100) == 200
    assert ot.games_for([0, 10], Fraction(1, 10), 100, 150) == 150
    assert ot.games_for([0, 10], Fraction(1, 10), 300, 1000) == 300
    assert ot.games_for([0, 10], Fraction(1, 5), 10) == 50  # 50 / 1 ** 2
    assert ot.games_for([4, 4, 4], Fraction(1, 100), 7) == 7  # no spread: the floor
    assert ot.games_for([0, 0], Fraction(1, 10), 9, 50) == 9
    with pytest.raises(ValueError):
        ot.games_for([3], Fraction(1, 10), 10)
    with pytest.raises(ValueError):
        ot.games_for([3, 4], Fraction(0), 10)


def test_beats_compares_paired_games_by_a_margin_of_standard_errors() -> None:
    """Differences 3 and -1: mean 1, sample variance 8, standard error 2 (by hand): beaten by any
    margin under 1/2 standard error, not at 1/2 (equal) or more; no gain never beats; a gain with no
    spread beats at any margin."""
    kept = np.array([0, 1], dtype=np.int64)
    scores = kept + np.array([3, -1], dtype=np.int64)
    assert ot.beats(scores, kept)
    assert ot.beats(scores, kept, Fraction(1, 4))
    assert not ot.beats(scores, kept, Fraction(1, 2))
    assert not ot.beats(scores, kept, Fraction(1))
    assert not ot.beats(kept, kept)
    assert not ot.beats(kept - np.array([1, 0]), kept)
    assert ot.beats(kept + 1, kept, Fraction(100))
    with pytest.raises(ValueError):
        ot.beats(kept[:1], kept[:1])


def test_games_on_their_own_generators_do_not_depend_on_the_other_games() -> None:
    """With one dice generator per game (:func:`ot.game_generators`), a game played among others
    in lockstep scores what it scores played alone on its generator; ``order`` names each ended
    game."""
    weights = _table(SMALL)
    order: list[int] = []
    _, together = ot.iteration_sums(SMALL, DEFAULT_RULES, weights, 6, ot.game_generators(21, 6), order=order)
    assert sorted(order) == list(range(6))
    by_game = dict(zip(order, together))
    for g in range(6):
        _, alone = ot.iteration_sums(SMALL, DEFAULT_RULES, weights, 1, [ot.game_generators(21, 6)[g]])
        assert alone == [by_game[g]]


def test_iterate_weights_keeps_the_start_unless_a_step_beats_it_on_common_dice() -> None:
    """With one generator per game and ``select``, a step's weights replace the start only when
    their games beat the start's game by game on the same dice by more than ``margin`` standard
    errors (:func:`ot.beats`, checked here on games played apart); at a margin no step can pass the
    start is kept."""
    weights = _table(SMALL)
    order: list[int] = []
    sums, first = ot.iteration_sums(SMALL, DEFAULT_RULES, weights, 30, ot.game_generators(5, 30), order=order)
    start = np.zeros(30, dtype=np.int64)
    start[order] = first
    fitted, _ = fit_solved.fit_table_sums([sums], DEFAULT_RULES.scoring_threshold)
    order = []
    _, second = ot.iteration_sums(SMALL, DEFAULT_RULES, fitted, 30, ot.game_generators(5, 30), order=order)
    step = np.zeros(30, dtype=np.int64)
    step[order] = second
    for margin in (Fraction(0), Fraction(1), Fraction(10**6)):
        expected = fitted if ot.beats(step, start, margin) else weights
        got = ot.iterate_weights(SMALL, DEFAULT_RULES, weights, 30, 1, 5, select=True, per_game=True, margin=margin)
        assert got.tolist() == expected.tolist()
    assert not ot.beats(step, start, Fraction(10**6)) or len(set((step - start).tolist())) == 1


def test_iterate_weights_scaled_games_are_the_pilots_games_for() -> None:
    """With ``relative_error``, the value iteration is that of :func:`ot.games_for` games a step, the
    start weights' ``games`` games the pilot."""
    weights = _table(SMALL)
    _, pilot = ot.iteration_sums(SMALL, DEFAULT_RULES, weights, 12, ot.game_generators(8, 12))
    wanted = ot.games_for(pilot, Fraction(1, 50), 12, 40)
    assert 12 < wanted <= 40
    got = ot.iterate_weights(SMALL, DEFAULT_RULES, weights, 12, 2, 8, pooled=True, select=True, per_game=True,
                             relative_error=Fraction(1, 50), max_games=40)
    expected = ot.iterate_weights(SMALL, DEFAULT_RULES, weights, wanted, 2, 8, pooled=True, select=True, per_game=True)
    assert got.tolist() == expected.tolist()


def test_share_for_takes_more_of_the_own_fit_on_boards_of_many_heavy_columns() -> None:
    """On 4 x 5, 1/4 of the sub-boards' fit, and 1/2 once 4 or more columns need 4 or 5 dice (D3);
    on 5 x 4 always 1/2; another shape :data:`ot.OWN_SHARE`."""
    values = tuple((1, 2, 3, 4, 5) for _ in range(4))
    faces = ((0,), (1,), (2,), (3,))

    def wide(needs: tuple[int, ...]) -> Board:
        return Board("wide", needs, faces, values)

    assert ot.share_for(wide((4, 4, 4, 2, 1))) == Fraction(1, 4)
    assert ot.share_for(wide((5, 4, 3, 3, 3))) == Fraction(1, 4)
    assert ot.share_for(wide((4, 4, 5, 3, 5))) == Fraction(1, 2)
    assert ot.share_for(wide((4, 4, 4, 5, 5))) == Fraction(1, 2)
    tall = Board("tall", (3, 1, 3, 3), ((0,), (1,), (2,), (3,), (4,)), tuple((1, 2, 3, 4) for _ in range(5)))
    assert ot.share_for(tall) == Fraction(1, 2)
    assert ot.share_for(SMALL) == ot.OWN_SHARE
