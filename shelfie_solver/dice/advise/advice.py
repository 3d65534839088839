"""Advice for one turn, click-free: which dice to hold (re-rolls left) or which items to mark.

:func:`advise` is what ``shelfie-solve advise`` prints; everything exact (``Fraction``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from math import lcm
from typing import TYPE_CHECKING

import numpy as np

from shelfie_solver.dice.allocate import Marking, feasibility_arrays, legal_markings, legal_sets
from shelfie_solver.dice.board import Board, ItemSets, Marks, item_sets, score, verify_marks_fit
from shelfie_solver.dice.rolls import Counts, space_for
from shelfie_solver.dice.engine.dp import TurnSolution, solve_turn
from shelfie_solver.dice.engine.shown import ShownTurn, shown_levels
from shelfie_solver.dice.errors import DiceError, ObjectiveError
from shelfie_solver.dice.objectives import CellTarget, Objective, Points, StateArrays, Strategic, shelf_losses
from shelfie_solver.dice.rules import Ruleset
from shelfie_solver.dice.sheet_rules import failed_result_shelves, marking_ends_game, triggers_end

if TYPE_CHECKING:  # the game modules are not needed for advice on one sheet (start-up time)
    from shelfie_solver.dice.game.events import GameState, LegalMarkings


@dataclass(frozen=True)
class HoldOption:
    """One hold with re-rolls left, under optimal play afterwards.

    Attributes:
        keep: the dice kept (counts per side); all dice kept = stop rolling.
        value: expected objective value (points for ``points``, probability for ``cell``/``safe``).
        fail: probability of a failed result (D13) at the end of the turn.
        at_least: probabilities that the final dice can mark at least 1, 2, ... k items.
        rank: 1-based; holds with exactly equal value share a rank.
        points: expected points scored this turn (D19, score change as if the game ended after
            it) under the same policy: the objective's holds, then its marking (exact ties: the
            one scoring more).
        exact: True where ``value`` is the exact chance to win of an objective that knows it
            for some final rolls only (``win``'s exact terminals): keeping every die takes the
            best marking's exact value (D7), another hold is exact when every roll it can reach
            is (:func:`shown_turn`); None: as the advice's :attr:`Advice.win_chance_exact`.
    """

    keep: Counts
    value: Fraction
    fail: Fraction
    at_least: tuple[Fraction, ...]
    rank: int
    points: Fraction = Fraction(0)
    exact: bool | None = None


@dataclass(frozen=True)
class MarkingOption:
    """One legal marking of the final dice.

    Attributes:
        marking: the items and their dice groups.
        value: the objective's value of this marking.
        points: score change if the game ended now (D19), in points.
        rank: 1-based; markings with exactly equal value share a rank.
        score_after: the sheet's score after this marking (D19), in points.
        scoring_lines: lines (indices of :attr:`Board.lines`) that score after it (D19).
        ends_game: whether it triggers the end (D17) on some sheet: the player's own closed
            shelves, or in a game an opponent's after the blocks it makes (D15); the game ends
            after this round (D18).
        exact: whether ``value`` is the exact chance to win (an objective that knows it for some
            markings only: ``win`` on a marking that ends the game); None: as the advice's
            :attr:`Advice.win_chance_exact`.
    """

    marking: Marking
    value: Fraction
    points: int
    rank: int
    score_after: int = 0
    scoring_lines: tuple[int, ...] = ()
    ends_game: bool = False
    exact: bool | None = None


@dataclass(frozen=True)
class ShelfOption:
    """A shelf that may be given up on a failed result (D13).

    Attributes:
        shelf: 0-based shelf index.
        lost_items: available items that would be eliminated (cell indices).
        lost_points: their total point value.
        potential_change: change of the strategic line potential (<= 0; docs/objectives.md).
        ends_game: whether giving it up closes the shelf that triggers the end (D17).
        value: the objective's value of giving it up, when the objective tells shelves apart
            (it has ``shelf_values``: ``learned``, ``win``, the exact win chance), else None.
        exact: whether ``value`` is the exact chance to win where the objective knows it per
            shelf (``win`` on a shelf whose loss ends the game, D13, D17: ``exact_shelves``),
            else None (the advice's :attr:`Advice.win_chance_exact` holds).
    """

    shelf: int
    lost_items: tuple[int, ...]
    lost_points: int
    potential_change: Fraction
    ends_game: bool = False
    value: Fraction | None = None
    exact: bool | None = None


@dataclass(frozen=True)
class Advice:
    """The answer of :func:`advise`.

    ``holds`` is filled with re-rolls left, ``markings`` (or ``failed`` when nothing can be
    marked) with none; with re-rolls left and stopping best, ``markings`` holds the one marking
    to make. ``value`` is the value of the position under the objective: the best
    hold's, the best marking's, or the failed result's. ``end_triggered``: the sheet already has
    the closed shelves that trigger the end (D17), so this is the last round; ``finished``: no
    item is available, the score is final. ``state``: the game the advice saw
    (:func:`advise_in_game`), or ``None`` for advice on the one sheet. ``win_chance_exact``:
    every value is the player's chance to win (D20), exact (True, :mod:`win_chance`) or under a
    fitted model (False, :mod:`learned.win_model`); ``None`` when values are not win chances.
    ``baseline``: for an objective valuing changes of a position (``learned`` alone: the expected
    final score), its value of the sheet as it is, so ``baseline + value`` is the expected final
    score in points; else None. ``fitted_shape``: under the win model on a board of another
    shape than its line states were fitted on, that shape (its other shapes' coefficients gave
    the values: docs/win-chance.md "Off the fitted board's shape"); else None.
    """

    rules: Ruleset
    board: Board
    marks: Marks
    dice: Counts
    rerolls: int
    objective: str
    value: Fraction
    score: int
    holds: tuple[HoldOption, ...] = ()
    markings: tuple[MarkingOption, ...] = ()
    failed: tuple[ShelfOption, ...] = ()
    end_triggered: bool = False
    finished: bool = False
    state: GameState | None = None
    win_chance_exact: bool | None = None
    baseline: Fraction | None = None
    fitted_shape: tuple[int, int] | None = None


def advise(dice: Counts, board: Board, marks: Marks, rules: Ruleset, objective: Objective,
           rerolls: int | None = None) -> Advice:
    """Rank the holds (``rerolls`` > 0) or the markings (``rerolls`` == 0) of a roll, exactly.

    Args:
        dice: the dice showing, counts per side (``rules.dice`` dice).
        rerolls: re-rolls left, 0..``rules.rerolls`` (default: all of them).

    Raises:
        DiceError: wrong number of dice or re-rolls out of range.
        ObjectiveError: a ``cell`` objective names an item that is not available.
        MarksError: the marks do not fit the board.

    When the sheet has already triggered the end (D17), this is the player's last turn (D18) and
    ``strategic`` advises by ``points``: the report names the objective used.
    """
    verify_marks_fit(marks, board)
    left = rules.rerolls if rerolls is None else rerolls
    if not 0 <= left <= rules.rerolls:
        raise DiceError(f"re-rolls left must be from 0 to {rules.rerolls} (D7), got {left}")
    if sum(dice) != rules.dice or len(dice) != rules.n_sides:
        raise DiceError(f"advice needs all {rules.dice} dice, got {sum(dice)}")
    if isinstance(objective, CellTarget) and not marks.is_available(objective.cell):
        raise ObjectiveError(f"item {board.cell_name(objective.cell)} is {marks.state(objective.cell).name.lower()}; "
                             "a cell objective needs an available item")
    ended = triggers_end(board, marks, rules)
    if ended and isinstance(objective, Strategic):
        # D17/D18: the game ends after this round, so a line's future is worth nothing: the
        # strategic potential of lines left open would advise against a sure score now.
        objective = Points()
    base = Advice(rules, board, marks, dice, left, _objective_label(objective, board), Fraction(0),
                  score(board, marks, rules), end_triggered=ended,
                  finished=not marks.available, win_chance_exact=getattr(objective, "win_chance_exact", None),
                  baseline=_baseline(objective, board, marks, rules),
                  fitted_shape=getattr(objective, "fitted_shape", None))
    if left > 0 and marks.available:  # with nothing available there is nothing to roll for
        holds = rank_holds(dice, board, marks, rules, objective, left)
        # when stopping is best, say what to mark too (the markings of these dice as final)
        stop = rank_markings(dice, board, marks, rules, objective) if holds[0].keep == dice else ()
        return replace(base, value=holds[0].value, holds=holds, markings=stop[:1])
    markings = rank_markings(dice, board, marks, rules, objective)
    if markings:
        return replace(base, value=markings[0].value, markings=markings)
    state = StateArrays(board, rules, marks)
    failed = ranked_shelves(failed_options(board, marks, rules), state, objective)
    return replace(base, value=failed_value(objective, state, failed), failed=failed)


def failed_value(objective: Objective, state: StateArrays, failed: tuple[ShelfOption, ...]) -> Fraction:
    """The value of a failed result (D13) on the sheet ``state``: the best shelf's of ``failed``
    (:func:`ranked_shelves`) where its value is exact (its exact ``Fraction``: ``win``'s exact
    shelves, D17, D20), else the objective's ``failed_value`` over its scale."""
    if failed and failed[0].exact and failed[0].value is not None:
        return failed[0].value
    return Fraction(objective.failed_value(state), objective.scale(state.rules))


def exact_shelves(objective: Objective, state: StateArrays) -> set[int] | None:
    """The shelves a failed result may give up (D13) whose value ``objective`` gives as the exact
    chance to win (their loss ends the game, D17: ``WinObjective.exact_shelves``); None for an
    objective that does not tell them apart."""
    exact_of = getattr(objective, "exact_shelves", None)
    return set(exact_of(state)) if callable(exact_of) else None


def exact_shelf_chances(objective: Objective, state: StateArrays) -> dict[int, Fraction] | None:
    """Per shelf of :func:`exact_shelves`, its exact chance to win as a ``Fraction``
    (``WinObjective.exact_shelf_values``: what its ``shelf_values`` has rounded to millionths);
    None for an objective that does not tell them apart."""
    exact_of = getattr(objective, "exact_shelf_values", None)
    return dict(exact_of(state)) if callable(exact_of) else None


def ranked_shelves(options: tuple[ShelfOption, ...], state: StateArrays,
                   objective: Objective) -> tuple[ShelfOption, ...]:
    """The shelves of a failed result (D13) ranked by the game's objective when it tells them
    apart (its ``shelf_values``, best first; ties keep the strategic order), each with its value
    (the exact ``Fraction`` where it is exact: :func:`exact_shelf_chances`); else as they are
    (least strategic potential lost first)."""
    shelf_values = getattr(objective, "shelf_values", None)
    if not callable(shelf_values):
        return options
    scale = objective.scale(state.rules)
    worth = {shelf: Fraction(value, scale) for shelf, value in shelf_values(state)}
    chances = exact_shelf_chances(objective, state)
    known = exact_shelves(objective, state) if chances is None else set(chances)
    worth.update({shelf: chance for shelf, chance in (chances or {}).items() if shelf in worth})
    valued = [replace(o, value=worth[o.shelf], exact=None if known is None else o.shelf in known)
              for o in options if o.shelf in worth]
    return tuple(sorted(valued, key=lambda o: -(o.value or 0)))


def _failed_shown(board: Board, marks: Marks, rules: Ruleset, objective: Objective,
                  state: StateArrays) -> tuple[Fraction, bool]:
    """The value of a failed result (D13) on ``marks`` as the advice shows it (:func:`failed_value`
    of :func:`ranked_shelves`) and whether it is the exact chance to win (its best shelf's own flag);
    without a shelf of exact value (:func:`exact_shelf_chances`, :func:`exact_shelves`) the
    objective's ``failed_value``, not exact, without ranking the shelves."""
    chances = exact_shelf_chances(objective, state)
    if not (chances if chances is not None else exact_shelves(objective, state)):
        return Fraction(objective.failed_value(state), objective.scale(rules)), False
    shelves = ranked_shelves(failed_options(board, marks, rules), state, objective)
    return failed_value(objective, state, shelves), bool(shelves and shelves[0].exact and shelves[0].value is not None)


def _baseline(objective: Objective, board: Board, marks: Marks, rules: Ruleset) -> Fraction | None:
    """The ``learned`` solitaire value of the sheet as it is (its expected final score, points),
    for :attr:`Advice.baseline`; None for other objectives or with opponents."""
    before = getattr(objective, "before", None)
    if not callable(before) or getattr(objective, "win_chance_exact", None) is not None \
            or getattr(objective, "opponents", 1) != 0:
        return None
    return Fraction(before(StateArrays(board, rules, marks)), objective.scale(rules))


def advise_in_game(dice: Counts, state: GameState, objective: Objective, rerolls: int | None = None) -> Advice:
    """:func:`advise` for the active sheet of a game (``state``, e.g. :func:`seats.state_from_seats`),
    with a game-aware ``objective`` built from the same state (:func:`learned.objective.state_objective`):
    the advice records the table, and the end counts as triggered when any sheet triggers it (D17).

    Raises:
        as :func:`advise`.
    """
    result = ends_on_every_sheet(advise(dice, state.board, state.marks, state.rules, objective, rerolls), state)
    return replace(result, state=state, end_triggered=state.end_triggered)


def ends_on_every_sheet(advice: Advice, state: GameState) -> Advice:
    """``advice`` on the active sheet of ``state`` with each marking's ``ends_game`` seen on every
    sheet (D17 after the blocks of D15: :func:`sheet_rules.marking_ends_game`): a marking that
    closes an opponent's second shelf by blocking ends the game too. Once the end is triggered
    (D17) no choice triggers it: every ``ends_game`` is false (the last round is played out
    whatever is marked, D18; the sheet's own second closed shelf said "ends game" before)."""
    if state.end_triggered:
        return replace(advice, markings=tuple(replace(m, ends_game=False) for m in advice.markings),
                       failed=tuple(replace(f, ends_game=False) for f in advice.failed))
    if state.players < 2:
        return advice
    markings = tuple(replace(m, ends_game=marking_ends_game(state.board, state.rules, state.sheets, state.active,
                                                            m.marking.cells))
                     for m in advice.markings)
    return replace(advice, markings=markings)


def _objective_label(objective: Objective, board: Board) -> str:
    if isinstance(objective, CellTarget):
        return f"cell:{board.cell_name(objective.cell)}"
    return objective.name


def _ranks(values: Sequence[object]) -> list[int]:
    """Competition ranks (1, 1, 3, ...) of values (or of ranking keys) sorted best first; equal
    values share a rank."""
    ranks: list[int] = []
    for i, v in enumerate(values):
        ranks.append(ranks[-1] if i and v == values[i - 1] else i + 1)
    return ranks


def rank_holds(dice: Counts, board: Board, marks: Marks, rules: Ruleset, objective: Objective,
               rerolls: int) -> tuple[HoldOption, ...]:
    """Every distinct hold of ``dice`` with ``rerolls`` >= 1 left, best first.

    Each value is the one shown (:func:`shown_turn`): exact where every roll the hold can reach
    has an exact value (keeping every die: the best marking's, D7), else the engine's.
    Order: the engine's value (desc), then the value shown (desc; an exact value first among
    equal ones); exact ties by expected points this turn (desc), then failed-result chance
    (asc), then more dice kept. Equal values share a rank, but under a model's chance
    (``win_chance_exact`` False) only with equal expected points too, where not exact.
    """
    solution = solve_turn(board, marks, rules, objective, rerolls, points=True)
    shown = shown_turn(board, marks, rules, objective, solution)
    space = space_for(rules)
    table = solution.hold_values[rerolls]
    assert table is not None
    den_value = solution.denominator(rerolls, 0)
    den = solution.denominator(rerolls, 1)
    options = []
    for order, hold in enumerate(space.holds_of(dice)):
        row = table[space.hold_index[hold]]
        fail = Fraction(int(row[1]), den)
        at_least = (1 - fail,) + tuple(Fraction(int(x), den) for x in row[2:-1])
        points = Fraction(int(row[-1]), den)  # the carried points column (dp.final_values)
        integer = Fraction(int(row[0]), den_value)
        value, exact = shown.hold(hold, rerolls) if shown is not None else (integer, False)
        options.append((integer, value, exact, points, fail, order, hold, at_least))
    options.sort(key=lambda o: (-o[0], -o[1], not o[2], -o[3], o[4], o[5]))
    # a model's saturated chance is no tie when the expected points differ (as rank_markings)
    model = getattr(objective, "win_chance_exact", None) is False
    ranks = _ranks([(o[1], o[3] if model and not o[2] else None) for o in options])
    return tuple(HoldOption(o[6], o[1], o[4], o[7], r, o[3], True if o[2] else None) for o, r in zip(options, ranks))


def shown_turn(board: Board, marks: Marks, rules: Ruleset, objective: Objective,
               solution: TurnSolution) -> ShownTurn | None:
    """The values shown for every roll and hold of the turn ``solution`` solves (the engine's
    DP of ``objective`` on ``marks``; :mod:`engine.shown`), exact where the final rolls they
    reach are: each final roll is worth its best marking's value as :func:`rank_markings`
    shows it (the exact ``Fraction`` where :func:`exact_chances` has one: ``win``'s exact
    terminals, e.g. a three-way tie's ``1/3``, D20), or its failed result's (D13,
    :func:`failed_value`: exact where giving up the best shelf ends the game). The one home of
    the value the advice's holds (:func:`rank_holds`), ``play status`` and ``review`` show
    with re-rolls left. None where no final roll is exact apart from the engine's integers (an
    objective without exact terminals, or none on this sheet): then the engine's values stand."""
    if not callable(getattr(objective, "exact_values", None)):
        return None
    feasible = feasibility_arrays(board, rules)
    state = StateArrays(board, rules, marks)
    n_sets = len(feasible.sets.sizes)
    usable = np.flatnonzero(np.append(state.available, True)[feasible.sets.cells].all(axis=1))
    sets = feasible.sets.take(usable)
    chances = exact_chances(objective, state, sets) or [None] * len(usable)
    is_usable = np.zeros(n_sets + 1, dtype=bool)
    is_usable[usable] = True
    markable = np.logical_or.reduceat(is_usable[feasible.members], feasible.starts)
    failed = None if markable.all() else _failed_shown(board, marks, rules, objective, state)
    known = [c for c in chances if c is not None]
    if not known and not (failed is not None and failed[1]):
        return None
    scale = objective.scale(rules)
    unit = lcm(scale, *{c.denominator for c in known}, failed[0].denominator if failed is not None else 1)
    # every usable set in the order of rank_markings: worth, the value shown, points now, more items, set order
    worth = objective.values(state, sets).tolist()
    points = Points().values(state, sets).tolist()
    sizes = sets.sizes.tolist()
    numerators = [int(c * unit) if c is not None else int(w) * (unit // scale) for c, w in zip(chances, worth)]
    order = sorted(range(len(usable)), key=lambda i: (-worth[i], -numerators[i], -points[i], -sizes[i], i))
    rank = np.full(n_sets + 1, len(usable), dtype=np.int64)  # unusable sets and the sentinel rank last
    rank[usable[np.array(order, dtype=np.int64)]] = np.arange(len(usable))
    best = np.array(order + [0], dtype=np.int64)[np.minimum.reduceat(rank[feasible.members], feasible.starts)]
    level0 = np.array(numerators, dtype=object)[best] if len(usable) else np.zeros(len(best), dtype=object)
    exact0 = np.array([c is not None for c in chances] + [False], dtype=bool)[best]
    if failed is not None:  # a failed result (D13): the best shelf's value, exact where it is
        level0[~markable] = int(failed[0] * unit)
        exact0[~markable] = failed[1]
    if not exact0.any():  # no final roll's best choice is exact: the engine's values stand
        return None
    return shown_levels(solution, level0, exact0, unit)


def order_markings(state: StateArrays, sets: ItemSets, objective: Objective) -> np.ndarray:
    """``int64 (K,)``: positions of the item sets ``sets`` (listed by size, then cell order), best
    marking first: objective value (desc), then points now (desc, D19), then more items, then
    item order; a value the objective has exactly (``win``'s exact terminals:
    :func:`exact_chances`) is ranked by its exact ``Fraction`` among the values equal to it in the
    engine's integers (:func:`by_shown_value`). The order of :func:`rank_markings` and of the
    strategies."""
    worth = objective.values(state, sets)
    order = _integer_order(sets, Points().values(state, sets), worth)
    return by_shown_value(order, worth, lambda rows: shown_chances(objective, state, sets.take(rows), worth[rows]))


def _integer_order(sets: ItemSets, points: np.ndarray, worth: np.ndarray) -> np.ndarray:
    """``int64 (K,)``: positions of ``sets`` by ``worth`` (desc), then ``points`` now (desc, D19),
    then more items, then set order: the order of the engine's integers, before
    :func:`by_shown_value`."""
    order: np.ndarray = np.lexsort((np.arange(len(sets.sizes)), -sets.sizes, -points, -worth))
    return order


def exact_chances(objective: Objective, state: StateArrays, sets: ItemSets) -> list[Fraction | None] | None:
    """Per marking of ``sets``, its exact chance to win as a ``Fraction`` where ``objective``'s
    value of it is exact and kept in the engine's integers rounded (``WinObjective.exact_values``:
    e.g. a three-way tie's ``1/3``, D20), else ``None``; None for an objective without such
    values (every value of an exact objective, :mod:`win_chance`, is exact at its own scale)."""
    exact_of = getattr(objective, "exact_values", None)
    return exact_of(state, sets) if callable(exact_of) else None


def shown_chances(objective: Objective, state: StateArrays, sets: ItemSets,
                  worth: np.ndarray) -> list[Fraction] | None:
    """The value shown for each marking of ``sets`` whose value under ``objective`` is ``worth``
    (``(K,)``, over its scale): the exact chance where it has one (:func:`exact_chances`), else
    ``worth`` over the scale; None where no marking has an exact chance apart from its integer."""
    exact = exact_chances(objective, state, sets)
    if exact is None or all(chance is None for chance in exact):
        return None
    scale = objective.scale(state.rules)
    return [chance if chance is not None else Fraction(int(w), scale) for chance, w in zip(exact, worth.tolist())]


def by_shown_value(order: np.ndarray, worth: np.ndarray,
                   shown_of: Callable[[np.ndarray], list[Fraction] | None], top_only: bool = False) -> np.ndarray:
    """``order`` (positions best first by the integer ``worth``, then the tie-breaks) with each run
    of equal worth (only the first run with ``top_only``) re-ordered by the value shown, exact
    where it is (``shown_of``: the shown values of the positions given, :func:`shown_chances`),
    ties keeping ``order``. A worth rounded from an exact chance (half up) is monotone in it, so
    a higher integer is always a higher shown value and only runs of equal integers can move:
    the order is that of the shown values, then the tie-breaks, and a rounding never flips a
    tie-break (an exact ``1/3`` ranks above a model's ``333333/1000000`` that scores more now)."""
    w = worth[order]
    tied = np.zeros(len(order), dtype=bool)
    equal = w[1:] == w[:-1]
    tied[1:] |= equal
    tied[:-1] |= equal
    if top_only:
        tied &= w == w[0]
    if not tied.any():
        return order
    rows = order[tied]
    shown = shown_of(rows)
    if shown is None:
        return order
    value = dict(zip(rows.tolist(), shown))
    zero = Fraction(0)
    keyed = sorted(range(len(order)), key=lambda p: (-int(w[p]), -value.get(int(order[p]), zero)))
    out: np.ndarray = order[np.array(keyed, dtype=np.int64)]
    return out


def first_by_worth(board: Board, rules: Ruleset, marks: Marks, legal: LegalMarkings, worth: np.ndarray,
                   shown_of: Callable[[np.ndarray], list[Fraction] | None] | None = None) -> tuple[int, ...]:
    """The cells of the first legal marking in :func:`order_markings`' order from a compiled table
    ``worth`` (``int64 (K+1,)``, every item set's value under the turn's objective): the highest
    worth, ties broken by points now (D19, on ``marks``), then more items, then set order. The
    choice of the ``learned`` strategy and of the own table's value iteration alike (one rule).
    ``shown_of``: where the objective has exact chances apart from their integers (``win``), the
    shown values of legal positions (:func:`shown_chances`), by which a tie at the top is ordered
    first, as :func:`order_markings` (:func:`by_shown_value`)."""
    chosen = worth[legal.index]
    top = np.flatnonzero(chosen == chosen.max())
    if len(top) == 1:  # no tie on worth: the points-now tie rule is not needed
        return legal.cells(int(top[0]))
    sets = legal.sets
    order = _integer_order(sets, Points().values(StateArrays(board, rules, marks), sets), chosen)
    if shown_of is not None:
        order = by_shown_value(order, chosen, shown_of, top_only=True)
    return legal.cells(int(order[0]))


def rank_markings(dice: Counts, board: Board, marks: Marks, rules: Ruleset,
                  objective: Objective) -> tuple[MarkingOption, ...]:
    """Every legal marking of the final dice (D8-D12), best first (:func:`order_markings`);
    empty = failed result (D13). Each value is the objective's, the exact ``Fraction`` where it
    is exact (:func:`exact_chances`: ``win``'s exact terminals, not their millionths). Equal
    values share a rank, but a model's chance (not exact) only with equal points now too (a
    saturated estimate is no tie, docs/advise.md)."""
    index = legal_sets(dice, board, marks, rules)
    if not len(index):
        return ()
    found = legal_markings(dice, board, marks, rules)  # same sets, same order, with their groups
    sets = item_sets(board, rules.combinations_per_turn).take(index)
    state = StateArrays(board, rules, marks)
    worth = objective.values(state, sets)
    points = Points().values(state, sets)
    scale = objective.scale(rules)
    chances = exact_chances(objective, state, sets)  # the exact Fractions (win's exact terminals)
    shown = [chance if chance is not None else Fraction(int(w), scale)
             for chance, w in zip(chances or [None] * len(worth), worth.tolist())]
    order = by_shown_value(_integer_order(sets, points, worth), worth, lambda rows: [shown[i] for i in rows.tolist()])
    values = [shown[i] for i in order]
    exact_of = getattr(objective, "exact_markings", None)
    exact = np.array([chance is not None for chance in chances], dtype=bool) if chances is not None \
        else exact_of(state, sets) if callable(exact_of) else None
    # a model's chance (win_chance_exact False) that saturates (two markings the same estimate)
    # is no tie when their points now differ: ranked by the points, as ordered (docs/advise.md)
    model = getattr(objective, "win_chance_exact", None) is False
    keys = [(v, int(points[i]) if model and not (exact is not None and exact[i]) else None)
            for i, v in zip(order, values)]
    return tuple(_with_outcome(MarkingOption(found[i], v, int(points[i]), r,
                                             exact=bool(exact[i]) if exact is not None else None),
                               board, marks, rules)
                 for i, v, r in zip(order, values, _ranks(keys)))


def _with_outcome(option: MarkingOption, board: Board, marks: Marks, rules: Ruleset) -> MarkingOption:
    """The option with the score after it, the lines that then score (D19) and whether it
    triggers the end (D17)."""
    after = marks.with_marked(option.marking.cells)
    lines = tuple(i for i, line in enumerate(board.lines) if after.count_marked(line) >= rules.scoring_threshold)
    return replace(option, score_after=score(board, after, rules), scoring_lines=lines,
                   ends_game=_triggers_end(board, marks, after, rules))


def _triggers_end(board: Board, before: Marks, after: Marks, rules: Ruleset) -> bool:
    """Whether ``after`` has the closed shelves that trigger the end (D17) and ``before`` not."""
    return not triggers_end(board, before, rules) and triggers_end(board, after, rules)


def failed_options(board: Board, marks: Marks, rules: Ruleset) -> tuple[ShelfOption, ...]:
    """The shelves a failed result (D13) may give up, least costly first (strategic potential)."""
    state = StateArrays(board, rules, marks)
    scale = 2 * rules.scoring_threshold
    lost = failed_result_shelves(board, marks)
    options = []
    for shelf, change in shelf_losses(state):
        cells = lost[shelf]
        ends = _triggers_end(board, marks, marks.with_eliminated(list(cells)), rules)
        options.append(ShelfOption(shelf, cells, sum(board.value(c) for c in cells), Fraction(change, scale), ends))
    return tuple(options)
