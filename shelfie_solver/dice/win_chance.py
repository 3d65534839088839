"""The exact chance to win at the end of a game (D17, D18, D20): objectives whose value of a final
roll is the player's chance to win, so the one-turn engine (:mod:`engine.dp`) gives the exact
chance of every hold and marking.

* :class:`LastTurnWin` — every other player's score is final (D18: the end is triggered and they
  have played their last turn, or they have no available item). Then a final roll is a 0/1 event:
  the player's score after the marking (D19) beats every other score (1), ties ``k - 1`` of them
  at the top (a shared victory, D20: ``1/k``) or falls short (0). Blocking (D15) only eliminates
  available items, so it never changes another player's score; a failed result (D13) leaves the
  player's score as it is.
* :class:`BeforeLastWin` — two players, the end triggered, and the opponent plays the last turn
  of the game after this one (D18). A marking leaves a score ``s`` and the opponent's sheet (after
  the player's blocking, D15); the opponent then plays their last turn for their own chance to
  win, :class:`LastTurnWin` against ``s``, exactly; with two players a shared victory counts
  ``1/2`` to each, so the player's chance is ``1 -`` the opponent's, whatever the opponent's
  choices among equally good ones. In a legal game this follows a turn that triggers the end
  (D17) of the first of two players, so the ``win`` objective values such markings with it
  (:func:`win_model.ending_objective`).

* Settled terminals — a marking or a shelf given up (D13) after which the player's game is over
  (D17, D18) with its final score below another seat's score now (scores never fall) is an
  exact 0, above every other seat's reach an exact 1 (:func:`settled_bounds`,
  :func:`settled_shares`: the ``win`` objective, :mod:`learned.win_model`, applies them before
  its model); a last turn decided so at every final roll is :class:`DecidedWin`
  (:func:`decided_objective`).
* Lost seats — a seat whose best final score is below another seat's score can no longer win
  (exactly 0): at a turn's start (:func:`lost_seats`), and at each terminal of the mover's turn,
  where the mover's new score counts too (:func:`lost_bounds`, :func:`lost_at`: the joint
  model's softmax of :mod:`learned.win_model` leaves such seats out), and so do the blocks of
  the lines its marking completes (D15: :func:`lost_after_blocks`, the reaches of the sheets
  they leave, as ``play status`` reads them at the next turn's start).

Values are integers over :meth:`scale` (``WIN_UNIT = 12 = lcm(1, 2, 3, 4)``, so ``1/k`` is whole
for up to four players; times the opponent's denominator for :class:`BeforeLastWin`).
:func:`exact_objective` picks the one that applies to a game state, or ``None``.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import Any, ClassVar

import numpy as np

from shelfie_solver.dice.board import (
    Board,
    ItemSets,
    Marks,
    highest_score,
    marked_line_totals,
    score,
    top_other_score,
    totals_breakdown,
)
from shelfie_solver.dice.game.events import GameState
from shelfie_solver.dice.objectives import Objective, Points, StateArrays
from shelfie_solver.dice.rules import Ruleset
from shelfie_solver.dice.sheet_rules import block, completed_lines, failed_result_shelves, triggers_end

#: A sure win, in the units of :class:`LastTurnWin` (lcm of 1..4: every share ``1/k`` is whole, D20).
WIN_UNIT = 12


def share(mine: int, others: Sequence[int]) -> Fraction:
    """The player's share of the victory with final scores ``mine`` and ``others`` (D20): 1 above
    every other, ``1/k`` in a ``k``-way tie at the top, else 0."""
    top = max(others, default=mine - 1)
    if mine > top:
        return Fraction(1)
    if mine < top:
        return Fraction(0)
    return Fraction(1, 1 + sum(s == top for s in others))


def shares(after: np.ndarray, others: Sequence[int]) -> np.ndarray:
    """``int64`` like ``after``: :func:`share` of each score in ``after`` times :data:`WIN_UNIT`."""
    if not others:
        return np.full(np.shape(after), WIN_UNIT, dtype=np.int64)
    top, tied = _top_and_tied(others)
    return _shares_below(after, top, tied)


def _top_and_tied(others: Sequence[int]) -> tuple[int, int]:
    """The best of the other final scores ``others`` (not empty) and ``1 +`` how many reach it:
    the players sharing the victory at that score (D20)."""
    top = max(others)
    return top, 1 + sum(s == top for s in others)


def _shares_below(after: np.ndarray, top: Any, tied: Any) -> np.ndarray:
    """``int64``: :func:`shares` of the scores ``after`` against the best other score ``top``
    reached by ``tied - 1`` players (:func:`_top_and_tied`; arrays broadcast with ``after``)."""
    out: np.ndarray = np.where(after > top, WIN_UNIT, np.where(after == top, WIN_UNIT // tied, 0)).astype(np.int64)
    return out


@dataclass(frozen=True)
class LastTurnWin:
    """The player's exact chance to win when every other score is final (module docstring).

    Attributes:
        others: the other players' final scores (D19), any order.
        base: the objective this one stands in for on this turn (:func:`objective_names.advice_objective`), if any.
    """

    others: tuple[int, ...]
    name: str = "win (exact)"
    base: Objective | None = None
    win_chance_exact: ClassVar[bool] = True

    def scale(self, rules: Ruleset) -> int:
        return WIN_UNIT

    def values(self, state: StateArrays, sets: ItemSets) -> np.ndarray:
        now = score(state.board, state.marks, state.rules)
        return self.values_after(state, now + Points().values(state, sets), None)

    def values_after(self, state: StateArrays, after: np.ndarray, blocked: np.ndarray | None) -> np.ndarray:
        """:meth:`values` of markings given by the player's score after each, ``after (K,)``
        (``blocked``, the other sheets after its blocks, changes no score: not read)."""
        return shares(after, self.others)

    def failed_value(self, state: StateArrays) -> int:
        return int(shares(np.array(score(state.board, state.marks, state.rules)), self.others))

    def shelf_values(self, state: StateArrays) -> list[tuple[int, int]]:
        """For a failed result (D13): ``(shelf, value)`` per shelf with an available item, all
        alike (giving up a shelf changes no score), in shelf order."""
        return [(shelf, self.failed_value(state)) for shelf in failed_result_shelves(state.board, state.marks)]


#: Sheets and chances kept per process by :func:`opponent_chance` (least recently used out first).
CHANCE_CACHE_SIZE = 65536
_BEST_SCORES: OrderedDict[tuple[Board, Ruleset, int, int], tuple[np.ndarray, int, int]] = OrderedDict()
#: Per board and rules (at most :data:`CHANCE_STORES`), the chances as numerators over
#: :func:`chance_scale` per (marked, eliminated, other scores): keys of ints only, cheap to hash.
CHANCE_STORES = 8
_OPPONENT_CHANCES: dict[tuple[Board, Ruleset], OrderedDict[tuple[int, int, tuple[int, ...]], int]] = {}


def _chance_store(board: Board, rules: Ruleset) -> OrderedDict[tuple[int, int, tuple[int, ...]], int]:
    """The chances kept for ``board`` and ``rules`` (all stores dropped beyond :data:`CHANCE_STORES`)."""
    store = _OPPONENT_CHANCES.get((board, rules))
    if store is None:
        if len(_OPPONENT_CHANCES) >= CHANCE_STORES:
            _OPPONENT_CHANCES.clear()
        store = _OPPONENT_CHANCES[(board, rules)] = OrderedDict()
    return store


def _remember(store: OrderedDict[Any, Any], key: Any, value: Any) -> None:
    """Keep ``value`` under ``key``, dropping the least recently used beyond :data:`CHANCE_CACHE_SIZE`."""
    store[key] = value
    if len(store) > CHANCE_CACHE_SIZE:
        store.popitem(last=False)


def best_final_scores(board: Board, rules: Ruleset, marks: Marks) -> np.ndarray:
    """``int64 (R,)``: per final roll (:class:`rolls.DiceSpace` order) the highest score the sheet
    can have after marking it (D8-D14, D19), the score as it is for a failed result (D13, no score
    changes); cached per sheet."""
    return _best_scores_and_range(board, rules, marks)[0]


def best_score_range(board: Board, rules: Ruleset, marks: Marks) -> tuple[int, int]:
    """The lowest and the highest of :func:`best_final_scores` (kept with them)."""
    _, low, high = _best_scores_and_range(board, rules, marks)
    return low, high


def _best_scores_and_range(board: Board, rules: Ruleset, marks: Marks) -> tuple[np.ndarray, int, int]:
    """:func:`best_final_scores` and :func:`best_score_range`, computed once per sheet."""
    key = (board, rules, marks.marked, marks.eliminated)
    found = _BEST_SCORES.get(key)
    if found is None:
        best = _compiled_best_scores(board, rules, marks)
        if best is None:
            m, mp, now = _marked_totals(board, rules, marks)
            best = np.ascontiguousarray(_best_gains(board, rules, marks, m, mp) + now, dtype=np.int64)
        found = (best, int(best.min()), int(best.max()))
        _remember(_BEST_SCORES, key, found)
    else:
        _BEST_SCORES.move_to_end(key)
    return found


def _compiled_best_scores(board: Board, rules: Ruleset, marks: Marks) -> np.ndarray | None:
    """:func:`best_final_scores` by one compiled call from the sheet's bit masks
    (:func:`engine.kernel._best_scores`: the same integers), or ``None`` without numba or where
    the board's item sets have no bit masks (more than 62 items)."""
    from shelfie_solver.dice.engine import kernel

    best = kernel.kernel_function("_best_scores")
    tables = kernel.turn_arrays(board, rules)
    if best is None or len(tables.set_masks) != len(tables.sizes):
        return None
    found: np.ndarray = best(marks.marked, marks.eliminated, kernel.cell_lines(board), board.value_array,
                             tables.set_lines, tables.set_counts, tables.set_points, tables.set_masks,
                             rules.scoring_threshold, tables.sizes, tables.set_starts, tables.set_rolls, tables.n_rolls)
    return found


#: The last marked items seen by :func:`_marked_totals` and their totals and score.
_LAST_TOTALS: list[tuple[tuple[Board, Ruleset, int], tuple[np.ndarray, np.ndarray, int]]] = []


def _marked_totals(board: Board, rules: Ruleset, marks: Marks) -> tuple[np.ndarray, np.ndarray, int]:
    """``(m, mp, score)``: :func:`board.marked_line_totals` of ``marks`` and its score (D19, by
    :func:`board.totals_breakdown`), kept for the last marked items asked: the sheets the
    player's blocks leave the opponent (D15) differ in eliminated items only, so they share them."""
    key = (board, rules, marks.marked)
    if _LAST_TOTALS and _LAST_TOTALS[0][0] == key:
        return _LAST_TOTALS[0][1]
    m, mp = marked_line_totals(board, marks)
    found = (m, mp, sum(totals_breakdown(board, m, mp, rules)))
    _LAST_TOTALS[:] = [(key, found)]
    return found


def _best_gains(board: Board, rules: Ruleset, marks: Marks, m: np.ndarray, mp: np.ndarray) -> np.ndarray:
    """``int64 (R,)``: column 0 of :func:`dp.final_values` for :class:`objectives.Points` (the
    most points a final roll can add, 0 for a failed result), by the compiled kernel
    (:func:`engine.kernel._best_points`) when numba is installed and the board's item sets have
    bit masks (at most 62 items), else by :func:`batched.final_values_many`; ``m``, ``mp`` the
    sheet's :func:`board.marked_line_totals`."""
    from shelfie_solver.dice.engine.kernel import kernel_function, turn_arrays

    best = kernel_function("_best_points")
    tables = turn_arrays(board, rules)
    if best is None or len(tables.set_masks) != len(tables.sizes):
        from shelfie_solver.dice.engine.batched import final_values_many

        gains: np.ndarray = final_values_many(board, (marks,), rules, Points())[:, 0, 0]
        return gains
    found: np.ndarray = best(tables.set_lines, tables.set_counts, tables.set_points, tables.set_masks,
                             marks.marked | marks.eliminated, m, mp, rules.scoring_threshold, tables.sizes,
                             tables.set_starts, tables.set_rolls, tables.n_rolls)
    return found


def opponent_chance(board: Board, rules: Ruleset, marks: Marks, others: tuple[int, ...]) -> Fraction:
    """The exact chance that a player with ``marks`` wins with one turn left (the initial roll and
    every re-roll, D6, D7) when the other final scores are ``others``: :class:`LastTurnWin`
    through the engine. A sheet with no available item keeps its score (the player passes).
    One case of :func:`opponent_chances`."""
    return opponent_chances(board, rules, marks, (tuple(others),))[0]


def opponent_chances(board: Board, rules: Ruleset, marks: Marks,
                     others: Sequence[tuple[int, ...]]) -> list[Fraction]:
    """:func:`opponent_chance` of one sheet against each of several sets of final scores ``others``
    (one case of :func:`sheets_chances`)."""
    return sheets_chances(board, rules, [(marks, others)])[0]


@cache
def chance_scale(rules: Ruleset) -> int:
    """The denominator of an exact chance at the start of a last turn: :data:`WIN_UNIT` times
    ``D^(rerolls + 1)`` (``D`` the dice space's denominator: the initial roll, then each
    re-roll, D6, D7), so every start value of :class:`LastTurnWin` is a whole multiple of its inverse."""
    from shelfie_solver.dice.rolls import space_for

    scale: int = WIN_UNIT * int(space_for(rules).denominator) ** (rules.rerolls + 1)
    return scale


def sheets_chances(board: Board, rules: Ruleset,
                   cases: Sequence[tuple[Marks, Sequence[tuple[int, ...]]]]) -> list[list[Fraction]]:
    """:func:`opponent_chance` of each case's sheet against each of its sets of final scores
    (:func:`sheets_chance_numerators` over :func:`chance_scale`; a sheet with no available item
    keeps its score, D13: :func:`share` of it)."""
    scale = chance_scale(rules)
    found = sheets_chance_numerators(board, rules, cases)
    return [[Fraction(int(n), scale) for n in numerators] if marks.available
            else [share(score(board, marks, rules), o) for o in others]
            for (marks, others), numerators in zip(cases, found)]


def sheets_chance_numerators(board: Board, rules: Ruleset,
                             cases: Sequence[tuple[Marks, Sequence[tuple[int, ...]]]]) -> list[list[int]]:
    """Per case, the numerators over :func:`chance_scale` of :func:`opponent_chance` of its sheet
    against each of its sets of final scores (a sheet with no available item: :func:`shares` of
    its score, D13; exact where every player's share is ``1/k``, ``k <= 4``).

    The value of a final roll under :class:`LastTurnWin` is :func:`shares` of the best score the
    roll can reach (a share never falls as the score rises), so the final values are
    :func:`best_final_scores` (once per sheet) mapped through :func:`shares`, and the DP over the
    re-rolls of every case not known yet runs at once (:func:`_last_turn_numerators`): the same
    exact values as :func:`dp.solve_turn` of :class:`LastTurnWin`, cached per (sheet, scores).
    When every final roll has the same share (the scores to beat are out of the sheet's reach,
    or below its score now), that share is the chance whatever the play, with no DP."""
    unit = chance_scale(rules) // WIN_UNIT  # a final roll's share, over WIN_UNIT, to the start's scale
    store = _chance_store(board, rules)
    found: dict[tuple[int, int, tuple[int, ...]], int] = {}
    unsolved: list[tuple[int, int, tuple[int, ...]]] = []
    finals: list[tuple[np.ndarray, list[int], list[int]]] = []
    for marks, others in cases:
        if marks.has_available:
            _sheet_chances(board, rules, marks, others, unit, store, found, unsolved, finals)
    if unsolved:
        for key, value in zip(unsolved, _last_turn_numerators(rules, finals)):
            found[key] = value
            _remember(store, key, value)
    out = []
    for marks, others in cases:
        if not marks.has_available:
            now = np.array(score(board, marks, rules))
            out.append([int(shares(now, o)) * unit for o in others])
        else:
            out.append([found[(marks.marked, marks.eliminated, tuple(o))] for o in others])
    return out


def _last_turn_numerators(rules: Ruleset, finals: Sequence[tuple[np.ndarray, list[int], list[int]]]) -> list[int]:
    """The start numerators over :func:`chance_scale` of :class:`LastTurnWin` turns, per sheet of
    ``finals`` (its :func:`best_final_scores` ``(R,)``, then per case the best other score and
    ``1 +`` how many reach it, :func:`_top_and_tied`), in that order: by one compiled call where
    every value fits int64 (:func:`engine.kernel._last_turn_starts`, numba: the DP's values
    without its holds and policy, the one thing read here), else the final values
    (:func:`_shares_below`) through :func:`batched.solve_finals` (exact limbs beyond int64)."""
    from shelfie_solver.dice.engine.batched import solve_finals
    from shelfie_solver.dice.engine.dp import initial_roll_row
    from shelfie_solver.dice.engine.kernel import kernel_function
    from shelfie_solver.dice.engine.transitions import INT64_SAFE, hold_steps
    from shelfie_solver.dice.rolls import space_for

    space = space_for(rules)
    starts = kernel_function("_last_turn_starts")
    if starts is not None and (WIN_UNIT + 1) * space.denominator ** (rules.rerolls + 1) < INT64_SAFE:
        # (every value of the DP, and the initial roll's sum, is at most WIN_UNIT * D^(rerolls + 1))
        sheet = np.repeat(np.arange(len(finals)), [len(tops) for _, tops, _ in finals])
        found: np.ndarray = starts(
            np.ascontiguousarray([best for best, _, _ in finals], dtype=np.int64), sheet,
            np.array([top for _, tops, _ in finals for top in tops], dtype=np.int64),
            np.array([tied for _, _, ties in finals for tied in ties], dtype=np.int64), WIN_UNIT, *hold_steps(space),
            space.denominator, rules.rerolls, *initial_roll_row(space))
        return [int(value) for value in found.tolist()]
    level0 = np.concatenate([_shares_below(best[:, None], np.array(tops, dtype=np.int64), np.array(ties, dtype=np.int64))
                             for best, tops, ties in finals], axis=1)
    solved = solve_finals(space, np.ascontiguousarray(level0[:, :, None]), rules.rerolls, WIN_UNIT)
    return [int(value) for value in solved.start_numerators().tolist()]


def _sheet_chances(board: Board, rules: Ruleset, marks: Marks, others: Sequence[tuple[int, ...]], unit: int,
                   store: OrderedDict[Any, int], found: dict[Any, int], unsolved: list[Any],
                   finals: list[tuple[np.ndarray, list[int], list[int]]]) -> None:
    """:func:`sheets_chance_numerators` of one sheet with an available item: each set of scores
    found (in ``store``, :func:`_chance_store`, or decided: every final roll's share alike) into
    ``found``; the others' keys appended to ``unsolved`` and, for :func:`_last_turn_numerators`,
    the sheet's best final scores with their best other scores and ties to ``finals``."""
    todo = []
    for o in others:
        key = (marks.marked, marks.eliminated, tuple(o))
        if key in found:
            continue
        known = store.get(key)
        if known is not None:
            store.move_to_end(key)
            found[key] = known
        else:
            found[key] = -1  # decided or solved below
            todo.append(key)
    if not todo:
        return
    best, low, high = _best_scores_and_range(board, rules, marks)
    tops, ties = [], []
    for key in todo:
        if not key[2] or low > max(key[2]):  # every roll wins alone (D20), whatever the play
            found[key] = WIN_UNIT * unit
        elif high < max(key[2]):  # no roll reaches the best other score
            found[key] = 0
        else:
            top, tied = _top_and_tied(key[2])
            tops.append(top)
            ties.append(tied)
            unsolved.append(key)
            continue
        _remember(store, key, found[key])
    if tops:
        finals.append((best, tops, ties))


@dataclass(frozen=True, eq=False)
class BeforeLastWin:
    """Two players: the player's exact chance to win when the opponent plays the game's last turn
    after this one (module docstring).

    Attributes:
        opponent: the opponent's sheet now (the player's blocking changes it, D15).
        sheets: both sheets, the player's first (for :func:`sheet_rules.block`).
        base: as :attr:`LastTurnWin.base`.
    """

    opponent: Marks
    sheets: tuple[Marks, Marks]
    name: str = "win (exact)"
    base: Objective | None = None
    win_chance_exact: ClassVar[bool] = True

    def scale(self, rules: Ruleset) -> int:
        return chance_scale(rules)  # the opponent's start value's denominator

    def _opponent_after(self, board: Board, cells: tuple[int, ...]) -> Marks:
        """The opponent's sheet after the player marks ``cells`` (the lines it completes block, D15)."""
        mine = self.sheets[0].with_marked(cells)
        before = set(completed_lines(board, self.sheets[0]))
        new = tuple(line for line in completed_lines(board, mine) if line not in before)
        return block(board, (mine, self.opponent), 0, new)[0][1] if new else self.opponent

    def _new_lines(self, board: Board, sets: ItemSets) -> dict[tuple[int, ...], list[int]]:
        """The markings of ``sets`` grouped by the lines each completes on the player's sheet
        (D15: all items of the line marked, not before; increasing line order, as
        :meth:`_opponent_after`); the opponent's sheet after blocking depends on those lines only."""
        member = board.line_matrix
        sizes = member.sum(axis=0)
        before = self.sheets[0].bit_arrays()[0] @ member  # (L,) marked items per line
        new = (before + sets.line_count == sizes) & (before < sizes)  # (K, L)
        assert new.shape[1] < 63, "lines are packed into int64 bits"
        codes = new.astype(np.int64) @ (np.int64(1) << np.arange(new.shape[1], dtype=np.int64))
        found, inverse = np.unique(codes, return_inverse=True)
        return {tuple(line for line in range(new.shape[1]) if int(code) >> line & 1):
                np.flatnonzero(inverse == g).tolist() for g, code in enumerate(found)}

    def values(self, state: StateArrays, sets: ItemSets) -> np.ndarray:
        board, rules = state.board, state.rules
        after = score(board, state.marks, rules) + Points().values(state, sets)
        theirs = np.full(len(after), self.opponent.eliminated, dtype=object)  # Python ints: any board
        for lines, rows in self._new_lines(board, sets).items():
            if lines:
                theirs[rows] = block(board, self.sheets, 0, lines)[0][1].eliminated
        return self.values_after(state, after, theirs[:, None])

    def values_after(self, state: StateArrays, after: np.ndarray, blocked: np.ndarray) -> np.ndarray:
        """:meth:`values` of ``K`` markings given by the player's score after each, ``after (K,)``,
        and the opponent's eliminated items after its blocks (D15), ``blocked (K, 1)`` (bit masks;
        the opponent's marked items do not change): ``1 -`` the opponent's chance on their last
        turn against that score (two players, D20), over :meth:`scale`.

        Decided without the opponent's sheet where the score settles it: below the opponent's
        score now (their every final roll wins, D19: a marking never lowers a score), or above
        the best score the opponent's sheet before this turn's blocks can reach
        (:func:`best_final_scores`; blocking only takes available items away, so it never raises
        that best). The other (sheet, score) cases in one batched solve,
        :func:`sheets_chance_numerators`; or all of it by one compiled call where it fits
        (:func:`_compiled_before_last`: the same integers)."""
        found = _compiled_before_last(state.board, state.rules, self.opponent, after, blocked)
        return found if found is not None else self._batched_values_after(state, after, blocked)

    def _batched_values_after(self, state: StateArrays, after: np.ndarray, blocked: np.ndarray) -> np.ndarray:
        """:meth:`values_after` through :func:`sheets_chance_numerators` (its chances kept per
        sheet and score, any board, exact limbs beyond int64)."""
        board, rules = state.board, state.rules
        scale = self.scale(rules)
        opponent = self.opponent
        now = score(board, opponent, rules)
        high = best_score_range(board, rules, opponent)[1] if opponent.has_available else now
        after = np.asarray(after, dtype=np.int64)
        out = np.where(after > high, scale, 0).astype(np.int64)  # above their reach: 1; below their score: 0
        rest = np.flatnonzero((after >= now) & (after <= high))
        if not len(rest):
            return out
        theirs = np.asarray(blocked)[rest, 0].tolist()  # Python ints (from int64 or object bit masks)
        cases: dict[int, dict[int, list[int]]] = {}  # the opponent's eliminated items -> score -> rows
        for row, eliminated, mine in zip(rest.tolist(), theirs, after[rest].tolist()):
            cases.setdefault(eliminated, {}).setdefault(mine, []).append(row)
        shelves, columns, marked = opponent.n_shelves, opponent.n_columns, opponent.marked
        sheets = [Marks(shelves, columns, marked, eliminated) for eliminated in cases]
        numerators = sheets_chance_numerators(board, rules, [(sheet, [(mine,) for mine in by_score])
                                                             for sheet, by_score in zip(sheets, cases.values())])
        for by_score, found in zip(cases.values(), numerators):
            for rows, n in zip(by_score.values(), found):
                out[rows] = scale - n  # 1 - theirs (two players, D20)
        return out

    def failed_value(self, state: StateArrays) -> int:
        # D13: giving up a shelf changes no score, and completes no line (nothing is marked)
        now = np.array([score(state.board, state.marks, state.rules)], dtype=np.int64)
        return int(self.values_after(state, now, np.array([[self.opponent.eliminated]], dtype=object))[0])

    def shelf_values(self, state: StateArrays) -> list[tuple[int, int]]:
        """As :meth:`LastTurnWin.shelf_values` (nothing is marked, so nothing is blocked)."""
        return [(shelf, self.failed_value(state)) for shelf in failed_result_shelves(state.board, state.marks)]


def _compiled_before_last(board: Board, rules: Ruleset, opponent: Marks, after: np.ndarray,
                          blocked: np.ndarray) -> np.ndarray | None:
    """:meth:`BeforeLastWin.values_after` of the opponent's sheet ``opponent`` by one compiled call
    (:func:`engine.kernel._before_last_values`, numba: the best final scores and the last turns'
    DP of :func:`_last_turn_numerators`, each distinct sheet and score once, none kept across
    calls); ``None`` without numba, where the board's item sets have no bit masks (more than 62
    items) or where a value could leave int64 (the batched path then)."""
    from shelfie_solver.dice.engine import kernel
    from shelfie_solver.dice.engine.dp import initial_roll_row
    from shelfie_solver.dice.engine.transitions import INT64_SAFE, hold_steps
    from shelfie_solver.dice.rolls import space_for

    values = kernel.kernel_function("_before_last_values")
    tables = kernel.turn_arrays(board, rules)
    space = space_for(rules)
    if values is None or len(tables.set_masks) != len(tables.sizes) \
            or (WIN_UNIT + 1) * space.denominator ** (rules.rerolls + 1) >= INT64_SAFE:
        return None
    theirs = np.asarray(blocked)[:, 0]  # bit masks of at most 62 items: int64 whatever their dtype
    found: np.ndarray = values(
        np.asarray(after, dtype=np.int64), np.ascontiguousarray(theirs, dtype=np.int64), opponent.marked,
        opponent.eliminated, WIN_UNIT, kernel.cell_lines(board), board.value_array, tables.set_lines,
        tables.set_counts, tables.set_points, tables.set_masks, rules.scoring_threshold, tables.sizes,
        tables.set_starts, tables.set_rolls, *hold_steps(space), space.denominator, rules.rerolls,
        *initial_roll_row(space))
    return found


def still_to_play(state: GameState) -> tuple[int, ...]:
    """The other seats that may still change their score this game (D18): every other seat with
    an available item, unless the end is triggered, then only those after the active player in
    this round's play order."""
    out = []
    for j in range(state.players):
        if j == state.active or not state.sheets[j].has_available:
            continue
        if state.end_triggered and not state.plays_later_this_round(j):
            continue  # already played their last turn (D18)
        out.append(j)
    return tuple(out)


def lost_seats(state: GameState, scores: Sequence[int]) -> tuple[int, ...]:
    """The seats other than the active one whose chance to win is exactly 0 in ``state`` whoever
    plays next (D20): the best score a seat can still end on strictly below another seat's score
    now (``scores``, every seat's in seat order, D19), which can only rise (D13 and D15 keep marked
    items). The best a seat can end on: :func:`_final_reaches` as the game stands (once the end is
    triggered, its reach as :func:`settled_bounds` reads it, :func:`_other_reaches`: its score
    when it has played its last turn or has no available item, else the best score of its one
    turn left, D18; before, its :func:`board.highest_score`: every available item marked). Not a
    seat that can tie: a tie may stay a shared victory."""
    reaches = _final_reaches(state, state.end_triggered)
    return tuple(j for j, reach in reaches.items() if any(s > reach for k, s in enumerate(scores) if k != j))


def _final_reaches(state: GameState, over: bool, blocked: int = 0) -> dict[int, int]:
    """Per other seat than the active one, in seat order, an upper bound of the score it can still
    end on (:func:`lost_seats`, :func:`lost_bounds`: the one home of a seat's reach for the lost
    seats), seen once the active player's turn has ended with its game ``over`` (D17, D18: the end
    triggered before the turn or by it) or not: when over, every other seat's reach
    (:func:`_other_reaches`: its score if final, else the best of its one turn left; once the
    end is triggered the turn always ends the player's game); else, with turns left that no rule
    counts, its :func:`board.highest_score` (every available item marked: its score when it has
    none, D13). ``blocked``: a bit mask of cells whose available items every other sheet loses
    first (the blocks of the lines the player's terminal completes, D15: :meth:`Marks.with_eliminated_bits`)."""
    others = [j for j in range(state.players) if j != state.active]
    if over or state.end_triggered:
        return {j: reach for j, (reach, _) in zip(others, _other_reaches(state, blocked), strict=True)}
    board, rules = state.board, state.rules
    return {j: highest_score(board, state.sheets[j], rules, blocked) for j in others}


def lost_bounds(state: GameState, over: bool | None = None, blocked: int = 0) -> np.ndarray:
    """``int64 (J, 2)``: per opponent of the active player (seat order, the seat columns 1 to
    ``J`` of :mod:`learned.win_model`) the active player's final score (D19) at a terminal of its
    turn (an item set marked or a shelf given up, D13) above which that opponent can no longer
    win (D20: :func:`lost_at`); column 0 for a terminal after which the player's game is over
    (the end triggered before the turn, or by its own closed shelves, D17, D18:
    :func:`settled_shares`' ``over``), column 1 for one after which it is not.

    The bound is the best score the opponent can still end on (:func:`_final_reaches`: when
    over its score if final, else the best score of its one turn left, :func:`best_score_range`,
    an upper bound since the turn's blocks, D15, only take items away; when not over its
    :func:`board.highest_score`, every available item marked), or :data:`NO_LOW` (lost whatever
    the terminal) where another seat's score now already passes it (scores never fall: D13 and
    D15 keep marked items). An opponent's score does not change during the player's turn.

    ``over``: ``True`` or ``False`` to compute only the column of the terminals after which the
    player's game is over or not (the other :data:`NO_HIGH`: nobody lost there; once the end is
    triggered both are the one reach); ``None``, both. ``blocked``: a bit mask of cells whose
    available items every other sheet loses first (:func:`lost_after_blocks`), 0: none."""
    return _lost_bounds(state, _others_top(state), over, blocked)


def _others_top(state: GameState) -> list[int]:
    """Per seat, the best score now (D19) of the seats other than it and the active player
    (:data:`NO_LOW` where there is none): what :func:`lost_bounds` compares its reach with."""
    scores = [score(state.board, sheet, state.rules) for sheet in state.sheets]
    return [max((s for k, s in enumerate(scores) if k not in (j, state.active)), default=NO_LOW)
            for j in range(state.players)]


def _lost_bounds(state: GameState, top: list[int], over: bool | None, blocked: int) -> np.ndarray:
    """:func:`lost_bounds` given :func:`_others_top` ``top`` (the same for every mask ``blocked``:
    blocks keep marked items, so they change no score, D15)."""
    out = np.full((state.players - 1, 2), NO_HIGH, dtype=np.int64)
    # once the end is triggered every terminal is over: one reach
    when_over = _final_reaches(state, True, blocked) if over is not False or state.end_triggered else {}
    going_on = when_over if state.end_triggered else {} if over is True else _final_reaches(state, False, blocked)
    for column, reaches in enumerate((when_over, going_on)):
        for row, (j, reach) in enumerate(reaches.items()):
            out[row, column] = NO_LOW if top[j] > reach else reach
    return out


def lost_at(final: np.ndarray, over: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    """``bool (K, J)``: per terminal of the active player's turn with final score ``final (K,)``
    (D19) and ``over (K,)`` (its game over after it, :func:`settled_shares`), which opponents can
    no longer win there (D20): the player's score strictly above the opponent's bound of
    :func:`lost_bounds` ``bounds (J, 2)`` (a tie may stay a shared victory). The one home of the
    rule, for the numpy and the compiled paths of :mod:`learned.win_model` alike. Where every
    opponent is lost at a terminal after which the game is over, its final score is above every
    other reach, so :func:`settled_shares` makes it an exact 1. ``bounds`` may also be ``(K, J,
    2)``, one pair per terminal (:func:`lost_after_blocks`)."""
    final = np.asarray(final, dtype=np.int64)
    bound = np.where(np.asarray(over, dtype=bool)[:, None], bounds[..., 0], bounds[..., 1])
    out: np.ndarray = final[:, None] > bound
    return out


def lost_after_blocks(state: GameState, blocked: Sequence[int], group: np.ndarray, final: np.ndarray,
                      over: np.ndarray) -> np.ndarray:
    """``bool (K, J)``: :func:`lost_at` of ``K`` terminals of the active player's turn (final
    scores ``final (K,)``, its game ``over (K,)`` after each), terminal ``k`` of which blocks
    (D15) the available items among the cells of the bit mask ``blocked[group[k]]`` on every
    other sheet, against :func:`lost_bounds` of the sheets those blocks leave: an opponent whose
    reach the blocks bring below the player's score after the terminal, or below another seat's
    score now, can no longer win there (D20), as :func:`lost_seats` finds it at the next turn's
    start (``play status``: the same reaches, :func:`_final_reaches`, of the same sheets). Where
    the blocks leave another sheet with the shelves that trigger the end (D17), the player's game
    is over there too (D18: :func:`blocks_end_game`). A block only takes available items away,
    so these are the lost seats of :func:`lost_bounds` of the turn's start and more. The one home
    of the rule for the numpy and the compiled paths of :mod:`learned.win_model`
    (``win_model.blocks_lost``)."""
    group = np.asarray(group, dtype=np.int64)
    over = np.asarray(over, dtype=bool)
    if not state.end_triggered:  # (once it is, every terminal is over already)
        over = over | np.array([blocks_end_game(state, cells) for cells in blocked], dtype=bool)[group]
    top = _others_top(state)
    bounds = np.empty((len(blocked), state.players - 1, 2), dtype=np.int64)
    for g, cells in enumerate(blocked):
        mine = over[group == g]
        bounds[g] = _lost_bounds(state, top, True if mine.all() else False if not mine.any() else None, cells)
    return lost_at(final, over, bounds[group])


def blocks_end_game(state: GameState, blocked: int) -> bool:
    """Whether taking the available items among the cells of the bit mask ``blocked`` from every
    sheet but the active player's (its blocks, D15) leaves one of them with the closed shelves
    that trigger the end (D17: :func:`sheet_rules.triggers_end`; blocking can trigger it on an
    opponent's sheet). ``False`` for 0."""
    return bool(blocked) and any(triggers_end(state.board, sheet.with_eliminated_bits(blocked), state.rules)
                                 for j, sheet in enumerate(state.sheets)
                                 if j != state.active and blocked & ~(sheet.marked | sheet.eliminated))


def given_up_lost(board: Board, rules: Ruleset, marks: Marks, shelves: Sequence[int], low: int) -> np.ndarray:
    """``bool (S,)``: per shelf of ``shelves`` that a failed result of the sheet ``marks`` may give
    up (D13: its available items eliminated), whether the player can no longer win after giving
    it up: its :func:`board.highest_score` then (every item still available marked) below
    ``low``, another seat's score now (:func:`settled_bounds`; scores never fall, D13, D15), so
    its final score is too (D20: not a tie). Giving up a shelf is the one terminal that lowers
    the player's own reach (a marking keeps it: a sheet already below is
    :func:`decided_objective`'s). The one home of the rule for the numpy and the compiled paths
    of :mod:`learned.win_model`."""
    out = np.zeros(len(shelves), dtype=bool)
    if score(board, marks, rules) >= low:  # the bound never falls below the score (marked items stay)
        return out
    give_up = failed_result_shelves(board, marks)
    for i, shelf in enumerate(shelves):
        gone = sum(1 << cell for cell in give_up.get(shelf, ()))
        out[i] = highest_score(board, marks, rules, gone) < low
    return out


def lost_settled(settled: np.ndarray, lost: np.ndarray | None) -> np.ndarray:
    """``int8 (K,)``: :func:`settled_shares` ``settled`` of ``K`` terminals of the active player's
    turn, also ``1`` where every opponent can no longer win there (``lost``, ``bool (K, J)``:
    :func:`lost_at`; ``None`` or no column: none): every other final score stays strictly below
    the player's score after it, which never falls (D13, D15), so it wins alone (D20) whether its
    game is over or not. The one home of the rule for the numpy and the compiled paths of
    :mod:`learned.win_model` (where the game is over :func:`settled_shares` already gives such a
    terminal 1: its score is above every other reach)."""
    settled = np.asarray(settled)
    if lost is None or lost.shape[1] == 0:
        return settled
    out: np.ndarray = np.where(lost.all(axis=1), 1, settled).astype(np.int8)
    return out


#: :func:`settled_bounds` where nothing settles: no other score is final (no final score to stay
#: below), no reach to pass (scores are small non-negative integers; int64 for the compiled path).
NO_LOW = -(1 << 62)
NO_HIGH = 1 << 62


def settled_bounds(state: GameState) -> tuple[int, int, int]:
    """``(low, high, ways)``: what settles the active player's chance exactly at a terminal of this
    turn after which its game is over (its score final, D18: the end triggered before this turn,
    or triggered by its own closed shelves, D17; phase 0 of :mod:`learned.objective`).

    ``low`` is the best score of the other seats now: a score never falls (D13 and D15 keep
    marked items, D19), so a final score below it loses (chance exactly 0), whether that seat's
    score is final or it still plays. ``high`` is the best score any other seat can still reach
    once the player's game is over (the round played out, D18): its score if final, else the
    best score one turn can give its sheet now (:func:`best_score_range`: a seat after the player
    in the round has exactly one turn left once the player's game is over, D18; an upper bound:
    blocking, D15, only takes items away, and a failed result keeps the score, D13). A final
    score above ``high`` wins alone (exactly 1, D20).

    ``ways``: where no other seat can end above ``low`` (``high == low``) and every seat that can
    end on ``low`` is on it now (so it ends there: scores never fall), a final score equal to
    ``low`` shares the victory ``ways`` ways (1 + those seats, D20: exactly ``1 / ways``); else 0
    (a seat that may or may not reach ``low``: not settled). :data:`NO_LOW` / :data:`NO_HIGH` /
    0 when nothing settles (fewer than two players)."""
    if state.players < 2:
        return NO_LOW, NO_HIGH, 0
    others = [j for j in range(state.players) if j != state.active]
    now = [score(state.board, state.sheets[j], state.rules) for j in others]
    reaches = [reach for reach, _ in _other_reaches(state)]
    low, high = max(now), max(reaches)
    at_top = [s for s, reach in zip(now, reaches) if reach == low]
    ways = 1 + len(at_top) if high == low and all(s == low for s in at_top) else 0
    return low, high, ways


def _other_reaches(state: GameState, blocked: int = 0) -> list[tuple[int, bool]]:
    """Per other seat than the active one, in seat order: the highest score it can still reach
    and whether that is its final score (:func:`settled_bounds`); ``blocked`` as
    :func:`_final_reaches`."""
    board, rules = state.board, state.rules
    out = []
    for j in range(state.players):
        if j != state.active:
            sheet = state.sheets[j].with_eliminated_bits(blocked)
            final = not sheet.has_available or not state.plays_later_this_round(j)
            out.append((score(board, sheet, rules) if final else
                        best_score_range(board, rules, sheet)[1], final))
    return out


def settled_shares(final: np.ndarray, over: np.ndarray, low: int, high: int, ways: int = 0) -> np.ndarray:
    """``int8`` like ``final``: per terminal of the active player's turn with final score
    ``final`` (D19) and ``over`` (bool: its game is over after it), ``0`` where its chance to win
    is exactly 0 (``final < low``), ``1`` where it is exactly 1 (``final > high``), ``ways`` (2 to
    4) where it is exactly ``1 / ways``, a shared victory (``final == low`` with ``ways`` not 0,
    D20), else ``-1`` (not settled; ``low``, ``high``, ``ways``: :func:`settled_bounds`). So the
    value ``k >= 1`` is a share ``1 / k``. The one home of the rule; the compiled path
    (:func:`learned.kernel._win_gaps`) makes the same three comparisons."""
    final = np.asarray(final)
    tie = np.where(over & (final == low) & (ways > 0), ways, -1)
    out: np.ndarray = np.where(over & (final < low), 0, np.where(over & (final > high), 1, tie)).astype(np.int8)
    return out


def last_seat_shares(finals: Mapping[int, int], chance: Fraction) -> dict[int, Fraction]:
    """Each seat's exact chance to win, per seat of ``finals`` (seat: final score, D19; the seats
    that have not lost), where one last seat, not among them, plays the turn that decides the game
    and wins with ``chance`` (its :class:`LastTurnWin` chance against those scores): the ``k``
    seats on the highest final score ``M`` share what it leaves, ``(1 - chance) / k`` each, the
    others have 0 (D20: the last seat above ``M`` wins alone, on ``M`` it makes a ``(k + 1)``-way
    shared victory, below it leaves a ``k``-way one, so each of the ``k`` has ``(1 - y) / k`` of
    its share ``y`` in every outcome). The one home of that rule, seen from the seat that just
    ended its game (:func:`two_contender_chances`) and from the last seat's own turn
    (``play.chances``)."""
    top = max(finals.values())
    on_top = sum(1 for s in finals.values() if s == top)
    return {j: (1 - chance) / on_top if s == top else Fraction(0) for j, s in finals.items()}


def two_contender_chances(board: Board, rules: Ruleset, seat: int, first: int,
                          cases: Sequence[tuple[tuple[Marks, ...], int]]) -> list[Fraction | None]:
    """Per case ``(sheets, final)`` — every seat's sheet right after a turn of ``seat`` that ends
    its game (D17, D18: its blocks made, D15) with its final score ``final`` (``first``: the seat
    that plays first, D5) — ``seat``'s exact chance to win where one seat still to play can change
    the outcome, else ``None``.

    That seat ``y`` plays its last turn next (it plays later in the round with an available item,
    and every seat between them has none: nothing can block its sheet first, D15), and every other
    seat has lost (:func:`lost_seats` of the sheets with ``seat``'s game over, the end triggered,
    D18, against every score now with ``seat``'s ``final``: a seat's best final score, its score if
    final or else its best one-turn score, below another seat's score) or has its final score
    (its last turn played, or no available item: D18). The lost seats are never at the top, so
    the outcome is ``y``'s :class:`LastTurnWin` turn against the final scores ``F`` of the others
    that have not lost (``seat``'s ``final`` among them): ``y``'s chance ``c`` is
    :func:`opponent_chance` of its sheet against ``F``, and the ``k`` seats of ``F`` on its
    highest score ``M`` share the rest, ``(1 - c) / k`` each (D20: ``y`` below ``M`` leaves them
    a ``k``-way shared victory, ``y`` on ``M`` a ``(k + 1)``-way one, which ``c`` counts as
    ``1 / (k + 1)``); ``seat``'s chance is that share when ``final`` is ``M``, else 0. With two
    contenders (``F`` is ``(final,)``) this is ``1 - c``, as :class:`BeforeLastWin` with two
    players. The cases' chances in one batched solve (:func:`sheets_chances`)."""
    found: list[tuple[int, Marks, dict[int, int]] | None] = []
    for sheets, final in cases:
        over = GameState(board, rules, tuple(sheets), seat, first, 0, True)  # seat's game over (D17, D18)
        scores = [final if j == seat else score(board, sheet, rules) for j, sheet in enumerate(sheets)]
        lost = lost_seats(over, scores)
        later = [j for j in range(over.players)
                 if j != seat and sheets[j].has_available and over.plays_later_this_round(j)]
        live_later = [j for j in later if j not in lost]
        nearest = min(later, key=over.place, default=-2)
        if len(live_later) != 1 or live_later[0] != nearest:
            found.append(None)
            continue
        y = live_later[0]
        # every seat but y and the lost ones has its final score (not in later: played or no item)
        finals = {j: scores[j] for j in range(over.players) if j != y and j not in lost}
        found.append((len(found), sheets[y], finals))
    known = [case for case in found if case is not None]
    chances = sheets_chances(board, rules, [(sheet, [tuple(finals.values())]) for _, sheet, finals in known])
    out: list[Fraction | None] = [None] * len(cases)
    for (i, _, finals), (chance,) in zip(known, chances):
        out[i] = last_seat_shares(finals, chance)[seat]
    return out


@dataclass(frozen=True)
class DecidedWin(LastTurnWin):
    """The player's chance on a turn that is decided whatever it does (:func:`decided_objective`):
    every marking's value is :func:`shares` against ``others``, here every other seat's highest
    reachable score (final scores, or upper bounds for the seats still to play), exact because
    every final score the player can still reach is below another seat's score now (0) or its
    score now is above every other reach (1)."""

    name: str = "win (decided)"


def decided_objective(state: GameState) -> DecidedWin | None:
    """:class:`DecidedWin` where the active player's turn is decided whatever it does: the best
    score it can still end on below another seat's score now (chance 0: scores never fall, D13,
    D15), or its score now above the best every other seat can still end on (chance 1, D20).
    Once the end is triggered (its last turn, D18; another seat still to play, else
    :class:`LastTurnWin` applies) the best of its turn (:func:`best_score_range`) against
    :func:`settled_bounds`; before, its :func:`board.highest_score` against every other seat's
    (:func:`_final_reaches`, the bounds of :func:`lost_seats`: every available item marked, so
    the reaches of any number of turns). Else ``None``."""
    if state.players < 2:
        return None
    board, rules, marks = state.board, state.rules, state.marks
    now = score(board, marks, rules)
    if state.end_triggered:
        low, high, _ = settled_bounds(state)
        reach = best_score_range(board, rules, marks)[1] if marks.has_available else now
        reaches = tuple(reach for reach, _ in _other_reaches(state))
    else:
        low = top_other_score(board, state.sheets, state.active, rules)
        reaches = tuple(_final_reaches(state, False).values())
        reach, high = highest_score(board, marks, rules), max(reaches)
    if reach >= low and now <= high:
        return None
    return DecidedWin(reaches)


def exact_objective(state: GameState) -> LastTurnWin | BeforeLastWin | None:
    """The exact win-chance objective of the active player in ``state`` (module docstring): the
    last turn of the game for them against final scores, or with two players the turn before the
    opponent's last; ``None`` otherwise (or alone: solitaire has no winner to count).

    A seat still to play that has lost (:func:`lost_seats`: its best score below another seat's
    score now) changes no other seat's share (D20): its final score stays below that seat's final
    score, so it is never at the top. With every seat still to play lost, the end triggered (D18),
    the player's turn is a last turn against the other scores now (:class:`LastTurnWin`; a lost
    seat's score, final or not, is below the top)."""
    if state.players < 2:
        return None
    board, rules = state.board, state.rules
    left = still_to_play(state)
    if left and state.end_triggered:
        lost = lost_seats(state, [score(board, sheet, rules) for sheet in state.sheets])
        left = tuple(j for j in left if j not in lost)
    others = [j for j in range(state.players) if j != state.active]
    if not left:
        return LastTurnWin(tuple(score(board, state.sheets[j], rules) for j in others))
    if state.players == 2 and state.end_triggered:
        me, opponent = state.active, others[0]
        return BeforeLastWin(state.sheets[opponent], (state.sheets[me], state.sheets[opponent]))
    return None

