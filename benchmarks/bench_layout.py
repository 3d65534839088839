"""Start-up and speed of this checkout against another one, interleaved in the same run.

    python benchmarks/bench_layout.py --base /path/to/other/checkout [--rounds 15]

Runs each command alternately from the two checkouts (``PYTHONPATH``), so load on a shared
machine hits both alike, and prints the median wall time of each and the ratio (this / base).
Used to show that a change of layout (docs/architecture.md) left start-up and speed unchanged.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent

COMMANDS = (
    ("advise --dice CCBJPP", ["advise", "--dice", "CCBJPP"]),
    ("odds --target 3C+2B", ["odds", "--target", "3C+2B", "--dice", "CCBJPP"]),
    ("tile advise (example position)", ["tile", "advise", "examples/tile/position.toml", "--top", "1"]),
    ("simulate solver,greedy 40 games", ["simulate", "--players", "solver,greedy", "--games", "40", "--seed", "1"]),
    ("cli --help (start-up only)", ["--help"]),
)


def _run(root: Path, argv: list[str], cache: str) -> float:
    env = dict(os.environ, PYTHONPATH=str(root), SHELFIE_SOLVE_CACHE=cache, PYTHONHASHSEED="0")
    code = "import sys; from shelfie_solver.cli import main; sys.argv[0] = 'shelfie-solve'; main()"
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code, *argv], cwd=HERE, env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    """Measure and print a Markdown table (median seconds, ratio this / base)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, type=Path, help="the other checkout (its root folder)")
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    print("| command | base (s, median) | this (s, median) | this / base |")
    print("|---|---|---|---|")
    with tempfile.TemporaryDirectory() as cache_base, tempfile.TemporaryDirectory() as cache_this:
        for label, argv in COMMANDS:
            base, this = [], []
            _run(args.base, argv, cache_base), _run(HERE, argv, cache_this)  # warm the caches
            for _ in range(args.rounds):
                base.append(_run(args.base, argv, cache_base))
                this.append(_run(HERE, argv, cache_this))
            b, t = statistics.median(base), statistics.median(this)
            print(f"| `{label}` | {b:.3f} | {t:.3f} | {t / b:.2f} |")
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
