"""``shelfie-solve cache``: where the table cache is, how full, and a way to empty it (docs/cache.md).

The cache itself, its bound and its eviction live in the click-free :mod:`shelfie_solver.core.diskcache`.
"""

from __future__ import annotations

from typing import Any

import click

import os

from shelfie_solver.core.compiled import compiled_cache_dir
from shelfie_solver.core.report import Report, binary_size, render
from shelfie_solver.core.diskcache import cache_dir, cache_limit, entries, evict
from shelfie_solver.cli.options import format_option


def _entries(count: int) -> str:
    return f"{count} {'entry' if count == 1 else 'entries'}"


@click.command("cache", short_help="Show the table cache's place and size, or empty it.")
@click.option("--clear", is_flag=True, help="Remove every cache entry (they are rebuilt when next needed).")
@format_option
def cache_command(clear: bool, fmt: str) -> None:
    """Show where the tables built once per ruleset and board are kept (SHELFIE_SOLVE_CACHE), how
    many entries of each kind and their size against the bound (SHELFIE_SOLVE_CACHE_MAX, default
    256M: past it the least recently used entries are removed); with --clear, remove them all first.
    Also where numba keeps the compiled kernels of the [fast] extra (NUMBA_CACHE_DIR), which
    --clear leaves alone.

    \b
    Examples:
      shelfie-solve cache
      shelfie-solve cache --clear
    """
    limit, folder = cache_limit(), cache_dir()
    data: dict[str, Any] = {"directory": None if folder is None else str(folder), "enabled": bool(folder and limit),
                            "limit_bytes": limit}
    title = []
    if clear and folder is not None:
        removed = evict(folder, 0)
        data["removed"] = {"entries": len(removed), "bytes": sum(e.size for e in removed)}
        title.append(f"Removed {_entries(len(removed))} ({binary_size(data['removed']['bytes'])}).")
    found = [] if folder is None else entries(folder)
    total = sum(e.size for e in found)
    kinds: dict[str, list[int]] = {}
    for entry in sorted(found, key=lambda e: e.kind):
        count_size = kinds.setdefault(entry.kind, [0, 0])
        count_size[0] += 1
        count_size[1] += entry.size
    data.update(entries=len(found), bytes=total, kinds={k: {"entries": n, "bytes": b} for k, (n, b) in kinds.items()})
    if folder is None:
        title.insert(0, "Table cache: off (SHELFIE_SOLVE_CACHE=off); tables are built in memory each run.")
    else:
        state = "" if limit else " (SHELFIE_SOLVE_CACHE_MAX=0: nothing new is kept)"
        title.insert(0, f"Table cache: {folder}{state}")
        title.append(f"{_entries(len(found))}, {binary_size(total)} of at most {binary_size(limit)} (SHELFIE_SOLVE_CACHE_MAX); "
                     "least recently used entries are removed past the bound.")
    compiled = compiled_cache_dir(os.environ)
    sizes = [p.stat().st_size for p in compiled.rglob("*") if p.is_file()] if compiled.is_dir() else []
    data["compiled"] = {"directory": str(compiled), "files": len(sizes), "bytes": sum(sizes)}
    title.append(f"Compiled kernels ([fast] extra): {compiled}, {len(sizes)} {'file' if len(sizes) == 1 else 'files'}, "
                 f"{binary_size(sum(sizes))}; not bounded or cleared here (delete the folder to compile again).")
    rows: list[list[Any]] = [[kind, n, binary_size(b)] for kind, (n, b) in kinds.items()]
    records = [{"kind": kind, "entries": n, "bytes": b} for kind, (n, b) in kinds.items()]
    headers = ["kind", "entries", "bytes" if fmt == "csv" else "size"]  # CSV: the records' columns, also when empty
    click.echo(render(Report(title, headers, rows, data, records=records or None), fmt), nl=False)
