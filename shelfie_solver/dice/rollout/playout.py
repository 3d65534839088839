"""One play-out of a rollout: the rest of a game from a position, with common random numbers
(docs/rollout.md), click-free.

Common random numbers. Every play-out of game ``i`` of a rollout, whichever root choice it
follows, draws its dice from the same table (:class:`CommonDice`): for each turn after the
position's own (counted from it) and each roll of that turn (the initial roll 0, the re-rolls
1, 2, ...) one row of ``rules.dice`` fresh dice; a roll that keeps ``k`` dice takes the first
``rules.dice - k`` of its row (D6, D7). So two choices that lead to the same sheets see the
same dice from then on, the opponents' turns included, and the difference between the choices
is measured on the same luck. The table and each seat's own generator come from the game's
seed (:func:`game_seeds`): ``SeedSequence(entropy, spawn_key=(i, 0))`` for the dice,
``(i, 1 + seat)`` for the seats, so a game's play-outs never depend on which worker plays them.

The play-out applies the actions by :mod:`game.actions` (the rules' one home, D6-D20), as the
game loop :func:`turn.play_game` does, but starts wherever the position is: before the initial
roll, with dice and re-rolls left, or with final dice. Within a turn it keeps only what the
play-out reads (no events): the initial roll and each re-roll are the :class:`Position` that
:func:`actions.apply` would make (the hold checked by :func:`actions.verify_hold`, D7; the new
dice keep it by construction, :meth:`CommonDice.roll`), a marking of the legal markings
(:func:`events.legal_sets`, which :meth:`LegalMarkings.position` checks it against) is marked,
blocked and the turn ended by :func:`actions.mark_and_block` and :func:`actions.end_turn`
(D8-D20), a failed result goes through :func:`actions.apply`.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import numpy as np

from shelfie_solver.dice.game.actions import (
    Position,
    apply,
    end_turn,
    mark_and_block,
    verify_hold,
)
from shelfie_solver.dice.game.events import (
    Event,
    Fail,
    GameOver,
    Hold,
    Mark,
    Roll,
    Stop,
    Strategy,
    legal_sets,
)
from shelfie_solver.dice.rolls import Counts
from shelfie_solver.dice.rules import Ruleset
from shelfie_solver.dice.sheet_rules import failed_result_shelves

#: A root choice: ``("hold", keep)`` (every die kept: stop, D7), ``("mark", cells)`` or
#: ``("shelf", shelf)`` (a failed result, D13); ``None``: the policy decides (the position itself).
Choice = tuple[str, tuple[int, ...]] | None


def game_seeds(entropy: int, game: int, seats: int) -> tuple[np.random.Generator, list[np.random.Generator]]:
    """Game ``game``'s dice generator and one generator per seat, from the root seed ``entropy``
    (module docstring): fresh objects on every call, so each play-out of the game starts from
    the same numbers (:func:`dice_generator`, :func:`seat_generators`)."""
    return dice_generator(entropy, game), seat_generators(entropy, game, seats)


def dice_generator(entropy: int, game: int) -> np.random.Generator:
    """Game ``game``'s dice generator, ``SeedSequence(entropy, spawn_key=(game, 0))``, afresh."""
    from numpy.random import SeedSequence

    return np.random.default_rng(SeedSequence(entropy, spawn_key=(game, 0)))


def seat_generators(entropy: int, game: int, seats: int) -> list[np.random.Generator]:
    """Game ``game``'s generator of each seat, ``SeedSequence(entropy, spawn_key=(game, 1 + seat))``,
    afresh (so every play-out of the game starts each seat from the same numbers)."""
    from numpy.random import SeedSequence

    return [np.random.default_rng(SeedSequence(entropy, spawn_key=(game, 1 + s))) for s in range(seats)]


def turns_bound(position: Position) -> int:
    """At most how many turns with dice the rest of the game has, the current one included: each
    turn marks or eliminates at least one available item of its player's sheet (D13, D14)."""
    return 1 + sum(len(sheet.available) for sheet in position.state.sheets)


class CommonDice:
    """The dice of one game of a rollout, the same for every root choice (module docstring).

    Args:
        rng: the game's dice generator (:func:`game_seeds`). rules: the ruleset (D2).
        turns: rows to draw (:func:`turns_bound`). start: the position's turn number
            (:attr:`GameState.turn`); turn ``start + t`` reads row ``t``.
    """

    def __init__(self, rng: np.random.Generator, rules: Ruleset, turns: int, start: int):
        self.rules, self.start = rules, start
        self.table = rng.integers(0, rules.n_sides, size=(turns, rules.rerolls + 1, rules.dice), dtype=np.int8)
        # the same faces as Python lists: a roll reads a handful of them, cheaper than numpy's calls
        self._rows: list[list[list[int]]] = self.table.tolist()

    def roll(self, turn: int, roll: int, keep: Counts) -> Counts:
        """All dice of roll ``roll`` (0 the initial roll) of turn ``turn`` after keeping ``keep``:
        ``keep`` plus the first ``rules.dice - sum(keep)`` dice of that row (D6, D7)."""
        counts = list(keep)
        for face in self._rows[turn - self.start][roll][:self.rules.dice - sum(keep)]:
            counts[face] += 1
        return tuple(counts)


def winner_shares(over: GameOver, seats: int) -> tuple[Fraction, ...]:
    """Every seat's share of the victory (D20: a tie among ``k`` counts ``1/k`` to each)."""
    share = Fraction(1, len(over.winners))
    return tuple(share if seat in over.winners else Fraction(0) for seat in range(seats))


def take_choice(position: Position, choice: Choice, dice: CommonDice) -> Position:
    """``position`` after the active player's root ``choice`` (:data:`Choice`; ``None``: as it is).

    Raises:
        ActionError: the choice is not legal here.
    """
    if choice is None:
        return position
    kind, what = choice
    state = position.state
    seat = state.active
    if kind == "hold":
        assert position.dice is not None
        if what == position.dice:
            return apply(position, (Stop(seat),))[0]
        roll = state.rules.rerolls - position.rerolls_left + 1
        new = dice.roll(state.turn, roll, what)
        return apply(position, (Hold(seat, what), Roll(seat, new, position.rerolls_left - 1)))[0]
    if kind == "mark":
        return apply(position, (Mark(seat, what),))[0]
    options = failed_result_shelves(state.board, state.marks)
    return apply(position, (Fail(seat, what[0], options.get(what[0], ())),))[0]


def play_out(position: Position, strategies: Sequence[Strategy], dice: CommonDice,
             rngs: Sequence[np.random.Generator]) -> GameOver:
    """The rest of the game from ``position``, every seat deciding by its strategy, the dice from
    ``dice`` (D6-D20).

    Returns:
        The :class:`GameOver` (scores, winners).
    Raises:
        GameError: a strategy's decision is illegal.
    """
    while position.over is None:
        position = finish_turn(position, strategies, dice, rngs)
    return position.over


def finish_turn(position: Position, strategies: Sequence[Strategy], dice: CommonDice,
                rngs: Sequence[np.random.Generator]) -> Position:
    """The active player's turn from wherever it stands (no roll yet, re-rolls left, final dice)
    to the next turn's start or the game's end (D6-D18); ``position`` itself when the game is over."""
    if position.over is not None:
        return position
    seat = position.state.active
    return _turn(position, strategies[seat], dice, rngs[seat])


def _turn(position: Position, strategy: Strategy, dice: CommonDice, rng: np.random.Generator) -> Position:
    """:func:`finish_turn` of the active seat's ``strategy`` (module docstring: the positions
    :func:`actions.apply` makes, without its events)."""
    state = position.state
    board, rules, seat = state.board, state.rules, state.active
    if position.dice is None:  # the initial roll (D6): every re-roll left
        position = Position(state, dice.roll(state.turn, 0, (0,) * rules.n_sides), rules.rerolls)
    while position.rerolls_left > 0 and not position.stopped:
        assert position.dice is not None
        keep = tuple(map(int, strategy.choose_hold(state, position.dice, position.rerolls_left, rng)))
        if keep == position.dice:  # keeping every die is stopping (D7)
            break
        verify_hold(position, keep)  # a part of the dice, not all of them, a re-roll left (D7)
        left = position.rerolls_left
        position = Position(state, dice.roll(state.turn, rules.rerolls - left + 1, keep), left - 1)
    final = position.dice
    assert final is not None
    legal = legal_sets(final, board, state.marks, rules)
    if len(legal):  # one of the legal markings (LegalMarkings.position refuses any other, D8-D14)
        cells = legal.cells(legal.position(strategy.choose_marking(state, final, legal, rng)))
        events: list[Event] = [Mark(seat, cells)]
        return end_turn(state, mark_and_block(state, cells, events), events)
    options = failed_result_shelves(board, state.marks)
    shelf = int(strategy.choose_shelf(state, final, tuple(options), rng))
    return apply(position, (Fail(seat, shelf, options.get(shelf, ())),))[0]
