"""The one rule telling marks text from a file name (docs/formats.md, D4).

Text made only of ``. o x /`` and white space is always marks text; ``-`` is standard input;
anything else is a path. Checked exhaustively for every pattern of one shelf in every shelf
position (through the loader), on a sample through the CLI, and on random whole sheets.
"""

from __future__ import annotations

import io
import os
import tempfile
from itertools import product

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import assert_one_line_error
from shelfie_solver.dice.board import Marks, is_marks_text, load_marks
from shelfie_solver.cli import main

EMPTY_SHELF = "....."


def _sheet(shelf: int, pattern: str) -> str:
    rows = [EMPTY_SHELF] * 5
    rows[shelf] = pattern
    return "/".join(rows)


def _expected(shelf: int, pattern: str) -> tuple[int, int]:
    """(marked, eliminated) bit masks worked out by hand from D4's characters."""
    marked = sum(1 << (shelf * 5 + c) for c, ch in enumerate(pattern) if ch == "o")
    eliminated = sum(1 << (shelf * 5 + c) for c, ch in enumerate(pattern) if ch == "x")
    return marked, eliminated


def test_every_shelf_pattern_in_every_position_is_text_and_file_alike(board, tmp_path):
    """All 3^5 patterns x 5 shelves: as text and from a file, the same state, and the right one
    (the reported `....x`, `....o`, `o.x.o`, `..oo.` endings were once taken for missing files)."""
    path = tmp_path / "marks.txt"
    for shelf in range(5):
        for chars in product(".ox", repeat=5):
            pattern = "".join(chars)
            text = _sheet(shelf, pattern)
            assert is_marks_text(text)
            from_text = load_marks(text, board)
            path.write_text(text + "\n")
            from_file = load_marks(str(path), board)
            assert from_text == from_file
            assert (from_text.marked, from_text.eliminated) == _expected(shelf, pattern)
            assert str(from_text) == text


def _advise(*args: str, stdin: str | None = None):
    return CliRunner().invoke(main, ["advise", "--dice", "CCBJPP", "--rerolls", "0", *args], input=stdin)


@pytest.mark.parametrize("pattern", ["....x", "....o", "o.x.o", "..oo.", "x.x.x", "ooo.x"])
@pytest.mark.parametrize("shelf", [0, 4])
def test_cli_marks_text_file_and_stdin_agree(tmp_path, shelf, pattern):
    text = _sheet(shelf, pattern)
    path = tmp_path / "state.txt"
    path.write_text(text.replace("/", "\n") + "\n")
    outputs = [_advise("--marks", text), _advise("--marks", str(path)), _advise("--marks", "-", stdin=text + "\n")]
    for result in outputs:
        assert result.exit_code == 0, result.output
    assert outputs[0].output == outputs[1].output == outputs[2].output
    assert f"marks {text}," in outputs[0].output


@pytest.mark.parametrize("command", [
    ["odds", "--target", "r5c1"],
    ["cheatsheet", "--format", "csv", "--output", "{out}"],
])
def test_other_commands_take_marks_text_ending_like_an_extension(tmp_path, command):
    """`odds --marks` and `cheatsheet --marks` follow the same rule."""
    text = "oooo./xxxxx/xxxxx/xxxxx/....x"
    args = [a.replace("{out}", str(tmp_path / "out")) for a in command]
    result = CliRunner().invoke(main, [*args, "--marks", text])
    assert result.exit_code == 0, result.output


def test_stdin_reads_only_the_shelves_it_needs(board):
    """`--marks -` stops after the board's shelves: an open pipe with more to come does not block."""
    class Endless(io.StringIO):
        def readline(self, size: int = -1) -> str:
            line = super().readline(size)
            assert line, "read past the marks"
            return line
    stream = Endless("oo...\n.....\n# comment\nx....\n.....\n.....\n")
    assert str(load_marks("-", board, stdin=stream)) == "oo.../...../x..../...../....."
    stream = Endless("\ufeffoo.../...../x..../...../.....\n")
    assert str(load_marks("-", board, stdin=stream)) == "oo.../...../x..../...../....."


def test_stdin_errors_are_one_line():
    assert_one_line_error(_advise("--marks", "-", stdin="oo.../.....\n"), "standard input", "do not fit")
    assert_one_line_error(_advise("--marks", "-", stdin=""), "standard input")


def test_special_files_are_refused_not_read(tmp_path):
    """/dev/stdin, FIFOs and devices are not regular files: refused at once, pointing to '-'."""
    assert_one_line_error(_advise("--marks", "/dev/null"), "not a regular file", "'-'")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert_one_line_error(_advise("--marks", str(fifo)), "not a regular file")


def test_text_that_is_not_marks_is_a_path(tmp_path):
    line = assert_one_line_error(_advise("--marks", "oo.../..a../...../...../....."), "not found", "bad character 'a'")
    assert len(line) < 300
    big = tmp_path / "big.txt"
    big.write_text("." * 70_000)
    assert_one_line_error(_advise("--marks", str(big)), "larger than")


def test_file_named_like_marks_is_read_as_text(tmp_path, monkeypatch):
    """A file named only with marks characters is still marks text; the error says so."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ox").write_text("...../...../...../...../.....\n")
    assert_one_line_error(_advise("--marks", "ox"), "do not fit", "rename the file")


def test_byte_order_mark_is_ignored_in_text_file_and_stdin(board, tmp_path):
    text = "\ufeffoo.../...../x..../...../....."
    path = tmp_path / "bom.txt"
    path.write_bytes(text.encode("utf-8") + b"\n")
    expected = "oo.../...../x..../...../....."
    assert str(load_marks(text, board)) == expected
    assert str(load_marks(str(path), board)) == expected
    assert str(load_marks("-", board, stdin=io.StringIO(text))) == expected


_CELL = st.sampled_from(".oxOX")


@settings(max_examples=150, deadline=None)
@given(cells=st.lists(_CELL, min_size=25, max_size=25),
       separator=st.sampled_from(["/", " / ", "\n", "/\n", " \n "]),
       spaced=st.booleans())
def test_random_sheets_parse_alike_as_text_file_and_stdin(board, cells, separator, spaced):
    """Any whole sheet, any separators: text, a file and standard input give the same state (D4)."""
    rows = ["".join(cells[5 * s: 5 * s + 5]) for s in range(5)]
    if spaced:
        rows = [" ".join(row) for row in rows]
    text = separator.join(rows)
    marks = load_marks(text, board)
    assert marks == load_marks("-", board, stdin=io.StringIO(text + "\n"))
    with tempfile.TemporaryDirectory() as folder:  # a file (hypothesis reuses no function fixture)
        path = os.path.join(folder, "sheet.txt")
        with open(path, "w", encoding="utf-8") as stream:
            stream.write(text + "\n")
        assert marks == load_marks(path, board)
    lower = "".join(cells).lower()
    assert marks.marked == sum(1 << i for i, ch in enumerate(lower) if ch == "o")
    assert marks.eliminated == sum(1 << i for i, ch in enumerate(lower) if ch == "x")
    assert isinstance(marks, Marks) and str(marks) == "/".join(lower[5 * s: 5 * s + 5] for s in range(5))


@pytest.mark.parametrize("text", ["oooo./...../...../...../.....//", "oooo./...../...../...../...../ /",
                                  "/oooo./...../...../...../.....", "oooo.//...../...../...../.....",
                                  "oooo./...../\n/\n...../...../....."])
def test_an_empty_shelf_is_refused_as_a_sixth_shelf_is(text, board):
    """Trailing '//' (an empty sixth shelf) was dropped silently while a sixth shelf of items is
    refused: an empty shelf anywhere is refused in one line naming the expected form; one '/'
    at a line's end stays a separator."""
    line = assert_one_line_error(CliRunner().invoke(main, ["advise", "--dice", "CCBJPP", "--marks", text]),
                                 "empty shelf", "expected 5 shelves of 5 items separated by '/'")
    assert "\n" not in line
    assert str(load_marks("oooo./...../...../...../...../", board)) == "oooo./...../...../...../....."
    assert str(load_marks("oooo./\n...../\n...../\n...../\n.....", board)) == "oooo./...../...../...../....."
