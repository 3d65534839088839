"""Fitting the ``win`` model (:mod:`learned.win_model`) by self-play: the positions after every
turn of seeded ``learned`` games (or ``win``'s own, or of one ``win`` seat against another
strategy, :func:`matchup_positions`), every seat's features and outcome (D20), and the
maximum-likelihood fit of the joint model (``train --win-model``; docs/train.md, "The chance to
win"; measured by ``benchmarks/chance_calibration.py``)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace
from fractions import Fraction
from typing import Any, NamedTuple

import numpy as np

from shelfie_solver.dice.board import Board, Marks
from shelfie_solver.dice.game.events import Game, GameState, apply_to_sheets
from shelfie_solver.dice.learned.model_file import LearnedModel
from shelfie_solver.dice.learned.win_model import (
    FEATURES,
    ROWS,
    Sample,
    WinModel,
    board_scale,
    default_win_model,
    design,
    fit_shaped,
    played_by_record,
    replace_info,
    seats_to_play,
    size_factor,
    win_objective,
)
from shelfie_solver.dice.objectives import StateArrays
from shelfie_solver.dice.rules import Ruleset
from shelfie_solver.dice.sheet_rules import block, completed_lines

#: A model of even chances: the features of :func:`game_positions` need no coefficients.
EVEN = WinModel({n: np.zeros((len(ROWS), len(FEATURES)), dtype=np.int64) for n in (2, 3, 4)})


class ValuedPosition(NamedTuple):
    """One position after a turn that the model values (:func:`valued_positions`): the state the
    turn started from, every sheet after the turn (its blocks applied, D15), the seats with the
    player who just played first, the phase and every seat's columns that :func:`design` reads
    (:meth:`win_model.WinObjective.seat_columns`, shapes ``(1,)`` and ``(1, n, 4 + SHEET_COLUMNS)``:
    the player's line states on its sheet after the turn, the others' on theirs at the turn's
    start, before its blocks), and every
    seat's final share of victory in that order (D20)."""

    before: GameState
    after: list[Marks]
    order: list[int]
    phase: np.ndarray
    seats: np.ndarray
    y: np.ndarray


def valued_positions(game: Game, learned: LearnedModel | None = None) -> Iterator[ValuedPosition]:
    """The positions after every turn of a finished game that the model values (module
    docstring): not a turn :mod:`win_chance` values exactly, nor one that triggers the end (D17)
    where :func:`win_model.ending_objective` knows the chance exactly; in the order played. The
    sheets ``after`` are the turn's marking or failed result (D8-D13) and then its blocks (D15:
    every line the player's sheet has complete, each other sheet's available items on it
    eliminated; a line completed on an earlier turn has none left there)."""
    from shelfie_solver.dice.win_chance import exact_objective, share

    board, rules = game.board, game.rules
    n = len(game.players)
    finals = game.scores
    played = game.played_turns()
    for index, (before, action) in enumerate(played):
        if exact_objective(before) is not None:
            continue
        after = list(before.sheets)
        apply_to_sheets(action, after)
        me = before.active
        after = list(block(board, after, me, completed_lines(board, after[me]))[0])  # D15
        objective = win_objective(before, EVEN, learned)  # the features do not read the coefficients
        # the turn triggered the end (D17, on any sheet after its blocks): the next turn's start says so
        ends = index + 1 == len(played) or played[index + 1][0].end_triggered
        if ends and not before.end_triggered and objective.end_exact is not None:
            continue
        totals = StateArrays(board, rules, after[me]).line_totals
        phase, seats = objective.seat_columns(StateArrays(board, rules, before.marks), *(x[None] for x in totals))
        order = [me] + [j for j in range(n) if j != me]
        y = np.array([float(share(finals[j], [s for i, s in enumerate(finals) if i != j])) for j in order])
        yield ValuedPosition(before, after, order, phase, seats, y)


def game_positions(game: Game, learned: LearnedModel | None = None,
                   points_exponent: Fraction = Fraction(0)) -> list[Sample]:
    """:data:`win_model.Sample` of every position of :func:`valued_positions`. The features
    (:func:`design`, at the board's value scale as play reads them: :func:`board_scale`, with the
    seats still to play in the round: :func:`win_model.seats_to_play`, D5, D18) are every seat's,
    the player who just played first, with every seat's final share of victory (D20) in that
    order. ``points_exponent``: for a model of other shapes put in the points of each board's size
    (:attr:`win_model.WinModel.points_exponent`), every seat's points read over the board's
    :func:`win_model.size_factor` too, as :func:`win_model.sized_model` reads them (0: as they are)."""
    return game_positions_at(game, (points_exponent,), learned)[0]


def game_positions_at(game: Game, exponents: Sequence[Fraction],
                      learned: LearnedModel | None = None) -> list[list[Sample]]:
    """:func:`game_positions` of ``game`` at each of ``exponents`` (in that order), its positions
    valued once (:func:`valued_positions`): the same positions, only the points read differently."""
    valued = list(valued_positions(game, learned))
    out = []
    for exponent in exponents:
        scale = board_scale(game.board) * size_factor(game.board, exponent)
        out.append([(len(game.players), int(v.phase[0]),
                     design(v.phase, v.seats, v.before.round, scale, to_play=seats_to_play(v.before))[0], v.y)
                    for v in valued])
    return out


def self_play_seat(strategy: str, win_model: WinModel | None = None) -> Any:
    """The seat that plays the self-play games: the strategy called ``strategy``
    (:func:`strategies.strategy_named`), or with ``win_model`` the strategy ``win`` playing by
    that model (:class:`strategies.WinStrategy`; docs/win-chance.md "Fitted on its own play").

    Raises:
        ValueError: ``win_model`` given for a strategy other than ``win``.
    """
    from shelfie_solver.dice.strategies import WinStrategy, strategy_named

    if win_model is None:
        return strategy_named(strategy)
    if strategy != "win":
        raise ValueError(f"a win model plays the strategy win only, not {strategy!r}")
    return WinStrategy(win_model=win_model)


def collect(board: Board, rules: Ruleset, players: int, seeds: Sequence[np.random.SeedSequence],
            strategy: str = "learned", win_model: WinModel | None = None) -> list[Sample]:
    """Self-play games of :func:`self_play_seat` (one per seed) and their :func:`game_positions`."""
    return collect_at(board, rules, players, seeds, strategy, win_model)[0]


def collect_at(board: Board, rules: Ruleset, players: int, seeds: Sequence[np.random.SeedSequence],
               strategy: str = "learned", win_model: WinModel | None = None,
               exponents: Sequence[Fraction] = (Fraction(0),)) -> list[list[Sample]]:
    """:func:`collect` with the positions at each of ``exponents`` (:func:`game_positions_at`):
    one list per exponent, in that order, every game played once."""
    from shelfie_solver.dice.game.turn import play_seeded

    seat = self_play_seat(strategy, win_model)
    out: list[list[Sample]] = [[] for _ in exponents]
    for seed in seeds:
        for part, found in zip(out, game_positions_at(play_seeded(board, rules, [seat] * players, seed), exponents)):
            part += found
    return out


#: Self-play games per worker task.
CHUNK = 25
#: The ridge of the fit on ``win``'s own play (:func:`train_win_model` with strategy ``win``):
#: on 30% of the games of ``train --win-model --self-play win --seed 31 --games 600`` held out,
#: the log loss of a fit on the rest is lowest near 0.01 (2-4 players; 1.0, :data:`win_model.RIDGE`,
#: compresses the chances toward the middle; docs/win-chance.md "Fitted on its own play"). The fit
#: on ``learned``'s games keeps :data:`win_model.RIDGE`, with which the seed-26 model was made.
OWN_PLAY_RIDGE = 0.01


def self_play_positions(board: Board, rules: Ruleset, seed: int, games: int, players: Sequence[int] = (2, 3, 4),
                        jobs: int = 1, strategy: str = "learned", win_model: WinModel | None = None,
                        points_exponent: Fraction = Fraction(0)) -> list[Sample]:
    """:func:`game_positions` of ``games`` self-play games of ``strategy`` per number of players
    (with ``win_model``: ``win`` playing by it, :func:`self_play_seat`): game ``g`` of ``n``
    players from ``SeedSequence(seed).spawn(5)[n].spawn(games)[g]``, so the positions depend on
    the seed, ``games`` and the model only, never on ``jobs``; in that order. ``points_exponent``:
    every seat's points read at the board's size factor (:func:`game_positions`).

    Raises:
        ValueError: ``win_model`` given for a strategy other than ``win``.
    """
    return self_play_positions_at(board, rules, seed, games, (points_exponent,), players, jobs, strategy,
                                  win_model)[0]


def self_play_positions_at(board: Board, rules: Ruleset, seed: int, games: int, exponents: Sequence[Fraction],
                           players: Sequence[int] = (2, 3, 4), jobs: int = 1, strategy: str = "learned",
                           win_model: WinModel | None = None) -> list[list[Sample]]:
    """:func:`self_play_positions` at each of ``exponents`` (one list each, in that order), every
    game played once.

    Raises:
        ValueError: ``win_model`` given for a strategy other than ``win``.
    """
    from shelfie_solver.dice.learned.fitting import chunks, run_tasks

    self_play_seat(strategy, win_model)  # refuse a bad combination before any game
    root = np.random.SeedSequence(seed).spawn(5)
    tasks: list[tuple[Any, ...]] = []
    for n in players:
        seeds = root[n].spawn(games)
        tasks += [(board, rules, n, seeds[lo:hi], strategy, win_model, tuple(exponents))
                  for lo, hi in chunks(games, CHUNK)]
    results = run_tasks(collect_at, tasks, jobs)
    return [[s for part in results for s in part[i]] for i in range(len(exponents))]


def matchup_seats(players: int, game: int, against: str, win_model: WinModel | None = None) -> list[Any]:
    """The seats of game ``game`` (0-based) of :func:`matchup_positions`: one ``win`` seat (by
    ``win_model``, :func:`self_play_seat`) at seat ``game % players``, the strategy called
    ``against`` (:func:`strategies.strategy_named`) at every other seat.

    Raises:
        ValueError: not 2-4 players (D1).
        StrategyError: ``against`` names no strategy (:func:`strategies.strategy_named`).
    """
    from shelfie_solver.dice.strategies import strategy_named

    if not 2 <= players <= 4:
        raise ValueError(f"a matchup needs 2-4 players (D1), got {players}")
    other = strategy_named(against)
    seats = [other] * players
    seats[game % players] = self_play_seat("win", win_model)
    return seats


def collect_matchup(board: Board, rules: Ruleset, players: int, seeds: Sequence[np.random.SeedSequence],
                    first_game: int, against: str, win_model: WinModel | None = None) -> list[Sample]:
    """Games ``first_game``, ``first_game + 1``, ... of :func:`matchup_positions` (one per seed)
    and their :func:`game_positions`."""
    from shelfie_solver.dice.game.turn import play_seeded

    out = []
    for offset, seed in enumerate(seeds):
        seats = matchup_seats(players, first_game + offset, against, win_model)
        out += game_positions(play_seeded(board, rules, seats, seed))
    return out


def matchup_positions(board: Board, rules: Ruleset, seed: int, games: int, players: int = 2,
                      against: str = "learned", jobs: int = 1, win_model: WinModel | None = None) -> list[Sample]:
    """:func:`game_positions` of ``games`` games of one ``win`` seat (by ``win_model``, default
    the shipped model) against ``against`` seats (:func:`matchup_seats`: the ``win`` seat moves
    round the table, game ``g`` at seat ``g % players``), game ``g`` played from
    ``SeedSequence(seed).spawn(games)[g]`` (:func:`turn.play_seeded`: the dice and the first
    player, D5), so the positions depend on the seed, ``games``, the strategies and the model
    only, never on ``jobs``; in game order. Every seat's point of view after every turn, the
    ``win`` seat's turns and the others' alike (the positions of the matchup ``win`` is measured
    in, docs/win-chance.md "Fitted on the matchup").

    Raises:
        ValueError: not 2-4 players (D1), or ``games`` or ``seed`` negative.
        StrategyError: ``against`` names no strategy (:func:`strategies.strategy_named`).
    """
    from shelfie_solver.dice.learned.fitting import chunks, run_tasks

    if games < 0 or seed < 0:
        raise ValueError(f"a matchup needs games >= 0 and a seed >= 0, got games {games}, seed {seed}")
    matchup_seats(players, 0, against, win_model)  # refuse a bad matchup before any game
    seeds = np.random.SeedSequence(seed).spawn(games)
    tasks = [(board, rules, players, seeds[lo:hi], lo, against, win_model) for lo, hi in chunks(games, CHUNK)]
    results = run_tasks(collect_matchup, tasks, jobs)
    return [s for part in results for s in part]


def train_matchup_model(board: Board, rules: Ruleset, seed: int, games: int, players: int = 2,
                        against: str = "learned", jobs: int = 1, win_model: WinModel | None = None,
                        played_by: str = "") -> WinModel:
    """The model of ``players`` seats fitted (:func:`fit`, ridge :data:`OWN_PLAY_RIDGE`) to
    :func:`matchup_positions` (the other counts at even chances, all coefficients 0, as
    :data:`EVEN`: a file names every count, and this one is the source of ``players``' only),
    with the settings recorded (``strategy`` ``"win"``, ``against``, the model that played as
    ``played_by`` and its record ``played_by_info``, ``ridge``): how examples/win-vs-learned.json
    was made, a 2-player candidate measured in docs/win-chance.md "Fitted on the matchup"
    (docs/train.md).

    Raises:
        ValueError: not 2-4 players (D1), ``seed`` negative or ``games`` not positive (a fit of
            no position would be even chances, fitted to nothing).
        StrategyError: ``against`` names no strategy (:func:`strategies.strategy_named`).
    """
    if games < 1:
        raise ValueError(f"a matchup fit needs at least 1 game, got {games}")
    samples = matchup_positions(board, rules, seed, games, players, against, jobs, win_model)
    info: dict[str, Any] = {"seed": seed, "games": games, "players": [players], "positions": len(samples),
                            "strategy": "win", "against": against,
                            "played_by": played_by or "the shipped model (data/win.json)",
                            "played_by_info": played_by_record(win_model or default_win_model()),
                            "ridge": OWN_PLAY_RIDGE}
    fitted = fit_shaped(samples, board, OWN_PLAY_RIDGE)
    assert fitted.other_shapes is not None

    def every_count(model: WinModel) -> WinModel:
        # every count a win-model file needs (win_model.model_from_dict): the others at even chances
        return replace(model, coefficients={n: model.coefficients.get(n, EVEN.coefficients[n]).copy()
                                            for n in EVEN.coefficients})

    return replace_info(replace(every_count(fitted), other_shapes=every_count(fitted.other_shapes)), **info,
                        board=board.name)


def train_win_model(board: Board, rules: Ruleset, seed: int, games: int, players: Sequence[int] = (2, 3, 4),
                    jobs: int = 1, strategy: str = "learned", win_model: WinModel | None = None,
                    played_by: str = "", points_exponent: Fraction = Fraction(0)) -> WinModel:
    """The model fitted (:func:`fit`) to :func:`self_play_positions` of ``strategy`` (``learned``:
    how data/win.json was first made; ``win``: fitted on its own play, by ``win_model`` or the
    shipped model, docs/win-chance.md "Fitted on its own play"), with the settings recorded
    (``train --win-model [--self-play win [--play-model FILE]] [--points-exponent E]``); ``played_by``
    names the model that played (recorded with ``strategy`` win, fitted with the ridge
    :data:`OWN_PLAY_RIDGE`). ``win`` plays by that model in every game, the shipped one given
    explicitly when ``win_model`` is ``None``: never by the exact two-player table that plain
    ``win`` plays on a board within its budget (:meth:`strategies.WinStrategy.exact`), so the
    model recorded is the one that played. The other shapes' model (:func:`win_model.fit_shaped`)
    has ``points_exponent`` (0: the points as they are): it is fitted to the same positions with
    every seat's points read over ``board``'s :func:`win_model.size_factor` at it (the same fit
    where that factor is 1, as on the default board), and every other board's are read so
    (:meth:`win_model.WinModel.for_board`; docs/win-chance.md "In the board's own points"). The
    exponent is not read from ``win_model``: the block is fitted here, not taken from the model
    that played.

    Raises:
        ValueError: ``win_model`` given for a strategy other than ``win``.
    """
    if strategy == "win" and win_model is None:
        win_model = default_win_model()
    exponents = (Fraction(0),) if size_factor(board, points_exponent) == 1 else (Fraction(0), points_exponent)
    found = self_play_positions_at(board, rules, seed, games, exponents, players, jobs, strategy, win_model)
    samples, sized = found[0], found[-1]
    info: dict[str, Any] = {"seed": seed, "games": games, "players": list(players), "positions": len(samples),
                            "strategy": strategy}
    if strategy != "win":
        return replace_info(fit_shaped(samples, board, points_exponent=points_exponent, sized=sized), **info,
                            board=board.name)
    # the model that played, and how it was made (the chain of iterations)
    info.update(played_by=played_by or "the shipped model (data/win.json)",
                played_by_info=played_by_record(win_model or default_win_model()), ridge=OWN_PLAY_RIDGE)
    return replace_info(fit_shaped(samples, board, OWN_PLAY_RIDGE, points_exponent, sized), **info,
                        board=board.name)
