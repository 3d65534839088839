"""Output: plain tables, JSON, CSV and Markdown for every command (floats only for display).

A report is a :class:`Report`: title lines, one table (headers + rows), and a JSON object.
:func:`render` turns it into the requested format, so each command builds its content once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

FORMATS = ("table", "json", "csv", "markdown")


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
    command (issue 8 §3). A chance strictly between 0 and 1 never prints as a certainty: when
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


def decimal(value: Fraction, places: int = 4) -> str:
    """A value as a decimal for display."""
    return rounded(value, places)


#: Significant digits of "1 in X" before more are added to tell values apart.
ONE_IN_DIGITS = 3
_ONE_IN_MAX_DIGITS = 15


def one_in(value: Fraction | int) -> str:
    """A probability as "1 in X" for display (``never`` for 0): X = 1/value to
    :data:`ONE_IN_DIGITS` significant digits (whole numbers keep all their digits), more when
    needed so a chance below 1 never shows as ``1 in 1``."""
    return one_in_texts([value])[0]


def one_in_texts(values: list[Fraction] | list[Fraction | int]) -> list[str]:
    """:func:`one_in` of several probabilities shown together (a table column, an optimal and a
    baseline line), with the fewest significant digits (at least :data:`ONE_IN_DIGITS`) that
    print different chances differently, e.g. 15/16 and 7/8 as ``1 in 1.07`` and ``1 in 1.14``."""
    chances = [Fraction(v) for v in values]
    distinct = sorted(set(c for c in chances if c > 0))
    for digits in range(ONE_IN_DIGITS, _ONE_IN_MAX_DIGITS + 1):
        texts = {c: _one_in(c, digits) for c in distinct}
        clear = len(set(texts.values())) == len(distinct) and all(
            c == 1 or texts[c] != "1 in 1" for c in distinct)
        if clear:
            break
    return ["never" if c <= 0 else texts[c] for c in chances]


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
    """

    title: list[str]
    headers: list[str]
    rows: list[list[Any]]
    data: dict[str, Any]
    notes: list[str] = field(default_factory=list)
    records: list[dict[str, Any]] | None = None


def render(report: Report, fmt: str) -> str:
    """Format a report as ``table``, ``json``, ``csv`` or ``markdown`` (text ending in a newline)."""
    if fmt == "json":
        import json  # here: the table output (advise's start-up) needs neither json nor csv

        return json.dumps(report.data, indent=2) + "\n"
    if fmt == "csv":
        import csv
        import io

        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        if report.records is None:
            writer.writerow(report.headers)
            writer.writerows(report.rows)
        else:
            flat = [_flatten(record) for record in report.records]
            header = list(dict.fromkeys(key for record in flat for key in record))
            writer.writerow(header)
            writer.writerows([record.get(key, "") for key in header] for record in flat)
        return out.getvalue()
    tabulate = import_tabulate()  # imported here: JSON and CSV output never need it
    style = "github" if fmt == "markdown" else "simple"
    table = tabulate(report.rows, report.headers, tablefmt=style, disable_numparse=True) if report.rows else ""
    if fmt == "markdown":
        parts = ["\n\n".join(report.title), table]
        parts += ["\n".join(f"- {n}" for n in report.notes)] if report.notes else []
        return "\n\n".join(p for p in parts if p) + "\n"
    parts = ["\n".join(report.title), table]
    parts += ["\n".join(report.notes)] if report.notes else []
    return "\n\n".join(p for p in parts if p) + "\n"


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


def import_tabulate() -> Any:
    """``tabulate.tabulate``, imported without loading ``importlib.metadata``.

    tabulate's ``__init__`` asks ``importlib.metadata`` for its own version string, which costs
    about a third of ``advise``'s start-up (the module and a scan of site-packages; issue 12 §6),
    and then takes the version from its ``version`` module anyway. When ``importlib.metadata``
    is not loaded yet, a stand-in answering "not found" is in place for that one import only.
    """
    import sys

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
