"""The shared parallel runner (shelfie_solver/parallel.py): task order, lazy seeds, worker caps,
failures, and the dask.distributed backend on a LocalCluster started here."""

from __future__ import annotations

import os
import pickle
import sys
import time

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from shelfie_solver.cli import main

from shelfie_solver.core.parallel import (
    IN_FLIGHT_PER_WORKER,
    ParallelError,
    Runner,
    SpawnedSeeds,
    run_tasks,
    task_seed,
    usable_cores,
    worker_count,
)
from shelfie_solver.core.stats import SimulationError
from shelfie_solver.core.tournament import MAX_GAMES
from shelfie_solver.dice.simulate import simulate

from conftest import assert_one_line_error


def _slow_square(scale: int, index: int, delay: float) -> tuple[int, int]:
    """Later tasks finish first (delay shrinks with the index), so completion order differs."""
    time.sleep(delay)
    return index, scale * index * index


def _fail_at(index: int, bad: int) -> int:
    if index == bad:
        raise ArithmeticError(f"task {index} failed")
    return index


def _die(index: int) -> int:
    if index == 1:
        os._exit(3)  # a worker killed mid-task (like the kernel's OOM killer)
    time.sleep(0.05)
    return index


def _pid_of(index: int, delay: float) -> tuple[int, int]:
    time.sleep(delay)
    return index, os.getpid()


def _seed_draw(seeds: SpawnedSeeds) -> list[int]:
    return [int(np.random.default_rng(s).integers(10**9)) for s in seeds]


def test_task_seed_is_the_spawned_child():
    """SeedSequence(e, spawn_key=(i,)) is numpy's own definition of spawn(n)[i]."""
    children = np.random.SeedSequence(2024).spawn(40)
    for i in (0, 1, 17, 39):
        assert (task_seed(2024, i).generate_state(8) == children[i].generate_state(8)).all()
    seeds = SpawnedSeeds(2024, 10, 20)
    assert len(seeds) == 10 and len(seeds[2:5]) == 3 and len(SpawnedSeeds(1, 5, 3)) == 0
    assert (seeds[-1].generate_state(4) == children[19].generate_state(4)).all()
    assert (seeds[2:5][0].generate_state(4) == children[12].generate_state(4)).all()
    assert [s.spawn_key for s in seeds[::4]] == [(10,), (14,), (18,)]
    assert (pickle.loads(pickle.dumps(seeds))[3].generate_state(4) == children[13].generate_state(4)).all()
    with pytest.raises(IndexError):
        seeds[10]


@given(st.integers(0, 2**64), st.integers(0, 30), st.integers(0, 30), st.slices(30))
def test_spawned_seeds_slice_like_the_spawned_list(entropy, lo, hi, part):
    """SpawnedSeeds(e, lo, hi)[part] is SeedSequence(e).spawn(n)[lo:hi][part], key for key."""
    expected = [c.spawn_key for c in np.random.SeedSequence(entropy).spawn(30)[lo:hi][part]]
    assert [s.spawn_key for s in SpawnedSeeds(entropy, lo, hi)[part]] == expected


def test_seeds_of_a_huge_run_cost_nothing_up_front():
    """The last game of a 10^18-game run has its seed at once (spawn(10**18) could not)."""
    seeds = SpawnedSeeds(7, 0, 10**18)
    assert len(seeds) == 10**18 and seeds[-1].spawn_key == (10**18 - 1,)


@pytest.mark.parametrize("jobs", [1, 2, 3])
def test_results_in_task_order_whatever_the_workers(jobs):
    tasks = [(i, 0.02 * (6 - i) if i < 6 else 0.0) for i in range(15)]
    assert run_tasks(_slow_square, tasks, common=(3,), jobs=jobs) == [(i, 3 * i * i) for i in range(15)]


def test_consume_streams_in_order_and_tasks_are_pulled_lazily():
    pulled, seen = [], []

    def tasks():
        for i in range(40):
            pulled.append(i)
            yield (i, 0.0)

    def consume(result):
        if not seen:  # the first result arrives before the whole task list is made
            assert len(pulled) <= IN_FLIGHT_PER_WORKER * worker_count(2) + 1
        seen.append(result[0])

    assert run_tasks(_slow_square, tasks(), common=(1,), jobs=2, consume=consume) == []
    assert seen == list(range(40))


def test_worker_cap_and_bad_jobs():
    assert worker_count(1) == 1
    assert worker_count(10**30) == usable_cores() == worker_count(usable_cores())
    with pytest.raises(ParallelError, match="jobs"):
        worker_count(0)


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_failing_task_raises_its_error(jobs):
    with pytest.raises(ArithmeticError, match="task 3"):
        run_tasks(_fail_at, [(i, 3) for i in range(8)], jobs=jobs)


@pytest.mark.skipif(usable_cores() < 2, reason="needs 2 cores for a process pool")
def test_a_runner_keeps_its_workers_over_runs():
    """Three runs on one Runner use the same two worker processes (run_tasks alone would start
    two per run), give each run's results in task order, and the workers are gone after the
    block; a failed run stops its workers and the next run starts new ones."""
    with Runner(2) as runner:
        runs = [runner.run(_pid_of, [(i, 0.05) for i in range(6)]) for _ in range(3)]
        assert runner.run(_slow_square, [(i, 0.0) for i in range(5)], common=(2,)) == [(i, 2 * i * i) for i in range(5)]
        with pytest.raises(ArithmeticError, match="task 2"):
            runner.run(_fail_at, [(i, 2) for i in range(6)])
        assert runner.run(_fail_at, [(i, 9) for i in range(4)]) == [0, 1, 2, 3]
    assert all([index for index, _ in run] == list(range(6)) for run in runs)
    pids = {pid for run in runs for _, pid in run}
    assert len(pids) <= 2 and os.getpid() not in pids
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


@pytest.mark.skipif(usable_cores() < 2, reason="needs 2 cores for a process pool")
def test_leaving_a_runner_on_an_error_kills_its_workers():
    with pytest.raises(KeyboardInterrupt):
        with Runner(2) as runner:
            pids = {pid for _, pid in runner.run(_pid_of, [(i, 0.02) for i in range(4)])}
            raise KeyboardInterrupt  # e.g. Ctrl-C between two layers of solve-game
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


@pytest.mark.skipif(usable_cores() < 2, reason="needs 2 cores for a process pool")
def test_a_dead_worker_is_one_error():
    with pytest.raises(ParallelError, match="worker process died"):
        run_tasks(_die, [(i,) for i in range(6)], jobs=2)


def test_games_limit(board, rules):
    with pytest.raises(SimulationError, match="at most 1,000,000, got '1000000000"):
        simulate(board, rules, ["greedy"], 10**30)
    with pytest.raises(SimulationError, match=f"at most {MAX_GAMES:,}, got '{MAX_GAMES + 1}'"):
        simulate(board, rules, ["greedy"], MAX_GAMES + 1)


# --- dask.distributed -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def cluster():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=":0") as local:
        yield local


def test_dask_gives_the_results_of_one_job(cluster, board, rules):
    players = ["solver", "random", "greedy"]
    here = simulate(board, rules, players, 6, seed=5, jobs=1, save=True)
    assert simulate(board, rules, players, 6, seed=5, scheduler=cluster.scheduler_address, save=True) == here
    tasks = [(i, 0.01 * (5 - i) if i < 5 else 0.0) for i in range(12)]
    assert run_tasks(_slow_square, tasks, common=(2,), scheduler=cluster) == [(i, 2 * i * i) for i in range(12)]


def test_a_runner_keeps_one_dask_client(cluster):
    """Several runs, a failing one among them, on one client: each gives its own results."""
    with Runner(scheduler=cluster) as runner:
        first = runner.run(_slow_square, [(i, 0.0) for i in range(6)], common=(3,))
        with pytest.raises(ArithmeticError, match="task 1"):
            runner.run(_fail_at, [(i, 1) for i in range(4)])
        again = runner.run(_slow_square, [(i, 0.0) for i in range(6)], common=(3,))
    assert first == again == [(i, 3 * i * i) for i in range(6)]


def test_dask_task_error_propagates(cluster):
    with pytest.raises(ArithmeticError, match="task 2"):
        run_tasks(_fail_at, [(i, 2) for i in range(6)], scheduler=cluster)


def test_unreachable_scheduler_is_one_error_at_once(board, rules):
    pytest.importorskip("distributed")
    start = time.monotonic()
    for address in ("tcp://127.0.0.1:1", "no-port", "udp://host:1"):
        with pytest.raises(ParallelError, match=f"cannot reach the dask scheduler at '{address}'"):
            simulate(board, rules, ["greedy"], 2, scheduler=address)
    assert time.monotonic() - start < 5


def test_missing_extra_is_named(board, rules, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    with pytest.raises(ParallelError, match=r"pip install 'shelfie-solve\[distributed\]'"):
        simulate(board, rules, ["greedy"], 2, scheduler="tcp://127.0.0.1:8786")


# --- the CLI --------------------------------------------------------------------------------


def cli(*args: str):
    return CliRunner().invoke(main, ["simulate", "--players", "greedy,random", "--games", "4", "--seed", "2", *args])


def test_cli_scheduler_output_is_that_of_one_job(cluster):
    one, dask = cli("--jobs", "1", "--format", "json"), cli("--scheduler", cluster.scheduler_address, "--format", "json")
    assert one.exit_code == dask.exit_code == 0, dask.output
    assert dask.stdout == one.stdout


def test_cli_too_many_jobs_is_capped_with_a_note():
    result = cli("--jobs", "1000", "--format", "json")
    assert result.exit_code == 0
    assert result.stderr == f"Note: --jobs 1000 capped at {usable_cores()}, the number of usable cores.\n"
    assert result.stdout == cli("--jobs", "1", "--format", "json").stdout


@pytest.mark.parametrize("args,fragments", [
    (["--jobs", "2", "--scheduler", "tcp://127.0.0.1:1"], ["--jobs and --scheduler cannot be combined"]),
    (["--scheduler", " "], ["--scheduler", "tcp://host:8786"]),
    (["--scheduler", "tcp://127.0.0.1:1"], ["cannot reach the dask scheduler at 'tcp://127.0.0.1:1'", "refused"]),
    (["--scheduler", "tcp://" + "h" * 5000 + ":1"], ["cannot reach the dask scheduler at 'tcp://hhh"]),
    (["--games", str(10**40)], ["--games"]),
])
def test_cli_bad_parallel_settings(args, fragments):
    pytest.importorskip("distributed")
    assert_one_line_error(cli(*args), *fragments)


def test_a_signal_inside_a_finalizer_is_not_lost():
    """A Ctrl-C that lands while a ``__del__`` runs (numba/llvmlite free compiler objects in
    finalizers) would raise where Python drops exceptions ("Exception ignored in"), and the run
    would go on: the handler delivers it again just after, so the run still stops."""
    import os
    import signal
    import time

    from shelfie_solver.core.parallel import Interrupted, signals_raise

    class SignalsWhileFinalized:
        def __del__(self) -> None:
            os.kill(os.getpid(), signal.SIGINT)
            for _ in range(10_000):  # the handler runs here, inside __del__
                pass

    started = time.monotonic()
    with pytest.raises(Interrupted) as caught:
        with signals_raise():
            SignalsWhileFinalized()  # dropped at once: its __del__ runs now
            while time.monotonic() - started < 5:
                time.sleep(0.01)
    assert caught.value.signum == signal.SIGINT
    assert time.monotonic() - started < 2


def test_a_signal_replaced_by_library_code_still_stops_the_run() -> None:
    """A library that catches the signal's exception and raises another in its place (llvmlite,
    compiling a numba kernel, reports an AttributeError): the run still ends as interrupted,
    with the other exception as its cause; an error with no signal is left as it is."""
    import os
    import signal

    from shelfie_solver.core.parallel import Interrupted, signals_raise

    def library_call() -> None:
        try:
            os.kill(os.getpid(), signal.SIGINT)
            for _ in range(1_000_000):  # the handler runs here
                pass
        except Interrupted:
            raise AttributeError("'ValueRef' object has no attribute '_as_parameter_'") from None

    with pytest.raises(Interrupted) as caught:
        with signals_raise():
            library_call()
    assert caught.value.signum == signal.SIGINT
    assert isinstance(caught.value.__cause__, AttributeError)
    with pytest.raises(AttributeError):
        with signals_raise():
            raise AttributeError("no signal")
