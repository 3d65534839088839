"""A disk cache of the tables built once per ruleset and board (docs/cache.md), read at
start-up (docs/performance.md).

The dice space's re-roll transitions and sub-holds (:class:`rolls.DiceSpace`), the board's item
sets (:func:`board.item_sets`) and the allocator's feasibility arrays
(:func:`allocate.feasibility_arrays`) cost more to build than a whole solve.
They depend only on the ruleset and the board, so :func:`load_or_build` keeps them in the user's
cache directory (``platformdirs.user_cache_dir("shelfie-solve")``: on Linux
``$XDG_CACHE_HOME/shelfie-solve`` or ``~/.cache/shelfie-solve``; or ``$SHELFIE_SOLVE_CACHE``;
``SHELFIE_SOLVE_CACHE=off`` disables it), one ``.npy`` file per key, at most
``$SHELFIE_SOLVE_CACHE_MAX`` in all (:func:`cache_limit`, default 256 MiB):

* the file name is a hash of the kind and the key (the ``repr`` of the frozen ruleset / board
  dataclasses, which names every field); the entry stores the full key and
  :data:`CACHE_VERSION` and is used only when both match, so a changed ruleset or board, or a new
  table layout, never reads an old entry;
* each entry stores a CRC-32 of its data; an entry that cannot be read, has the wrong layout or
  fails its check is rebuilt and replaced; so is one whose arrays are not those its kind declares
  (:data:`Layout`: the arrays' number, and each one's dimensions, exact or shared among the
  entry's arrays) or fail the kind's own check of their values (``check``: the indices into
  other arrays in range, :func:`row_starts_fit`, :func:`all_within`), whatever its CRC says (a
  forged entry), so a reader never meets an array of another shape or indexes past one;
* entries are written whole (:func:`files.replace_all`: a temporary file, then ``os.replace``),
  so concurrent writers (``simulate --jobs``) each replace the file with a complete, equal entry;
* any failure to read or write the cache falls back to building in memory: the cache only
  ever saves time, never changes a result;
* an entry read is touched (its modification time set to now), and after each write the least
  recently used entries are removed, whole files only, until the entries fit the limit
  (:func:`evict`); an entry larger than the limit is not written. Only files named as entries
  are counted or removed, so a cache folder shared with other files loses none of them; a file
  by an entry's name that is not a ``.npy`` array is never replaced (:func:`files.check_overwrite`).

An entry is one ``.npy`` int64 array (no zip, no pickle): ``[version, key length, CRC-32,
array count, (ndim, *shape) per array, key bytes, data]``.
"""

from __future__ import annotations

import io
import math
import os
import re
import sys
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from shelfie_solver.core.errors import ShelfieError, shorten

#: Bump when a cached table's layout or meaning changes.
CACHE_VERSION = 1

class CacheSettingError(ShelfieError):
    """``SHELFIE_SOLVE_CACHE_MAX`` is not a size (:func:`cache_limit`), or ``SHELFIE_SOLVE_CACHE``
    names something that exists and is not a folder (:func:`cache_dir`)."""


#: Default bound on the entries' total size, in bytes (``SHELFIE_SOLVE_CACHE_MAX`` overrides it).
DEFAULT_LIMIT = 256 << 20

_SIZE = re.compile(r"([0-9]{1,15})\s*([kmg]?)(?:i?b)?", re.IGNORECASE)  # ASCII digits only
_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}
#: An entry's file name (:func:`entry_path`): ``kind-<hash>.npy``.
_ENTRY_NAME = re.compile(r"[a-z][a-z0-9-]*-[0-9a-f]{17,}\.npy")

#: The int64 arrays of an entry as its kind declares them, in their order in the file: per name,
#: per axis, its exact length (``int``) or a name (``str``) that every axis of that name in the
#: entry shares (e.g. ``{"starts": (462,), "columns": ("nnz",), "weights": ("nnz",)}``). An entry
#: read is used only when its arrays fit it (:func:`fits_layout`); otherwise it is rebuilt.
Layout = Mapping[str, tuple[int | str, ...]]


def cache_limit() -> int:
    """The bound on the cache entries' total size, in bytes: ``$SHELFIE_SOLVE_CACHE_MAX`` as a
    whole number of bytes, or of KiB, MiB or GiB with a ``K``, ``M`` or ``G`` suffix (``256M``,
    ``1G``; case and a trailing ``B``/``iB`` ignored); unset or blank: :data:`DEFAULT_LIMIT`;
    ``0``: nothing is kept (as ``SHELFIE_SOLVE_CACHE=off``).

    Raises:
        CacheSettingError: a value that is not such a size.
    """
    setting = os.environ.get("SHELFIE_SOLVE_CACHE_MAX", "").strip()
    if not setting:
        return DEFAULT_LIMIT
    match = _SIZE.fullmatch(setting)
    if match is None:
        raise CacheSettingError(f"SHELFIE_SOLVE_CACHE_MAX={shorten(setting)} is not a size: expected a whole "
                                "number of bytes, or with K, M or G (KiB, MiB, GiB), e.g. 256M; 0 keeps nothing")
    return int(match.group(1)) * _UNITS[match.group(2).lower()]


def cache_dir() -> Path | None:
    """The cache directory, or ``None`` when caching is off (``SHELFIE_SOLVE_CACHE=off``).

    Raises:
        CacheSettingError: ``SHELFIE_SOLVE_CACHE`` names an existing file (or anything else that
            is not a folder), or a path under one (``notes.txt/cache``: the folder could never be
            made): the cache could never be read or written there (docs/cache.md).
    """
    setting = os.environ.get("SHELFIE_SOLVE_CACHE", "").strip()  # blank: unset (never a folder named ' ')
    if setting.lower() in ("off", "0", "no", "false"):
        return None
    if setting:
        folder = Path(setting)
        # the nearest part of the path that exists: the folder itself, or where it would be made
        found = next((p for p in (folder, *folder.parents) if os.path.lexists(p)), None)
        if found is not None and not found.is_dir():
            under = "" if found == folder else f" ({shorten(str(found), 240)} is a file)"
            raise CacheSettingError(f"SHELFIE_SOLVE_CACHE={shorten(setting, 240)} is not a folder{under}: expected "
                                    "the cache's folder (made when missing) or off (tables built in memory)")
        return folder
    return default_cache_dir()


def default_cache_dir() -> Path:
    """The user's cache folder for shelfie-solve (``platformdirs.user_cache_dir``): where the
    tables live unless ``SHELFIE_SOLVE_CACHE`` says otherwise (:func:`cache_dir`), and where
    numba's compiled kernels live (:func:`core.compiled.numba_cache_folder`)."""
    if sys.platform == "linux":  # the XDG rule platformdirs applies on Linux, without its import (start-up)
        return Path(os.environ.get("XDG_CACHE_HOME", "").strip() or os.path.expanduser("~/.cache")) / "shelfie-solve"
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("shelfie-solve", appauthor=False))


def entry_path(kind: str, key: str) -> Path | None:
    """Where the entry of ``kind`` and ``key`` lives (``None``: caching off)."""
    folder = cache_dir()
    if folder is None:
        return None
    text = f"{kind}\n{key}".encode()
    return folder / f"{kind}-{zlib.crc32(text):08x}{zlib.adler32(text):08x}{len(text):x}.npy"


#: A kind's check of an entry's arrays, once they fit its :data:`Layout` (``False`` or an
#: exception: the entry is rebuilt).
Check = Callable[[dict[str, np.ndarray]], bool]


def load_or_build(kind: str, key: str, layout: Layout, build: Callable[[], dict[str, np.ndarray]],
                  check: Check | None = None) -> dict[str, np.ndarray]:
    """The int64 arrays of ``layout`` of the entry (``kind``, ``key``): read from the cache when
    present, intact, of that layout and passing ``check``, else ``build()``-t and stored (best
    effort; module docstring)."""
    limit = cache_limit()
    path = entry_path(kind, key) if limit else None
    full_key = f"{kind}\n{key}".encode()
    if path is not None:
        found = _read(path, full_key, layout, check)
        if found is not None:
            _touch(path)
            return found
    arrays = build()
    if path is not None and _write(path, full_key, [np.asarray(arrays[name], dtype=np.int64) for name in layout],
                                   limit):
        evict(path.parent, limit)
    return arrays


def read_entry(kind: str, key: str, layout: Layout, check: Check | None = None) -> dict[str, np.ndarray] | None:
    """The int64 arrays of ``layout`` of the entry (``kind``, ``key``) when it is present, intact,
    of that layout and passes ``check`` (touched as used), else ``None``; ``None`` too when
    caching is off. For tables whose build
    wants its own progress and interruption (the solitaire value tables,
    :mod:`dice.wholegame.exact_cache`) rather than :func:`load_or_build`'s inline one."""
    path = entry_path(kind, key) if cache_limit() else None
    if path is None:
        return None
    found = _read(path, f"{kind}\n{key}".encode(), layout, check)
    if found is not None:
        _touch(path)
    return found


def write_entry(kind: str, key: str, arrays: dict[str, np.ndarray]) -> bool:
    """Store the entry (``kind``, ``key``) whole, as :func:`load_or_build` does (int64 arrays, in
    the order given), then evict past the bound; whether it was written (``False``: caching off,
    the entry larger than the bound, or the disk refused it)."""
    limit = cache_limit()
    path = entry_path(kind, key) if limit else None
    if path is None:
        return False
    written = _write(path, f"{kind}\n{key}".encode(),
                     [np.asarray(array, dtype=np.int64) for array in arrays.values()], limit)
    if written:
        evict(path.parent, limit)
    return written


def entry_bytes(kind: str, key: str, shapes: list[tuple[int, ...]]) -> int:
    """The size in bytes of the file :func:`write_entry` writes for an entry (``kind``, ``key``)
    of int64 arrays of ``shapes``: the ``.npy`` header, then one int64 per header field, key byte
    and value (module docstring), so that "kept or not" can be told before the table is built."""
    count = (4 + sum(1 + len(shape) for shape in shapes) + len(f"{kind}\n{key}".encode())
             + sum(math.prod(shape) for shape in shapes))
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(buffer, {"descr": np.lib.format.dtype_to_descr(np.dtype(np.int64)),
                                                  "fortran_order": False, "shape": (count,)})
    return buffer.tell() + 8 * count


@dataclass(frozen=True)
class Entry:
    """One cache entry file: ``path``, ``kind`` (its table: ``space``, ``item-sets``,
    ``feasibility``, ``solitaire-values``), ``size`` in bytes and ``used`` (last read or written, ns since the epoch)."""

    path: Path
    kind: str
    size: int
    used: int


def entries(folder: Path) -> list[Entry]:
    """The entry files (regular files named as :func:`entry_path` names them) in ``folder``,
    least recently used first; ``[]`` when the folder is missing or unreadable."""
    found = []
    try:
        with os.scandir(folder) as listing:
            for item in listing:
                if _ENTRY_NAME.fullmatch(item.name) is None:
                    continue
                try:
                    if not item.is_file(follow_symlinks=False):
                        continue
                    info = item.stat(follow_symlinks=False)
                except OSError:  # removed meanwhile by another process
                    continue
                found.append(Entry(Path(item.path), item.name.rsplit("-", 1)[0], info.st_size, info.st_mtime_ns))
    except OSError:
        return []
    return sorted(found, key=lambda e: (e.used, e.path.name))


def evict(folder: Path, limit: int) -> list[Entry]:
    """Remove whole entry files of ``folder``, least recently used first, until their total size
    is at most ``limit`` bytes (``0``: every entry); the entries removed. Best effort: a file
    another process removed meanwhile counts as removed, one that cannot be removed is skipped."""
    found = entries(folder)
    total, removed = sum(e.size for e in found), []
    for entry in found:
        if total <= limit:
            break
        try:
            entry.path.unlink()
        except FileNotFoundError:
            pass
        except OSError:
            continue
        total -= entry.size
        removed.append(entry)
    return removed


def _touch(path: Path) -> None:
    """Mark an entry as just used (its modification time: what :func:`evict` orders by)."""
    try:
        os.utime(path)
    except OSError:  # a read-only cache is still read
        pass


#: Largest cache entry read (a larger file is not read: the tables are rebuilt).
MAX_ENTRY_BYTES = 1 << 32


def fits_layout(shapes: list[tuple[int, ...]], layout: Layout) -> bool:
    """Whether arrays of ``shapes`` (in order) are those ``layout`` declares: as many, each of its
    number of axes, every length non-negative, equal to the declared one (an ``int``) or to every
    other length of the same name (a ``str``)."""
    if len(shapes) != len(layout):
        return False
    named: dict[str, int] = {}
    for shape, dims in zip(shapes, layout.values()):
        if len(shape) != len(dims):
            return False
        for length, dim in zip(shape, dims):
            if length < 0 or (isinstance(dim, str) and named.setdefault(dim, length) != length) \
                    or (isinstance(dim, int) and length != dim):
                return False
    return True


def row_starts_fit(starts: np.ndarray, length: int) -> bool:
    """Whether ``starts`` (1-D) are the row starts of a compressed-rows array of ``length``
    entries: from 0 (unless there are no rows), non-decreasing, none past ``length``."""
    return not len(starts) or (int(starts[0]) == 0 and bool(np.all(np.diff(starts) >= 0))
                               and int(starts[-1]) <= length)


def all_within(array: np.ndarray, low: int, high: int) -> bool:
    """Whether every value of ``array`` is at least ``low`` and below ``high`` (an index's range)."""
    return not array.size or (int(array.min()) >= low and int(array.max()) < high)


def _read(path: Path, key: bytes, layout: Layout, check: Check | None = None) -> dict[str, np.ndarray] | None:
    from shelfie_solver.core.inputs import open_regular

    try:  # opened non-blocking, a regular file only: a FIFO put in the cache must not hang every command
        with open_regular(path, ValueError, MAX_ENTRY_BYTES, "a cache entry") as handle:
            blob = np.load(handle, allow_pickle=False)
        version, key_length, crc, count = (int(v) for v in blob[:4])
        if version != CACHE_VERSION or count != len(layout) or blob.dtype != np.int64 or blob.ndim != 1:
            return None
        position, shapes = 4, []
        for _ in range(count):
            ndim = int(blob[position])
            shapes.append(tuple(int(v) for v in blob[position + 1:position + 1 + ndim]))
            position += 1 + ndim
        if bytes(blob[position:position + key_length].astype(np.uint8)) != key:
            return None
        data = blob[position + key_length:]
        if zlib.crc32(data.tobytes()) != crc or not fits_layout(shapes, layout) \
                or len(data) != sum(math.prod(shape) for shape in shapes):
            return None  # damaged, or not the arrays its kind declares (forged, or another layout)
    except Exception:  # missing, truncated, not an array: rebuild  # noqa: BLE001
        return None
    arrays, offset = {}, 0
    for name, shape in zip(layout, shapes):
        size = math.prod(shape)
        arrays[name] = data[offset:offset + size].reshape(shape)
        offset += size
    try:
        if check is not None and not check(arrays):
            return None  # values no build gives (forged): rebuilt
    except Exception:  # noqa: BLE001 (a check that fails on such arrays: the same)
        return None
    return arrays


def _write(path: Path, key: bytes, arrays: list[np.ndarray], limit: int = DEFAULT_LIMIT) -> bool:
    """Store an entry whole, unless it is larger than ``limit`` bytes; whether it was written."""
    from shelfie_solver.core.files import NPY_KIND, replace_checked

    data = np.concatenate([a.ravel() for a in arrays]) if arrays else np.zeros(0, dtype=np.int64)
    header = [CACHE_VERSION, len(key), zlib.crc32(data.tobytes()), len(arrays)]
    for a in arrays:
        header += [a.ndim, *a.shape]
    blob = np.concatenate([np.array(header, dtype=np.int64), np.frombuffer(key, dtype=np.uint8).astype(np.int64),
                           data])
    buffer = io.BytesIO()
    np.save(buffer, blob, allow_pickle=False)
    if buffer.tell() > limit:
        return False
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        replace_checked({path: (buffer.getvalue(), NPY_KIND)})  # a file of another kind by that name stays
    except (OSError, ShelfieError):
        return False  # a read-only or full disk, or a foreign file, only costs the rebuild next time
    return True
