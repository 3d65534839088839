"""Scaling of one float whole-game solve (``solve-game --float``) over workers: a process pool
(``--jobs 1``, ``--jobs 2``) and a dask.distributed ``LocalCluster`` of 1 and 2 worker processes
(``--scheduler``), the real command in a fresh process each time, the optima asserted equal (bit
for bit: the values do not depend on the workers).

    python benchmarks/bench.py wholegame_cluster          # the 4 x 5 board (minutes per run)
    SHELFIE_BENCH_BOARD=examples/boards/small-5x3.toml python benchmarks/bench.py wholegame_cluster

Needs ``pip install '.[distributed,fast]'``. "CPU" is every process's CPU time (the command, its
pool's workers, the cluster's workers: reaped children, ``RUSAGE_CHILDREN``), start-up included.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BOARD = os.environ.get("SHELFIE_BENCH_BOARD", str(ROOT / "benchmarks" / "boards" / "medium-4x5.toml"))
COMMAND = [sys.executable, "-c", "from shelfie_solver.cli import main; main()", "solve-game", "--board", BOARD,
           "--float", "--format", "json"]


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _timed(*args: str) -> tuple[float, dict[str, float]]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    start = time.perf_counter()
    done = subprocess.run([*COMMAND, *args], capture_output=True, text=True, check=True, env=env)
    data: dict[str, float] = json.loads(done.stdout)
    return time.perf_counter() - start, data


def _on_cluster(workers: int) -> tuple[float, dict[str, float]]:
    from distributed import LocalCluster

    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster:
        return _timed("--scheduler", cluster.scheduler_address)


def run() -> list[tuple[str, str, str]]:
    configs: dict[str, Callable[[], tuple[float, dict[str, float]]]] = {
        "--jobs 1 (one process)": lambda: _timed("--jobs", "1"),
        "--jobs 2 (process pool)": lambda: _timed("--jobs", "2"),
        "LocalCluster, 1 worker": lambda: _on_cluster(1),
        "LocalCluster, 2 workers": lambda: _on_cluster(2),
    }
    rows: list[tuple[str, str, str]] = []
    first: float | None = None
    optimum = None
    for name, go in configs.items():
        cpu = _child_cpu()
        wall, data = go()
        used = _child_cpu() - cpu
        if optimum is None:
            optimum = data["optimum_float"]
        assert data["optimum_float"] == optimum, "the optimum must not depend on the workers"
        first = first or wall
        rows.append((f"`solve-game --float` `{Path(BOARD).name}` ({int(data['states']):,} states), {name}",
                     f"{wall / 60:.1f} min wall ({data['states'] / wall:,.0f} states/s), {used / 60:.1f} CPU-min",
                     f"{first / wall:.2f}x the `--jobs 1` wall"))
    return rows
