"""The one progress helper of long commands (``core/progress.py``): nothing at all on a pipe or
in tests, so outputs stay byte for byte the same; a bar on a terminal; no command of the package
writes its own (``click.progressbar`` or ``isatty`` outside the helper)."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from shelfie_solver.cli import main
from shelfie_solver.core import progress
from shelfie_solver.core.progress import progress_bar

PACKAGE = Path(__file__).resolve().parent.parent / "shelfie_solver"


def test_not_a_terminal_yields_none_and_prints_nothing(monkeypatch: pytest.MonkeyPatch):
    stream = io.StringIO()
    monkeypatch.setattr("sys.stderr", stream)
    with progress_bar("Playing", 10) as bar:
        assert bar is None
    assert stream.getvalue() == ""


def test_a_terminal_gets_a_bar_counting_both_callback_shapes(monkeypatch: pytest.MonkeyPatch):
    stream = io.StringIO()
    monkeypatch.setattr("sys.stderr", stream)
    monkeypatch.setattr(progress, "stderr_is_terminal", lambda: True)
    with progress_bar("Playing", 10) as bar:
        assert bar is not None
        bar.advance(3)
        bar.advance(7)
    assert "Playing" in stream.getvalue() and "10/10" in stream.getvalue()
    stream.truncate(0)
    with progress_bar("Computing", None) as bar:
        assert bar is not None
        bar.reach(2, 8)  # the total told late, as the cheat sheet does
        bar.reach(8, 8)
    assert "8/8" in stream.getvalue()


def test_a_delayed_bar_of_a_quick_run_prints_nothing(monkeypatch: pytest.MonkeyPatch):
    stream = io.StringIO()
    monkeypatch.setattr("sys.stderr", stream)
    monkeypatch.setattr(progress, "stderr_is_terminal", lambda: True)
    with progress_bar("Computing", 5, delay=1e9) as bar:
        assert bar is not None
        bar.advance(5)
    assert stream.getvalue() == ""


def test_simulate_shows_the_bar_on_a_terminal_only(monkeypatch: pytest.MonkeyPatch):
    args = ["simulate", "--players", "greedy", "--games", "3", "--seed", "1", "--jobs", "1"]
    plain = CliRunner().invoke(main, args)
    assert plain.exit_code == 0 and plain.stderr == ""
    monkeypatch.setattr(progress, "stderr_is_terminal", lambda: True)
    shown = CliRunner().invoke(main, args)
    assert shown.exit_code == 0 and "Playing" in shown.stderr and "3/3" in shown.stderr
    assert shown.stdout == plain.stdout


def test_no_command_writes_its_own_progress_bar():
    pattern = re.compile(r"progressbar|\btqdm\b|stderr\.isatty")
    found = [f"{path.relative_to(PACKAGE)}:{n}" for path in sorted(PACKAGE.rglob("*.py"))
             if path.name != "progress.py"
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if pattern.search(line)]
    assert not found, found
