"""A cheat sheet's files: computed, rendered and written whole or not at all (docs/cheatsheet.md).

:func:`generate` builds a sheet (:func:`~shelfie_solver.dice.cheatsheet.compute.build_sheet`) and
renders it in the requested formats plus the heatmap (:func:`sheet_files`); :func:`write_files`
writes the files into a directory atomically (``core.files.replace_all``), after
:func:`check_output_dir` has checked the directory. Every failure is an :class:`OutputError`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from shelfie_solver.core.errors import ShelfieError
from shelfie_solver.core.files import FileKind, FileWriteError, check_overwrite, magic_kind, replace_checked
from shelfie_solver.dice.board import Board, Marks
from shelfie_solver.dice.cheatsheet.compute import CheatSheet, Progress, build_sheet, sheet_steps
from shelfie_solver.dice.cheatsheet.formats import render_csv, render_html, render_markdown
from shelfie_solver.dice.cheatsheet.heatmap import HEATMAP_NAME, render_heatmap
from shelfie_solver.dice.rules import Ruleset

#: Output formats of :func:`sheet_files`.
SHEET_FORMATS = ("markdown", "html", "csv")
#: File name of each format's sheet (the heatmap, written with every format, is HEATMAP_NAME).
SHEET_NAMES = {"markdown": "cheatsheet.md", "html": "cheatsheet.html", "csv": "cheatsheet.csv"}
#: Each file of a sheet, as recognised by its first bytes before it is replaced
#: (:func:`files.check_overwrite`): a sheet or heatmap written before.
SHEET_KINDS: dict[str, FileKind] = {
    "cheatsheet.md": magic_kind("a Markdown cheat sheet", b"# Cheat sheet: "),
    "cheatsheet.html": magic_kind("an HTML cheat sheet", b'<!DOCTYPE html>\n<html lang="en">\n<head>\n'
                                  b'<meta charset="utf-8">\n<title>Cheat sheet: '),
    "cheatsheet.csv": magic_kind("a CSV cheat sheet", b"section,subject,condition,quantity,exact,decimal\n"),
    HEATMAP_NAME: magic_kind("a PNG heatmap", b"\x89PNG\r\n\x1a\n"),
}


def check_sheet_file(path: str | os.PathLike[str], force: bool = False) -> None:
    """Refuse a sheet's file ``path`` that holds something other than a sheet file of its name
    (:data:`SHEET_KINDS`) unless ``force`` (:func:`files.check_overwrite`).

    Raises:
        OutputError: one line naming the file.
    """
    try:
        check_overwrite(path, SHEET_KINDS[Path(path).name], force)
    except FileWriteError as error:
        raise OutputError(f"--output: {error}") from None


class OutputError(ShelfieError):
    """The output directory cannot hold the sheet (a file, unwritable, or a write failed)."""


_RENDERERS: dict[str, Callable[[CheatSheet], str]] = {
    "markdown": lambda sheet: render_markdown(sheet),
    "html": lambda sheet: render_html(sheet),
    "csv": render_csv,
}


def sheet_files(sheet: CheatSheet, formats: tuple[str, ...] = ("markdown",)) -> dict[str, bytes]:
    """File name -> content for each of ``formats`` (``markdown``, ``html``, ``csv``; see
    :data:`SHEET_NAMES`), plus the PNG heatmap :data:`HEATMAP_NAME`, which comes with every format.

    Raises:
        OutputError: an unknown format.
    """
    for fmt in formats:
        if fmt not in _RENDERERS:
            raise OutputError(f"unknown cheat sheet format {fmt!r}; expected one of {', '.join(SHEET_FORMATS)}")
    files = {SHEET_NAMES[fmt]: _RENDERERS[fmt](sheet).encode("utf-8") for fmt in formats}
    files[HEATMAP_NAME] = render_heatmap(sheet)
    return files


def generate(board: Board, marks: Marks, rules: Ruleset, formats: tuple[str, ...] = ("markdown",),
             progress: Progress | None = None) -> dict[str, bytes]:
    """Compute a sheet and render it in ``formats`` (:func:`sheet_files`); nothing is written.

    ``progress(done, total)`` counts the steps of :func:`build_sheet`, then the rendering.

    Raises:
        MarksError: the marks do not fit the board. OutputError: an unknown format.
    """
    total = sheet_steps(board, marks, rules) + 1
    relay = (lambda done, _: progress(done, total)) if progress else None
    files = sheet_files(build_sheet(board, marks, rules, relay), formats)
    if progress:
        progress(total, total)
    return files


def check_output_dir(path: str | os.PathLike[str]) -> Path:
    """Check that ``path`` is, or can become, a writable directory; return it as a Path.

    Raises:
        OutputError: it is empty, a file, sits under a file, is not writable, or the operating
            system refuses to look at it (e.g. a name too long).
    """
    if not os.fspath(path):
        raise OutputError("--output is empty; expected a directory path (it is created if missing)")
    target = Path(path)
    try:
        if target.exists() and not target.is_dir():
            raise OutputError(f"--output {path} is a file; expected a directory (it is created if missing)")
        existing = target
        while not existing.exists():
            if existing.parent == existing:
                break
            existing = existing.parent
        if not existing.is_dir():
            raise OutputError(f"--output {path}: {existing} is a file, not a directory; expected a directory path")
        if not os.access(existing, os.W_OK | os.X_OK):
            raise OutputError(f"--output {path}: directory {existing} is not writable; choose a writable directory")
    except OSError as error:
        raise OutputError(f"--output {path}: {error.strerror or error}; expected a writable directory path") from None
    return target


def write_files(files: dict[str, bytes], out_dir: str | os.PathLike[str], force: bool = False) -> list[Path]:
    """Write every file into ``out_dir`` (created if missing) whole or not at all, none over a
    file of another kind (:data:`SHEET_KINDS`) unless ``force``.

    Each file goes to a temporary file in ``out_dir`` first; only when every temporary file is
    written are they moved into place with ``os.replace`` (:func:`files.replace_all`). On failure
    the temporary files, and any directory this call created, are removed and nothing else
    changes.

    Returns:
        The paths written, in ``files`` order.
    Raises:
        OutputError: ``out_dir`` is a file or unwritable, a target name is a directory (or another
            non-regular file) or holds another kind of file, or a write failed (one line, naming
            the path).
    """
    target = check_output_dir(out_dir)
    created = [p for p in [target, *target.parents] if not p.exists()]
    try:
        target.mkdir(parents=True, exist_ok=True)
        replace_checked({target / name: (data, SHEET_KINDS.get(name, ())) for name, data in files.items()}, force)
    except (OSError, FileWriteError) as error:
        for directory in created:  # deepest first
            try:
                directory.rmdir()
            except OSError:
                pass
        if isinstance(error, FileWriteError):  # names the file and the reason
            raise OutputError(f"--output {out_dir}: {error}") from None
        reason = error.strerror or str(error)
        raise OutputError(f"cannot write the cheat sheet to --output {out_dir}: {reason}") from None
    return [target / name for name in files]
