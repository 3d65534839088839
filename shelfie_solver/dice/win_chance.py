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

Values are integers over :meth:`scale` (``WIN_UNIT = 12 = lcm(1, 2, 3, 4)``, so ``1/k`` is whole
for up to four players; times the opponent's denominator for :class:`BeforeLastWin`).
:func:`exact_objective` picks the one that applies to a game state, or ``None``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import ClassVar

import numpy as np

from shelfie_solver.dice.board import Board, ItemSets, Marks, score
from shelfie_solver.dice.game.events import GameState
from shelfie_solver.dice.objectives import Objective, Points, StateArrays
from shelfie_solver.dice.rules import Ruleset
from shelfie_solver.dice.sheet_rules import block, completed_lines, failed_result_shelves

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
    top = max(others)
    tied = 1 + sum(s == top for s in others)
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
        return shares(now + Points().values(state, sets), self.others)

    def failed_value(self, state: StateArrays) -> int:
        return int(shares(np.array(score(state.board, state.marks, state.rules)), self.others))

    def shelf_values(self, state: StateArrays) -> list[tuple[int, int]]:
        """For a failed result (D13): ``(shelf, value)`` per shelf with an available item, all
        alike (giving up a shelf changes no score), in shelf order."""
        return [(shelf, self.failed_value(state)) for shelf in failed_result_shelves(state.board, state.marks)]


def opponent_chance(board: Board, rules: Ruleset, marks: Marks, others: tuple[int, ...]) -> Fraction:
    """The exact chance that a player with ``marks`` wins with one turn left (the initial roll and
    every re-roll, D6, D7) when the other final scores are ``others``: :class:`LastTurnWin`
    through the engine. A sheet with no available item keeps its score (the player passes)."""
    from shelfie_solver.dice.engine.dp import solve_turn

    if not marks.available:
        return share(score(board, marks, rules), others)
    solution = solve_turn(board, marks, rules, LastTurnWin(others))
    return solution.start_values()[0]


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
    _chances: dict[tuple[int, int, int], Fraction] = field(default_factory=dict, repr=False)

    def scale(self, rules: Ruleset) -> int:
        from shelfie_solver.dice.rolls import space_for

        # the opponent's start value: over WIN_UNIT * D^(rerolls + 1) (the initial roll, then re-rolls)
        scale: int = WIN_UNIT * int(space_for(rules).denominator) ** (rules.rerolls + 1)
        return scale

    def chance(self, board: Board, rules: Ruleset, mine: int, opponent: Marks) -> Fraction:
        """The opponent's exact chance to win against the player's final score ``mine`` (cached)."""
        key = (mine, opponent.marked, opponent.eliminated)
        if key not in self._chances:
            self._chances[key] = opponent_chance(board, rules, opponent, (mine,))
        return self._chances[key]

    def _mine(self, state: StateArrays, after_score: int, cells: tuple[int, ...]) -> int:
        """The player's chance times :meth:`scale` after marking ``cells`` for ``after_score``."""
        board, rules = state.board, state.rules
        mine = self.sheets[0].with_marked(cells)
        done = completed_lines(board, mine)
        before = set(completed_lines(board, self.sheets[0]))
        new = tuple(line for line in done if line not in before)
        opponent = block(board, (mine, self.opponent), 0, new)[0][1] if new else self.opponent
        theirs = self.chance(board, rules, after_score, opponent)
        value = (1 - theirs) * self.scale(rules)
        assert value.denominator == 1
        return int(value)

    def values(self, state: StateArrays, sets: ItemSets) -> np.ndarray:
        now = score(state.board, state.marks, state.rules)
        after = now + Points().values(state, sets)
        out = np.zeros(len(after), dtype=np.int64)
        for i in range(len(after)):
            cells = tuple(int(c) for c in sets.cells[i] if c >= 0)
            out[i] = self._mine(state, int(after[i]), cells)
        return out

    def failed_value(self, state: StateArrays) -> int:
        # D13: giving up a shelf changes no score, and completes no line (nothing is marked)
        return self._mine(state, score(state.board, state.marks, state.rules), ())

    def shelf_values(self, state: StateArrays) -> list[tuple[int, int]]:
        """As :meth:`LastTurnWin.shelf_values` (nothing is marked, so nothing is blocked)."""
        return [(shelf, self.failed_value(state)) for shelf in failed_result_shelves(state.board, state.marks)]


def still_to_play(state: GameState) -> tuple[int, ...]:
    """The other seats that may still change their score this game (D18): every other seat with
    an available item, unless the end is triggered, then only those after the active player in
    this round's play order."""
    out = []
    for j in range(state.players):
        if j == state.active or not state.sheets[j].available:
            continue
        if state.end_triggered and not state.plays_later_this_round(j):
            continue  # already played their last turn (D18)
        out.append(j)
    return tuple(out)


def exact_objective(state: GameState) -> LastTurnWin | BeforeLastWin | None:
    """The exact win-chance objective of the active player in ``state`` (module docstring): the
    last turn of the game for them against final scores, or with two players the turn before the
    opponent's last; ``None`` otherwise (or alone: solitaire has no winner to count)."""
    if state.players < 2:
        return None
    board, rules = state.board, state.rules
    left = still_to_play(state)
    others = [j for j in range(state.players) if j != state.active]
    if not left:
        return LastTurnWin(tuple(score(board, state.sheets[j], rules) for j in others))
    if state.players == 2 and state.end_triggered:
        me, opponent = state.active, others[0]
        return BeforeLastWin(state.sheets[opponent], (state.sheets[me], state.sheets[opponent]))
    return None

