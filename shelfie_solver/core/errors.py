"""Errors raised by shelfie-solve's core library.

Every error is a ``ValueError`` (as in python-chess), carries a one-line message that names the
problem and the expected form, and is turned by the CLI into ``Error: <message>`` with exit
code 2.
"""

from __future__ import annotations

import re
from collections.abc import Iterable


def shorten(text: str, limit: int = 60) -> str:
    """The user's input as quoted in an error message: ``repr``, cut to ``limit`` characters
    with an ellipsis, so a 5000-character argument does not flood the one-line message."""
    return repr(text) if len(text) <= limit else repr(text[:limit]) + "…"


def close_word(word: str, words: Iterable[str], cutoff: float = 0.6) -> str | None:
    """The one of ``words`` that ``word`` (lowercased) is likely a typo of, for a refusal's "did
    you mean": :func:`difflib.get_close_matches` at a ratio of ``cutoff``, 0.6 by default (``rol``
    -> ``roll``, ``advice`` -> ``advise``), else ``None``. The one home of that rule for every
    command, step, prompt word, objective name and request key (those at 0.7,
    :func:`core.inputs.check_keys`: ``best`` is 0.6 of ``digest``, no typo of it). (difflib is
    imported here, on a refusal's path only: not on start-up.)"""
    import difflib

    close = difflib.get_close_matches(word.lower(), list(words), n=1, cutoff=cutoff)
    return close[0] if close else None


#: Longest error line shown (a hand-edited game file can name 100,000 items in one event).
MAX_ERROR_LINE = 1000
# Quoted values are paired left to right ('--players' first, then the value given): a pattern
# for long quotes alone would pair the closing quote of one with the opening of the next and cut
# the words between them, the example and what was given with them. A quote opens after no letter
# or digit and closes before none: the apostrophe of "the seat's own P" is no quote (else the
# words from it to the next quote, taken for a long value, were cut).
_QUOTED = re.compile(r"(?<!\w)'([^']*)'(?!\w)")
_LONG_WORD = re.compile(r"[^\s/]{81,}")


def error_line(message: str, quoted: bool = False) -> str:
    """An error message as the one line the user sees (after ``Error: ``): white space folded
    to single spaces and any word over 80 characters (a 5000-digit number, a pasted item list)
    cut to 60 with an ellipsis, and the whole line cut to :data:`MAX_ERROR_LINE`; control
    characters and lone surrogates escaped (:func:`report.printable`); with ``quoted`` (click's own messages, which quote the user's
    value whole) also a quoted value longer than 60 characters, as :func:`shorten` does. The one
    formatter of the CLI group and the interactive session, so no message floods the screen."""
    from shelfie_solver.core.report import printable  # the one escape of text from files (a name in a game file)

    message = printable(" ".join(message.split()))
    if quoted:
        message = _QUOTED.sub(lambda m: shorten(m.group(1)) if len(m.group(1)) > 60 else m.group(), message)
    message = _LONG_WORD.sub(lambda m: m.group()[:60] + "…", message)
    return message if len(message) <= MAX_ERROR_LINE else message[:MAX_ERROR_LINE] + "…"


class ShelfieError(ValueError):
    """Base class of all input errors; the message is one line saying how to fix the input."""
