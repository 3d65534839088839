"""Run a pure function over many tasks: in this process, on a process pool, or on a dask cluster.

One runner for every long computation of the project (``simulate`` today; ``train`` and the
layer-by-layer exact solver are meant to use it too). The contract:

* **Pure tasks.** ``fn(*common, *task)`` for each ``task`` of an iterable of argument tuples;
  ``fn`` is a module-level function (so it pickles by name) whose result depends only on its
  arguments. The ``common`` arguments (a board, a ruleset...) are the same for every task.
* **Same output on every backend.** Results are handed back in task order (index ``0, 1, ...``)
  whatever finished first, so the output does not depend on the backend or the number of
  workers. Randomness comes in with the task: :func:`task_seed` / :class:`SpawnedSeeds` give
  task ``i`` the ``i``-th child of the root seed, made on demand (no up-front
  ``SeedSequence.spawn(n)``: memory does not grow with the number of tasks).
* **Backends.** ``jobs=1``: here, one task after the other. ``jobs>1``: a
  ``concurrent.futures.ProcessPoolExecutor`` of ``min(jobs, usable_cores())`` workers.
  ``scheduler="tcp://host:8786"`` (or a ``distributed`` cluster object): a dask.distributed
  cluster (the optional extra ``pip install 'shelfie-solve[distributed]'``; the package must be
  importable on the cluster's workers). At most a few tasks per worker are in flight at a time,
  so a lazy task iterable is consumed lazily.
* **Interruption.** While a run is in progress, SIGINT (Ctrl-C) and SIGTERM raise
  :class:`Interrupted` in the main thread; every worker process is killed first (workers ignore
  SIGINT and die with their parent, ``PR_SET_PDEATHSIG`` on Linux), and dask tasks are
  cancelled. The caller has written nothing yet (results are only handed to ``consume``), so
  nothing is left half written. The CLI prints one line and exits ``128 + signal`` (130, 143).

Using it (``tournament.run_games`` does this for games; ``train`` or a layer of the exact solver
would pass their own chunk function)::

    def solve_chunk(board, rules, seeds, states):   # module level, pure
        ...

    tasks = ((SpawnedSeeds(entropy, lo, hi), states[lo:hi]) for lo, hi in chunks)
    results = run_tasks(solve_chunk, tasks, common=(board, rules), jobs=jobs, scheduler=scheduler)

A computation in rounds (each round's tasks need the last round's results, like ``solve-game``'s
layers) keeps one backend for all of them, so the workers start once::

    with Runner(jobs, scheduler) as runner:
        for layer in layers:
            found = runner.run(solve_part, tasks_of(layer), common=(board, rules))
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar, overload

from shelfie_solver.core.errors import ShelfieError, shorten

if TYPE_CHECKING:  # numpy is imported when a seed is made: the CLI imports this module early
    import numpy as np

R = TypeVar("R")

#: Tasks in flight per worker (submitted but not yet handed back): enough to keep every worker
#: busy while results wait for an earlier task, few enough that memory stays flat.
IN_FLIGHT_PER_WORKER = 4

#: Seconds to wait for a dask scheduler to answer before giving up.
CONNECT_TIMEOUT = 10.0

_SIGNAL_NAMES: dict[int, str] = {signal.SIGINT: "Ctrl-C (SIGINT)", signal.SIGTERM: "SIGTERM"}


class ParallelError(ShelfieError):
    """A run cannot start or go on: bad ``jobs``, the dask extra missing, a scheduler that cannot
    be reached, or a worker process that died (killed, or out of memory)."""


class Interrupted(BaseException):
    """A run stopped by a signal (SIGINT or SIGTERM) after every worker was stopped.

    A ``BaseException`` like ``KeyboardInterrupt``, so no ``except Exception`` swallows it.

    Attributes:
        signum: the signal number. exit_code: ``128 + signum`` (130 for SIGINT, 143 for SIGTERM).
        kept: what the run left written, for the message (``"nothing saved"``; a run with
            checkpoints says which finished layers or iterations are kept: :meth:`keeping`).
    """

    def __init__(self, signum: int, kept: str = "nothing saved"):
        self.signum = signum
        self.exit_code = signal_exit_code(signum)
        self.kept = kept
        name = _SIGNAL_NAMES.get(signum, f"signal {signum}")
        super().__init__(f"Interrupted by {name}: run stopped, {kept}.")

    def keeping(self, kept: str) -> Interrupted:
        """The same interruption, saying what was kept (e.g. ``"4 finished layers of 9 kept in ck
        (the same command resumes from them)"``)."""
        return Interrupted(self.signum, kept)


def signal_exit_code(signum: int) -> int:
    """The exit code of a command stopped by signal ``signum``: ``128 + signum``, the shell's
    convention (130 for SIGINT, 143 for SIGTERM); what :class:`Interrupted` and ``serve`` exit with."""
    return 128 + signum


def interrupted_by(stop: BaseException) -> Interrupted:
    """An :class:`Interrupted` for ``stop``: itself, or SIGINT for a ``KeyboardInterrupt`` (Ctrl-C
    in a run without workers, or between two parallel steps), so a run with checkpoints can say
    what it kept either way."""
    return stop if isinstance(stop, Interrupted) else Interrupted(signal.SIGINT)


def usable_cores() -> int:
    """The number of CPU cores this process may run on (its affinity mask where the system has
    one, else ``os.cpu_count()``), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def worker_count(jobs: int) -> int:
    """The worker processes a run with ``jobs`` starts: ``jobs`` capped at :func:`usable_cores`
    (more processes than cores only add start-up time and memory).

    Raises:
        ParallelError: ``jobs`` below 1.
    """
    if jobs < 1:
        raise ParallelError(f"--jobs must be at least 1, got {jobs}")
    return min(jobs, usable_cores())


def task_seed(entropy: int, index: int) -> np.random.SeedSequence:
    """The seed of task ``index`` of a run with root seed ``entropy``: the same sequence as
    ``numpy.random.SeedSequence(entropy).spawn(n)[index]`` for any ``n > index``, made alone."""
    from numpy.random import SeedSequence

    return SeedSequence(entropy, spawn_key=(index,))


class SpawnedSeeds(Sequence["np.random.SeedSequence"]):
    """The seeds of tasks ``lo .. hi-1`` (:func:`task_seed`), made when indexed: a picklable
    stand-in for ``SeedSequence(entropy).spawn(n)[lo:hi]`` that costs nothing until used."""

    def __init__(self, entropy: int, lo: int, hi: int):
        self.entropy, self.lo, self.hi = entropy, lo, max(lo, hi)

    def __len__(self) -> int:
        return self.hi - self.lo

    @overload
    def __getitem__(self, index: int) -> np.random.SeedSequence: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[np.random.SeedSequence]: ...

    def __getitem__(self, index: int | slice) -> np.random.SeedSequence | Sequence[np.random.SeedSequence]:
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            if step != 1:
                return [self[i] for i in range(start, stop, step)]
            return SpawnedSeeds(self.entropy, self.lo + start, self.lo + stop)
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        return task_seed(self.entropy, self.lo + index)

    def __repr__(self) -> str:
        return f"SpawnedSeeds({self.entropy}, {self.lo}, {self.hi})"


def run_tasks(fn: Callable[..., R], tasks: Iterable[tuple[Any, ...]], *, common: tuple[Any, ...] = (),
              jobs: int = 1, scheduler: Any = None, consume: Callable[[R], None] | None = None) -> list[R]:
    """``[fn(*common, *task) for task in tasks]``, computed on the chosen backend (module
    docstring), results in task order. One run on a backend of its own: several runs in a row
    (a solver's layers) share one with :class:`Runner`.

    Args:
        fn: a module-level pure function. tasks: argument tuples, consumed lazily.
        common: arguments put before every task's own.
        jobs: worker processes (capped by :func:`worker_count`); 1 runs here. Ignored with a
            ``scheduler``.
        scheduler: a dask scheduler address (``"tcp://host:8786"``) or cluster object.
        consume: when given, called with each result in task order as soon as it and every
            earlier one are done, and the results are not kept (the list returned is empty):
            memory stays flat in the number of tasks.

    Returns:
        The results in task order (empty when ``consume`` is given).

    Raises:
        ParallelError: ``jobs`` below 1, the dask extra missing, the scheduler unreachable, or a
            worker process died.
        Interrupted: SIGINT or SIGTERM arrived; every worker was stopped first.
        Exception: whatever ``fn`` raised (the other workers are stopped first).
    """
    with Runner(jobs, scheduler) as runner:
        return runner.run(fn, tasks, common=common, consume=consume)


class Runner:
    """One backend kept for several :meth:`run` calls: the process pool (or the dask client) is
    started at the first run that needs it and stopped on leaving the ``with`` block, so a
    computation in rounds (``solve-game``'s layers) pays for starting workers once, and the
    workers keep their in-process caches (dice space, feasibility tables) from round to round.

    Each run behaves as :func:`run_tasks` (same results in task order, same interruption);
    when a run fails or is interrupted its workers are stopped at once and the next run starts
    new ones. Leaving the block because of an exception stops the workers without waiting.

    Args:
        jobs: worker processes (:func:`worker_count`); 1 runs here. scheduler: as :func:`run_tasks`.
    Raises:
        ParallelError: ``jobs`` below 1.
    """

    def __init__(self, jobs: int = 1, scheduler: Any = None):
        self.workers = worker_count(jobs)
        self.scheduler = scheduler
        self._pool: Any = None
        self._client: Any = None

    def __enter__(self) -> Runner:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, trace: Any) -> None:
        self.close(failed=kind is not None)

    def run(self, fn: Callable[..., R], tasks: Iterable[tuple[Any, ...]], *, common: tuple[Any, ...] = (),
            consume: Callable[[R], None] | None = None) -> list[R]:
        """``[fn(*common, *task) for task in tasks]`` on this runner's backend, in task order
        (arguments, result and errors as :func:`run_tasks`)."""
        kept: list[R] = []
        sink = consume if consume is not None else kept.append
        with signals_raise() as interrupted:
            if self.scheduler is not None:
                if self._client is None:
                    self._client = _connect(self.scheduler)
                _run_dask(fn, tasks, common, self._client, sink)
            elif self.workers == 1:
                for task in tasks:
                    sink(fn(*common, *task))
                    interrupted()
            else:
                if self._pool is None:
                    self._pool = _start_pool(self.workers)
                try:
                    _run_pool(fn, tasks, common, self.workers, sink, self._pool)
                except BaseException:
                    self._pool = None  # stopped by _run_pool: the next run starts another
                    raise
        return kept

    def close(self, failed: bool = False) -> None:
        """Stop the workers: wait for them after a clean finish, kill them after ``failed``."""
        pool, client, self._pool, self._client = self._pool, self._client, None, None
        if pool is not None:
            if failed:
                _stop_pool(pool)
            else:
                pool.shutdown(wait=True)
        if client is not None:
            client.close()


@contextmanager
def signals_raise() -> Iterator[Callable[[], None]]:
    """While inside, the first SIGINT or SIGTERM raises :class:`Interrupted` in the main thread
    and later ones are ignored (called from another thread: no change). Yields ``check()``,
    which raises :class:`Interrupted` again if that exception was lost (loops call it between
    tasks). :func:`run_tasks` runs
    inside it; a command wraps its own writing in it too, so that a signal during the write
    also ends in clean-up (the atomic writer removes its temporary file) and one line."""
    if threading.current_thread() is not threading.main_thread():
        yield lambda: None
        return

    fired: list[int] = []

    def handler(signum: int, frame: Any) -> None:
        if fired:  # once: a second Ctrl-C must not cut the clean-up short
            return
        if _in_finalizer(frame):
            # an exception raised inside a __del__ is printed and dropped ("Exception ignored
            # in"), e.g. while numba/llvmlite frees compiler objects: deliver the signal again
            # a moment later instead of losing it
            threading.Timer(0.02, os.kill, (os.getpid(), signum)).start()
            return
        fired.append(signum)
        raise Interrupted(signum)

    def check() -> None:
        """Raise :class:`Interrupted` if a signal came and its exception was swallowed anyway."""
        if fired:
            raise Interrupted(fired[0])

    old = {signum: signal.signal(signum, handler) for signum in _SIGNAL_NAMES}
    try:
        yield check
    except Interrupted:
        raise
    except BaseException as error:
        # the signal's exception was raised inside library code that replaced it with another
        # (llvmlite, compiling a numba kernel, reports an AttributeError for it): it is still
        # the signal that stopped the run
        if fired:
            raise Interrupted(fired[0]) from error
        raise
    finally:
        for signum, previous in old.items():
            signal.signal(signum, previous)


def _in_finalizer(frame: Any) -> bool:
    """Whether ``frame`` runs inside a ``__del__`` (where a raised exception is dropped)."""
    while frame is not None:
        if frame.f_code.co_name == "__del__":
            return True
        frame = frame.f_back
    return False


def _feed(tasks: Iterable[tuple[Any, ...]], submit: Callable[[tuple[Any, ...]], Any],
          first_done: Callable[[list[Any]], Iterable[Any]], limit: int, sink: Callable[[Any], None],
          pending: dict[Any, int]) -> None:
    """Drive a futures backend: ``submit(task)`` gives a future, ``first_done(futures)`` waits
    for at least one; at most ``limit`` tasks are submitted but not yet handed on, and results
    go to ``sink`` in task order. ``pending`` (future -> task index) is the caller's, so that it
    can cancel what is left when this raises."""
    ready: dict[int, Any] = {}
    following = 0
    source = enumerate(tasks)
    exhausted = False
    while True:
        while not exhausted and len(pending) + len(ready) < limit:
            item = next(source, None)
            if item is None:
                exhausted = True
            else:
                pending[submit(item[1])] = item[0]
        if not pending:
            return
        for future in sorted(first_done(list(pending)), key=pending.__getitem__):
            ready[pending.pop(future)] = future.result()
        while following in ready:
            sink(ready.pop(following))
            following += 1


# --- process pool ---------------------------------------------------------------------------


def _worker_init(parent: int) -> None:
    """In each worker process: leave SIGINT to the parent (a terminal's Ctrl-C reaches the whole
    process group; the parent stops the workers), default SIGTERM, and die with the parent."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):  # pragma: no cover - no prctl
            pass
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)


def _start_pool(workers: int) -> Any:
    """A process pool of ``workers`` workers set up by :func:`_worker_init`."""
    from concurrent.futures import ProcessPoolExecutor

    return ProcessPoolExecutor(max_workers=workers, initializer=_worker_init, initargs=(os.getpid(),))


def _run_pool(fn: Callable[..., Any], tasks: Iterable[tuple[Any, ...]], common: tuple[Any, ...], workers: int,
              sink: Callable[[Any], None], pool: Any) -> None:
    """One run on ``pool`` (kept running after a clean finish; stopped when this raises)."""
    from concurrent.futures import FIRST_COMPLETED, Future, wait
    from concurrent.futures.process import BrokenProcessPool

    pending: dict[Future[Any], int] = {}
    try:
        _feed(tasks, lambda task: pool.submit(fn, *common, *task),
              lambda futures: wait(futures, return_when=FIRST_COMPLETED).done,
              IN_FLIGHT_PER_WORKER * workers, sink, pending)
    except BrokenProcessPool:
        _stop_pool(pool)
        raise ParallelError("a worker process died (killed, or out of memory); nothing saved") from None
    except BaseException:
        _stop_pool(pool)
        raise


def _stop_pool(pool: Any) -> None:
    """Kill every worker of ``pool`` now and drop its queued tasks (never waits for a task)."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    for process in processes:
        try:
            process.kill()
        except (OSError, ValueError):  # already gone
            pass
    for process in processes:
        try:
            process.join(timeout=2)
        except (OSError, ValueError, AssertionError):
            pass
    # A worker killed while sending a result leaves half a message in the result pipe; this
    # process holds the pipe's only other write end: closing it turns the pool's reader thread's
    # endless wait for the rest into an end-of-file, so the exit does not hang on that thread.
    writer = getattr(getattr(pool, "_result_queue", None), "_writer", None)
    if writer is not None:
        try:
            writer.close()
        except OSError:
            pass
    thread = getattr(pool, "_executor_manager_thread", None)
    pool.shutdown(wait=False, cancel_futures=True)
    # Let that thread finish its own clean-up now: racing it at interpreter exit, CPython 3.11's
    # exit hook may write to a pipe the thread has just closed (EBADF noise on stderr).
    if thread is not None:
        thread.join(timeout=2)


# --- dask.distributed -----------------------------------------------------------------------


def _connect(scheduler: Any) -> Any:
    """A ``distributed.Client`` for ``scheduler`` (address or cluster object).

    Raises:
        ParallelError: the ``distributed`` package is missing, or the scheduler does not answer
            within :data:`CONNECT_TIMEOUT` seconds.
    """
    try:
        from distributed import Client
    except ImportError:
        raise ParallelError("--scheduler needs dask.distributed: pip install 'shelfie-solve[distributed]'") from None
    where = shorten(str(scheduler if isinstance(scheduler, str) else getattr(scheduler, "scheduler_address", scheduler)))
    try:
        if isinstance(scheduler, str):
            _probe(scheduler)
        return Client(scheduler, timeout=CONNECT_TIMEOUT, set_as_default=False)  # type: ignore[no-untyped-call]
    except (OSError, TimeoutError, ValueError) as error:
        reason = " ".join(str(error).split()) or type(error).__name__
        raise ParallelError(f"cannot reach the dask scheduler at {where}: {reason[:200]}; "
                            "expected a running scheduler address such as tcp://host:8786") from None


def _probe(address: str) -> None:
    """Fail fast on a TCP address nobody listens on (``distributed`` would retry until its
    timeout, then leave a half-built client behind that delays the exit).

    Raises:
        ValueError: not ``[tcp://]host:port``-like. OSError: the connection is refused or times out.
    """
    from distributed.comm.addressing import parse_address, parse_host_port
    from distributed.comm.registry import get_backend

    scheme, location = parse_address(address)
    get_backend(scheme)  # ValueError for an unknown scheme
    if scheme in ("tcp", "tls"):
        import socket

        socket.create_connection(parse_host_port(location), timeout=CONNECT_TIMEOUT).close()


def _run_dask(fn: Callable[..., Any], tasks: Iterable[tuple[Any, ...]], common: tuple[Any, ...], client: Any,
              sink: Callable[[Any], None]) -> None:
    """One run on the dask ``client`` (left open; what is still pending is cancelled when this raises)."""
    from distributed import wait

    pending: dict[Any, int] = {}

    def first_done(futures: list[Any]) -> Any:
        with client.as_current():
            return wait(futures, return_when="FIRST_COMPLETED").done  # type: ignore[no-untyped-call]

    try:
        _feed(tasks, lambda task: client.submit(fn, *common, *task, pure=False), first_done,
              IN_FLIGHT_PER_WORKER * max(1, sum(client.nthreads().values())), sink, pending)
    finally:
        if pending:
            try:
                client.cancel(list(pending))
            except Exception:  # pragma: no cover - the cluster went away
                pass
