"""Rollouts counted in instructions (docs/performance.md "Rollouts"): ``win`` against ``win``
play-outs of :mod:`bench_rollout`'s positions under ``valgrind --tool=callgrind``, a figure free
of the host's speed (on a shared or virtual machine ``perf stat`` may have no counters).

One figure is the instructions of a run that builds the position, plays 3 warm-up play-outs
(seed 1) and then ``N`` play-outs (seed 8808), minus those of the same run without the ``N``:
start-up and warm-up cancel. numba's code is compiled for ``NUMBA_CPU_NAME=generic`` (valgrind's
CPU is not the host's, so a host-tuned cache would miss and count a whole compilation), and
every signature the run needs is compiled natively first, so no compilation is counted. With
``--baseline DIR`` the same for that checkout (e.g. a worktree of main) and the ratio.

Run: ``python benchmarks/rollout_instructions.py [--baseline DIR] [--playouts N] [--round R]``
(about 5 minutes of valgrind per checkout and position on a 2-core host). Exit 2 with one line
when valgrind is missing.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

#: The measured run: the position, the warm-up, then ``N`` play-outs (argv: N, round).
RUN = """
import sys
sys.path.insert(0, "benchmarks")
from bench_rollout import position
from shelfie_solver.dice.board import load_board
from shelfie_solver.dice.rollout.run import RolloutSetup, play_games
from shelfie_solver.dice.rules import DEFAULT_RULES
n, round_ = int(sys.argv[1]), int(sys.argv[2])
kept = position(load_board(None, DEFAULT_RULES), DEFAULT_RULES, 3, round_)
play_games(RolloutSetup(kept.position, ("win", "win"), (), None, 1), 0, 3)
if n:
    play_games(RolloutSetup(kept.position, ("win", "win"), (), None, 8808), 0, n)
"""


def instructions(checkout: str, playouts: int, round_: int) -> int:
    """The instructions of ``playouts`` play-outs from ``round_`` in ``checkout`` (module docstring)."""
    env = {**os.environ, "PYTHONPATH": checkout, "NUMBA_CPU_NAME": "generic"}
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "run.py"
        script.write_text(RUN)
        # every signature into numba's generic-CPU cache, natively, so valgrind compiles nothing
        subprocess.run([sys.executable, str(script), str(playouts), str(round_)], env=env, cwd=checkout, check=True,
                       capture_output=True)
        counts = []
        for n in (0, playouts):
            out = Path(tmp) / f"callgrind.{n}.out"
            subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, str(script),
                            str(n), str(round_)], env=env, cwd=checkout, check=True, capture_output=True)
            found = re.search(r"^summary: (\d+)", out.read_text(), re.MULTILINE)
            assert found, f"no summary line in {out}"
            counts.append(int(found.group(1)))
    return counts[1] - counts[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", help="another checkout (e.g. a worktree of main)")
    parser.add_argument("--playouts", type=int, default=20)
    parser.add_argument("--round", type=int, default=3, dest="round_")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        print("rollout_instructions: valgrind not found; expected valgrind on PATH (apt-get install valgrind)",
              file=sys.stderr)
        raise SystemExit(2)
    here = str(Path(__file__).resolve().parent.parent)
    mine = instructions(here, args.playouts, args.round_)
    print(f"this checkout: {mine:,} instructions for {args.playouts} play-outs from round {args.round_}")
    if args.baseline:
        base = instructions(str(Path(args.baseline).resolve()), args.playouts, args.round_)
        print(f"baseline ({args.baseline}): {base:,}; ratio baseline / this {base / mine:.3f}")


if __name__ == "__main__":
    main()
