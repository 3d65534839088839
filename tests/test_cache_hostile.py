"""A hostile table cache (core/diskcache.py, docs/cache.md) only costs a rebuild: an entry replaced by
a FIFO (which hung every command in ``np.load``), a directory, a truncated or empty file, and a
blank ``SHELFIE_SOLVE_CACHE`` (which made a folder named ``' '`` in the working directory)."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import numpy as np
import pytest

from shelfie_solver.core import diskcache as tablecache


#: The layout of :func:`_arrays`' entries.
LAYOUT = {"a": (5,), "b": (2, 3)}


def _arrays() -> dict[str, np.ndarray]:
    return {"a": np.arange(5, dtype=np.int64), "b": np.arange(6, dtype=np.int64).reshape(2, 3) - 4}


@pytest.mark.parametrize("damage", ["fifo", "directory", "truncated", "empty", "dev-zero"])
def test_damaged_entry_is_rebuilt_not_hung(damage, tmp_path, monkeypatch):
    monkeypatch.setenv("SHELFIE_SOLVE_CACHE", str(tmp_path))
    calls = []

    def build():
        calls.append(1)
        return _arrays()

    tablecache.load_or_build("kind", "key", LAYOUT, build)
    (entry,) = tmp_path.glob("kind-*.npy")
    data = entry.read_bytes()
    entry.unlink()
    if damage == "fifo":
        os.mkfifo(entry)
    elif damage == "directory":
        entry.mkdir()
    elif damage == "dev-zero":
        entry.symlink_to("/dev/zero")
    else:
        entry.write_bytes(data[:100] if damage == "truncated" else b"")
    old = signal.signal(signal.SIGALRM, lambda *_: pytest.fail(f"a cache entry that is a {damage} hung the read"))
    signal.alarm(20)
    try:
        found = tablecache.load_or_build("kind", "key", LAYOUT, build)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    assert len(calls) == 2  # rebuilt
    assert all(np.array_equal(found[name], _arrays()[name]) for name in ("a", "b"))


@pytest.mark.parametrize("setting", ["", " ", "\t\n"])
def test_blank_cache_setting_is_unset(setting, tmp_path, monkeypatch):
    monkeypatch.setenv("SHELFIE_SOLVE_CACHE", setting)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.chdir(tmp_path)
    folder = tablecache.cache_dir()
    assert folder is not None and folder.is_absolute() and folder.name == "shelfie-solve"
    tablecache.load_or_build("kind", "key", LAYOUT, _arrays)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["xdg"]
    assert list(Path(folder).glob("kind-*.npy"))
