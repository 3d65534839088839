"""Start-up and speed of this checkout against another one, interleaved in the same run.

    python benchmarks/bench_layout.py --base /path/to/other/checkout [--rounds 15] [--startup]

Runs each command alternately from the two checkouts (``PYTHONPATH``), so load on a shared
machine hits both alike, and prints the median wall time of each and the ratio (this / base).
Used to show that a change of layout (docs/architecture.md) left start-up and speed unchanged.

``--startup`` adds the start-up table (docs/performance.md, "Start-up"), also interleaved with a
bare interpreter (``python -c pass``): ``advise --dice CCBJPP`` as wall time and CPU time (user +
system of the process) and their ratio to the bare interpreter's, and ``simulate --players
solver,greedy --games 2 --jobs 1``'s CPU seconds when its first game starts, when that game
ends (the compiled kernels load during it) and in all.
"""

from __future__ import annotations

import argparse
import os
import resource
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


#: Runs simulate and prints the process's CPU seconds when the first game starts and ends (the
#: function every dice game goes through, looked up at call time, is wrapped).
SIMULATE_PROBE = """
import sys, time
import shelfie_solver.dice.game.turn as turn
play = turn.play_game
seen = []
def timed(*args, **kwargs):
    if not seen:
        seen.append(time.process_time())
    game = play(*args, **kwargs)
    if len(seen) == 1:
        seen.append(time.process_time())
    return game
turn.play_game = timed
from shelfie_solver.cli import main
sys.argv[0] = "shelfie-solve"
try:
    main()
finally:
    print(*seen, file=sys.stderr)
"""

SIMULATE_ARGS = ["simulate", "--players", "solver,greedy", "--games", "2", "--seed", "1", "--jobs", "1"]


def _cpu(argv: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """Wall seconds, CPU seconds (user + system of the child) and stderr of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=HERE, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), done.stderr


def startup(base: Path, rounds: int) -> None:
    """Print the start-up table: this checkout and ``base`` against a bare interpreter."""
    print(f"\nstart-up, {rounds} rounds, load average before: {os.getloadavg()[0]:.2f}")
    code = "import sys; from shelfie_solver.cli import main; sys.argv[0] = 'shelfie-solve'; main()"
    advise = ["advise", "--dice", "CCBJPP"]
    runs: dict[str, list[tuple[float, float, str]]] = {}
    for root in (base, HERE):  # bytecode as `pip install .` leaves it (this venv may set PYTHONDONTWRITEBYTECODE)
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(root / "shelfie_solver")], check=True)
    with tempfile.TemporaryDirectory() as cache:
        envs = {name: dict(os.environ, PYTHONPATH=str(root), SHELFIE_SOLVE_CACHE=f"{cache}/{name}",
                           PYTHONHASHSEED="0") for name, root in (("base", base), ("this", HERE))}
        commands = {"bare": ([sys.executable, "-c", "pass"], envs["this"])}
        for name in ("base", "this"):
            commands[f"advise {name}"] = ([sys.executable, "-c", code, *advise], envs[name])
            commands[f"simulate {name}"] = ([sys.executable, "-c", SIMULATE_PROBE, *SIMULATE_ARGS], envs[name])
        for argv, env in commands.values():  # warm the disk caches and numba's
            _cpu(argv, env)
        for _ in range(rounds):
            for key, (argv, env) in commands.items():
                runs.setdefault(key, []).append(_cpu(argv, env))
    med = statistics.median
    bare_wall, bare_cpu = med(r[0] for r in runs["bare"]), med(r[1] for r in runs["bare"])
    print(f"bare interpreter: wall {bare_wall:.3f} s, CPU {bare_cpu:.3f} s (medians)")
    print("| measurement | base | this | this / base |")
    print("|---|---|---|---|")
    for label, index, bare in (("`advise --dice CCBJPP` wall s", 0, bare_wall),
                               ("`advise --dice CCBJPP` CPU s", 1, bare_cpu)):
        b, t = med(r[index] for r in runs["advise base"]), med(r[index] for r in runs["advise this"])
        print(f"| {label} (x bare) | {b:.3f} ({b / bare:.1f}x) | {t:.3f} ({t / bare:.1f}x) | {t / b:.2f} |")
    for name in ("base", "this"):
        marks = [[float(x) for x in r[2].split()[-2:]] for r in runs[f"simulate {name}"]]
        runs[f"first {name}"] = [(m[0], m[1], "") for m in marks]
    for label, key, index in (("`simulate` CPU s when the first game starts", "first", 0),
                              ("`simulate` CPU s when the first game ends", "first", 1),
                              ("`simulate` CPU s of the whole run (2 games)", "simulate", 1)):
        b, t = med(r[index] for r in runs[f"{key} base"]), med(r[index] for r in runs[f"{key} this"])
        print(f"| {label} | {b:.3f} | {t:.3f} | {t / b:.2f} |")
    print(f"load average after: {os.getloadavg()[0]:.2f}")


def main() -> None:
    """Measure and print a Markdown table (median seconds, ratio this / base)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, type=Path, help="the other checkout (its root folder)")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--startup", action="store_true", help="only the start-up table (advise, simulate)")
    args = parser.parse_args()
    if args.startup:
        startup(args.base, args.rounds)
        return
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
