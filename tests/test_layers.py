"""The layers of the package (docs/architecture.md): the dice game and the tile game are siblings on
the shared ``core``, so the tile game's modules load no dice-game module."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_tile_game_imports_no_dice_game_module():
    """Every module of ``shelfie_solver.tile`` (the advisor, tournaments, position files...)."""
    code = ("import importlib, pkgutil, sys\n"
            "import shelfie_solver.tile, shelfie_solver.tile.simulate, shelfie_solver.tile.advise, "
            "shelfie_solver.tile.position\n"
            "for module in pkgutil.iter_modules(shelfie_solver.tile.__path__, 'shelfie_solver.tile.'):\n"
            "    importlib.import_module(module.name)\n"
            "print(sorted(m for m in sys.modules if m.startswith('shelfie_solver.dice')))\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
