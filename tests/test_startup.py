"""Start-up (docs/performance.md): `advise` and `odds` never load the heavy or optional modules."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("numba", "scipy", "matplotlib", "networkx", "importlib.metadata", "shelfie_solver.dice.engine.kernel",
         "shelfie_solver.dice.game.events", "shelfie_solver.dice.game.dice_sources",
         "shelfie_solver.dice.game.turn", "shelfie_solver.dice.game.record", "shelfie_solver.core.parallel",
         # only the JSON / CSV formats and JSON input files need these (core/report.py, core/inputs.py)
         "json", "csv",
         # only a table with wide characters (core/report.py); a file lock, a progress bar
         "wcwidth", "filelock", "tqdm")


def _run(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", **env})


@pytest.mark.parametrize("args", [["advise", "--dice", "CCBJPP"], ["odds", "--target", "3C", "--dice", "CCBJPP"],
                                  ["advise", "--dice", "CCCBJP", "--rerolls", "0"]])
def test_advise_and_odds_import_no_heavy_module(args):
    code = ("import gc, sys\nfrom shelfie_solver.cli import main\n"
            f"sys.argv = ['shelfie-solve'] + {args!r}\n"
            "try:\n    main()\nexcept SystemExit as stop:\n    assert not stop.code, stop.code\n"
            f"loaded = [m for m in {HEAVY!r} if m in sys.modules]\n"
            "assert not loaded, loaded\n"
            "assert gc.isenabled()  # paused only while the subcommand's module loads\n")
    done = _run(code)
    assert done.returncode == 0, done.stderr


def test_openblas_threads_set_before_numpy_loads():
    """The CLI asks for one OpenBLAS thread (it computes without BLAS; the pool's start costs
    start-up) before numpy is imported, and keeps a value the user set."""
    code = ("import os, sys\nimport shelfie_solver.cli\n"
            "assert 'numpy' not in sys.modules\n"
            "print(os.environ['OPENBLAS_NUM_THREADS'])\n")
    assert _run(code).stdout.strip() == "1"
    assert _run(code, OPENBLAS_NUM_THREADS="2").stdout.strip() == "2"


def test_a_table_with_wide_characters_is_laid_out_as_tabulate_with_wcwidth_lays_it_out():
    """wcwidth is imported only for a table with text other than printable ASCII; such a table
    comes out exactly as tabulate, imported the usual way (with wcwidth), gives it."""
    rows = [["名前", "1"], ["Zoë", "22"], ["plain", "3"]]
    ours = _run("from shelfie_solver.core.report import _tabulate\n"
                f"print(_tabulate(['seat', 'n'], {rows!r}, 'simple'))")
    theirs = _run("import tabulate\nassert tabulate.wcwidth is not None\n"
                  f"print(tabulate.tabulate({rows!r}, ['seat', 'n'], tablefmt='simple', disable_numparse=True))")
    assert ours.returncode == 0 and theirs.returncode == 0, ours.stderr + theirs.stderr
    assert ours.stdout == theirs.stdout
    assert "名前    1" in ours.stdout  # two wide characters take four columns


def test_simulate_loads_numba_without_scipy_linalg():
    """The compiled kernels load numba once (core/compiled.py) without SciPy's BLAS probe, which
    imported all of scipy.linalg (0.1-0.3 CPU s) for nothing the kernels use."""
    code = ("import sys\nfrom shelfie_solver.cli import main\n"
            "sys.argv = ['shelfie-solve', 'simulate', '--players', 'solver,greedy', '--games', '1', '--seed', '1', "
            "'--jobs', '1']\n"
            "try:\n    main()\nexcept SystemExit as stop:\n    assert not stop.code, stop.code\n"
            "print('numba' in sys.modules, 'scipy.linalg' in sys.modules)\n")
    done = _run(code)
    assert done.returncode == 0, done.stderr
    numba_installed = _run("import numba").returncode == 0
    assert done.stdout.split()[-2:] == [str(numba_installed), "False"]


@pytest.mark.parametrize("players", ["solver,greedy", "win,learned"])
def test_simulate_starts_its_first_game_without_a_heavy_import(players):
    """Until simulate's first game starts (interpreter, numpy, the command, the strategies), no
    heavy module is loaded: scipy, matplotlib, networkx and numba each cost 0.1-1 CPU s, several
    bare interpreters (the start-up is measured, as a ratio to a bare interpreter, by
    benchmarks/bench_layout.py --startup and written in docs/performance.md "Start-up"; a timed assert here failed
    on a shared machine at 12.7x a bare interpreter where it measures 9-10x alone)."""
    probe = ("import sys\nimport shelfie_solver.dice.game.turn as turn\n"
             "def stop(*args, **kwargs):\n"
             "    loaded = [m for m in ('numba', 'scipy', 'matplotlib', 'networkx') if m in sys.modules]\n"
             "    print('loaded', loaded)\n    raise SystemExit(0)\n"
             "turn.play_game = stop\nfrom shelfie_solver.cli import main\n"
             f"sys.argv = ['shelfie-solve', 'simulate', '--players', {players!r}, '--games', '1', '--seed', '1', "
             "'--jobs', '1']\nmain()\n")
    done = _run(probe)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[-2] == "loaded []", done.stdout


def test_the_command_runs_as_a_module():
    """``python -m shelfie_solver.cli`` is the ``shelfie-solve`` command (cli/__main__.py): the same
    help under the same name, and the same one-line error with exit code 2 for bad dice (a die
    ``X`` is no face of docs/rules.md)."""
    helped = subprocess.run([sys.executable, "-m", "shelfie_solver.cli", "--help"], cwd=ROOT, capture_output=True,
                            text=True, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert helped.returncode == 0, helped.stderr
    assert helped.stdout.startswith("Usage: shelfie-solve [OPTIONS] COMMAND")
    bad = subprocess.run([sys.executable, "-m", "shelfie_solver.cli", "advise", "--dice", "XXXXXX"], cwd=ROOT,
                         capture_output=True, text=True, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert bad.returncode == 2
    assert bad.stderr.startswith("Error:") and bad.stderr.count("\n") == 1, bad.stderr


def test_numba_keeps_its_kernels_in_the_user_cache_folder(tmp_path):
    """numba's cache is the user cache folder's ``numba`` folder (never ``__pycache__`` beside the
    installed modules, whose leftovers hide an editable install after ``pip uninstall``), whatever
    ``SHELFIE_SOLVE_CACHE`` says; a ``NUMBA_CACHE_DIR`` the user set is kept."""
    from shelfie_solver.core.compiled import numba_cache_folder

    assert numba_cache_folder({"NUMBA_CACHE_DIR": "/x/y"}) is None
    code = ("import os; from shelfie_solver.core.compiled import import_numba; import_numba(); "
            "print(os.environ.get('NUMBA_CACHE_DIR'))")
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env.update(XDG_CACHE_HOME=str(tmp_path), SHELFIE_SOLVE_CACHE=str(tmp_path / "private"))
    found = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    if sys.platform == "linux":
        assert found.stdout.strip() == str(tmp_path / "shelfie-solve" / "numba")
    env["NUMBA_CACHE_DIR"] = str(tmp_path / "mine")
    found = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert found.stdout.strip() == str(tmp_path / "mine")
