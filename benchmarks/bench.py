"""Benchmarks (not pass/fail tests): run `python benchmarks/bench.py`, paste into docs/performance.md.

Each benchmarks/bench_*.py module exposes ``run() -> list[tuple[str, str, str]]`` rows of
(measurement, result, target); this script prints the machine and every row as Markdown.
"""

from __future__ import annotations

import importlib
import os
import platform
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def machine() -> str:
    """One line describing the machine the numbers come from."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, {platform.system()} {platform.release()}"


def main() -> None:
    only = sys.argv[1:]
    print(f"Machine: {machine()}\n")
    print("| measurement | result | target |\n|---|---|---|")
    for path in sorted(HERE.glob("bench_*.py")):
        if only and path.stem.removeprefix("bench_") not in only:
            continue
        module = importlib.import_module(path.stem)
        for row in module.run():
            print("| " + " | ".join(row) + " |", flush=True)


if __name__ == "__main__":
    main()
