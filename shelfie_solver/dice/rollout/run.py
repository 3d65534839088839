"""Rollouts a player can run (``shelfie-solve rollout GAME``, docs/rollout.md), click-free: from the
current position of a kept game, the rest of the game played out many times with a policy in
every seat, for the position and for each of the advice's top choices, with common random
numbers (:mod:`rollout.playout`) and 95% intervals.

What is estimated. Every seat's chance to win (D20: a tie among ``k`` counts ``1/k`` to each)
from the position, and from each root choice of the active player (a hold with re-rolls left, a
marking with final dice, a shelf to give up on a failed result, D7, D13, D14): the mean share
over the play-outs, with the Wilson interval of :class:`stats.Estimate`. Each choice is also
compared with the best one (the highest mean for the mover): the per-game difference of the
mover's shares on the same dice (paired by common random numbers), with a Student t interval.

Early stopping. The games are played in batches ending at :data:`FIRST_CHECK` games, then at
twice as many each time (100, 200, 400, ...). After a batch, with two choices or more, the run
stops when the order of the choices is settled: for every two choices next to each other in
the order of their means, the 95% interval of their paired difference lies above 0. Choices
whose play-outs are alike game by game (the difference 0 in every game) never settle, so such a
run plays every game asked for. The checks are at fixed game counts, and game ``i`` is played
from its own seed, so the result does not depend on ``--jobs`` or the scheduler.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from shelfie_solver.core.errors import ShelfieError
from shelfie_solver.core.parallel import Runner
from shelfie_solver.core.stats import PROPORTION, Estimate, estimate
from shelfie_solver.dice.game.actions import Position
from shelfie_solver.dice.game.events import GameState, legal_sets
from shelfie_solver.dice.play.gamefile import KeptGame
from shelfie_solver.dice.rollout.playout import (
    Choice,
    CommonDice,
    dice_generator,
    finish_turn,
    play_out,
    seat_generators,
    take_choice,
    turns_bound,
    winner_shares,
)
from shelfie_solver.dice.strategies import parse_players, seat_strategy, verify_seats

#: Games of the first batch, where the first stopping check is made (module docstring).
FIRST_CHECK = 100
#: Most games one rollout may play.
MAX_ROLLOUT_GAMES = 100_000
#: The default policy of every seat and of the advice whose top choices are rolled out.
DEFAULT_POLICY = "win"
#: Strategies whose decisions draw no random numbers: the position's play-out is then the play-out
#: of the choice the policy makes at the root, not one more.
_RANDOM_POLICIES = frozenset(("random",))


class RolloutError(ShelfieError):
    """A rollout that cannot run: the game is over, it has one player, a bad number of policies
    or of games."""


@dataclass(frozen=True)
class RootChoice:
    """One of the top choices of the advice at the position.

    Attributes:
        choice: the :data:`playout.Choice` (never ``None``).
        label: how the table names it (``keep 2B 1J``, ``r1c2 + r3c4``, ``give up shelf 3``).
        advice: the advice's chance to win of it when the advice's values are chances
            (:attr:`Advice.win_chance_exact` not None: ``win``, ``win-model``), else None.
        kind: ``"hold"``, ``"mark"`` or ``"shelf"``.
    """

    choice: Choice
    label: str
    advice: Fraction | None
    kind: str


@dataclass(frozen=True)
class RolloutSetup:
    """What every task of a rollout shares (pickled to the workers).

    Attributes:
        position: the game's current position. policies: one strategy name per seat.
        choices: the root choices rolled out. policy_choice: the index in ``choices`` of the
            choice the mover's policy makes at the root, or None (the position is then played
            out on its own). entropy: the root seed. win_model: the path of the win-model file the
            seats of :data:`strategies.WIN_MODEL_STRATEGIES` play by (``--win-model FILE``), None:
            the shipped model.
    """

    position: Position
    policies: tuple[str, ...]
    choices: tuple[Choice, ...]
    policy_choice: int | None
    entropy: int
    win_model: str | None = None

    def playouts(self) -> tuple[Choice, ...]:
        """The play-outs of each game: every choice, then the position's own when it is not one of them."""
        return self.choices if self.policy_choice is not None else (*self.choices, None)


#: One game's result: per play-out (:meth:`RolloutSetup.playouts`) every seat's share of the victory.
GameShares = tuple[tuple[Fraction, ...], ...]


def play_games(setup: RolloutSetup, lo: int, hi: int) -> list[GameShares]:
    """Games ``lo .. hi-1`` of a rollout, each play-out on the game's common dice; a worker's task.

    Returns:
        Per game, per play-out, every seat's share (D20).
    """
    position = setup.position
    state = position.state
    seats = state.players
    strategies = [seat_strategy(name, setup.win_model) for name in setup.policies]
    # without random choices a play-out is a function of the position and the game's dice: two
    # choices whose turns end in the same position share the rest of the game (same dice, same play)
    shared = not any(name.strip().lower() in _RANDOM_POLICIES for name in setup.policies)
    out: list[GameShares] = []
    for game in range(lo, hi):
        dice = CommonDice(dice_generator(setup.entropy, game), state.rules, turns_bound(position), state.turn)
        after_turn: dict[GameState, tuple[Fraction, ...]] = {}
        rows = []
        for choice in setup.playouts():
            rngs = seat_generators(setup.entropy, game, seats)  # each play-out: the seats' numbers afresh
            now = finish_turn(take_choice(position, choice, dice), strategies, dice, rngs)
            if now.over is not None:
                rows.append(winner_shares(now.over, seats))
                continue
            known = after_turn.get(now.state) if shared else None
            if known is None:
                known = after_turn[now.state] = winner_shares(play_out(now, strategies, dice, rngs), seats)
            rows.append(known)
        out.append(tuple(rows))
    return out


@dataclass(frozen=True)
class ChoiceResult:
    """A root choice's rollout: ``seats`` every seat's chance (:class:`Estimate`, Wilson);
    ``versus_best`` the paired difference best minus this of the mover's share (Student t;
    ``None`` for the best choice itself)."""

    root: RootChoice
    seats: tuple[Estimate, ...]
    versus_best: Estimate | None


@dataclass(frozen=True)
class RolloutResult:
    """A finished rollout.

    Attributes:
        games: games played. asked: games asked for. seed: the root seed. settled: the run
            stopped early because the order of the choices was settled (module docstring).
        ordered: the order of the choices is settled over the games played (:func:`settled`
            on the result, whatever the count: also at the last batch, or below :data:`FIRST_CHECK`).
        position: every seat's chance from the position (:class:`Estimate`).
        choices: the choices, best first by the mover's mean (ties: the advice's order).
        policies: the strategy name of every seat. mover: the active seat.
        win_model: the win-model file played by (``--win-model FILE``), None: the shipped model.
        alike: groups of choices (places in ``choices``) that gave the mover the same share in
            every game (:func:`alike`): their order never settles.
    """

    games: int
    asked: int
    seed: int
    settled: bool
    position: tuple[Estimate, ...]
    choices: tuple[ChoiceResult, ...]
    policies: tuple[str, ...]
    mover: int
    ordered: bool = False
    win_model: str | None = None
    alike: tuple[tuple[int, ...], ...] = ()


def check_rollout(kept: KeptGame, games: int) -> None:
    """Refuse a rollout that cannot run.

    Raises:
        RolloutError: the game is over (D18), it has one player (no one to beat, D20), or
            ``games`` is outside 1 .. :data:`MAX_ROLLOUT_GAMES`.
    """
    if kept.over is not None:
        raise RolloutError("the game is over (D18): nothing to roll out; expected a game file of a game in progress")
    if len(kept.players) < 2:
        raise RolloutError("a rollout estimates the chance to win against opponents (D20); this game has one "
                           "player; expected a game of 2 to 4 players")
    if not 1 <= games <= MAX_ROLLOUT_GAMES:
        raise RolloutError(f"--games must be from 1 to {MAX_ROLLOUT_GAMES:,}, got {games}")


def seat_policies(text: str, seats: int) -> tuple[str, ...]:
    """The strategy of every seat from ``--policy``: one name for every seat, or one per seat,
    comma-separated (the names ``simulate --players`` takes).

    Raises:
        StrategyError: an unknown name, or ``exact2:FILE`` with other than two seats. RolloutError:
            neither one name nor one per seat.
    """
    names = parse_players(text, "--policy")
    if len(names) == 1:
        names = names * seats
    if len(names) != seats:
        raise RolloutError(f"--policy needs one strategy for every seat or one per seat ({seats}), got "
                           f"{len(names)}: e.g. win or win,learned")
    verify_seats(names)
    return names


def advice_objective_name(policy: str) -> str:
    """The objective of the advice whose top choices a rollout with the mover's ``policy`` plays
    out: the policy's own objective (``win``, ``win-model``, ``learned``, ``learned:FILE``;
    ``solver`` -> ``strategic``, ``greedy`` -> ``points``, ``exact:FILE`` -> ``table:FILE``),
    else ``win`` (``random``, ``threshold``: no objective of their own)."""
    word = policy.strip()
    low = word.lower()
    if low in ("win", "win-model", "learned") or low.startswith("learned:"):
        return word
    if low.startswith("exact:"):
        return "table:" + word[6:]
    return {"solver": "strategic", "greedy": "points"}.get(low, DEFAULT_POLICY)


def root_choices(kept: KeptGame, policy: str, top: int) -> tuple[RootChoice, ...]:
    """The advice's ``top`` best choices at the position (:func:`play.report.step_advice` with
    :func:`advice_objective_name`): holds with re-rolls left, markings with final dice, the
    shelves of a failed result (D13); none before the initial roll."""
    from shelfie_solver.dice.rolls import dice_codes
    from shelfie_solver.dice.play.report import step_advice

    advice = step_advice(kept, advice_objective_name(policy))
    if advice is None:
        return ()
    board, rules = kept.board, kept.rules
    chance = advice.win_chance_exact is not None  # the advice's values are chances to win (else points...)
    if advice.holds:
        return tuple(RootChoice(("hold", h.keep), _hold_label(h.keep, advice.dice, dice_codes(h.keep, rules)),
                                h.value if chance else None, "hold")
                     for h in advice.holds[:top])
    if advice.markings:
        return tuple(RootChoice(("mark", tuple(sorted(m.marking.cells))),
                                " + ".join(board.cell_name(c) for c in m.marking.cells),
                                m.value if chance else None, "mark")
                     for m in advice.markings[:top])
    return tuple(RootChoice(("shelf", (o.shelf,)), f"give up shelf {o.shelf + 1}",
                            o.value if chance else None, "shelf")
                 for o in advice.failed[:top])


def _hold_label(keep: tuple[int, ...], dice: tuple[int, ...], codes: str) -> str:
    """A hold in words: ``keep GGB``, ``re-roll all`` (nothing kept) or ``stop`` (every die kept, D7)."""
    if keep == dice:
        return "stop"
    return f"keep {codes}" if codes else "re-roll all"


def policy_choice(kept: KeptGame, policy: str, choices: Sequence[RootChoice], win_model: str | None = None) -> int | None:
    """The index of the choice the mover's ``policy`` makes at the root (by the win-model file
    ``win_model``, :func:`strategies.seat_strategy`), when it draws no random numbers and the
    choice is among ``choices``; else None."""
    if not choices or policy.strip().lower() in _RANDOM_POLICIES:
        return None
    strategy = seat_strategy(policy, win_model)
    state, dice, rng = kept.state, kept.dice, np.random.default_rng(0)
    assert dice is not None
    made: Choice
    if kept.rerolls_left > 0 and not kept.stopped:
        made = ("hold", tuple(map(int, strategy.choose_hold(state, dice, kept.rerolls_left, rng))))
    else:
        legal = legal_sets(dice, kept.board, state.marks, kept.rules)
        if len(legal):
            made = ("mark", tuple(sorted(strategy.choose_marking(state, dice, legal, rng))))
        else:
            from shelfie_solver.dice.sheet_rules import failed_result_shelves

            made = ("shelf", (int(strategy.choose_shelf(state, dice, tuple(failed_result_shelves(
                kept.board, state.marks)), rng)),))
    found = [i for i, c in enumerate(choices) if c.choice == made]
    return found[0] if found else None


def batch_ends(games: int) -> Iterator[int]:
    """The game counts after which the stopping rule is checked: :data:`FIRST_CHECK`, then twice
    as many each time, and ``games`` last."""
    end = FIRST_CHECK
    while end < games:
        yield end
        end *= 2
    yield games


def order(shares: Sequence[Sequence[tuple[Fraction, ...]]], mover: int) -> list[int]:
    """The choices best first by the mover's total share (ties: the given order)."""
    totals = [sum((row[mover] for row in rows), Fraction(0)) for rows in shares]
    return sorted(range(len(shares)), key=lambda k: -totals[k])


def paired(better: Sequence[tuple[Fraction, ...]], worse: Sequence[tuple[Fraction, ...]], mover: int) -> Estimate:
    """The per-game difference of the mover's shares, ``better`` minus ``worse`` (same dice), with
    its Student t interval (:func:`stats.estimate` without bounds)."""
    return estimate([b[mover] - w[mover] for b, w in zip(better, worse)])


def settled(shares: Sequence[Sequence[tuple[Fraction, ...]]], mover: int) -> bool:
    """Whether the order of the choices is settled (module docstring): two choices or more, and
    every interval of the paired difference of neighbours in the order above 0. A difference the
    same in every game (:attr:`stats.Estimate.unanimous`, no t interval) is above 0 when that
    value is: the better choice did better on every one of the (at least two) games' dice, which
    the sign test puts at a chance of at most 2^-n if neither were better."""
    if len(shares) < 2 or len(shares[0]) < 2:
        return False
    ranked = order(shares, mover)
    return all(_above_zero(paired(shares[a], shares[b], mover)) for a, b in zip(ranked, ranked[1:]))


def alike(shares: Sequence[Sequence[tuple[Fraction, ...]]], ranked: Sequence[int], mover: int) -> tuple[tuple[int, ...], ...]:
    """The choices whose play-outs gave the mover the same share in every game (``shares``: per
    choice, every game's shares; ``ranked``: the choices in the result's order), in groups of two
    or more, as places in ``ranked`` (0: the best). Their paired difference is 0 in every game, so
    no number of games settles their order (module docstring); none with fewer than 2 games."""
    groups: dict[tuple[Fraction, ...], list[int]] = {}
    for place, k in enumerate(ranked):
        groups.setdefault(tuple(row[mover] for row in shares[k]), []).append(place)
    return tuple(tuple(g) for g in groups.values() if len(g) > 1 and len(shares[ranked[0]]) > 1)


def _above_zero(difference: Estimate) -> bool:
    return difference.least > 0 if difference.unanimous else difference.low > 0


def rollout(kept: KeptGame, policies: Sequence[str], games: int, seed: int | None, top: int = 3,
            jobs: int = 1, scheduler: Any = None, early_stop: bool = True,
            progress: Callable[[int], None] | None = None, win_model: str | None = None) -> RolloutResult:
    """Roll out the current position of ``kept`` (module docstring).

    Args:
        policies: one strategy name per seat (:func:`seat_policies`). games: at most this many
            games (1 .. :data:`MAX_ROLLOUT_GAMES`). seed: the root seed (None: fresh entropy,
            reported). top: choices of the advice rolled out (0: the position only). jobs, scheduler: as
            ``simulate`` (:class:`parallel.Runner`). early_stop: check the stopping rule.
            progress: called with the number of games just finished. win_model: the path of a
            win-model file (``--win-model FILE``): the win strategies' model in every seat
            (:func:`strategies.seat_strategy`) and the advice's (:func:`win_model.chosen_win_model`);
            None: the shipped model.
    Returns:
        The :class:`RolloutResult`.
    Raises:
        RolloutError: as :func:`check_rollout`, or ``top`` below 0. ParallelError, Interrupted:
            as :func:`parallel.run_tasks`. WinModelError: a bad ``win_model`` file.
    """
    check_rollout(kept, games)
    if top < 0:
        raise RolloutError(f"--top must be at least 0 (0: the position only), got {top}")
    mover = kept.active
    from shelfie_solver.dice.learned.win_model import chosen_win_model, load_win_model

    with chosen_win_model(load_win_model(win_model) if win_model is not None else None):
        roots = root_choices(kept, policies[mover], top) if top else ()
    entropy = int(np.random.SeedSequence(seed).entropy)  # type: ignore[arg-type]
    setup = RolloutSetup(kept.position, tuple(policies), tuple(r.choice for r in roots),
                         policy_choice(kept, policies[mover], roots, win_model), entropy, win_model)
    done: list[GameShares] = []

    def consume(part: list[GameShares]) -> None:
        done.extend(part)
        if progress:
            progress(len(part))

    stopped = False
    with Runner(jobs, scheduler) as runner:
        workers = runner.workers if scheduler is None else 4
        for end in batch_ends(games):
            size = max(1, min(25, (end - len(done)) // (workers * 4)))
            tasks = ((setup, lo, min(end, lo + size)) for lo in range(len(done), end, size))
            runner.run(play_games, tasks, consume=consume)
            if early_stop and end < games and settled(_by_choice(done, len(roots)), mover):
                stopped = True
                break
    return _result(done, roots, setup, games, entropy, stopped, mover)


def _by_choice(done: Sequence[GameShares], choices: int) -> list[list[tuple[Fraction, ...]]]:
    """The shares of each choice over the games played (the position's own play-out left out)."""
    return [[game[k] for game in done] for k in range(choices)]


def _result(done: Sequence[GameShares], roots: Sequence[RootChoice], setup: RolloutSetup, asked: int, entropy: int,
            stopped: bool, mover: int) -> RolloutResult:
    """The estimates of a finished rollout."""
    seats = setup.position.state.players
    by_choice = _by_choice(done, len(roots))
    own = setup.policy_choice if setup.policy_choice is not None else len(roots)
    position = tuple(estimate([game[own][s] for game in done], PROPORTION) for s in range(seats))
    ranked = order(by_choice, mover) if roots else []
    choices = tuple(ChoiceResult(roots[k], tuple(estimate([row[s] for row in by_choice[k]], PROPORTION)
                                                 for s in range(seats)),
                                 None if i == 0 else paired(by_choice[ranked[0]], by_choice[k], mover))
                    for i, k in enumerate(ranked))
    return RolloutResult(len(done), asked, entropy, stopped, position, choices, setup.policies, mover,
                         ordered=stopped or settled(by_choice, mover), win_model=setup.win_model,
                         alike=alike(by_choice, ranked, mover))
