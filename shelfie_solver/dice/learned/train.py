"""Fit the ``learned`` value function by self-play (click-free; ``shelfie-solve train``, docs/train.md).

Method: Monte Carlo returns with least squares, iterated (approximate policy iteration).
Iteration 0 plays ``games`` self-play games per number of players (1-4) with the ``solver``
strategy (the ``strategic`` objective); every later iteration plays them with the ``learned``
strategy using the previous iteration's parameters. After every turn of every game, each player
not yet done (phase 1-3, :mod:`learned.objective`) gives one sample: the features of their sheet in that
context and the points they add from then to the end of the game (D17-D19). Per number of
players and phase the weights solve the ridge least-squares problem
``(X^T X + ridge * I) w = X^T y + ridge * w0``, shrunk toward the strategic potential's shape
``w0`` (:func:`learned.objective.prior_weights`), and are rounded to integers over
:data:`learned.model_file.WEIGHT_SCALE`. Solitaire fits every feature; with opponents only the global
features are fitted and the line features keep ``w0`` (:func:`free_features`). With
``solitaire_boards`` the solitaire weights are instead fitted to the exact value tables of random
small boards (:mod:`learned.fit_solved`; how the shipped ones were made, docs/train.md).

Determinism. Game ``g`` of player count ``n`` in iteration ``k`` is played from its own
``SeedSequence`` child (``SeedSequence(seed)`` -> iteration -> player count -> game), and the
sums ``X^T X``, ``X^T y`` are exact integers added in any order, so the parameters depend on the
seed and the settings only, never on ``jobs``. A checkpoint file holds every finished iteration;
running again with the same settings resumes after the last one.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from shelfie_solver.core.errors import ShelfieError
from shelfie_solver.core.files import (
    FileWriteError,
    check_overwrite,
    json_kind,
    write_text_atomically,
)
from shelfie_solver.dice.board import Board, parse_marks, score
from shelfie_solver.dice.game.events import (
    Game,
    GameOver,
    Pass,
    Roll,
    Start,
    apply_to_sheets,
    place_in_round,
)
from shelfie_solver.dice.game.turn import play_seeded
from shelfie_solver.dice.learned.fit_solved import (
    HEAVY_SAMPLE,
    LARGE_SAMPLE,
    OVER_BUDGET_SHAPES,
    SPREAD_SAMPLE,
    THREES_MIXED_SHAPE,
    boards_named,
    fit_shapes,
    heavy_table,
    light_five_tables,
    over_budget_table,
    pooled_fit,
    solve_boards,
    solve_heavy,
    solve_light_five,
    solve_spread,
    solve_threes,
    threes_table,
    threes_tables,
)
from shelfie_solver.dice.learned.fitting import (
    Sums,
    TrainError,
    basis,
    chunks,
    fit,
    run_tasks,
)
from shelfie_solver.dice.learned.model_file import (
    GLOBAL_FEATURES,
    N_FEATURES,
    PHASES,
    LearnedModel,
    check_weights,
    model_from_dict,
    shape_key,
)
from shelfie_solver.dice.learned.objective import (
    feature_vector,
    prior_weights,
    table_context,
    threats,
)
from shelfie_solver.dice.rules import Ruleset
from shelfie_solver.dice.sheet_rules import end_trigger_shelves

PLAYER_COUNTS = (1, 2, 3, 4)


def game_samples(game: Game) -> list[tuple[int, np.ndarray, int]]:
    """``(phase, features, points still to come)`` for every player not yet done after every
    turn of a finished game (module docstring)."""
    board, rules = game.board, game.rules
    n = len(game.players)
    start = game.events[0]
    assert isinstance(start, Start)
    sheets = [parse_marks(text, board) for text in start.sheets]
    first = start.first
    finals = game.scores
    trigger = end_trigger_shelves(board, rules)
    samples: list[tuple[int, np.ndarray, int]] = []
    seat: int | None = None
    triggered = False

    def snapshot(played: int, turn: int) -> None:
        now = tuple(sheets)
        distance = min(trigger - m.closed_shelves() for m in now)
        for i in range(n):
            if triggered:
                phase = 1 if place_in_round(i, first, n) > place_in_round(played, first, n) else 0
            else:
                phase = 2 if distance == 1 else 3
            if phase == 0:
                continue
            near = trigger - now[i].closed_shelves() == 1
            features = feature_vector(board, rules, now[i], threats(board, rules, now, i), near,
                                      table_context(now, i, turn))
            samples.append((phase, features, finals[i] - score(board, now[i], rules)))

    turn = -1
    for event in game.events:
        if (isinstance(event, Roll) and event.rerolls_left == rules.rerolls) or isinstance(event, (Pass, GameOver)):
            if seat is not None:
                snapshot(seat, turn)
            turn += 1
            seat = None if isinstance(event, GameOver) else event.player
        triggered = apply_to_sheets(event, sheets) or triggered
    return samples


def collect(board: Board, rules: Ruleset, players: int, model: LearnedModel | None,
            seeds: Sequence[np.random.SeedSequence]) -> dict[int, Sums]:
    """Play one self-play game per seed (``solver`` if ``model`` is None, else ``learned``
    with it) and return the exact least-squares sums per phase. A worker's unit of work."""
    from shelfie_solver.dice.strategies import LearnedStrategy, strategy_named

    strategy = strategy_named("solver") if model is None else LearnedStrategy(model)
    sums = {p: Sums.zero() for p in PHASES}
    rows: dict[int, list[np.ndarray]] = {p: [] for p in PHASES}
    targets: dict[int, list[int]] = {p: [] for p in PHASES}
    for seed in seeds:
        game = play_seeded(board, rules, [strategy] * players, seed)
        for phase, features, target in game_samples(game):
            rows[phase].append(features)
            targets[phase].append(target)
    for p in PHASES:
        if rows[p]:
            x = np.array(rows[p], dtype=np.int64).astype(object)
            y = np.array(targets[p], dtype=np.int64).astype(object)
            sums[p] = Sums(x.T @ x, x.T @ y, len(y), int((y * y).sum()))
    return sums


def free_features(players: int) -> np.ndarray:
    """``bool (F,)``: the features fitted for ``players`` seats. Solitaire: all of them. With
    opponents only the global ones (threats, constant, near trigger, the table's clock); the line
    features keep the strategic potential's shape (:func:`learned.objective.prior_weights`). Fitting the
    line features too made the player slow — a few valuable items a turn — which pays in solitaire
    but loses against ``solver`` (measured: docs/train.md)."""
    free = np.ones(N_FEATURES, dtype=bool)
    if players > 1:
        free[: N_FEATURES - len(GLOBAL_FEATURES)] = False
    return free


@dataclass(frozen=True)
class Settings:
    """What determines the parameters: seed, games per player count per iteration, iterations,
    player counts, board and rules (by name)."""

    seed: int
    games: int
    iterations: int
    players: tuple[int, ...]
    board: str
    rules: str
    solitaire_boards: int = 0
    solitaire_hard: int = 0
    solitaire_float: bool = False
    solitaire_shapes: int = 0
    solitaire_large: int = 0
    solitaire_spread: int = 0
    solitaire_spread_large: int = 0
    solitaire_heavy: int = 0
    solitaire_threes: int = 0
    solitaire_threes_seed: int | None = None
    solitaire_light_five: int = 0
    solitaire_light_five_seed: int | None = None

    @property
    def light_five_seed(self) -> int:
        """The root seed of the light-five family's boards (``--solitaire-light-five-seed``, else
        ``--seed``)."""
        return self.seed if self.solitaire_light_five_seed is None else self.solitaire_light_five_seed

    @property
    def threes_seed(self) -> int:
        """The root seed of the threes family's boards (``--solitaire-threes-seed``, else ``--seed``)."""
        return self.seed if self.solitaire_threes_seed is None else self.solitaire_threes_seed

    def as_dict(self) -> dict[str, Any]:
        extra: dict[str, Any] = {"solitaire_boards": self.solitaire_boards} if self.solitaire_boards else {}
        if self.solitaire_hard:
            extra["solitaire_hard"] = self.solitaire_hard
        if self.solitaire_float:
            extra["solitaire_float"] = True
        if self.solitaire_shapes:
            extra["solitaire_shapes"] = self.solitaire_shapes
        if self.solitaire_large:
            extra["solitaire_large"] = self.solitaire_large
        if self.solitaire_spread or self.solitaire_spread_large:
            extra["solitaire_spread"] = self.solitaire_spread
            extra["solitaire_spread_large"] = self.solitaire_spread_large
        if self.solitaire_heavy:
            extra["solitaire_heavy"] = self.solitaire_heavy
        if self.solitaire_threes:
            extra["solitaire_threes"] = self.solitaire_threes
            extra["solitaire_threes_seed"] = self.threes_seed
        if self.solitaire_light_five:
            extra["solitaire_light_five"] = self.solitaire_light_five
            extra["solitaire_light_five_seed"] = self.light_five_seed
        return {"seed": self.seed, "games": self.games, "iterations": self.iterations,
                "players": list(self.players), "board": self.board, "rules": self.rules, **extra}


#: What :func:`_solitaire_fit` gives: the pooled solitaire weights (or None) and the tables per
#: board shape, many-dice, heavy, threes and light-five tables (:class:`LearnedModel`'s attributes).
Fitted = tuple[np.ndarray | None, dict[tuple[int, int], np.ndarray], dict[tuple[int, int], np.ndarray],
               dict[tuple[int, int], np.ndarray], dict[tuple[int, int], np.ndarray],
               dict[tuple[int, int], np.ndarray]]


def train(board: Board, rules: Ruleset, seed: int, games: int = 300, iterations: int = 2, jobs: int = 1,
          players: Iterable[int] = PLAYER_COUNTS, checkpoint: str | Path | None = None,
          progress: Callable[[int], None] | None = None,
          report: Callable[[str], None] | None = None, scheduler: Any = None,
          solitaire_boards: int = 0, solitaire_hard: int = 0, solitaire_float: bool = False,
          solitaire_shapes: int = 0, solitaire_large: int = 0, force: bool = False,
          solitaire_spread: int = 0, solitaire_spread_large: int = 0, solitaire_heavy: int = 0,
          solitaire_threes: int = 0, solitaire_threes_seed: int | None = None,
          solitaire_light_five: int = 0, solitaire_light_five_seed: int | None = None) -> LearnedModel:
    """Fit the ``learned`` parameters by self-play (module docstring).

    Args:
        games: self-play games per player count per iteration (>= 1).
        iterations: 1 = fit to the ``solver`` strategy's games only; each more iteration refits to
            the previous parameters' own games.
        jobs: worker processes; the result does not depend on it.
        scheduler: a dask.distributed scheduler address or cluster (:mod:`parallel`); the
            result is the same as with ``jobs=1``.
        checkpoint: a JSON file that records every finished iteration (resumed when the settings
            match, rewritten otherwise).
        progress: called with 1 for every finished batch of games (:func:`tasks_total` batches).
        report: called with one line per fitted (iteration, players, phase).
        solitaire_boards: when > 0, the solitaire (1-player) weights are not fitted by self-play
            but to the exact value tables of this many random small boards
            (:func:`fit_solved.fit_boards`, from the same seed); no solitaire game is played, and the other
            player counts' weights are the same as without it (their games keep their seeds).
        solitaire_hard: with ``solitaire_boards``, so many boards of the hard family (columns
            needing 4-5 dice, up to 125,000 states, solved in float) are pooled too
            (:func:`fit_solved.fit_boards` ``hard``).
        solitaire_float: with ``solitaire_boards``, its boards are solved with the float solver
            (:func:`fit_solved.fit_boards` ``float_solve``).
        solitaire_shapes: with ``solitaire_boards``, also a table for each board shape with at least
            this many of its boards (:func:`fit_solved.fit_shapes`, :attr:`LearnedModel.shapes`); 0: none.
        solitaire_large: with ``solitaire_boards``, so many 4 x 5 and 5 x 4 boards of the large
            family too (:func:`fit_solved.solve_boards` ``large``), for the tables per shape only (not in the
            pooled ``weights[1]``).
        solitaire_spread, solitaire_spread_large: with ``solitaire_boards``, so many boards of the
            spread family near the exact budget (whole tables) and over it (4 x 5 and 5 x 4,
            sampled states; :func:`fit_solved.solve_spread`), for the table of the shapes over
            the budget (:func:`fit_solved.over_budget_table`, kept as the 4 x 5 and 5 x 4 tables
            of :attr:`LearnedModel.many`: boards whose columns need many dice,
            :func:`model_file.needs_many_dice`); not in the pooled
            ``weights[1]``.
        solitaire_heavy: with ``solitaire_boards``, so many boards of the heavy family (column
            needs repeated, 3 dice a column on average or more, two or more of 4-5; 4 x 4, 3 x 5,
            5 x 3; sampled states, :func:`fit_solved.solve_heavy`), for the 4 x 5 and 5 x 4 table of
            heavy boards (:func:`fit_solved.heavy_table`: the mean of a fit to them alone and the
            many-dice table, so ``solitaire_spread`` is needed too; :attr:`LearnedModel.heavy`,
            :func:`model_file.needs_heavy`); not in any other table.
        solitaire_threes: with ``solitaire_boards``, so many boards of the threes family (column
            needs repeat 3s beside 4-5s; 4 x 4, 3 x 5, 5 x 3; sampled states,
            :func:`fit_solved.solve_threes`), for the 4 x 5 and 5 x 4 table of such boards
            (:func:`fit_solved.threes_table`: a fit to them alone; :attr:`LearnedModel.threes`,
            :func:`model_file.needs_threes`); not in any other table.
        solitaire_threes_seed: the root seed of those boards (default ``seed``), so the threes
            family can be drawn from a seed of its own while the other tables keep theirs.
        solitaire_light_five: with ``solitaire_boards`` and ``solitaire_spread``, so many boards of
            the light-five family (a 5 beside 1s: one column needing 5 dice, no other 4-5, two or
            more needing 1; 4 x 4, 3 x 5, 5 x 3; sampled states,
            :func:`fit_solved.solve_light_five`), for the 4 x 5 table of such boards
            (:func:`fit_solved.light_five_tables`: the mean of a fit to them alone and the
            many-dice table; :attr:`LearnedModel.light_five`, :func:`model_file.needs_light_five`);
            not in any other table.
        solitaire_light_five_seed: the root seed of those boards (default ``seed``; the shipped
            table's is 9604).

    Raises:
        TrainError: settings out of range, or the checkpoint cannot be written.
    """
    counts = tuple(sorted(set(players)))
    settings = Settings(seed, games, iterations, counts, board.name, rules.name, solitaire_boards, solitaire_hard,
                        solitaire_float, solitaire_shapes, solitaire_large, solitaire_spread, solitaire_spread_large,
                        solitaire_heavy, solitaire_threes, solitaire_threes_seed, solitaire_light_five,
                        solitaire_light_five_seed)
    _check_settings(settings, jobs)
    inputs = _inputs_fingerprint(board, rules)
    done = _read_checkpoint(checkpoint, settings, inputs, force)
    tree = [iteration.spawn(len(counts)) for iteration in np.random.SeedSequence(seed).spawn(iterations)]
    model: LearnedModel | None = done[-1] if done else None
    fitted = _solitaire_fit(settings, rules, done, jobs, scheduler, progress, report)
    from shelfie_solver.core.parallel import Interrupted, interrupted_by

    written = [len(done)]  # iterations the checkpoint holds, for an interruption's message
    try:
        return _iterate(board, rules, games, iterations, jobs, counts, checkpoint, progress, report, scheduler,
                        solitaire_boards, settings, inputs, done, tree, model, fitted, written)
    except (KeyboardInterrupt, Interrupted) as stop:
        if checkpoint is None or not written[0]:
            raise
        raise interrupted_by(stop).keeping(
            f"{written[0]} finished iteration{'s' if written[0] != 1 else ''} of {iterations} kept in {checkpoint} "
            "(the same command resumes from them)") from None


def _check_settings(settings: Settings, jobs: int) -> None:
    """Refuse :func:`train` settings out of range or that do not go together (the ``--solitaire-*``
    options need ``--solitaire-boards``; :func:`_check_shapes_can_be_fitted`).

    Raises:
        TrainError: one line naming the setting and the expected form.
    """
    games, iterations, counts = settings.games, settings.iterations, settings.players
    solitaire_boards, solitaire_hard = settings.solitaire_boards, settings.solitaire_hard
    solitaire_float, solitaire_shapes, solitaire_large = (settings.solitaire_float, settings.solitaire_shapes,
                                                          settings.solitaire_large)
    if games < 1 or iterations < 1 or jobs < 1 or not counts or not set(counts) <= set(PLAYER_COUNTS):
        raise TrainError(f"train needs games, iterations and jobs >= 1 and players among 1-4; got games={games}, "
                         f"iterations={iterations}, jobs={jobs}, players={list(counts)}")
    if solitaire_boards < 0:
        raise TrainError(f"--solitaire-boards: expected a count >= 0; got {solitaire_boards}")
    if solitaire_boards and 1 not in counts:
        raise TrainError(f"--solitaire-boards fits the 1-player weights: expected 1 among --players (e.g. "
                         f"--players 1); got players={list(counts)}")
    if solitaire_hard < 0:
        raise TrainError(f"--solitaire-hard: expected a count >= 0; got {solitaire_hard}")
    if solitaire_hard and not solitaire_boards:
        raise TrainError("--solitaire-hard adds boards to --solitaire-boards: expected --solitaire-boards N "
                         "beside it")
    if solitaire_float and not solitaire_boards:
        raise TrainError("--solitaire-float solves the --solitaire-boards boards: expected it with --solitaire-boards N")
    if solitaire_large < 0:
        raise TrainError(f"--solitaire-large: expected a count >= 0; got {solitaire_large}")
    if solitaire_large and not solitaire_boards:
        raise TrainError("--solitaire-large adds boards to --solitaire-boards: expected --solitaire-boards N "
                         "beside it")
    if solitaire_shapes < 0:
        raise TrainError(f"--solitaire-shapes: expected a count >= 0; got {solitaire_shapes}")
    if solitaire_shapes and not solitaire_boards:
        raise TrainError("--solitaire-shapes fits tables to the --solitaire-boards boards: expected "
                         "--solitaire-boards N beside it")
    _check_shapes_can_be_fitted(solitaire_boards, solitaire_hard, solitaire_shapes, solitaire_large)
    _check_spread(settings)


def _check_spread(settings: Settings) -> None:
    """Refuse ``--solitaire-spread`` / ``--solitaire-spread-large`` settings that do not go
    together: negative, without ``--solitaire-boards``, or with ``--solitaire-large`` (both would
    make the 4 x 5 and 5 x 4 tables); ``--solitaire-heavy`` without them; ``--solitaire-threes``
    negative or without ``--solitaire-boards``, ``--solitaire-threes-seed`` negative or without
    ``--solitaire-threes``; ``--solitaire-light-five`` negative or without ``--solitaire-spread``,
    ``--solitaire-light-five-seed`` negative or without ``--solitaire-light-five``.

    Raises:
        TrainError: one line naming the options and the expected form.
    """
    spread, large = settings.solitaire_spread, settings.solitaire_spread_large
    if spread < 0 or large < 0:
        raise TrainError(f"--solitaire-spread and --solitaire-spread-large: expected counts >= 0; got {spread} and "
                         f"{large}")
    if (spread or large) and not settings.solitaire_boards:
        raise TrainError("--solitaire-spread adds boards to --solitaire-boards: expected --solitaire-boards N beside it")
    if (spread or large) and settings.solitaire_large:
        raise TrainError("--solitaire-spread and --solitaire-large both make the 4 x 5 and 5 x 4 tables: expected "
                         "one of them")
    if settings.solitaire_heavy < 0:
        raise TrainError(f"--solitaire-heavy: expected a count >= 0; got {settings.solitaire_heavy}")
    if settings.solitaire_heavy and not (spread or large):
        raise TrainError("--solitaire-heavy's table is the mean of a fit to its boards and the many-dice table of "
                         "--solitaire-spread: expected --solitaire-boards N --solitaire-spread N beside it")
    if settings.solitaire_threes < 0:
        raise TrainError(f"--solitaire-threes: expected a count >= 0; got {settings.solitaire_threes}")
    if settings.solitaire_threes and not settings.solitaire_boards:
        raise TrainError("--solitaire-threes adds a table to the --solitaire-boards fit: expected --solitaire-boards N "
                         "beside it")
    if settings.solitaire_threes_seed is not None and (settings.solitaire_threes_seed < 0
                                                       or not settings.solitaire_threes):
        raise TrainError(f"--solitaire-threes-seed: expected a seed >= 0 with --solitaire-threes N; got "
                         f"{settings.solitaire_threes_seed} with --solitaire-threes {settings.solitaire_threes}")
    light = settings.solitaire_light_five
    if light < 0:
        raise TrainError(f"--solitaire-light-five: expected a count >= 0; got {light}")
    if light and not (spread or large):
        raise TrainError("--solitaire-light-five's table is the mean of a fit to its boards and the many-dice table of "
                         "--solitaire-spread: expected --solitaire-boards N --solitaire-spread N beside it")
    if settings.solitaire_light_five_seed is not None and (settings.solitaire_light_five_seed < 0 or not light):
        raise TrainError(f"--solitaire-light-five-seed: expected a seed >= 0 with --solitaire-light-five N; got "
                         f"{settings.solitaire_light_five_seed} with --solitaire-light-five {light}")


def _solitaire_fit(settings: Settings, rules: Ruleset, done: list[LearnedModel], jobs: int, scheduler: Any,
                   progress: Callable[[int], None] | None,
                   report: Callable[[str], None] | None) -> Fitted:
    """With ``solitaire_boards``, the solitaire weights fitted to solved boards
    (:mod:`learned.fit_solved`) and the tables per board shape, or those of the checkpoint's last
    iteration when it holds one (``progress`` told of the boards at once), with the many-dice,
    heavy, threes and light-five tables; else ``(None, {}, {}, {}, {}, {})``."""
    boards, hard, large = settings.solitaire_boards, settings.solitaire_hard, settings.solitaire_large
    spread, spread_large = settings.solitaire_spread, settings.solitaire_spread_large
    if not boards:
        return None, {}, {}, {}, {}, {}
    if done:
        if progress:
            progress(boards + hard + large + spread + spread_large + settings.solitaire_heavy
                     + settings.solitaire_threes + settings.solitaire_light_five)
        return (done[-1].weights[1], done[-1].shapes, done[-1].many, done[-1].heavy, done[-1].threes,
                done[-1].light_five)
    solved = solve_boards(rules, settings.seed, boards, jobs, scheduler, progress, hard=hard,
                          float_solve=settings.solitaire_float, large=large)
    # the large boards serve their own shapes' tables only: in the pooled table (the other
    # shapes', the 5 x 5 board's among them) their sampled states cost the 5 x 3 and 5 x 5 boards
    # 1-2 points of 100 (docs/train.md, "Tables per board shape")
    pooled = solved[: len(solved) - large]
    solitaire = pooled_fit(pooled, rules, report, boards_named(boards, settings.solitaire_float, hard) + " value tables")
    shapes = fit_shapes(solved, rules, settings.solitaire_shapes, report) if settings.solitaire_shapes else {}
    many = {}
    if spread or spread_large:
        table = over_budget_table(pooled, solve_spread(rules, settings.seed, spread, spread_large, jobs, scheduler,
                                                       progress), rules, report)
        many = {shape: table for shape in OVER_BUDGET_SHAPES}
    heavy = {}
    if settings.solitaire_heavy:
        fitted = heavy_table(solve_heavy(rules, settings.seed, settings.solitaire_heavy, jobs, scheduler, progress),
                             many[OVER_BUDGET_SHAPES[0]], rules, report)
        heavy = {shape: fitted for shape in OVER_BUDGET_SHAPES}
    threes = {}
    if settings.solitaire_threes:
        table = threes_table(solve_threes(rules, settings.threes_seed, settings.solitaire_threes, jobs, scheduler,
                                          progress), rules, report)
        threes = threes_tables(table, many.get(THREES_MIXED_SHAPE))
    light_five = {}
    if settings.solitaire_light_five:
        light_five = light_five_tables(solve_light_five(rules, settings.light_five_seed, settings.solitaire_light_five,
                                                        jobs, scheduler, progress),
                                       many[OVER_BUDGET_SHAPES[0]], rules, report)
    return solitaire, shapes, many, heavy, threes, light_five


def _check_shapes_can_be_fitted(boards: int, hard: int, shapes: int, large: int) -> None:
    """Refuse ``--solitaire-shapes`` / ``--solitaire-large`` settings that would fit nothing: K
    above the number of boards (no shape can have K of them), or large boards that no table would
    use (they are not pooled, :func:`train`; board ``i`` has shape ``LARGE_SHAPES[i % 2]``), which
    would cost minutes of solving each for an unchanged file.

    Raises:
        TrainError: one line naming the options and the expected form.
    """
    if shapes > boards + hard + large:
        raise TrainError(f"--solitaire-shapes {shapes}: no board shape can have {shapes} of the "
                         f"{boards + hard + large} boards (--solitaire-boards + --solitaire-hard + "
                         "--solitaire-large); expected K at most their number")
    if not large:
        return
    if not shapes:
        raise TrainError("--solitaire-large boards serve only the tables per board shape: expected "
                         "--solitaire-shapes K beside it")
    per_shape = ((large + 1) // 2, large // 2)  # 4 x 5 and 5 x 4 in turn
    if any(0 < n < shapes for n in per_shape):
        raise TrainError(f"--solitaire-large {large} gives {per_shape[0]} 4 x 5 and {per_shape[1]} 5 x 4 boards, "
                         f"fewer than --solitaire-shapes {shapes} of some shape, so they would be solved for "
                         f"nothing; expected --solitaire-large at least {2 * shapes}")


def _iterate(board: Board, rules: Ruleset, games: int, iterations: int, jobs: int, counts: tuple[int, ...],
             checkpoint: str | Path | None, progress: Callable[[int], None] | None,
             report: Callable[[str], None] | None, scheduler: Any, solitaire_boards: int, settings: Settings,
             inputs: str, done: list[LearnedModel], tree: list[list[np.random.SeedSequence]],
             model: LearnedModel | None,
             fitted: Fitted,
             written: list[int]) -> LearnedModel:
    """The iterations of :func:`train` not in the checkpoint yet; ``written[0]`` counts those the
    checkpoint holds; ``fitted`` the solitaire weights from the value tables (or None) and the
    tables per board shape."""
    solitaire, shapes, many, heavy, threes, light_five = fitted
    for k in range(iterations):
        if k < len(done):
            if progress:
                progress(tasks_total(games, 1, counts, solitaire_boards) - solitaire_boards)
            continue
        weights = _fit_iteration(k, board, rules, games, jobs, counts, progress, report, scheduler, tree[k], model,
                                 solitaire)
        method = _method(settings, solitaire is not None, shapes)
        model = LearnedModel(weights, {"trained": {**settings.as_dict(), "method": method}}, shapes, many, heavy,
                             threes, light_five)
        check_weights(model, "the fitted weights")  # what learned:FILE would refuse is never written
        done.append(model)
        _write_checkpoint(checkpoint, settings, done, inputs)
        written[0] = len(done)
    assert model is not None
    return model


def _fit_iteration(k: int, board: Board, rules: Ruleset, games: int, jobs: int, counts: tuple[int, ...],
                   progress: Callable[[int], None] | None, report: Callable[[str], None] | None, scheduler: Any,
                   seeds: list[np.random.SeedSequence], model: LearnedModel | None,
                   solitaire: np.ndarray | None) -> dict[int, np.ndarray]:
    """Iteration ``k``'s weights per player count ``int64 (3, N_FEATURES)``: ``games`` self-play
    games per count (``seeds[i]`` the count ``counts[i]``'s; ``solver`` when ``model`` is None,
    else ``learned`` with it) played in batches on the workers, each phase fitted to their sums
    (:func:`collect`, :func:`fitting.fit`); solitaire takes ``solitaire`` instead when given (no
    game played); ``report`` gets one line per (players, phase)."""
    tasks: list[tuple[Any, ...]] = []
    owners: list[int] = []
    for i, n in enumerate(counts):
        if n == 1 and solitaire is not None:
            continue  # fitted to the random boards' tables; the others keep their seeds (index i)
        children = seeds[i].spawn(games)
        for lo, hi in chunks(games, _BATCH):
            tasks.append((board, rules, n, model, children[lo:hi]))
            owners.append(n)
    results = run_tasks(collect, tasks, jobs, progress, scheduler)
    weights: dict[int, np.ndarray] = {}
    for n in counts:
        if n == 1 and solitaire is not None:
            weights[n] = solitaire
            continue
        total = {p: Sums.zero() for p in PHASES}
        for owner, sums in zip(owners, results):
            if owner == n:
                for p in PHASES:
                    total[p].add(sums[p])
        rows = []
        for p in PHASES:
            w, rmse = fit(total[p], prior_weights(rules.scoring_threshold), basis(free_features(n)))
            rows.append(w)
            if report:
                report(f"iteration {k + 1}, {n} player{'s' if n > 1 else ''}, phase {p}: "
                       f"{total[p].count} samples, RMS error {rmse:.2f} points")
        weights[n] = np.stack(rows)
    return weights


def _method(settings: Settings, solitaire: bool, shapes: dict[tuple[int, int], np.ndarray]) -> str:
    """How the weights were made, in words, for the file's ``trained`` record (``solitaire``:
    the 1-player weights come from solved boards, with ``shapes`` the tables per board shape)."""
    method = "Monte Carlo returns, ridge least squares, iterated self-play (docs/train.md)"
    if solitaire:
        method += (f"; 1 player: least squares fit to the exact value tables of {settings.solitaire_boards} random "
                   "small boards")
        if settings.solitaire_hard:
            method += f" and the float value tables of {settings.solitaire_hard} hard-family boards"
        if shapes:
            method += (f"; a table of its own for each board shape with at least {settings.solitaire_shapes} of "
                       f"those boards ({', '.join(shape_key(shape) for shape in sorted(shapes))})")
        if settings.solitaire_large:
            method += (f", the 4x5 and 5x4 ones from {LARGE_SAMPLE:,} states of each float value table of "
                       f"{settings.solitaire_large} large-family boards (not in the pooled table)")
        if settings.solitaire_spread or settings.solitaire_spread_large:
            method += (f"; on 4x5 and 5x4 boards (the shapes over the exact budget) with a column needing 4-5 dice "
                       f"a table fitted to those boards and "
                       f"the float value tables of {settings.solitaire_spread} spread-family boards (column needs "
                       f"drawn with repetition) of 4x4, 3x5 and 5x3 and {SPREAD_SAMPLE:,} states of each of "
                       f"{settings.solitaire_spread_large} of 4x5 and 5x4 (not in the pooled table)")
        if settings.solitaire_heavy:
            method += (f"; on 4x5 and 5x4 boards of heavy column needs the mean of that table and a table fitted "
                       f"to {HEAVY_SAMPLE:,} states of each float value table of {settings.solitaire_heavy} "
                       "heavy-family boards (4x4, 3x5, 5x3; not in any other table)")
        if settings.solitaire_threes:
            method += (f"; on 4x5 and 5x4 boards of repeated 3s beside 4-5s (no column under 3 dice, a quarter or "
                       f"more but under half of 4-5) a table fitted to "
                       f"{HEAVY_SAMPLE:,} states of each float value table of {settings.solitaire_threes} "
                       f"threes-family boards of seed {settings.threes_seed} (4x4, 3x5, 5x3; not in any other "
                       "table)" + (", on 4x5 a quarter of the many-dice table and three quarters of that fit"
                                   if settings.solitaire_spread or settings.solitaire_spread_large else ""))
        if settings.solitaire_light_five:
            method += (f"; on 4x5 boards of a 5 beside 1s (one column needing 5 dice, no other 4-5, two or more "
                       f"needing 1) the mean of the many-dice table and a table fitted to {HEAVY_SAMPLE:,} states of "
                       f"each float value table of {settings.solitaire_light_five} light-five-family boards of seed "
                       f"{settings.light_five_seed} (4x4, 3x5, 5x3; not in any other table)")
    return method


#: Games per task (a worker's unit, also the progress step).
_BATCH = 10


def tasks_total(games: int, iterations: int, players: Iterable[int] = PLAYER_COUNTS,
                solitaire_boards: int = 0) -> int:
    """How many steps (batches of games, boards solved) :func:`train` reports to ``progress``."""
    counts = set(players)
    played = len(counts) - (1 if solitaire_boards and 1 in counts else 0)
    return iterations * played * len(chunks(games, _BATCH)) + solitaire_boards


def _inputs_fingerprint(board: Board, rules: Ruleset) -> str:
    """SHA-256 of the board's and the ruleset's contents: a checkpoint is resumed only for the
    same inputs, not merely the same names (a board file edited under its old name)."""
    import hashlib

    return hashlib.sha256(repr((board, rules)).encode("utf-8")).hexdigest()


#: Largest train checkpoint read: an iteration is 4 x 3 x 105 weights (a few KB), so 16 MiB
#: holds thousands.
MAX_CHECKPOINT_BYTES = 1 << 24
#: A train checkpoint (a JSON object whose first key is ``"settings"``), as recognised before it is
#: replaced (:func:`files.check_overwrite`).
CHECKPOINT_KIND = json_kind("a train checkpoint", None, first_key="settings")


def _read_checkpoint(path: str | Path | None, settings: Settings, inputs: str,
                     force: bool = False) -> list[LearnedModel]:
    """The iterations a checkpoint holds for these settings and inputs (none when they differ:
    the run starts over and rewrites it). A JSON file that is not a train checkpoint at all (no
    ``"settings"`` first, :data:`CHECKPOINT_KIND`) is not rewritten unless ``force``.

    Raises:
        TrainError: a file that is not a checkpoint of this format, or an iteration without
            weights for every number of players asked for.
    """
    from shelfie_solver.core.inputs import read_json

    if path is None or not Path(path).exists():
        return []
    try:
        # the one bounded reader (regular file, size, nesting, digits of a number: a 5000-digit
        # weight is one line, not Python's int-conversion ValueError)
        data = read_json(path, TrainError, MAX_CHECKPOINT_BYTES, "a checkpoint written by shelfie-solve train")
        if force and not (isinstance(data, dict) and "settings" in data):
            return []
        check_overwrite(path, CHECKPOINT_KIND)
        if data.get("settings") != settings.as_dict() or data.get("inputs") != inputs:
            return []
        done = [model_from_dict(m, str(path)) for m in data["iterations"]][: settings.iterations]
    except FileWriteError as error:  # not a checkpoint: not ours to rewrite
        raise TrainError(str(error)) from None
    except (KeyError, TypeError, AttributeError, ShelfieError) as error:
        reason = str(error).removeprefix(f"{path}: ").removeprefix(f"{path} ")
        raise TrainError(f"checkpoint {path} is unusable ({reason}); delete it or pass another --checkpoint") from None
    for model in done:
        missing = sorted(set(settings.players) - set(model.weights))
        if missing:
            raise TrainError(f"checkpoint {path} is unusable (an iteration has no weights for {missing} players); "
                             "delete it or pass another --checkpoint")
    return done


def _write_checkpoint(path: str | Path | None, settings: Settings, done: list[LearnedModel], inputs: str) -> None:
    if path is None:
        return
    text = json.dumps({"settings": settings.as_dict(), "inputs": inputs, "iterations": [m.to_dict() for m in done]})
    try:
        write_text_atomically(path, text)
    except FileWriteError as error:
        raise TrainError(str(error)) from None
