"""The whole solitaire game in float64 (``solve-game --float``): layer by layer, on this
process or in parallel, with a proven bound on its rounding error (docs/solve-game.md, "The
float path"); the compiled kernels are :mod:`float_kernel`.

The same Markov decision process as :mod:`solver` (D6-D19, one player): states are the
:mod:`state_index` indices, ``V`` a float64 array over them, solved layer by layer (decided
items, fullest first). One state's turn (:func:`float_kernel._turn`, compiled): each usable
item set's successor ``V(s + set)`` (a terminal sheet's score, D17-D19, computed exactly), each final roll worth its
best usable feasible set (D8-D12, D14) or the best shelf to give up (D13), then the DP over
(dice, re-rolls left) (D6, D7) with the re-roll expectation one die at a time
(:func:`transitions.hold_steps`): ``S[h] = (sum over sides f of S[h + f]) / sides``, ``S`` of a
full roll its value; ``E_r[h] = S[h]``; ``V_r[roll]`` the best of its sub-holds (keeping every
die is stopping, D7); the state's value is ``S[no die kept]`` over ``V_rerolls``.

Rounding (every value is >= 0). A maximum is exact. One pass of ``S`` computes each ``S[h]``
through at most ``dice`` nested averages, each a recursive sum of ``sides`` non-negative terms
and one division: relative error at most ``(1 + u)^sides - 1`` per average, so the pass's
result is ``A x`` times a factor within ``gamma_n = n u / (1 - n u)`` of 1, ``n = sides * dice``,
``u = 2^-53`` (``A`` the exact averaging, ``x`` the computed inputs). Both the averaging ``A``
and the maximum are non-expansive in the max norm, so with successor errors at most ``e`` a
turn's ``rerolls + 1`` passes give an error at most ``e + (rerolls + 1) gamma_n M`` where ``M``
bounds every intermediate value: ``W (1 + gamma_n)^(rerolls + 1)``, ``W`` the largest final-roll
value of the layer. Successors lie in the next :func:`solver.jump_items` layers, terminal ones are
exact, so layer ``L``'s bound is ``max(bound of layers L+1..L+jump) + (rerolls + 1) gamma_n
M_L``: :func:`layer_bound`, computed in exact rationals as the layers are solved.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from shelfie_solver.dice.board import Board, Marks, score
from shelfie_solver.dice.rules import Ruleset
from shelfie_solver.dice.wholegame.float_kernel import has_numba, layer_members, solve_members
from shelfie_solver.dice.wholegame.state_index import state_index

if TYPE_CHECKING:
    from shelfie_solver.core.parallel import Runner
    from shelfie_solver.dice.wholegame.float_checkpoints import Checkpoints

#: The unit roundoff of float64.
UNIT = Fraction(1, 2**53)

#: CPU seconds per state of the compiled float solve, about what the 4 x 5 and 5 x 4 boards took
#: (30-33 us, docs/performance.md), for the estimate in :func:`check_float_size`'s message.
SECONDS_PER_STATE = 35e-6
#: Memory per state: the float64 values, each state's layer, a layer's indices (about 1 byte a
#: state over the layers); beside a fixed 0.3 GB (the interpreter, numba, the board's tables).
BYTES_PER_STATE = 10
#: Largest board solved without numba (pure Python: correct, slow).
MAX_STATES_UNCOMPILED = 5_000

#: States solved per compiled call in this process (progress and Ctrl-C between calls).
PIECE = 1 << 16


def check_float_size(board: Board, rules: Ruleset, max_states: int) -> int:
    """The state count, or :class:`solver.ExactError` when the float solve is refused: more than
    ``max_states`` states (the message gives the estimated cost), more than 62 items, or a
    board of more than :data:`MAX_STATES_UNCOMPILED` states without numba."""
    from shelfie_solver.dice.wholegame.solver import ExactError, state_count

    states = state_count(board, rules)
    if board.n_cells > 62:
        raise ExactError(f"board {board.name!r} has {board.n_cells} items; the float solver takes at most 62")
    if states > max_states:
        hours = states * SECONDS_PER_STATE / 3600
        raise ExactError(f"board {board.name!r} has {states:,} non-terminal solitaire states, more than --max-states "
                         f"{max_states:,}; the float solve is estimated at {hours:,.1f} CPU-hours "
                         f"({SECONDS_PER_STATE * 1e6:.0f} us per state) and {0.3 + states * BYTES_PER_STATE / 1e9:,.1f} GB "
                         "of memory; raise --max-states and use --checkpoints DIR (and --jobs or --scheduler)")
    if states > MAX_STATES_UNCOMPILED and not has_numba():
        raise ExactError(f"the float solve of {states:,} states needs numba (the compiled kernel): "
                         "pip install '.[fast]' in the clone")
    return states


# --- layers, the bound, the whole game ------------------------------------------------------------


def solve_part(board: Board, rules: Ruleset, path: str, layer: int, part: int,
               parts: int) -> tuple[np.ndarray, float, float]:
    """The ``part``-th of ``parts`` contiguous pieces of ``layer``, reading the values of the later
    layers from the float64 file ``path`` (a memory map shared by the workers): the unit of work
    of :func:`solve_float` on :mod:`parallel`. Returns the values, the largest final-roll value
    and the worker's CPU seconds."""
    cpu = time.process_time()
    members = np.array_split(layer_members(board, rules, layer), parts)[part]
    values = np.memmap(path, dtype=np.float64, mode="r")
    out, largest = solve_members(board, rules, values, members)
    return out, largest, time.process_time() - cpu


def gamma(rules: Ruleset) -> Fraction:
    """``gamma_n = n u / (1 - n u)``, ``n = sides * dice``: one averaging pass's relative error
    (module docstring)."""
    n = rules.n_sides * rules.dice
    return n * UNIT / (1 - n * UNIT)


def layer_bound(rules: Ruleset, later: Fraction, largest: float) -> Fraction:
    """The rounding-error bound of a layer's values: ``later`` (the largest bound of the layers its
    successors lie in) plus ``(rerolls + 1) gamma M``, ``M = largest (1 + gamma)^(rerolls + 1)``
    (module docstring)."""
    g, passes = gamma(rules), rules.rerolls + 1
    return later + passes * g * Fraction(largest) * (1 + g) ** passes


def checked_layer(rules: Ruleset, possible: int, later: Fraction, values: np.ndarray, largest: float,
                  recorded: Fraction, files: tuple[Path, Path]) -> Fraction:
    """The bound of a layer read from a checkpoint, recomputed (:func:`layer_bound`, from
    ``later``, the recomputed bounds of the layers its successors lie in) rather than trusted.

    ``largest`` (``W``, recorded) is a successor's value, so at most ``possible`` (a full sheet's
    points, D19) plus ``later``; a state's value is an average and maximum of final-roll values,
    so the layer's largest value is at most ``W (1 + gamma)^(rerolls + 1)``; every value is within
    0 to ``possible`` plus the layer's bound (:func:`binary_table.check_values`).

    Raises:
        ExactError: ``recorded`` differs from the recomputed bound, or a number contradicts the
            rules or the values (one line naming ``files``, the layer's ``.npy`` and ``.json``).
    """
    from shelfie_solver.dice.wholegame.binary_table import check_values
    from shelfie_solver.dice.wholegame.solver import ExactError

    array, head = files
    expected = "expected the files solve-game --float wrote, unedited"
    if Fraction(largest) > possible + later:
        raise ExactError(f"checkpoint {head}: the largest final-roll value {largest:.6g} is above a full sheet's "
                         f"{possible} points (D19); {expected}")
    bound = layer_bound(rules, later, largest)
    if recorded != bound:
        raise ExactError(f"checkpoint {head} records the bound {float(recorded):.3g}, not the {float(bound):.3g} "
                         f"the layers imply (docs/solve-game.md, the bound); {expected}")
    top = check_values(values, possible, bound, f"checkpoint {array}")
    if Fraction(top) > Fraction(largest) * (1 + gamma(rules)) ** (rules.rerolls + 1):
        raise ExactError(f"checkpoint {head}: a value {top:.6g} is above the recorded largest final-roll value "
                         f"{largest:.6g} (no state is worth more); {expected}")
    return bound


@dataclass
class FloatSolution:
    """The float64 solitaire solution.

    Attributes:
        board, rules: what was solved. values: ``float64 (states,)`` by :class:`StateIndex` index.
        bounds: each layer's rounding-error bound (exact), by layer.
        seconds: wall time; cpu_seconds: CPU time, this process's and the workers' solving.
        layers_loaded: layers read from checkpoints.
    """

    board: Board
    rules: Ruleset
    values: np.ndarray
    bounds: dict[int, Fraction]
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    layers_loaded: int = 0
    largest: dict[int, float] = field(default_factory=dict)

    @property
    def optimum(self) -> float:
        """The optimal expected final score from the empty sheet (float64)."""
        return float(self.values[state_index(self.board, self.rules).index(Marks.empty(self.board))])

    @property
    def bound(self) -> Fraction:
        """A proven bound on ``|optimum - exact optimum|`` (points)."""
        return self.bounds[0]


def solve_float(board: Board, rules: Ruleset, checkpoints: str | None = None,
                progress: Callable[[int, int], None] | None = None, jobs: int = 1,
                scheduler: Any = None, force: bool = False) -> FloatSolution:
    """Solve the solitaire game in float64 layer by layer (module docstring). One function on
    purpose (about 70 lines): one ``ExitStack`` owns the value array's memory map, the worker
    pool, the signal handlers and the checkpoint folder for the whole layer loop
    (:func:`_solve_layer`), and the interruption handling below must see all of them.

    Args:
        checkpoints: a directory: each solved layer is written there (:mod:`float_checkpoints`)
            and layers already there, for the same board and rules, are loaded, so an
            interrupted solve resumes.
        progress: called ``(layer, states)`` as each layer (or part of one) is done.
        jobs, scheduler: each layer in contiguous parts on :func:`parallel.run_tasks` (``jobs``
            processes or a dask cluster); the workers read the values through a memory-mapped
            file (in the checkpoint directory, else a temporary one): the same values whatever
            the workers.
        force: replace files in ``checkpoints`` that this solver did not write
            (:class:`float_checkpoints.Checkpoints`).

    Raises:
        ExactError: a checkpoint is unreadable or for another board or ruleset, or the directory
            holds a file of a checkpoint's name that is not one (without ``force``).
        FileWriteError: a checkpoint cannot be written. ParallelError, Interrupted: as
            :func:`parallel.run_tasks` (written layers stay).
    """
    import tempfile
    from contextlib import ExitStack

    from shelfie_solver.core.parallel import Interrupted, Runner, signals_raise, worker_count
    from shelfie_solver.dice.wholegame.float_checkpoints import Checkpoints
    from shelfie_solver.dice.wholegame.solver import jump_items

    start, cpu = time.perf_counter(), time.process_time()
    index = state_index(board, rules)
    parallel = jobs > 1 or scheduler is not None
    jump = jump_items(board, rules)
    bounds: dict[int, Fraction] = {}
    largest: dict[int, float] = {}
    possible = score(board, Marks(board.n_shelves, board.n_columns, (1 << board.n_cells) - 1), rules)
    loaded, worker_cpu = 0, 0.0
    folder: Checkpoints | None = None
    try:
        with ExitStack() as stack:
            folder = Checkpoints(board, rules, checkpoints, force) if checkpoints is not None else None
            path: str | None = None
            if parallel:
                work = str(folder.folder) if folder is not None else stack.enter_context(tempfile.TemporaryDirectory())
                path = str(Path(work) / "values.f64")
            values = _value_array(index.count, path)
            runner = stack.enter_context(Runner(jobs, scheduler)) if parallel else None
            if runner is None:  # the handlers of parallel.signals_raise here too (a Ctrl-C in a finalizer)
                stack.enter_context(signals_raise())
            parts = 16 if scheduler is not None else worker_count(jobs)
            for layer in range(board.n_cells - 1, -1, -1):
                later = max((bounds.get(j, Fraction(0)) for j in range(layer + 1, layer + jump + 1)), default=Fraction(0))
                bounds[layer], largest[layer], was_loaded, spent = _solve_layer(
                    _LayerRun(board, rules, values, folder, runner, path, parts, possible, progress), layer, later)
                loaded += was_loaded
                worker_cpu += spent
            # with checkpoints the parallel solve's values stay in DIR/values.f64 (no second copy in memory)
            result = np.array(values) if parallel and folder is None else values
    except (KeyboardInterrupt, Interrupted, SystemError) as caught:
        # a signal landing while numba's dispatcher unpickles its arguments surfaces as a
        # SystemError caused by the Interrupted the handler raised: the same interruption
        stop = caught.__cause__ if isinstance(caught, SystemError) else caught
        if not isinstance(stop, (KeyboardInterrupt, Interrupted)):
            raise
        if folder is None:
            raise stop from None
        raise _kept_layers(stop, folder, board) from None
    return FloatSolution(board, rules, result, bounds, time.perf_counter() - start,
                         time.process_time() - cpu + worker_cpu, loaded, largest)


@dataclass(frozen=True)
class _LayerRun:
    """What every layer of one :func:`solve_float` run shares: the board and rules, the value
    array being filled (``float64 (count,)``, in memory or memory-mapped at ``path``), the
    checkpoint folder, the worker pool and its number of parts, the largest possible score
    (points) and the progress callback."""

    board: Board
    rules: Ruleset
    values: np.ndarray
    folder: Any
    runner: Any
    path: str | None
    parts: int
    possible: int
    progress: Callable[[int, int], None] | None


def _solve_layer(run: _LayerRun, layer: int, later: Fraction) -> tuple[Fraction, float, int, float]:
    """Solve (or load from the checkpoints) one layer and store it in ``run.values``.

    ``later`` is the largest error bound of the layers it reads. Returns the layer's error
    bound, its largest value (points), 1 when it was loaded from a checkpoint (else 0) and the
    workers' CPU seconds spent on it.

    Raises:
        ExactError: a checkpoint does not check (:func:`checked_layer`).
        AssertionError: a successor's value was missing (a bug in the layer order).
    """
    members = layer_members(run.board, run.rules, layer)
    found = run.folder.load(layer, len(members)) if run.folder is not None else None
    loaded, spent = 0, 0.0
    if found is not None:
        solved, big, recorded = found
        bound = checked_layer(run.rules, run.possible, later, solved, big, recorded, run.folder.paths(layer))
        loaded = 1
        if run.progress is not None:
            run.progress(layer, len(members))
    else:
        if run.runner is not None and run.path is not None and len(members) >= 4 * run.parts:
            assert isinstance(run.values, np.memmap)
            run.values.flush()
            solved, big, spent = _layer_on_workers(run.runner, run.path, run.board, run.rules, layer, run.parts,
                                                   run.progress)
        else:
            solved, big = _layer_here(run.board, run.rules, run.values, members, layer, run.progress)
        if np.isnan(solved).any():
            raise AssertionError(f"layer {layer}: a successor's value was missing")
        bound = layer_bound(run.rules, later, big)
        if run.folder is not None:
            run.folder.save(layer, solved, big, bound)
    run.values[members] = solved
    return bound, big, loaded, spent


def _value_array(count: int, path: str | None) -> np.ndarray:
    """Every state's value, ``float64 (count,)``, NaN until solved: in memory, or memory-mapped
    at ``path`` (the parallel solve: the workers read it there)."""
    if path is None:
        return np.full(count, np.nan)
    values: np.ndarray = np.memmap(path, dtype=np.float64, mode="w+", shape=(count,))
    values[:] = np.nan
    return values


def _layer_on_workers(runner: Runner, path: str, board: Board, rules: Ruleset, layer: int, parts: int,
                      progress: Callable[[int, int], None] | None) -> tuple[np.ndarray, float, float]:
    """Layer ``layer`` solved in ``parts`` contiguous parts on the workers (:func:`solve_part`,
    reading the later layers' values from the memory-mapped ``path``): its values in member
    order, the largest magnitude met (for :func:`layer_bound`) and the workers' CPU seconds.
    ``progress`` is told ``(layer, states)`` per part."""
    pieces: list[tuple[np.ndarray, float, float]] = []

    def take(piece: tuple[np.ndarray, float, float]) -> None:
        pieces.append(piece)
        if progress is not None:
            progress(layer, len(piece[0]))

    runner.run(solve_part, ((path, layer, p, parts) for p in range(parts)), common=(board, rules), consume=take)
    solved = np.concatenate([p[0] for p in pieces]) if pieces else np.zeros(0)
    return solved, max((p[1] for p in pieces), default=0.0), sum(p[2] for p in pieces)


def _layer_here(board: Board, rules: Ruleset, values: np.ndarray, members: np.ndarray, layer: int,
                progress: Callable[[int, int], None] | None) -> tuple[np.ndarray, float]:
    """Layer ``layer``'s ``members`` solved in this process in pieces of :data:`PIECE` (progress
    as it goes, and Ctrl-C is seen between them): their values and the largest magnitude met."""
    solved, big = np.empty(len(members)), 0.0
    for lo in range(0, len(members), PIECE):
        solved[lo:lo + PIECE], piece_big = solve_members(board, rules, values, members[lo:lo + PIECE])
        big = max(big, piece_big)
        if progress is not None:
            progress(layer, len(members[lo:lo + PIECE]))
    return solved, big


def _kept_layers(stop: BaseException, folder: Checkpoints, board: Board) -> BaseException:
    """The interruption ``stop`` of a solve with checkpoints, saying how many layers the
    directory now holds, loaded or written: what a rerun resumes from."""
    from shelfie_solver.core.parallel import interrupted_by

    kept = sum(1 for layer in range(board.n_cells) if folder.paths(layer)[1].exists())
    return interrupted_by(stop).keeping(
        f"{kept} finished layer{'s' if kept != 1 else ''} of {board.n_cells} kept in {folder.folder} "
        "(the same command resumes from them)")
