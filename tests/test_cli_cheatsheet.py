"""``shelfie-solve cheatsheet`` through click's CliRunner: the files of each format, progress on
stderr, and every bad-input path (one line, exit code 2, no partly written files)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from shelfie_solver.dice.cheatsheet import output as core
from shelfie_solver.cli import cheatsheet as command
from shelfie_solver.cli import main
from shelfie_solver.core import progress

from conftest import EXAMPLES, assert_one_line_error

MID_GAME = str(EXAMPLES / "marks" / "mid-game.txt")


@pytest.fixture(autouse=True)
def no_progress(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep stderr free of the progress bar unless a test asks for it (machines vary in speed)."""
    monkeypatch.setattr(command, "PROGRESS_AFTER_SECONDS", 1e9)


def cheatsheet(*args: str):
    return CliRunner().invoke(main, ["cheatsheet", *args])


@pytest.mark.parametrize("fmt, name", [("markdown", "cheatsheet.md"), ("html", "cheatsheet.html"),
                                       ("csv", "cheatsheet.csv")])
def test_each_format_writes_its_sheet_and_the_heatmap(tmp_path: Path, fmt: str, name: str) -> None:
    out = tmp_path / "sheets"
    result = cheatsheet("--output", str(out), "--format", fmt, "--marks", MID_GAME)
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.iterdir()) == sorted([name, "item-odds.png"])
    assert result.stdout.strip() == f"Wrote {out / name}, {out / 'item-odds.png'}"
    assert result.stderr == ""
    assert (out / "item-odds.png").read_bytes().startswith(b"\x89PNG")


def test_default_is_markdown_in_the_current_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["cheatsheet"])
    assert result.exit_code == 0, result.output
    assert sorted(os.listdir(tmp_path)) == ["cheatsheet.md", "item-odds.png"]


def test_other_rules_and_board(tmp_path: Path) -> None:
    result = cheatsheet("--rules", str(EXAMPLES / "rules" / "five-dice.toml"), "--board",
                        str(EXAMPLES / "boards" / "five-dice.toml"), "--output", str(tmp_path), "--format", "csv")
    assert result.exit_code == 0, result.output
    text = (tmp_path / "cheatsheet.csv").read_text()
    assert "5 of any one face" in text and "6 of" not in text  # five dice (the variant, RULES.md)


def test_progress_on_stderr_when_slow(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(command, "PROGRESS_AFTER_SECONDS", 0.0)
    monkeypatch.setattr(progress, "stderr_is_terminal", lambda: True)
    result = cheatsheet("--output", str(tmp_path), "--format", "csv")
    assert result.exit_code == 0, result.output
    assert "Computing the cheat sheet" in result.stderr
    assert "Computing" not in result.stdout


def test_no_progress_in_pipes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Not a terminal (pipes, CI): no progress bar, however slow."""
    monkeypatch.setattr(command, "PROGRESS_AFTER_SECONDS", 0.0)
    result = cheatsheet("--output", str(tmp_path), "--format", "csv")
    assert result.exit_code == 0, result.output
    assert result.stderr == ""


def test_output_is_a_file(tmp_path: Path) -> None:
    file = tmp_path / "taken"
    file.write_text("keep me")
    assert_one_line_error(cheatsheet("--output", str(file)), "is a file", "expected a directory")
    assert file.read_text() == "keep me"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["taken"]


def test_output_under_a_file(tmp_path: Path) -> None:
    file = tmp_path / "taken"
    file.write_text("keep me")
    assert_one_line_error(cheatsheet("--output", str(file / "sub" / "dir")), "not a directory")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["taken"]


def test_output_unwritable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(core.os, "access", lambda path, mode: False)
    assert_one_line_error(cheatsheet("--output", str(tmp_path / "out")), "not writable")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root writes into read-only directories")
def test_output_read_only_directory(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        assert_one_line_error(cheatsheet("--output", str(locked)), "not writable")
        assert list(locked.iterdir()) == []
    finally:
        locked.chmod(0o700)


def test_write_failure_leaves_no_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "cheatsheet.md").write_text("# Cheat sheet: old sheet")  # one written before: replaced

    def refuse(src: str, dst: str) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(core.os, "replace", refuse)
    assert_one_line_error(cheatsheet("--output", str(out)), "cannot write", "Permission denied")
    assert sorted(p.name for p in out.iterdir()) == ["cheatsheet.md"]  # no temp files, no heatmap
    assert (out / "cheatsheet.md").read_text() == "# Cheat sheet: old sheet"


def test_sheet_name_taken_by_a_directory(tmp_path: Path) -> None:
    (tmp_path / "item-odds.png").mkdir()
    assert_one_line_error(cheatsheet("--output", str(tmp_path)), "is a directory")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["item-odds.png"]


@pytest.mark.parametrize("args, fragments", [
    (["--format", "pdf"], ["'pdf' is not one of"]),
    (["--marks", "oo/.."], ["do not fit the board"]),
    (["--marks", "ooq../...../...../...../....."], ["bad character"]),
    (["--board", "no-such-board.toml"], ["does not exist"]),
    (["--rules", "no-such-rules.toml"], ["does not exist"]),
    (["--board", str(EXAMPLES / "boards" / "five-dice.toml"), "--marks", "...../...../...../...../....."],
     ["do not fit the board"]),
])
def test_bad_input(tmp_path: Path, args: list[str], fragments: list[str]) -> None:
    assert_one_line_error(cheatsheet("--output", str(tmp_path / "out"), *args), *fragments)
    assert not (tmp_path / "out").exists()


def test_bad_rules_file(tmp_path: Path) -> None:
    rules = tmp_path / "rules.toml"
    rules.write_text("dice = 0\n")
    assert_one_line_error(cheatsheet("--rules", str(rules), "--output", str(tmp_path / "out")), "dice")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("output, fragments", [
    ("", ["--output is empty", "expected a directory"]),
    ("d" * 300, ["File name too long"]),                                  # one component over NAME_MAX
])
def test_bad_output_path_fails_before_the_work(monkeypatch: pytest.MonkeyPatch, output: str,
                                                fragments: list[str]) -> None:
    def no_work(*args: object, **kwargs: object) -> None:
        raise AssertionError("the sheet was computed")

    monkeypatch.setattr(command, "generate", no_work)
    assert_one_line_error(cheatsheet("--output", output), *fragments)


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symbolic links")
def test_sheet_through_a_symlink_writes_the_file_it_points_to(tmp_path: Path) -> None:
    """A link to a file inside DIR is followed; docs/formats.md, "Output": one leading outside
    DIR, or dangling, is refused and nothing is written anywhere."""
    out = tmp_path / "out"
    out.mkdir()
    inside = out / "kept.md"
    inside.write_text("# Cheat sheet: old")  # a sheet written before (files.check_overwrite)
    (out / "cheatsheet.md").symlink_to(inside)
    core.write_files({"cheatsheet.md": b"new", "item-odds.png": b"png"}, out)
    assert (out / "cheatsheet.md").is_symlink() and inside.read_bytes() == b"new"
    elsewhere = tmp_path / "elsewhere.md"
    elsewhere.write_text("precious")
    (out / "cheatsheet.md").unlink()
    (out / "cheatsheet.md").symlink_to(elsewhere)
    with pytest.raises(core.OutputError, match="symbolic link to .* outside"):
        core.write_files({"cheatsheet.md": b"new"}, out)
    assert elsewhere.read_text() == "precious"
    (out / "cheatsheet.md").unlink()
    (out / "cheatsheet.md").symlink_to(tmp_path / "missing.md")
    with pytest.raises(core.OutputError, match="symbolic link to a missing file"):
        core.write_files({"cheatsheet.md": b"new"}, out)
    assert not (tmp_path / "missing.md").exists()
    (out / "cheatsheet.md").unlink()
    inside.unlink()
    mask = os.umask(0)
    os.umask(mask)
    assert (out / "item-odds.png").stat().st_mode & 0o777 == 0o666 & ~mask  # as open() makes it
    assert sorted(p.name for p in out.iterdir()) == ["item-odds.png"]  # no temporary file left


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_sheet_name_taken_by_a_fifo(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "cheatsheet.md")
    with pytest.raises(core.OutputError, match="FIFO"):
        core.write_files({"cheatsheet.md": b"new", "item-odds.png": b"png"}, tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cheatsheet.md"]
