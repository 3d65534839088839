"""Review a played game: every decision of one player against the solver's best, exactly
(``shelfie-solve review``, docs/review.md).

For each decision of the player — a hold with re-rolls left (keeping every die = stopping,
D7, whether recorded as a :class:`Stop` or implied by the marking that follows), a marking
of the final dice (D8-D14), a shelf given up on a failed result (D13) — the value of the
choice made and of the best choice under the objective, both exact (``Fraction``):

* hold: the expected objective value of the hold with optimal play afterwards (the engine's
  ``E_r[h]``, :mod:`dp`), the best being the maximum over the roll's holds;
* marking: the objective's value of the marking (:func:`advice.rank_markings`);
* shelf: the objective's value of the shelf given up (:func:`advice.ranked_shelves`): the change
  of the strategic line potential for ``strategic``, the chance to win for ``win``; ``points``
  and the like value every failed result alike.

With opponents and the default objective (``win``, what ``play`` advises with) every value is
the chance to win (D20), and :class:`Review` also splits how it moved: luck, decisions, the
others' turns (docs/review.md).

The loss is best minus chosen (>= 0; 0 when the choice ties the best). The summary follows
Verhoeff's Yahtzee proficiency test (mean loss per decision) and dlangk/yatzy's "delta vs
optimal". Markings told without dice (unchecked) and failed results without dice cannot be
reviewed and are counted apart.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from shelfie_solver.dice.advise.advice import failed_options, rank_markings, ranked_shelves
from shelfie_solver.dice.rolls import Counts, dice_codes, space_for
from shelfie_solver.dice.engine.dp import TurnSolution, solve_turn
from shelfie_solver.core.errors import ShelfieError
from shelfie_solver.dice.game.events import Fail, GameState, Hold, Mark, Roll, Stop, UncheckedMark
from shelfie_solver.dice.game.record import game_texts
from shelfie_solver.core.inputs import parse_json
from shelfie_solver.dice.objectives import Objective, StateArrays, Strategic
from shelfie_solver.dice.advise.report import keep_label
from shelfie_solver.dice.play.gamefile import (
    KeptGame,
    PLAY_OBJECTIVE,
    KeptGameError,
    act,
    kept_game_from_dict,
    objective_for,
    split_actions,
    start_kept_game,
)


#: How a loss of win chance is classified (docs/review.md, "Inaccuracy, mistake, blunder"), in
#: probability: at least 2, 5 and 10 percentage points.
INACCURACY, MISTAKE, BLUNDER = Fraction(2, 100), Fraction(5, 100), Fraction(10, 100)


def severity(loss: Fraction) -> str:
    """``blunder``, ``mistake``, ``inaccuracy`` or ``""`` for a loss of win chance (a probability)."""
    if loss >= BLUNDER:
        return "blunder"
    if loss >= MISTAKE:
        return "mistake"
    if loss >= INACCURACY:
        return "inaccuracy"
    return ""


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
class CurvePoint:
    """One point of the reviewed player's value over the game: ``round``, what happened just
    before (``turn start``, ``roll``, ``hold``, ``mark``, ``shelf``, ``result``) and the value."""

    round: int
    what: str
    value: Fraction


@dataclass(frozen=True)
class Review:
    """Every reviewed decision of one player, in order, and the decisions that could not be
    reviewed (``unchecked``: entered without dice).

    With ``win`` every value is the player's chance to win (D20) and the review also splits how
    it moved: ``luck`` (the dice: the position's value after each roll minus its expected value
    before it), the decisions (minus :attr:`total_loss`) and ``others`` (the other players' turns:
    the value at the start of each of the player's turns minus the value at the end of the
    previous one); ``start`` the value at the start of the player's first turn, ``result`` the
    share of victory if the game is over; ``curve`` every value in game order.
    """

    player: str
    seat: int
    objective: str
    decisions: tuple[Decision, ...]
    unchecked: int
    turns: int
    win: bool = False
    luck: Fraction = Fraction(0)
    others: Fraction = Fraction(0)
    start: Fraction | None = None
    result: Fraction | None = None
    curve: tuple[CurvePoint, ...] = ()

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

    def counts(self) -> dict[str, int]:
        """With ``win``: how many decisions are inaccuracies, mistakes and blunders (:func:`severity`)."""
        found = [severity(d.loss) for d in self.decisions] if self.win else []
        return {kind: found.count(kind) for kind in ("inaccuracy", "mistake", "blunder")}

    def costliest(self, count: int = 5) -> tuple[int, ...]:
        """Positions in :attr:`decisions` of the ``count`` costliest decisions with a loss,
        largest loss first (ties in game order)."""
        ranked = sorted(range(len(self.decisions)), key=lambda i: (-self.decisions[i].loss, i))
        return tuple(i for i in ranked[:count] if self.decisions[i].loss > 0)


def review(table: KeptGame, seat: int, objective: str = PLAY_OBJECTIVE) -> Review:
    """Review every decision of ``seat`` in a game (module docstring) under ``objective``, by
    default the one ``play`` advises with (so a player who followed every piece of advice loses 0).

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
    curve: list[CurvePoint] = []
    unchecked = turns = 0
    solved: dict[tuple[int, int, int], tuple[Objective, TurnSolution]] = {}
    win = None
    luck = others = Fraction(0)
    start: Fraction | None = None
    expected: Fraction | None = None  # the value before the dice moved
    last_end: Fraction | None = None  # the value at the end of the player's previous turn
    stop_left = 0  # re-rolls left when the player recorded a Stop this turn (shown with the marking)

    def turn_of(state: GameState) -> tuple[Objective, TurnSolution]:
        key = (state.turn, state.marks.marked, state.marks.eliminated)
        if key not in solved:
            obj = objective_for(objective, state)
            solved[key] = (obj, solve_turn(board, state.marks, rules, obj))
        return solved[key]

    for i, action in enumerate(actions):
        first = action[0]
        if now.active == seat:
            state, marks = now.state, now.state.marks
            if isinstance(first, Roll) and now.dice is None and marks.available:  # the turn starts (D6)
                obj, solution = turn_of(state)
                win = getattr(obj, "win_chance_exact", None) is not None if win is None else win
                value = solution.start_values()[0]
                if last_end is not None:
                    others += value - last_end
                start = value if start is None else start
                expected = value
                curve.append(CurvePoint(state.round, "turn start", value))
            # a Stop is the hold of every die; the marking after it is not charged the hold again
            if isinstance(first, (Hold, Stop, Mark, Fail)) and now.dice is not None and not now.stopped:
                obj, solution = turn_of(state)
                if now.rerolls_left > 0:
                    position = solution.roll_value(now.dice, now.rerolls_left)
                else:
                    options = rank_markings(now.dice, board, marks, rules, obj)
                    position = options[0].value if options else Fraction(
                        obj.failed_value(StateArrays(board, rules, marks)), obj.scale(rules))
                if expected is not None and position != expected:
                    luck += position - expected
                    curve.append(CurvePoint(state.round, "roll", position))
                expected = position
            if isinstance(first, (Hold, Stop, Mark, Fail)) and now.dice is not None and now.rerolls_left > 0:
                obj, solution = turn_of(state)
                keep = first.keep if isinstance(first, Hold) else now.dice
                holds = space_for(rules).holds_of(now.dice)
                values = {h: solution.hold_value(h, now.rerolls_left) for h in holds}
                best_hold = max(holds, key=lambda h: (values[h], h == keep, sum(h)))  # a tie names the choice
                decisions.append(Decision(state.round, "hold", now.dice, now.rerolls_left, keep_label(keep, rules),
                                          keep_label(best_hold, rules), values[keep], values[best_hold]))
                expected = values[keep]
                if isinstance(first, Hold):
                    curve.append(CurvePoint(state.round, "hold", values[keep]))
            if isinstance(first, Roll):
                turns += 1
            elif isinstance(first, Stop):
                stop_left = now.rerolls_left
            elif isinstance(first, Hold):
                pass
            elif isinstance(first, UncheckedMark) or (isinstance(first, Fail) and now.dice is None):
                unchecked += 1
                expected = last_end = None
            elif isinstance(first, Mark):
                assert now.dice is not None
                obj = turn_of(state)[0]
                options = rank_markings(now.dice, board, marks, rules, obj)
                chosen = next(o for o in options if o.marking.cells == first.cells)
                top = chosen if chosen.value == options[0].value else options[0]  # a tie names the choice
                decisions.append(Decision(state.round, "mark", now.dice, stop_left if now.stopped else now.rerolls_left,
                                          _items(table, first.cells), _items(table, top.marking.cells),
                                          chosen.value, top.value))
                last_end, expected = chosen.value, None
                curve.append(CurvePoint(state.round, "mark", chosen.value))
            elif isinstance(first, Fail):
                assert now.dice is not None
                obj = turn_of(state)[0]
                shelves = ranked_shelves(failed_options(board, marks, rules), StateArrays(board, rules, marks), obj)
                strategic = isinstance(obj, Strategic)
                worth = {o.shelf: (o.potential_change if strategic else o.value if o.value is not None else Fraction(0))
                         for o in shelves}
                best = first.shelf if worth[first.shelf] == worth[shelves[0].shelf] else shelves[0].shelf
                decisions.append(Decision(state.round, "shelf", now.dice, 0, f"shelf {first.shelf + 1}",
                                          f"shelf {best + 1}", worth[first.shelf], worth[best]))
                last_end, expected = worth[first.shelf], None
                curve.append(CurvePoint(state.round, "shelf", worth[first.shelf]))
        now = act(now, action)
    result = None
    over = now.over
    if win and over is not None:
        from shelfie_solver.dice.win_chance import share

        result = share(over.scores[seat], [s for j, s in enumerate(over.scores) if j != seat])
        if last_end is not None:
            others += result - last_end
        curve.append(CurvePoint(over.rounds, "result", result))
    return Review(table.players[seat], seat, objective, tuple(decisions), unchecked, turns, bool(win), luck, others,
                  start, result, tuple(curve))


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
