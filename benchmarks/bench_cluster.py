"""Scaling of one ``simulate`` run over workers: a process pool (``--jobs 1``, ``--jobs 2``) and a
dask.distributed ``LocalCluster`` of 1 and 2 worker processes (``--scheduler``), the same run
(same seed) each time, and the outputs asserted identical.

Each configuration is the real command in a fresh process (``shelfie-solve simulate ...``, wall
clock including start-up), so no run profits from another's warm solver cache; the
configurations are interleaved over ``ROUNDS`` rounds so that other load on a shared machine
falls on all of them alike.

Run: ``python benchmarks/bench.py cluster`` (needs ``pip install '.[distributed]'``).
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

GAMES = 240
SEED = 11
ROUNDS = 3
COMMAND = [sys.executable, "-c", "from shelfie_solver.cli import main; main()", "simulate",
           "--players", "solver,greedy", "--games", str(GAMES), "--seed", str(SEED), "--format", "json"]


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _timed(*args: str) -> tuple[float, str]:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    start = time.perf_counter()
    done = subprocess.run([*COMMAND, *args], capture_output=True, text=True, check=True, env=env)
    return time.perf_counter() - start, done.stdout


def _on_cluster(workers: int) -> tuple[float, str]:
    from distributed import LocalCluster

    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster:
        return _timed("--scheduler", cluster.scheduler_address)


def _measured(go: Callable[[], tuple[float, str]]) -> tuple[float, float, str]:
    """Wall seconds of the command, CPU seconds of every process it and the cluster's workers
    used (start-up included: reaped children, ``RUSAGE_CHILDREN``), and its output."""
    cpu = _child_cpu()
    elapsed, out = go()
    return elapsed, _child_cpu() - cpu, out


def run() -> list[tuple[str, str, str]]:
    configs = {
        "--jobs 1 (this machine, one process)": lambda: _timed("--jobs", "1"),
        "--jobs 2 (process pool)": lambda: _timed("--jobs", "2"),
        "--scheduler, LocalCluster of 1 worker": lambda: _on_cluster(1),
        "--scheduler, LocalCluster of 2 workers": lambda: _on_cluster(2),
    }
    times: dict[str, list[float]] = {name: [] for name in configs}
    cpus: dict[str, list[float]] = {name: [] for name in configs}
    outputs = set()
    for _ in range(ROUNDS):
        for name, go in configs.items():
            elapsed, cpu, out = _measured(go)
            times[name].append(elapsed)
            cpus[name].append(cpu)
            outputs.add(out)
    assert len(outputs) == 1, "the same seed must give the same output on every backend"
    base = statistics.median(times["--jobs 1 (this machine, one process)"])
    rows = []
    for name, seen in times.items():
        median = statistics.median(seen)
        rows.append((f"simulate solver,greedy {GAMES} games, {name}, wall clock, {ROUNDS} runs",
                     f"{min(seen):.1f}-{max(seen):.1f} s ({GAMES / median:.0f} games/s), "
                     f"speed-up {base / median:.2f}x; CPU {statistics.median(cpus[name]):.1f} s",
                     "identical output (asserted)"))
    return rows


if __name__ == "__main__":
    for row in run():
        print(" | ".join(row))
