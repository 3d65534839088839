"""Review a played game: every decision of one player against the solver's best, exactly
(``shelfie-solve review``, docs/review.md).

For each decision of the player — a hold with re-rolls left (keeping every die = stopping,
D7, whether recorded as a :class:`Stop` or implied by the marking that follows), a marking
of the final dice (D8-D14), a shelf given up on a failed result (D13) — the value of the
choice made and of the best choice under the objective, both exact (``Fraction``):

* hold: the expected objective value of the hold with optimal play afterwards (the engine's
  ``E_r[h]``, :mod:`dp`; the value the advice shows, exact where every roll it reaches is:
  :func:`advice.shown_turn`), the best being the advice's best hold;
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

import copy
from collections.abc import Sequence
from dataclasses import dataclass, replace
from fractions import Fraction

from shelfie_solver.dice.advise.advice import failed_options, failed_value, rank_markings, ranked_shelves, shown_turn
from shelfie_solver.dice.rolls import Counts, dice_codes, space_for
from shelfie_solver.dice.engine.dp import TurnSolution, solve_turn
from shelfie_solver.dice.engine.shown import ShownTurn
from shelfie_solver.core.errors import ShelfieError
from shelfie_solver.core.report import rounded
from shelfie_solver.dice.game.events import Event, Fail, GameState, Hold, Mark, Roll, Stop, UncheckedMark
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


#: The objectives in which a review speaks ``play``'s chance to win, the figure ``play status``
#: shows (the curve's turn starts are that figure: :meth:`_Reviewer._status_figure`).
CHANCE_NAMES = ("win", "win-model")

#: How a loss of win chance is classified (docs/review.md, "Inaccuracy, mistake, blunder"), in
#: probability: at least 2, 5 and 10 percentage points.
INACCURACY, MISTAKE, BLUNDER = Fraction(2, 100), Fraction(5, 100), Fraction(10, 100)


def severity(loss: Fraction) -> str:
    """``blunder``, ``mistake``, ``inaccuracy`` or ``""`` for a loss of win chance (a probability),
    read as the table prints it (percentage points at one decimal, :func:`core.report.rounded`):
    a loss of 4.991 points prints ``5.0`` and is a mistake, as the legend's ``>= 5`` reads, not an
    inaccuracy beside it."""
    loss = Fraction(rounded(loss * 100, 1)) / 100
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
    before (``turn start``, ``roll``, ``hold``, ``mark``, ``shelf``, ``told``: a turn told without
    dice, ``now``, ``result``) and the value; ``shown``, where the value is the figure ``play
    status`` shows at that moment, the text it prints for the seat
    (:func:`play.report.status_chance_texts`), else ``None``."""

    round: int
    what: str
    value: Fraction
    shown: str | None = None


@dataclass(frozen=True)
class Review:
    """Every reviewed decision of one player, in order, and the decisions that could not be
    reviewed (``unchecked``: entered without dice).

    With ``win`` every value is the player's chance to win (D20) and the review also splits how
    it moved: ``luck`` (the dice: the position's value after each roll minus its expected value
    before it), the decisions (minus :attr:`total_loss`) and ``others`` (the other players' turns:
    the value at the start of each of the player's turns minus the value at the end of the
    previous one, the hand-off from the figure ``play status`` shows to the player's own start
    value included), and, where ``play status``'s figures are the review's (``win`` with
    opponents), ``told``: the turns told without dice (unchecked), each the figure ``play status``
    shows right after it minus the one at its start (``None`` where not counted); ``start`` the
    value at the start of the player's first turn (with the chance to win, the figure ``play
    status`` shows then, as every turn start of ``curve``), ``result`` the share of victory if the
    game is over; ``curve`` every value in game order; ``start_shown`` and ``end_shown`` the texts
    ``play status`` prints for the seat at the first turn's start and now (or at the end), where
    the review speaks its figure (:func:`play.report.status_chance_texts`: rounded with the other
    seats' to add up to 100%), else ``None``. ``objective`` is
    the name asked, followed by ``(exact two-player optimum)`` when the cached two-player table
    stood for it (``win`` in a two-player game on a board that fits, docs/solve-game.md), that
    table's name ``table`` (``None`` when none stood for it).
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
    table: str | None = None
    told: Fraction | None = None
    start_shown: str | None = None
    end_shown: str | None = None

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


def review(kept: KeptGame, seat: int, objective: str = PLAY_OBJECTIVE) -> Review:
    """Review every decision of ``seat`` in a game (module docstring) under ``objective``, by
    default the one ``play`` advises with (so a player who followed every piece of advice loses 0).

    Raises:
        KeptGameError: ``seat`` is not a seat of the game; ObjectiveError: an unknown objective.
    """
    return review_from(kept, seat, objective)[0]


@dataclass(frozen=True, eq=False)
class ReviewPoint:
    """Where a review of one seat stood after an action: what :func:`review_from` goes on from
    instead of reviewing the game again from its start (``serve``'s running review, docs/serve.md).

    Attributes:
        seat, objective: the seat reviewed (0-based) and the objective named.
        events: the game's events up to the end of the last action seen (derived events after it
            included); a game whose events begin with these goes on from here.
        game: the game after those events.
        reviewer: what was found so far; never changed (copied before going on).
    """

    seat: int
    objective: str
    events: tuple[Event, ...]
    game: KeptGame
    reviewer: _Reviewer


def review_from(kept: KeptGame, seat: int, objective: str = PLAY_OBJECTIVE,
                points: Sequence[ReviewPoint] = ()) -> tuple[Review, ReviewPoint]:
    """:func:`review`, going on from the longest of ``points`` that the game passed through (its
    events a prefix of ``kept.events``, the same seat, objective, board, rules and players), else
    from the start; the same :class:`Review` either way (the actions after the point are seen as
    :func:`review` sees them, the others' turns and the game's end, D18-D20, counted at the end
    as there). Also the point after the game's last action, to go on from next time.

    Raises:
        KeptGameError: ``seat`` is not a seat of the game; ObjectiveError: an unknown objective.
    """
    if not 0 <= seat < len(kept.players):
        raise KeptGameError(f"seat {seat + 1} is not in this game; seats 1..{len(kept.players)}")
    objective_for(objective, kept.state)  # a bad name is refused even when there is nothing to review
    events = tuple(kept.events)
    usable = [p for p in points if p.seat == seat and p.objective == objective and len(p.events) <= len(events)
              and events[:len(p.events)] == p.events and p.game.players == kept.players
              and p.game.board == kept.board and p.game.rules == kept.rules]
    start = max(usable, key=lambda p: len(p.events), default=None)
    if start is None:
        reviewer = _Reviewer(kept, seat, objective)
        now, seen = start_kept_game(kept.board, kept.rules, kept.players, kept.state.first), 0
    else:
        reviewer, now, seen = start.reviewer.copy(), start.game, len(start.events)
    for at, action in split_actions(events):
        if at < seen:
            continue
        after = act(now, action)
        if now.active == seat:
            reviewer.see(now, action[0], after)
        now = after
    point = ReviewPoint(seat, objective, events, now, reviewer.copy())
    return reviewer.finish(now), point


def table_standing_in(asked: str, objective: Objective) -> str | None:
    """The name of ``objective`` when it is an exact whole-game table standing for the objective
    named ``asked`` (``win`` in a two-player game on a board that fits: the exact two-player
    optimum, docs/solve-game.md "Exact where it fits"), else ``None``."""
    return objective.name if getattr(objective, "whole_game", False) and objective.name != asked else None


def objective_named(asked: str, table: str | None) -> str:
    """The objective as a review names it (:attr:`Review.objective`): ``asked``, followed by
    ``(TABLE)`` when the exact table ``table`` stood for it (:func:`table_standing_in`), or the
    objective that stood for it in a one-player game (``win (learned)``: play's title names it)."""
    return asked if table is None else f"{asked} ({table})"


class _Reviewer:
    """What :func:`review` has found so far, one action of the reviewed seat at a time
    (:meth:`see`, on the game just before the action), then the :class:`Review` (:meth:`finish`).

    ``expected`` is the value before the dice moved (luck is a position's value minus it),
    ``last_end`` the value at the end of the player's previous turn (the others' turns moved it
    since; after a turn told without dice, the figure ``play status`` showed right after it),
    ``stop_left`` the re-rolls left when the player recorded a Stop this turn (shown with the
    marking), ``told`` the change over the turns told without dice (:class:`Review`)."""

    def __init__(self, kept: KeptGame, seat: int, objective: str) -> None:
        self.kept, self.seat, self.objective = kept, seat, objective
        self.board, self.rules = kept.board, kept.rules
        self.decisions: list[Decision] = []
        self.curve: list[CurvePoint] = []
        self.unchecked = self.turns = 0
        self.solved: dict[tuple[int, int, int], tuple[Objective, TurnSolution, ShownTurn | None]] = {}
        self.win: bool | None = None
        self.luck = self.others = self.told = Fraction(0)
        self.start: Fraction | None = None
        self.start_shown: str | None = None
        self.expected: Fraction | None = None
        self.last_end: Fraction | None = None
        self.stop_left = 0
        #: the name of the exact two-player table that stood for the objective (``win`` on a board that fits)
        self.table_name: str | None = None
        #: the objective that stood for it alone (``win`` in a one-player game: ``learned``), named in the title
        self.alone_name: str | None = None

    def copy(self) -> _Reviewer:
        """A copy to go on from: the lists found so far copied, the solved turns shared (never changed)."""
        twin = copy.copy(self)
        twin.decisions, twin.curve, twin.solved = list(self.decisions), list(self.curve), dict(self.solved)
        return twin

    def turn_of(self, state: GameState) -> tuple[Objective, TurnSolution, ShownTurn | None]:
        """The objective of the turn at ``state``, its solved DP and the values the advice shows
        where they are exact apart from the engine's integers (:func:`advice.shown_turn`; solved
        once per sheet and turn)."""
        key = (state.turn, state.marks.marked, state.marks.eliminated)
        if key not in self.solved:
            obj = self.objective_of(state)
            solution = solve_turn(self.board, state.marks, self.rules, obj)
            self.solved[key] = (obj, solution, shown_turn(self.board, state.marks, self.rules, obj, solution))
        return self.solved[key]

    def objective_of(self, state: GameState) -> Objective:
        """The objective of the turn at ``state`` (:func:`gamefile.objective_for`), noting the
        table or the objective that stood for the one named (the title names it) and, the first
        time, whether its values are the chance to win (:attr:`win`)."""
        obj = objective_for(self.objective, state)
        table = table_standing_in(self.objective, obj)
        if table is not None:
            self.table_name = table
        elif state.players == 1 and obj.name != self.objective:
            self.alone_name = obj.name  # win alone is learned's values (play's title names learned)
        if self.win is None:
            self.win = getattr(obj, "win_chance_exact", None) is not None
        return obj

    def see(self, now: KeptGame, first: Event, after: KeptGame) -> None:
        """Review the reviewed seat's action starting with ``first`` on the game ``now`` (``after``:
        the game after the action)."""
        state = now.state
        if isinstance(first, Roll) and now.dice is None and state.marks.available:  # the turn starts (D6)
            self._turn_start(now)
        # a Stop is the hold of every die; the marking after it is not charged the hold again
        if isinstance(first, (Hold, Stop, Mark, Fail)) and now.dice is not None and not now.stopped:
            self._position(now)
        if isinstance(first, (Hold, Stop, Mark, Fail)) and now.dice is not None and now.rerolls_left > 0:
            self._hold(now, first)
        if isinstance(first, Roll):
            self.turns += 1
        elif isinstance(first, Stop):
            self.stop_left = now.rerolls_left
        elif isinstance(first, Hold):
            pass
        elif isinstance(first, UncheckedMark) or (isinstance(first, Fail) and now.dice is None):
            self._told(now, after)
        elif isinstance(first, Mark):
            self._mark(now, first)
        elif isinstance(first, Fail):
            self._fail(now, first)

    def _turn_start(self, now: KeptGame) -> None:
        """The value at the turn's start: the curve shows the figure ``play status`` shows at this
        moment (:meth:`_status_figure`); the luck of the first roll is counted from the player's
        own start value (the engine's, under the objective), and the step from the figure shown
        to it, where the last player's view hands over to this player's, joins the others' turns
        (docs/review.md)."""
        state = now.state
        _, solution, values = self.turn_of(state)
        value = values.start()[0] if values is not None else solution.start_values()[0]
        shown, text = self._status_figure(now) if self._speaks_status() else (value, None)
        if self.last_end is not None:
            self.others += value - self.last_end
        elif self.start is None:
            self.others += value - shown
        self._started(shown, text)
        self.expected = value
        self.curve.append(CurvePoint(state.round, "turn start", shown, text))

    def _started(self, value: Fraction, text: str | None) -> None:
        """The start of a turn of the player, with ``value`` shown (``text``: as ``play status``
        prints it): the review's start if it is the first."""
        if self.start is None:
            self.start, self.start_shown = value, text

    def _told(self, now: KeptGame, after: KeptGame) -> None:
        """A turn told without dice (unchecked: no decision to review, no luck to count). Where
        the review speaks ``play status``'s figure, the curve shows it at the turn's start and
        right after the turn (``after``), their difference counted apart (:attr:`Review.told`)
        and the others' turns since the player's last turn counted up to its start, so the parts
        still add up; else the bookkeeping starts again at the player's next turn."""
        self.unchecked += 1
        self.expected = None
        self.objective_of(now.state)
        if not self._speaks_status():
            self.last_end = None
            return
        before, text = self._status_figure(now)
        if self.last_end is not None:
            self.others += before - self.last_end
        self._started(before, text)
        self.curve.append(CurvePoint(now.state.round, "turn start", before, text))
        end, end_text = self._status_figure(after)
        self.told += end - before
        self.last_end = end
        self.curve.append(CurvePoint(now.state.round, "told", end, end_text))

    def _speaks_status(self) -> bool:
        """Whether the review's values are ``play status``'s chance to win: ``win`` or
        ``win-model`` with opponents."""
        return bool(self.win) and len(self.kept.players) >= 2 and self.objective.strip().lower() in CHANCE_NAMES

    def _status_figure(self, now: KeptGame) -> tuple[Fraction, str]:
        """The reviewed seat's chance to win that ``play status`` shows in ``now`` and the text it
        prints for it (:func:`play.report.table_chances`, :func:`play.report.status_chance_texts`:
        at a turn's start, with two players, 1 minus the figure the last player's advice gave its
        choice; one probability of one position, docs/win-chance.md), the review's figure where it
        speaks in ``play``'s chance to win (``win``, ``win-model``) with opponents."""
        from shelfie_solver.dice.play.report import status_chance_texts, table_chances

        chances = table_chances(now)
        return chances[self.seat][0], status_chance_texts(now, chances)[self.seat]

    def _position(self, now: KeptGame) -> None:
        """The value of the dice just rolled (luck: it minus the value expected before them)."""
        assert now.dice is not None
        state, marks = now.state, now.state.marks
        obj, solution, shown = self.turn_of(state)
        if now.rerolls_left > 0:  # its best hold's value (_hold's best), as the advice shows it
            position = shown.roll(now.dice, now.rerolls_left)[0] if shown is not None else \
                solution.roll_value(now.dice, now.rerolls_left)
        else:
            options = rank_markings(now.dice, self.board, marks, self.rules, obj)
            if options:
                position = options[0].value
            else:  # the best shelf's value, exact where it is (advice.failed_value)
                arrays = StateArrays(self.board, self.rules, marks)
                position = failed_value(obj, arrays, ranked_shelves(failed_options(self.board, marks, self.rules),
                                                                    arrays, obj))
        if self.expected is not None and position != self.expected:
            self.luck += position - self.expected
        # a point where the curve moves: luck, or the turn start's figure (play status's) handing
        # over to the player's own value with no luck (the step counted with the others' turns)
        if self.expected is not None and (position != self.expected or
                                          (self.curve and self.curve[-1].value != position)):
            self.curve.append(CurvePoint(state.round, "roll", position))
        self.expected = position

    def _hold(self, now: KeptGame, first: Event) -> None:
        """The hold (D7; a Stop or a marking with re-rolls left keeps every die) against the best."""
        assert now.dice is not None
        state = now.state
        _, solution, shown = self.turn_of(state)
        keep = first.keep if isinstance(first, Hold) else now.dice
        holds = space_for(self.rules).holds_of(now.dice)
        left = now.rerolls_left
        engine = {h: solution.hold_value(h, left) for h in holds}
        values = {h: shown.hold(h, left)[0] for h in holds} if shown is not None else engine
        # the advice's best (advice.rank_holds): the engine's value, then the value shown; a tie names the choice
        best_hold = max(holds, key=lambda h: (engine[h], values[h], h == keep, sum(h)))
        self.decisions.append(Decision(state.round, "hold", now.dice, now.rerolls_left, keep_label(keep, self.rules),
                                       keep_label(best_hold, self.rules), values[keep], values[best_hold]))
        self.expected = values[keep]
        if isinstance(first, Hold):
            self.curve.append(CurvePoint(state.round, "hold", values[keep]))

    def _mark(self, now: KeptGame, first: Mark) -> None:
        """The marking (D8-D14) against the best."""
        assert now.dice is not None
        state = now.state
        obj = self.turn_of(state)[0]
        options = rank_markings(now.dice, self.board, state.marks, self.rules, obj)
        chosen = next(o for o in options if o.marking.cells == first.cells)
        top = chosen if chosen.value == options[0].value else options[0]  # a tie names the choice
        self.decisions.append(Decision(state.round, "mark", now.dice,
                                       self.stop_left if now.stopped else now.rerolls_left,
                                       _items(self.kept, first.cells), _items(self.kept, top.marking.cells),
                                       chosen.value, top.value))
        self.last_end, self.expected = chosen.value, None
        self.curve.append(CurvePoint(state.round, "mark", chosen.value))

    def _fail(self, now: KeptGame, first: Fail) -> None:
        """The shelf given up on a failed result (D13) against the best."""
        assert now.dice is not None
        state, marks = now.state, now.state.marks
        obj = self.turn_of(state)[0]
        shelves = ranked_shelves(failed_options(self.board, marks, self.rules),
                                 StateArrays(self.board, self.rules, marks), obj)
        strategic = isinstance(obj, Strategic)
        worth = {o.shelf: (o.potential_change if strategic else o.value if o.value is not None else Fraction(0))
                 for o in shelves}
        best = first.shelf if worth[first.shelf] == worth[shelves[0].shelf] else shelves[0].shelf
        self.decisions.append(Decision(state.round, "shelf", now.dice, 0, f"shelf {first.shelf + 1}",
                                       f"shelf {best + 1}", worth[first.shelf], worth[best]))
        self.last_end, self.expected = worth[first.shelf], None
        self.curve.append(CurvePoint(state.round, "shelf", worth[first.shelf]))

    def finish(self, now: KeptGame) -> Review:
        """The :class:`Review`, ``now`` the game after its last action (with ``win`` and the game
        over, the share of victory closes the curve, D20). Where the review speaks ``play
        status``'s figure, the curve ends on it with its text (:attr:`Review.end_shown`): a player
        with no turn yet gets that one point, ``now``."""
        result = None
        over = now.over
        if self.win is None:  # no turn of the player's yet (or none reviewed): what the values are
            self.objective_of(now.state)
        status = self._status_figure(now) if self._speaks_status() else None
        if over is None and now.dice is not None and now.state.active == self.seat and self.expected is not None:
            if now.stopped:  # the Stop's value (D7) until the marking: "now" (its loss counted by _hold)
                self.curve.append(CurvePoint(now.state.round, "hold", self.expected))
            else:  # the dice showing, not yet acted on: their luck counts now, "now" their value
                self._position(now)
        elif over is None and status is not None:
            # between its turns (or at its next turn's start, or before its first): "now" is what
            # play status shows now, the others' turns since its last one counted (before, "now"
            # was its last turn's end, or its last checked turn's after a turn told without dice)
            if self.last_end is not None:
                self.others += status[0] - self.last_end
            self.curve.append(CurvePoint(now.state.round, "now", status[0]))
        if self.win and over is not None:
            from shelfie_solver.dice.win_chance import share

            seat = self.seat
            result = share(over.scores[seat], [s for j, s in enumerate(over.scores) if j != seat])
            if self.last_end is not None:
                self.others += result - self.last_end
            self.curve.append(CurvePoint(over.rounds, "result", result))
        end_shown = None
        if status is not None and self.curve and self.curve[-1].value == status[0]:
            end_shown = status[1]  # play status's text for it (rounded with the other seats')
            self.curve[-1] = replace(self.curve[-1], shown=end_shown)
        named = objective_named(self.objective, self.table_name or self.alone_name)
        return Review(self.kept.players[self.seat], self.seat, named, tuple(self.decisions),
                      self.unchecked, self.turns, bool(self.win), self.luck, self.others, self.start, result,
                      tuple(self.curve), self.table_name, self.told if status is not None else None,
                      self.start_shown, end_shown)


def _items(kept: KeptGame, cells: tuple[int, ...]) -> str:
    return " ".join(kept.board.cell_name(c) for c in cells)


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
    for _, text in game_texts(path, "a game file (play) or a saved-games file (JSON Lines, simulate --save)"):
        found += 1
        if found == game:
            data = parse_json(text, KeptGameError, f"{path} game {game}", "one saved game")
            try:
                # play's name rules (check_names); strategy names may repeat or name a file (simulate --save)
                return kept_game_from_dict(data, f"{path} game {game}")
            except ShelfieError as error:
                raise KeptGameError(str(error)) from None
    raise KeptGameError(f"{path} holds {found} game{'s' if found != 1 else ''}; expected --game 1..{found} "
                     '(counted from 1 in file order: --game 1 is the first, saved as "game": 0)')


def describe_dice(decision: Decision, kept: KeptGame) -> str:
    """The dice of a decision with its re-rolls left, e.g. ``PPBCCJ (2 re-rolls left)``."""
    return f"{dice_codes(decision.dice, kept.rules)} ({decision.rerolls_left} left)"
