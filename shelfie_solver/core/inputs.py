"""Reading input files safely: one place for every file we parse (TOML boards and rulesets,
saved games), so a hostile or broken file is refused up front in one line, never by hanging,
exhausting memory or a ``RecursionError`` deep in a parser (docs/formats.md, "Limits").

The rules, shared by every reader:

* only a regular file is read (a FIFO, device or directory is refused before it is opened, and
  the file is opened non-blocking and checked again, so a FIFO swapped in cannot block);
* at most ``max_bytes`` are read (a file larger than that is refused);
* the text is UTF-8; a leading byte-order mark (U+FEFF) is accepted and ignored everywhere;
* before the text reaches a parser, a cheap scan bounds what costs the parser: the nesting of
  brackets and braces (:data:`MAX_NESTING`), the parts of one dotted key (:data:`MAX_KEY_PARTS`,
  TOML) and the digits of one number (:data:`MAX_NUMBER_DIGITS`, JSON);
* an exact number written as text inside a file (a value table's or checkpoint's ``"p/q"``) is
  read by :func:`parse_fraction` only: bounded digits, no exponent, so ``"1e1000000"`` cannot
  hang or fill memory.
"""

from __future__ import annotations

import math
import os
import re
import stat
import tomllib
from collections.abc import Iterable, Mapping, Sequence, Set
from fractions import Fraction
from pathlib import Path
from typing import Any, BinaryIO, Literal

from shelfie_solver.core.errors import close_word, shorten

#: Deepest nesting of ``[`` / ``{`` accepted in a TOML or JSON text (ours need 4 at most).
MAX_NESTING = 32
#: Most parts of one dotted TOML key (``a.b.c`` has 3).
MAX_KEY_PARTS = 8
#: Most digits of one JSON number (a seed of 2**128 has 39).
MAX_NUMBER_DIGITS = 60
#: Most digits of each part of an exact number written as text (:func:`parse_fraction`), and of
#: the common denominator of a file's numbers (:func:`check_common_denominator`): Python's own
#: limit for turning text into an integer, so every number shelfie-solve writes is below it (a
#: 3 x 3 board's value table needs 104 digits).
MAX_EXACT_DIGITS = 4300
#: Most characters of an unknown key compared with the keys expected (:func:`check_keys`): a
#: 100,000-character key is no typo of ``"player"``, and difflib's cost grows with its length.
MAX_KEY_CHARS = 40
#: How close an unknown key must be to an expected one to be named as its typo (difflib's ratio,
#: :func:`core.errors.close_word`): ``plyer``/``player`` 0.91, ``kept``/``keep`` 0.75; ``best``
#: is 0.6 of ``digest`` (the default cutoff), no typo of it.
KEY_CUTOFF = 0.7
_EXACT_NUMBER = re.compile(r"([+-]?)(\d+)(?:\.(\d+)|/(\d+))?")

_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))

# Tokens that matter to the scans: strings (skipped whole), comments, brackets, dots and the
# characters that end a dotted key. Anything else (bare key characters, digits, spaces) is skipped.
_TOML_TOKENS = re.compile(r'"""(?:[^\\]|\\.)*?"""|\'\'\'.*?\'\'\'|"(?:[^"\\\n]|\\.)*"|\'[^\'\n]*\'|#[^\n]*'
                          r'|[\[\]{}.=,\n]', re.DOTALL)
_JSON_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]|\d{%d,}' % (MAX_NUMBER_DIGITS + 1), re.DOTALL)


#: Standard input, named explicitly (``--marks -``): neither text nor a file name.
STDIN = "-"


def text_or_file(value: str, allowed: Set[str], stdin: bool = False) -> Literal["text", "stdin", "file"]:
    """The one rule of every "text or a file" option (docs/formats.md: ``--marks``, ``tile
    --shelf``): what ``value`` is.

    * ``"text"``: blank, or made only of the characters ``allowed`` (a leading byte-order mark
      aside), such text is never taken for a file name, even when a file of that name exists;
    * ``"stdin"``: ``-`` when the option reads standard input (``stdin``);
    * ``"file"``: anything else, the name of a regular file, to be read with :func:`read_text`
      (the caller says what it does when there is no such file).
    """
    if stdin and value == STDIN:
        return "stdin"
    body = value.removeprefix("\ufeff")
    return "text" if not body.strip() or set(body) <= allowed else "file"


def _kind(mode: int) -> str | None:
    """Why a file of this mode is not read (``None``: a regular file)."""
    if stat.S_ISREG(mode):
        return None
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def kind_of(path: str | os.PathLike[str]) -> str | None:
    """What is at ``path`` when it is no regular file, in a refusal's words (``a directory``,
    ``a FIFO (named pipe)``, ...; a link followed); ``None`` for a regular file, nothing there
    (a dangling link too) or a path that cannot be examined."""
    try:
        return _kind(os.stat(path).st_mode)
    except (OSError, ValueError):
        return None


def open_regular(path: str | os.PathLike[str], error: type[ValueError], max_bytes: int, expected: str) -> BinaryIO:
    """Open a regular file of at most ``max_bytes`` bytes for reading in binary (module
    docstring); the caller closes it.

    Args:
        path: the file. error: the :class:`~errors.ShelfieError` subclass to raise.
        max_bytes: the size cap. expected: what the file should be, for messages
            (e.g. ``"a TOML file like examples/boards/default.toml"``).
    Raises:
        error: missing, not a regular file, too large or unreadable (one line).
    """
    name = os.fspath(path)
    try:
        kind = _kind(os.stat(name).st_mode)
        if kind is None:
            fd = os.open(name, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
            handle = os.fdopen(fd, "rb")
            info = os.fstat(fd)
            kind = _kind(info.st_mode)
            if kind is None and info.st_size <= max_bytes:
                return handle
            handle.close()
            if kind is None:
                raise error(f"{name} is larger than {max_bytes:,} bytes; expected {expected}")
    except FileNotFoundError:
        raise error(f"cannot read {name}: no such file; expected {expected}") from None
    except OSError as exc:
        raise error(f"cannot read {name}: {exc.strerror or exc}") from None
    raise error(f"{name} is {kind}, not a regular file; expected {expected}")


def decode(data: bytes, error: type[ValueError], source: str, expected: str) -> str:
    """UTF-8 ``data`` as text, a leading byte-order mark removed.

    Raises:
        error: not UTF-8 (one line naming ``source``).
    """
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise error(f"{source} is not UTF-8 text (byte {exc.start}); expected {expected}") from None


def read_text(path: str | os.PathLike[str], error: type[ValueError], max_bytes: int, expected: str) -> str:
    """The UTF-8 text of a regular file of at most ``max_bytes`` bytes, a leading byte-order
    mark removed (:func:`open_regular`, :func:`decode`).

    Raises:
        error: missing, not a regular file, too large, unreadable, or not UTF-8 (one line).
    """
    with open_regular(path, error, max_bytes, expected) as handle:
        try:
            data = handle.read(max_bytes + 1)
        except OSError as exc:
            raise error(f"cannot read {os.fspath(path)}: {exc.strerror or exc}") from None
    if len(data) > max_bytes:  # grew since it was opened
        raise error(f"{os.fspath(path)} is larger than {max_bytes:,} bytes; expected {expected}")
    return decode(data, error, os.fspath(path), expected)


def check_toml_text(text: str, error: type[ValueError], source: str) -> None:
    """Refuse TOML text whose brackets/braces nest deeper than :data:`MAX_NESTING` or with a
    dotted key of more than :data:`MAX_KEY_PARTS` parts, before ``tomllib`` sees it (its cost
    grows with both: a 1 KB ``dice = [[[...]]]`` is a ``RecursionError``, a 200 KB dotted key
    takes minutes). Linear time; strings and comments are skipped.

    Raises:
        error: one line naming ``source`` and the limit.
    """
    depth = dots = 0
    for match in _TOML_TOKENS.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > MAX_NESTING:
                raise error(f"{source}: brackets nested more than {MAX_NESTING} deep; "
                            "expected a flat TOML file (docs/formats.md)")
        elif token in "]}":
            depth = max(0, depth - 1)
        if token == ".":
            dots += 1
            if dots >= MAX_KEY_PARTS:
                raise error(f"{source}: a dotted key has more than {MAX_KEY_PARTS} parts; "
                            "expected keys like a.b.c (docs/formats.md)")
        elif token[0] not in "\"'#":  # a string continues a dotted key; a comment ends its line
            dots = 0


def check_json_text(text: str, error: type[ValueError], source: str) -> None:
    """Refuse JSON text nested deeper than :data:`MAX_NESTING` or with a number of more than
    :data:`MAX_NUMBER_DIGITS` digits, before ``json`` sees it (a ``RecursionError`` and a
    bare ``ValueError`` otherwise). Linear time; strings are skipped.

    Raises:
        error: one line naming ``source`` and the limit.
    """
    depth = 0
    for match in _JSON_TOKENS.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > MAX_NESTING:
                raise error(f"{source}: JSON nested more than {MAX_NESTING} deep")
        elif token in "]}":
            depth = max(0, depth - 1)
        elif token[0].isdigit():
            raise error(f"{source}: a number has more than {MAX_NUMBER_DIGITS} digits")


def parse_fraction(text: object, error: type[ValueError], source: str) -> Fraction:
    """An exact number written as text in a file: ``"p/q"``, a whole number (``"-3"``) or a
    decimal (``"0.25"``), with at most :data:`MAX_EXACT_DIGITS` digits above and below the line. Exponent notation
    (``"1e5"``), floats, ``"inf"``/``"nan"``, spaces and underscores are refused: ``Fraction``
    would expand ``"1e1000000"`` without bound (docs/formats.md, "Exact numbers").

    Args:
        text: the value read (anything that is not a ``str`` is refused, a float included).
        error: the :class:`~errors.ShelfieError` subclass to raise. source: what holds the
            number (a file and key), for the message.
    Raises:
        error: not of that form, too many digits, or a zero denominator (one line).
    """
    expected = 'expected "p/q", a whole number or a decimal such as "1/4" or "0.25" (no exponent)'
    if not isinstance(text, str):
        raise error(f'{source}: {repr(text)[:60]} is not a string "p/q" (a number in JSON may be a float); '
                    'expected a string such as "1/4", "-3" or "0.25"')
    match = _EXACT_NUMBER.fullmatch(text)
    if match is None:
        raise error(f"{source}: {shorten(text)} is not an exact number; {expected}")
    sign, whole, decimals, denominator = match.groups()
    if max(len(whole) + len(decimals or ""), len(denominator or "")) > MAX_EXACT_DIGITS:
        raise error(f"{source}: a number of more than {MAX_EXACT_DIGITS:,} digits; {expected}")
    if denominator is not None:
        if int(denominator) == 0:
            raise error(f"{source}: {shorten(text)} divides by zero; {expected}")
        value = Fraction(int(whole), int(denominator))
    elif decimals is not None:
        value = Fraction(int(whole + decimals), 10 ** len(decimals))
    else:
        value = Fraction(int(whole))
    return -value if sign == "-" else value


def check_common_denominator(values: Iterable[Fraction], error: type[ValueError], source: str) -> int:
    """The least common denominator of ``values``, refused when it passes
    :data:`MAX_EXACT_DIGITS` digits (each value may be small while together they are not:
    1,500 different 4,000-digit denominators make a 6-million-digit one, which the exact
    arithmetic over a table would then carry). Checked as it grows, so it stays cheap.

    Raises:
        error: the common denominator is too long (one line naming ``source``).
    """
    common, bits = 1, int(MAX_EXACT_DIGITS * 3.33) + 1  # 10**4300 < 2**14320
    for value in values:
        common = math.lcm(common, value.denominator)
        if common.bit_length() > bits:
            raise error(f"{source}: the numbers' common denominator has more than {MAX_EXACT_DIGITS:,} digits; "
                        "expected the file shelfie-solve wrote, unedited")
    return common


def check_keys(data: Mapping[str, Any], keys: Sequence[str], error: type[ValueError], where: str,
               see: str) -> None:
    """Refuse a key of ``data`` (a JSON object read from a request body) that is not one of
    ``keys``: a typo such as ``"plyer"`` or ``"revison"`` would otherwise be ignored, and with it
    the check the key asks for (the turn, the revision). The one home of that rule for every
    request body of ``serve`` (the dice page's writes and new game, the tile page's requests).

    ``where``: what the body is, e.g. ``the body of POST /api/roll``; ``see``: the docs page
    named at the end (``docs/serve.md``).

    Raises:
        error: one line naming the first unknown key (in sorted order, quoted and cut as
            :func:`core.errors.shorten` does), the close expected key if any ("did you mean",
            :func:`core.errors.close_word` at :data:`KEY_CUTOFF`) and every key expected, e.g. ``unknown key 'plyer'
            in the body of POST /api/roll (did you mean "player"?); expected only "revision",
            "digest", "player", "dice" (docs/serve.md)``.
    """
    unknown = sorted(str(k) for k in data if k not in keys)
    if not unknown:
        return
    close = close_word(unknown[0][:MAX_KEY_CHARS], keys, KEY_CUTOFF)
    hint = f' (did you mean "{close}"?)' if close is not None else ""
    expected = "expected only " + ", ".join('"' + k + '"' for k in keys) if keys else "expected no key"
    raise error(f"unknown key {shorten(unknown[0])} in {where}{hint}; {expected} ({see})")


class DuplicateKeyError(ValueError):
    """A key given twice in one JSON object (:func:`strict_loads`): JSON would keep the last value
    silently (TOML refuses it), so a hand-edited ``{"dice": "CCBJPP", "dice": "CCCCCC"}`` would
    act on the second."""

    def __init__(self, key: str) -> None:
        super().__init__(f"the key {shorten(key)} is given twice in one JSON object; expected each key once")


class ConstantError(ValueError):
    """``NaN``, ``Infinity`` or ``-Infinity`` in a JSON text (:func:`strict_loads`): Python's
    ``json`` reads them, JSON (RFC 8259) has no such number. ``str`` is the constant's name."""


def _no_constant(name: str) -> Any:
    raise ConstantError(name)


#: Longest parser message quoted in a refusal (Python's own, e.g. the integer-conversion limit's).
_PARSER_MESSAGE = 80


def _parser_message(exc: BaseException, limit: int = _PARSER_MESSAGE) -> str:
    """A parser's own message (``json``'s, ``tomllib``'s) as the words inside a refusal's
    parentheses: white space folded, cut at a word boundary to at most ``limit`` characters with
    an ellipsis, and never cut inside a quoted part (``Expecting ',' delimiter``): a cut that
    would leave an odd number of ``'`` or ``"`` (or an open parenthesis) goes back to before the
    last one. Not ``repr`` and ``[1:-1]``, which left the closing quote of a cut message
    (``...conversio'``): the message is the parser's, shown unquoted."""
    text = " ".join(str(exc).split())
    if len(text) <= limit:
        return text
    cut = text[:limit]
    if " " in cut:
        cut = cut[:cut.rindex(" ")]
    for quote in "'\"":
        if cut.count(quote) % 2:
            cut = cut[:cut.rindex(quote)]
    if cut.count("(") > cut.count(")"):  # nor inside a parenthesis: "(at line 1, column 5)"
        cut = cut[:cut.rindex("(")]
    return cut.rstrip(" ,;:(") + "…"


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise DuplicateKeyError(key)
        out[key] = value
    return out


def strict_loads(text: str) -> Any:
    """``json.loads`` of ``text`` refusing ``NaN`` / ``Infinity`` and a key given twice in one
    object: the one JSON parse of shelfie-solve, for every file it reads (:func:`parse_json`,
    game files, saved games) and every request body of the page (``web/app.read_body``). Call
    :func:`check_json_text` first (nesting and number length).

    Raises:
        DuplicateKeyError, ConstantError: as named. json.JSONDecodeError: not JSON.
    """
    import json  # here: reading TOML (every command's start-up) does not need it

    return json.loads(text, object_pairs_hook=_unique_pairs, parse_constant=_no_constant)


def json_refusal(exc: ValueError, source: str, expected: str) -> str:
    """The one-line refusal of a :func:`strict_loads` error ``exc`` in ``source`` (a key given
    twice, ``NaN``/``Infinity``, not JSON), ending with what was ``expected``."""
    if isinstance(exc, DuplicateKeyError):
        return f"{source}: {exc}, in {expected}"
    if isinstance(exc, ConstantError):
        return (f"{source} has {exc}, which is not a JSON number (JSON has no NaN or Infinity); "
                f"expected {expected}")
    return f"{source} is not valid JSON ({_parser_message(exc)}); a truncated file? expected {expected}"


def parse_json(text: str, error: type[ValueError], source: str, expected: str) -> Any:
    """``text`` parsed as JSON after :func:`check_json_text` (so no ``RecursionError`` and no
    integer-conversion ``ValueError`` from the parser), by :func:`strict_loads`: an object that
    names a key twice is refused (JSON would keep the last silently), and so are ``NaN``,
    ``Infinity`` and ``-Infinity``, which Python's ``json`` reads but JSON has not: no input file
    holds them (exact numbers are ``"p/q"`` strings, docs/formats.md).

    Raises:
        error: nested too deep, a number too long, not JSON, ``NaN`` or ``Infinity``, or a key
            given twice (one line naming ``source``, :func:`json_refusal`).
    """
    check_json_text(text, error, source)
    try:
        return strict_loads(text)
    except ValueError as exc:  # DuplicateKeyError, ConstantError, JSONDecodeError
        raise error(json_refusal(exc, source, expected)) from None


def read_json(path: str | os.PathLike[str], error: type[ValueError], max_bytes: int, expected: str) -> Any:
    """The JSON value of a regular file of at most ``max_bytes`` bytes: :func:`read_text` then
    :func:`parse_json` (a key given twice refused), the one reader of every JSON input file (game
    files, value tables, checkpoints, tile positions, learned and win-model files).

    Raises:
        error: as :func:`read_text` and :func:`parse_json` (one line).
    """
    return parse_json(read_text(path, error, max_bytes, expected), error, os.fspath(path), expected)


#: Largest TOML file read (a board or ruleset is a few hundred bytes; docs/formats.md).
MAX_FILE_BYTES = 100_000


def load_toml(path: str | Path, error: type[ValueError], example: str) -> dict[str, Any]:
    """Read a TOML file; raise ``error`` (one line, with the file name and an ``example`` file of
    the expected kind) when it is not a regular file, too large, unreadable, nested too deep
    (:func:`read_text`, :func:`check_toml_text`) or not TOML. A leading byte-order mark is ignored."""
    expected = f"a TOML file like {example}"
    text = read_text(path, error, MAX_FILE_BYTES, expected)
    return parse_toml(text, error, str(path), example)


#: The first line of a TOML file that says something: a table header or a key and ``=``
#: (bare, quoted or dotted keys, TOML 1.0).
_TOML_FIRST_LINE = re.compile(r"""\s*(\[|(?:[A-Za-z0-9_-]+|"[^"\n]*"|'[^'\n]*')(?:\s*\.\s*(?:[A-Za-z0-9_-]+|"[^"\n]*"|'[^'\n]*'))*\s*=)""")


def _not_toml_line(text: str) -> tuple[int, str] | None:
    """The number and text of the first line that is neither blank, a comment, a table header
    nor a key with ``=``, when it is the first such line of ``text`` (what a README, a JSON file
    or a game file given where a TOML file is expected begins with); ``None`` when the text starts
    like TOML (the parser then judges the rest)."""
    for number, line in enumerate(text.removeprefix("\ufeff").splitlines(), 1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        return None if _TOML_FIRST_LINE.match(line) else (number, stripped)
    return None


def parse_toml(text: str, error: type[ValueError], source: str, example: str) -> dict[str, Any]:
    """Parse TOML text after :func:`check_toml_text`; raise ``error`` (one line) if it
    is nested too deep or not TOML (a text whose first line says something else than TOML is
    named so at once: a Markdown file given as a board was refused for its dotted keys)."""
    first = _not_toml_line(text)
    if first is not None:
        number, line = first
        raise error(f"{source} is not a TOML file (line {number}: {shorten(line)}); expected a file like {example}")
    check_toml_text(text, error, source)
    try:
        return tomllib.loads(text.removeprefix("\ufeff"))
    except ValueError as exc:  # TOMLDecodeError, or an integer of over 4,300 digits
        raise error(f"{source} is not valid TOML ({_parser_message(exc)}); expected a file like {example}") from None
