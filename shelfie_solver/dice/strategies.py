"""Strategies for full games (docs/strategies.md): ``random``, ``greedy``, ``threshold``, ``solver``.

Each implements :class:`events.Strategy`: given the game state and the dice (and the re-rolls
left) choose a hold; given the final dice choose one of the legal markings, or on a failed
result (D13) a shelf. Decisions are verified legal by the game engine.

* ``random``    — a uniformly random hold among the roll's distinct holds (keeping all = stop),
  a uniformly random legal marking, a uniformly random shelf to give up.
* ``greedy``    — never re-rolls; marks the most points now (the ``points`` objective, D19),
  ties broken by more items, then item order; gives up the shelf with the fewest available points.
* ``threshold`` — simple rules from the rulebook's tips (RULES.md strategy notes), no DP.
* ``solver``    — the exact optimal policy of the default ``strategic`` objective, solved once
  per turn with :func:`dp.solve_turn`; markings as :func:`advice.rank_markings`, shelves as
  :func:`advice.failed_options`.
* ``win-ply``   — experimental, two players: ``win``'s holds, its top 3 markings re-ranked one ply
  deeper (:class:`WinPlyStrategy`; measured to play worse than ``win``, docs/win-chance.md).
* ``exact2:FILE`` — optimal two-player play (each decision the highest chance to win, D20) from a
  table of ``solve-game --players 2 --save FILE`` (:mod:`wholegame.two_player_table`).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import TYPE_CHECKING, Any

import numpy as np

from shelfie_solver.dice.advise.advice import (
    exact_chances,
    exact_shelf_chances,
    failed_options,
    first_by_worth,
    order_markings,
    shown_chances,
)
from shelfie_solver.dice.allocate import find_groups
from shelfie_solver.dice.engine.batched import solve_finals
from shelfie_solver.dice.board import Board, Marks
from shelfie_solver.dice.rolls import Counts, space_for
from shelfie_solver.dice.engine.dp import TurnPlan, TurnSolution, final_values, plan_turn, solve_turn
from shelfie_solver.core.errors import ShelfieError
from shelfie_solver.dice.game.events import MAX_PLAYERS, PLAYER_COUNTS, GameState, LegalMarkings, Strategy, legal_sets
from shelfie_solver.dice.engine.kernel import cell_lines as _cell_lines  # noqa: F401 (re-exported: tests read it here)
from shelfie_solver.dice.engine.kernel import compiled_best_marking, compiled_strategic, int64_cap, kernel_function, turn_arrays
from shelfie_solver.dice.engine.kernel import TurnArrays
from shelfie_solver.dice.joker import is_all_jokers
from shelfie_solver.dice.learned.kernel import kernel_function as learned_kernel_function
from shelfie_solver.dice.learned.kernel import learned_deltas
from shelfie_solver.dice.learned.model_file import LearnedModel, default_model, model_named
from shelfie_solver.dice.learned.objective import Learned, state_objective
from shelfie_solver.dice.objectives import Objective, Points, StateArrays, Strategic
from shelfie_solver.dice.rules import Ruleset
from shelfie_solver.dice.win_chance import BeforeLastWin, LastTurnWin, exact_objective

if TYPE_CHECKING:
    from shelfie_solver.dice.learned.win_model import WinModel
    from shelfie_solver.dice.wholegame.two_player_table import TwoPlayerStrategy


class StrategyError(ShelfieError):
    """An unknown strategy name."""


def marking_order(state: GameState, legal: LegalMarkings, objective: Objective) -> np.ndarray:
    """Positions of the legal markings, best first (:func:`advice.order_markings`, the order of
    :func:`advice.rank_markings`). ``legal`` must be non-empty. Returns ``int64 (K,)``."""
    return order_markings(StateArrays(state.board, state.rules, state.marks), legal.sets, objective)


def available_points(board: Board, marks: Marks, shelf: int) -> int:
    """Points of a shelf's available items (what a failed result on it eliminates, D13)."""
    return sum(board.value(c) for c in board.lines[shelf] if marks.is_available(c))


class RandomStrategy:
    """Random legal play: each decision uniformly at random from the seat's generator."""

    name = "random"

    def choose_hold(self, state: GameState, dice: Counts, rerolls_left: int, rng: np.random.Generator) -> Counts:
        holds = space_for(state.rules).holds_of(dice)
        return holds[int(rng.integers(len(holds)))]

    def choose_marking(self, state: GameState, dice: Counts, legal: LegalMarkings,
                       rng: np.random.Generator) -> tuple[int, ...]:
        return legal.cells(int(rng.integers(len(legal))))

    def choose_shelf(self, state: GameState, dice: Counts, shelves: tuple[int, ...],
                     rng: np.random.Generator) -> int:
        return shelves[int(rng.integers(len(shelves)))]


class GreedyStrategy:
    """No re-roll thought through: stop at once, mark the most points now (``points``
    objective), ties by more items then item order; on a failed result give up the shelf with
    the fewest available points (ties: the upper shelf)."""

    name = "greedy"

    def choose_hold(self, state: GameState, dice: Counts, rerolls_left: int, rng: np.random.Generator) -> Counts:
        return dice

    def choose_marking(self, state: GameState, dice: Counts, legal: LegalMarkings,
                       rng: np.random.Generator) -> tuple[int, ...]:
        return legal.cells(int(marking_order(state, legal, Points())[0]))

    def choose_shelf(self, state: GameState, dice: Counts, shelves: tuple[int, ...],
                     rng: np.random.Generator) -> int:
        return min(shelves, key=lambda s: (available_points(state.board, state.marks, s), s))


class ThresholdStrategy:
    """The rulebook's tips as simple rules (RULES.md strategy notes; no dynamic programming).

    Marking score (integers): ``3 * points now`` (doubled near the end: secure the 3rd mark on
    valuable lines) ``+ sum over live lines of the marked items' points * (1 + marks already on
    the line)`` — items on lines that can still reach the threshold (D19), and most on lines
    already started (concentrate on few lines).

    Holds: stop when the best marking scores points now or marks the most items a turn allows;
    otherwise keep the dice of the best marking (a markable combination before gambling), all
    dice of the most promising face and one Joker, and re-roll the rest.

    Failed result: give up the shelf whose available items weigh least, each item's points
    times (2 + marks on its live shelf and column).
    """

    name = "threshold"

    def scores(self, state: GameState, legal: LegalMarkings) -> np.ndarray:
        """``int64 (K,)``: the marking score of each legal marking (class docstring)."""
        arrays = StateArrays(state.board, state.rules, state.marks)
        m, a, _, _ = arrays.line_totals
        t = state.rules.scoring_threshold
        live = m + a >= t
        weight = np.where(live, 1 + np.minimum(m, t), 0)
        focus = (legal.sets.line_points * weight[None, :]).sum(axis=1)
        now = Points().values(arrays, legal.sets)
        score: np.ndarray = 3 * self._urgency(state) * now + focus
        return score

    @staticmethod
    def _urgency(state: GameState) -> int:
        """2 when the end is near (some sheet one closed shelf short of the trigger, D17), else 1."""
        near = state.end_triggered or any(m.closed_shelves() >= state.trigger_shelves - 1 for m in state.sheets)
        return 2 if near else 1

    def _best(self, state: GameState, legal: LegalMarkings) -> int:
        scores = self.scores(state, legal)
        return int(np.lexsort((np.arange(len(legal)), -legal.sets.sizes, -scores))[0])

    def choose_hold(self, state: GameState, dice: Counts, rerolls_left: int, rng: np.random.Generator) -> Counts:
        board, rules, marks = state.board, state.rules, state.marks
        if is_all_jokers(dice, rules):
            return dice  # D12: any one item; nothing better can come of a re-roll
        legal = legal_sets(dice, board, marks, rules)
        secure = [0] * rules.n_sides
        if len(legal):
            best = self._best(state, legal)
            cells = legal.cells(best)
            arrays = StateArrays(board, rules, marks)
            if Points().values(arrays, legal.sets.take(np.array([best])))[0] > 0 \
                    or len(cells) >= rules.combinations_per_turn:
                return dice
            for group in find_groups(dice, cells, board, rules) or ():
                secure[group.face] += group.matching
                if rules.joker_index is not None:
                    secure[rules.joker_index] += group.jokers
        keep = list(secure)
        face = self._target_face(state, dice)
        if face is not None:
            keep[face] = max(keep[face], dice[face])
        joker = rules.joker_index
        if joker is not None:
            keep[joker] = max(keep[joker], min(dice[joker], max(1, rules.jokers_per_group)))
        return tuple(keep)

    @staticmethod
    def _target_face(state: GameState, dice: Counts) -> int | None:
        """The face to collect: most dice showing it, then the most marks on a live shelf it
        serves; only faces with an available item on one of their shelves."""
        board, marks, t = state.board, state.marks, state.rules.scoring_threshold
        best: tuple[int, int, int] | None = None
        for face in range(state.rules.n_faces):
            progress = -1
            for shelf, faces in enumerate(board.shelf_faces):
                cells = board.lines[shelf]
                free = sum(marks.is_available(c) for c in cells)
                if face in faces and free:
                    done = marks.count_marked(cells)
                    progress = max(progress, done if done + free >= t else 0)
            if progress >= 0 and dice[face] > 0:
                key = (dice[face], progress, -face)
                best = key if best is None or key > best else best
        return -best[2] if best is not None else None

    def choose_marking(self, state: GameState, dice: Counts, legal: LegalMarkings,
                       rng: np.random.Generator) -> tuple[int, ...]:
        return legal.cells(self._best(state, legal))

    def choose_shelf(self, state: GameState, dice: Counts, shelves: tuple[int, ...],
                     rng: np.random.Generator) -> int:
        board, marks, t = state.board, state.marks, state.rules.scoring_threshold

        def progress(line: int) -> int:
            cells = board.lines[line]
            done = marks.count_marked(cells)
            free = sum(marks.is_available(c) for c in cells)
            return done if done + free >= t else 0

        def loss(shelf: int) -> int:
            return sum(board.value(c) * (2 + progress(shelf) + progress(board.n_shelves + board.column_of(c)))
                       for c in board.lines[shelf] if marks.is_available(c))

        return min(shelves, key=lambda s: (loss(s), s))


class SolverStrategy:
    """Optimal play for the default ``strategic`` objective (docs/objectives.md).

    Once per turn (per board state) the policy of :func:`dp.solve_turn` is found: with numba
    installed by the compiled kernel (:mod:`kernel`; ``kernel="numpy"`` turns it off), else by
    :func:`dp.plan_turn` (the top level only for the rolls seen); the holds are the same
    either way. Plans are cached per process (least recently used, ``cache_size`` states) so
    states that recur across games — the empty sheet above all — are solved once.
    """

    name = "solver"

    def __init__(self, cache_size: int = 4096, kernel: str = "auto"):
        self.cache_size = cache_size
        self.kernel = kernel  # "auto": the compiled kernel when numba is installed; "numpy": never
        self._policies: OrderedDict[tuple[Board, Ruleset, int, int], tuple[np.ndarray | None, ...]] = OrderedDict()
        self._plans: OrderedDict[tuple[Board, Ruleset, int, int], TurnPlan] = OrderedDict()
        self.solved = 0
        self.hits = 0

    def _cached(self, store: OrderedDict[Any, Any], key: Any, make: Callable[[], Any]) -> Any:
        """``store[key]``, made by ``make()`` when missing (least recently used out first)."""
        found = store.get(key)
        if found is not None:
            store.move_to_end(key)
            self.hits += 1
            return found
        found = store[key] = make()
        self.solved += 1
        if len(store) > self.cache_size:
            store.popitem(last=False)
        return found

    def policy(self, board: Board, marks: Marks, rules: Ruleset) -> tuple[np.ndarray | None, ...]:
        """``policy[r]`` (r >= 1): ``(R,)`` hold index of every roll with ``r`` re-rolls left."""
        def make() -> tuple[np.ndarray | None, ...]:
            solution = solve_turn(board, marks, rules, Strategic())
            return tuple(None if p is None else p.astype(np.int32) for p in solution.policy)

        found: tuple[np.ndarray | None, ...] = self._cached(self._policies, (board, rules, marks.marked,
                                                                             marks.eliminated), make)
        return found

    def plan(self, board: Board, marks: Marks, rules: Ruleset, roll: int = -1) -> TurnPlan:
        """The turn's optimal holds (:func:`dp.plan_turn`: :meth:`policy`'s choices, the top
        level decided per roll on demand, roll index ``roll`` at once when given), cached like
        :meth:`policy`."""
        def make() -> TurnPlan:
            compiled = _compiled_plan(board, marks, rules, roll) if self.kernel != "numpy" else None
            return compiled or plan_turn(board, marks, rules, Strategic())

        found: TurnPlan = self._cached(self._plans, (board, rules, marks.marked, marks.eliminated), make)
        return found

    def choose_hold(self, state: GameState, dice: Counts, rerolls_left: int, rng: np.random.Generator) -> Counts:
        space = space_for(state.rules)
        roll = space.roll_index[dice]
        plan = self.plan(state.board, state.marks, state.rules, roll if rerolls_left == state.rules.rerolls else -1)
        return space.holds[plan.hold(rerolls_left, roll)]

    def choose_marking(self, state: GameState, dice: Counts, legal: LegalMarkings,
                       rng: np.random.Generator) -> tuple[int, ...]:
        plan = self._plans.get((state.board, state.rules, state.marks.marked, state.marks.eliminated))
        if isinstance(plan, _CompiledPlan) and plan.worth is not None and plan.marks is not None:
            # the turn's compiled final table already holds every item set's strategic worth
            # (kernel._strategic == objectives.Strategic): the first of advice.order_markings
            return first_by_worth(state.board, state.rules, plan.marks, legal, plan.worth)
        return legal.cells(int(marking_order(state, legal, Strategic())[0]))

    def choose_shelf(self, state: GameState, dice: Counts, shelves: tuple[int, ...],
                     rng: np.random.Generator) -> int:
        return failed_options(state.board, state.marks, state.rules)[0].shelf


class LearnedStrategy:
    """Optimal play, turn by turn, for the game-aware ``learned`` objective (:mod:`learned.objective`,
    docs/train.md): each turn the objective is built from the whole table
    (:func:`learned.objective.state_objective`) and :func:`dp.solve_turn` gives the holds; markings are
    ranked by it and a failed result gives up its best shelf (D13). With numba installed the
    objective, the final values and the DP run in the compiled kernels (:mod:`kernel`,
    docs/performance.md); the same integers, so the same games.

    Args:
        model: the parameters (default: the shipped ones, data/learned.json).
        kernel: ``"auto"`` (compiled when numba is installed) or ``"numpy"`` (never).
        exact_alone: alone on a board within the exact budget, play the exact optimum
            (:meth:`exact`, docs/solve-game.md "Exact where it fits"); ``False`` plays the
            fitted weights everywhere (what the fit's benchmarks measure).
    """

    name = "learned"

    #: Turns kept per process (least recently used out first), keyed by the whole table
    #: (:class:`events.GameState`): a turn's objective and policy depend on nothing else.
    cache_size = 1024

    def __init__(self, model: LearnedModel | None = None, kernel: str = "auto", exact_alone: bool = True):
        self.model = model
        self.kernel = kernel  # "auto": the compiled kernels when numba is installed; "numpy": never
        self.exact_alone = exact_alone
        self._alone: tuple[Board, Ruleset, Strategy | None] | None = None
        self._turns: OrderedDict[GameState, tuple[Any, ...]] = OrderedDict()
        # (state, objective (None: not built yet, _compiled_values), policy, every item set's worth
        # or None, the shelves' values or None)
        self._turn: tuple[Any, ...] | None = None

    def objective(self, state: GameState) -> Learned:
        """The objective of a turn that :mod:`win_chance` does not value exactly (alone with the
        shipped parameters and ``exact_alone``, on a board that gets its own table, that table:
        :func:`learned.own_cache.own_model`)."""
        model = self.model
        if model is None and self.exact_alone and state.players == 1:
            from shelfie_solver.dice.learned.own_cache import own_model

            model = own_model(state.board, state.rules)
        return state_objective(state, model or default_model(), self.kernel != "numpy")

    def turn(self, state: GameState) -> tuple[Learned | LastTurnWin | BeforeLastWin, tuple[Any, ...]]:
        """The objective and policy of this turn (computed once per state; ``policy[r][roll]`` the
        hold index with ``r`` re-rolls left, r >= 1): the exact chance to
        win on the last turns (:func:`win_chance.exact_objective`, D18, D20), else
        :meth:`objective`; the policy of :func:`dp.solve_turn`, from the compiled kernel when
        numba is installed (:func:`_compiled_learned_turn`: the same holds)."""
        entry = self._entry(state)
        if entry[1] is None:  # its compiled values came without the objective (:meth:`_compiled_values`)
            self._turn = (state, self.objective(state), *entry[2:])
            self._turns[state] = self._turn[1:]
        assert self._turn is not None and self._turn[1] is not None
        return self._turn[1], self._turn[2]

    def _compiled_values(self, state: GameState) -> tuple[np.ndarray, np.ndarray, list[tuple[int, int]]] | None:
        """A turn's every item set's worth, usable sets and shelf values straight from the table,
        without building :meth:`objective` (``None``: build it); none here (:class:`WinStrategy`)."""
        return None

    def _entry(self, state: GameState) -> tuple[Any, ...]:
        """This turn's ``(state, objective or None, policy, worth or None, shelf values or None)``
        (:meth:`turn`; the objective ``None`` where :meth:`_compiled_values` gave the rest)."""
        if self._turn is None or self._turn[0] is not state:
            known = self._turns.get(state)
            if known is not None:  # the same table seen in an earlier game (the first turns above all)
                self._turns.move_to_end(state)
                self._turn = (state, *known)
                return self._turn
            exact = exact_objective(state)  # the last turns: the exact chance to win (D18, D20)
            fast = self.kernel != "numpy"
            quick = None if not fast else self._compiled_values(state) if exact is None \
                else _compiled_exact_values(state, exact)
            if quick is not None:
                self._turn = (state, None, *_win_turn_policy(state, *quick))
            else:
                self._turn = self._solved(state, exact, fast)
            self._turns[state] = self._turn[1:]
            if len(self._turns) > self.cache_size:
                self._turns.popitem(last=False)
        return self._turn

    def _solved(self, state: GameState, exact: LastTurnWin | BeforeLastWin | None, fast: bool) -> tuple[Any, ...]:
        """:meth:`_entry` of a turn from its objective (``exact``, else :meth:`objective`)."""
        objective: Learned | LastTurnWin | BeforeLastWin = self.objective(state) if exact is None else exact
        # the compiled kernels compute Learned's own values (not a subclass's, e.g. win's)
        compiled = _compiled_learned_turn(state, objective) if fast and type(objective) is Learned else None
        win = _compiled_win_turn(state, objective) \
            if fast and compiled is None and hasattr(objective, "compiled_turn_values") else None
        if win is not None:
            return (state, objective, win[0], win[1], win[2])
        if compiled is None:
            if not fast or compiled_best_marking() is None:
                solution = solve_turn(state.board, state.marks, state.rules, objective)
            else:  # the same policy (batched.solve_finals: equal results, exact limbs beyond int64)
                final = final_values(state.board, state.marks, state.rules, objective)
                solution = solve_finals(space_for(state.rules), final.columns[:, None, :], state.rules.rerolls,
                                        final.scale, kernel="numba").state(0)
            policy = tuple(None if p is None else p.astype(np.int32) for p in solution.policy)
            return (state, objective, policy, None, None)
        return (state, objective, compiled[0], compiled[1], None)

    def exact(self, state: GameState) -> Strategy | None:
        """Alone (one player), with the shipped parameters (not ``learned:FILE``) and
        ``exact_alone``, on a board whose solitaire game fits the exact budget: the optimal
        strategy over its cached value table (:func:`wholegame.exact_cache.exact_strategy`,
        solved on first use), which every decision then follows; else ``None``."""
        if state.players != 1 or self.model is not None or not self.exact_alone:
            return None
        known = self._alone
        if known is None or known[0] is not state.board or known[1] is not state.rules:
            from shelfie_solver.dice.wholegame.exact_cache import exact_strategy

            known = self._alone = (state.board, state.rules, exact_strategy(state.board, state.rules, self.name))
        return known[2]

    def choose_hold(self, state: GameState, dice: Counts, rerolls_left: int, rng: np.random.Generator) -> Counts:
        exact = self.exact(state)
        if exact is not None:
            return exact.choose_hold(state, dice, rerolls_left, rng)
        space = space_for(state.rules)
        table = self._entry(state)[2][rerolls_left]
        assert table is not None
        return space.holds[int(table[space.roll_index[dice]])]

    def choose_marking(self, state: GameState, dice: Counts, legal: LegalMarkings,
                       rng: np.random.Generator) -> tuple[int, ...]:
        exact = self.exact(state)
        if exact is not None:
            return exact.choose_marking(state, dice, legal, rng)
        worth = self._entry(state)[3]
        if worth is None:
            return legal.cells(int(marking_order(state, legal, self.turn(state)[0])[0]))
        # the turn's compiled worth of every item set: the first of advice.order_markings
        return first_by_worth(state.board, state.rules, state.marks, legal, worth, self._shown_of(state, legal, worth))

    def _shown_of(self, state: GameState, legal: LegalMarkings,
                  worth: np.ndarray) -> Callable[[np.ndarray], list[Fraction] | None] | None:
        """For :func:`advice.first_by_worth`: the values shown of legal positions where the turn's
        objective keeps exact chances apart from its integers (:class:`WinStrategy`); none here
        (``learned``'s values are the engine's own)."""
        return None

    def choose_shelf(self, state: GameState, dice: Counts, shelves: tuple[int, ...],
                     rng: np.random.Generator) -> int:
        exact = self.exact(state)
        if exact is not None:
            return exact.choose_shelf(state, dice, shelves, rng)
        found = self._entry(state)[4]
        if found is not None:  # the turn's compiled shelf values (win)
            return int(found[0][0])
        objective = self.turn(state)[0]
        arrays = StateArrays(state.board, state.rules, state.marks)
        found = objective.compiled_shelf_values(arrays) \
            if self.kernel != "numpy" and type(objective) is Learned else None
        return (objective.shelf_values(arrays) if found is None else found)[0][0]


def _compiled_learned_turn(state: GameState, objective: Learned) -> tuple[tuple[Any, ...], np.ndarray] | None:
    """The policy of :func:`dp.solve_turn` for the ``learned`` objective and every item set's
    worth in this state (``int64 (K+1,)``, 0 where unusable), by one compiled call
    (:func:`learned.kernel._learned_turn`, numba): the worth of the item sets and of the failed result
    (D13), the final values' columns 0-1 (the later, carried columns never move the policy) and
    the DP levels below the top; the top level's hold per roll when asked (:class:`_TopHolds`,
    as :func:`dp.plan_turn`). Beyond int64, the DP of :func:`batched.solve_finals` (exact limbs).
    ``None`` without numba or on a board of more than 62 items."""
    board, rules = state.board, state.rules
    turn = learned_kernel_function("_learned_turn")
    if turn is None or board.n_cells > 62:
        return None
    tables = turn_arrays(board, rules)
    space = space_for(rules)
    n = rules.rerolls
    marks = state.marks
    worth, _, values, policy, ok = turn(
        *learned_deltas(board, rules), tables.set_masks, marks.marked, marks.eliminated,
        *objective.kernel_inputs(StateArrays(board, rules, marks)), tables.sizes, tables.set_starts, tables.set_rolls,
        tables.extend, tables.power, tables.order, tables.shrink, space.denominator, n, int64_cap(space.denominator, n))
    return _turn_policy(tables, values, policy, ok, rules), worth


def _compiled_win_turn(state: GameState, objective: Any) -> tuple[tuple[Any, ...], np.ndarray,
                                                                  list[tuple[int, int]]] | None:
    """:func:`_compiled_learned_turn` for the objective ``win`` (:class:`win_model.WinObjective`):
    every item set's worth and the shelves' values (D13) of
    :meth:`WinObjective.compiled_turn_values`, then the DP by one compiled call
    (:func:`engine.kernel._turn_levels`). Returns ``(policy, worth, shelf values)``; ``None``
    where that method gives none (the numpy path then)."""
    found = objective.compiled_turn_values(StateArrays(state.board, state.rules, state.marks))
    return None if found is None else _win_turn_policy(state, *found)


def _compiled_exact_values(state: GameState, objective: LastTurnWin | BeforeLastWin) -> tuple[
        np.ndarray, np.ndarray, list[tuple[int, int]]] | None:
    """The exact objective's (:mod:`win_chance`, the last turns: D17, D18, D20) every item set's
    worth, the usable sets and the shelf values (D13), as :func:`dp.final_values` takes them:
    each usable set's points (D19) and the opponents' sheets after its blocks (D15) by one
    compiled call (:func:`engine.kernel.markings_end`), then the objective's ``values_after``
    (the same integers as its ``values``). ``None`` without numba or on a board of more than
    62 items."""
    from shelfie_solver.dice.board import score
    from shelfie_solver.dice.engine.kernel import markings_end

    board, rules, marks = state.board, state.rules, state.marks
    tables = turn_arrays(board, rules)
    if board.n_cells > 62 or len(tables.set_masks) != len(tables.sizes):
        return None
    usable = np.ones(len(tables.sizes) + 1, dtype=bool)  # the last row: the sheet as it is
    usable[:-1] = (tables.set_masks & (marks.marked | marks.eliminated)) == 0  # D4
    index = np.flatnonzero(usable[:-1])
    arrays = StateArrays(board, rules, marks)
    m, _, mp, _ = arrays.line_totals
    found = markings_end(board, rules, state.sheets, state.active, index, m, mp)
    if found is None:
        return None
    _, gains, blocked = found
    worth = np.zeros(len(usable), dtype=np.int64)
    worth[index] = objective.values_after(arrays, gains + score(board, marks, rules), blocked)
    return worth, usable, objective.shelf_values(arrays)


def _win_turn_policy(state: GameState, worth: np.ndarray, usable: np.ndarray,
                     shelves: list[tuple[int, int]]) -> tuple[tuple[Any, ...], np.ndarray, list[tuple[int, int]]]:
    """:func:`_compiled_win_turn` from the turn's worth of every item set, the usable ones and the
    shelf values (D13): the DP by one compiled call (:func:`engine.kernel._turn_levels`)."""
    board, rules = state.board, state.rules
    failed = max((value for _, value in shelves), default=0)  # WinObjective.failed_value
    values, policy, ok = kernel_function("_turn_levels")(worth, usable, failed, *_turn_level_tables(board, rules))
    return _turn_policy(turn_arrays(board, rules), values, policy, ok, rules), worth, shelves


@cache
def _turn_level_tables(board: Board, rules: Ruleset) -> tuple[Any, ...]:
    """The arguments of :func:`engine.kernel._turn_levels` after the turn's values, from the board
    and rules alone: the item sets' sizes and feasible rolls, the holds' one-die steps, the dice
    space's denominator, the re-rolls (D7) and the int64 cap (:func:`int64_cap`)."""
    tables = turn_arrays(board, rules)
    space = space_for(rules)
    n = rules.rerolls
    return (tables.sizes, tables.set_starts, tables.set_rolls, tables.extend, tables.power, tables.order,
            tables.shrink, space.denominator, n, int64_cap(space.denominator, n))


def _turn_policy(tables: TurnArrays, values: np.ndarray, policy: np.ndarray, ok: bool,
                 rules: Ruleset) -> tuple[Any, ...]:
    """The policy of a turn solved by :func:`engine.kernel._turn_levels` (``values (rerolls, R,
    2)``, ``policy``): its levels, the top one decided per roll when asked (:class:`_TopHolds`,
    as :func:`dp.plan_turn`); with no re-rolls or beyond int64 (``ok`` False), the DP of
    :func:`batched.solve_finals` on the final values (exact limbs)."""
    space = space_for(rules)
    n = rules.rerolls
    if n == 0 or not ok:  # no holds, or wide: solved whole
        solution = solve_finals(space, values[0][:, None, :], n, kernel="numba").state(0)
        return tuple(None if p is None else p.astype(np.int32) for p in solution.policy)
    top = _TopHolds(tables, values[n - 1], values[0], space.denominator ** n)
    return (None, *(policy[r].astype(np.int32) for r in range(1, n)), top)


class _TopHolds:
    """The top level of a turn's policy (the first roll, every re-roll left), decided per roll
    when first asked, as :func:`dp.solve` would (:func:`kernel._top_hold`: the same tie rule):
    ``holds[roll]`` is the hold index of roll index ``roll``."""

    def __init__(self, tables: TurnArrays, below: np.ndarray, level0: np.ndarray, factor: int):
        self.tables, self.below, self.level0, self.factor = tables, below, level0, factor
        self._found: dict[int, int] = {}

    def __getitem__(self, roll: int) -> int:
        found = self._found.get(roll)
        if found is None:
            t = self.tables
            found = self._found[roll] = int(kernel_function("_top_hold")(
                t.starts, t.columns, t.weights, t.pair_hold, t.pair_starts, self.below, self.level0, self.factor,
                int(roll)))
        return found


def _compiled_plan(board: Board, marks: Marks, rules: Ruleset, roll: int = -1) -> TurnPlan | None:
    """:func:`dp.plan_turn`'s holds from the compiled kernel (:mod:`kernel`, numba), or
    ``None`` without numba or when the values outgrow int64 (the same holds either way).

    One compiled call (:func:`kernel._solver_turn`): the state's line totals, every item set's
    ``strategic`` worth, columns 0-1 of :func:`dp.final_values` (the later, carried columns
    never move the policy), the levels below the top and the top level's hold of roll index
    ``roll`` (the turn's first roll; others are decided when asked, :class:`_CompiledPlan`)."""
    turn = kernel_function("_solver_turn")
    if turn is None or board.n_cells > 62:  # (boards hold at most 49 items: the masks always fit)
        return None
    space = space_for(rules)
    tables = turn_arrays(board, rules)
    if rules.rerolls == 0:
        state = StateArrays(board, rules, marks)
        m, a, mp, ap = state.line_totals
        worth, usable, failed = compiled_strategic()(tables.cells, state.available, m, a, mp, ap,
                                                     rules.scoring_threshold, tables.lines, tables.values,
                                                     board.n_shelves)
        columns = compiled_best_marking()(worth, usable, tables.sizes, tables.set_starts, tables.set_rolls,
                                          tables.n_rolls, failed, 1)
        return TurnPlan(solve_finals(space, columns[:, None, :], 0, kernel="numba").state(0), 1, {})
    worth, values, policy, top, ok = turn(
        marks.marked, marks.eliminated, tables.cells, tables.set_lines, tables.set_counts, tables.set_points,
        tables.set_masks, rules.scoring_threshold, tables.lines, tables.values, board.n_shelves, tables.n_lines,
        tables.sizes, tables.set_starts, tables.set_rolls, tables.extend, tables.power, tables.order, tables.shrink,
        tables.starts, tables.columns, tables.weights, tables.pair_hold, tables.pair_starts, space.denominator,
        rules.rerolls, int64_cap(space.denominator, rules.rerolls), roll)
    if not ok:
        return None
    n = rules.rerolls
    below = TurnSolution(space, Strategic().scale(rules), list(values), [None] * n, [None] + list(policy[1:]))
    return _CompiledPlan(below, n, {} if top < 0 else {roll: int(top)}, worth, marks, tables)


@dataclass(frozen=True, eq=False)
class _CompiledPlan(TurnPlan):
    """:class:`dp.TurnPlan` whose top-level holds come from the compiled kernel; ``worth``
    ``int64 (K+1,)`` is every item set's ``strategic`` worth in this state (``kernel._strategic``,
    read by the marking choice), ``marks`` the state, ``tables`` the kernel's arrays."""

    worth: np.ndarray | None = None
    marks: Marks | None = None
    tables: TurnArrays | None = None

    def hold(self, rerolls_left: int, roll: int) -> int:
        if rerolls_left < self.rerolls or self.tables is None:
            return super().hold(rerolls_left, roll)
        found = self._top.get(roll)
        if found is None:
            t = self.tables
            found = self._top[roll] = int(kernel_function("_top_hold")(
                t.starts, t.columns, t.weights, t.pair_hold, t.pair_starts, self.below.values[-1],
                self.below.values[0], self.below.space.denominator ** self.rerolls, roll))
        return found


class WinStrategy(LearnedStrategy):
    """Optimal play, turn by turn, for the chance to win: the objective ``win`` (the calibrated
    model, :mod:`learned.win_model`) and, on the last turns, the exact chance
    (:mod:`win_chance`); otherwise as :class:`LearnedStrategy`. In a two-player game on a board
    whose two-player game fits the exact budget, the exact two-player optimum
    (:meth:`exact`).

    Args:
        win_model: the win model's coefficients (:class:`win_model.WinModel`; default: the
            shipped data/win.json), e.g. the model of one iteration of its fit on its own play
            (:func:`learned.win_fit.self_play_positions`, docs/win-chance.md "Fitted on its own play");
            given, it is played in two-player games too, never the exact table (:meth:`exact`).
        model, kernel, exact_alone: as :class:`LearnedStrategy`.
    """

    name = "win"
    #: Whether it plays by the model with every number of players (``win-model``), not only
    #: with :data:`win_model.MODEL_PLAYERS`.
    every_count = False

    def __init__(self, model: LearnedModel | None = None, kernel: str = "auto", exact_alone: bool = True,
                 win_model: WinModel | None = None):
        super().__init__(model, kernel, exact_alone)
        self.win_model = win_model
        self._pair: tuple[Board, Ruleset, TwoPlayerStrategy | None] | None = None

    def exact(self, state: GameState) -> Strategy | None:
        """Two players, the shipped parameters, no explicit ``win_model`` and ``exact_alone``, on a
        board whose two-player game fits its budget: the play of the cached two-player table
        (:func:`wholegame.exact2_cache.exact2_strategy`, solved on first use: the choices of
        ``exact2:FILE``), which every decision then follows where the table holds the position
        (a position no game from empty sheets reaches stays on the model); alone, as
        :meth:`LearnedStrategy.exact`; else ``None``. A given ``win_model`` (e.g. ``train
        --self-play win --play-model FILE``) is always played, docs/win-chance.md "Fitted on its
        own play"."""
        if state.players != 2 or self.model is not None or self.win_model is not None or not self.exact_alone:
            return super().exact(state)
        known = self._pair
        if known is None or known[0] is not state.board or known[1] is not state.rules:
            from shelfie_solver.dice.wholegame.exact2_cache import exact2_strategy

            known = self._pair = (state.board, state.rules, exact2_strategy(state.board, state.rules))
        table = known[2]
        return table if table is not None and table.holds(state) else None

    def _compiled_values(self, state: GameState) -> tuple[np.ndarray, np.ndarray, list[tuple[int, int]]] | None:
        """Where :meth:`objective` is the model's (2-4 players, :data:`win_model.MODEL_PLAYERS`),
        its compiled values straight from the table (:func:`win_model.compiled_win_values`: the
        same integers as :meth:`WinObjective.compiled_turn_values`)."""
        from shelfie_solver.dice.learned.win_model import MODEL_PLAYERS, compiled_win_values

        if state.players < 2 or not (self.every_count or state.players in MODEL_PLAYERS):
            return None
        return compiled_win_values(state, self.win_model, self.model)

    def _shown_of(self, state: GameState, legal: LegalMarkings,
                  worth: np.ndarray) -> Callable[[np.ndarray], list[Fraction] | None] | None:
        """The values the advice shows for the legal positions given (:func:`advice.shown_chances`:
        ``win``'s exact chances, e.g. ``1/3`` for a three-way tie, D20, else the model's
        millionths), so that a tie at the top in the integers of ``worth`` is broken as the advice
        ranks it (:func:`advice.by_shown_value`). Read only at such a tie, and only on a turn of the
        model (:func:`win_chance.exact_objective` gives none: an exact objective's values are
        exact at their own scale)."""
        def shown(rows: np.ndarray) -> list[Fraction] | None:
            if exact_objective(state) is not None:
                return None
            arrays = StateArrays(state.board, state.rules, state.marks)
            return shown_chances(self.turn(state)[0], arrays, legal.sets.take(rows), worth[legal.index[rows]])

        return shown

    def objective(self, state: GameState) -> Learned:
        from shelfie_solver.dice.learned.win_model import MODEL_PLAYERS, win_objective

        if state.players < 2 or not (self.every_count or state.players in MODEL_PLAYERS):
            return super().objective(state)  # alone, or where the model plays worse: learned
        return win_objective(state, self.win_model, learned=self.model, name=self.name)


class WinModelStrategy(WinStrategy):
    """:class:`WinStrategy` by the model with any number of players (what
    benchmarks/tournament_win.py measures)."""

    name = "win-model"
    every_count = True


class WinPlyStrategy(WinStrategy):
    """Experimental, two players (docs/strategies.md, docs/win-chance.md "One ply deeper"): the
    holds of :class:`WinStrategy` (the turn's DP under ``win``); at the final dice the top
    :attr:`top` markings by the ``win`` model's value (or, on a failed result, D13, the top shelves
    to give up) re-ranked by one ply deeper: ``1 -`` the opponent's own start value (the
    one-turn engine's, :func:`dp.solve_turn` via the compiled paths, under ``win``) of the
    position after the choice (blocking, D15; the end trigger, D17). A choice whose ``win``
    value is exact (:meth:`win_model.WinObjective.exact_markings`, :meth:`~win_model.WinObjective.exact_shelves`,
    a turn that :mod:`win_chance` values exactly, or one that ends the game, D18) keeps that
    value, as does one after which the opponent cannot play. Ties keep the model's order. With
    other numbers of players, :class:`WinStrategy`.

    Args:
        top: how many choices are re-ranked (``K >= 1``; 1 plays as ``win``).
        model, kernel, exact_alone, win_model: as :class:`WinStrategy`.
    """

    name = "win-ply"
    #: The number of choices re-ranked by default (no K gained on validation, none was
    #: pre-registered: docs/win-chance.md "One ply deeper").
    default_top = 3

    def __init__(self, model: LearnedModel | None = None, kernel: str = "auto", exact_alone: bool = True,
                 win_model: WinModel | None = None, top: int | None = None):
        super().__init__(model, kernel, exact_alone, win_model)
        self.top = self.default_top if top is None else top

    def _deeper(self, state: GameState) -> bool:
        """Whether this turn's choice is re-ranked: two players, the model's turn (not one that
        :mod:`win_chance` values exactly, nor the exact table's) and ``top`` above 1."""
        return state.players == 2 and self.top > 1 and self.exact(state) is None \
            and exact_objective(state) is None

    def start_value(self, state: GameState) -> Fraction:
        """The active player's start value of the turn ``state`` under ``win`` (exact on the last
        turns, :func:`win_chance.exact_objective`): :func:`dp.solve_turn`'s start value, from the
        compiled item-set values (:func:`win_model.compiled_win_values`, :func:`_compiled_exact_values`)
        and :func:`batched.solve_finals` where numba is installed (the same value)."""
        from shelfie_solver.dice.learned.win_model import (
            CHANCE_SCALE,
            compiled_win_values,
        )

        board, rules = state.board, state.rules
        exact = exact_objective(state)
        quick = None
        if self.kernel != "numpy" and compiled_best_marking() is not None:
            quick = compiled_win_values(state, self.win_model, self.model) if exact is None \
                else _compiled_exact_values(state, exact)
        if quick is None:
            objective: Objective = self.objective(state) if exact is None else exact
            return solve_turn(board, state.marks, rules, objective).start_values()[0]
        scale = CHANCE_SCALE if exact is None else exact.scale(rules)
        worth, usable, shelves = quick
        tables = turn_arrays(board, rules)
        failed = max((value for _, value in shelves), default=0)
        columns = compiled_best_marking()(worth, usable, tables.sizes, tables.set_starts, tables.set_rolls,
                                          tables.n_rolls, failed, 1)
        solved = solve_finals(space_for(rules), columns[:, None, :], rules.rerolls, scale, kernel="numba")
        return solved.start_values()[0]

    def after_value(self, state: GameState, sheets: tuple[Marks, ...]) -> Fraction | None:
        """``1 -`` the opponent's :meth:`start_value` once the active player's turn ends with
        every sheet ``sheets`` (:func:`actions.finish_turn`); ``None`` when the game is over then
        or the opponent has no available item (it passes: no turn to value)."""
        from shelfie_solver.dice.game.actions import finish_turn

        following = finish_turn(state, sheets, [])
        if following is None or not following.marks.has_available:
            return None
        return 1 - self.start_value(following)

    def choose_marking(self, state: GameState, dice: Counts, legal: LegalMarkings,
                       rng: np.random.Generator) -> tuple[int, ...]:
        if not self._deeper(state) or len(legal) < 2:
            return super().choose_marking(state, dice, legal, rng)
        from shelfie_solver.dice.game.actions import mark_and_block
        from shelfie_solver.dice.learned.win_model import CHANCE_SCALE

        objective = self.turn(state)[0]
        arrays = StateArrays(state.board, state.rules, state.marks)
        worth = self._entry(state)[3]
        values = objective.values(arrays, legal.sets) if worth is None else worth[legal.index]
        points = Points().values(arrays, legal.sets)
        sets = legal.sets
        order = np.lexsort((np.arange(len(sets.sizes)), -sets.sizes, -points, -np.asarray(values)))
        chosen = [int(i) for i in order[: self.top]]
        exact = exact_chances(objective, arrays, sets.take(np.array(chosen))) or [None] * len(chosen)
        best: tuple[Fraction, int] | None = None
        for i, known in zip(chosen, exact):
            value = known if known is not None else self.after_value(state, mark_and_block(state, legal.cells(i), []))
            if value is None:
                value = Fraction(int(values[i]), CHANCE_SCALE)
            if best is None or value > best[0]:
                best = (value, i)
        assert best is not None
        return legal.cells(best[1])

    def choose_shelf(self, state: GameState, dice: Counts, shelves: tuple[int, ...],
                     rng: np.random.Generator) -> int:
        if not self._deeper(state) or len(shelves) < 2:
            return super().choose_shelf(state, dice, shelves, rng)
        from shelfie_solver.dice.game.actions import replace_sheet
        from shelfie_solver.dice.learned.win_model import CHANCE_SCALE
        from shelfie_solver.dice.sheet_rules import failed_result_shelves

        objective = self.turn(state)[0]
        arrays = StateArrays(state.board, state.rules, state.marks)
        found = self._entry(state)[4]
        ranked = found if found is not None else objective.shelf_values(arrays)
        exact = exact_shelf_chances(objective, arrays) or {}
        lost = failed_result_shelves(state.board, state.marks)
        best: tuple[Fraction, int] | None = None
        for shelf, model_value in ranked[: self.top]:
            value = exact[shelf] if shelf in exact else self.after_value(
                state, replace_sheet(state.sheets, state.active, state.marks.with_eliminated(lost[shelf])))
            if value is None:
                value = Fraction(int(model_value), CHANCE_SCALE)
            if best is None or value > best[0]:
                best = (value, int(shelf))
        assert best is not None
        return best[1]


STRATEGIES: dict[str, type] = {
    "random": RandomStrategy,
    "greedy": GreedyStrategy,
    "threshold": ThresholdStrategy,
    "solver": SolverStrategy,
    "learned": LearnedStrategy,
    "win": WinStrategy,
    "win-model": WinModelStrategy,
    "win-ply": WinPlyStrategy,
}


@cache
def strategy_named(name: str) -> Strategy:
    """The strategy called ``name`` (one shared instance per process, so caches persist).

    Raises:
        StrategyError: an unknown name.
    """
    if name.strip().lower().startswith("exact2:"):  # optimal two-player play from a two-player table
        from shelfie_solver.dice.wholegame.two_player_table import TwoPlayerStrategy, table_named

        path = name.strip()[7:]
        table_named(path)  # fail early on a bad file
        return TwoPlayerStrategy(path)
    if name.strip().lower().startswith("exact:"):  # optimal solitaire play from a value table
        from shelfie_solver.dice.wholegame.values import ExactStrategy, load_table

        path = name.strip()[6:]
        load_table(path)  # fail early on a bad file
        return ExactStrategy(path)
    model = model_named(name)  # learned:FILE: parameters written by train
    if model is not None:
        learned = LearnedStrategy(model)
        learned.name = name.strip()
        return learned
    cls = STRATEGIES.get(name.strip().lower())
    if cls is None:
        raise StrategyError(f"unknown strategy {name!r}; expected one of {', '.join(STRATEGIES)}, exact:FILE, "
                            "exact2:FILE or learned:FILE")
    strategy: Strategy = cls()
    return strategy


#: The strategies that play by the win model (:class:`WinStrategy` and its kinds): the seats a
#: ``--win-model FILE`` changes (:func:`seat_strategy`).
WIN_MODEL_STRATEGIES = ("win", "win-model", "win-ply")


def seat_strategy(name: str, win_model: str | None = None) -> Strategy:
    """The strategy of a seat: :func:`strategy_named`, or with ``win_model`` (the path of a
    win-model file, ``--win-model FILE``; docs/formats.md "Win-model file") and a name of
    :data:`WIN_MODEL_STRATEGIES`, that strategy playing by the file's model (its own instance,
    one per name and path in a process; as ``train --play-model``, never by the exact
    two-player table, :meth:`WinStrategy.exact`). A path is passed, not the model, so that worker
    processes read it themselves.

    Raises:
        StrategyError: an unknown name. WinModelError: a bad file (one line).
    """
    word = name.strip().lower()
    if win_model is None or word not in WIN_MODEL_STRATEGIES:
        return strategy_named(name)
    return _by_win_model(word, win_model)


@cache
def _by_win_model(word: str, path: str) -> Strategy:
    from shelfie_solver.dice.learned.win_model import load_win_model

    cls = STRATEGIES[word]
    assert issubclass(cls, WinStrategy)
    strategy: Strategy = cls(win_model=load_win_model(path))
    return strategy


def verify_seats(names: Sequence[str]) -> None:
    """Refuse, before any game is dealt, a table strategy that cannot play this many seats:
    ``exact2:FILE`` plays two-player games only (the table holds two sheets; docs/solve-game.md),
    which its first decision would say too, but a seat whose every item is eliminated (D15) before
    its first turn makes no decision, so the refusal belongs here.

    Raises:
        StrategyError: ``exact2:FILE`` among other than two ``names``.
    """
    for name in names:
        if name.strip().lower().startswith("exact2:") and len(names) != 2:
            raise StrategyError(f"strategy {name.strip()} plays two-player games only, not {len(names)} "
                                f"player{'' if len(names) == 1 else 's'}; expected two seats, e.g. "
                                f"{name.strip()},solver")


#: The strategies named with a file (``learned:FILE``, ``exact:FILE``, ``exact2:FILE``): the
#: file's path is kept as given (its case, its spaces), so a seat of ``simulate --save`` may be
#: named by a long path with spaces (:func:`play.gamefile.check_names` lets such a name be).
FILE_STRATEGIES = ("exact:", "exact2:", "learned:")


def parse_players(text: str, option: str = "--players") -> tuple[str, ...]:
    """Strategy names of the seats from ``"solver,greedy"`` (2 to 4 names, D1, or 1 for solitaire);
    ``option`` is the option the errors name (``--players``, rollout's ``--policy``).

    Raises:
        StrategyError: an unknown name, an empty entry (``greedy,,greedy``) or a bad number of
            players.
    """
    entries = [w.strip() if w.strip().lower().startswith(FILE_STRATEGIES) else w.strip().lower()
               for w in text.split(",")]
    names = tuple(name for name in entries if name)
    if not 1 <= len(names) <= MAX_PLAYERS:
        raise StrategyError(f"{option} needs one comma-separated strategy per seat, {PLAYER_COUNTS}, "
                            f"got {len(names)}: e.g. solver,greedy")
    if len(names) != len(entries):
        raise StrategyError(f"{option} has an empty entry (two commas in a row, or one at an end); "
                            "expected 1 to 4 comma-separated strategies, e.g. solver,greedy")
    for name in names:
        strategy = strategy_named(name)
        if isinstance(strategy, LearnedStrategy) and strategy.model is not None:
            strategy.model.verify_players(len(names), name)  # learned:FILE fitted for this many seats
    return names
