"""Review a played game: every decision of one player against the solver's best, exactly
(``shelfie-solve review``, docs/review.md).

For each decision of the player — a hold with re-rolls left (keeping every die = stopping,
D7), a marking of the final dice (D8-D14), a shelf given up on a failed result (D13) — the value
of the choice made and of the best choice under the objective, both exact (``Fraction``):

* hold: the expected objective value of the hold with optimal play afterwards (the engine's
  ``E_r[h]``, :mod:`engine`), the best being the maximum over the roll's holds;
* marking: the objective's value of the marking (:func:`advise.rank_markings`);
* shelf: the change of the strategic line potential (:func:`advise.failed_options`); only the
  ``strategic`` objective tells shelves apart (the others value every failed result alike).

The loss is best minus chosen (>= 0; 0 when the choice ties the best). The summary follows
Verhoeff's Yahtzee proficiency test (mean loss per decision) and dlangk/yatzy's "delta vs
optimal". Markings told without dice (unchecked) and failed results without dice cannot be
reviewed and are counted apart.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from shelfie_solver.dice.advise.advice import failed_options, rank_markings
from shelfie_solver.dice.rolls import Counts, dice_codes, space_for
from shelfie_solver.dice.engine.dp import TurnSolution, solve_turn
from shelfie_solver.core.errors import ShelfieError
from shelfie_solver.dice.game.events import Fail, Hold, Mark, Roll, UncheckedMark
from shelfie_solver.dice.game.record import game_texts
from shelfie_solver.core.inputs import parse_json
from shelfie_solver.dice.objectives import Objective, Strategic
from shelfie_solver.dice.advise.report import keep_label
from shelfie_solver.dice.play.gamefile import (
    KeptGame,
    KeptGameError,
    act,
    kept_game_from_dict,
    objective_for,
    split_actions,
    start_kept_game,
)


@dataclass(frozen=True)
class Decision:
    """One decision reviewed.

    Attributes:
        round: 1-based round of the turn.
        kind: ``hold``, ``mark`` or ``shelf``.
        dice: the dice showing when it was made.
        rerolls_left: re-rolls left then (D7).
        chosen, best: the choice made and the best choice, as text (a hold's dice, items, a shelf).
        chosen_value, best_value: their exact values under the objective (points or probability).
    """

    round: int
    kind: str
    dice: Counts
    rerolls_left: int
    chosen: str
    best: str
    chosen_value: Fraction
    best_value: Fraction

    @property
    def loss(self) -> Fraction:
        """Best value minus the chosen value (>= 0)."""
        return self.best_value - self.chosen_value


@dataclass(frozen=True)
class Review:
    """Every reviewed decision of one player, in order, and the decisions that could not be
    reviewed (``unchecked``: entered without dice)."""

    player: str
    seat: int
    objective: str
    decisions: tuple[Decision, ...]
    unchecked: int
    turns: int

    @property
    def mean_loss_per_turn(self) -> Fraction:
        """Total loss per turn with dice recorded (0 without such turns)."""
        return self.total_loss / self.turns if self.turns else Fraction(0)

    @property
    def total_loss(self) -> Fraction:
        """Sum of the losses."""
        return sum((d.loss for d in self.decisions), Fraction(0))

    @property
    def mean_loss(self) -> Fraction:
        """Mean loss per decision (0 without decisions)."""
        return self.total_loss / len(self.decisions) if self.decisions else Fraction(0)

    def over(self, threshold: Fraction) -> int:
        """Decisions losing more than ``threshold``."""
        return sum(d.loss > threshold for d in self.decisions)

    def costliest(self, count: int = 5) -> tuple[int, ...]:
        """Positions in :attr:`decisions` of the ``count`` costliest decisions with a loss,
        largest loss first (ties in game order)."""
        ranked = sorted(range(len(self.decisions)), key=lambda i: (-self.decisions[i].loss, i))
        return tuple(i for i in ranked[:count] if self.decisions[i].loss > 0)


def review(table: KeptGame, seat: int, objective: str = "strategic") -> Review:
    """Review every decision of ``seat`` in a game (module docstring).

    Raises:
        KeptGameError: ``seat`` is not a seat of the game; ObjectiveError: an unknown objective.
    """
    if not 0 <= seat < len(table.players):
        raise KeptGameError(f"seat {seat + 1} is not in this game; seats 1..{len(table.players)}")
    objective_for(objective, table.state)  # a bad name is refused even when there is nothing to review
    board, rules = table.board, table.rules
    actions = [action for _, action in split_actions(table.events)]
    now = start_kept_game(board, rules, table.players, table.state.first)
    decisions: list[Decision] = []
    unchecked = turns = 0
    solved: dict[tuple[int, int], tuple[Objective, TurnSolution]] = {}
    for i, action in enumerate(actions):
        first = action[0]
        if now.active == seat:
            state, marks = now.state, now.state.marks
            if isinstance(first, (Hold, Mark, Fail)) and now.dice is not None and now.rerolls_left > 0:
                key = (marks.marked, marks.eliminated)
                if key not in solved:
                    obj = objective_for(objective, state)
                    solved[key] = (obj, solve_turn(board, marks, rules, obj))
                solution = solved[key][1]
                keep = first.keep if isinstance(first, Hold) else now.dice
                holds = space_for(rules).holds_of(now.dice)
                values = {h: solution.hold_value(h, now.rerolls_left) for h in holds}
                best_hold = max(holds, key=lambda h: (values[h], sum(h)))
                decisions.append(Decision(state.round, "hold", now.dice, now.rerolls_left, keep_label(keep, rules),
                                          keep_label(best_hold, rules), values[keep], values[best_hold]))
            if isinstance(first, Roll):
                turns += 1
            elif isinstance(first, Hold):
                pass
            elif isinstance(first, UncheckedMark) or (isinstance(first, Fail) and now.dice is None):
                unchecked += 1
            elif isinstance(first, Mark):
                assert now.dice is not None
                options = rank_markings(now.dice, board, marks, rules, objective_for(objective, state))
                chosen = next(o for o in options if o.marking.cells == first.cells)
                decisions.append(Decision(state.round, "mark", now.dice, now.rerolls_left,
                                          _items(table, first.cells), _items(table, options[0].marking.cells),
                                          chosen.value, options[0].value))
            elif isinstance(first, Fail):
                assert now.dice is not None
                shelves = failed_options(board, marks, rules)
                strategic = isinstance(objective_for(objective, state), Strategic)
                value = {o.shelf: (o.potential_change if strategic else Fraction(0)) for o in shelves}
                best = shelves[0].shelf
                decisions.append(Decision(state.round, "shelf", now.dice, 0, f"shelf {first.shelf + 1}",
                                          f"shelf {best + 1}", value[first.shelf], value[best]))
        now = act(now, action)
    return Review(table.players[seat], seat, objective, tuple(decisions), unchecked, turns)


def _items(table: KeptGame, cells: tuple[int, ...]) -> str:
    return " ".join(table.board.cell_name(c) for c in cells)


def load_reviewable(path: str, game: int = 1) -> KeptGame:
    """Game number ``game`` of a file, counted from 1 in file order (``--game 1`` is the line
    ``simulate --save`` numbers ``"game": 0``): a ``play`` game file or the JSON Lines of
    ``simulate --save``, checked against the rules.

    Raises:
        KeptGameError: ``game`` below 1, the file cannot be read, holds fewer games, or the game is
            malformed.
    """
    if game < 1:
        raise KeptGameError(f"--game {game} is not a game number; expected 1 or more (games are counted from 1 in "
                         'file order: --game 1 is the first, saved as "game": 0)')
    found = 0
    for _, text in game_texts(path):
        found += 1
        if found == game:
            data = parse_json(text, KeptGameError, f"{path} game {game}", "one saved game")
            try:
                return kept_game_from_dict(data, f"{path} game {game}")
            except ShelfieError as error:
                raise KeptGameError(str(error)) from None
    raise KeptGameError(f"{path} holds {found} game{'s' if found != 1 else ''}; expected --game 1..{found} "
                     '(counted from 1 in file order: --game 1 is the first, saved as "game": 0)')


def describe_dice(decision: Decision, table: KeptGame) -> str:
    """The dice of a decision with its re-rolls left, e.g. ``PPBCCJ (2 re-rolls left)``."""
    return f"{dice_codes(decision.dice, table.rules)} ({decision.rerolls_left} left)"
