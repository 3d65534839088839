"""Ctrl-C and SIGTERM during a real ``shelfie-solve simulate`` run (a subprocess): every worker
stops within seconds, one line on stderr, exit 130 / 143, no process left, no --save file."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from shelfie_solver.core.parallel import worker_count

psutil = pytest.importorskip("psutil")

#: A run far longer than the test: solver against solver plays about 20 games per second.
COMMAND = [sys.executable, "-c", "from shelfie_solver.cli import main; main()", "simulate", "--players", "solver,solver", "--games", "5000",
           "--seed", "1"]


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}


@pytest.fixture(scope="module", autouse=True)
def compiled_kernels() -> None:
    """Fill numba's disk cache first (a 1-game run): a signal cannot interrupt LLVM compiling a
    cold cache (seconds, once per install; the run then stops right after it), and these tests
    time the stop during play."""
    subprocess.run([*COMMAND[:3], "simulate", "--players", "solver,solver", "--games", "1", "--seed", "1"],
                   env=_env(), check=True, capture_output=True, timeout=600)


def _start(jobs: int, save: Path) -> subprocess.Popen[str]:
    env = _env()
    # a session of its own, as a shell job has its own process group: Ctrl-C goes to the group
    return subprocess.Popen([*COMMAND, "--jobs", str(jobs), "--save", str(save)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, start_new_session=True)


def _wait_until_playing(process: subprocess.Popen[str], workers: int) -> list[psutil.Process]:
    """The worker processes, once they are all up and playing (or 20 s)."""
    main = psutil.Process(process.pid)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        children = main.children(recursive=True)
        # playing: the workers have started, or without workers the main process has used
        # more CPU than start-up takes (about 0.4 s for a whole 1-game run)
        if (all(p.cpu_times().user > 0.2 for p in children) if workers else main.cpu_times().user > 1.0) \
                and len(children) >= workers:
            return children
        time.sleep(0.1)
    pytest.fail("the run did not start in 20 s")


@pytest.mark.parametrize("jobs,signum,code", [(1, signal.SIGINT, 130), (1, signal.SIGTERM, 143),
                                              (2, signal.SIGINT, 130), (2, signal.SIGTERM, 143),
                                              (4, signal.SIGINT, 130)])
def test_signal_stops_everything_and_saves_nothing(tmp_path, jobs, signum, code):
    save = tmp_path / "games.jsonl"
    process = _start(jobs, save)
    workers = worker_count(jobs) if jobs > 1 else 0
    try:
        children = _wait_until_playing(process, workers)
        assert len(children) == workers
        if signum == signal.SIGINT:
            os.killpg(process.pid, signum)  # Ctrl-C in a terminal signals the whole foreground group
        else:
            process.send_signal(signum)  # `kill PID`: the main process only
        sent = time.monotonic()
        out, err = process.communicate(timeout=15)
        stopped = time.monotonic() - sent
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    assert process.returncode == code, err
    assert stopped < 5  # within a second or two; slack for a loaded machine
    name = "Ctrl-C (SIGINT)" if signum == signal.SIGINT else "SIGTERM"
    notes = [f"Note: --jobs {jobs} capped at {workers}, the number of usable cores."] if jobs > workers > 0 else []
    assert err.splitlines() == [*notes, f"Interrupted by {name}: run stopped, nothing saved."]
    assert out == ""
    gone, alive = psutil.wait_procs(children, timeout=2)
    for survivor in alive:  # never leave an orphan behind, even when failing
        survivor.kill()
    assert alive == []
    assert list(tmp_path.iterdir()) == []  # no --save file, no temporary file


@pytest.mark.skipif(not sys.platform.startswith("linux") or worker_count(2) < 2,
                    reason="PR_SET_PDEATHSIG is Linux's; needs 2 cores for workers")
def test_workers_die_with_a_killed_main_process(tmp_path):
    """SIGKILL cannot be caught: the workers still go (they asked the kernel to kill them when
    their parent dies), instead of playing on as orphans."""
    process = _start(2, tmp_path / "games.jsonl")
    try:
        children = _wait_until_playing(process, 2)
        process.kill()
        process.wait(timeout=5)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    gone, alive = psutil.wait_procs(children, timeout=3)
    for survivor in alive:  # never leave an orphan behind, even when failing
        survivor.kill()
    assert alive == []


@pytest.mark.skipif(worker_count(2) < 2, reason="needs 2 cores for workers")
def test_ctrl_c_stops_solve_game_and_its_one_pool(tmp_path):
    """``solve-game --jobs 2`` keeps one pool for all its layers (parallel.Runner): Ctrl-C still
    stops every worker at once, one line on stderr, exit 130, no table written."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    board = Path(__file__).resolve().parent.parent / "examples" / "boards" / "small.toml"
    process = subprocess.Popen([*COMMAND[:3], "solve-game", "--board", str(board), "--jobs", "2",
                                "--save", str(tmp_path / "table.json")], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, env=env, start_new_session=True)
    try:
        children = _wait_until_playing(process, 2)
        os.killpg(process.pid, signal.SIGINT)
        out, err = process.communicate(timeout=15)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    assert process.returncode == 130, err
    # during a layer the runner's message; between two layers click's
    assert err.splitlines() in (["Interrupted by Ctrl-C (SIGINT): run stopped, nothing saved."], ["Aborted."])
    assert out == ""
    gone, alive = psutil.wait_procs(children, timeout=2)
    for survivor in alive:
        survivor.kill()
    assert alive == []
    assert list(tmp_path.iterdir()) == []
