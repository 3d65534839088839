"""The numbers of a cheat sheet, computed by the solver (docs/cheatsheet.md).

A :class:`CheatSheet` (:func:`build_sheet`) holds four sections, every number an exact
:class:`~fractions.Fraction` from the engine (floats only when rendered):

1. **Item odds** (:func:`item_odds`): per item, the chance of marking it this turn from the start
   of a turn with holds aimed at it (``CellTarget``; D6-D12). Unavailable items (D4) are shown as
   marked / eliminated and not computed.
2. **Set odds** (:func:`set_odds`): the chance of ``n`` matching dice of one face (Joker rules
   D11 applied) after 0..``rerolls`` re-rolls from a fresh roll, and with ``k`` matching dice
   (or ``k - 1`` and a Joker) already held.
3. **Hold rules of thumb** (:func:`~shelfie_solver.dice.cheatsheet.rules_of_thumb.hold_rules`):
   first rolls grouped by pattern, the solver's best hold under the default objective
   (``Strategic``) in pattern terms, and its margin.
4. **Failed-result risk** (:func:`risk_samples`): the chance of a failed result (D13) with safe
   play in sample late-game states derived from the board (:func:`sample_states`).

:func:`all_jokers_gap` finds where section 1 exceeds section 2 (the all-Jokers roll, D12). The
Joker's rules (D11, D12) come from :mod:`shelfie_solver.dice.joker`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from shelfie_solver.dice.allocate import set_indicator
from shelfie_solver.dice.board import Board, CellState, Marks, verify_marks_fit
from shelfie_solver.dice.cheatsheet.rules_of_thumb import HoldRule, hold_rules
from shelfie_solver.dice.cheatsheet.wording import dice_text
from shelfie_solver.dice.engine.dp import TurnSolution, solve, solve_turn
from shelfie_solver.dice.joker import all_jokers_roll, holds_combination
from shelfie_solver.dice.objectives import CellTarget, Safe
from shelfie_solver.dice.rolls import Counts, multinomial, space_for
from shelfie_solver.dice.rules import Ruleset

#: ``progress(done, total)``: steps finished out of the total, called after each step.
Progress = Callable[[int, int], None]


# --- section 1: item odds ---------------------------------------------------------------------


@dataclass(frozen=True)
class ItemOdds:
    """One item of the heatmap.

    Attributes:
        cell: cell index (``Board.cell_name`` gives ``r<shelf>c<column>``).
        state: available, marked or eliminated (D4).
        chance: probability of marking it this turn with play aimed at it, from the start of a
            turn (first roll and every re-roll, D6/D7); ``None`` when not available.
    """

    cell: int
    state: CellState
    chance: Fraction | None


def item_chance(board: Board, marks: Marks, rules: Ruleset, cell: int) -> Fraction:
    """Chance of marking ``cell`` this turn from the start of a turn, holds aimed at it (D6-D12).

    ``dp.solve_turn(..., CellTarget(cell)).start_values()[0]``; a probability.
    """
    return solve_turn(board, marks, rules, CellTarget(cell)).start_values()[0]


def item_odds(board: Board, marks: Marks, rules: Ruleset,
              step: Callable[[], None] | None = None) -> tuple[ItemOdds, ...]:
    """Every item of the board in cell order, with its chance when available (one solve each).

    ``step`` (optional) is called after each solve, for progress reports.
    """
    out = []
    for cell in range(board.n_cells):
        state = marks.state(cell)
        chance = item_chance(board, marks, rules, cell) if state is CellState.AVAILABLE else None
        if chance is not None and step:
            step()
        out.append(ItemOdds(cell, state, chance))
    return tuple(out)


# --- section 2: set odds ----------------------------------------------------------------------


@dataclass(frozen=True)
class HeldOdds:
    """Chance of a set of ``target`` dice of one face by the end of the turn, mid-turn.

    Attributes:
        target: the set size ``n`` (D8: ``n`` matching dice, D11: or ``n - 1`` and a Joker).
        matching: dice of the face already held.
        joker: whether a Joker is held too (so ``matching + 1`` dice are held).
        rerolls: re-rolls left after the hold (>= 1).
        chance: probability (``TurnSolution.hold_value``), optimal re-rolls after the hold.
        made: the held dice already form the set (then ``chance`` is 1).
    """

    target: int
    matching: int
    joker: bool
    rerolls: int
    chance: Fraction
    made: bool


@dataclass(frozen=True)
class SetOdds:
    """Set odds for one face, or for several faces whose figures are exactly equal.

    Attributes:
        faces: side numbers sharing these figures (all item faces on a fair die, D2).
        fresh: ``fresh[n - 1][r]``: chance of ``n`` matching dice (``n`` = 1..dice) after ``r``
            re-rolls (``r`` = 0..rules.rerolls) from a fresh roll, holds optimal for that set.
        held: the mid-turn chances, for every hold of ``k`` matching dice with or without a
            Joker (``k + joker`` from 1 to dice - 1), target 2..dice, re-rolls 1..rules.rerolls.
    """

    faces: tuple[int, ...]
    fresh: tuple[tuple[Fraction, ...], ...]
    held: tuple[HeldOdds, ...]


def held_rows(rules: Ruleset) -> list[tuple[int, bool]]:
    """The mid-turn holds as ``(matching, joker)``, smallest first: (1, no), (0, Joker),
    (2, no), (1, Joker), ... up to ``dice - 1`` dice held (holding all dice is stopping)."""
    rows = []
    for k in range(1, rules.dice):
        rows.append((k, False))
        if rules.joker is not None:
            rows.append((k - 1, True))
    return rows


def _hold(rules: Ruleset, face: int, matching: int, joker: bool) -> Counts:
    counts = [0] * rules.n_sides
    counts[face] = matching
    if joker:
        assert rules.joker_index is not None
        counts[rules.joker_index] = 1
    return tuple(counts)


def set_solution(rules: Ruleset, face: int, n: int) -> TurnSolution:
    """The turn solved for "``n`` dice of ``face``" (``allocate.set_indicator`` + ``dp.solve``)."""
    space = space_for(rules)
    return solve(space, set_indicator(space, rules, face, n), rules.rerolls)


def fresh_chance(solution: TurnSolution, rerolls: int) -> Fraction:
    """Chance from a fresh roll followed by ``rerolls`` re-rolls (0..solution.rerolls)."""
    return solution.start_values(rerolls)[0]


FaceOdds = tuple[tuple[tuple[Fraction, ...], ...], tuple[HeldOdds, ...]]
"""``(fresh, held)`` of :class:`SetOdds` for one face."""


def face_set_odds(rules: Ruleset, face: int) -> FaceOdds:
    """``(fresh, held)`` of :class:`SetOdds` for one face: one solve per set size."""
    fresh, held = [], []
    joker = rules.joker_index
    for n in range(1, rules.dice + 1):
        solution = set_solution(rules, face, n)
        fresh.append(tuple(fresh_chance(solution, r) for r in range(rules.rerolls + 1)))
        if n < 2:
            continue
        for matching, with_joker in held_rows(rules):
            hold = _hold(rules, face, matching, with_joker)
            made = holds_combination(matching, hold[joker] if joker is not None else 0, n, rules)  # D11
            for r in range(1, rules.rerolls + 1):
                held.append(HeldOdds(n, matching, with_joker, r, solution.hold_value(hold, r), made))
    return tuple(fresh), tuple(held)


def set_odds(rules: Ruleset, step: Callable[[], None] | None = None) -> tuple[SetOdds, ...]:
    """Set odds of every item face, faces with exactly equal figures merged (in face order).

    On a fair die all item faces are symmetric (D2: each side equally likely; D11's Joker limits
    do not depend on the face), so the default rules give one entry for all faces; this is
    checked exactly, not assumed. ``step`` is called after each face.
    """
    faces_of: dict[FaceOdds, list[int]] = {}
    for face in range(rules.n_faces):
        faces_of.setdefault(face_set_odds(rules, face), []).append(face)
        if step:
            step()
    return tuple(SetOdds(tuple(faces), fresh, held) for (fresh, held), faces in faces_of.items())


# --- section 4: failed-result risk ------------------------------------------------------------


@dataclass(frozen=True)
class SampleState:
    """A late-game state derived from the board: ``marks`` has only ``cells`` available."""

    name: str
    cells: tuple[int, ...]
    marks: Marks


def sample_states(board: Board) -> tuple[SampleState, ...]:
    """Up to four deterministic late-game states (docs/cheatsheet.md); every other item marked.

    1. one shelf left: the top shelf's items;
    2. the hardest column left: the column needing the most dice (first such column);
    3. the easiest column left: the column needing the fewest dice;
    4. a diagonal: one item per shelf, shelf ``s`` in column ``s mod columns``.
    States with the same available items as an earlier one are dropped.
    """
    hardest = max(range(board.n_columns), key=lambda c: (board.columns[c], -c))
    easiest = min(range(board.n_columns), key=lambda c: (board.columns[c], c))
    columns = board.lines[board.n_shelves:]
    diagonal = tuple(sorted(board.cell(s, s % board.n_columns) for s in range(board.n_shelves)))
    candidates = [
        ("one shelf left (shelf 1)", board.lines[0]),
        (f"hardest column left (column {hardest + 1}, {dice_text(board.columns[hardest])})", columns[hardest]),
        (f"easiest column left (column {easiest + 1}, {dice_text(board.columns[easiest])})", columns[easiest]),
        ("diagonal (one item per shelf)", diagonal),
    ]
    out: list[SampleState] = []
    everything = (1 << board.n_cells) - 1
    for name, cells in candidates:
        if any(set(s.cells) == set(cells) for s in out):
            continue
        marked = everything & ~sum(1 << c for c in cells)
        out.append(SampleState(name, cells, Marks(board.n_shelves, board.n_columns, marked, 0)))
    return tuple(out)


@dataclass(frozen=True)
class RiskSample:
    """Failed-result risk in one sample state with safe play (``objectives.Safe``, D13).

    Attributes:
        state: the sample state.
        risk: chance of a failed result this turn from the start of a turn (1 - start value).
        roll: a typical first roll that cannot mark anything yet (the most probable such roll,
            first in dice order on ties), or ``None`` when every roll marks an item.
        hold: the hold that minimises the risk for ``roll`` (the engine's choice).
        hold_risk: the risk after that hold; reroll_risk: after re-rolling all dice.
        ties: how many other holds of ``roll`` give exactly the same risk.
    """

    state: SampleState
    risk: Fraction
    roll: Counts | None
    hold: Counts | None
    hold_risk: Fraction | None
    reroll_risk: Fraction | None
    ties: int


def risk_sample(board: Board, rules: Ruleset, state: SampleState) -> RiskSample:
    """Solve one sample state for ``Safe`` and read the start-of-turn risk and a typical hold."""
    solution = solve_turn(board, state.marks, rules, Safe())
    risk = 1 - solution.start_values()[0]
    failing = np.flatnonzero(solution.values[0][:, 0] == 0)
    if rules.rerolls < 1 or len(failing) == 0:
        return RiskSample(state, risk, None, None, None, None, 0)
    space = solution.space
    top = rules.rerolls
    weights = [multinomial(space.rolls[i]) for i in failing]
    index = int(failing[int(np.argmax(weights))])  # argmax: the first of the most probable
    roll = space.rolls[index]
    policy = solution.policy[top]
    assert policy is not None
    hold = space.holds[int(policy[index])]
    safe_after = solution.hold_value(hold, top)
    ties = sum(solution.hold_value(h, top) == safe_after for h in space.holds_of(roll)) - 1
    reroll = 1 - solution.hold_value((0,) * rules.n_sides, top)
    return RiskSample(state, risk, roll, hold, 1 - safe_after, reroll, ties)


def risk_samples(board: Board, rules: Ruleset, step: Callable[[], None] | None = None) -> tuple[RiskSample, ...]:
    """:func:`risk_sample` for every state of :func:`sample_states`."""
    out = []
    for state in sample_states(board):
        out.append(risk_sample(board, rules, state))
        if step:
            step()
    return tuple(out)


# --- the whole sheet --------------------------------------------------------------------------


@dataclass(frozen=True)
class CheatSheet:
    """Every number of a cheat sheet (exact), for one board, board state and ruleset.

    Attributes:
        rules, board, marks: the setup.
        items: section 1, one per cell in cell order.
        sets: section 2, one per group of faces with equal figures.
        rules_of_thumb: section 3, the patterns shown; all_rules: every pattern.
        risks: section 4.
    """

    rules: Ruleset
    board: Board
    marks: Marks
    items: tuple[ItemOdds, ...]
    sets: tuple[SetOdds, ...]
    rules_of_thumb: tuple[HoldRule, ...]
    all_rules: tuple[HoldRule, ...]
    risks: tuple[RiskSample, ...]

    @property
    def coverage(self) -> Fraction:
        """Share of first rolls covered by the rules of thumb shown."""
        return sum((r.share for r in self.rules_of_thumb), Fraction(0))


def sheet_steps(board: Board, marks: Marks, rules: Ruleset) -> int:
    """Number of progress steps :func:`build_sheet` reports (one per solve group)."""
    return len(marks.available) + rules.n_faces + 1 + len(sample_states(board))


def build_sheet(board: Board, marks: Marks, rules: Ruleset, progress: Progress | None = None) -> CheatSheet:
    """Compute every number of the sheet (sections 1-4 of the module docstring).

    Args:
        progress: called as ``progress(done, total)`` after each step (:func:`sheet_steps`).

    Raises:
        MarksError: the marks do not fit the board.
    """
    verify_marks_fit(marks, board)
    total = sheet_steps(board, marks, rules)
    done = 0

    def step() -> None:
        nonlocal done
        done += 1
        if progress:
            progress(done, total)

    items = item_odds(board, marks, rules, step)
    sets = set_odds(rules, step)
    shown, every = hold_rules(board, marks, rules)
    step()
    risks = risk_samples(board, rules, step)
    return CheatSheet(rules, board, marks, items, sets, shown, every, risks)


# --- where the item odds exceed the set odds (D12) ----------------------------------------------


def all_jokers_gap(sheet: CheatSheet) -> tuple[ItemOdds, Fraction] | None:
    """Where the item odds (section 1) exceed the set odds (section 2, every re-roll) for the
    same face and dice count: the all-Jokers roll marks any one item (D12) but is no set (D11).
    The available item of a one-face shelf with the largest gap and its set chance; ``None``
    when no item's odds differ (D12 off, Jokers alone allowed in a set, or no such item)."""
    rules, board = sheet.rules, sheet.board
    if all_jokers_roll(rules) is None:  # no Joker, or D12 off
        return None
    fresh = {face: entry.fresh for entry in sheet.sets for face in entry.faces}
    gaps = []
    for item in sheet.items:
        faces, n = board.faces_of(item.cell), board.need(item.cell)
        if item.chance is None or len(faces) != 1 or faces[0] not in fresh or n > len(fresh[faces[0]]):
            continue
        chance = fresh[faces[0]][n - 1][rules.rerolls]
        if item.chance > chance:
            gaps.append((item.chance - chance, -item.cell, item, chance))
    if not gaps:
        return None
    _, _, item, chance = max(gaps, key=lambda g: g[:2])  # the largest gap; the first cell among equal ones
    return item, chance

