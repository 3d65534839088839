"""Start-up (docs/performance.md): `advise` and `odds` never load the heavy or optional modules."""

from __future__ import annotations

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


def _cpu_seconds(code: str) -> float:
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert _run(code).returncode == 0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


@pytest.mark.skipif(sys.platform == "win32", reason="CPU time of a child from resource (POSIX)")
def test_simulate_starts_its_first_game_within_a_few_bare_interpreters():
    """CPU seconds until simulate's first game starts (interpreter, numpy, the command, the
    strategies), as a ratio to a bare interpreter's in the same test, medians of 3: measured
    4-7x on this project's machine (docs/performance.md, "Start-up"); 12x leaves room for a
    shared machine but fails if a heavy import (scipy, matplotlib, numba) comes back before play."""
    probe = ("import sys\nimport shelfie_solver.dice.game.turn as turn\n"
             "def stop(*args, **kwargs):\n    raise SystemExit(0)\n"
             "turn.play_game = stop\nfrom shelfie_solver.cli import main\n"
             "sys.argv = ['shelfie-solve', 'simulate', '--players', 'solver,greedy', '--games', '1', '--seed', '1', "
             "'--jobs', '1']\nmain()\n")
    _run(probe)  # warm the disk caches
    bare = sorted(_cpu_seconds("pass") for _ in range(3))[1]
    first = sorted(_cpu_seconds(probe) for _ in range(3))[1]
    assert first < 12 * max(bare, 0.01), (first, bare)
