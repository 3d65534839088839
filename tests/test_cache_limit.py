"""The table cache's size bound (core/diskcache.py: SHELFIE_SOLVE_CACHE_MAX, least recently used
entries removed whole) and ``shelfie-solve cache`` (docs/cache.md)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from shelfie_solver.core import diskcache as tablecache
from shelfie_solver.cli import main
from conftest import assert_one_line_error

ROOT = Path(__file__).resolve().parent.parent
NAMES = {"a": ("n",)}  # one array of any length


def _arrays() -> dict[str, np.ndarray]:
    return {"a": np.arange(1000, dtype=np.int64)}


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SHELFIE_SOLVE_CACHE", str(tmp_path))
    monkeypatch.delenv("SHELFIE_SOLVE_CACHE_MAX", raising=False)
    return tmp_path


def _entry_size(cache) -> int:
    """The size of one entry of :func:`_arrays` under a 2-character key (measured on disk)."""
    tablecache.load_or_build("t", "k0", NAMES, _arrays)
    probe = tablecache.entry_path("t", "k0")
    assert probe is not None
    size = probe.stat().st_size
    probe.unlink()
    return size


def _age(kind: str, key: str, seconds: int) -> None:
    path = tablecache.entry_path(kind, key)
    assert path is not None
    os.utime(path, ns=(seconds * 10**9, seconds * 10**9))


@pytest.mark.parametrize("text, size", [("256M", 256 * 2**20), ("1g", 2**30), ("500KiB", 500 * 1024),
                                        ("1024", 1024), (" 2 MB ", 2 * 2**20), ("0", 0), ("", 256 * 2**20)])
def test_limit_forms(text, size, monkeypatch):
    monkeypatch.setenv("SHELFIE_SOLVE_CACHE_MAX", text)
    assert tablecache.cache_limit() == size


@pytest.mark.parametrize("text", ["lots", "-5", "1.5G", "12T", "1e9", "9" * 40])
def test_bad_limit_is_one_line_exit_2(text, cache, monkeypatch):
    monkeypatch.setenv("SHELFIE_SOLVE_CACHE_MAX", text)
    with pytest.raises(tablecache.CacheSettingError, match="SHELFIE_SOLVE_CACHE_MAX"):
        tablecache.load_or_build("t", "k", NAMES, _arrays)
    result = CliRunner().invoke(main, ["cache"])
    assert result.exit_code == 2 and result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: SHELFIE_SOLVE_CACHE_MAX=") and "256M" in lines[0]


def test_bad_limit_refused_by_a_solving_command(cache):
    """A fresh process (no table cached in memory yet): advise refuses the setting in one line."""
    env = {**os.environ, "SHELFIE_SOLVE_CACHE_MAX": "lots", "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", "from shelfie_solver.cli import main; main()", "advise", "--dice",
                           "PGBACJ", "--rerolls", "0"],
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == [done.stderr.strip()] and "SHELFIE_SOLVE_CACHE_MAX='lots'" in done.stderr


def test_least_recently_used_entry_is_evicted_whole(cache, monkeypatch):
    """Room for two entries: writing a third removes the one least recently used (read or
    written), not the oldest written; the survivors are intact, other files untouched."""
    size = _entry_size(cache)
    (cache / "notes.txt").write_text("not an entry")
    monkeypatch.setenv("SHELFIE_SOLVE_CACHE_MAX", str(2 * size + size // 2))
    for key in ("k1", "k2"):
        tablecache.load_or_build("t", key, NAMES, _arrays)
    _age("t", "k1", 1000)  # written first ...
    _age("t", "k2", 2000)
    built = []
    tablecache.load_or_build("t", "k1", NAMES, lambda: built.append(1) or _arrays())  # ... but read last
    assert built == []
    tablecache.load_or_build("t", "k3", NAMES, _arrays)
    kept = {e.path.name for e in tablecache.entries(cache)}
    assert kept == {tablecache.entry_path("t", k).name for k in ("k1", "k3")}  # type: ignore[union-attr]
    assert sum(e.size for e in tablecache.entries(cache)) <= 2 * size + size // 2
    for key in ("k1", "k3"):
        path = tablecache.entry_path("t", key)
        assert path is not None and tablecache._read(path, f"t\n{key}".encode(), NAMES) is not None
    assert (cache / "notes.txt").read_text() == "not an entry"
    assert not list(cache.glob("*.tmp*"))


def test_entry_larger_than_the_limit_is_not_written(cache, monkeypatch):
    size = _entry_size(cache)
    monkeypatch.setenv("SHELFIE_SOLVE_CACHE_MAX", str(size - 1))
    out = tablecache.load_or_build("t", "k1", NAMES, _arrays)
    assert (out["a"] == np.arange(1000)).all()
    assert tablecache.entries(cache) == []
    monkeypatch.setenv("SHELFIE_SOLVE_CACHE_MAX", "0")  # 0: nothing kept, as off
    assert tablecache.load_or_build("t", "k2", NAMES, _arrays)["a"].sum() == 999 * 1000 // 2
    assert list(cache.iterdir()) == []


def test_cache_command_shows_and_clears(cache):
    size = _entry_size(cache)
    for key in ("k1", "k2"):
        tablecache.load_or_build("t", key, NAMES, _arrays)
    (cache / "notes.txt").write_text("kept")
    shown = CliRunner().invoke(main, ["cache", "--format", "json"])
    assert shown.exit_code == 0, shown.output
    data = json.loads(shown.stdout)
    assert data["directory"] == str(cache) and data["entries"] == 2 and data["bytes"] == 2 * size
    assert data["kinds"] == {"t": {"entries": 2, "bytes": 2 * size}} and data["limit_bytes"] == 256 << 20
    table = CliRunner().invoke(main, ["cache"]).stdout
    assert str(cache) in table and "2 entries" in table
    cleared = CliRunner().invoke(main, ["cache", "--clear", "--format", "json"])
    assert json.loads(cleared.stdout)["removed"] == {"entries": 2, "bytes": 2 * size}
    assert [p.name for p in cache.iterdir()] == ["notes.txt"]
    assert CliRunner().invoke(main, ["cache", "--format", "csv"]).stdout == "kind,entries,bytes\n"


def test_cache_command_when_off(monkeypatch):
    monkeypatch.setenv("SHELFIE_SOLVE_CACHE", "off")
    result = CliRunner().invoke(main, ["cache", "--clear", "--format", "json"])
    assert result.exit_code == 0 and json.loads(result.stdout)["enabled"] is False
    assert "off" in CliRunner().invoke(main, ["cache"]).stdout


def test_cache_setting_naming_a_file_is_one_line_exit_2(tmp_path, monkeypatch):
    """SHELFIE_SOLVE_CACHE naming an existing regular file was taken silently (the cache then
    neither read nor written, ``cache`` listing a file as its folder): every command that uses
    the cache refuses it in one line naming the setting and the expected form, exit 2; the file
    is untouched."""
    blocker = tmp_path / "notes.txt"
    blocker.write_text("not a folder")
    monkeypatch.setenv("SHELFIE_SOLVE_CACHE", str(blocker))
    monkeypatch.delenv("SHELFIE_SOLVE_CACHE_MAX", raising=False)
    with pytest.raises(tablecache.CacheSettingError, match="SHELFIE_SOLVE_CACHE="):
        tablecache.load_or_build("t", "k", NAMES, _arrays)
    for args in (["cache"], ["cache", "--clear", "--format", "json"]):
        result = CliRunner().invoke(main, args)
        line = assert_one_line_error(result, f"SHELFIE_SOLVE_CACHE={str(blocker)!r}", "not a folder", "off")
        assert "Traceback" not in line
    assert blocker.read_text() == "not a folder"


@pytest.mark.parametrize("size, text", [
    (0, "0 B"), (1023, "1023 B"), (1024, "1.0 KiB"), (16 * 1024, "16.0 KiB"),
    (1048474, "1023.9 KiB"),  # 1023.900... KiB
    ((1 << 20) - 1, "1.0 MiB"),  # 1023.999 KiB would round to 1024.0: told in MiB
    (int(2.6 * (1 << 20)), "2.6 MiB"), (256 << 20, "256.0 MiB"), (3 << 30, "3.0 GiB"),
])
def test_sizes_are_told_in_a_unit_that_fits(size, text):
    from shelfie_solver.core.report import binary_size

    assert binary_size(size) == text


def test_cache_command_shows_a_small_entry_in_kib(cache):
    """One entry of 2000 int64 (16,000 bytes of data plus a header): between 15.6 and 20 KiB,
    shown in KiB, not as 0.0 MiB; the bound (256 MiB by default) stays in MiB."""
    tablecache.load_or_build("t", "k1", NAMES, lambda: {"a": np.arange(2000, dtype=np.int64)})
    size = sum(e.size for e in tablecache.entries(cache))
    assert 16000 <= size < 20 * 1024
    table = CliRunner().invoke(main, ["cache"]).stdout
    assert "0.0 MiB" not in table and "of at most 256.0 MiB" in table
    row = next(line for line in table.splitlines() if line.startswith("t "))
    value, unit = row.split()[-2:]
    assert unit == "KiB" and abs(float(value) - size / 1024) <= 0.05


def test_cache_setting_under_a_file_is_one_line_exit_2(tmp_path, monkeypatch):
    """SHELFIE_SOLVE_CACHE naming a path under a regular file (notes.txt/cache) was taken silently:
    the folder can never be made there, so nothing was ever kept. It is refused in one line naming
    the setting and the file in the way, exit 2; a folder that does not exist yet under a folder
    is still taken (made on the first write)."""
    blocker = tmp_path / "notes.txt"
    blocker.write_text("not a folder")
    monkeypatch.delenv("SHELFIE_SOLVE_CACHE_MAX", raising=False)
    monkeypatch.setenv("SHELFIE_SOLVE_CACHE", str(blocker / "cache" / "deeper"))
    result = CliRunner().invoke(main, ["cache"])
    assert_one_line_error(result, f"SHELFIE_SOLVE_CACHE={str(blocker / 'cache' / 'deeper')!r}",
                          f"{str(blocker)!r} is a file", "off")
    assert blocker.read_text() == "not a folder"
    fresh = tmp_path / "new" / "cache"
    monkeypatch.setenv("SHELFIE_SOLVE_CACHE", str(fresh))
    result = CliRunner().invoke(main, ["cache", "--format", "json"])
    assert result.exit_code == 0 and json.loads(result.stdout)["directory"] == str(fresh)


def test_cache_command_shows_the_compiled_kernels_folder_and_clear_leaves_it(cache, tmp_path, monkeypatch):
    """The compiled kernels' folder (NUMBA_CACHE_DIR, core/compiled.py) is shown with its files'
    count and size (here one file of 5 bytes and one of 7 in a subfolder) and --clear keeps it."""
    kernels = tmp_path / "kernels"
    (kernels / "sub").mkdir(parents=True)
    (kernels / "a.nbi").write_bytes(b"12345")
    (kernels / "sub" / "b.nbc").write_bytes(b"1234567")
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(kernels))
    shown = CliRunner().invoke(main, ["cache", "--clear", "--format", "json"])
    assert shown.exit_code == 0, shown.output
    assert json.loads(shown.stdout)["compiled"] == {"directory": str(kernels), "files": 2, "bytes": 12}
    assert (kernels / "sub" / "b.nbc").read_bytes() == b"1234567"
    text = CliRunner().invoke(main, ["cache"]).stdout
    assert f"Compiled kernels ([fast] extra): {kernels}, 2 files, 12 B" in text


def test_the_compiled_kernels_folder_defaults_to_the_user_cache_folder(tmp_path, monkeypatch):
    """Without NUMBA_CACHE_DIR it is the ``numba`` folder of the user cache folder, whatever
    SHELFIE_SOLVE_CACHE says (docs/cache.md)."""
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("SHELFIE_SOLVE_CACHE", "off")
    data = json.loads(CliRunner().invoke(main, ["cache", "--format", "json"]).stdout)
    if sys.platform == "linux":
        assert data["compiled"] == {"directory": str(tmp_path / "xdg" / "shelfie-solve" / "numba"), "files": 0, "bytes": 0}
