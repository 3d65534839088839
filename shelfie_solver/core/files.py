"""Writing files whole or not at all: one implementation for saved games and cheat sheets.

Every file is first written to a temporary file in the directory of its target and then moved
into place with ``os.replace``, so a reader sees the old file or the new one, never a part.
The rules, shared by :func:`replace_all`, :func:`write_text_atomically` and :func:`check_writable`:

* the target must be a regular file or not exist: a directory, FIFO, device (``/dev/full``) or
  socket is refused, since replacing it would destroy it (or could not work);
* a symbolic link is followed (``os.path.realpath``) only to an existing file inside the folder
  that holds the link (the folder the user named, links in its own path followed): that file is
  replaced and the link stays a link. A link that dangles, or points outside that folder, is
  refused, so output never lands anywhere but where the user pointed it (docs/formats.md, "Limits");
* a new file gets the permissions ``open()`` would give it (``0o666`` less the umask), a replaced
  file keeps its own, never ``mkstemp``'s ``0o600``;
* on any failure (or interruption) the temporary files are removed and no target is left half
  written.

:func:`locked` is the one lock of a read-change-write of such a file (the game file of ``play``
and ``serve``, the tile position file of ``serve --tile``): the ``filelock`` package's
operating-system lock, so it works on Windows as on POSIX.
"""

from __future__ import annotations

import errno
import hashlib
import json
import re
import os
import secrets
import stat
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from shelfie_solver.core.errors import ShelfieError

#: Kinds of non-regular files, by ``stat`` test, as named in error messages.
_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


class FileWriteError(ShelfieError):
    """A file cannot be written: an empty path, a target that is not a regular file, or an
    operating-system error (the message names the path and the reason, on one line)."""


def _reason(error: OSError) -> str:
    return error.strerror or str(error)


def resolve_target(path: str | os.PathLike[str]) -> Path:
    """The file a write to ``path`` replaces: ``path`` with symbolic links followed.

    Raises:
        FileWriteError: ``path`` is empty, names an existing file that is not a regular file
            (a directory, FIFO, device or socket), or is a symbolic link that dangles or points
            outside its folder.
    """
    text = os.fspath(path)
    if not text:
        raise FileWriteError("the file name is empty; expected a file path")
    real = Path(os.path.realpath(text))
    if os.path.islink(text):
        _check_link(text, real)
    try:
        mode = real.stat().st_mode
    except FileNotFoundError:
        return real
    except OSError as error:
        raise FileWriteError(f"cannot write {text}: {_reason(error)}") from None
    if not stat.S_ISREG(mode):
        kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
        raise FileWriteError(f"cannot write {text}: it is {kind}; expected a regular file path")
    return real


def link_leaves_folder(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a symbolic link that dangles or leads outside the folder holding it:
    one a write refuses (:func:`resolve_target`), and one a server must not read either, so that
    nothing of another file (its bytes, its digest) reaches an answer (docs/serve.md)."""
    text = os.fspath(path)
    if not os.path.islink(text):
        return False
    try:
        _check_link(text, Path(os.path.realpath(text)))
    except FileWriteError:
        return True
    return False


def _check_link(text: str, real: Path) -> None:
    """Refuse a symbolic link ``text`` (resolving to ``real``) that dangles or leads outside the
    folder holding it (module docstring)."""
    folder = Path(os.path.realpath(os.path.dirname(os.path.abspath(text))))
    if not real.exists():
        raise FileWriteError(f"cannot write {text}: it is a symbolic link to a missing file ({real}); "
                             "remove the link or name another file")
    if folder != real.parent and folder not in real.parents:
        raise FileWriteError(f"cannot write {text}: it is a symbolic link to {real}, outside {folder}; "
                             "remove the link or name another file")


def _temp_name(final: Path) -> Path:
    """A fresh hidden name beside ``final`` (its name shortened, so a long name still fits)."""
    return final.with_name(f".{final.name[:40]}.{secrets.token_hex(4)}.tmp")


#: A file's content: bytes, or parts written one after the other (a large array's memoryview is
#: written without a copy).
Content = bytes | memoryview | tuple[bytes | memoryview, ...]


def _write_temp(final: Path, data: Content, made: list[Path]) -> Path:
    """Write ``data`` to a new temporary file beside ``final``; return its path. The file is
    created with ``open(..., "xb")`` (``0o666`` less the umask), then given ``final``'s mode
    when ``final`` exists. Its path is appended to ``made`` before the file is created (and taken
    out again if the creation fails: a name that exists is not ours), so a caller that removes
    every path in ``made`` on any exception leaves no temporary file behind, even for a signal
    (Ctrl-C, or the SIGTERM handler of ``play``) that arrives between the file's creation and this
    function's return."""
    temp = _temp_name(final)
    made.append(temp)
    try:
        handle = open(temp, "xb")  # noqa: SIM115 - the with below closes it
    except OSError:
        made.remove(temp)
        raise
    with handle:  # closing flushes, and may fail too (a full disk)
        for part in data if isinstance(data, tuple) else (data,):
            handle.write(part)
        try:
            mode = final.stat().st_mode
        except FileNotFoundError:
            pass
        else:
            os.chmod(temp, stat.S_IMODE(mode))
    return temp


def _remove(temp: Path) -> None:
    """Remove a temporary file if it is there; a failure here must not hide the first one."""
    try:
        temp.unlink(missing_ok=True)
    except OSError:
        pass


def replace_all(files: Mapping[str | os.PathLike[str], Content]) -> list[Path]:
    """Write each ``{path: data}`` whole (data: :data:`Content`): every target is checked, then every temporary file is
    written, and only then are they all moved into place (module docstring rules). ``os.replace``
    moves one file at a time, so should a later move fail after an earlier one succeeded, the
    earlier file is already new; nothing is ever left half written.

    Returns:
        The files written (symbolic links followed), in ``files`` order.
    Raises:
        FileWriteError: a path is empty or not a regular file, or writing failed (the message
            names the path and the reason); no temporary file is left behind.
    """
    names = [os.fspath(path) for path in files]
    finals = [resolve_target(name) for name in names]
    temps: list[Path] = []
    current = ""
    try:
        for current, final, data in zip(names, finals, files.values()):
            _write_temp(final, data, temps)
        for current, final, temp in zip(names, finals, temps):
            os.replace(temp, final)
    except BaseException as error:
        for temp in temps:
            _remove(temp)
        if isinstance(error, OSError):
            raise FileWriteError(f"cannot write {current}: {_reason(error)}") from None
        raise
    return finals


def write_text_atomically(path: str | os.PathLike[str], text: str, encoding: str = "utf-8") -> Path:
    """Write ``text`` to ``path`` whole or not at all (:func:`replace_all` of one file).

    Returns:
        The file written (a symbolic link followed).
    Raises:
        FileWriteError: as :func:`replace_all`.
    """
    return replace_all({path: text.encode(encoding)})[0]


def check_writable(path: str | os.PathLike[str]) -> Path:
    """Check, before any long work, that ``path`` can be written: it passes :func:`resolve_target`
    and a temporary file can really be created (then deleted) beside it, which ``os.access``
    cannot tell for e.g. ``/proc`` or a read-only file system.

    Returns:
        The file a write would replace (a symbolic link followed).
    Raises:
        FileWriteError: the path is empty or not a regular file, or no file can be created in
            its directory (the message names the directory and the reason).
    """
    final = resolve_target(path)
    made: list[Path] = []
    try:
        _write_temp(final, b"", made)
    except OSError as error:
        raise FileWriteError(f"cannot write {os.fspath(path)}: cannot create a file in {final.parent} "
                             f"({_reason(error)})") from None
    finally:
        for temp in made:
            _remove(temp)
    return final


def create_text(path: str | os.PathLike[str], text: str, encoding: str = "utf-8") -> Path:
    """Write ``text`` to a new file ``path``, whole or not at all, never replacing a file: the
    temporary file is hard-linked to ``path`` (``os.link`` fails if anything is there, even a
    file created a moment ago by another process), then removed.

    Returns:
        The file written.
    Raises:
        FileWriteError: ``path`` is empty or exists (also as a dangling link), or writing failed.
    """
    text_path = os.fspath(path)
    if not text_path:
        raise FileWriteError("the file name is empty; expected a file path")
    final = Path(os.path.abspath(text_path))
    made: list[Path] = []
    try:
        try:
            temp = _write_temp(final, text.encode(encoding), made)
        except OSError as error:
            raise FileWriteError(f"cannot write {text_path}: {_reason(error)}") from None
        try:
            os.link(temp, final)
        except FileExistsError:
            raise FileWriteError(f"{text_path} exists already; choose a new file name") from None
        except OSError as error:
            raise FileWriteError(f"cannot write {text_path}: {_reason(error)}") from None
    finally:
        for made_temp in made:
            _remove(made_temp)
    return final


def lock_file_path(final: Path) -> Path:
    """The hidden lock file :func:`locked` uses for the file ``final``: ``.NAME.lock`` beside it
    (a long name shortened, with a hash of the whole name, so it still fits the file system)."""
    name = final.name
    if len(name) > 200:
        name = f"{name[:40]}.{hashlib.sha256(name.encode('utf-8', 'surrogatepass')).hexdigest()[:16]}"
    return final.with_name(f".{name}.lock")


@contextmanager
def locked(path: str | os.PathLike[str], error: type[ValueError] = FileWriteError) -> Iterator[Path]:
    """Hold an exclusive lock on the file ``path`` names (symbolic links followed:
    :func:`resolve_target`) while inside, against other processes and other threads alike, so
    that two read-change-writes of the file never interleave. The file need not exist yet.

    The lock is the ``filelock`` package's operating-system lock (``flock`` on POSIX,
    ``LockFileEx`` on Windows: :func:`filelock.lock_descriptor`), taken on a hidden lock file
    beside the target (:func:`lock_file_path`), not on the target itself: writers replace the
    target (:func:`write_text_atomically`), and Windows can neither replace an open file nor
    read a locked one through a second handle. After the lock is taken, the lock file is checked
    to be still the one at its path; if it was removed or replaced meanwhile, the lock is taken
    again on the new one. On leaving, the holder removes the lock file while still holding it
    (waiters then lock again), so none is left behind on POSIX; on Windows an open file cannot be
    removed and it stays, empty.

    Yields:
        The target (symbolic links followed).
    Raises:
        error (a :class:`~errors.ShelfieError` subclass, :class:`FileWriteError` by default): the
            path is refused by :func:`resolve_target`, or the lock file cannot be created or locked
            (one line naming the path and the reason).
    """
    try:
        final = resolve_target(path)
    except FileWriteError as refused:
        raise error(str(refused)) from None
    from filelock import lock_descriptor  # imported here: only the commands that write a kept file lock one

    text = os.fspath(path)
    lock_path = lock_file_path(final)
    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    while True:
        try:
            fd = os.open(lock_path, flags, 0o666)
        except OSError as failed:
            raise error(f"cannot lock {text}: cannot create the lock file {lock_path.name} in {final.parent} "
                        f"({_reason(failed)})") from None
        try:
            opened = os.fstat(fd)
            if not stat.S_ISREG(opened.st_mode):
                raise error(f"cannot lock {text}: {lock_path} is not a regular file; remove it")
            try:
                lock_descriptor(fd)
            except OSError as failed:
                if failed.errno != errno.ENOSYS:
                    raise error(f"cannot lock {text}: {_reason(failed)}") from None
                os.close(fd)
                fd = -1
                _remove(lock_path)
                yield from _soft_locked(final, lock_path, text, error)
                return
            try:
                same = os.path.samestat(opened, os.lstat(lock_path))
            except FileNotFoundError:
                same = False
            if same:
                try:
                    yield final
                finally:
                    _remove(lock_path)  # while still held; fails on Windows (the file is open): it stays
                return
        finally:
            if fd >= 0:
                os.close(fd)  # releases the lock


def _soft_locked(final: Path, lock_path: Path, text: str, error: type[ValueError]) -> Iterator[Path]:
    """:func:`locked` where the system has no lock for the file (``flock`` missing: ENOSYS, as on
    some network file systems): ``filelock``'s soft lock, a marker file made exclusively
    (``.NAME.lock.soft``) and removed on leaving."""
    from filelock import SoftFileLock

    try:
        soft = SoftFileLock(f"{lock_path}.soft")
        soft.acquire()
    except OSError as failed:
        raise error(f"cannot lock {text}: {_reason(failed)}") from None
    try:
        yield final
    finally:
        soft.release()


# --- Never replacing a file of another kind (docs/formats.md, "Limits": --force) ---------------

#: Bytes read from the start of an existing file to recognise its kind (:func:`check_overwrite`).
_SNIFF_BYTES = 4096
_FORMAT_KEY = re.compile(rb'\A(?:\xef\xbb\xbf)?\s*\{\s*"format"\s*:\s*"((?:[^"\\\n]|\\.){0,200})"')


@dataclass(frozen=True)
class FileKind:
    """A kind of file a command writes, as recognised from its first bytes (:func:`check_overwrite`);
    made by :func:`json_kind` or :func:`magic_kind`.

    Attributes:
        name: what it is, for messages ("a binary value table header").
        patterns: byte patterns, any one of which matching at the start marks the kind.
    """

    name: str
    patterns: tuple[re.Pattern[bytes], ...]

    def matches(self, head: bytes) -> bool:
        """Whether a file starting with ``head`` (its first bytes) is of this kind."""
        return any(pattern.match(head) for pattern in self.patterns)


def json_kind(name: str, format_key: str | None, next_key: str | None = None,
              first_key: str | None = None) -> FileKind:
    """The kind of our JSON files (and JSON Lines files, by their first line): an object whose
    first key is ``"format"`` with the value ``format_key``, followed by the key ``next_key``
    when given (a JSON Lines game of ``simulate --save`` has ``"game"`` next, a saved game does
    not); without a format key, an object whose first key is ``first_key`` (the train checkpoint).
    """
    def key(text: str) -> bytes:
        return rb'\s*' + re.escape(json.dumps(text).encode()) + rb'\s*:\s*'

    if format_key is not None:
        body = key("format") + re.escape(json.dumps(format_key).encode())
        if next_key is not None:
            body += rb'\s*,' + key(next_key)
    else:
        assert first_key is not None, "a JSON kind needs a format key or a first key"
        body = key(first_key)
    return FileKind(name, (re.compile(rb'\A(?:\xef\xbb\xbf)?\s*\{' + body),))


def magic_kind(name: str, *prefixes: bytes) -> FileKind:
    """The kind of binary files starting with one of ``prefixes`` (``b"\\x93NUMPY"``, ``b"\\x89PNG"``)."""
    return FileKind(name, tuple(re.compile(rb'\A' + re.escape(prefix)) for prefix in prefixes))


#: A ``.npy`` array (binary value tables, float checkpoints, cache entries).
NPY_KIND = magic_kind("a .npy array", b"\x93NUMPY")


def _describe(head: bytes) -> str:
    """What an existing file of another kind seems to hold, for the refusal's message."""
    found = _FORMAT_KEY.match(head)
    if found is not None:
        return f'it holds "format": "{found.group(1).decode("utf-8", "replace")[:60]}"'
    return "it holds something else"


def check_overwrite(path: str | os.PathLike[str], kinds: FileKind | tuple[FileKind, ...], force: bool = False,
                    option: str = "--force") -> None:
    """Refuse to replace an existing file that is not of one of ``kinds``: a writer replaces only
    what it wrote itself (recognised by :meth:`FileKind.matches` on the first
    :data:`_SNIFF_BYTES` bytes), a missing or empty file, or anything when ``force`` is true. A
    symbolic link is followed; a target that is not a regular file is left to
    :func:`resolve_target` (refused there). Call it before the work and again just before writing.

    Raises:
        FileWriteError: the file holds another kind (one line naming the path, what it holds, what
            would be written and ``option``); nothing is written.
    """
    if force:
        return
    text = os.fspath(path)
    wanted = kinds if isinstance(kinds, tuple) else (kinds,)
    try:
        real = os.path.realpath(text)
        if not stat.S_ISREG(os.stat(real).st_mode):
            return
        with open(real, "rb") as handle:
            head = handle.read(_SNIFF_BYTES)
    except OSError:
        return  # missing or unreadable: nothing of ours to lose by looking; the write says why it fails
    if not head or any(kind.matches(head) for kind in wanted):
        return
    what = f"{wanted[0].name} (what this command writes there)" if wanted else "a file this command wrote"
    raise FileWriteError(f"cannot write {text}: {_describe(head)}, not {what}; nothing written. Name another "
                         f"file, or pass {option} to replace it")


def replace_checked(files: Mapping[str | os.PathLike[str], tuple[Content, FileKind | tuple[FileKind, ...]]],
                    force: bool = False) -> list[Path]:
    """:func:`replace_all` of ``{path: (data, kinds)}``, each target first checked by
    :func:`check_overwrite` (all of them before anything is written).

    Raises:
        FileWriteError: as :func:`check_overwrite` and :func:`replace_all`.
    """
    for path, (_, kinds) in files.items():
        resolve_target(path)  # a directory, device or link out is refused as such first
        check_overwrite(path, kinds, force)
    return replace_all({path: data for path, (data, _) in files.items()})
