"""Rollouts (``shelfie-solve rollout``, docs/rollout.md): ``win`` against ``win`` play-outs per CPU
second from mid-game positions of the default board (2 players, one process, the ``[fast]``
extra), with fresh seeds for every sample.

The baseline, measured in the same run and interleaved with it: the opponent's exact last-turn
chance (``win_chance.opponent_chances``, which ``win`` asks for every marking that ends the game,
D17, D18) computed as before this change, one :func:`dp.solve_turn` of :class:`LastTurnWin` per
score, uncached. Both give the same exact values, so the same games.

Run: ``python benchmarks/bench.py rollout`` (or this file alone: ``python benchmarks/bench_rollout.py``).
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from fractions import Fraction
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench import load, machine, spread  # noqa: E402

from shelfie_solver.dice import win_chance  # noqa: E402
from shelfie_solver.dice.board import Board, Marks, load_board  # noqa: E402
from shelfie_solver.dice.engine.dp import solve_turn  # noqa: E402
from shelfie_solver.dice.game.turn import play_seeded  # noqa: E402
from shelfie_solver.dice.play.gamefile import KeptGame, act, split_actions, start_kept_game  # noqa: E402
from shelfie_solver.dice.rollout.run import RolloutSetup, play_games  # noqa: E402
from shelfie_solver.dice.rules import DEFAULT_RULES, Ruleset  # noqa: E402
from shelfie_solver.dice.strategies import strategy_named  # noqa: E402

#: play-outs per sample, samples per variant, the rounds of the positions
PLAYOUTS, SAMPLES, ROUNDS = 20, 4, (3, 5)


def position(board: Board, rules: Ruleset, seed: int, round_: int) -> KeptGame:
    """A seeded ``win`` against ``win`` game replayed to the first player's roll in ``round_``."""
    played = play_seeded(board, rules, [strategy_named("win")] * 2, seed)
    kept = start_kept_game(board, rules, ("Ann", "Ben"), played.events[0].first)
    for _, action in split_actions(played.events):
        kept = act(kept, action)
        if kept.state.round == round_ and kept.dice is not None:
            break
    return kept


def _old_chances(board: Board, rules: Ruleset, marks: Marks, others: Sequence[tuple[int, ...]]) -> list[Fraction]:
    """The opponent's chance as before: one full solve per score, no cache."""
    if not marks.available:
        return [win_chance.share(win_chance.score(board, marks, rules), o) for o in others]
    return [solve_turn(board, marks, rules, win_chance.LastTurnWin(tuple(o))).start_values()[0] for o in others]


@contextmanager
def baseline() -> Iterator[None]:
    """``win_chance.opponent_chances`` as before this change, while inside."""
    kept = win_chance.opponent_chances
    win_chance.opponent_chances = _old_chances
    try:
        yield
    finally:
        win_chance.opponent_chances = kept


def playouts_per_cpu_second(kept: KeptGame, playouts: int) -> float:
    """``playouts`` play-outs of the position with fresh seeds, per CPU second of this process."""
    setup = RolloutSetup(kept.position, ("win", "win"), (), None, int(np.random.SeedSequence().entropy))
    start = time.process_time()
    play_games(setup, 0, playouts)
    return playouts / (time.process_time() - start)


def run() -> list[tuple[str, str, str]]:
    """The rows: per position, this code's play-outs per CPU second, the baseline's, the ratio."""
    board, rules = load_board(None, DEFAULT_RULES), DEFAULT_RULES
    rows = []
    for round_ in ROUNDS:
        kept = position(board, rules, 3, round_)
        playouts_per_cpu_second(kept, 2)  # compile and warm the caches of both
        with baseline():
            playouts_per_cpu_second(kept, 2)
        fast, slow, ratios = [], [], []
        for _ in range(SAMPLES):  # interleaved: the load moves both alike
            fast.append(playouts_per_cpu_second(kept, PLAYOUTS))
            with baseline():
                slow.append(playouts_per_cpu_second(kept, PLAYOUTS))
            ratios.append(fast[-1] / slow[-1])
        where = f"round {round_}, {kept.active_name}'s dice rolled, {kept.rerolls_left} re-rolls left"
        rows.append((f"win vs win play-outs per CPU second, {where}", spread(fast, digits=1),
                     ">= 100 (not met)" if statistics.median(fast) < 100 else ">= 100 (met)"))
        rows.append((f"the same, baseline (opponent's last turn by solve_turn per score), {where}",
                     spread(slow, digits=1), ""))
        rows.append((f"ratio this / baseline, {where}", spread(ratios, digits=2), ""))
    return rows


if __name__ == "__main__":
    print(f"Machine: {machine()}; load {load()}")
    print("| measurement | min / median / max | target |\n|---|---|---|")
    for row in run():
        print("| " + " | ".join(row) + " |")
