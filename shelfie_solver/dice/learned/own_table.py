"""A board's own solitaire table (docs/train.md, "A board's own table"): for a board over the
exact budget, the ``learned`` solitaire weights fitted to the exact value tables of the board's
own **sub-boards** that fit it, mixed with the table :meth:`model_file.LearnedModel.for_board`
picks there.

The sub-boards (:func:`sub_boards`, :data:`SIDES` ``"shelves"``): the board with one shelf
dropped, each in turn (its faces and items go; the columns keep their needs, D3, and every shelf
left keeps its length, the line that scores most). Each keeps the ruleset, so the end comes at
the same two closed shelves (D17): on a 3 x 5 sub-board of a 4 x 5 board at 2 of 3 shelves, on a
4 x 4 sub-board of a 5 x 4 board at 2 of 4. Validation (docs/strategies.md, "A board's own
table") also measured ``"long"`` (one line of the longer side dropped: a column of a 4 x 5
board, whose 4 x 4 sub-boards have shelves of 4 items) and chose shelves.

The fit (:func:`own_weights`): each sub-board solved with the float solver
(:func:`wholegame.float_solver.solve_float`), the features of **every** state computed at once with
numpy (:func:`state_features`, equal to :func:`objective.feature_vector` state by state), and per
phase the ridge least squares of :func:`fit_solved.fit_table_sums` over the sub-boards pooled
(every state weighted alike), mixed with the base table weight by weight, rounded down
(:data:`OWN_SHARE`, :func:`mix`).

Then **value iteration on the board itself** (:func:`iterate_weights`, docs/strategies.md "Value
iteration on the board itself"): games of the board's own ``learned`` played in lockstep
(:func:`iteration_sums`), every sheet at the start of a turn valued by a one-turn look-ahead
through the exact one-turn DP of the objective (:func:`turn_targets`: the expected ``V`` after the
turn's best holds and marking, ``V`` the current weights' score plus points to come), and the
weights fitted to those targets by the same ridge least squares; steps of it, and the weights
whose games scored most kept.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from shelfie_solver.dice.board import Board, Marks, score
from shelfie_solver.dice.learned.fit_solved import TABLE_SCALE
from shelfie_solver.dice.learned.fitting import Sums
from shelfie_solver.dice.learned.model_file import (
    KINDS,
    LINE_FEATURES,
    N_FEATURES,
    PHASES,
    LearnedModel,
)
from shelfie_solver.dice.learned.objective import global_features, line_features, line_kinds
from shelfie_solver.dice.rules import Ruleset
from shelfie_solver.dice.sheet_rules import end_trigger_shelves

#: The own fit's share in the own table (:func:`mix`) on a board of a shape not in
#: :data:`OWN_SHARES`; the rest is the base table's (the one
#: :meth:`model_file.LearnedModel.for_board` picks).
OWN_SHARE = Fraction(1, 2)
#: The own fit's share per board shape (shelves, columns), chosen on the validation family 4242
#: (docs/strategies.md, "A board's own table"): on 5 x 4, 1/2 gained on 9 of 10 boards and lost on
#: none (1/4 and 1 gained less in all); on 4 x 5, 1/4 gained on more boards and lost less than 1/2.
OWN_SHARES = {(4, 5): Fraction(1, 4), (5, 4): Fraction(1, 2)}
#: The own fit's share on a board of a shape here with at least :data:`HEAVY_COLUMNS` columns
#: needing 4 or 5 dice (D3), instead of :data:`OWN_SHARES`'s: chosen on validation boards of that
#: kind (families 4242, 15001, 15002; docs/strategies.md, "More of the sub-boards' fit on boards
#: of many heavy columns"): after value iteration, 1/2 scored more than 1/4 on every one of 10 such
#: 4 x 5 boards (+0.02 to +2.61 points a game, +5.97 in all), and less on both 4 x 5 boards of 3 such columns
#: measured (-0.32, -0.63), so the rule starts at 4.
HEAVY_SHARES = {(4, 5): Fraction(1, 2)}
#: Columns needing 4 or 5 dice from which :data:`HEAVY_SHARES` applies.
HEAVY_COLUMNS = 4


#: States whose features are computed in one numpy step (:func:`table_sums`; about 30 MB each).
CHUNK = 32_768


#: Which sub-boards the own fit takes (:func:`sub_boards`): ``"shelves"``, one shelf dropped in
#: turn whatever the shape; ``"long"``, one line of the board's longer side; ``"both"``, one line
#: of either side. Chosen on the validation family 4242 (docs/strategies.md, "A board's own
#: table"): on 4 x 5 boards the 4 x 4 sub-boards of ``"long"`` lost on every board at a share of
#: 1/2, the 3 x 5 ones of ``"shelves"`` gained on most; on 5 x 4 the two are the same.
SIDES = "shelves"


def share_for(board: Board) -> Fraction:
    """The own fit's share on ``board``: :data:`HEAVY_SHARES` of its shape when at least
    :data:`HEAVY_COLUMNS` of its columns need 4 or 5 dice (D3), else :data:`OWN_SHARES` of its
    shape, else :data:`OWN_SHARE`."""
    shape = (board.n_shelves, board.n_columns)
    if shape in HEAVY_SHARES and sum(need >= 4 for need in board.columns) >= HEAVY_COLUMNS:
        return HEAVY_SHARES[shape]
    return OWN_SHARES.get(shape, OWN_SHARE)


def sub_boards(board: Board, sides: str = SIDES) -> list[Board]:
    """The sub-boards of ``board`` (module docstring): one per column when it has more columns
    than shelves (that column dropped), else one per shelf (that shelf dropped), in board order,
    named ``"NAME without column J"`` / ``"NAME without shelf J"`` (1-based); with ``sides``
    ``"both"`` then also one per line of the other side; with ``"shelves"`` one per shelf whatever
    the shape (every sub-board keeps the board's shelf length).

    Raises:
        ValueError: the board has a single line on a side that would be dropped (no sub-board),
            or ``sides`` is not ``"long"``, ``"both"`` or ``"shelves"``.
    """
    if sides not in ("long", "both", "shelves"):
        raise ValueError(f"sides {sides!r}: expected long, both or shelves")
    columns_first = board.n_columns > board.n_shelves
    order = [columns_first, not columns_first] if sides == "both" else [False] if sides == "shelves" \
        else [columns_first]
    out: list[Board] = []
    for drop_column in order:
        if drop_column:
            if board.n_columns < 2:
                raise ValueError(f"board {board.name!r} has one column: no sub-board")
            out += [Board(f"{board.name} without column {j + 1}",
                          board.columns[:j] + board.columns[j + 1:], board.shelf_faces,
                          tuple(row[:j] + row[j + 1:] for row in board.values))
                    for j in range(board.n_columns)]
        else:
            if board.n_shelves < 2:
                raise ValueError(f"board {board.name!r} has one shelf: no sub-board")
            out += [Board(f"{board.name} without shelf {s + 1}", board.columns,
                          board.shelf_faces[:s] + board.shelf_faces[s + 1:],
                          board.values[:s] + board.values[s + 1:])
                    for s in range(board.n_shelves)]
    return out


def index_marks(board: Board, rules: Ruleset, at: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The sheets of the state indices ``at`` (``int64 (N,)``, :mod:`wholegame.state_index`), all at
    once: ``(marked, eliminated, closed)``, each ``int64 (N,)`` (bit masks of cells, and the number
    of closed shelves, D17); :meth:`state_index.StateIndex.marks` vectorised."""
    from shelfie_solver.dice.wholegame.state_index import state_index

    index = state_index(board, rules)
    at = np.asarray(at, dtype=np.int64)
    group = np.searchsorted(index.starts, at, side="right") - 1
    closed_set = index.patterns[group]
    rest = at - index.starts[group]
    c, full = board.n_columns, (1 << board.n_columns) - 1
    marked = np.zeros(len(at), dtype=np.int64)
    eliminated = np.zeros(len(at), dtype=np.int64)
    closed = np.zeros(len(at), dtype=np.int64)
    for s in range(board.n_shelves):
        shut = (closed_set >> s) & 1
        radix = np.where(shut == 1, full + 1, full)
        m, rest = rest % radix, rest // radix
        marked |= m << (s * c)
        eliminated |= np.where(shut == 1, (full & ~m) << (s * c), 0)
        closed += shut
    return marked, eliminated, closed


def line_totals(board: Board, marked: np.ndarray,
                eliminated: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:attr:`objectives.StateArrays.line_totals` of ``N`` sheets at once (bit masks ``marked``,
    ``eliminated`` ``int64 (N,)``): marked count, available count, marked points, available
    points, each ``int64 (N, L)`` over :attr:`Board.lines`."""
    cells = np.arange(board.n_cells, dtype=np.int64)
    mark_bits = (marked[:, None] >> cells) & 1
    available = 1 - mark_bits - ((eliminated[:, None] >> cells) & 1)
    member, values = board.line_matrix, board.value_array
    return mark_bits @ member, available @ member, (mark_bits * values) @ member, (available * values) @ member


def state_features(board: Board, rules: Ruleset, marked: np.ndarray, eliminated: np.ndarray,
                   near: np.ndarray) -> np.ndarray:
    """``int64 (N, N_FEATURES)``: :func:`objective.feature_vector` of ``N`` solitaire sheets at
    once (bit masks ``marked``, ``eliminated`` ``int64 (N,)``; ``near`` ``bool (N,)``: the sheet
    is one closed shelf short of the trigger), with no threatened line and the table context
    ``(1, 0, 0)`` (round 1, no opponent), as :func:`fit_solved._sums` computes them."""
    return _features(board, rules, line_totals(board, marked, eliminated), near)


def _features(board: Board, rules: Ruleset, totals: tuple[np.ndarray, ...], near: np.ndarray) -> np.ndarray:
    """:func:`state_features` from the sheets' :func:`line_totals`."""
    m, a, mp, ap = totals
    lines = line_features(m, a, mp, ap, rules.scoring_threshold)  # (N, L, 14)
    one_hot = np.zeros((len(board.lines), KINDS), dtype=np.int64)
    one_hot[np.arange(len(board.lines)), line_kinds(board)] = 1
    per_kind = np.einsum("nlf,lk->nkf", lines, one_hot).reshape(len(m), KINDS * len(LINE_FEATURES))
    threat = np.zeros(len(board.lines), dtype=bool)
    glob = global_features(m, a, mp, ap, rules.scoring_threshold, threat, near,
                           np.array([1, 0, 0], dtype=np.int64))
    return np.concatenate([per_kind, glob], axis=1).astype(np.int64)


def sheet_scores(board: Board, rules: Ruleset, marked: np.ndarray) -> np.ndarray:
    """``int64 (N,)``: the score (D19) of each sheet of marked bit masks ``marked``."""
    m, _, mp, _ = line_totals(board, marked, np.zeros_like(marked))
    return _scores(rules, m, mp)


def _scores(rules: Ruleset, count: np.ndarray, points: np.ndarray) -> np.ndarray:
    """``int64 (N,)``: D19 from the sheets' marked counts and points per line (``(N, L)``): a line
    scores the points of its marked items when at least the threshold of them are marked."""
    out: np.ndarray = np.where(count >= rules.scoring_threshold, points, 0).sum(axis=1)
    return out


def table_sums(board: Board, rules: Ruleset, values: np.ndarray,
               progress: Callable[[int], None] | None = None) -> dict[int, Sums]:
    """The exact least-squares sums of :func:`fit_solved._sums` (the same integers) for a whole
    value table ``values`` (``float (count,)`` by state index, points: a float solve's), every
    state taken, computed :data:`CHUNK` states at a time with numpy: per phase (2 near the
    trigger, 3 further), ``X^T X`` times :data:`TABLE_SCALE` and ``X^T y`` with the targets
    ``y = round((V - score) * TABLE_SCALE)``. ``progress`` gets the states done, chunk by chunk.

    Raises:
        ValueError: ``values`` is not one value per state of the board's index.
    """
    from shelfie_solver.dice.wholegame.state_index import state_index

    count = state_index(board, rules).count
    if values.shape != (count,):
        raise ValueError(f"{values.shape} values for the {count:,} states of board {board.name!r}")
    trigger = end_trigger_shelves(board, rules)
    xtx = {p: np.zeros((N_FEATURES, N_FEATURES), dtype=object) for p in PHASES}
    xty = {p: np.zeros(N_FEATURES, dtype=object) for p in PHASES}
    counts = dict.fromkeys(PHASES, 0)
    yy = dict.fromkeys(PHASES, 0)
    for lo in range(0, count, CHUNK):
        at = np.arange(lo, min(count, lo + CHUNK), dtype=np.int64)
        marked, eliminated, closed = index_marks(board, rules, at)
        near = trigger - closed == 1
        totals = line_totals(board, marked, eliminated)
        x = _features(board, rules, totals, near)
        y = np.rint((values[at] - _scores(rules, totals[0], totals[2])) * TABLE_SCALE).astype(np.int64)
        for p, rows in ((2, near), (3, ~near)):
            xs, ys = x[rows], y[rows]
            if not len(ys):
                continue
            xtx[p] = xtx[p] + _exact_product(xs.T, xs) * TABLE_SCALE
            xty[p] = xty[p] + _exact_product(xs.T, ys)
            counts[p] += len(ys)
            yy[p] += int((ys.astype(object) * ys.astype(object)).sum())
        if progress:
            progress(len(at))
    return {p: Sums(xtx[p], xty[p], counts[p], yy[p] // TABLE_SCALE if counts[p] else 0) for p in PHASES}


def _exact_product(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """``left @ right`` of int64 arrays as Python integers (an object array), exactly: every
    partial sum is bounded by the largest magnitudes times the inner length, so below 2**53 the
    float64 product (BLAS) holds each integer exactly, below 2**62 the int64 one does; beyond that
    it is computed in Python integers."""
    inner = left.shape[-1]
    bound = int(np.abs(left).max(initial=0)) * int(np.abs(right).max(initial=0)) * max(inner, 1)
    if bound < 1 << 53:
        return np.rint(left.astype(np.float64) @ right.astype(np.float64)).astype(np.int64).astype(object)
    if bound < 1 << 62:
        return np.asarray(left @ right).astype(object)
    return np.asarray(left.astype(object) @ right.astype(object))


def fit_sub_boards(board: Board, rules: Ruleset, progress: Callable[[int, int], None] | None = None,
                   sides: str = SIDES) -> np.ndarray:
    """``int64 (3, N_FEATURES)``: the solitaire weights fitted (:func:`fit_solved.fit_table_sums`)
    to the float value tables of every sub-board of ``board`` (:func:`sub_boards`), pooled, every
    state weighted alike. ``progress(_, n)`` gets ``n`` for each ``n`` states solved and again for
    each ``n`` states whose features are summed (so twice the sub-boards' states in all).

    Raises:
        ValueError: as :func:`sub_boards`. Interrupted, KeyboardInterrupt: as the float solve.
    """
    from shelfie_solver.dice.learned.fit_solved import fit_table_sums
    from shelfie_solver.dice.wholegame.float_solver import solve_float

    tables = []
    for sub in sub_boards(board, sides):
        solved = solve_float(sub, rules, progress=progress)
        tables.append(table_sums(sub, rules, np.asarray(solved.values, dtype=np.float64),
                                 None if progress is None else lambda n: progress(0, n)))
    weights, _ = fit_table_sums(tables, rules.scoring_threshold)
    return weights


def mix(own: np.ndarray, base: np.ndarray, share: Fraction = OWN_SHARE) -> np.ndarray:
    """``int64 (3, N_FEATURES)``: ``share`` of ``own`` and the rest of ``base``, weight by weight,
    rounded down to a whole number (``share`` 1/2: ``(own + base) // 2``, the mean the shipped
    heavy and light-five tables take)."""
    num, den = share.numerator, share.denominator
    return np.asarray((num * own.astype(np.int64) + (den - num) * base.astype(np.int64)) // den, dtype=np.int64)


def own_weights(board: Board, rules: Ruleset, base: np.ndarray, share: Fraction | None = None,
                progress: Callable[[int, int], None] | None = None, game_units: int = 1) -> np.ndarray:
    """``int64 (3, N_FEATURES)``: the board's own table (module docstring): :func:`fit_sub_boards`
    mixed with ``base`` (:func:`mix`) at ``share`` (default :func:`share_for` the board), then
    :data:`ITERATIONS` steps of value iteration on the board itself (:func:`iterate_weights`,
    :data:`ITERATION_GAMES` games a step, seed :data:`ITERATION_SEED`, :data:`ITERATION_STEP`,
    :data:`ITERATION_POOLED`, :data:`ITERATION_SELECT`; ``progress(_, n)`` also gets the games finished,
    each counted ``game_units`` times, so that a bar over both parts moves with the time they take).
    Raises as :func:`fit_sub_boards`."""
    mixed = mix(fit_sub_boards(board, rules, progress), base, share_for(board) if share is None else share)
    return iterate_weights(board, rules, mixed, ITERATION_GAMES, ITERATIONS, ITERATION_SEED, ITERATION_STEP,
                           ITERATION_POOLED, ITERATION_SELECT,
                           None if progress is None else lambda n: progress(0, n * game_units))


def candidate_model(weights: np.ndarray, board: Board, info: dict[str, Any] | None = None) -> LearnedModel:
    """A :class:`model_file.LearnedModel` playing ``weights`` in solitaire on boards of ``board``'s
    shape (its :attr:`LearnedModel.shapes` table, nothing else by shape) and the shipped weights
    with opponents: what ``benchmarks/own_table.py`` writes as ``learned:FILE``."""
    from shelfie_solver.dice.learned.model_file import default_model

    shipped = default_model()
    return LearnedModel(dict(shipped.weights), info or {}, {(board.n_shelves, board.n_columns): weights})


# --- value iteration on the board itself -------------------------------------------------------


def _turn_finals(board: Board, rules: Ruleset, weights: np.ndarray,
                 sheets: list[Marks]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For solitaire sheets ``sheets`` (none over): the ``learned`` objective of ``weights``
    (solitaire, the end not triggered: :func:`objective.solitaire_objective`'s form) turn by turn,
    by the compiled kernel (:func:`learned.kernel._learned_turn`): the final values' columns 0-1
    ``int64 (R, N, 2)`` (the change of ``V`` over :data:`objective.VALUE_SCALE`, and the failed
    result, D13), every item set's worth ``int64 (N, K+1)`` and the shelves' values of a failed
    result ``int64 (N, S)``.

    Raises:
        RuntimeError: numba is not installed (the ``[fast]`` extra).
    """
    from shelfie_solver.dice.engine.kernel import int64_cap, turn_arrays
    from shelfie_solver.dice.learned.kernel import kernel_function, learned_deltas
    from shelfie_solver.dice.learned.objective import Learned
    from shelfie_solver.dice.objectives import StateArrays
    from shelfie_solver.dice.rolls import space_for

    turn = kernel_function("_learned_turn")
    if turn is None:
        raise RuntimeError("the own table's value iteration needs numba: pip install '.[fast]' in the clone")
    tables = turn_arrays(board, rules)
    space = space_for(rules)
    objective = Learned(np.ascontiguousarray(weights, dtype=np.int64), np.zeros(len(board.lines), dtype=bool))
    deltas = learned_deltas(board, rules)
    levels = max(rules.rerolls, 1)
    cap = int64_cap(space.denominator, levels)
    finals, worths, shelves = [], [], []
    for marks in sheets:
        worth, shelf, values, _, ok = turn(
            *deltas, tables.set_masks, marks.marked, marks.eliminated,
            *objective.kernel_inputs(StateArrays(board, rules, marks)), tables.sizes, tables.set_starts,
            tables.set_rolls, tables.extend, tables.power, tables.order, tables.shrink, space.denominator, levels, cap)
        if not ok:  # never on boards of the budget's sizes: values of a few thousand units
            raise ValueError(f"board {board.name!r}: the learned values pass the int64 bound of a turn")
        finals.append(values[0])
        worths.append(worth)
        shelves.append(shelf)
    return np.ascontiguousarray(np.stack(finals, axis=1)), np.stack(worths), np.stack(shelves)


def turn_targets(board: Board, rules: Ruleset, weights: np.ndarray,
                 sheets: list[Marks]) -> tuple[np.ndarray, Any, np.ndarray, np.ndarray]:
    """The one-turn look-ahead targets of value iteration for solitaire sheets ``sheets`` at the
    start of a turn: with ``V = score + F`` (``F`` the features times ``weights`` in the sheet's
    phase, 0 once the game is over, D17-D19) as the ``learned`` objective values it
    (:meth:`objective.Learned.positions`, to ``1 / VALUE_SCALE`` point), ``T V(s) - score(s)``:
    the expected ``V`` after the turn's best holds and marking (D6-D14, the objective's own DP)
    minus the score now, in units of ``1 / TABLE_SCALE`` point (rounded half up) ``int64 (N,)``;
    with the turn's batched solution (:class:`engine.batched.BatchSolution`, its policy per roll),
    every item set's worth and the failed result's shelf values (:func:`_turn_finals`)."""
    from shelfie_solver.dice.engine.batched import solve_finals
    from shelfie_solver.dice.learned.model_file import WEIGHT_SCALE
    from shelfie_solver.dice.learned.objective import VALUE_SCALE
    from shelfie_solver.dice.rolls import space_for

    space = space_for(rules)
    finals, worth, shelves = _turn_finals(board, rules, weights, sheets)
    solution = solve_finals(space, finals, rules.rerolls, VALUE_SCALE)
    denominator = int(space.denominator) ** (rules.rerolls + 1) * VALUE_SCALE  # of the start values
    trigger = end_trigger_shelves(board, rules)
    marked = np.array([m.marked for m in sheets], dtype=np.int64)
    eliminated = np.array([m.eliminated for m in sheets], dtype=np.int64)
    closed = np.array([m.closed_shelves() for m in sheets], dtype=np.int64)
    totals = line_totals(board, marked, eliminated)
    x = _features(board, rules, totals, trigger - closed == 1)
    now = _scores(rules, totals[0], totals[2])
    rows = np.where(trigger - closed == 1, 1, 2)  # phase 2 (near the trigger) or 3
    own = WEIGHT_SCALE * now + np.einsum("nf,nf->n", x, np.asarray(weights, dtype=np.int64)[rows])
    before = (own * VALUE_SCALE + WEIGHT_SCALE // 2) // WEIGHT_SCALE  # V now (Learned.positions, solitaire)
    targets = [((int(b) * (denominator // VALUE_SCALE) + int(start) - int(points) * denominator) * 2 * TABLE_SCALE
                + denominator) // (2 * denominator)
               for b, start, points in zip(before, solution.start_numerators(0), now)]
    return np.array(targets, dtype=np.int64), solution, worth, shelves


#: Value iteration on the board itself (:func:`iterate_weights`, docs/strategies.md "Value iteration
#: on the board itself"): steps, lockstep games a step, the seed of their dice.
ITERATIONS = 4
ITERATION_GAMES = 2000
ITERATION_SEED = 20261206
#: Each step's fit taken at this share in a mix with the weights the step started from (:func:`mix`).
ITERATION_STEP = Fraction(1)
#: Each step fitted to the sums of every step so far (True) or of its own games only.
ITERATION_POOLED = True
#: The weights whose games scored most, of the start and every step's (True), or the last step's.
ITERATION_SELECT = True


def iteration_sums(board: Board, rules: Ruleset, weights: np.ndarray, games: int,
                   rng: np.random.Generator | Sequence[np.random.Generator],
                   progress: Callable[[int], None] | None = None,
                   order: list[int] | None = None) -> tuple[dict[int, Sums], list[int]]:
    """One step of value iteration on ``board`` itself: ``games`` solitaire games of the ``learned``
    objective of ``weights`` played in lockstep, every game's turn from one batched solve of the
    sheets the games are at (:func:`turn_targets`; the dice from ``rng``, D6-D7, one generator for
    every game in turn, or one per game, ``rng[g]`` game ``g``'s: then a game's dice do not depend
    on the other games' choices, so two weights' games are on common dice until their own choices
    differ (:func:`game_generators`); the hold of the
    solve's policy, the marking of highest worth, D8-D14 (:func:`advise.advice.first_by_worth`), or the failed
    result's best shelf, D13: the ``learned`` strategy's decisions; a game ends when its sheet closes the trigger's shelves,
    D17-D18), and every sheet at the start of a turn with its target: the least-squares sums of
    :func:`table_sums` per phase, one row per visit. ``progress`` gets the games finished, turn by
    turn. Returns the sums and the games' final scores (D19), in the order they ended; ``order``, when
    given, gets each ended game's number (0 to ``games - 1``, the order the games were dealt in), in
    the same order."""
    from shelfie_solver.dice.advise.advice import first_by_worth
    from shelfie_solver.dice.game.events import legal_sets
    from shelfie_solver.dice.rolls import space_for
    from shelfie_solver.dice.sheet_rules import failed_result_shelves

    space = space_for(rules)
    trigger = end_trigger_shelves(board, rules)
    xtx = {p: np.zeros((N_FEATURES, N_FEATURES), dtype=object) for p in PHASES}
    xty = {p: np.zeros(N_FEATURES, dtype=object) for p in PHASES}
    counts = dict.fromkeys(PHASES, 0)
    yy = dict.fromkeys(PHASES, 0)
    sheets = [Marks.empty(board)] * games
    ids = list(range(games))
    finished: list[int] = []
    while sheets:
        unique = list(dict.fromkeys(sheets))
        where = {marks: i for i, marks in enumerate(unique)}
        visits = np.bincount([where[marks] for marks in sheets], minlength=len(unique)).astype(np.int64)
        y, solution, worth, shelves = turn_targets(board, rules, weights, unique)
        marked = np.array([m.marked for m in unique], dtype=np.int64)
        eliminated = np.array([m.eliminated for m in unique], dtype=np.int64)
        near = trigger - np.array([m.closed_shelves() for m in unique], dtype=np.int64) == 1
        x = state_features(board, rules, marked, eliminated, near)
        for p, chosen in ((2, near), (3, ~near)):
            if not chosen.any():
                continue
            xs, ys, cs = x[chosen], y[chosen], visits[chosen]
            xtx[p] = xtx[p] + _exact_product((xs * cs[:, None]).T, xs) * TABLE_SCALE
            xty[p] = xty[p] + _exact_product((xs * cs[:, None]).T, ys)
            counts[p] += int(cs.sum())
            yy[p] += int((cs.astype(object) * ys.astype(object) * ys.astype(object)).sum())
        going, going_ids = [], []
        for marks, game in zip(sheets, ids):
            i = where[marks]
            dealer = rng if isinstance(rng, np.random.Generator) else rng[game]
            dice = _roll((0,) * space.n_sides, space.n_dice, dealer)
            for left in range(rules.rerolls, 0, -1):
                hold = space.holds[int(solution.policy[left][space.roll_index[dice], i])]
                if hold == dice:  # keeping every die is stopping (D7)
                    break
                dice = _roll(hold, space.n_dice, dealer)
            legal = legal_sets(dice, board, marks, rules)
            if len(legal):
                after = marks.with_marked(first_by_worth(board, rules, marks, legal, worth[i]))
            else:
                options = failed_result_shelves(board, marks)
                after = marks.with_eliminated(options[max(options, key=lambda s: (int(shelves[i][s]), -s))])
            if after.closed_shelves() >= trigger:
                finished.append(score(board, after, rules))
                if order is not None:
                    order.append(game)
            else:
                going.append(after)
                going_ids.append(game)
        if progress:
            progress(len(sheets) - len(going))
        sheets, ids = going, going_ids
    return {p: Sums(xtx[p], xty[p], counts[p], yy[p] // TABLE_SCALE if counts[p] else 0) for p in PHASES}, finished


def _roll(hold: tuple[int, ...], n_dice: int, rng: np.random.Generator) -> tuple[int, ...]:
    """``hold`` (counts per face) with the other dice rolled, each face equally likely (D2, D7)."""
    rolled = np.bincount(rng.integers(0, len(hold), n_dice - sum(hold)), minlength=len(hold))
    return tuple(int(h + r) for h, r in zip(hold, rolled))


def iterate_weights(board: Board, rules: Ruleset, weights: np.ndarray, games: int = ITERATION_GAMES,
                    iterations: int = ITERATIONS, seed: int = ITERATION_SEED, step: Fraction = Fraction(1),
                    pooled: bool = False, select: bool = False, progress: Callable[[int], None] | None = None,
                    report: Callable[[str], None] | None = None, relative_error: Fraction | None = None,
                    max_games: int | None = None, per_game: bool = False,
                    margin: Fraction = Fraction(0)) -> np.ndarray:
    """``int64 (3, N_FEATURES)``: ``iterations`` steps of fitted value iteration on ``board`` from
    ``weights``: each step plays ``games`` lockstep games of the weights it starts from and fits
    new weights to their sheets' one-turn targets (:func:`iteration_sums`; the ridge least squares
    per phase of :func:`fit_solved.fit_table_sums`, as the sub-board fit; with ``pooled`` to every
    step's sums so far), taken at ``step`` in a mix with the weights it started from (:func:`mix`).

    The dice: ``numpy.random.default_rng(seed)`` dealing every game in turn, or with ``per_game``
    one generator per game (:func:`game_generators`), so that a game's dice do not depend on the
    other games. With ``select``, every step's games are dealt the same dice, and the weights
    returned are those whose games scored most on average, of the weights given and every step's
    (the last step's played too); with ``margin`` (``per_game``), a step's weights replace the
    ones kept only when their games beat those of the kept weights, game by game on the same dice,
    by more than ``margin`` standard errors of the mean of the paired differences
    (:func:`beats`); without ``select``, the last step's.

    With ``relative_error``, the games a step are scaled to the board (:func:`games_for`): the
    start weights' ``games`` games are a pilot, and when their scores need more games for the
    standard error of their mean to be ``relative_error`` of it (at most ``max_games``), every step
    plays that many (the start weights again too). The result is a function of the arguments.
    ``progress`` gets the games finished; ``report`` one line a step."""
    from shelfie_solver.dice.learned.fit_solved import fit_table_sums

    kept: list[dict[int, Sums]] = []
    best: np.ndarray = weights
    best_scores: np.ndarray | None = None
    shared = np.random.default_rng(seed)
    pilot = relative_error is not None and iterations > 0
    k = 0
    while k < iterations + (1 if select and iterations else 0):
        if (select or pilot) and not per_game:
            shared = np.random.default_rng(seed)
        dealer = game_generators(seed, games) if per_game else shared
        order: list[int] = []
        sums, finished = iteration_sums(board, rules, weights, games, dealer, progress, order)
        if pilot and relative_error is not None:
            pilot = False
            wanted = games_for(finished, relative_error, games, max_games)
            if report:
                report(f"pilot: {games:,} games, {wanted:,} games a step")
            if wanted > games:
                games = wanted
                continue
        scores = np.zeros(games, dtype=np.int64)
        scores[np.array(order, dtype=np.int64)] = finished
        if best_scores is None or beats(scores, best_scores, margin):
            best, best_scores = weights, scores
        if report:
            report(f"step {k + 1}: {sum(s.count for s in sums.values()):,} turns, mean score "
                   f"{float(np.mean(scores)):.2f}")
        if k == iterations:
            break
        kept = [*kept, sums] if pooled else [sums]
        fitted, _ = fit_table_sums(kept, rules.scoring_threshold)
        weights = mix(fitted, weights, step)
        k += 1
    return best if select else weights


def game_generators(seed: int, games: int) -> list[np.random.Generator]:
    """One dice generator per game (:func:`iteration_sums`): game ``g``'s is
    ``numpy.random.default_rng`` of child ``g`` of ``numpy.random.SeedSequence(seed)``."""
    return [np.random.default_rng(child) for child in np.random.SeedSequence(seed).spawn(games)]


def beats(scores: np.ndarray, kept: np.ndarray, margin: Fraction = Fraction(0)) -> bool:
    """Whether games scoring ``scores`` beat games scoring ``kept`` (both ``int64 (n,)``, game by
    game): the mean of the differences ``d = scores - kept`` is positive and, with ``margin`` > 0,
    more than ``margin`` times its standard error ``sd(d) / sqrt(n)`` (``sd`` the sample standard
    deviation; exactly, in fractions: ``sum(d) > 0`` and ``sum(d) ** 2 / n > margin ** 2 * var(d)``);
    ``margin`` 0: the higher mean, ties kept.

    Raises:
        ValueError: the two are not of one length of 2 or more games.
    """
    if scores.shape != kept.shape or len(scores) < 2:
        raise ValueError(f"{scores.shape} and {kept.shape} scores: expected one length of 2 or more")
    d = [int(x) for x in scores - kept]
    n, total = len(d), sum(d)
    if total <= 0:
        return False
    if margin <= 0:
        return True
    squares = sum(x * x for x in d)
    variance = Fraction(n * squares - total * total, n * (n - 1))  # of one difference
    return Fraction(total * total, n) > margin * margin * variance


def games_for(scores: list[int], relative_error: Fraction, games: int, max_games: int | None = None) -> int:
    """The games a step of value iteration plays (:func:`iterate_weights`) given a pilot's final
    scores ``scores`` (at least 2): the fewest ``n`` whose standard error of the mean,
    ``sd / sqrt(n)`` (``sd`` the scores' sample standard deviation), is at most ``relative_error``
    times their mean, i.e. ``n >= var / (relative_error * mean) ** 2`` (exactly, in fractions),
    at least ``games`` and at most ``max(games, max_games)`` (no bound when ``None``); ``games``
    when the mean is not positive (no relative error to aim at).

    Raises:
        ValueError: fewer than 2 scores, or ``relative_error`` not positive.
    """
    if len(scores) < 2 or relative_error <= 0:
        raise ValueError(f"{len(scores)} scores, relative error {relative_error}: expected 2 or more and > 0")
    n = len(scores)
    total, squares = sum(scores), sum(x * x for x in scores)
    variance = Fraction(n * squares - total * total, n * (n - 1))
    mean = Fraction(total, n)
    if mean <= 0:
        return games
    else:
        ratio = variance / (relative_error * mean) ** 2
        wanted = max(games, -(-ratio.numerator // ratio.denominator))
    return wanted if max_games is None else min(wanted, max(games, max_games))
