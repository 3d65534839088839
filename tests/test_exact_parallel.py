"""The exact solitaire solver on the shared parallel runner (docs/solve-game.md): ``solve-game
--jobs J`` and ``--scheduler ADDRESS`` give the table of ``--jobs 1`` byte for byte, checkpoints
resume in parallel, and a dask LocalCluster started here solves the same values."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from shelfie_solver.cli import main
from shelfie_solver.dice.wholegame.solver import solve_game
from test_exact import TINY_BOARD, TINY_RULES, brute_force
from test_hostile_input import TINY_BOARD as BOARD_TOML, TINY_RULES as RULES_TOML  # the same 2 x 2 game


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    folder = tmp_path_factory.mktemp("tiny")
    (folder / "rules.toml").write_text(RULES_TOML)
    (folder / "board.toml").write_text(BOARD_TOML)
    return str(folder / "board.toml"), str(folder / "rules.toml")


def _solve(files: tuple[str, str], out: Path, *extra: str) -> str:
    result = CliRunner().invoke(main, ["solve-game", "--board", files[0], "--rules", files[1],
                                       "--save", str(out), "--format", "json", *extra])
    assert result.exit_code == 0, result.output
    return out.read_text()


def test_jobs_give_the_same_table(files: tuple[str, str], tmp_path: Path) -> None:
    """--jobs 1 and --jobs 2 write the same value table, byte for byte (states in the same
    order), and both equal the independent brute force of test_exact (D6-D19)."""
    one = _solve(files, tmp_path / "one.json", "--jobs", "1")
    two = _solve(files, tmp_path / "two.json", "--jobs", "2")
    assert one == two
    assert solve_game(TINY_BOARD, TINY_RULES, jobs=2).values == brute_force(TINY_BOARD, TINY_RULES)


def test_parallel_checkpoints_resume(tmp_path: Path) -> None:
    """A parallel solve writes every layer; with one layer removed a rerun solves only that one
    and loads the rest, giving the same values."""
    folder = tmp_path / "cp"
    first = solve_game(TINY_BOARD, TINY_RULES, str(folder), jobs=2)
    (folder / "layer-001.json").unlink()
    seen: list[tuple[int, int]] = []
    again = solve_game(TINY_BOARD, TINY_RULES, str(folder), progress=lambda layer, n: seen.append((layer, n)),
                       jobs=2)
    assert again.layers_loaded == TINY_BOARD.n_cells - 1 and again.values == first.values
    assert (folder / "layer-001.json").exists()
    assert sum(n for _, n in seen) == len(first.values)  # every state reported once


def test_jobs_with_scheduler_is_refused(files: tuple[str, str]) -> None:
    result = CliRunner().invoke(main, ["solve-game", "--board", files[0], "--rules", files[1], "--jobs", "2",
                                       "--scheduler", "tcp://127.0.0.1:1"])
    assert result.exit_code == 2 and "cannot be combined" in result.output


def test_unreachable_scheduler_is_one_line(files: tuple[str, str]) -> None:
    pytest.importorskip("distributed")
    result = CliRunner().invoke(main, ["solve-game", "--board", files[0], "--rules", files[1],
                                       "--scheduler", "tcp://127.0.0.1:1"])
    lines = result.output.strip().splitlines()
    assert result.exit_code == 2 and len(lines) == 1 and lines[0].startswith("Error: cannot reach the dask")


def test_dask_cluster_gives_the_values_of_one_job(tmp_path: Path) -> None:
    """On a dask LocalCluster started here (2 workers), the values of --jobs 1, in the same order."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=":0") as cluster:
        solution = solve_game(TINY_BOARD, TINY_RULES, scheduler=cluster)
    expected = solve_game(TINY_BOARD, TINY_RULES)
    assert list(solution.values.items()) == list(expected.values.items())
