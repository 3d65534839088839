"""The one "text or a file" rule (docs/formats.md), shared by --marks and tile --shelf."""

from __future__ import annotations

import pytest

from shelfie_solver.dice.board import MARKS_TEXT_CHARS, is_marks_text
from shelfie_solver.core.inputs import STDIN, text_or_file
from shelfie_solver.tile.rules import TYPES

SHELF_CHARS = set(TYPES + TYPES.lower() + "./ \t\r\n")


@pytest.mark.parametrize("value, allowed, stdin, kind", [
    ("oo.../x..../", MARKS_TEXT_CHARS, True, "text"),
    ("\ufeffoo...", MARKS_TEXT_CHARS, True, "text"),  # a leading byte-order mark aside
    ("", MARKS_TEXT_CHARS, True, "text"),  # blank: text, so the parser names the expected form
    ("  \n", MARKS_TEXT_CHARS, True, "text"),
    (STDIN, MARKS_TEXT_CHARS, True, "stdin"),
    (STDIN, SHELF_CHARS, False, "file"),  # no standard input for this option: '-' is a name
    ("marks.txt", MARKS_TEXT_CHARS, True, "file"),
    ("x", MARKS_TEXT_CHARS, True, "text"),  # only allowed characters: text even if a file 'x' exists
    ("CBG../...../", SHELF_CHARS, False, "text"),
    ("shelf.txt", SHELF_CHARS, False, "file"),
])
def test_text_or_file(value, allowed, stdin, kind):
    assert text_or_file(value, allowed, stdin=stdin) == kind


def test_marks_text_is_the_rule_without_blanks():
    for value in ("oo.../x....", "\ufeff.....", " o ", "", " ", "-", "a.txt"):
        assert is_marks_text(value) == (bool(value.removeprefix("\ufeff").strip())
                                        and set(value.removeprefix("\ufeff")) <= MARKS_TEXT_CHARS)
