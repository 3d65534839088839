"""Options shared by several commands, each defined once as a decorator (pip-tools style),
and the loading of the ruleset, board and marks they name."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from ..board import Board, Marks, load_board, load_marks, verify_marks_fit
from ..render import FORMATS
from ..rules import Ruleset, load_rules
from ..workload import check_work

F = TypeVar("F", bound=Callable[..., Any])

_EXISTING_FILE = click.Path(exists=True, dir_okay=False, readable=True)


def rules_option(func: F) -> F:
    """``--rules FILE``: a ruleset TOML (default: RULES.md)."""
    return click.option("--rules", "rules_path", type=_EXISTING_FILE, default=None, metavar="FILE",
                        help="Ruleset TOML file (dice, faces, re-rolls, Joker limits...; docs/formats.md). "
                             "Default: the rules of RULES.md.")(func)


def board_option(func: F) -> F:
    """``--board FILE``: a board TOML (default: the embedded default board)."""
    return click.option("--board", "board_path", type=_EXISTING_FILE, default=None, metavar="FILE",
                        help="Board TOML file (faces per shelf, dice per column, item values; "
                             "docs/formats.md). Default: the embedded default board.")(func)


def marks_option(func: F) -> F:
    """``--marks STATE``: the board state, as compact text or a file holding it."""
    return click.option("--marks", "marks_text", default=None, metavar="STATE",
                        help="Board state, shelves top to bottom separated by '/', one character per item: "
                             "'.' available, 'o' marked, 'x' eliminated (e.g. oo.../...../x..../...../.....), "
                             "or a file holding it, or '-' for standard input. Text made only of '.ox/' and "
                             "spaces is always marks, never a file name (docs/formats.md). Default: empty board.")(func)


def format_option(func: F) -> F:
    """``--format table|json|csv|markdown``."""
    return click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True,
                        help="Output format.")(func)


def load_setup(rules_path: str | None, board_path: str | None,
               marks_text: str | None) -> tuple[Ruleset, Board, Marks]:
    """Load the ruleset, the board (faces resolved against the ruleset) and the marks.

    Raises:
        RulesError, BoardError, MarksError: bad input, with a one-line message.
        WorkError: a board and ruleset too large for the exact engine (:func:`workload.check_work`).
    """
    rules = load_rules(rules_path)
    board = load_board(board_path, rules)
    check_work(board, rules)
    marks = load_marks(marks_text, board)
    verify_marks_fit(marks, board)
    return rules, board, marks


def seed_option(func: F) -> F:
    """``--seed S``: the root seed of every random draw, 0 to 2**128-1 (the command draws a fresh
    one with ``simulate.fresh_seed`` and prints it when omitted)."""
    return click.option("--seed", type=click.IntRange(0, 2**128 - 1), default=None, metavar="S",
                        help="Root seed, a whole number from 0 to 2**128-1; the same seed gives the same results "
                             "whatever --jobs is. Default: a fresh 32-bit seed, printed so the run can be "
                             "repeated.")(func)


def jobs_option(func: F) -> F:
    """``--jobs J``: worker processes (default: the number of cores)."""
    return click.option("--jobs", type=click.IntRange(1, None), default=None, metavar="J",
                        help="Worker processes on this machine (default: the number of cores).")(func)
