"""Progress of a long command on stderr, one helper for all of them (``simulate``, ``tile
simulate``, ``train``, ``solve-game``, ``cheatsheet``), click-free.

When stderr is a terminal, :func:`progress_bar` shows a ``tqdm`` bar (label, count, rate, time
left); when it is not (a pipe, a file, CI, the tests' ``CliRunner``) it yields ``None`` and
prints nothing at all, so a command's output to a pipe is byte for byte what it would be without
the bar. The computations take the bar's :meth:`Progress.advance` (steps just finished) or
:meth:`Progress.reach` (steps done out of a total) as their ``progress`` callback; ``None`` means
no callback, as it always has.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


def stderr_is_terminal() -> bool:
    """Whether standard error is a terminal (a person watching), not a pipe, file or test."""
    stream = sys.stderr
    return stream is not None and stream.isatty()


class Progress:
    """A bar being shown: the two callback shapes the computations use."""

    def __init__(self, bar: Any) -> None:
        self._bar = bar

    def advance(self, steps: int) -> None:
        """``steps`` more steps are done (``progress(n)`` of ``simulate``, ``train``...)."""
        self._bar.update(steps)

    def reach(self, done: int, total: int) -> None:
        """``done`` steps of ``total`` are done (``progress(done, total)`` of the cheat sheet,
        whose total is known only once it starts)."""
        if self._bar.total != total:
            self._bar.total = total
        self._bar.update(done - self._bar.n)


@contextmanager
def progress_bar(label: str, total: int | None = None, *, delay: float = 0.0) -> Iterator[Progress | None]:
    """A progress bar on stderr while inside, when stderr is a terminal (:func:`stderr_is_terminal`).

    Args:
        label: what is being done (``"Playing"``, ``"Solving"``).
        total: the steps expected (``None``: told later by :meth:`Progress.reach`).
        delay: seconds before the bar first appears, so quick runs print nothing.
    Yields:
        A :class:`Progress`, or ``None`` when stderr is not a terminal (nothing is printed).
    """
    if not stderr_is_terminal():
        yield None
        return
    from tqdm import tqdm  # imported here: only a terminal ever shows a bar (start-up)

    bar = tqdm(total=total, desc=label, file=sys.stderr, delay=delay, dynamic_ncols=True, leave=True)
    try:
        yield Progress(bar)
    finally:
        bar.close()
