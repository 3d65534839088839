"""The exact solitaire solver: the optimal expected final score of a whole one-player game.

A solitaire game (D1 with one player, as :mod:`game.turn` plays it) is a Markov decision process
over *sheet states*. In solitaire nothing is eliminated except by a failed result (D13), which
eliminates a whole shelf's available items, so a state is, per shelf, the subset of marked
items and whether the shelf is closed (no available item). The game ends after the turn that
leaves ``end_trigger_shelves`` (D17, at most the board's shelves; :func:`sheet_rules.end_trigger_shelves`)
shelves closed — one player, so the round ends with that turn (D18) — and is then worth the
sheet's score (D19). Every other state ``s`` is worth

    V(s) = E over the turn under optimal holds (D6, D7) of  W(final roll),
    W(roll) = max over the roll's legal markings m (D8-D12, 1..3 items: marking fewer
              items than the dice allow is legal, D14) of V(s + m),
              or, on a failed result (D13), max over shelves with an available item of
              V(s with that shelf eliminated).

The turn is :func:`dp.solve` with ``W`` as the final values: the engine's DP over
(dice, re-rolls left). Every turn marks or eliminates at least one item, so the number of
*decided* items (marked or eliminated) strictly grows: the solver runs **layer by layer**, from
the fullest sheets down to the empty one, and each layer is a pure function of the board, the
ruleset and the values of the layers above (:func:`solve_layer`), which can be checkpointed to
a directory and resumed or farmed out (:func:`solve_game`).

Exactness. Values are rationals whose denominators are powers of ``sides^dice`` (each turn's
probabilities are integers over ``D^(rerolls+1)``), so they are held as :class:`Fraction`;
one state's successor values are put over their least common denominator and the engine runs
on exact Python integers (its ``object`` fallback). No float is used except for display.

State count. Per shelf with ``C`` items there are ``2^C - 1`` open configurations and
``2^C`` closed ones, so a board of ``S`` shelves has
``sum over j < trigger of binom(S, j) (2^C)^j (2^C - 1)^(S - j)`` non-terminal states:
1,519 on a 3 x 3 board, 122,047 on 3 x 5, about 176 million on the default 5 x 5.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import nullcontext
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property, partial
from itertools import product
from pathlib import Path
from typing import Any

import numpy as np

from shelfie_solver.dice.board import Board, ItemSets, Marks, board_to_dict, item_sets, parse_marks, score
from shelfie_solver.dice.rolls import multinomial, space_for
from shelfie_solver.dice.engine.dp import TurnSolution, final_values, solve
from shelfie_solver.core.errors import ShelfieError, shorten
from shelfie_solver.core.files import write_text_atomically
from shelfie_solver.core.inputs import check_common_denominator, parse_fraction
from shelfie_solver.core.inputs import read_json
from shelfie_solver.dice.objectives import StateArrays
from shelfie_solver.dice.rules import Ruleset, rules_to_dict
from shelfie_solver.dice.sheet_rules import end_trigger_shelves, failed_result_shelves, triggers_end

#: The ``format`` key of a layer checkpoint (value tables: :mod:`values`).
LAYER_FORMAT = "shelfie-solve value layer 1"
#: Default largest number of non-terminal states ``solve-game`` accepts.
MAX_STATES = 20_000
#: Measured CPU seconds per state on the 3 x 3 example board (docs/performance.md); bigger
#: boards have bigger integers and more item sets, so estimates from it are lower bounds.
SECONDS_PER_STATE = 0.010

Key = tuple[int, int]  # (marked bits, eliminated bits) of a Marks


class ExactError(ShelfieError):
    """A board too large for the exact solver, or a value table / checkpoint that is malformed,
    unreadable or for another board or ruleset."""


def key_of(marks: Marks) -> Key:
    """The dictionary key of a sheet state: ``(marked bits, eliminated bits)``."""
    return marks.marked, marks.eliminated


# --- counting and enumerating states -----------------------------------------------------------


def state_count(board: Board, rules: Ruleset) -> int:
    """Number of non-terminal solitaire sheet states (module docstring's formula)."""
    s, c, t = board.n_shelves, board.n_columns, end_trigger_shelves(board, rules)
    return sum(math.comb(s, j) * (2**c) ** j * (2**c - 1) ** (s - j) for j in range(t))


def estimated_seconds(states: int) -> float:
    """A lower-bound estimate of one core's time for ``states`` states (:data:`SECONDS_PER_STATE`)."""
    return states * SECONDS_PER_STATE


def _shelf_configs(n_columns: int) -> list[tuple[int, int, int]]:
    """Every shelf configuration ``(marked mask, eliminated mask, decided items)``: open
    (the marked mask is not full) or closed (the rest eliminated)."""
    full = (1 << n_columns) - 1
    configs = [(m, 0, m.bit_count()) for m in range(full)]  # open
    configs += [(m, full & ~m, n_columns) for m in range(full + 1)]  # closed
    return configs


def layer_states(board: Board, rules: Ruleset, layer: int) -> Iterator[Marks]:
    """The non-terminal states with ``layer`` decided (marked or eliminated) items, in a fixed
    order (shelf configurations in :func:`_shelf_configs` order, first shelf slowest)."""
    configs = _shelf_configs(board.n_columns)
    trigger = end_trigger_shelves(board, rules)
    c = board.n_columns
    for combo in product(configs, repeat=board.n_shelves):
        if sum(d for _, _, d in combo) != layer:
            continue
        if sum(e != 0 or m == (1 << c) - 1 for m, e, _ in combo) >= trigger:
            continue
        marked = sum(m << (s * c) for s, (m, _, _) in enumerate(combo))
        eliminated = sum(e << (s * c) for s, (_, e, _) in enumerate(combo))
        yield Marks(board.n_shelves, c, marked, eliminated)


def is_terminal(marks: Marks, board: Board, rules: Ruleset) -> bool:
    """Whether the solitaire game is over on this sheet (D17, D18 with one player)."""
    return triggers_end(board, marks, rules)


# --- one state ---------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class SuccessorValues:
    """The exact values of every state one turn can lead to from ``marks`` (an
    :class:`objectives.Objective`): marking an item set is worth ``V(marks + set)``, a failed
    result the best shelf to give up (D13). Values are integers over :attr:`denominator`, the
    least common denominator of the successors' values.

    Args:
        board, rules, marks: the state.
        value: ``V`` of a non-terminal state (terminal states are worth their score, D19).
    """

    board: Board
    rules: Ruleset
    marks: Marks
    value: Callable[[Marks], Fraction]
    name: str = "exact"

    def worth(self, after: Marks) -> Fraction:
        """``V(after)``: the score when the game is over (D17-D19), else :attr:`value`."""
        if is_terminal(after, self.board, self.rules):
            return Fraction(score(self.board, after, self.rules))
        return self.value(after)

    @cached_property
    def _set_values(self) -> dict[int, Fraction]:
        """``V(marks + set)`` of every set of available items (by marked bits added)."""
        sets = item_sets(self.board, self.rules.combinations_per_turn).cells
        available = self.marks.bit_arrays()[1].astype(bool)
        out: dict[int, Fraction] = {}
        for row in sets:
            cells = [c for c in row if c >= 0]
            if all(available[c] for c in cells):
                bits = sum(1 << c for c in cells)
                out[bits] = self.worth(Marks(self.marks.n_shelves, self.marks.n_columns,
                                             self.marks.marked | bits, self.marks.eliminated))
        return out

    @cached_property
    def shelf_values(self) -> dict[int, Fraction]:
        """``V`` after giving up each shelf that has an available item (D13)."""
        return {shelf: self.worth(self.marks.with_eliminated(cells))
                for shelf, cells in failed_result_shelves(self.board, self.marks).items()}

    @cached_property
    def denominator(self) -> int:
        """Least common denominator of every successor value."""
        return math.lcm(1, *(v.denominator for v in self._set_values.values()),
                        *(v.denominator for v in self.shelf_values.values()))

    def scale(self, rules: Ruleset) -> int:
        return self.denominator

    def values(self, state: StateArrays, sets: ItemSets) -> np.ndarray:
        d = self.denominator
        out = [int(self._set_values[sum(1 << int(c) for c in row if c >= 0)] * d) for row in sets.cells]
        return np.array(out, dtype=object)

    def failed_value(self, state: StateArrays) -> int:
        return int(max(self.shelf_values.values()) * self.denominator)


def solve_state(board: Board, rules: Ruleset, marks: Marks,
                value: Callable[[Marks], Fraction]) -> tuple[Fraction, TurnSolution]:
    """``V(marks)`` and the turn's optimal policy, given ``value`` of every later non-terminal
    state (module docstring). The :class:`dp.TurnSolution`'s column 0 is over
    ``successors.denominator * D^r``.
    """
    successors = SuccessorValues(board, rules, marks, value)
    table = final_values(board, marks, rules, successors)
    solution = solve(space_for(rules), table.columns[:, :1], rules.rerolls, table.scale)
    return start_value(solution), solution


def start_value(solution: TurnSolution) -> Fraction:
    """Column 0's exact value at the start of the turn: the initial roll of every die (D6), then
    the policy. (Only the empty hold's expectation, not every hold's.)"""
    space = solution.space
    top = solution.values[solution.rerolls][:, 0]
    total = sum(multinomial(roll) * int(v) for roll, v in zip(space.rolls, top))
    return Fraction(total, solution.denominator(solution.rerolls + 1))


# --- layers, checkpoints, the whole game -------------------------------------------------------


def solve_layer(board: Board, rules: Ruleset, layer: int, later: Mapping[Key, Fraction],
                part: int = 0, parts: int = 1) -> dict[Key, Fraction]:
    """The values of the non-terminal states with ``layer`` decided items, from the values
    ``later`` of every non-terminal state with more: a pure function of its inputs, the unit of
    work to spread over processes or machines. ``part``/``parts`` take every ``parts``-th state
    of the layer from the ``part``-th (0-based), so a layer splits into independent pieces."""
    def value(marks: Marks) -> Fraction:
        return later[key_of(marks)]

    return {key_of(m): solve_state(board, rules, m, value)[0]
            for i, m in enumerate(layer_states(board, rules, layer)) if i % parts == part}


def fingerprint(board: Board, rules: Ruleset) -> dict[str, Any]:
    """What a table or checkpoint was solved for: the board and ruleset as saved-game JSON."""
    return {"board": board_to_dict(board, rules), "rules": rules_to_dict(rules)}


def same_setup(saved: dict[str, Any], stamp: dict[str, Any]) -> bool:
    """Whether a saved table's or checkpoint's JSON was solved for the board and ruleset of
    ``stamp`` (a :func:`fingerprint`), by content: the ruleset's ``name`` is a label and is not
    compared (the built-in ruleset's name changed from "... (RULES.md)" to "... (docs/rules.md,
    D1-D20)"; tables solved before still match)."""
    def content(data: dict[str, Any]) -> dict[str, Any]:
        rules = data.get("rules")
        return {**data, "rules": {k: v for k, v in rules.items() if k != "name"}} if isinstance(rules, dict) else data

    return content({k: saved.get(k) for k in stamp}) == content(stamp)


@dataclass
class GameSolution:
    """The solved solitaire game.

    Attributes:
        board, rules: what was solved.
        values: ``V`` of every non-terminal state, keyed by :func:`key_of` (a dict, or a binary
            table's memory map read state by state, :class:`binary_table.MappedValues`).
        seconds: wall time of the solve (layers loaded from checkpoints cost nothing).
        layers_loaded: layers read from checkpoints instead of solved.
    """

    board: Board
    rules: Ruleset
    values: Mapping[Key, Fraction]
    seconds: float = 0.0
    layers_loaded: int = 0
    _solutions: dict[Key, TurnSolution] = field(default_factory=dict, repr=False)

    @property
    def optimum(self) -> Fraction:
        """The optimal expected final score from the empty sheet (points)."""
        return self.value(Marks.empty(self.board))

    def value(self, marks: Marks) -> Fraction:
        """``V(marks)``: the score of a finished game, else the table's value.

        Raises:
            ExactError: the sheet does not fit the board.
        """
        if (marks.n_shelves, marks.n_columns) != (self.board.n_shelves, self.board.n_columns):
            raise ExactError(f"a {marks.n_shelves}x{marks.n_columns} sheet is not on the "
                             f"{self.board.n_shelves}x{self.board.n_columns} board of the value table")
        if is_terminal(marks, self.board, self.rules):
            return Fraction(score(self.board, marks, self.rules))
        found = self.values.get(key_of(marks))
        if found is None:
            raise ExactError(f"sheet {marks} is not a solitaire state (eliminated items must be whole shelves, D13)")
        return found

    def turn(self, marks: Marks) -> TurnSolution:
        """The optimal policy of a turn on ``marks`` (solved once, then cached)."""
        key = key_of(marks)
        found = self._solutions.get(key)
        if found is None:
            found = solve_state(self.board, self.rules, marks, self.value)[1]
            if len(self._solutions) >= 4096:
                self._solutions.pop(next(iter(self._solutions)))
            self._solutions[key] = found
        return found


def check_size(board: Board, rules: Ruleset, max_states: int) -> int:
    """The state count, or :class:`ExactError` when it exceeds ``max_states`` (the message gives
    the estimate and how to go on)."""
    states = state_count(board, rules)
    if states > max_states:
        hours = estimated_seconds(states) / 3600
        raise ExactError(f"board {board.name!r} has {states:,} non-terminal solitaire states, more than "
                         f"--max-states {max_states:,}; estimated at least {hours:,.1f} CPU-hours "
                         f"({SECONDS_PER_STATE * 1000:.0f} ms per state) and "
                         f"{_size(states * 200)} of values; raise --max-states and use "
                         f"--checkpoints DIR to run it layer by layer, or solve it in float64 with --float")
    return states


def _size(count: int) -> str:
    """A byte count for messages: ``12 MB``, ``35 GB``."""
    return f"{count // 10**9:,} GB" if count >= 10**9 else f"{max(1, count // 10**6):,} MB"


#: Parts per layer on a dask cluster (the number of its workers is not known before connecting;
#: a state's cost varies, so a few parts per worker keep them all busy).
CLUSTER_PARTS = 16


def jump_items(board: Board, rules: Ruleset) -> int:
    """The most items one turn can decide: the largest legal marking, or a whole shelf given up
    on a failed result (D13). A layer's successors lie in the next :func:`jump_items` layers."""
    sets = item_sets(board, rules.combinations_per_turn).cells
    return max(board.n_columns, int((sets >= 0).sum(axis=1).max(initial=1)))


def solve_layer_parallel(board: Board, rules: Ruleset, layer: int, later: Mapping[int, Mapping[Key, Fraction]],
                         jobs: int = 1, scheduler: Any = None,
                         progress: Callable[[int], None] | None = None, runner: Any = None) -> dict[Key, Fraction]:
    """:func:`solve_layer` split in parts on :func:`parallel.run_tasks` (``jobs`` processes, or
    the dask cluster ``scheduler``): the same values in the same order whatever the workers.

    Args:
        later: the values of the later layers, by layer (only the next :func:`jump_items` layers are
            sent to the workers).
        progress: called with each finished part's state count.
        runner: a :class:`parallel.Runner` for ``jobs`` and ``scheduler`` kept over several
            layers (its workers start once); ``None``: workers of this layer's own.

    Raises:
        ParallelError: as :func:`parallel.run_tasks`; Interrupted: a signal stopped the run.
    """
    from shelfie_solver.core.parallel import run_tasks, worker_count

    needed: dict[Key, Fraction] = {}
    for above in range(layer + 1, layer + jump_items(board, rules) + 1):
        needed.update(later.get(above, {}))
    parts = CLUSTER_PARTS if scheduler is not None else worker_count(jobs)
    pieces: list[dict[Key, Fraction]] = []

    def take(piece: dict[Key, Fraction]) -> None:
        pieces.append(piece)
        if progress is not None:
            progress(len(piece))

    tasks = ((layer, needed, part, parts) for part in range(parts))
    if runner is not None:
        runner.run(solve_layer, tasks, common=(board, rules), consume=take)
    else:
        run_tasks(solve_layer, tasks, common=(board, rules), jobs=jobs, scheduler=scheduler, consume=take)
    # part p holds the states p, p + parts, ... of the layer: deal them back in layer order
    columns = [list(piece.items()) for piece in pieces]
    return dict(columns[p][i] for i in range(max(map(len, columns), default=0))
                for p in range(parts) if i < len(columns[p]))


def solve_game(board: Board, rules: Ruleset, checkpoints: str | None = None,
               progress: Callable[[int, int], None] | None = None, jobs: int = 1,
               scheduler: Any = None) -> GameSolution:
    """Solve the solitaire game layer by layer (module docstring), the fullest sheets first.

    Args:
        checkpoints: a directory: each solved layer is written there (``layer-NNN.json``,
            atomically) and a layer already there, for the same board and rules, is loaded
            instead of solved, so an interrupted solve resumes.
        progress: called ``(layer, states)`` as states are solved or loaded (a layer at once,
            or each part of it when run in parallel).
        jobs, scheduler: with ``jobs > 1`` or a dask ``scheduler``, each layer's parts run on
            :func:`parallel.run_tasks` (:func:`solve_layer_parallel`), on one
            :class:`parallel.Runner` for the whole solve (the workers start once); the values
            do not depend on it.

    Raises:
        ExactError: a checkpoint is unreadable or for another board or ruleset.
        FileWriteError: a checkpoint cannot be written.
        ParallelError, Interrupted: as :func:`parallel.run_tasks` (solved layers stay written).
    """
    start = time.perf_counter()
    values: dict[Key, Fraction] = {}
    by_layer: dict[int, dict[Key, Fraction]] = {}
    parallel = jobs > 1 or scheduler is not None
    stamp = fingerprint(board, rules)
    if checkpoints == "":
        raise ExactError("--checkpoints names no directory (an empty name); expected a directory for the layer files")
    folder = Path(checkpoints) if checkpoints is not None else None
    if folder is not None:
        try:
            if folder.exists() and not folder.is_dir():
                raise ExactError(f"--checkpoints {checkpoints} is not a directory; expected a directory for the "
                                 "layer files")
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as error:  # a name too long, a file in the way, no permission
            raise ExactError(f"cannot create the checkpoint directory {checkpoints}: "
                             f"{error.strerror or error}") from None
        _claim(folder, stamp)
    from shelfie_solver.core.parallel import Interrupted, Runner, interrupted_by, signals_raise

    loaded = 0
    try:
        # one pool (or dask client) for every layer: its workers start once (parallel.Runner)
        # in this process too the signal handlers of parallel.signals_raise: a Ctrl-C landing in
        # a finalizer (numba, numpy) is delivered again rather than swallowed
        with Runner(jobs, scheduler) if parallel else nullcontext() as runner, \
                nullcontext() if parallel else signals_raise():
            loaded = _solve_layers(board, rules, folder, stamp, values, by_layer, parallel, jobs, scheduler, runner,
                                 progress)
    except (KeyboardInterrupt, Interrupted) as stop:
        if folder is None:
            raise
        # the layers now in the directory, loaded or written: what a rerun resumes from
        kept = sum(1 for layer in range(board.n_cells) if (folder / f"layer-{layer:03d}.json").exists())
        raise interrupted_by(stop).keeping(
            f"{kept} finished layer{'s' if kept != 1 else ''} of {board.n_cells} kept in {folder} "
            "(the same command resumes from them)") from None
    return GameSolution(board, rules, values, time.perf_counter() - start, loaded)


def _solve_layers(board: Board, rules: Ruleset, folder: Path | None, stamp: dict[str, Any],
                  values: dict[Key, Fraction], by_layer: dict[int, dict[Key, Fraction]], parallel: bool,
                  jobs: int, scheduler: Any, runner: Any, progress: Callable[[int, int], None] | None) -> int:
    """The layer loop of :func:`solve_game` (fills ``values`` and ``by_layer``); returns the
    number of layers loaded from checkpoints."""
    loaded = 0
    for layer in range(board.n_cells - 1, -1, -1):
        path = folder / f"layer-{layer:03d}.json" if folder is not None else None
        reported = False
        if path is not None and path.exists():
            found = _read_layer(path, stamp, layer, board, rules)
            loaded += 1
        else:
            if parallel:
                step = None if progress is None else partial(progress, layer)
                found = solve_layer_parallel(board, rules, layer, by_layer, jobs, scheduler, step, runner)
                reported = True
            else:
                found = solve_layer(board, rules, layer, values)
            if path is not None:
                write_text_atomically(path, json.dumps({"format": LAYER_FORMAT, **stamp, "layer": layer,
                                                        "values": encode_values(found, board)}))
        values.update(found)
        by_layer[layer] = found
        if progress is not None and not reported:
            progress(layer, len(found))
    return loaded


def _claim(folder: Path, stamp: dict[str, Any]) -> None:
    """Check that a checkpoint directory belongs to this board and ruleset (its ``solve.json``)
    before any layer is written, or claim an empty one.

    Raises:
        ExactError: the directory holds another solve's checkpoints.
    """
    manifest = folder / "solve.json"
    if manifest.exists():
        data = read_solver_json(manifest, "checkpoint manifest")
        if data.get("format") != LAYER_FORMAT or not same_setup(data, stamp):
            raise ExactError(f"checkpoint directory {folder} holds the solve of another board or ruleset "
                             f"({manifest}); use another --checkpoints directory")
        return
    write_text_atomically(manifest, json.dumps({"format": LAYER_FORMAT, **stamp}))


def encode_values(values: Mapping[Key, Fraction], board: Board) -> dict[str, str]:
    """Values as JSON-ready ``{marks text: "p/q"}`` (layer checkpoints and value tables)."""
    return {str(Marks(board.n_shelves, board.n_columns, *k)): f"{v.numerator}/{v.denominator}"
            for k, v in values.items()}


def decode_values(data: Any, board: Board, source: str) -> dict[Key, Fraction]:
    """Inverse of :func:`encode_values`; ``source`` names the file in errors. Each value is
    read by :func:`inputs.parse_fraction` (bounded digits, no exponent: ``"1e1000000"`` is
    refused at once) and their common denominator is bounded
    (:func:`inputs.check_common_denominator`), the same for value tables and checkpoints.

    Raises:
        ExactError: not an object of marks text to ``"p/q"``, or a value out of those bounds.
    """
    if not isinstance(data, dict):
        raise ExactError(f"{source}: \"values\" must be an object {{marks: \"p/q\"}}")
    out: dict[Key, Fraction] = {}
    for text, value in data.items():
        # exact means exact: a float or a bool is not "p/q"
        number = parse_fraction(value, ExactError, f"{source}: the value of {shorten(text)}")
        try:
            out[key_of(parse_marks(text, board))] = number
        except ShelfieError as error:
            raise ExactError(f"{source}: bad value entry ({error}); expected \"marks text\": \"p/q\"") from None
    check_common_denominator(out.values(), ExactError, source)
    return out


def check_range(values: Mapping[Key, Fraction], board: Board, rules: Ruleset, source: str) -> None:
    """Check that every value is a possible final score: 0 to a full sheet's points (D19). The
    one range check of value tables and layer checkpoints (an edited ``"1000000/1"`` would give
    an optimum of a million points on a board worth 42).

    Raises:
        ExactError: a value outside that range (one line naming the state and ``source``).
    """
    possible = score(board, Marks(board.n_shelves, board.n_columns, (1 << board.n_cells) - 1), rules)
    wrong = next(((k, v) for k, v in values.items() if not 0 <= v <= possible), None)
    if wrong is not None:  # a final score is 0 to a full sheet's points (D19): an edited or foreign file
        raise ExactError(f"{source}: state {Marks(board.n_shelves, board.n_columns, *wrong[0])} "
                         f"is worth {float(wrong[1]):.4g} points, outside 0 to {possible} (D19); expected the file "
                         "solve-game wrote, unedited")


#: Largest value table or layer checkpoint read (docs/formats.md): a 3 x 4 board's table is a
#: few MB; the cap keeps a hostile file from filling memory.
MAX_TABLE_BYTES = 1 << 28


def read_solver_json(path: Path | str, kind: str) -> dict[str, Any]:
    """A JSON object from ``path`` (``kind`` names the file in errors), read by
    :func:`inputs.read_json` (a regular file of at most :data:`MAX_TABLE_BYTES`, bounded nesting).

    Raises:
        ExactError: unreadable, not a regular file, too large, not JSON, or not an object.
    """
    expected = f"a {kind} written by shelfie-solve solve-game"
    data = read_json(path, ExactError, MAX_TABLE_BYTES, expected)
    if not isinstance(data, dict):
        raise ExactError(f"{kind} {path}: expected a JSON object")
    return data


def _read_layer(path: Path, stamp: dict[str, Any], layer: int, board: Board,
                rules: Ruleset) -> dict[Key, Fraction]:
    data = read_solver_json(path, "checkpoint")
    if data.get("format") != LAYER_FORMAT or data.get("layer") != layer:
        raise ExactError(f"checkpoint {path}: expected \"format\": \"{LAYER_FORMAT}\" and \"layer\": {layer}")
    if not same_setup(data, stamp):
        raise ExactError(f"checkpoint {path} was solved for another board or ruleset; use another --checkpoints "
                         "directory")
    values = decode_values(data.get("values"), board, f"checkpoint {path}")
    check_states(values, board, rules, [layer], f"checkpoint {path}")
    check_range(values, board, rules, f"checkpoint {path}")
    return values


def check_states(values: Mapping[Key, Fraction], board: Board, rules: Ruleset, layers: Iterable[int],
                 source: str) -> None:
    """Check that ``values`` holds exactly the non-terminal states of ``layers`` (a hand-edited or
    foreign file would otherwise give a wrong optimum or a missing state deep in a solve).

    Raises:
        ExactError: a state missing or one that is not a non-terminal state of those layers.
    """
    expected = {key_of(m) for layer in layers for m in layer_states(board, rules, layer)}
    if values.keys() != expected:
        missing, extra = len(expected - values.keys()), len(values.keys() - expected)
        raise ExactError(f"{source} holds {len(values):,} states, {missing:,} missing and {extra:,} not expected "
                         f"(of {len(expected):,}); expected the file solve-game wrote, unedited")
