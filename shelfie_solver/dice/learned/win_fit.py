"""Fitting the ``win`` model (:mod:`learned.win_model`) by self-play: the positions after every
turn of seeded ``learned`` games with their outcome (D20), and the maximum-likelihood fit
(``train --win-model``, ``benchmarks/win_calibration.py``; docs/train.md, "The chance to win")."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from shelfie_solver.dice.board import Board, parse_marks
from shelfie_solver.dice.game.events import Game, GameOver, GameState, Pass, Roll, Start, apply_to_sheets
from shelfie_solver.dice.learned.model_file import LearnedModel, default_model
from shelfie_solver.dice.learned.objective import state_objective
from shelfie_solver.dice.learned.win_model import WinModel, design, fit, replace_info
from shelfie_solver.dice.objectives import StateArrays
from shelfie_solver.dice.rules import Ruleset


def game_positions(game: Game, learned: LearnedModel | None = None) -> list[tuple[int, int, np.ndarray, float]]:
    """``(players, phase, features (6,), share of victory)`` after every turn of a finished game
    whose turn is not one :mod:`win_chance` values exactly (module docstring): the features of
    :func:`design` for the player who just played, and their final share (D20)."""
    from shelfie_solver.dice.win_chance import exact_objective, share

    board, rules = game.board, game.rules
    n = len(game.players)
    start = game.events[0]
    assert isinstance(start, Start)
    sheets = [parse_marks(text, board) for text in start.sheets]
    finals = game.scores
    out: list[tuple[int, int, np.ndarray, float]] = []
    triggered = False
    turn = -1
    before: GameState | None = None

    def close() -> None:
        if before is None or exact_objective(before) is not None:
            return
        objective = state_objective(before, learned or default_model())
        after = StateArrays(board, rules, sheets[before.active]).line_totals
        phase, own, others, leader = objective.table_values(StateArrays(board, rules, before.marks),
                                                            *(x[None] for x in after))
        x = design(phase, own, others, leader, n - 1, before.round)
        me = before.active
        out.append((n, int(phase[0]), x[0], float(share(finals[me], [s for j, s in enumerate(finals) if j != me]))))

    for event in game.events:
        starts = isinstance(event, Roll) and event.rerolls_left == rules.rerolls
        if starts or isinstance(event, (Pass, GameOver)):
            close()
            turn += 1
            before = None
            if starts:
                assert isinstance(event, Roll)
                before = GameState(board, rules, tuple(sheets), event.player, start.first, turn, triggered)
        triggered = apply_to_sheets(event, sheets) or triggered
    return out


def collect(board: Board, rules: Ruleset, players: int, seeds: Sequence[np.random.SeedSequence],
            strategy: str = "learned") -> list[tuple[int, int, np.ndarray, float]]:
    """Self-play games of ``strategy`` (one per seed) and their :func:`game_positions`."""
    from shelfie_solver.dice.game.turn import play_seeded
    from shelfie_solver.dice.strategies import strategy_named

    seat = strategy_named(strategy)
    out = []
    for seed in seeds:
        out += game_positions(play_seeded(board, rules, [seat] * players, seed))
    return out


#: Self-play games per worker task.
CHUNK = 25


def self_play_positions(board: Board, rules: Ruleset, seed: int, games: int, players: Sequence[int] = (2, 3, 4),
                        jobs: int = 1, strategy: str = "learned") -> list[tuple[int, int, np.ndarray, float]]:
    """:func:`game_positions` of ``games`` self-play games of ``strategy`` per number of players:
    game ``g`` of ``n`` players from ``SeedSequence(seed).spawn(5)[n].spawn(games)[g]``, so the
    positions depend on the seed and ``games`` only, never on ``jobs``; in that order."""
    from shelfie_solver.dice.learned.fitting import chunks, run_tasks

    root = np.random.SeedSequence(seed).spawn(5)
    tasks: list[tuple[Any, ...]] = []
    for n in players:
        seeds = root[n].spawn(games)
        tasks += [(board, rules, n, seeds[lo:hi], strategy) for lo, hi in chunks(games, CHUNK)]
    results = run_tasks(collect, tasks, jobs)
    return [s for part in results for s in part]


def train_win_model(board: Board, rules: Ruleset, seed: int, games: int, players: Sequence[int] = (2, 3, 4),
                    jobs: int = 1) -> WinModel:
    """The model fitted (:func:`fit`) to :func:`self_play_positions` of the ``learned`` strategy,
    with the settings recorded (``train --win-model``; how data/win.json was made)."""
    samples = self_play_positions(board, rules, seed, games, players, jobs)
    return replace_info(fit(samples), seed=seed, games=games, players=list(players), positions=len(samples),
                        strategy="learned", board=board.name)

