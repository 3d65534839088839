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
:data:`learned.objective.WEIGHT_SCALE`. Solitaire fits every feature; with opponents only the global
features are fitted and the line features keep ``w0`` (:func:`free_features`). With
``solitaire_boards`` the solitaire weights are instead fitted to the exact value tables of random
small boards (:func:`fit_boards`; how the shipped ones were made, docs/train.md).

Determinism. Game ``g`` of player count ``n`` in iteration ``k`` is played from its own
``SeedSequence`` child (``SeedSequence(seed)`` -> iteration -> player count -> game), and the
sums ``X^T X``, ``X^T y`` are exact integers added in any order, so the parameters depend on the
seed and the settings only, never on ``jobs``. A checkpoint file holds every finished iteration;
running again with the same settings resumes after the last one.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from fractions import Fraction
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from shelfie_solver.dice.board import Board, Marks, parse_marks, score
from shelfie_solver.core.errors import ShelfieError
from shelfie_solver.core.files import FileWriteError, check_overwrite, json_kind, write_text_atomically
from shelfie_solver.dice.game.events import Game, GameOver, Pass, Roll, Start, apply_to_sheets
from shelfie_solver.dice.game.turn import play_seeded
from shelfie_solver.dice.sheet_rules import end_trigger_shelves
from shelfie_solver.dice.learned.objective import (GLOBAL_FEATURES, N_CONTEXT, N_FEATURES, PHASES, SHAPES_KEY, WEIGHT_SCALE,
                      LearnedModel, feature_vector, check_weights, shape_key, model_from_dict, prior_weights, table_context, threats)
from shelfie_solver.dice.rules import Ruleset

if TYPE_CHECKING:
    from shelfie_solver.dice.wholegame.solver import GameSolution

#: Ridge penalty added to the diagonal of X^T X (features are whole numbers of points/items).
RIDGE = 1.0
PLAYER_COUNTS = (1, 2, 3, 4)

T = TypeVar("T")
R = TypeVar("R")


class TrainError(ShelfieError):
    """Bad training settings or an unusable checkpoint file."""


@dataclass
class Sums:
    """Exact least-squares sums for one (players, phase): ``xtx (F, F)``, ``xty (F,)`` as
    Python-int object arrays, the sample count and the sum of squared targets."""

    xtx: np.ndarray
    xty: np.ndarray
    count: int = 0
    yy: int = 0

    @classmethod
    def zero(cls) -> Sums:
        return cls(np.zeros((N_FEATURES, N_FEATURES), dtype=object), np.zeros(N_FEATURES, dtype=object))

    def add(self, other: Sums) -> None:
        self.xtx = self.xtx + other.xtx
        self.xty = self.xty + other.xty
        self.count += other.count
        self.yy += other.yy


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
                phase = 1 if (i - first) % n > (played - first) % n else 0
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


def run_tasks(function: Callable[..., R], tasks: Sequence[tuple[Any, ...]], jobs: int,
              progress: Callable[[int], None] | None = None, scheduler: Any = None) -> list[R]:
    """``[function(*task) for task in tasks]``, in task order, on the shared runner
    (:func:`parallel.run_tasks`: ``jobs`` processes, or a dask cluster at ``scheduler``).
    ``progress`` is called with 1 per finished task."""
    from shelfie_solver.core.parallel import run_tasks as run_parallel

    out: list[R] = []

    def keep(result: R) -> None:
        out.append(result)
        if progress:
            progress(1)

    run_parallel(function, tasks, jobs=jobs, scheduler=scheduler, consume=keep)
    return out


def fit(sums: Sums, prior: np.ndarray, basis: np.ndarray, ridge: float = RIDGE) -> tuple[np.ndarray, float]:
    """Ridge least squares from exact sums, shrunk toward ``prior`` (``float (F,)``, points):
    the weights are ``prior + basis @ u`` with ``u`` fitted (``basis`` ``(F, k)``, :func:`basis`:
    a column of the identity frees one feature) and ``ridge`` added to the diagonal. Returns
    ``int64 (F,)`` weights over WEIGHT_SCALE and the root-mean-square error of the fit (points,
    display)."""
    w = prior.astype(float).copy()
    if sums.count == 0 or basis.shape[1] == 0:
        return np.rint(w * WEIGHT_SCALE).astype(np.int64), 0.0
    xtx = sums.xtx.astype(float)
    xty = sums.xty.astype(float)
    b = basis.astype(float)
    lhs = b.T @ xtx @ b + ridge * np.eye(b.shape[1])
    rhs = b.T @ (xty - xtx @ w)
    w = w + b @ np.linalg.solve(lhs, rhs)
    residual = float(sums.yy) - 2 * float(w @ xty) + float(w @ xtx @ w)
    return np.rint(w * WEIGHT_SCALE).astype(np.int64), float(np.sqrt(max(residual, 0.0) / sums.count))


def basis(free: np.ndarray) -> np.ndarray:
    """``(F, k)`` basis of the fitted corrections (:func:`fit`): one identity column per free feature."""
    return np.eye(N_FEATURES)[:, free]


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


def chunks(count: int, size: int) -> list[tuple[int, int]]:
    """``[lo, hi)`` ranges of at most ``size`` covering ``range(count)``."""
    return [(lo, min(count, lo + size)) for lo in range(0, count, size)]


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
        return {"seed": self.seed, "games": self.games, "iterations": self.iterations,
                "players": list(self.players), "board": self.board, "rules": self.rules, **extra}


def train(board: Board, rules: Ruleset, seed: int, games: int = 300, iterations: int = 2, jobs: int = 1,
          players: Iterable[int] = PLAYER_COUNTS, checkpoint: str | Path | None = None,
          progress: Callable[[int], None] | None = None,
          report: Callable[[str], None] | None = None, scheduler: Any = None,
          solitaire_boards: int = 0, solitaire_hard: int = 0, solitaire_float: bool = False,
          solitaire_shapes: int = 0, solitaire_large: int = 0, force: bool = False) -> LearnedModel:
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
            (:func:`fit_boards`, from the same seed); no solitaire game is played, and the other
            player counts' weights are the same as without it (their games keep their seeds).
        solitaire_hard: with ``solitaire_boards``, so many boards of the hard family (columns
            needing 4-5 dice, up to 125,000 states, solved in float) are pooled too
            (:func:`fit_boards` ``hard``).
        solitaire_float: with ``solitaire_boards``, its boards are solved with the float solver
            (:func:`fit_boards` ``float_solve``).
        solitaire_shapes: with ``solitaire_boards``, also a table for each board shape with at least
            this many of its boards (:func:`fit_shapes`, :attr:`LearnedModel.shapes`); 0: none.
        solitaire_large: with ``solitaire_boards``, so many 4 x 5 and 5 x 4 boards of the large
            family too (:func:`solve_boards` ``large``), for the tables per shape only (not in the
            pooled ``weights[1]``).

    Raises:
        TrainError: settings out of range, or the checkpoint cannot be written.
    """
    counts = tuple(sorted(set(players)))
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
    settings = Settings(seed, games, iterations, counts, board.name, rules.name, solitaire_boards, solitaire_hard,
                        solitaire_float, solitaire_shapes, solitaire_large)
    inputs = _inputs_fingerprint(board, rules)
    done = _read_checkpoint(checkpoint, settings, inputs, force)
    tree = [iteration.spawn(len(counts)) for iteration in np.random.SeedSequence(seed).spawn(iterations)]
    model: LearnedModel | None = done[-1] if done else None
    solitaire: np.ndarray | None = None
    shapes: dict[tuple[int, int], np.ndarray] = {}
    if solitaire_boards:
        if done:
            solitaire, shapes = done[-1].weights[1], done[-1].shapes
            if progress:
                progress(solitaire_boards + solitaire_hard + solitaire_large)
        else:
            solved = solve_boards(rules, seed, solitaire_boards, jobs, scheduler, progress, hard=solitaire_hard,
                                  float_solve=solitaire_float, large=solitaire_large)
            # the large boards serve their own shapes' tables only: in the pooled table (the other
            # shapes', the 5 x 5 board's among them) their sampled states cost the 5 x 3 and 5 x 5 boards
            # 1-2 points of 100 (docs/train.md, "Tables per board shape")
            pooled = solved[: len(solved) - solitaire_large]
            solitaire = pooled_fit(pooled, rules, report, boards_named(solitaire_boards, solitaire_float,
                                                                        solitaire_hard))
            shapes = fit_shapes(solved, rules, solitaire_shapes, report) if solitaire_shapes else {}
    from shelfie_solver.core.parallel import Interrupted, interrupted_by

    written = [len(done)]  # iterations the checkpoint holds, for an interruption's message
    try:
        return _iterate(board, rules, games, iterations, jobs, counts, checkpoint, progress, report, scheduler,
                        solitaire_boards, settings, inputs, done, tree, model, (solitaire, shapes), written)
    except (KeyboardInterrupt, Interrupted) as stop:
        if checkpoint is None or not written[0]:
            raise
        raise interrupted_by(stop).keeping(
            f"{written[0]} finished iteration{'s' if written[0] != 1 else ''} of {iterations} kept in {checkpoint} "
            "(the same command resumes from them)") from None


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
             fitted: tuple[np.ndarray | None, dict[tuple[int, int], np.ndarray]],
             written: list[int]) -> LearnedModel:
    """The iterations of :func:`train` not in the checkpoint yet; ``written[0]`` counts those the
    checkpoint holds; ``fitted`` the solitaire weights from the value tables (or None) and the
    tables per board shape."""
    solitaire, shapes = fitted
    for k in range(iterations):
        if k < len(done):
            if progress:
                progress(tasks_total(games, 1, counts, solitaire_boards) - solitaire_boards)
            continue
        tasks: list[tuple[Any, ...]] = []
        owners: list[int] = []
        for i, n in enumerate(counts):
            if n == 1 and solitaire is not None:
                continue  # fitted to the random boards' tables; the others keep their seeds (index i)
            children = tree[k][i].spawn(games)
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
        method = "Monte Carlo returns, ridge least squares, iterated self-play (docs/train.md)"
        if solitaire is not None:
            method += (f"; 1 player: least squares fit to the exact value tables of {solitaire_boards} random "
                       "small boards")
            if settings.solitaire_hard:
                method += f" and the float value tables of {settings.solitaire_hard} hard-family boards"
            if shapes:
                method += (f"; a table of its own for each board shape with at least {settings.solitaire_shapes} of "
                           f"those boards ({', '.join(shape_key(shape) for shape in sorted(shapes))})")
            if settings.solitaire_large:
                method += (f", the 4x5 and 5x4 ones from {LARGE_SAMPLE:,} states of each float value table of "
                           f"{settings.solitaire_large} large-family boards (not in the pooled table)")
        model = LearnedModel(weights, {"trained": {**settings.as_dict(), "method": method}}, shapes)
        check_weights(model, "the fitted weights")  # what learned:FILE would refuse is never written
        done.append(model)
        _write_checkpoint(checkpoint, settings, done, inputs)
        written[0] = len(done)
    assert model is not None
    return model


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


def model_text(model: LearnedModel) -> str:
    """The parameter file's text (JSON, one line per player count or board shape and phase)."""
    data = model.to_dict()
    tables = {key: data.pop(key) for key in ("weights", SHAPES_KEY) if key in data}
    head = json.dumps(data, indent=1)[:-2]
    blocks = []
    for key, entries in tables.items():
        rows = []
        for name, phases in entries.items():
            inner = ",\n".join(f'   "{p}": {json.dumps(w)}' for p, w in phases.items())
            rows.append(f'  "{name}": {{\n{inner}\n  }}')
        blocks.append(f' "{key}": {{\n' + ",\n".join(rows) + "\n }")
    return head + ",\n" + ",\n".join(blocks) + "\n}\n"


#: Targets of :func:`fit_table` are rounded to this many units per point.
TABLE_SCALE = 1 << 16


def fit_table(solutions: Sequence[GameSolution], ridge: float = RIDGE) -> tuple[LearnedModel, dict[int, float]]:
    """Solitaire weights fitted to exact value tables (:mod:`wholegame.solver`, ``solve-game
    --save``; several tables, e.g. of different boards, are pooled): per phase (2: the sheet one closed shelf short of
    the trigger, 3: further), ridge least squares of ``V*(s) - score(s)`` (the optimal points still
    to come, D19) on every state's features, every state weighted alike, shrunk toward the strategic
    shape (:func:`learned.objective.prior_weights`). The states carry no round, so the table-clock features
    keep weight 0. Targets are rounded to units of ``1 / TABLE_SCALE`` point so the sums are exact
    integers.

    Returns the model (players 1) and the root-mean-square error per phase (points, display).

    Raises:
        TrainError: no table, or tables with different scoring thresholds.
    """
    thresholds = sorted({s.rules.scoring_threshold for s in solutions})
    if not thresholds:
        raise TrainError("fit_table needs one or more value tables")
    if len(thresholds) > 1:
        raise TrainError(f"the value tables have different scoring thresholds ({', '.join(map(str, thresholds))}, "
                         "D19); expected one or more tables of rulesets with one threshold")
    weights, errors = fit_table_sums([_table_sums(solution) for solution in solutions],
                                     solutions[0].rules.scoring_threshold, ridge)
    names = [s.board.name for s in solutions]
    model = LearnedModel({1: weights}, {"trained": {"tables": names, "method": "least squares fit to "
                                                    "exact value tables (docs/train.md)"}})
    check_weights(model, "the weights fitted to the value tables")
    return model, errors


def fit_table_sums(tables: Iterable[dict[int, Sums]], threshold: int,
                   ridge: float = RIDGE) -> tuple[np.ndarray, dict[int, float]]:
    """The fit of :func:`fit_table` from the tables' exact sums (:func:`_table_sums`, pooled in
    any order): ``int64 (3, N_FEATURES)`` solitaire weights (phase 1 keeps the prior: a solitaire
    game has no phase 1) and the RMS error per phase (points, display)."""
    totals = {p: Sums.zero() for p in PHASES}
    for table in tables:
        for p, sums in table.items():
            totals[p].add(sums)
    prior = prior_weights(threshold)
    free = np.ones(N_FEATURES, dtype=bool)
    free[N_FEATURES - N_CONTEXT:] = False
    weights, errors = [], {}
    for p in PHASES:
        w, error = fit(totals[p], prior, basis(free), ridge * TABLE_SCALE)
        weights.append(w)
        if totals[p].count:
            errors[p] = error / TABLE_SCALE ** 0.5
    return np.stack(weights), errors


def board_table_sums(board: Board, rules: Ruleset) -> dict[int, Sums]:
    """Solve ``board``'s solitaire game exactly (:func:`wholegame.solver.solve_game`) and return the sums
    :func:`fit_table` pools for its value table. A worker's unit of work (:func:`fit_boards`)."""
    from shelfie_solver.dice.wholegame.solver import solve_game

    return _table_sums(solve_game(board, rules))


#: The spawn key, under ``SeedSequence(seed)``, of the random training boards' seeds
#: (:func:`fit_boards`); the self-play iterations use the keys 0-19, so the streams never meet.
BOARD_STREAM = 100


def boards_named(count: int, float_solve: bool = False, hard: int = 0, large: int = 0) -> str:
    """How :func:`pooled_fit`'s report names the boards of a solitaire fit (:func:`solve_boards`)."""
    return (f"{count} random boards'" + (" (float)" if float_solve else "")
            + (f" and {hard} hard boards' (float)" if hard else "")
            + (f" and {large} large boards' (float, sampled)" if large else ""))


def fit_boards(rules: Ruleset, seed: int, count: int, jobs: int = 1, scheduler: Any = None,
               progress: Callable[[int], None] | None = None,
               report: Callable[[str], None] | None = None, max_states: int | None = None,
               hard: int = 0, float_solve: bool = False) -> np.ndarray:
    """Solitaire weights ``int64 (3, N_FEATURES)`` fitted (:func:`fit_table_sums`) to the exact
    value tables of ``count`` random small boards (:func:`solve_boards`, same arguments),
    every state weighted alike; ``report`` is called with one line per phase.

    Raises:
        TrainError: as :func:`solve_boards`.
    """
    solved = solve_boards(rules, seed, count, jobs, scheduler, progress, max_states, hard, float_solve)
    return pooled_fit(solved, rules, report, boards_named(count, float_solve, hard))


def solve_boards(rules: Ruleset, seed: int, count: int, jobs: int = 1, scheduler: Any = None,
                 progress: Callable[[int], None] | None = None, max_states: int | None = None,
                 hard: int = 0, float_solve: bool = False, large: int = 0) -> list[tuple[Board, dict[int, Sums]]]:
    """The training boards of the solitaire fit with the sums of their value tables
    (:func:`_table_sums`): ``count`` random small boards (:func:`random_boards.random_boards` from
    ``SeedSequence(seed, spawn_key=(BOARD_STREAM,))``; the boards docs/train.md measures on are never
    among them). Each board is solved in its own task on ``jobs`` processes or the dask
    ``scheduler``; the sums are exact integers, so a fit does not depend on the workers.
    ``progress`` is called with 1 per solved board; ``max_states`` bounds the family's boards
    (default :data:`random_boards.MAX_STATES`).
    ``hard``: so many boards of the hard family (:func:`random_boards.hard_boards` from
    ``SeedSequence(seed, spawn_key=(HARD_STREAM,))``, none of the ``count`` boards; columns needing
    4-5 dice, up to 125,000 states) are added, each solved with the float solver
    (:func:`board_float_sums`).
    ``float_solve``: the ``count`` boards are solved with the float solver too (minutes faster;
    targets within the float bound, below 1e-9 points, of the exact ones before their rounding).
    ``large``: so many boards of the large family (:func:`random_boards.large_boards` from
    ``SeedSequence(seed, spawn_key=(LARGE_STREAM,))``: 4 x 5 and 5 x 4), solved with the float
    solver, each contributing :data:`LARGE_SAMPLE` of its states drawn uniformly without
    replacement (:func:`board_float_sums` ``sample``; the features of all 4.7 million would take
    half an hour a board).

    Raises:
        TrainError: the ruleset cannot hold the family's boards (too few faces or dice).
    """
    from shelfie_solver.dice.wholegame.random_boards import large_boards, random_boards

    try:
        boards = random_boards(np.random.SeedSequence(seed, spawn_key=(BOARD_STREAM,)), count, rules, max_states)
    except ValueError as error:
        raise TrainError(f"--solitaire-boards: {error}") from None
    try:  # drawn before any board is solved, so a ruleset without room for them fails at once
        big = large_boards(np.random.SeedSequence(seed, spawn_key=(LARGE_STREAM,)), large, rules) if large else []
    except ValueError as error:
        raise TrainError(f"--solitaire-large: {error}") from None
    from shelfie_solver.dice.wholegame.solver import state_count

    # the largest boards first, so no worker is left with one at the end (the sums are exact
    # integers: their order does not matter)
    boards.sort(key=lambda board: -state_count(board, rules))
    solve = board_float_sums if float_solve else board_table_sums
    tables = run_tasks(solve, [(board, rules) for board in boards], jobs, progress, scheduler)
    if hard:
        from shelfie_solver.dice.wholegame.random_boards import hard_boards

        extra = hard_boards(np.random.SeedSequence(seed, spawn_key=(HARD_STREAM,)), hard, rules, boards)
        extra.sort(key=lambda board: -state_count(board, rules))
        tables += run_tasks(board_float_sums, [(board, rules) for board in extra], jobs, progress, scheduler)
        boards += extra
    if large:
        samples = np.random.SeedSequence(seed, spawn_key=(LARGE_STREAM, 1)).spawn(large)
        tables += run_tasks(board_float_sums, [(board, rules, LARGE_SAMPLE, sample)
                                               for board, sample in zip(big, samples)], jobs, progress, scheduler)
        boards += big
    return list(zip(boards, tables))


def pooled_fit(solved: Sequence[tuple[Board, dict[int, Sums]]], rules: Ruleset,
               report: Callable[[str], None] | None = None, what: str = "") -> np.ndarray:
    """``int64 (3, N_FEATURES)`` solitaire weights fitted to every board of ``solved``
    (:func:`solve_boards`) pooled, every state weighted alike (:func:`fit_table_sums`);
    ``report`` gets one line per phase, naming the boards as ``what``."""
    tables = [sums for _, sums in solved]
    weights, errors = fit_table_sums(tables, rules.scoring_threshold)
    if report:
        for p, rms in sorted(errors.items()):
            report(f"{what} value tables, 1 player, phase {p}: "
                   f"{sum(t[p].count for t in tables)} states, RMS error {rms:.2f} points")
    return weights


def fit_shapes(solved: Sequence[tuple[Board, dict[int, Sums]]], rules: Ruleset, min_boards: int,
               report: Callable[[str], None] | None = None) -> dict[tuple[int, int], np.ndarray]:
    """Solitaire weights per board shape (``(shelves, columns)`` -> ``int64 (3, N_FEATURES)``,
    :attr:`LearnedModel.shapes`): for each shape with at least ``min_boards`` boards in
    ``solved``, the fit of :func:`fit_table_sums` to those boards alone. Why: the pooled fit is
    dominated by the boards with the most states, and on a small board the same features are worth
    other amounts (on a 2 x 5 board no column can score, D19: the shelves carry everything).
    ``report`` gets one line per shape."""
    by_shape: dict[tuple[int, int], list[dict[int, Sums]]] = {}
    for board, sums in solved:
        by_shape.setdefault((board.n_shelves, board.n_columns), []).append(sums)
    shapes = {}
    for shape, tables in sorted(by_shape.items()):
        if len(tables) < max(min_boards, 1):
            continue
        shapes[shape], errors = fit_table_sums(tables, rules.scoring_threshold)
        if report:
            rms = ", ".join(f"phase {p} {e:.2f}" for p, e in sorted(errors.items()))
            report(f"{shape[0]} x {shape[1]} boards: {len(tables)} value tables, RMS error {rms} points")
    if report and not shapes:
        report(f"no board shape has {max(min_boards, 1)} or more of the {len(solved)} boards: the pooled table "
               "only (more --solitaire-boards, or a lower --solitaire-shapes)")
    return shapes


#: The spawn key, under ``SeedSequence(seed)``, of the hard-family boards' seeds (:func:`fit_boards`).
HARD_STREAM = 101
#: The spawn key of the large-family boards' seeds; ``(LARGE_STREAM, 1)`` that of their samples of states.
LARGE_STREAM = 102
#: States of a large-family board in its fit (:func:`solve_boards` ``large``).
LARGE_SAMPLE = 150_000


def board_float_sums(board: Board, rules: Ruleset, sample: int | None = None,
                     seed: np.random.SeedSequence | None = None) -> dict[int, Sums]:
    """Solve ``board``'s solitaire game with the float solver (:func:`wholegame.float_solver.solve_float`,
    ``solve-game --float``: float64 with a proven bound, below 1e-9 points on these boards) and
    return the sums :func:`fit_table` pools for its table (each state's float value as the
    target, rounded to ``1 / TABLE_SCALE`` point like the exact ones). With ``sample``: only so
    many states, drawn uniformly without replacement with a generator from ``seed``. A worker's
    unit of work."""
    from shelfie_solver.dice.wholegame.float_solver import solve_float
    from shelfie_solver.dice.wholegame.state_index import state_index

    solution = solve_float(board, rules)
    index = state_index(board, rules)
    values = {}
    chosen: Iterable[int] = range(index.count)
    if sample is not None and sample < index.count:
        picks = np.random.default_rng(seed).choice(index.count, size=sample, replace=False)
        chosen = (int(at) for at in np.sort(picks))
    for at in chosen:
        marks = index.marks(at)
        values[(marks.marked, marks.eliminated)] = float(solution.values[at])
    return _sums(board, rules, values)


def _table_sums(solution: GameSolution) -> dict[int, Sums]:
    """Exact sums of :func:`fit_table` for one table: targets times TABLE_SCALE, ``X^T X`` times
    TABLE_SCALE (so the fitted weights are in points)."""
    return _sums(solution.board, solution.rules, solution.values)


def _sums(board: Board, rules: Ruleset, values: Mapping[tuple[int, int], Fraction | float]) -> dict[int, Sums]:
    """The sums of :func:`_table_sums` from ``{(marked, eliminated): value}`` (points)."""
    trigger = end_trigger_shelves(board, rules)
    threat = np.zeros(len(board.lines), dtype=bool)
    context = np.array([1, 0, 0], dtype=np.int64)
    rows: dict[int, list[np.ndarray]] = {p: [] for p in PHASES}
    targets: dict[int, list[int]] = {p: [] for p in PHASES}
    for (marked, eliminated), value in sorted(values.items()):
        marks = Marks(board.n_shelves, board.n_columns, marked, eliminated)
        near = trigger - marks.closed_shelves() == 1
        phase = 2 if near else 3
        rows[phase].append(feature_vector(board, rules, marks, threat, near, context))
        targets[phase].append(round((value - score(board, marks, rules)) * TABLE_SCALE))
    out = {p: Sums.zero() for p in PHASES}
    for p in PHASES:
        if rows[p]:
            x = np.array(rows[p], dtype=np.int64).astype(object)
            y = np.array(targets[p], dtype=object)
            out[p] = Sums(x.T @ x * TABLE_SCALE, x.T @ y, len(y), int((y * y).sum()) // TABLE_SCALE)
    return out
