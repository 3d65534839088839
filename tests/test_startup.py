"""Start-up (issue 12 §6): `advise` and `odds` never load the heavy or optional modules."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("numba", "scipy", "matplotlib", "networkx", "importlib.metadata", "shelfie_solver.kernel",
         "shelfie_solver.game", "shelfie_solver.parallel")


@pytest.mark.parametrize("args", [["advise", "--dice", "CCBJPP"], ["odds", "--target", "3C", "--dice", "CCBJPP"]])
def test_advise_and_odds_import_no_heavy_module(args):
    code = ("import sys\nfrom shelfie_solver.cli import main\n"
            f"sys.argv = ['shelfie-solve'] + {args!r}\n"
            "try:\n    main()\nexcept SystemExit as stop:\n    assert not stop.code, stop.code\n"
            f"loaded = [m for m in {HEAVY!r} if m in sys.modules]\n"
            "assert not loaded, loaded\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
