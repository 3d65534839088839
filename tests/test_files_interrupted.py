"""A file written whole or not at all leaves no temporary file behind, whenever a signal arrives
(core/files.py ``_write_temp``: the temporary file's path is known to its caller before the file
exists): Ctrl-C (KeyboardInterrupt) or the SIGTERM handler of ``play`` raised right after the
temporary file is created, while it is written, or before it is moved into place."""

from __future__ import annotations

import builtins
from pathlib import Path
from typing import Any

import pytest

from shelfie_solver.core import files
from shelfie_solver.core.files import FileWriteError, check_writable, create_text, replace_all


def _interrupt_right_after_open(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the module's ``open`` create the file, then raise KeyboardInterrupt as a signal
    handled at the next bytecode would (before ``_write_temp`` could return the path)."""
    real_open = builtins.open

    def open_then_interrupt(path: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        real_open(path, mode, *args, **kwargs).close()
        raise KeyboardInterrupt

    monkeypatch.setattr(files, "open", open_then_interrupt, raising=False)


def _leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".tmp"))


@pytest.mark.parametrize("write", [
    lambda d: replace_all({d / "a.json": b"{}", d / "b.json": b"[]"}),
    lambda d: create_text(d / "new.txt", "x"),
    lambda d: check_writable(d / "c.json"),
])
def test_a_signal_right_after_the_temporary_file_is_created_leaves_nothing(tmp_path: Path, monkeypatch, write):
    _interrupt_right_after_open(monkeypatch)
    with pytest.raises(KeyboardInterrupt):
        write(tmp_path)
    assert _leftovers(tmp_path) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_a_signal_between_two_files_leaves_neither_temporary_file(tmp_path: Path, monkeypatch):
    """The second temporary file's creation is interrupted after the first was written whole:
    both are removed and neither target is written."""
    real_open = builtins.open
    opened: list[str] = []

    def second_open_interrupted(path: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        handle = real_open(path, mode, *args, **kwargs)
        opened.append(str(path))
        if len(opened) == 2:
            handle.close()
            raise KeyboardInterrupt
        return handle

    monkeypatch.setattr(files, "open", second_open_interrupted, raising=False)
    with pytest.raises(KeyboardInterrupt):
        replace_all({tmp_path / "a.json": b"{}", tmp_path / "b.json": b"[]"})
    assert len(opened) == 2
    assert list(tmp_path.iterdir()) == []


def test_a_temporary_name_that_exists_is_not_ours_to_remove(tmp_path: Path, monkeypatch):
    """The creation fails because the name is taken (``open(..., "xb")``): that file is someone
    else's and stays, and the write is refused in one message."""
    taken = tmp_path / ".a.json.taken.tmp"
    taken.write_bytes(b"another process's")
    monkeypatch.setattr(files, "_temp_name", lambda final: taken)
    with pytest.raises(FileWriteError, match="cannot write"):
        replace_all({tmp_path / "a.json": b"{}"})
    assert taken.read_bytes() == b"another process's"
    assert not (tmp_path / "a.json").exists()
