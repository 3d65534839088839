"""Output: plain tables, JSON, CSV and Markdown for every command (floats only for display).

A report is a :class:`Report`: title lines, one table (headers + rows), and a JSON object.
:func:`render` turns it into the requested format, so each command builds its content once.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from fractions import Fraction
from collections.abc import Callable, Collection, Sequence
from typing import Any

FORMATS = ("table", "json", "csv", "markdown")

# What a terminal must not be sent raw: control characters other than tab and newline (ESC
# starts a terminal command), DEL and the C1 controls, the bidirectional overrides (they reorder
# what is shown) and lone surrogates (no encoding can write them: UnicodeEncodeError).
_UNPRINTABLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
# A CSV cell a spreadsheet would run as a formula (or a command: DDE) starts with one of these.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[-+]?\d[\d,]*(\.\d+)?(/\d+)?%?")


def printable(text: str) -> str:
    """``text`` safe to print on a terminal in any encoding: each character of
    ``_UNPRINTABLE`` (controls but tab and newline, bidirectional overrides, lone surrogates)
    shown as its escape (``\\x1b``, ``\\ud800``). The one escape of text that comes from files
    (a player's name in a hand-edited game file), applied by :func:`render` and by the
    interactive session."""
    return _UNPRINTABLE.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


#: Player names that are pronouns (``play new --players Ann,me``), by their case-folded form: their
#: possessive before a noun ("my roll") and standing alone ("5 items of mine").
_PRONOUN_POSSESSIVES = {"me": ("my", "mine"), "i": ("my", "mine"), "you": ("your", "yours")}


def possessive(name: str, alone: bool = False) -> str:
    """The possessive of a player's name in running text, the one home of that form for every
    command and the page: ``Ben's``, ``Ross's`` (``'s`` whatever the last letter), ``the
    opponent's``, ``opponent 2's``; a name that is a pronoun, in any case, its possessive pronoun:
    ``me`` / ``Me`` / ``I`` -> ``my``, ``you`` -> ``your`` ("my roll", not "me's roll"). With
    ``alone`` the form that stands for the thing owned: ``mine``, ``yours``, ``Ben's`` ("5 items
    of mine")."""
    pronoun = _PRONOUN_POSSESSIVES.get(name.casefold())
    if pronoun is not None:
        return pronoun[1] if alone else pronoun[0]
    return f"{name}'s"


def char_width(char: str) -> int:
    """Terminal columns one character takes: 2 for a wide or full-width one (CJK, East Asian
    ``W``/``F``), 0 for a combining mark or an invisible format character, else 1."""
    import unicodedata

    if unicodedata.combining(char) or unicodedata.category(char) in ("Mn", "Me", "Cf"):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def display_width(text: str) -> int:
    """Terminal columns ``text`` (one line) takes (:func:`char_width` of each character)."""
    return sum(char_width(c) for c in text)


def cut_to_width(text: str, width: int) -> str:
    """The longest start of ``text`` that takes at most ``width`` terminal columns."""
    used = 0
    for i, char in enumerate(text):
        used += char_width(char)
        if used > width:
            return text[:i]
    return text


def pad_to_width(text: str, width: int) -> str:
    """``text`` followed by spaces up to ``width`` terminal columns (``str.ljust`` by display
    width)."""
    return text + " " * max(0, width - display_width(text))


def csv_cell(value: Any) -> Any:
    """A CSV cell: text made :func:`printable`, and text a spreadsheet would run as a formula
    (a leading ``=``, ``+``, ``-``, ``@``, tab or carriage return, not a number such as ``-1.5``
    or ``-3/4`` nor a lone ``-``) led by a single quote, so it shows as text. Numbers are left as they are."""
    if not isinstance(value, str):
        return value
    text = printable(value)
    if text.startswith(_FORMULA_START) and text not in ("-", "+") and not _NUMBER.fullmatch(text):
        return "'" + text
    return text


def exact(value: Fraction | int) -> str:
    """An exact rational as ``"p/q"`` (always with a denominator, e.g. ``"3/1"``)."""
    f = Fraction(value)
    return f"{f.numerator}/{f.denominator}"


def rounded(value: Fraction | int, places: int) -> str:
    """An exact rational rounded half away from zero to ``places`` decimals, e.g.
    ``rounded(Fraction(1773, 20), 1) == "88.7"`` (a float would print 88.6)."""
    f = Fraction(value)
    scaled = abs(f) * 10**places
    units = int(scaled) + (1 if scaled - int(scaled) >= Fraction(1, 2) else 0)
    text = str(units).rjust(places + 1, "0")
    body = f"{text[:-places]}.{text[-places:]}" if places else text
    return f"-{body}" if f < 0 and units else body


def percent(value: Fraction | int, places: int = 2) -> str:
    """A probability as a percentage for display, e.g. ``12.35%``: the one formatter of every
    command (docs/formats.md, "Numbers"). A chance strictly between 0 and 1 never prints as a certainty: when
    rounding would show ``100.00%`` or ``0.00%`` it prints ``>99.99%`` or ``<0.01%`` (the
    smallest step at ``places`` decimals). Exactly 0 and 1 print ``0.00%`` and ``100.00%``."""
    f = Fraction(value)
    text = rounded(f * 100, places)
    if 0 < f < 1:
        step = Fraction(1, 10**places)
        if Fraction(text) >= 100:
            return f">{rounded(100 - step, places)}%"
        if Fraction(text) <= 0:
            return f"<{rounded(step, places)}%"
    return f"{text}%"


def loss_cell(loss: Fraction | int, places: int) -> str:
    """A loss (>= 0: how far a choice, or a player's decisions, fall short of the best) at
    ``places`` decimals from the exact value: ``0`` for exactly none, the smallest step with
    ``<`` (``<0.1`` at one decimal) for a loss that is not zero but rounds to it, so it never
    reads as no loss, else rounded half away from zero (:func:`rounded`): ``loss_cell(Fraction(1,
    400) * 100, 1) == "0.3"`` (0.25 percentage points). ``review``'s total loss and ``serve``'s
    difference to the best (docs/serve.md) print it."""
    f = Fraction(loss)
    if f == 0:
        return "0"
    text = rounded(f, places)
    if 0 < f and Fraction(text) == 0:
        return f"<{rounded(Fraction(1, 10**places), places)}"
    return text


def shown_loss_cell(best: Fraction | int, found: Fraction | int, shown_places: int, places: int) -> str:
    """How far ``found`` falls short of ``best`` as a reader computes it from the two figures shown
    beside it, each rounded to ``shown_places`` decimals (:func:`rounded`): their difference at
    ``places`` decimals (:func:`loss_cell`), so ``58.44`` and ``58.06``, shown ``58.4`` and
    ``58.1``, fall ``0.3`` apart, not the ``0.4`` of the unrounded gap; ``0`` for exactly none, and
    where the two print alike but differ the smallest step with ``<`` (``<0.1``: never ``0``
    beside a loss, never a step beside two equal figures). A ``found`` above ``best`` is
    :func:`loss_cell` of the negative gap. ``serve``'s difference to the best prints it
    (docs/serve.md)."""
    gap = Fraction(best) - Fraction(found)
    if gap <= 0:
        return loss_cell(gap, places)
    shown = Fraction(rounded(best, shown_places)) - Fraction(rounded(found, shown_places))
    if shown > 0:  # (a rounding never reverses an order: never below 0 here)
        return loss_cell(shown, places)
    return f"<{rounded(Fraction(1, 10**places), places)}"  # alike as shown, yet a loss


def share_units(values: Sequence[Fraction], places: int, pinned: Collection[int] = ()) -> list[int] | None:
    """Shares that add up to exactly 1 (every seat's chance to win, D20) as whole display units
    of ``10**-places`` percent that add up to exactly 100%: the largest-remainder rounding. Each
    share gets its exact value rounded down or up (so it stays within one unit of its own
    rounding), the units left over going to the largest remainders (the earlier seat first on a
    tie), with two limits: a positive share gets at least one unit (never ``0``) and a share below
    1 at most all but one (never ``100``); exactly 0 and 1 stay 0 and all. ``None`` where the
    shares do not add up to 1 (or one is negative), or where the limits cannot all hold (more
    shares below one unit than the units left allow: 99.97%, 0.01%, 0.01%, 0.01% at one
    decimal): the caller then rounds each share on its own (:func:`percent`).

    ``pinned``: the indices of shares that keep their own rounding (:func:`rounded`, half away
    from zero, within the two limits), because another screen shows the same figure on its own
    (the chance the advice gave the marking just made, the roller's value): the others absorb
    what is left over. ``None`` too where they cannot.

    Example: ``share_units([1/3, 1/3, 1/3], 1) == [334, 333, 333]`` (33.4% + 33.3% + 33.3%);
    pinning the first, ``[333, 334, 333]``."""
    if sum(values, Fraction(0)) != 1 or any(v < 0 for v in values):
        return None
    scale = 100 * 10**places
    scaled = [Fraction(v) * scale for v in values]
    low = [max(math.floor(x), 1 if v > 0 else 0) for v, x in zip(values, scaled)]
    high = [min(math.ceil(x), scale - 1 if v < 1 else scale) for v, x in zip(values, scaled)]
    for i in pinned:
        own = min(max(int(Fraction(rounded(scaled[i], 0))), low[i]), high[i])
        low[i] = high[i] = own
    return units_adding_to(scaled, scale, low, high)


def share_texts(values: Sequence[Fraction], places: int, alone: Callable[[Fraction], str],
                pinned: Collection[int] = ()) -> list[str]:
    """Shares that add up to 1 shown side by side so that they read 100% (:func:`share_units`,
    ``pinned`` as there), each ``alone(value)`` where it is exactly 0 or 1 or where the shares
    cannot be rounded so (``alone``: how the caller prints one share, e.g. :func:`percent` at
    ``places``)."""
    units = share_units(values, places, pinned)
    if units is None:
        return [alone(v) for v in values]
    return [alone(v) if v in (0, 1) or i in pinned else f"{rounded(Fraction(u, 10**places), places)}%"
            for i, (v, u) in enumerate(zip(values, units))]


def units_adding_to(scaled: Sequence[Fraction], total: int, low: Sequence[int] | None = None,
                    high: Sequence[int] | None = None) -> list[int] | None:
    """Whole units, one per value of ``scaled`` (values already in display units), that add up to
    ``total``: the largest-remainder rounding. Each value starts at ``low`` (default: rounded
    down) and may be raised to ``high`` (default: rounded up) by one unit; the units left over go
    to the largest remainders, the earlier value first on a tie. ``None`` where ``total`` is out
    of reach (more or fewer units left than values that can be raised). The one rounding of
    :func:`share_units` and of the review's parts of a change (``review_report.parts_in_tenths``).

    Example: ``units_adding_to([Fraction(10, 3)] * 3, 10) == [4, 3, 3]``."""
    units = [math.floor(x) for x in scaled] if low is None else list(low)
    ceiling = [math.ceil(x) for x in scaled] if high is None else high
    spare = total - sum(units)
    raisable = sorted((i for i in range(len(scaled)) if ceiling[i] > units[i]), key=lambda i: (units[i] - scaled[i], i))
    if spare < 0 or spare > len(raisable):
        return None
    for i in raisable[:spare]:
        units[i] += 1
    return units


#: Decimals of a value that is not a chance in the tables (:func:`decimal`'s default): ``6.1113``.
VALUE_PLACES = 4


def and_list(items: Sequence[str]) -> str:
    """Names joined as English, the one way every report lists them in a sentence: ``A``, ``A and
    B``, ``A, B and C`` (``""`` for none)."""
    if len(items) < 2:
        return "".join(items)
    return f"{', '.join(items[:-1])} and {items[-1]}"


def decimal(value: Fraction, places: int = VALUE_PLACES) -> str:
    """A value as a decimal for display (:data:`VALUE_PLACES` decimals unless told)."""
    return rounded(value, places)


def signed(value: float, places: int) -> str:
    """A difference for display with its sign, ``+6.0``, ``-9.7`` (a float, display only); what
    rounds to zero at ``places`` decimals is ``0.0``, never ``-0.0`` or ``+0.0``."""
    text = f"{value:+.{places}f}"
    return text[1:] if float(text) == 0 else text


def fixed(value: float, places: int) -> str:
    """A float for display at ``places`` decimals, ``3.25``, ``-1.50`` (display only); what rounds
    to zero is ``0.00``, never ``-0.00`` (as :func:`signed`, without the ``+``)."""
    text = f"{value:.{places}f}"
    return text.lstrip("-") if float(text) == 0 else text


def interval(low: float, high: float, end: Callable[[float], str]) -> str:
    """A 95% interval (or ``odds``' 99% one) as every output writes it (docs/formats.md,
    "Numbers"): ``[low, high]``, each end printed by ``end`` in the units of the figure it goes
    with, ``[48.9%, 57.1%]`` (a chance), ``[11.20, 13.48]`` (a mean), ``[-9.7, +0.5]`` (a
    difference, :func:`signed`).
    The one form of ``simulate``, ``tile simulate``, ``tile advise``, ``odds``, ``rollout``,
    ``solve-game --report`` and ``serve``'s rollout; JSON keeps the ends as floats (``ci95``).
    Where there is no interval (one game, every game alike: NaN ends) the caller says so instead
    (:func:`stats.no_interval_words`, in the same brackets)."""
    return f"[{end(low)}, {end(high)}]"


#: The units of :func:`binary_size`, each 1024 times the one before.
SIZE_UNITS = ("B", "KiB", "MiB", "GiB", "TiB")


def binary_size(size: int) -> str:
    """A size in bytes for display, in the largest unit of :data:`SIZE_UNITS` whose count (rounded
    to one decimal, exactly) is at least 1: ``512 B``, ``16.0 KiB``, ``2.6 MiB``, ``256.0 MiB``; a
    count that rounds to 1024 is told in the next unit (``1.0 MiB``, not ``1024.0 KiB``)."""
    if size < 1024:
        return f"{size} B"
    unit = 1
    while unit + 1 < len(SIZE_UNITS) and Fraction(size, 1024 ** (unit + 1)) >= Fraction(20479, 20480):
        unit += 1  # 20479/20480 = 1023.95/1024: from there the count would round to 1024.0
    return f"{rounded(Fraction(size, 1024 ** unit), 1)} {SIZE_UNITS[unit]}"


#: Significant digits of "1 in X" before more are added to tell values apart.
ONE_IN_DIGITS = 3
_ONE_IN_MAX_DIGITS = 15


def one_in(value: Fraction | int) -> str:
    """A probability as "1 in X" for display (``never`` for 0, ``certain`` for 1): X = 1/value to
    :data:`ONE_IN_DIGITS` significant digits (whole numbers keep all their digits), more when
    needed so a chance below 1 never shows as ``1 in 1``."""
    return one_in_texts([value])[0]


def one_in_texts(values: list[Fraction] | list[Fraction | int]) -> list[str]:
    """:func:`one_in` of several probabilities shown together (a table column, an optimal and a
    baseline line), with the fewest significant digits (at least :data:`ONE_IN_DIGITS`) that
    print different chances differently, e.g. 15/16 and 7/8 as ``1 in 1.07`` and ``1 in 1.14``;
    ``never`` for 0 and ``certain`` for 1 (not ``1 in 1``)."""
    chances = [Fraction(v) for v in values]
    distinct = sorted(set(c for c in chances if c > 0))
    for digits in range(ONE_IN_DIGITS, _ONE_IN_MAX_DIGITS + 1):
        texts = {c: _one_in(c, digits) for c in distinct}
        clear = len(set(texts.values())) == len(distinct) and all(
            c == 1 or texts[c] != "1 in 1" for c in distinct)
        if clear:
            break
    return ["never" if c <= 0 else "certain" if c >= 1 else texts[c] for c in chances]


def _one_in(chance: Fraction, digits: int) -> str:
    """``1 in X`` with X = 1/chance to ``digits`` significant digits (trailing zeros dropped)."""
    x = 1 / chance
    whole = len(str(int(x))) if x >= 1 else 1
    text = rounded(x, max(0, digits - whole))
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    head, _, tail = text.partition(".")
    return f"1 in {int(head):,}" + (f".{tail}" if tail else "")


@dataclass
class Report:
    """Content of a command's output, independent of the format.

    Attributes:
        title: lines printed above the table (table and Markdown formats).
        headers: the table's column names (CSV header too).
        rows: the table's rows (display strings or numbers).
        data: the JSON object (exact values as ``"p/q"`` strings).
        notes: lines printed below the table (table and Markdown formats).
        records: the rows for CSV, as flat machine-readable records (exact ``"p/q"`` values and
            floats, no display text); ``None`` = the table's rows.
        narrow: headers of columns that :func:`render` with a ``width`` drops, first first, while the
            table is still wider than the width (what the other columns or the notes also say).
        split: how :func:`render` with a ``width`` splits a table still wider than the width into
            tables one under the other, nothing dropped (:func:`fit_table`): the first list names the
            key columns repeated in every part (what tells the rows apart), each further list a group
            of columns kept together; ``[]`` = never split.
    """

    title: list[str]
    headers: list[str]
    rows: list[list[Any]]
    data: dict[str, Any]
    notes: list[str] = field(default_factory=list)
    records: list[dict[str, Any]] | None = None
    narrow: list[str] = field(default_factory=list)
    split: list[list[str]] = field(default_factory=list)

    def note(self, line: str, key: str) -> None:
        """Say ``line`` in every format: under the table (table, Markdown) and as the JSON key ``key``."""
        self.notes.append(line)
        self.data[key] = line


#: The terminal width the advice of ``advise`` and ``play`` fits by default (docs/play.md, "80 columns").
TABLE_WIDTH = 80

#: The header of a column of exact ``p/q`` values: shown in table and Markdown output only when
#: asked (``render(..., exact=True)``, the commands' ``--exact``); JSON and CSV always have them.
EXACT_HEADER = "exact"


def render(report: Report, fmt: str, width: int | None = None, exact: bool = True) -> str:
    """Format a report as ``table``, ``json``, ``csv`` or ``markdown`` (text ending in a newline).

    For ``table`` and ``markdown``: without ``exact`` the :data:`EXACT_HEADER` column is left out.
    With a ``width`` (``table`` only) the table is fitted to it (:func:`fit_table`) and every
    title and note line longer than ``width`` is wrapped at spaces (continued indented by two).
    """
    if fmt == "json":
        import json  # here: the table output (advise's start-up) needs neither json nor csv

        return json.dumps(report.data, indent=2) + "\n"
    if fmt == "csv":
        import csv
        import io

        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        if report.records is None:
            writer.writerow([csv_cell(h) for h in report.headers])
            writer.writerows([csv_cell(cell) for cell in row] for row in report.rows)
        else:
            flat = [_flatten(record) for record in report.records]
            header = list(dict.fromkeys(key for record in flat for key in record))
            writer.writerow([csv_cell(h) for h in header])
            writer.writerows([csv_cell(record.get(key, "")) for key in header] for record in flat)
        return out.getvalue()
    headers, rows = report.headers, report.rows
    if not exact and EXACT_HEADER in headers:
        headers, rows = _without(headers, rows, EXACT_HEADER)
    style = "github" if fmt == "markdown" else "simple"
    if fmt == "markdown":
        table = _tabulate(headers, rows, style)
        parts = ["\n\n".join(report.title), table]
        parts += ["\n".join(f"- {n}" for n in report.notes)] if report.notes else []
        return printable("\n\n".join(p for p in parts if p) + "\n")
    title, notes = report.title, report.notes
    if width is None:
        table = _tabulate(headers, rows, style)
    else:
        table = fit_table(headers, rows, width, report.narrow, report.split)
        title, notes = wrap_lines(title, width), wrap_lines(notes, width)
    parts = ["\n".join(title), table]
    parts += ["\n".join(notes)] if notes else []
    return printable("\n\n".join(p for p in parts if p) + "\n")


def _tabulate(headers: list[str], rows: list[list[Any]], style: str, padding: int | None = None) -> str:
    """The table as text ("" without rows); ``padding``: tabulate's space added to each header
    (its default 2 when ``None``)."""
    if not rows:
        return ""
    tabulate = import_tabulate()  # imported here: JSON and CSV output never need it
    import tabulate as module

    if module.wcwidth is None and not _plain_ascii(headers, rows):
        _wide_characters(module)
    saved = module.MIN_PADDING
    if padding is not None:
        module.MIN_PADDING = padding
    try:
        return str(tabulate(rows, headers, tablefmt=style, disable_numparse=True))
    finally:
        module.MIN_PADDING = saved


def _without(headers: list[str], rows: list[list[Any]], name: str) -> tuple[list[str], list[list[Any]]]:
    """The table without the column headed ``name``."""
    at = headers.index(name)
    return headers[:at] + headers[at + 1:], [row[:at] + row[at + 1:] for row in rows]


def fit_table(headers: list[str], rows: list[list[Any]], width: int, narrow: list[str] | None = None,
              split: list[list[str]] | None = None) -> str:
    """The plain table within ``width`` columns where it can be: as it is; else without the
    padding of the headers; else without the ``narrow`` columns, one at a time in order; else,
    with a ``split`` (``[keys, group, group, ...]``, headers; see :attr:`Report.split`), as several
    tables separated by a blank line, each the key columns and as many whole groups, in order, as
    fit. Wider only when even that is not enough (a board with many columns, long names)."""
    def fits(text: str) -> bool:
        return max((len(line) for line in text.splitlines()), default=0) <= width

    table = _tabulate(headers, rows, "simple")
    if fits(table):
        return table
    table = _tabulate(headers, rows, "simple", padding=0)
    for name in narrow or []:
        if fits(table):
            break
        if name in headers:
            headers, rows = _without(headers, rows, name)
            table = _tabulate(headers, rows, "simple", padding=0)
    if split and not fits(table):
        table = _split_table(headers, rows, split, fits, width)
    return table


def _split_table(headers: list[str], rows: list[list[Any]], split: list[list[str]],
                 fits: Callable[[str], bool], width: int) -> str:
    """The table as parts (:func:`fit_table`): key columns + consecutive whole groups while they
    fit; columns that ``split`` does not name form a last group (no column is lost). A part still
    wider than ``width`` for a long header (a strategy named by a long file path) has that header
    on several lines, cut where the width needs it (every character kept)."""
    import textwrap

    def part(names: list[str], cut: bool = True) -> str:
        at = [headers.index(name) for name in names]
        shown, cells = [headers[i] for i in at], [[row[i] for i in at] for row in rows]
        table = _tabulate(shown, cells, "simple", padding=0)
        over = max((len(line) for line in table.splitlines()), default=0) - width
        longest = max((len(h) for h in shown[len(keys):]), default=0)
        if cut and over > 0 and longest - over >= 8:  # not below 8 columns: then the part stays wide
            limit = longest - over
            shown = shown[:len(keys)] + ["\n".join(textwrap.wrap(h, limit, break_on_hyphens=False)) if len(h) > limit
                                         else h for h in shown[len(keys):]]
            table = _tabulate(shown, cells, "simple", padding=0)
        return table

    keys = [name for name in split[0] if name in headers]
    groups = [g for g in ([name for name in group if name in headers and name not in keys] for group in split[1:]) if g]
    named = set(keys).union(*groups)
    groups += [[name for name in headers if name not in named]] if not named.issuperset(headers) else []
    parts: list[list[str]] = []
    for group in groups:
        if parts and fits(part(keys + parts[-1] + group, cut=False)):
            parts[-1] += group
        else:
            parts.append(list(group))
    return "\n\n".join(part(keys + names) for names in parts)


#: A figure and the word after it (its unit: ``0 points``, ``2 re-rolls``, ``99.46% chance``),
#: which :func:`wrap_lines` keeps on one line.
_FIGURE_UNIT = re.compile(r"(?<![^\s(])([<>~+-]?[0-9][0-9.,/]*%?) (?=[A-Za-z])")

#: What stands for the space of a figure and its unit while a line is wrapped (a private-use
#: character, never in the text: textwrap breaks only at ASCII white space).
_KEPT_SPACE = "\ue000"


def wrap_lines(lines: list[str], width: int) -> list[str]:
    """Each line (or each line of a multi-line entry) longer than ``width`` wrapped at spaces,
    continued on lines indented by two spaces more than the line itself (a list item ``"  rank 2:
    ..."`` continues at four); words are never broken, so a word longer than the width stays whole,
    and a figure is never parted from the word after it, its unit (``score now 0 points``, not
    ``0`` at one line's end and ``points`` at the next's start). Lines that fit are left exactly
    as they are (grids, tables)."""
    import textwrap

    out = []
    for entry in lines:
        parts = []
        for line in entry.split("\n"):
            if len(line) <= width:
                parts.append(line)
            else:
                indent = line[:len(line) - len(line.lstrip(" "))] + "  "
                bound = _KEPT_SPACE not in line  # (never in the text; if it were, the line is wrapped as it is)
                kept = _FIGURE_UNIT.sub(lambda m: m.group(1) + _KEPT_SPACE, line) if bound else line
                wrapped = textwrap.wrap(kept, width, subsequent_indent=indent, break_long_words=False,
                                        break_on_hyphens=False)
                parts.extend(part.replace(_KEPT_SPACE, " ") if bound else part for part in wrapped)
        out.append("\n".join(parts))
    return out


def _flatten(record: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """One CSV record: nested objects become ``key_sub`` columns, lists space-separated text."""
    flat: dict[str, Any] = {}
    for key, value in record.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            flat.update(_flatten(value, f"{name}_"))
        elif isinstance(value, list):
            flat[name] = " ".join(str(v) for v in value)
        else:
            flat[name] = "" if value is None else value
    return flat


def rank_text(rank: int, ranks: list[int]) -> str:
    """``"2="`` when several rows share rank 2 (an exact tie), else ``"2"``."""
    return f"{rank}=" if ranks.count(rank) > 1 else str(rank)


def _plain_ascii(headers: list[str], rows: list[list[Any]]) -> bool:
    """Whether every header and cell is printable ASCII (or a line break), whose display width
    is its length: wcwidth would measure each the same."""
    texts = [*headers, *(cell for row in rows for cell in row)]
    return all(str(text).isascii() and all(" " <= c <= "~" or c == "\n" for c in str(text)) for text in texts)


def _wide_characters(module: Any) -> None:
    """Turn on tabulate's wide-character widths (``wcwidth``, when installed), as importing
    tabulate with wcwidth would have: a table with non-ASCII text (a player's name in CJK
    characters, an emoji) aligns by display width."""
    try:
        import wcwidth
    except ImportError:
        return
    module.wcwidth = wcwidth
    module.WIDE_CHARS_MODE = True


def import_tabulate() -> Any:
    """``tabulate.tabulate``, imported without loading ``importlib.metadata`` or ``wcwidth``.

    tabulate's ``__init__`` asks ``importlib.metadata`` for its own version string, which costs
    about a third of ``advise``'s start-up (the module and a scan of site-packages; docs/performance.md),
    and then takes the version from its ``version`` module anyway. When ``importlib.metadata``
    is not loaded yet, a stand-in answering "not found" is in place for that one import only.
    tabulate also imports ``wcwidth`` (and with it ``secrets`` and ``hashlib``: 20-50 ms of
    ``advise``'s start-up) for the display width of wide characters; it is imported only for a
    table that has a character other than printable ASCII (:func:`_wide_characters`), where the
    widths differ from the lengths, so every table is laid out as before.
    """
    import sys

    if "tabulate" not in sys.modules and "wcwidth" not in sys.modules:
        sys.modules["wcwidth"] = None  # type: ignore[assignment]  # `import wcwidth` fails: tabulate's wcwidth is None
        try:
            return import_tabulate()
        finally:
            del sys.modules["wcwidth"]
    if "tabulate" not in sys.modules and "importlib.metadata" not in sys.modules:
        import types

        class PackageNotFoundError(ModuleNotFoundError):
            """The stand-in's "not found"."""

        def version(name: str) -> str:
            raise PackageNotFoundError(name)

        stand_in = types.ModuleType("importlib.metadata")
        stand_in.version = version  # type: ignore[attr-defined]
        stand_in.PackageNotFoundError = PackageNotFoundError  # type: ignore[attr-defined]
        sys.modules["importlib.metadata"] = stand_in
        try:
            import tabulate
        finally:
            del sys.modules["importlib.metadata"]
    import tabulate

    return tabulate.tabulate
