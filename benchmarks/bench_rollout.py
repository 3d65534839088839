"""Rollouts (``shelfie-solve rollout``, docs/rollout.md): ``win`` against ``win`` play-outs per CPU
second from mid-game positions of the default board (2 players, one process, the ``[fast]``
extra), with fresh seeds for every sample.

The baseline, measured in the same run and interleaved with it: the same measurement by another
checkout of the project (``--baseline DIR``, e.g. a worktree of main made with ``git worktree add
DIR fe48df5``) in a subprocess, timed inside it after its own warm-up, so start-up is not counted.
Without ``--baseline`` the rows of this code only.

Run: ``python benchmarks/bench.py rollout`` (or this file alone:
``python benchmarks/bench_rollout.py [--baseline DIR] [--win-model FILE]``). ``--win-model FILE``:
the play-outs' ``win`` seats play by that model file (e.g. a format-5 file with trees,
``benchmarks/win_trees_synthetic.py``; docs/performance.md "Rollouts"), the positions still
those of the shipped model's seed-3 game; the baseline keeps its own shipped model.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench import load, machine, spread  # noqa: E402

from shelfie_solver.dice.board import Board, load_board  # noqa: E402
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


def baseline_rate(directory: str, round_: int, playouts: int) -> float:
    """:func:`playouts_per_cpu_second` of the checkout in ``directory`` (its own
    ``benchmarks/bench_rollout.py``), in a subprocess, after 2 warm-up play-outs."""
    code = (f"import sys; sys.path.insert(0, {directory + '/benchmarks'!r}); "
            "from bench_rollout import position, playouts_per_cpu_second; "
            "from shelfie_solver.dice.board import load_board; from shelfie_solver.dice.rules import DEFAULT_RULES; "
            f"k = position(load_board(None, DEFAULT_RULES), DEFAULT_RULES, 3, {round_}); "
            f"playouts_per_cpu_second(k, 2); print(playouts_per_cpu_second(k, {playouts}))")
    env = {**os.environ, "PYTHONPATH": directory}
    # run in the checkout: ``python -c`` puts the working directory first on sys.path, so from
    # another checkout's root its shelfie_solver would be timed instead of the baseline's
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True,
                         cwd=directory)
    return float(out.stdout.split()[-1])


def playouts_per_cpu_second(kept: KeptGame, playouts: int) -> float:
    """``playouts`` play-outs of the position with fresh seeds, per CPU second of this process."""
    setup = RolloutSetup(kept.position, ("win", "win"), (), None, int(np.random.SeedSequence().entropy))
    start = time.process_time()
    play_games(setup, 0, playouts)
    return playouts / (time.process_time() - start)


def use_win_model(path: str) -> None:
    """Make the model file ``path`` the one every ``win`` seat of this process plays by (in place
    of data/win.json: :func:`win_model.default_win_model`)."""
    from shelfie_solver.dice.learned import win_model

    model = win_model.load_win_model(path)
    win_model.default_win_model = lambda: model  # type: ignore[assignment]


def run(base: str | None = None, model: str | None = None) -> list[tuple[str, str, str]]:
    """The rows: per position, this code's play-outs per CPU second (by the model file ``model``
    where given), the baseline's, the ratio."""
    board, rules = load_board(None, DEFAULT_RULES), DEFAULT_RULES
    rows = []
    kept_positions = [position(board, rules, 3, round_) for round_ in ROUNDS]  # the shipped model's game
    if model:
        use_win_model(model)
    for round_, kept in zip(ROUNDS, kept_positions):
        playouts_per_cpu_second(kept, 2)  # compile and warm the caches
        fast, slow, ratios = [], [], []
        for _ in range(SAMPLES):  # interleaved: the load moves both alike
            fast.append(playouts_per_cpu_second(kept, PLAYOUTS))
            if base:
                slow.append(baseline_rate(base, round_, PLAYOUTS))
                ratios.append(fast[-1] / slow[-1])
        where = f"round {round_}, {kept.active_name}'s dice rolled, {kept.rerolls_left} re-rolls left"
        rows.append((f"win vs win play-outs per CPU second, {where}", spread(fast, digits=1),
                     ">= 100 (not met)" if statistics.median(fast) < 100 else ">= 100 (met)"))
        if base:
            rows.append((f"the same, baseline ({base}), {where}", spread(slow, digits=1), ""))
            rows.append((f"ratio this / baseline, {where}", spread(ratios, digits=2), ""))
    return rows


if __name__ == "__main__":
    print(f"Machine: {machine()}; load {load()}")
    print("| measurement | min / median / max | target |\n|---|---|---|")
    base = sys.argv[sys.argv.index("--baseline") + 1] if "--baseline" in sys.argv else None
    model = sys.argv[sys.argv.index("--win-model") + 1] if "--win-model" in sys.argv else None
    for row in run(base, model):
        print("| " + " | ".join(row) + " |")
