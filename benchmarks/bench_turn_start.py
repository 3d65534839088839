"""What the two-player figure at a turn's start costs (docs/performance.md, "The two-player chance
at a turn's start"): :func:`play.report.table_chances` at the turn starts of ``win`` self-play
games, now (the seat about to roll shown its own value: one solve of its turn) against the
display before (the mover's figure kept: :func:`play.chances.after_turn_chances` with its
two-player branch switched off), both in the same run. Run:
``python benchmarks/bench_turn_start.py [--seed 9715] [--games 10] [--passes 3]``.
"""

from __future__ import annotations

import argparse
import platform
import time

import numpy as np
from chance_vs_rollout import positions_of


class _Never:
    """A class no objective is an instance of: the two-player branch never taken."""


def main() -> None:
    from shelfie_solver.dice.play import chances
    from shelfie_solver.dice.play.report import table_chances

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=9715)
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--passes", type=int, default=3)
    args = parser.parse_args()
    kept = [k for g in np.random.SeedSequence(args.seed).spawn(args.games)
            for k, kind in positions_of(2, g, 30) if kind == "after marking"]
    table_chances(kept[0])  # compile and load before timing
    now, before = [], []
    real = chances.WinObjective
    for _ in range(args.passes):
        for k in kept:
            start = time.process_time()
            table_chances(k)
            now.append(time.process_time() - start)
            chances.WinObjective = _Never  # type: ignore[misc,assignment]
            try:
                start = time.process_time()
                table_chances(k)
                before.append(time.process_time() - start)
            finally:
                chances.WinObjective = real  # type: ignore[misc]
    ms = 1000
    print(f"{len(kept)} turn starts x {args.passes} passes (seed {args.seed}), {platform.machine()}: "
          f"median {np.median(now) * ms:.1f} ms CPU now, {np.median(before) * ms:.1f} ms before "
          f"(ratio {np.median(now) / np.median(before):.1f}); mean {np.mean(now) * ms:.1f} / {np.mean(before) * ms:.1f}; "
          f"95th percentile {np.quantile(now, 0.95) * ms:.1f} / {np.quantile(before, 0.95) * ms:.1f}")


if __name__ == "__main__":
    main()
