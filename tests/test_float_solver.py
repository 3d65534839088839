"""The float64 whole-game solver (dice/wholegame/float_solver.py) against the exact rational
solver and the brute force of tests/test_exact.py: every state's float value within its proven
bound of the exact one, the policy's choices equal up to ties within the bound (D6-D19), the
state index a bijection, binary tables, checkpoints and the command line."""

from __future__ import annotations

import json
from fractions import Fraction
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from shelfie_solver.cli import main
from shelfie_solver.dice.board import Board, Marks, board_from_dict, load_board
from shelfie_solver.dice.rolls import space_for
from shelfie_solver.dice.rules import Ruleset, rules_from_dict
from shelfie_solver.dice.wholegame.binary_table import save_binary
from shelfie_solver.dice.wholegame.float_kernel import layer_of, turn_values
from shelfie_solver.dice.wholegame.float_solver import UNIT, gamma, solve_float
from shelfie_solver.dice.wholegame.solver import (GameSolution, layer_states, solve_game, solve_state,
                                                   state_count)
from shelfie_solver.dice.wholegame.state_index import shaped_index, state_index
from shelfie_solver.dice.wholegame.values import load_table, table_objective

from conftest import EXAMPLES, assert_one_line_error
from test_exact import TINY_BOARD, TINY_RULES, brute_force

SMALL = EXAMPLES / "boards" / "small.toml"

# A 2 x 3 board with 4 dice, 2 re-rolls, the game over at the first closed shelf (D17 with
# trigger 1), and a 3 x 2 board with 3 dice, one shelf accepting two faces: fast exact solves.
RULES_23 = rules_from_dict({"name": "two-by-three", "dice": 4, "rerolls": 2, "combinations_per_turn": 2,
                            "scoring_threshold": 2, "end_trigger_shelves": 1,
                            "faces": [{"name": "plant", "code": "P"}, {"name": "book", "code": "B"}]})
BOARD_23 = board_from_dict({"name": "two-by-three", "columns": [1, 2, 3],
                            "shelves": [{"faces": ["plant"], "values": [1, 2, 5]},
                                        {"faces": ["book"], "values": [2, 1, 4]}]}, RULES_23)
RULES_32 = rules_from_dict({"name": "three-by-two", "dice": 3, "rerolls": 1, "combinations_per_turn": 3,
                            "scoring_threshold": 2, "end_trigger_shelves": 2,
                            "faces": [{"name": "plant", "code": "P"}, {"name": "book", "code": "B"}]})
BOARD_32 = board_from_dict({"name": "three-by-two", "columns": [1, 2],
                            "shelves": [{"faces": ["plant"], "values": [1, 3]},
                                        {"faces": ["book"], "values": [2, 2]},
                                        {"faces": ["plant", "book"], "values": [1, 4]}]}, RULES_32)
CASES = [(TINY_BOARD, TINY_RULES), (BOARD_23, RULES_23), (BOARD_32, RULES_32)]


@cache
def exact_of(board: Board, rules: Ruleset) -> GameSolution:
    return solve_game(board, rules)


def every_state(board: Board, rules: Ruleset) -> list[Marks]:
    return [m for layer in range(board.n_cells) for m in layer_states(board, rules, layer)]


@pytest.mark.parametrize("shelves, columns, trigger", [(2, 2, 2), (2, 3, 1), (3, 2, 2), (3, 3, 3), (2, 4, 2),
                                                       (4, 2, 3), (1, 3, 1)])
def test_index_is_a_bijection(shelves: int, columns: int, trigger: int) -> None:
    """The mixed-radix index maps the non-terminal solitaire sheets (per shelf a marked subset,
    closed or not, fewer than the trigger closed, D13, D17) one to one onto 0..count-1."""
    ix = shaped_index(shelves, columns, trigger)
    full = (1 << columns) - 1
    seen = set()
    for config in np.ndindex(*(2 * full + 1,) * shelves):
        closed = [c > full - 1 for c in config]  # 0..full-1 open, full..2*full closed
        if sum(closed) >= trigger:
            continue
        marked = eliminated = 0
        for s, c in enumerate(config):
            m = c - full if closed[s] else c
            marked |= m << (s * columns)
            if closed[s]:
                eliminated |= (full & ~m) << (s * columns)
        marks = Marks(shelves, columns, marked, eliminated)
        i = ix.index(marks)
        assert 0 <= i < ix.count and ix.marks(i) == marks
        seen.add(i)
    assert len(seen) == ix.count
    with pytest.raises(ValueError):
        ix.index(Marks(shelves, columns, 0, 1))  # one item eliminated: not a solitaire sheet (D13)


@pytest.mark.parametrize("board, rules", CASES)
def test_state_count_and_layers(board: Board, rules: Ruleset) -> None:
    """The index's count is the solver's state count; each state's layer is its decided items."""
    ix = state_index(board, rules)
    assert ix.count == state_count(board, rules)
    layers = layer_of(board, rules)
    for marks in every_state(board, rules):
        assert layers[ix.index(marks)] == bin(marks.marked | marks.eliminated).count("1")


def test_tiny_board_against_brute_force() -> None:
    """Every state of the 2 x 2 board within the bound of the brute force's exact value."""
    solution = solve_float(TINY_BOARD, TINY_RULES)
    expected = brute_force(TINY_BOARD, TINY_RULES)
    ix = state_index(TINY_BOARD, TINY_RULES)
    for (marked, eliminated), value in expected.items():
        marks = Marks(2, 2, marked, eliminated)
        layer = bin(marked | eliminated).count("1")
        assert abs(Fraction(solution.values[ix.index(marks)]) - value) <= solution.bounds[layer]
    assert abs(Fraction(solution.optimum) - expected[(0, 0)]) <= solution.bound


def test_bound_is_the_derivation() -> None:
    """The bound follows the derivation (docs/solve-game.md): per layer the successors' bound plus
    (rerolls + 1) * gamma * M, gamma = n u / (1 - n u) with n = sides * dice, u = 2^-53."""
    solution = solve_float(TINY_BOARD, TINY_RULES)
    n = TINY_RULES.n_sides * TINY_RULES.dice
    assert gamma(TINY_RULES) == n * UNIT / (1 - n * UNIT)
    passes = TINY_RULES.rerolls + 1
    assert solution.bounds[3] == passes * gamma(TINY_RULES) * Fraction(solution.largest[3]) * \
        (1 + gamma(TINY_RULES)) ** passes
    assert 0 < solution.bound < Fraction(1, 10**10)  # tiny, but a real bound


def check_against_exact(board: Board, rules: Ruleset, exact: GameSolution,
                        states: list[Marks] | None = None) -> tuple[int, int, Fraction]:
    """Every state's float value within its layer's bound of the exact value, and every hold
    (D7) of the float policy worth, exactly, within twice the bound of the exact best (a choice
    that differs is a tie within the bound). Returns the number of choices that differ from the
    exact policy's, how many of them are not exact ties, and the largest exact gap."""
    solution = solve_float(board, rules)
    ix = state_index(board, rules)
    space = space_for(rules)
    subs = space.sub_holds
    differing = inexact = 0
    largest_gap = Fraction(0)
    assert abs(Fraction(solution.optimum) - exact.optimum) <= solution.bound
    for marks in states if states is not None else every_state(board, rules):
        layer = bin(marks.marked | marks.eliminated).count("1")
        bound = solution.bounds[layer]
        value = exact.values[(marks.marked, marks.eliminated)]
        assert abs(Fraction(solution.values[ix.index(marks)]) - value) <= bound
        got, _, expected = turn_values(board, rules, solution.values, marks)
        assert got == solution.values[ix.index(marks)]
        turn = solve_state(board, rules, marks, exact.value)[1]
        for level in range(1, rules.rerolls + 1):
            exact_holds = turn.hold_values[level]
            assert exact_holds is not None
            denominator = turn.denominator(level)
            policy = turn.policy[level]
            assert policy is not None
            for roll in range(len(space.rolls)):
                options = subs[roll][subs[roll] < len(space.holds)]
                mine = int(options[np.argmax(expected[level, options])])
                best = int(policy[roll])
                if mine != best:
                    gap = Fraction(int(exact_holds[best, 0]) - int(exact_holds[mine, 0]), denominator)
                    assert 0 <= gap <= 2 * bound, (marks, level, roll)
                    differing += 1
                    inexact += gap > 0
                    largest_gap = max(largest_gap, gap)
    return differing, inexact, largest_gap


@pytest.mark.parametrize("board, rules", CASES)
def test_float_equals_exact_within_the_bound(board: Board, rules: Ruleset) -> None:
    """Every state and every hold decision against the exact rational solver (D6-D19)."""
    check_against_exact(board, rules, exact_of(board, rules))


@pytest.mark.slow
def test_example_board_float_equals_exact() -> None:
    """The 3 x 3 example board: every state within the bound of the exact solve, every hold
    decision equal up to ties within the bound."""
    rules = Ruleset()
    board = load_board(SMALL, rules)
    check_against_exact(board, rules, solve_game(board, rules))


@pytest.mark.slow
@pytest.mark.parametrize("name, optimum", [("small.toml", "41.7075"), ("small-3x4.toml", "72.8206"),
                                           ("small-4x3.toml", "54.3009"), ("small-5x3.toml", "60.4379")])
def test_small_boards_published_optima(name: str, optimum: str) -> None:
    """The float optimum of each example board rounds to the exact solver's published optimum
    (docs/solve-game.md, 4 decimals)."""
    rules = Ruleset()
    solution = solve_float(load_board(EXAMPLES / "boards" / name, rules), rules)
    assert f"{solution.optimum:.4f}" == optimum and solution.bound < Fraction(1, 10**9)


def test_parallel_and_checkpoints(tmp_path: Path) -> None:
    """Layers in parts on two worker processes give the same values, bit for bit; checkpoints
    resume (every layer loaded) and refuse another board's directory."""
    from shelfie_solver.dice.wholegame.solver import ExactError

    alone = solve_float(BOARD_32, RULES_32)
    folder = str(tmp_path / "ck")
    two = solve_float(BOARD_32, RULES_32, folder, jobs=2)
    assert np.array_equal(alone.values, two.values) and alone.bounds == two.bounds
    again = solve_float(BOARD_32, RULES_32, folder)
    assert again.layers_loaded == BOARD_32.n_cells and np.array_equal(again.values, alone.values)
    assert again.bound == alone.bound
    (tmp_path / "ck" / "layer-003.json").unlink()  # an interrupted solve: that layer is solved again
    resumed = solve_float(BOARD_32, RULES_32, folder)
    assert resumed.layers_loaded == BOARD_32.n_cells - 1 and np.array_equal(resumed.values, alone.values)
    with pytest.raises(ExactError, match="another solve"):
        solve_float(TINY_BOARD, TINY_RULES, folder)
    (tmp_path / "ck" / "layer-002.npy").write_bytes(b"\x93NUMPY junk")
    with pytest.raises(ExactError, match="not a .npy array"):
        solve_float(BOARD_32, RULES_32, folder)


def test_binary_table_as_objective_and_strategy(tmp_path: Path) -> None:
    """A binary table (float64 and float32) opens as a memory map: its values are the solve's
    floats, exactly; as the objective table:T.npy a marking is worth V(after) - V(before) (D13,
    D14); as the strategy exact:T.npy the seeded games average the optimum."""
    from shelfie_solver.core.stats import estimate
    from shelfie_solver.dice.engine.dp import final_values
    from shelfie_solver.dice.game.turn import play_seeded
    from shelfie_solver.dice.wholegame.values import ExactStrategy

    solution = solve_float(TINY_BOARD, TINY_RULES)
    path = tmp_path / "tiny.npy"
    save_binary(str(path), TINY_BOARD, TINY_RULES, solution.values, solution.bound)
    table = load_table(str(path))
    assert isinstance(table.values, np.ndarray) is False and len(table.values) == 33
    ix = state_index(TINY_BOARD, TINY_RULES)
    for marks in every_state(TINY_BOARD, TINY_RULES):
        assert table.value(marks) == Fraction(solution.values[ix.index(marks)])
    header = json.loads(path.with_suffix(".json").read_text())
    assert header["error_bound"] >= float(solution.bound) and header["dtype"] == "float64"
    objective = table_objective(str(path), TINY_BOARD)
    marks = Marks(2, 2, 1, 0)  # r1c1 marked
    columns = final_values(TINY_BOARD, marks, TINY_RULES, objective)
    roll = space_for(TINY_RULES).roll_index[(3, 0, 0)]  # PPP: marks r1c2 only (D8)
    after = table.value(Marks(2, 2, 3, 0))
    assert Fraction(int(columns.columns[roll, 0]), objective.scale(TINY_RULES)) == after - table.value(marks)
    scores = [play_seeded(TINY_BOARD, TINY_RULES, [ExactStrategy(str(path))], seed).scores[0]
              for seed in np.random.SeedSequence(3).spawn(300)]
    result = estimate(scores)
    assert abs(float(result.mean) - solution.optimum) <= 2.58 * result.sd / len(scores) ** 0.5
    small = tmp_path / "tiny32.npy"
    save_binary(str(small), TINY_BOARD, TINY_RULES, solution.values, solution.bound, "float32")
    header = json.loads(small.with_suffix(".json").read_text())
    assert header["error_bound"] >= float(solution.values.max()) / 2**24
    assert abs(load_table(str(small)).optimum - Fraction(solution.optimum)) <= header["error_bound"]


def _run(*args: str) -> object:
    return CliRunner().invoke(main, list(args))


def test_cli_float(tmp_path: Path) -> None:
    """``solve-game --float`` prints the optimum with its bound and saves T.npy + T.json; advise
    and simulate read it."""
    board = tmp_path / "b.toml"
    board.write_bytes(SMALL.read_bytes())
    table = tmp_path / "t.npy"
    result = _run("solve-game", "--board", str(board), "--float", "--save", str(table), "--format", "json",
                  "--jobs", "1")
    assert result.exit_code == 0, result.output  # type: ignore[attr-defined]
    data = json.loads(result.stdout)  # type: ignore[attr-defined]
    assert round(data["optimum_float"], 4) == 41.7075 and 0 < data["error_bound"] < 1e-9
    assert table.exists() and table.with_suffix(".json").exists()
    result = _run("advise", "--board", str(board), "--dice", "GGAACJ", "--objective", f"table:{table}")
    assert result.exit_code == 0, result.output  # type: ignore[attr-defined]
    result = _run("simulate", "--board", str(board), "--players", f"exact:{table}", "--games", "20", "--seed", "1",
                  "--jobs", "1")
    assert result.exit_code == 0, result.output  # type: ignore[attr-defined]


@pytest.mark.parametrize("args, message", [
    (["solve-game", "--board", str(SMALL), "--float", "--save", "t.json"], "ending in .npy"),
    (["solve-game", "--board", str(SMALL), "--save", "t.npy"], "written by --float"),
    (["solve-game", "--board", str(SMALL), "--dtype", "float32"], "--dtype"),
    (["solve-game", "--float", "--max-states", "1000"], "more than --max-states 1,000"),
])
def test_cli_float_bad_input(args: list[str], message: str) -> None:
    """Bad input: one line, exit 2."""
    assert_one_line_error(_run(*args), message)


def test_hostile_binary_tables(tmp_path: Path) -> None:
    """A missing header, a header of another format, an array of another shape or dtype, a
    truncated array, values out of range: each refused in one line (exit 2)."""
    solution = solve_float(TINY_BOARD, TINY_RULES)
    path = tmp_path / "t.npy"
    save_binary(str(path), TINY_BOARD, TINY_RULES, solution.values, solution.bound)
    header = path.with_suffix(".json")
    good = header.read_text()

    def refused(message: str) -> None:  # (tables are cached per file state: each edit is a new table)
        result = _run("advise", "--dice", "CCBJPP", "--objective", f"table:{path}")
        assert_one_line_error(result, message)

    header.unlink()
    refused("cannot read")
    header.write_text(json.dumps({"format": "something else"}))
    refused("not the header of a binary value table")
    header.write_text(good)
    np.save(path, np.zeros(5))
    refused("shape")
    np.save(path, solution.values.astype(np.int64))
    refused("int64")
    np.save(path, solution.values)
    path.write_bytes(path.read_bytes()[:-8])
    refused("bytes")
    bad = solution.values.copy()
    bad[ :] = 1e9
    np.save(path, bad)
    from shelfie_solver.dice.wholegame.solver import ExactError

    with pytest.raises(ExactError, match="outside 0 to"):  # the whole array is checked as it is opened
        load_table(str(path))


def test_dask_cluster_gives_the_values_of_one_job() -> None:
    """On a dask LocalCluster started here (2 workers), the layers large enough to be cut (16
    parts) run on the cluster: the same values as --jobs 1, bit for bit."""
    distributed = pytest.importorskip("distributed")
    rules = Ruleset()
    board = load_board(SMALL, rules)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=":0") as cluster:
        solution = solve_float(board, rules, scheduler=cluster)
    expected = solve_float(board, rules)
    assert np.array_equal(solution.values, expected.values) and solution.bounds == expected.bounds


def test_cli_checkpoints_resume(tmp_path: Path) -> None:
    """``--float --checkpoints DIR`` twice: the second run loads every layer and reports it; a
    --save naming a file of the directory is refused."""
    folder = tmp_path / "ck"
    args = ["solve-game", "--board", str(SMALL), "--float", "--checkpoints", str(folder), "--format", "json",
            "--jobs", "1"]
    first = _run(*args)
    assert first.exit_code == 0, first.output  # type: ignore[attr-defined]
    again = _run(*args)
    assert again.exit_code == 0, again.output  # type: ignore[attr-defined]
    one, two = json.loads(first.stdout), json.loads(again.stdout)  # type: ignore[attr-defined]
    assert two["layers_loaded"] == 9 and two["optimum_float"] == one["optimum_float"]
    assert two["error_bound"] == one["error_bound"]
    assert_one_line_error(_run(*args, "--save", str(folder / "layer-003.npy")), "--checkpoints directory")


def test_cli_save_never_inside_the_checkpoint_directory(tmp_path: Path) -> None:
    """``--float --save`` may not name a file inside ``--checkpoints DIR`` (its header
    ``DIR/solve.json`` would replace the manifest and lose every layer), nor a table whose
    header ``T.json`` is an input of the command; the directory then still resumes."""
    folder = tmp_path / "ck"
    args = ["solve-game", "--board", str(SMALL), "--float", "--checkpoints", str(folder), "--format", "json",
            "--jobs", "1"]
    assert _run(*args).exit_code == 0  # type: ignore[attr-defined]
    manifest = (folder / "solve.json").read_bytes()
    for target in (folder / "solve.npy", folder / "t.npy", folder / "sub" / "t.npy", folder / "values.npy"):
        assert_one_line_error(_run(*args, "--save", str(target)), "--checkpoints directory")
    assert (folder / "solve.json").read_bytes() == manifest and not (folder / "t.npy").exists()
    (tmp_path / "link.json").symlink_to(folder / "solve.json")  # the header a link into the directory
    assert_one_line_error(_run(*args, "--save", str(tmp_path / "link.npy")), "--checkpoints directory")
    again = _run(*args)
    assert again.exit_code == 0 and json.loads(again.stdout)["layers_loaded"] == 9  # type: ignore[attr-defined]
    board = tmp_path / "b.json"  # a board file whose name is the table's header
    board.write_bytes(SMALL.read_bytes())
    assert_one_line_error(_run("solve-game", "--board", str(board), "--float", "--save", str(tmp_path / "b.npy")),
                          "also read")
    assert board.read_bytes() == SMALL.read_bytes()


def test_cli_hostile_float_checkpoints(tmp_path: Path) -> None:
    """A float layer checkpoint's numbers are read with the bounded exact parser and not trusted:
    the bound is recomputed on resume (docs/solve-game.md, the bound), a recorded bound that
    differs is refused, a largest final-roll value below what the layer's values imply is
    refused, and every value must be finite and within 0 to a full sheet's points (D19)."""
    from shelfie_solver.dice.wholegame.float_solver import layer_bound
    from shelfie_solver.dice.wholegame.solver import jump_items

    folder = tmp_path / "ck"
    args = ["solve-game", "--board", str(SMALL), "--float", "--checkpoints", str(folder), "--format", "json",
            "--jobs", "1"]
    first = _run(*args)
    assert first.exit_code == 0, first.output  # type: ignore[attr-defined]
    head, array = folder / "layer-000.json", folder / "layer-004.npy"
    good_head, good_array = head.read_text(), array.read_bytes()

    def edited(**changes: object) -> None:
        head.write_text(json.dumps({**json.loads(good_head), **changes}))

    for bound in ("1e999999", "1/1" + "0" * 300, "0/1", "1/" + "9" * 5000):
        edited(bound=bound)
        assert_one_line_error(_run(*args), "layer-000.json")
    edited(largest=float("inf").hex())
    assert_one_line_error(_run(*args), "layer-000.json")
    edited(largest="0x1p+99999")  # a float overflow
    assert_one_line_error(_run(*args), "layer-000.json")
    # a largest final-roll value of 1 point with the bound recomputed to match: the start state's
    # value (about 41.7 points, an average of final-roll values) contradicts it
    rules = Ruleset()
    board = load_board(SMALL, rules)
    later = max(Fraction(json.loads((folder / f"layer-{j:03d}.json").read_text())["bound"])
                for j in range(1, 1 + jump_items(board, rules)))
    small = layer_bound(rules, later, 1.0)
    edited(largest=(1.0).hex(), bound=f"{small.numerator}/{small.denominator}")
    assert_one_line_error(_run(*args), "largest")
    head.write_text(good_head)
    values = np.load(array)
    np.save(array, values * 1e300)
    assert_one_line_error(_run(*args, "--save", str(tmp_path / "H.npy")), "layer-004.npy", "outside 0 to 42")
    assert not (tmp_path / "H.npy").exists()
    bad = values.copy()
    bad[-1] = np.nan
    np.save(array, bad)
    assert_one_line_error(_run(*args), "layer-004.npy")
    array.write_bytes(good_array)
    again = _run(*args)
    assert again.exit_code == 0, again.output  # type: ignore[attr-defined]
    assert json.loads(again.stdout)["error_bound"] == json.loads(first.stdout)["error_bound"]  # type: ignore[attr-defined]


def test_cli_hostile_binary_table_checked_when_opened(tmp_path: Path) -> None:
    """A binary table is checked whole when opened (in chunks), not only the values a command
    reads: 1e6 points at the start state refused by ``simulate --players exact:``, a NaN at the
    last state by ``advise``; the header's ``array`` must be the table's own name, its
    ``error_bound`` a finite number >= 0 and its ``optimum`` the start state's value within it."""
    rules = Ruleset()
    board = load_board(SMALL, rules)
    solution = solve_float(board, rules)
    path = tmp_path / "t.npy"
    save_binary(str(path), board, rules, solution.values, solution.bound)
    header = path.with_suffix(".json")
    good, values = json.loads(header.read_text()), np.load(path)
    start = state_index(board, rules).index(Marks.empty(board))
    simulate = ["simulate", "--board", str(SMALL), "--players", f"exact:{path}", "--games", "1", "--seed", "1",
                "--jobs", "1"]
    advise = ["advise", "--board", str(SMALL), "--dice", "GGAACJ", "--objective", f"table:{path}"]
    assert _run(*advise).exit_code == 0  # type: ignore[attr-defined]
    bad = values.copy()
    bad[start] = 1e6
    np.save(path, bad)
    header.write_text(json.dumps({**good, "optimum": 1e6}))  # the header agreeing: the range refuses it
    assert_one_line_error(_run(*simulate), "outside 0 to 42")
    header.write_text(json.dumps(good))
    bad = values.copy()
    bad[-1] = np.nan
    np.save(path, bad)
    assert_one_line_error(_run(*advise), "outside 0 to 42")
    np.save(path, values)
    for changes, message in [({"array": "../other.npy"}, "names the array"), ({"array": None}, "names the array"),
                             ({"error_bound": -1.0}, "error_bound"), ({"error_bound": "1e999"}, "error_bound"),
                             ({"optimum": None}, "optimum"), ({"optimum": good["optimum"] + 1}, "optimum")]:
        header.write_text(json.dumps({**good, **changes}))
        assert_one_line_error(_run(*advise), message)
    header.write_text(json.dumps(good)[:-1] + ', "error_bound": 1e999}')  # JSON's 1e999 is infinity
    assert_one_line_error(_run(*advise), "error_bound")
    header.write_text(json.dumps(good))
    assert _run(*advise).exit_code == 0  # type: ignore[attr-defined]
