"""Shared fixtures: the default ruleset and board, example files, and small configurations
on which brute force over every roll / every die assignment is cheap."""

from __future__ import annotations

import importlib.util
import os
import signal
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from shelfie_solver.core.report import TABLE_WIDTH
from shelfie_solver.dice.board import Board, load_board
from shelfie_solver.dice.rules import DEFAULT_RULES, Face, Ruleset

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


# A shell starts a background job with SIGINT ignored, and a child process inherits that, so the
# CLI under test would never see the Ctrl-C the tests send it (Python installs its KeyboardInterrupt
# handler only where SIGINT is not ignored). The tests stand for a user at a terminal: restore it.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(scope="session", autouse=True)
def _private_table_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The tables the tests build (thousands of boards and rulesets) go to a cache directory of
    the session's own, not the user's (core/diskcache.py); a SHELFIE_SOLVE_CACHE already set wins."""
    with pytest.MonkeyPatch.context() as patch:
        if "SHELFIE_SOLVE_CACHE" not in os.environ:
            patch.setenv("SHELFIE_SOLVE_CACHE", str(tmp_path_factory.mktemp("table-cache")))
        yield


@pytest.fixture(scope="session")
def rules() -> Ruleset:
    return DEFAULT_RULES


@pytest.fixture(scope="session")
def board(rules: Ruleset) -> Board:
    return load_board(None, rules)


def assert_one_line_error(result, *fragments: str) -> str:
    """A CliRunner result of bad input: exit code 2, nothing on stdout, exactly one line on
    stderr starting 'Error:', no traceback; each fragment (case-insensitive) in that line."""
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
    assert ". (see '" not in lines[0], lines[0]  # the help hint follows the sentence, not a full stop
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    for fragment in fragments:
        assert fragment.lower() in lines[0].lower(), lines[0]
    return lines[0]


def cli(*args: str) -> str:
    """The standard output of ``shelfie-solve ARGS`` through ``CliRunner``, which must succeed."""
    from click.testing import CliRunner

    from shelfie_solver.cli import main

    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


def cli_json(*args: str) -> dict:
    """``shelfie-solve ARGS --format json`` (:func:`cli`), parsed."""
    import json

    return dict(json.loads(cli(*args, "--format", "json")))


def assert_fits(text: str, width: int = TABLE_WIDTH) -> None:
    """Every line of ``text`` is at most ``width`` columns (the table output's 80, docs/play.md
    "80 columns")."""
    wide = [line for line in text.splitlines() if len(line) > width]
    assert not wide, f"{len(wide)} lines over {width} columns, e.g. {wide[0]!r} ({len(wide[0])})"


def small_rules(dice: int = 3, faces: int = 2, joker: bool = True, rerolls: int = 2, combos: int = 3,
                per_group: int = 1, alone: bool = False) -> Ruleset:
    """A small ruleset for brute force: ``faces`` item faces named f0.. (codes a, b, ...)."""
    names = [Face(f"f{i}", "abcdefgh"[i]) for i in range(faces)]
    return Ruleset(name="small", dice=dice, faces=tuple(names), joker=Face("joker", "J") if joker else None,
                   rerolls=rerolls, combinations_per_turn=combos, jokers_per_group=per_group, joker_alone=alone)


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    """One headless Chromium per test module, for the page tests (tests/browser_support.py)."""
    from browser_support import ARGS, CHROMIUM, playwright

    with playwright.sync_playwright() as p:
        launched = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield launched
        launched.close()


@pytest.fixture
def format_three(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The win model of the 2-player coefficients shipped before the sheets' line states
    (examples/win-first.json, format 3) instead of data/win.json, for one test: for positions
    chosen under those coefficients."""
    from shelfie_solver.dice.learned import win_model

    monkeypatch.setattr(win_model, "DEFAULT_WIN_PATH", Path(__file__).resolve().parent.parent / "examples" / "win-first.json")
    win_model.default_win_model.cache_clear()
    yield
    monkeypatch.undo()
    win_model.default_win_model.cache_clear()


@pytest.fixture
def shots(tmp_path: Path) -> Path:
    """Where the page tests' screenshots go: ``$SHELFIE_SERVE_SCREENSHOTS`` (docs/serve/ when
    regenerating the docs), else the test's temporary folder."""
    folder = Path(os.environ.get("SHELFIE_SERVE_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def walk_trees(block: dict, u: list[int]) -> int:
    """A win-model file's trees term ``T`` of one seat (docs/formats.md, "Win-model file", format
    5), walked from the file's own lists: per tree from its root, left while ``u[feature] <=
    threshold``, the leaf values summed (Python integers) — an evaluation written from the spec,
    independent of ``learned.win_trees``; ``u`` the seat's raw design row, the other seat's, the phase."""
    total = 0
    for node in block["roots"]:
        while block["feature"][node] >= 0:
            f = block["feature"][node]
            node = block["left"][node] if u[f] <= block["threshold"][node] else block["right"][node]
        total += block["value"][node]
    return total


def load_benchmark(name: str) -> ModuleType:
    """The script ``benchmarks/NAME.py`` imported as the module ``NAME`` (registered in
    ``sys.modules``, so its dataclasses and pickles resolve), for tests of a benchmark's parts."""
    path = Path(__file__).resolve().parent.parent / "benchmarks" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def mover_terminals(board, rules, state):
    """Every usable item set of the mover at ``state`` (``chosen``, its rows in
    :func:`board.item_sets` ``usable``; ``sets`` all of them, ``arrays`` the mover's
    ``StateArrays``), and per set the mover's score after it and whether its game is over then
    (the end triggered before, or its second closed shelf, D17), by the board's own scoring (D19)."""
    import numpy as np

    from shelfie_solver.dice.board import item_sets, score
    from shelfie_solver.dice.objectives import StateArrays

    sets = item_sets(board, rules.combinations_per_turn)
    arrays = StateArrays(board, rules, state.marks)
    usable = np.flatnonzero(np.append(arrays.available, True)[sets.cells].all(axis=1))
    chosen = sets.take(usable)
    after = [state.marks.with_marked([c for c in row if c >= 0]) for row in chosen.cells.tolist()]
    final = np.array([score(board, marks, rules) for marks in after])
    over = np.array([state.end_triggered or marks.closed_shelves() >= 2 for marks in after])
    return sets, usable, chosen, arrays, final, over


def joint_chances(objective, arrays, chosen, board):
    """The joint model's chances of every seat at each terminal ``chosen`` of the mover (its item
    sets from :func:`mover_terminals`; ``arrays`` the mover's ``StateArrays``) as ``objective``
    (a ``WinObjective``) builds them before any exact rule: ``win_model.all_chances`` of its
    design."""
    from shelfie_solver.dice.learned.win_model import all_chances, board_scale, design

    m, a, mp, ap = arrays.line_totals
    after = (m + chosen.line_count, a - chosen.line_count, mp + chosen.line_points, ap - chosen.line_points)
    phase, seats = objective.seat_columns(arrays, *after)
    return all_chances(objective.calibration, phase, design(phase, seats, objective.round_number, board_scale(board),
                                                            to_play=objective.to_play),
                       objective.round_number, objective.trees)
