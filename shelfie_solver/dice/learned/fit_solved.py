"""Fit the solitaire weights of ``learned`` to solved boards (click-free; ``shelfie-solve train
--table`` and ``--solitaire-boards``, docs/train.md): per phase, ridge least squares of the
optimal points still to come (``V*(s) - score(s)``, D19) on every state's features, every state
weighted alike, over the exact value tables of ``solve-game --save`` (:func:`fit_value_tables`) or
of seeded random boards solved here (:func:`solve_boards`: small boards exactly, the hard and large
families with the float solver), pooled (:func:`pooled_fit`) or per board shape
(:func:`fit_shapes`). The self-play fit is :mod:`learned.train`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from shelfie_solver.dice.board import Board, Marks, score
from shelfie_solver.dice.learned.fitting import (
    RIDGE,
    Sums,
    TrainError,
    basis,
    fit,
    run_tasks,
)
from shelfie_solver.dice.learned.model_file import (
    N_CONTEXT,
    N_FEATURES,
    PHASES,
    LearnedModel,
    check_weights,
)
from shelfie_solver.dice.learned.objective import feature_vector, prior_weights
from shelfie_solver.dice.rules import Ruleset
from shelfie_solver.dice.sheet_rules import end_trigger_shelves

if TYPE_CHECKING:
    from shelfie_solver.dice.wholegame.solver import GameSolution

#: Targets of :func:`fit_value_tables` are rounded to this many units per point.
TABLE_SCALE = 1 << 16


def fit_value_tables(solutions: Sequence[GameSolution],
                     ridge: float = RIDGE) -> tuple[LearnedModel, dict[int, float]]:
    """Solitaire weights fitted to exact value tables (:mod:`wholegame.solver`, ``solve-game
    --save``; several tables, e.g. of different boards, are pooled): per phase (2: the sheet one closed shelf short of
    the trigger, 3: further), ridge least squares of ``V*(s) - score(s)`` (the optimal points still
    to come, D19) on every state's features, every state weighted alike, shrunk toward the strategic
    shape (:func:`learned.objective.prior_weights`). The states carry no round, so the table-clock features
    keep weight 0. Targets are rounded to units of ``1 / TABLE_SCALE`` point so the sums are exact
    integers.

    Returns the model (players 1) and the root-mean-square error per phase (points, display).

    Raises:
        TrainError: no table, or tables with different scoring thresholds.
    """
    thresholds = sorted({s.rules.scoring_threshold for s in solutions})
    if not thresholds:
        raise TrainError("fit_value_tables needs one or more value tables")
    if len(thresholds) > 1:
        raise TrainError(f"the value tables have different scoring thresholds ({', '.join(map(str, thresholds))}, "
                         "D19); expected one or more tables of rulesets with one threshold")
    weights, errors = fit_table_sums([_table_sums(solution) for solution in solutions],
                                     solutions[0].rules.scoring_threshold, ridge)
    names = [s.board.name for s in solutions]
    model = LearnedModel({1: weights}, {"trained": {"tables": names, "method": "least squares fit to "
                                                    "exact value tables (docs/train.md)"}})
    check_weights(model, "the weights fitted to the value tables")
    return model, errors


def fit_table_sums(tables: Iterable[dict[int, Sums]], threshold: int,
                   ridge: float = RIDGE) -> tuple[np.ndarray, dict[int, float]]:
    """The fit of :func:`fit_value_tables` from the tables' exact sums (:func:`_table_sums`, pooled in
    any order): ``int64 (3, N_FEATURES)`` solitaire weights (phase 1 keeps the prior: a solitaire
    game has no phase 1) and the RMS error per phase (points, display)."""
    totals = {p: Sums.zero() for p in PHASES}
    for table in tables:
        for p, sums in table.items():
            totals[p].add(sums)
    prior = prior_weights(threshold)
    free = np.ones(N_FEATURES, dtype=bool)
    free[N_FEATURES - N_CONTEXT:] = False
    weights, errors = [], {}
    for p in PHASES:
        w, error = fit(totals[p], prior, basis(free), ridge * TABLE_SCALE)
        weights.append(w)
        if totals[p].count:
            errors[p] = error / TABLE_SCALE ** 0.5
    return np.stack(weights), errors


def board_table_sums(board: Board, rules: Ruleset) -> dict[int, Sums]:
    """Solve ``board``'s solitaire game exactly (:func:`wholegame.solver.solve_game`) and return the sums
    :func:`fit_value_tables` pools for its value table. A worker's unit of work (:func:`fit_boards`)."""
    from shelfie_solver.dice.wholegame.solver import solve_game

    return _table_sums(solve_game(board, rules))


#: The spawn key, under ``SeedSequence(seed)``, of the random training boards' seeds
#: (:func:`fit_boards`); the self-play iterations use the keys 0-19, so the streams never meet.
BOARD_STREAM = 100


def boards_named(count: int, float_solve: bool = False, hard: int = 0, large: int = 0) -> str:
    """How :func:`pooled_fit`'s report names the boards of a solitaire fit (:func:`solve_boards`)."""
    return (f"{count} random boards'" + (" (float)" if float_solve else "")
            + (f" and {hard} hard boards' (float)" if hard else "")
            + (f" and {large} large boards' (float, sampled)" if large else ""))


def fit_boards(rules: Ruleset, seed: int, count: int, jobs: int = 1, scheduler: Any = None,
               progress: Callable[[int], None] | None = None,
               report: Callable[[str], None] | None = None, max_states: int | None = None,
               hard: int = 0, float_solve: bool = False) -> np.ndarray:
    """Solitaire weights ``int64 (3, N_FEATURES)`` fitted (:func:`fit_table_sums`) to the exact
    value tables of ``count`` random small boards (:func:`solve_boards`, same arguments),
    every state weighted alike; ``report`` is called with one line per phase.

    Raises:
        TrainError: as :func:`solve_boards`.
    """
    solved = solve_boards(rules, seed, count, jobs, scheduler, progress, max_states, hard, float_solve)
    return pooled_fit(solved, rules, report, boards_named(count, float_solve, hard) + " value tables")


def solve_boards(rules: Ruleset, seed: int, count: int, jobs: int = 1, scheduler: Any = None,
                 progress: Callable[[int], None] | None = None, max_states: int | None = None,
                 hard: int = 0, float_solve: bool = False, large: int = 0) -> list[tuple[Board, dict[int, Sums]]]:
    """The training boards of the solitaire fit with the sums of their value tables
    (:func:`_table_sums`): ``count`` random small boards (:func:`random_boards.random_boards` from
    ``SeedSequence(seed, spawn_key=(BOARD_STREAM,))``; the boards docs/train.md measures on are never
    among them). Each board is solved in its own task on ``jobs`` processes or the dask
    ``scheduler``; the sums are exact integers, so a fit does not depend on the workers.
    ``progress`` is called with 1 per solved board; ``max_states`` bounds the family's boards
    (default :data:`random_boards.MAX_STATES`).
    ``hard``: so many boards of the hard family (:func:`random_boards.hard_boards` from
    ``SeedSequence(seed, spawn_key=(HARD_STREAM,))``, none of the ``count`` boards; columns needing
    4-5 dice, up to 125,000 states) are added, each solved with the float solver
    (:func:`board_float_sums`).
    ``float_solve``: the ``count`` boards are solved with the float solver too (minutes faster;
    targets within the float bound, below 1e-9 points, of the exact ones before their rounding).
    ``large``: so many boards of the large family (:func:`random_boards.large_boards` from
    ``SeedSequence(seed, spawn_key=(LARGE_STREAM,))``: 4 x 5 and 5 x 4), solved with the float
    solver, each contributing :data:`LARGE_SAMPLE` of its states drawn uniformly without
    replacement (:func:`board_float_sums` ``sample``; the features of all 4.7 million would take
    half an hour a board).

    Raises:
        TrainError: the ruleset cannot hold the family's boards (too few faces or dice).
    """
    from shelfie_solver.dice.wholegame.random_boards import large_boards, random_boards

    try:
        boards = random_boards(np.random.SeedSequence(seed, spawn_key=(BOARD_STREAM,)), count, rules, max_states)
    except ValueError as error:
        raise TrainError(f"--solitaire-boards: {error}") from None
    try:  # drawn before any board is solved, so a ruleset without room for them fails at once
        big = large_boards(np.random.SeedSequence(seed, spawn_key=(LARGE_STREAM,)), large, rules) if large else []
    except ValueError as error:
        raise TrainError(f"--solitaire-large: {error}") from None
    from shelfie_solver.dice.wholegame.solver import state_count

    # the largest boards first, so no worker is left with one at the end (the sums are exact
    # integers: their order does not matter)
    boards.sort(key=lambda board: -state_count(board, rules))
    solve = board_float_sums if float_solve else board_table_sums
    tables = run_tasks(solve, [(board, rules) for board in boards], jobs, progress, scheduler)
    if hard:
        from shelfie_solver.dice.wholegame.random_boards import hard_boards

        extra = hard_boards(np.random.SeedSequence(seed, spawn_key=(HARD_STREAM,)), hard, rules, boards)
        extra.sort(key=lambda board: -state_count(board, rules))
        tables += run_tasks(board_float_sums, [(board, rules) for board in extra], jobs, progress, scheduler)
        boards += extra
    if large:
        samples = np.random.SeedSequence(seed, spawn_key=(LARGE_STREAM, 1)).spawn(large)
        tables += run_tasks(board_float_sums, [(board, rules, LARGE_SAMPLE, sample)
                                               for board, sample in zip(big, samples)], jobs, progress, scheduler)
        boards += big
    return list(zip(boards, tables))


def pooled_fit(solved: Sequence[tuple[Board, dict[int, Sums]]], rules: Ruleset,
               report: Callable[[str], None] | None = None, what: str = "") -> np.ndarray:
    """``int64 (3, N_FEATURES)`` solitaire weights fitted to every board of ``solved``
    (:func:`solve_boards`) pooled, every state weighted alike (:func:`fit_table_sums`);
    ``report`` gets one line per phase, naming the tables as ``what``."""
    tables = [sums for _, sums in solved]
    weights, errors = fit_table_sums(tables, rules.scoring_threshold)
    if report:
        for p, rms in sorted(errors.items()):
            report(f"{what}, 1 player, phase {p}: "
                   f"{sum(t[p].count for t in tables)} states, RMS error {rms:.2f} points")
    return weights


def fit_shapes(solved: Sequence[tuple[Board, dict[int, Sums]]], rules: Ruleset, min_boards: int,
               report: Callable[[str], None] | None = None) -> dict[tuple[int, int], np.ndarray]:
    """Solitaire weights per board shape (``(shelves, columns)`` -> ``int64 (3, N_FEATURES)``,
    :attr:`LearnedModel.shapes`): for each shape with at least ``min_boards`` boards in
    ``solved``, the fit of :func:`fit_table_sums` to those boards alone. Why: the pooled fit is
    dominated by the boards with the most states, and on a small board the same features are worth
    other amounts (on a 2 x 5 board no column can score, D19: the shelves carry everything).
    ``report`` gets one line per shape."""
    by_shape: dict[tuple[int, int], list[dict[int, Sums]]] = {}
    for board, sums in solved:
        by_shape.setdefault((board.n_shelves, board.n_columns), []).append(sums)
    shapes = {}
    for shape, tables in sorted(by_shape.items()):
        if len(tables) < max(min_boards, 1):
            continue
        shapes[shape], errors = fit_table_sums(tables, rules.scoring_threshold)
        if report:
            rms = ", ".join(f"phase {p} {e:.2f}" for p, e in sorted(errors.items()))
            report(f"{shape[0]} x {shape[1]} boards: {len(tables)} value tables, RMS error {rms} points")
    if report and not shapes:
        report(f"no board shape has {max(min_boards, 1)} or more of the {len(solved)} boards: the pooled table "
               "only (more --solitaire-boards, or a lower --solitaire-shapes)")
    return shapes


#: The spawn key, under ``SeedSequence(seed)``, of the hard-family boards' seeds (:func:`fit_boards`).
HARD_STREAM = 101


#: The spawn key of the large-family boards' seeds; ``(LARGE_STREAM, 1)`` that of their samples of states.
LARGE_STREAM = 102


#: States of a large-family board in its fit (:func:`solve_boards` ``large``).
LARGE_SAMPLE = 150_000


def board_float_sums(board: Board, rules: Ruleset, sample: int | None = None,
                     seed: np.random.SeedSequence | None = None) -> dict[int, Sums]:
    """Solve ``board``'s solitaire game with the float solver (:func:`wholegame.float_solver.solve_float`,
    ``solve-game --float``: float64 with a proven bound, below 1e-9 points on these boards) and
    return the sums :func:`fit_value_tables` pools for its table (each state's float value as the
    target, rounded to ``1 / TABLE_SCALE`` point like the exact ones). With ``sample``: only so
    many states, drawn uniformly without replacement with a generator from ``seed``. A worker's
    unit of work."""
    from shelfie_solver.dice.wholegame.float_solver import solve_float
    from shelfie_solver.dice.wholegame.state_index import state_index

    solution = solve_float(board, rules)
    index = state_index(board, rules)
    values = {}
    chosen: Iterable[int] = range(index.count)
    if sample is not None and sample < index.count:
        picks = np.random.default_rng(seed).choice(index.count, size=sample, replace=False)
        chosen = (int(at) for at in np.sort(picks))
    for at in chosen:
        marks = index.marks(at)
        values[(marks.marked, marks.eliminated)] = float(solution.values[at])
    return _sums(board, rules, values)


def _table_sums(solution: GameSolution) -> dict[int, Sums]:
    """Exact sums of :func:`fit_value_tables` for one table: targets times TABLE_SCALE, ``X^T X`` times
    TABLE_SCALE (so the fitted weights are in points)."""
    return _sums(solution.board, solution.rules, solution.values)


def _sums(board: Board, rules: Ruleset, values: Mapping[tuple[int, int], Fraction | float]) -> dict[int, Sums]:
    """The sums of :func:`_table_sums` from ``{(marked, eliminated): value}`` (points)."""
    trigger = end_trigger_shelves(board, rules)
    threat = np.zeros(len(board.lines), dtype=bool)
    context = np.array([1, 0, 0], dtype=np.int64)
    rows: dict[int, list[np.ndarray]] = {p: [] for p in PHASES}
    targets: dict[int, list[int]] = {p: [] for p in PHASES}
    for (marked, eliminated), value in sorted(values.items()):
        marks = Marks(board.n_shelves, board.n_columns, marked, eliminated)
        near = trigger - marks.closed_shelves() == 1
        phase = 2 if near else 3
        rows[phase].append(feature_vector(board, rules, marks, threat, near, context))
        targets[phase].append(round((value - score(board, marks, rules)) * TABLE_SCALE))
    out = {p: Sums.zero() for p in PHASES}
    for p in PHASES:
        if rows[p]:
            x = np.array(rows[p], dtype=np.int64).astype(object)
            y = np.array(targets[p], dtype=object)
            out[p] = Sums(x.T @ x * TABLE_SCALE, x.T @ y, len(y), int((y * y).sum()) // TABLE_SCALE)
    return out


#: The spawn keys, under ``SeedSequence(seed)``, of the spread family's boards over the exact
#: budget (``(SPREAD_LARGE_STREAM,)``; ``(SPREAD_LARGE_STREAM, 1)`` their samples of states) and
#: of its boards near the budget (``(SPREAD_STREAM,)``), :func:`solve_spread`.
SPREAD_LARGE_STREAM = 103
SPREAD_STREAM = 104
#: States of a spread-family board over the budget in the fit (:func:`solve_spread`).
SPREAD_SAMPLE = 400_000
#: The shapes whose table the spread family's fit is (:func:`over_budget_table`): those over the
#: default exact budget, where advice plays the fitted weights (docs/solve-game.md).
OVER_BUDGET_SHAPES = ((4, 5), (5, 4))


def solve_spread(rules: Ruleset, seed: int, count: int, large: int = 0, jobs: int = 1, scheduler: Any = None,
                 progress: Callable[[int], None] | None = None, shapes: tuple[tuple[int, int], ...] | None = None,
                 large_shapes: tuple[tuple[int, int], ...] | None = None) -> list[tuple[Board, dict[int, Sums]]]:
    """The spread family's boards (:func:`random_boards.spread_boards`: column needs drawn with
    repetition, half with a column needing 4-5 dice) with the sums of their float value tables
    (:func:`board_float_sums`): ``count`` boards of :data:`random_boards.SPREAD_SHAPES` (4 x 4,
    3 x 5, 5 x 3 in turn; every state) from ``SeedSequence(seed, spawn_key=(SPREAD_STREAM,))``, and
    ``large`` boards of 4 x 5 and 5 x 4 in turn from ``(SPREAD_LARGE_STREAM,)``, each with
    :data:`SPREAD_SAMPLE` of its states drawn uniformly without replacement from child ``i`` of
    ``(SPREAD_LARGE_STREAM, 1)``. One task per board (``jobs`` processes or the dask
    ``scheduler``; the sums are exact integers, so the fit does not depend on them); ``progress``
    gets 1 per board. ``shapes`` and ``large_shapes`` replace the two lists of shapes (tests).

    Raises:
        TrainError: the ruleset cannot hold the family's boards (too few item faces).
    """
    from shelfie_solver.dice.wholegame.random_boards import (
        LARGE_SHAPES,
        SPREAD_SHAPES,
        spread_boards,
    )

    try:
        near = spread_boards(np.random.SeedSequence(seed, spawn_key=(SPREAD_STREAM,)), count, rules,
                             shapes or SPREAD_SHAPES)
        big = spread_boards(np.random.SeedSequence(seed, spawn_key=(SPREAD_LARGE_STREAM,)), large, rules,
                            large_shapes or LARGE_SHAPES, "spread large")
    except ValueError as error:
        raise TrainError(f"--solitaire-spread: {error}") from None
    samples = np.random.SeedSequence(seed, spawn_key=(SPREAD_LARGE_STREAM, 1)).spawn(large)
    tasks: list[tuple[Any, ...]] = [(board, rules) for board in near]
    tasks += [(board, rules, SPREAD_SAMPLE, sample) for board, sample in zip(big, samples)]
    return list(zip(near + big, run_tasks(board_float_sums, tasks, jobs, progress, scheduler)))


def over_budget_table(pooled: Sequence[tuple[Board, dict[int, Sums]]], spread: Sequence[tuple[Board, dict[int, Sums]]],
                      rules: Ruleset, report: Callable[[str], None] | None = None) -> np.ndarray:
    """``int64 (3, N_FEATURES)``: the solitaire table of the boards of the shapes over the exact
    budget (:data:`OVER_BUDGET_SHAPES`, where advice plays the fitted weights) whose columns need
    many dice (:attr:`LearnedModel.many`, :func:`model_file.needs_many_dice`: a column of 4-5 dice,
    or 2.4 dice a column on average; on the others it lost to the pooled table,
    docs/strategies.md), fitted
    (:func:`pooled_fit`, every state alike) to the pooled table's boards and the spread
    family's (:func:`solve_spread`) together. Why: the other families draw every column's need
    once, so a fit to them alone never saw a board with two or three columns of one kind, and on
    such boards it loses most (docs/strategies.md, "Boards over the budget with a column of 4-5 dice").
    ``report`` gets one line per phase."""
    return pooled_fit([*pooled, *spread], rules, report,
                      f"4 x 5 and 5 x 4 table ({len(pooled)} pooled and {len(spread)} spread-family boards' "
                      "value tables)")


#: The spawn key, under ``SeedSequence(seed)``, of the heavy family's boards (``(HEAVY_STREAM,)``;
#: ``(HEAVY_STREAM, 1)`` their samples of states), :func:`solve_heavy`.
HEAVY_STREAM = 105
#: States of a heavy-family board in the fit (:func:`solve_heavy`; all of them when it has fewer).
HEAVY_SAMPLE = 60_000


def solve_heavy(rules: Ruleset, seed: int, count: int, jobs: int = 1, scheduler: Any = None,
                progress: Callable[[int], None] | None = None,
                shapes: tuple[tuple[int, int], ...] | None = None) -> list[tuple[Board, dict[int, Sums]]]:
    """The heavy family's boards (:func:`random_boards.heavy_boards`: column needs drawn with
    repetition, at least 3 dice a column on average and two or more columns of 4-5 dice; 4 x 4,
    3 x 5, 5 x 3 in turn, or ``shapes``) from ``SeedSequence(seed, spawn_key=(HEAVY_STREAM,))``,
    with the sums of their float value tables (:func:`board_float_sums`) over :data:`HEAVY_SAMPLE`
    of their states, drawn uniformly without replacement from child ``i`` of ``(HEAVY_STREAM, 1)``.
    One task per board (``jobs`` processes or the dask ``scheduler``; the sums are exact integers,
    so the fit does not depend on them); ``progress`` gets 1 per board.

    Raises:
        TrainError: the ruleset cannot hold the family's boards (too few item faces).
    """
    from shelfie_solver.dice.wholegame.random_boards import heavy_boards

    return _solve_family(heavy_boards, ((HEAVY_STREAM,), (HEAVY_STREAM, 1)), "--solitaire-heavy", rules, seed, count,
                         jobs, scheduler, progress, shapes)


def _solve_family(draw: Callable[..., list[Board]], keys: tuple[tuple[int, ...], tuple[int, ...]], option: str,
                  rules: Ruleset, seed: int, count: int, jobs: int, scheduler: Any,
                  progress: Callable[[int], None] | None,
                  shapes: tuple[tuple[int, int], ...] | None) -> list[tuple[Board, dict[int, Sums]]]:
    """:func:`solve_heavy`, :func:`solve_threes` and :func:`solve_light_five`: ``count`` boards of
    ``draw`` (a family of :mod:`wholegame.random_boards`) from ``SeedSequence(seed,
    spawn_key=keys[0])``, each with its :func:`board_float_sums` over :data:`HEAVY_SAMPLE` states
    drawn from child ``i`` of ``SeedSequence(seed, spawn_key=keys[1])``; a family the ruleset
    cannot hold is a :class:`TrainError` naming ``option``."""
    from shelfie_solver.dice.wholegame.random_boards import SPREAD_SHAPES

    boards_key, samples_key = keys
    try:
        boards = draw(np.random.SeedSequence(seed, spawn_key=boards_key), count, rules, shapes or SPREAD_SHAPES)
    except ValueError as error:
        raise TrainError(f"{option}: {error}") from None
    samples = np.random.SeedSequence(seed, spawn_key=samples_key).spawn(count)
    tasks: list[tuple[Any, ...]] = [(board, rules, HEAVY_SAMPLE, sample) for board, sample in zip(boards, samples)]
    return list(zip(boards, run_tasks(board_float_sums, tasks, jobs, progress, scheduler)))


def heavy_table(heavy: Sequence[tuple[Board, dict[int, Sums]]], many: np.ndarray, rules: Ruleset,
                report: Callable[[str], None] | None = None) -> np.ndarray:
    """``int64 (3, N_FEATURES)``: the solitaire table of the boards of the shapes over the exact
    budget (:data:`OVER_BUDGET_SHAPES`) whose column needs are heavy (:attr:`LearnedModel.heavy`,
    :func:`model_file.needs_heavy`): the mean of ``many`` (the many-dice table,
    :func:`over_budget_table`) and the fit (:func:`pooled_fit`, every state alike) to the heavy
    family's boards alone (:func:`solve_heavy`), weight by weight, rounded down to a whole number.
    Why: the other families rarely hold a board of several 4-5 dice columns, and on such boards the
    fitted weights lost up to 9 points of 100; on the validation boards the fit alone gained on
    most heavy boards but lost 2-4 points a game on some, the mean gained the most in all and lost
    2 points a game at most (docs/strategies.md, "Boards of heavy needs"). ``report`` gets one line
    per phase."""
    fitted = pooled_fit(heavy, rules, report, f"4 x 5 and 5 x 4 heavy table ({len(heavy)} heavy-family boards' "
                                              "sampled value tables, then the mean with the many-dice table)")
    return np.asarray((many.astype(np.int64) + fitted) // 2, dtype=np.int64)


#: The spawn key, under ``SeedSequence(seed)``, of the threes family's boards (``(THREES_STREAM,)``;
#: ``(THREES_STREAM, 1)`` their samples of states), :func:`solve_threes`.
THREES_STREAM = 106


def solve_threes(rules: Ruleset, seed: int, count: int, jobs: int = 1, scheduler: Any = None,
                 progress: Callable[[int], None] | None = None,
                 shapes: tuple[tuple[int, int], ...] | None = None) -> list[tuple[Board, dict[int, Sums]]]:
    """The threes family's boards (:func:`random_boards.threes_boards`: column needs drawn with
    repetition, none under 3 dice, a quarter or more but under half of 4-5 dice; 4 x 4, 3 x 5,
    5 x 3 in turn, or ``shapes``) from ``SeedSequence(seed, spawn_key=(THREES_STREAM,))``, with the
    sums of their float value tables (:func:`board_float_sums`) over :data:`HEAVY_SAMPLE` of their
    states, drawn uniformly without replacement from child ``i`` of ``(THREES_STREAM, 1)``. One
    task per board (``jobs`` processes or the dask ``scheduler``; the sums are exact integers, so
    the fit does not depend on them); ``progress`` gets 1 per board.

    Raises:
        TrainError: the ruleset cannot hold the family's boards (too few item faces).
    """
    from shelfie_solver.dice.wholegame.random_boards import threes_boards

    return _solve_family(threes_boards, ((THREES_STREAM,), (THREES_STREAM, 1)), "--solitaire-threes", rules, seed,
                         count, jobs, scheduler, progress, shapes)


def threes_table(threes: Sequence[tuple[Board, dict[int, Sums]]], rules: Ruleset,
                 report: Callable[[str], None] | None = None) -> np.ndarray:
    """``int64 (3, N_FEATURES)``: the solitaire table of the boards of the shapes over the exact
    budget (:data:`OVER_BUDGET_SHAPES`) whose column needs repeat 3s beside 4-5s
    (:attr:`LearnedModel.threes`, :func:`model_file.needs_threes`): the fit (:func:`pooled_fit`,
    every state alike) to the threes family's boards alone (:func:`solve_threes`). Chosen on the
    validation family 4242 (docs/strategies.md, "A table for repeated 3s beside 4-5s"): it gained
    on each of 14 boards of that kind over the heavy table, which played them before, and the
    most in all (the means of it with the heavy or the many-dice table gained as much within 2
    points over the 14). ``report`` gets one line per phase."""
    return pooled_fit(threes, rules, report, f"4 x 5 and 5 x 4 threes table ({len(threes)} threes-family boards' "
                                             "sampled value tables)")


#: The share of the many-dice table (:func:`over_budget_table`) in the 4 x 5 threes table
#: (:func:`threes_tables`); the rest is the threes fit's. Chosen on the validation family 4242 and
#: diagnosis boards of seeds 9601 and 9602 (docs/strategies.md, "Two 5s beside 3s").
THREES_MANY_SHARE = Fraction(1, 4)
#: The shape whose threes table mixes in the many-dice table (:func:`threes_tables`): 4 x 5, whose
#: boards of the kind have two columns of 4-5 dice (2 of 5; 5 x 4 boards have one of 4).
THREES_MIXED_SHAPE = (4, 5)


def threes_tables(fitted: np.ndarray, many: np.ndarray | None) -> dict[tuple[int, int], np.ndarray]:
    """``{shape: int64 (3, N_FEATURES)}`` for :attr:`LearnedModel.threes`, one per shape over the
    exact budget (:data:`OVER_BUDGET_SHAPES`): ``fitted`` (:func:`threes_table`) on 5 x 4, and on
    :data:`THREES_MIXED_SHAPE` (4 x 5) the mix of ``many`` (the many-dice table) at
    :data:`THREES_MANY_SHARE` and ``fitted`` at the rest, weight by weight, rounded down to a whole
    number (``(1 * many + 3 * fitted) // 4``); ``fitted`` alone there too when there is no many-dice
    table (``many`` None: no ``--solitaire-spread``). Why: on the validation family's 4 x 5 boards
    of the kind (two columns of 4-5 dice) the mix gained on 7 of 8 boards over the fit alone, and on
    the diagnosis boards, two 5s beside three 3s, it cut the exact decision losses by about a
    quarter, most of it in holds (docs/strategies.md, "Two 5s beside 3s"); on 5 x 4 (one column of
    4-5) the fit alone had gained the most (docs/strategies.md, "A table for repeated 3s beside
    4-5s")."""
    tables = {shape: fitted for shape in OVER_BUDGET_SHAPES}
    if many is not None:
        share = THREES_MANY_SHARE
        tables[THREES_MIXED_SHAPE] = np.asarray(
            (share.numerator * many.astype(np.int64) + (share.denominator - share.numerator) * fitted)
            // share.denominator, dtype=np.int64)
    return tables


#: The spawn keys, under ``SeedSequence(seed)``, of the light-five family's boards and of their
#: samples of states (:func:`solve_light_five`): those ``benchmarks/light_five_fit.py`` drew the
#: shipped table with (training seed 9604).
LIGHT_FIVE_STREAMS = ((1,), (2,))
#: The shape of the light-five table (:func:`light_five_tables`): 4 x 5, the only shape over the
#: exact budget it was chosen on (docs/strategies.md, "Two 5s beside 3s", its lead).
LIGHT_FIVE_SHAPE = (4, 5)


def solve_light_five(rules: Ruleset, seed: int, count: int, jobs: int = 1, scheduler: Any = None,
                     progress: Callable[[int], None] | None = None) -> list[tuple[Board, dict[int, Sums]]]:
    """The light-five family's boards (:func:`random_boards.light_five_boards`: a 5 beside 1s,
    exactly one column needing 5 dice, no other 4-5, two or more needing 1; 4 x 4, 3 x 5, 5 x 3 in
    turn) from ``SeedSequence(seed, spawn_key=LIGHT_FIVE_STREAMS[0])``, with the sums of their
    float value tables (:func:`board_float_sums`) over :data:`HEAVY_SAMPLE` of their states, drawn
    uniformly without replacement from child ``i`` of ``LIGHT_FIVE_STREAMS[1]``. One task per
    board (``jobs`` processes or the dask ``scheduler``; the sums are exact integers, so the fit
    does not depend on them); ``progress`` gets 1 per board.

    Raises:
        TrainError: the ruleset cannot hold the family's boards (too few item faces).
    """
    from shelfie_solver.dice.wholegame.random_boards import light_five_boards

    return _solve_family(light_five_boards, LIGHT_FIVE_STREAMS, "--solitaire-light-five", rules, seed, count, jobs,
                         scheduler, progress, None)


def light_five_tables(light: Sequence[tuple[Board, dict[int, Sums]]], many: np.ndarray, rules: Ruleset,
                      report: Callable[[str], None] | None = None) -> dict[tuple[int, int], np.ndarray]:
    """``{LIGHT_FIVE_SHAPE: int64 (3, N_FEATURES)}`` for :attr:`LearnedModel.light_five`
    (:func:`model_file.needs_light_five`): the mean of ``many`` (the many-dice table,
    :func:`over_budget_table`) and the fit (:func:`pooled_fit`, every state alike) to the
    light-five family's boards alone (:func:`solve_light_five`), weight by weight, rounded down to a
    whole number. Why: on the validation family 4242's 8 4 x 5 boards of a 5 beside 1s the mean
    gained on 7 (+8.84 points a game in all, worst -0.27) over the many-dice table that played them,
    the fit alone +5.54 (docs/strategies.md, "Two 5s beside 3s", its lead). ``report`` gets one
    line per phase."""
    fitted = pooled_fit(light, rules, report, f"4 x 5 light-five table ({len(light)} light-five-family boards' "
                                              "sampled value tables, then the mean with the many-dice table)")
    return {LIGHT_FIVE_SHAPE: np.asarray((many.astype(np.int64) + fitted) // 2, dtype=np.int64)}
