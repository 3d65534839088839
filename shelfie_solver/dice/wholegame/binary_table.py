"""Binary value tables: a float64 or float32 ``.npy`` array over the :mod:`state_index` indices
with a JSON header beside it (``T.npy`` and ``T.json``), opened as a memory map, so
``table:T.npy`` and ``exact:T.npy`` read only the states they ask for (docs/solve-game.md,
docs/formats.md). The JSON tables of :mod:`values` stay for small exact tables.

The header (read with the bounded JSON reader, :func:`solver.read_solver_json`) names the format, the
board and ruleset (:func:`solver.fingerprint`), the state count, the dtype, the proven error
bound of the values and ``scale_exponent`` ``K`` (every value times ``2^K`` is an integer: the
table objective's common denominator). The array's own header is read with our own bounded
reader (:func:`read_npy_header`, not numpy's) and checked: a 1-D little-endian float64 or
float32 array of exactly the board's state count, the file exactly that long. The header's fields are checked (``"array"`` is the table's
own file name, ``"error_bound"`` a finite number >= 0, ``"optimum"`` the array's start value
within it) and the whole array once as the table is opened, in chunks of :data:`CHUNK` values
(:func:`check_values`: finite, 0 to a full sheet's points plus the bound, D19); a value read is
checked again (and to be a multiple of ``2^-K``).
"""

from __future__ import annotations

import io
import math
import os
import re
from collections.abc import Callable, Iterator, Mapping
from fractions import Fraction
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from shelfie_solver.core.files import NPY_KIND, json_kind, replace_checked
from shelfie_solver.core.inputs import open_regular
from shelfie_solver.dice.board import Board, Marks, score
from shelfie_solver.dice.rules import Ruleset
from shelfie_solver.dice.wholegame.solver import ExactError, Key, fingerprint, read_solver_json
from shelfie_solver.dice.wholegame.state_index import StateIndex, state_index

#: The ``format`` key of a binary table's header.
BINARY_FORMAT = "shelfie-solve value table binary 1"
#: The two files of a binary table, as recognised before they are replaced (:func:`files.check_overwrite`).
BINARY_HEADER_KIND = json_kind("a binary value table header", BINARY_FORMAT)
BINARY_ARRAY_KIND = NPY_KIND
#: The layout of the array: :mod:`state_index`'s mixed radix.
INDEX_LAYOUT = "mixed radix 1"
#: Every key of a binary table's header (:func:`save_binary` writes exactly these); any other is
#: refused (docs/formats.md).
HEADER_KEYS = ("format", "board", "rules", "states", "dtype", "index", "optimum", "error_bound", "scale_exponent",
               "array")
#: The dtypes a binary table or float checkpoint may hold (little-endian).
DTYPES: dict[str, np.dtype[Any]] = {"float64": np.dtype("<f8"), "float32": np.dtype("<f4")}
#: Largest ``.npy`` header read (numpy's own default bound).
MAX_NPY_HEADER = 10_000
#: Largest binary array read: 2^34 bytes (the default 5 x 5 board in float64 is 1.4 GB).
MAX_ARRAY_BYTES = 1 << 34


#: Values read at a time when a whole array is checked (8 MB of float64): bounded memory for a
#: memory-mapped table of any size.
CHUNK = 1 << 20


def check_values(array: np.ndarray, possible: int, slack: Fraction, source: str,
                 where: Callable[[int], object] = lambda at: f"value {at:,}") -> float:
    """Check that every value of ``array`` (a float array or memory map, read :data:`CHUNK` values
    at a time) is finite and within 0 to ``possible + slack``: a final score is 0 to a full
    sheet's points (D19; the range :func:`solver.check_range` checks in exact tables and
    checkpoints), and a float value lies within its proven error bound ``slack`` of the exact one.

    Args:
        where: names the value at a position in messages (e.g. its state).
    Returns:
        The largest value (``0.0`` for an empty array).
    Raises:
        ExactError: a value that is not finite or outside the range (one line naming ``source``).
    """
    limit = Fraction(possible) + slack
    top = 0.0
    for lo in range(0, len(array), CHUNK):
        chunk = np.asarray(array[lo:lo + CHUNK], dtype=np.float64)
        bad = ~np.isfinite(chunk) | (chunk < 0)
        high = float(chunk.max()) if chunk.size and not bad.any() else 0.0
        if not bad.any() and Fraction(high) <= limit:
            top = max(top, high)
            continue
        at = lo + int(np.argmax(bad) if bad.any() else np.argmax(chunk))  # the first bad value, else the largest
        raise ExactError(f"{source}: {where(at)} is {float(array[at]):.4g} points, outside 0 to {possible} "
                         f"(D19){f' plus the bound {float(slack):.3g}' if slack else ''}; expected the file "
                         "solve-game wrote, unedited")
    return top


def round_up(value: Fraction) -> float:
    """The smallest float64 at least ``value`` (a bound stays a bound when printed)."""
    x = float(value)
    return x if Fraction(x) >= value else math.nextafter(x, math.inf)


def header_path(path: str | os.PathLike[str]) -> Path:
    """The JSON header beside a binary table ``T.npy``: ``T.json``."""
    return Path(path).with_suffix(".json")


def npy_bytes(array: np.ndarray) -> tuple[bytes, memoryview]:
    """A 1-D float ``array`` as the content of a ``.npy`` file: its header, then its data (a view,
    not a copy: a 5 x 5 board's values are 1.4 GB)."""
    flat = np.ascontiguousarray(array)
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(buffer, np.lib.format.header_data_from_array_1_0(flat))
    return buffer.getvalue(), memoryview(flat.data).cast("B")


_NPY_MAGIC = b"\x93NUMPY"
# The tokens of a .npy header (a Python dict literal of three keys, numpy's format): a quoted
# string without escapes, True/False, a whole number, a bracket or separator; between them only
# the white space of Python's own tokenizer (not \s, which takes \x1c or \x85 for a space too).
_NPY_TOKEN = re.compile(r"""[ \t\n\r\f]*(?:'([^'\\\n]{0,64})'|"([^"\\\n]{0,64})"|(True|False)|([0-9]{1,19})|([{}():,]))""")
_NPY_KEYS = ("descr", "fortran_order", "shape")


def read_npy_header(handle: BinaryIO) -> tuple[tuple[int, ...], bool, Any]:
    """Read the magic and header of a ``.npy`` file from ``handle`` (left at the data) with our
    own bounded parser, not numpy's (whose tokenizer raised ``tokenize.TokenError`` on an
    unbalanced bracket): versions 1.0 to 3.0, a header of at most :data:`MAX_NPY_HEADER` bytes
    holding exactly the keys ``descr`` (a string), ``fortran_order`` (``True``/``False``) and
    ``shape`` (a tuple of whole numbers), each once, nothing else.

    Returns:
        ``(shape, fortran_order, dtype)``; ``dtype`` a ``numpy.dtype`` when ``descr`` names one,
        else the ``descr`` text (the caller refuses any dtype but its own).
    Raises:
        ValueError: anything else, with a short reason (never another exception).
    """
    start = handle.read(8)
    if len(start) < 8 or not start.startswith(_NPY_MAGIC):
        raise ValueError("no .npy magic")
    major, minor = start[6], start[7]
    if (major, minor) not in ((1, 0), (2, 0), (3, 0)):
        raise ValueError(f"version {major}.{minor}")
    width = 2 if major == 1 else 4
    length_bytes = handle.read(width)
    if len(length_bytes) < width:
        raise ValueError("truncated header length")
    length = int.from_bytes(length_bytes, "little")
    if length > MAX_NPY_HEADER:
        raise ValueError(f"a header of {length:,} bytes, more than {MAX_NPY_HEADER:,}")
    raw = handle.read(length)
    if len(raw) < length:
        raise ValueError("truncated header")
    try:
        text = raw.decode("utf-8" if major == 3 else "latin-1")
    except UnicodeDecodeError:
        raise ValueError("header not UTF-8") from None
    try:
        fields = _parse_npy_dict(text.rstrip(" \t\n\r\f"))
    except IndexError:  # the tokens ran out inside a bracket
        raise ValueError("unbalanced brackets") from None
    descr, fortran, shape = (fields[key] for key in _NPY_KEYS)
    if not isinstance(descr, str) or not isinstance(fortran, bool) or not isinstance(shape, tuple):
        raise ValueError("descr, fortran_order or shape of the wrong type")
    dtype: Any = descr
    if re.fullmatch(r"[<>|=]?[a-zA-Z]\d{0,2}", descr):
        try:
            dtype = np.dtype(descr)
        except TypeError:
            pass
    return shape, fortran, dtype


def _parse_npy_dict(text: str) -> dict[str, object]:
    """The header dict of :func:`read_npy_header` from its text (module rules: bounded tokens)."""
    tokens: list[tuple[str, object]] = []
    at = 0
    while at < len(text):
        found = _NPY_TOKEN.match(text, at)
        if found is None or found.end() == at:
            raise ValueError(f"unexpected text at character {at}")
        single, double, flag, number, mark = found.groups()
        if single is not None or double is not None:
            tokens.append(("str", single if single is not None else double))
        elif flag is not None:
            tokens.append(("bool", flag == "True"))
        elif number is not None:
            tokens.append(("int", int(number)))
        else:
            tokens.append((mark, mark))
        at = found.end()
    kinds = [kind for kind, _ in tokens]
    if kinds[:1] != ["{"] or kinds[-1:] != ["}"]:
        raise ValueError("not a dict")
    out: dict[str, object] = {}
    i = 1
    while kinds[i] != "}":
        if kinds[i:i + 2] != ["str", ":"]:
            raise ValueError("expected 'key':")
        key = str(tokens[i][1])
        i += 2
        value: object
        if kinds[i] in ("str", "bool"):
            value = tokens[i][1]
            i += 1
        elif kinds[i] == "(":
            items: list[int] = []
            i += 1
            while kinds[i] != ")":
                if kinds[i] != "int":
                    raise ValueError("a shape of whole numbers expected")
                items.append(int(tokens[i][1]))  # type: ignore[call-overload]
                i += 1
                if kinds[i] == ",":
                    i += 1
                elif kinds[i] != ")":
                    raise ValueError("unbalanced shape")
                elif len(items) == 1:  # (33) is the number 33 in Python, not a shape
                    raise ValueError("a shape of one number without its comma")
                if len(items) > 32:
                    raise ValueError("more than 32 dimensions")
            i += 1
            value = tuple(items)
        else:
            raise ValueError(f"unexpected {kinds[i]!r}")
        if key in out or key not in _NPY_KEYS:
            raise ValueError(f"key {key!r} {'twice' if key in out else 'unknown'}")
        out[key] = value
        if kinds[i] == ",":
            i += 1
        elif kinds[i] != "}":
            raise ValueError("expected , or }")
    if i != len(kinds) - 1:
        raise ValueError("text after the dict")
    if set(out) != set(_NPY_KEYS):
        raise ValueError(f"missing {', '.join(sorted(set(_NPY_KEYS) - set(out)))}")
    return out


def open_npy(path: str | os.PathLike[str], count: int, source: str,
             dtypes: tuple[str, ...] = ("float64", "float32")) -> np.ndarray:
    """A read-only memory map of a 1-D ``.npy`` array of ``count`` little-endian floats.

    Raises:
        ExactError: unreadable, not a regular file, not ``.npy``, another shape or dtype, or not
            exactly the length its header says.
    """
    expected = f"a .npy array of {count:,} values written by shelfie-solve solve-game --float"
    with open_regular(path, ExactError, MAX_ARRAY_BYTES, expected) as handle:
        try:
            shape, fortran, dtype = read_npy_header(handle)
        except (ValueError, OSError) as error:
            raise ExactError(f"{source}: not a .npy array ({str(error)[:80]}); expected {expected}") from None
        offset = handle.tell()
        size = os.fstat(handle.fileno()).st_size
    allowed = [DTYPES[d] for d in dtypes]
    if dtype not in allowed or fortran or shape != (count,):
        raise ExactError(f"{source} holds a {dtype} array of shape {shape}; expected {expected} "
                         f"({' or '.join(dtypes)}, shape ({count},))")
    if size != offset + count * dtype.itemsize:
        raise ExactError(f"{source} is {size:,} bytes, not the {offset + count * dtype.itemsize:,} its header "
                         f"says; expected {expected}, whole")
    if count == 0:
        return np.zeros(0, dtype)
    return np.memmap(path, dtype=dtype, mode="r", offset=offset, shape=(count,))


def scale_exponent(values: np.ndarray) -> int:
    """The least ``K >= 0`` (up to the mantissa's trailing zeros) such that every value times
    ``2^K`` is an integer: a float with ``p``-bit mantissa ``m 2^e`` (``1/2 <= m < 1``) is a
    multiple of ``2^(e - p)``."""
    bits = np.finfo(values.dtype).nmant + 1
    found = 0
    for lo in range(0, len(values), 1 << 22):
        chunk = np.asarray(values[lo:lo + (1 << 22)])
        nonzero = chunk[chunk != 0]
        if nonzero.size:
            _, exponent = np.frexp(nonzero)
            found = max(found, int(bits - exponent.min()))
    return found


def stored_bound(values: np.ndarray, bound: Fraction, dtype: str = "float64") -> Fraction:
    """The rounding-error bound (points, exact) of ``values`` (solved within ``bound``) once
    stored as ``dtype``: with ``float32`` it grows by the storage's rounding, ``2^-24`` of the
    largest value; ``float64`` stores them as they are."""
    if dtype == "float32":
        return bound + Fraction(float(np.max(values, initial=0.0))) / 2**24
    return bound


def save_binary(path: str, board: Board, rules: Ruleset, values: np.ndarray, bound: Fraction,
                dtype: str = "float64", force: bool = False) -> Path:
    """Write the binary table ``path`` (``T.npy``) and its header ``T.json`` whole or not at all.
    With ``float32`` the bound grows by the storage's rounding (:func:`stored_bound`).
    Neither file replaces one of another kind (a saved game named ``T.json``) unless ``force``
    (:func:`files.check_overwrite`).

    Raises:
        FileWriteError: a file cannot be written, or holds another kind of file.
    """
    import json

    stored = np.asarray(values, dtype=DTYPES[dtype])
    bound = stored_bound(values, bound, dtype)
    index = state_index(board, rules)
    empty = Marks.empty(board)
    header = {"format": BINARY_FORMAT, **fingerprint(board, rules), "states": index.count, "dtype": dtype,
              "index": INDEX_LAYOUT, "optimum": float(stored[index.index(empty)]) if index.count else 0.0,
              "error_bound": round_up(bound), "scale_exponent": scale_exponent(stored), "array": Path(path).name}
    data = npy_bytes(stored)
    replace_checked({path: (data, BINARY_ARRAY_KIND),
                     header_path(path): ((json.dumps(header) + "\n").encode(), BINARY_HEADER_KIND)}, force)
    return Path(path)


class MappedValues(Mapping[Key, Fraction]):
    """The values of a binary table as the ``{(marked, eliminated): Fraction}`` mapping a
    :class:`solver.GameSolution` holds, read from the memory map state by state (each float's
    exact value; checked as read, see the module docstring).

    Attributes:
        common_denominator: ``2^K``, a denominator of every value (the table objective's scale).
    """

    def __init__(self, index: StateIndex, array: np.ndarray, possible: int, exponent: int, source: str):
        self.index, self.array, self.possible, self.source = index, array, possible, source
        self.common_denominator = 2**exponent

    def __getitem__(self, key: Key) -> Fraction:
        try:
            at = self.index.index(Marks(self.index.n_shelves, self.index.n_columns, *key))
        except ValueError:
            raise KeyError(key) from None
        value = float(self.array[at])
        if not 0 <= value <= self.possible:  # also NaN
            raise ExactError(f"{self.source}: state {self.index.marks(at)} is worth {value:.4g} points, outside 0 "
                             f"to {self.possible} (D19); expected the file solve-game wrote, unedited")
        exact = Fraction(value)
        if self.common_denominator % exact.denominator:
            raise ExactError(f"{self.source}: a value is not a multiple of its header's 2^-scale_exponent; expected "
                             "the file solve-game wrote, unedited")
        return exact

    def __len__(self) -> int:
        return self.index.count

    def __iter__(self) -> Iterator[Key]:
        for at in range(self.index.count):
            marks = self.index.marks(at)
            yield marks.marked, marks.eliminated


def _finite(value: object) -> float | None:
    """A header's JSON number as a finite float, else ``None`` (a string, ``true``, infinity, an
    integer too large for a float)."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


def open_binary(path: str) -> tuple[Board, Ruleset, MappedValues, dict[str, Any]]:
    """Open the binary table ``path`` (``T.npy``, header ``T.json``): board, ruleset, the mapped
    values and the header.

    Raises:
        ExactError: the header or the array is unreadable, malformed, or they do not match.
    """
    from shelfie_solver.dice.game.record import cached_board, cached_rules  # the saved-game readers
    import json

    from shelfie_solver.core.errors import ShelfieError, shorten

    head = header_path(path)
    if Path(path).suffix != ".npy":
        raise ExactError(f"binary value table {path}: expected a name ending in .npy (its header beside it as "
                         f"{head.name})")
    data = read_solver_json(head, "binary value table header")
    if data.get("format") != BINARY_FORMAT:
        raise ExactError(f"{head} is not the header of a binary value table: expected \"format\": "
                         f"\"{BINARY_FORMAT}\" (written by shelfie-solve solve-game --float --save)")
    unknown = sorted(set(data) - set(HEADER_KEYS))
    if unknown:  # a hand-added key would be ignored without a word
        raise ExactError(f"binary value table header {head}: unknown key {shorten(unknown[0])}; expected only "
                         f"{', '.join(HEADER_KEYS)} (docs/formats.md)")
    try:
        rules = cached_rules(json.dumps(data["rules"], sort_keys=True))
        board = cached_board(json.dumps(data["board"], sort_keys=True), rules)
        dtype, exponent, layout = data["dtype"], data["scale_exponent"], data["index"]
    except KeyError as error:
        raise ExactError(f"binary value table header {head}: missing key {error}") from None
    except ShelfieError as error:
        raise ExactError(f"binary value table header {head}: {error}") from None
    if dtype not in DTYPES or layout != INDEX_LAYOUT or not isinstance(exponent, int) or isinstance(exponent, bool) \
            or not 0 <= exponent <= 1100:
        raise ExactError(f"binary value table header {head}: expected \"dtype\" float64 or float32, \"index\" "
                         f"\"{INDEX_LAYOUT}\" and \"scale_exponent\" an integer 0..1100")
    if board.n_cells > 62:
        raise ExactError(f"binary value table header {head}: a board of more than 62 items")
    index = state_index(board, rules)
    if data.get("states") != index.count:
        raise ExactError(f"binary value table header {head} says {data.get('states')!r} states; the board has "
                         f"{index.count:,}")
    name, given_bound, given_optimum = data.get("array"), data.get("error_bound"), data.get("optimum")
    if name != Path(path).name:  # the array is always the file beside the header: no path from the file
        raise ExactError(f"binary value table header {head} names the array {str(name)[:60]!r}, not its own "
                         f"{Path(path).name!r}; expected the header solve-game --float --save wrote beside it "
                         "(rename a table's two files together and set \"array\" to the new .npy name)")
    bound, optimum = _finite(given_bound), _finite(given_optimum)
    if bound is None or optimum is None or bound < 0:
        raise ExactError(f"binary value table header {head}: \"error_bound\" {str(given_bound)[:40]} and "
                         f"\"optimum\" {str(given_optimum)[:40]}; expected finite numbers, the bound >= 0")
    array = open_npy(path, index.count, f"binary value table {path}", (dtype,))
    possible = score(board, Marks(board.n_shelves, board.n_columns, (1 << board.n_cells) - 1), rules)
    check_values(array, possible, Fraction(bound), f"binary value table {path}",
                 lambda at: f"state {index.marks(at)}")
    start = float(array[index.index(Marks.empty(board))]) if index.count else 0.0
    if abs(Fraction(optimum) - Fraction(start)) > Fraction(bound):
        raise ExactError(f"binary value table header {head} says \"optimum\" {optimum!r}; the array's start state "
                         f"is worth {start!r} (more than the error bound {bound:.3g} apart); expected the two files "
                         "solve-game --float --save wrote together")
    return board, rules, MappedValues(index, array, possible, exponent, f"binary value table {path}"), data


def is_binary(path: str) -> bool:
    """Whether ``path`` names a binary table (by its name: ``.npy``)."""
    return Path(path).suffix == ".npy"
