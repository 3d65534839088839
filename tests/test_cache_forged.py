"""A table-cache entry whose arrays are not those its kind declares (core/diskcache.py, docs/cache.md)
is rebuilt like a damaged one, never a traceback: arrays of another shape, number or order, a
blob of another dtype, indices into other arrays out of range, or NaN in the float tables (the
readers' own checks), each written with a valid CRC
(a forged entry: the CRC only catches accidental damage). Every kind is forged in turn and the
command that reads it is run as a fresh process (in-process memos would keep the tables read
before and never look at the disk): its output equals the output with the cache off, and the
entry is replaced by the one a clean cache holds."""

from __future__ import annotations

import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from shelfie_solver.core import diskcache

from conftest import EXAMPLES

TINY = str(EXAMPLES / "boards" / "tiny-2x3.toml")
SMALL = str(EXAMPLES / "boards" / "small.toml")
ADVISE = ["advise", "--board", TINY, "--dice", "CCBJPP"]
#: The command that reads each kind (the two-player count is read only when no table is kept).
COMMANDS = {
    "space": [*ADVISE, "--objective", "points"],
    "item-sets": [*ADVISE, "--objective", "points"],
    "feasibility": [*ADVISE, "--objective", "points"],
    "solitaire-values": [*ADVISE, "--objective", "learned"],
    "two-player-values": [*ADVISE, "--opponent", ".../..."],
    "two-player-count": [*ADVISE, "--opponent", ".../..."],
    "solitaire-own-table": ["advise", "--board", SMALL, "--dice", "CCBJPP", "--objective", "learned"],
}
#: The own table on the 3 x 3 board, as tests/test_own_cache.py has it: a budget of 1,000 states
#: (the board's 1,519 over it, its 2 x 3 sub-boards' 161 within), the 3 x 3 shape among those that
#: get one, value iteration kept short.
OWN_SETUP = ("from shelfie_solver.dice.learned import own_cache, own_table; "
             "own_cache.OWN_SHAPES = ((3, 3),); own_table.ITERATIONS = 2; own_table.ITERATION_GAMES = 40; ")
#: The kinds whose arrays index other arrays (a forged index out of range is refused too).
INDEX_KINDS = ("space", "item-sets", "feasibility")
#: The kinds whose values each reader checks itself (float64 bits: NaN refused; the own table's
#: weights within the objective's bound).
VALUE_KINDS = ("solitaire-values", "two-player-values", "solitaire-own-table")
FORGERIES = ("empty", "more-axes", "one-row-short", "swapped", "missing", "extra", "float-dtype", "index", "nan",
             "zeros", "rows-reversed", "huge", "below")
#: The kinds whose every value is fixed by the board, checked whole by their reader (board.item_sets:
#: zeros crashed legal_markings with an AssertionError before; rows in another order gave other advice).
WHOLE_KINDS = ("item-sets",)


def _run(kind: str, cache: Path | str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SHELFIE_SOLVE_CACHE": str(cache), "OMP_NUM_THREADS": "1"}
    env.pop("SHELFIE_SOLVE_CACHE_MAX", None)
    for name in ("SHELFIE_SOLVE_EXACT_BUDGET", "SHELFIE_SOLVE_EXACT2_BUDGET", "SHELFIE_SOLVE_OWN_TABLE"):
        env.pop(name, None)
    setup = ""
    if kind == "solitaire-own-table":
        env["SHELFIE_SOLVE_EXACT_BUDGET"] = "1000"
        setup = OWN_SETUP
    code = f"import sys; {setup}from shelfie_solver.cli import main; sys.argv[0] = 'shelfie-solve'; main()"
    return subprocess.run([sys.executable, "-c", code, *COMMANDS[kind]], env=env, capture_output=True, text=True,
                          timeout=600)


def _parse(path: Path) -> tuple[str, str, list[np.ndarray]]:
    """An entry's kind, key and arrays, read by hand from the layout the module docstring gives:
    ``[version, key length, CRC-32, array count, (ndim, *shape) per array, key bytes, data]``."""
    blob = np.load(path)
    key_length, count = int(blob[1]), int(blob[3])
    position, shapes = 4, []
    for _ in range(count):
        ndim = int(blob[position])
        shapes.append(tuple(int(v) for v in blob[position + 1:position + 1 + ndim]))
        position += 1 + ndim
    kind, key = bytes(blob[position:position + key_length].astype(np.uint8)).decode().split("\n", 1)
    data, arrays = blob[position + key_length:], []
    for shape in shapes:
        arrays.append(data[:math.prod(shape)].reshape(shape))
        data = data[math.prod(shape):]
    return kind, key, arrays


def _forge(path: Path, forgery: str) -> None:
    """Rewrite the entry at ``path`` as ``forgery``, with a valid CRC (diskcache.write_entry)."""
    kind, key, arrays = _parse(path)
    if forgery == "float-dtype":  # the very entry, stored as float64: the format is int64 only
        np.save(path, np.load(path).astype(np.float64), allow_pickle=False)
        return
    forged = {
        "empty": [a[:0] for a in arrays],
        "more-axes": [a[None] for a in arrays],
        "one-row-short": [a[:-1] if a.ndim and len(a) > 1 else a[:0] for a in arrays],
        "swapped": arrays[::-1] if len(arrays) > 1 else [a.T for a in arrays],  # one array: its axes
        "missing": arrays[:-1],
        "extra": [*arrays, np.arange(3, dtype=np.int64)],
        "index": [a + 10**6 for a in arrays],
        "nan": [np.full(a.shape, np.nan).view(np.int64) for a in arrays],  # every value NaN's bits
        "huge": [np.full(a.shape, 1e300).view(np.int64) for a in arrays],  # finite, far above any score
        "below": [a - 10**6 for a in arrays],  # a count below -1 (the mark of 'over the budget')
        "zeros": [np.zeros_like(a) for a in arrays],  # in range, of the right shape: no set at all
        "rows-reversed": [a[::-1].copy() for a in arrays],  # every set, its totals with it, out of order
    }[forgery]
    assert diskcache.write_entry(kind, key, {f"a{i}": a for i, a in enumerate(forged)})
    assert diskcache.entry_path(kind, key) == path


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, str]]:
    """Per kind: a cache holding its entries as its command writes them, and the command's
    output with the cache off (tables built in memory: what no cache entry can change)."""
    found = {}
    for kind in COMMANDS:
        folder = tmp_path_factory.mktemp(f"clean-{kind}")
        first = _run(kind, folder)
        assert first.returncode == 0, first.stderr
        assert list(folder.glob(f"{kind}-*.npy")), f"{COMMANDS[kind]} wrote no {kind} entry"
        off = _run(kind, "off")
        assert off.returncode == 0 and off.stdout == first.stdout, off.stderr
        found[kind] = (folder, off.stdout)
    return found


def _applies(kind: str, forgery: str) -> bool:
    """Whether ``forgery`` means something for ``kind``: an index out of range only where the kind
    holds indices into another array, NaN only where it holds float values (its integers are
    taken as they are), a swap only where there are two arrays or axes to swap."""
    if forgery == "index":
        return kind in INDEX_KINDS
    if forgery in ("nan", "huge"):  # huge: the solitaire table (its bound 1e300 too) stopped advise
        return kind in VALUE_KINDS  # with exit 2 'expected the file solve-game wrote' before 2026-12-07
    if forgery == "below":  # the count of states: -1 or 0 to the budget (read it as over the budget before)
        return kind == "two-player-count"
    if forgery in ("zeros", "rows-reversed"):
        return kind in WHOLE_KINDS
    return not (forgery == "swapped" and kind == "two-player-count")


@pytest.mark.parametrize("kind, forgery", [(k, f) for f in FORGERIES for k in COMMANDS if _applies(k, f)])
def test_forged_entry_is_rebuilt_not_a_traceback(kind, forgery, clean, tmp_path, monkeypatch):
    folder, expected = clean[kind]
    cache = tmp_path / "cache"
    shutil.copytree(folder, cache)
    monkeypatch.setenv("SHELFIE_SOLVE_CACHE", str(cache))  # where _forge writes
    if kind == "two-player-count":  # read only when no table is kept
        for table in cache.glob("two-player-values-*.npy"):
            table.unlink()
    paths = sorted(cache.glob(f"{kind}-*.npy"))
    for path in paths:
        _forge(path, forgery)
    forged = {path: path.read_bytes() for path in paths}
    result = _run(kind, cache)
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode == 0, result.stderr
    assert result.stdout == expected  # what the cache off gives
    for path in paths:  # read, refused, rebuilt and replaced by the entry a clean cache holds
        assert path.read_bytes() != forged[path]
        assert path.read_bytes() == (folder / path.name).read_bytes(), path.name


def test_layout_fits_by_hand():
    """diskcache.fits_layout on hand-made shapes: exact lengths, a named length shared, the number
    of arrays and axes, a negative length."""
    layout = {"starts": (4,), "columns": ("nnz",), "weights": ("nnz",), "table": (3, "m")}
    assert diskcache.fits_layout([(4,), (7,), (7,), (3, 0)], layout)
    assert not diskcache.fits_layout([(5,), (7,), (7,), (3, 2)], layout)  # 5 rows, not 4
    assert not diskcache.fits_layout([(4,), (7,), (6,), (3, 2)], layout)  # nnz 7 then 6
    assert not diskcache.fits_layout([(4,), (7,), (7,), (6,)], layout)  # one axis, not two
    assert not diskcache.fits_layout([(4,), (7,), (7,)], layout)  # an array missing
    assert not diskcache.fits_layout([(4,), (-1,), (-1,), (3, 2)], layout)  # no length is negative
    assert diskcache.row_starts_fit(np.array([0, 0, 2, 5]), 5) and not diskcache.row_starts_fit(np.array([0, 3, 2]), 5)
    assert not diskcache.row_starts_fit(np.array([1, 2]), 5) and not diskcache.row_starts_fit(np.array([0, 6]), 5)
    assert diskcache.all_within(np.array([-1, 0, 4]), -1, 5) and not diskcache.all_within(np.array([5]), -1, 5)
