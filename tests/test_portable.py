"""Windows has no ``fcntl`` (and no ``os.O_NONBLOCK``): no module imports a POSIX-only module at
load, and ``play`` runs there; the one file lock (``core/files.py``, the ``filelock`` package)
serialises writers of a kept file across processes and threads, and leaves no lock file behind."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from shelfie_solver.core.errors import ShelfieError
from shelfie_solver.core.files import FileWriteError, lock_file_path, locked

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "shelfie_solver"

#: Modules that exist only on POSIX systems (the standard library's "Unix specific services").
POSIX_ONLY = {"fcntl", "termios", "tty", "pty", "pwd", "grp", "resource", "posix", "syslog", "crypt"}


def test_no_module_imports_a_posix_only_module_or_flag_unguarded():
    """By the source: no ``import fcntl`` (or another POSIX-only module) anywhere, and the
    POSIX-only ``os`` flags only through ``getattr(os, NAME, 0)``."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name.split(".")[0] for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module.split(".")[0]]
            found += [f"{path.relative_to(ROOT)}:{node.lineno} imports {name}" for name in names if name in POSIX_ONLY]
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "os"
                    and node.attr in {"O_NONBLOCK", "O_NOFOLLOW", "O_DIRECTORY", "O_CLOEXEC", "O_NOCTTY"}):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} uses os.{node.attr} (getattr(os, ..., 0))")
    assert not found, found


def test_every_module_imports_and_play_runs_without_fcntl(tmp_path: Path):
    """As on Windows: ``fcntl`` cannot be imported. Every module of the package still imports,
    and ``play new``, ``play status`` and ``play roll`` (which locks the file) work."""
    game = tmp_path / "game.json"
    code = f"""
import sys
sys.modules["fcntl"] = None  # import fcntl raises ImportError, as on Windows
import importlib, pkgutil, warnings
warnings.simplefilter("ignore")  # filelock: "only soft file lock is available"
import shelfie_solver
for module in pkgutil.walk_packages(shelfie_solver.__path__, "shelfie_solver."):
    importlib.import_module(module.name)
from click.testing import CliRunner
from shelfie_solver.cli import main
game = {str(game)!r}
for args in (["new", game, "--players", "Ann,Ben", "--first", "Ann"], ["status", game], ["roll", game, "CCBJPP"],
             ["status", game]):
    result = CliRunner().invoke(main, ["play", *args])
    assert result.exit_code == 0, (args, result.output)
    print(result.stdout)
assert "fcntl" not in sys.modules or sys.modules["fcntl"] is None
"""
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Round 1, Ann to play" in done.stdout
    assert [e["event"] for e in json.loads(game.read_text())["events"]] == ["start", "roll"]  # D6, written under the lock
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.json"]  # no lock file left


def test_the_lock_excludes_other_threads_and_leaves_no_file(tmp_path: Path):
    """Two threads each read a counter, wait, write it plus one: under the lock no update is lost."""
    target = tmp_path / "count.txt"
    target.write_text("0")

    def bump() -> None:
        for _ in range(5):
            with locked(target):
                value = int(target.read_text())
                time.sleep(0.01)
                target.write_text(str(value + 1))

    threads = [threading.Thread(target=bump) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert target.read_text() == "15"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["count.txt"]


def test_the_lock_excludes_another_process(tmp_path: Path):
    target = tmp_path / "kept.json"
    code = f"""
import sys, time
sys.path.insert(0, {str(ROOT)!r})
from shelfie_solver.core.files import locked
with locked({str(target)!r}):
    print("held", flush=True)
    time.sleep(1.0)
"""
    holder = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        start = time.monotonic()
        with locked(target):
            waited = time.monotonic() - start
            assert holder.poll() is not None or waited > 0.3  # only once the other process let go
    finally:
        holder.wait(timeout=60)
    assert waited > 0.3


def test_a_lock_file_removed_while_waiting_is_locked_again(tmp_path: Path):
    """The holder removes its lock file on leaving; a waiter that had opened the old file takes
    the lock on the path's file again, so two holders never overlap (the samestat check)."""
    target = tmp_path / "g.json"
    inside = []
    overlap = []

    def hold(name: str) -> None:
        with locked(target):
            if inside:
                overlap.append(name)
            inside.append(name)
            time.sleep(0.05)
            inside.remove(name)

    threads = [threading.Thread(target=hold, args=(str(n),)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert overlap == []
    assert not lock_file_path(target).exists()


def test_a_lock_refused_is_one_error_of_the_callers_kind(tmp_path: Path):
    planted = lock_file_path(tmp_path / "g.json")
    planted.mkdir()
    with pytest.raises(FileWriteError, match="cannot lock"):
        with locked(tmp_path / "g.json"):
            pass

    class KindError(ShelfieError):
        pass

    with pytest.raises(KindError, match="is a directory|cannot lock"):
        with locked(tmp_path, KindError):  # the folder itself is no file to lock
            pass
