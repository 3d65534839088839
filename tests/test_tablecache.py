"""The disk cache of the dice space and feasibility tables (core/diskcache.py, docs/cache.md): the same
tables as a fresh build, keyed by ruleset and board, corrupt entries rebuilt, concurrent writers
safe."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from shelfie_solver.core import diskcache as tablecache
from shelfie_solver.dice.allocate import _build_feasibility
from shelfie_solver.dice.allocate import feasibility_arrays as feasibility_table
from shelfie_solver.dice.board import _build_item_sets, item_sets, load_board
from shelfie_solver.dice.rolls import DiceSpace
from shelfie_solver.dice.rules import DEFAULT_RULES

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SHELFIE_SOLVE_CACHE", str(tmp_path))
    return tmp_path


#: The layout of :func:`_arrays`' entries: ``a`` of any length, ``b`` 2 x 3.
LAYOUT = {"a": ("n",), "b": (2, 3)}


def _arrays(n: int = 3) -> dict[str, np.ndarray]:
    return {"a": np.arange(n, dtype=np.int64), "b": np.arange(6, dtype=np.int64).reshape(2, 3) - 4}


def test_entry_round_trip_and_key(cache):
    calls = []

    def build():
        calls.append(1)
        return _arrays()

    first = tablecache.load_or_build("t", "key one", LAYOUT, build)
    again = tablecache.load_or_build("t", "key one", LAYOUT, build)
    assert len(calls) == 1
    for name in LAYOUT:
        assert (first[name] == again[name]).all() and first[name].shape == again[name].shape
    tablecache.load_or_build("t", "key two", LAYOUT, build)
    assert len(calls) == 2  # another key is another entry
    assert len(list(cache.iterdir())) == 2


@pytest.mark.parametrize("damage", ["garbage", "truncate", "flip", "empty"])
def test_corrupt_entries_are_rebuilt(cache, damage):
    tablecache.load_or_build("t", "k", LAYOUT, _arrays)
    path = tablecache.entry_path("t", "k")
    assert path is not None and path.exists()
    raw = path.read_bytes()
    if damage == "garbage":
        path.write_bytes(b"not an array at all")
    elif damage == "truncate":
        path.write_bytes(raw[: len(raw) - 9])
    elif damage == "flip":
        path.write_bytes(raw[:-1] + bytes([raw[-1] ^ 1]))
    else:
        path.write_bytes(b"")
    rebuilt = []
    out = tablecache.load_or_build("t", "k", LAYOUT, lambda: rebuilt.append(1) or _arrays())
    assert rebuilt == [1] and (out["b"] == _arrays()["b"]).all()
    if damage == "garbage":  # not a .npy array: not ours to replace (files.check_overwrite), built in memory
        assert path.read_bytes() == b"not an array at all"
    else:
        assert tablecache._read(path, b"t\nk", LAYOUT) is not None  # replaced by a good entry


def test_off_switch_builds_in_memory(tmp_path, monkeypatch):
    monkeypatch.setenv("SHELFIE_SOLVE_CACHE", "off")
    assert tablecache.entry_path("t", "k") is None
    assert (tablecache.load_or_build("t", "k", LAYOUT, _arrays)["a"] == np.arange(3)).all()


def test_unwritable_cache_falls_back(tmp_path, monkeypatch):
    """An entry that cannot be written (a folder stands where its file would go; a read-only or
    full disk alike) only costs building in memory. (A SHELFIE_SOLVE_CACHE under a regular file,
    where no entry could ever be written, is refused instead: tests/test_cache_limit.py.)"""
    monkeypatch.setenv("SHELFIE_SOLVE_CACHE", str(tmp_path / "cache"))
    path = tablecache.entry_path("t", "k")
    assert path is not None
    path.mkdir(parents=True)
    assert (tablecache.load_or_build("t", "k", LAYOUT, _arrays)["a"] == np.arange(3)).all()
    assert path.is_dir() and not any(path.iterdir())


def test_cached_tables_equal_a_fresh_build(cache):
    """The dice space's transitions and sub-holds and the feasibility table read back from the
    cache are the arrays a fresh build gives (default ruleset and board, D6-D12)."""
    board = load_board(None, DEFAULT_RULES)
    rules = replace(DEFAULT_RULES, name="cache test")  # a ruleset object of its own: no in-process hit
    fresh = _build_feasibility(board, rules, item_sets(board, rules.combinations_per_turn))
    feasibility_table(board, rules)  # builds and stores
    feasibility_table.cache_clear()
    table = feasibility_table(board, rules)  # reads the entry
    assert (table.starts == fresh["starts"]).all() and (table.members == fresh["members"]).all()
    space, built = DiceSpace(4, 5), DiceSpace(4, 5)
    space.transitions  # stores
    again = DiceSpace(4, 5)
    for a, b in zip(again.transitions, built._build_transitions()):
        assert (a == b).all()
    assert (again.sub_holds == built._build_sub_holds()).all()


def test_cached_item_sets_equal_a_fresh_build(cache):
    """The board's item sets read back from the cache are a fresh build's arrays, and they are
    every set of 1..3 items (math.comb of them) with each line's items and points counted from
    the set's cells (D3, D9)."""
    board = replace(load_board(None, DEFAULT_RULES), name="item sets cache test")  # no in-process hit
    fresh = _build_item_sets(board, 3)
    item_sets(board, 3)  # builds and stores
    item_sets.cache_clear()
    sets = item_sets(board, 3)  # reads the entry
    assert len(list(cache.glob("item-sets-*"))) == 1
    for name in ("cells", "sizes", "line_count", "line_points"):
        assert (getattr(sets, name) == fresh[name]).all() and getattr(sets, name).shape == fresh[name].shape
    assert len(sets.sizes) == sum(math.comb(board.n_cells, j) for j in (1, 2, 3))
    for i in range(0, len(sets.sizes), 97):
        cells = [int(c) for c in sets.cells[i] if c >= 0]
        assert sets.sizes[i] == len(cells)
        for line, members in enumerate(board.lines):
            assert sets.line_count[i, line] == sum(c in members for c in cells)
            assert sets.line_points[i, line] == sum(board.value(c) for c in cells if c in members)


def test_concurrent_writers_leave_a_valid_entry(cache):
    """Four processes building and writing the same entry at once: every one gets the right
    arrays and the entry left behind is intact."""
    code = ("import numpy as np; from shelfie_solver.core import diskcache as t; "
            "out = t.load_or_build('c', 'k', {'a': ('n',)}, lambda: {'a': np.arange(200000)}); "
            "assert (out['a'] == np.arange(200000)).all()")
    env = {**os.environ, "SHELFIE_SOLVE_CACHE": str(cache), "PYTHONPATH": str(ROOT)}
    procs = [subprocess.Popen([sys.executable, "-c", code], env=env) for _ in range(4)]
    assert all(p.wait() == 0 for p in procs)
    path = tablecache.entry_path("c", "k")
    assert path is not None
    found = tablecache._read(path, b"c\nk", {"a": ("n",)})
    assert found is not None and (found["a"] == np.arange(200000)).all()
    assert [p.name for p in cache.iterdir()] == [path.name]  # no temporary files left


def test_default_directory_is_platformdirs_user_cache_dir(monkeypatch):
    """Without SHELFIE_SOLVE_CACHE the entries live where platformdirs says (on Linux computed
    without importing it: $XDG_CACHE_HOME, else ~/.cache)."""
    from platformdirs import user_cache_dir

    monkeypatch.delenv("SHELFIE_SOLVE_CACHE", raising=False)
    for xdg in (None, "/tmp/some-xdg-cache"):
        if xdg is None:
            monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
        else:
            monkeypatch.setenv("XDG_CACHE_HOME", xdg)
        assert tablecache.cache_dir() == Path(user_cache_dir("shelfie-solve", appauthor=False))
