"""Benchmarks (not pass/fail tests): run `python benchmarks/bench.py`, paste into docs/performance.md.

Each benchmarks/bench_*.py module exposes ``run() -> list[tuple[str, str, str]]`` rows of
(measurement, result, target); this script prints the machine and every row as Markdown.
Figures are given as min / median / max over repeated samples (:func:`spread`), and each
speed figure with its ratio to a baseline measured in the same run (the machine may be shared:
absolute times move with the load, ratios much less).
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


def spread(samples: list[float], scale: float = 1.0, digits: int = 2, unit: str = "") -> str:
    """``min / median / max`` of samples (times ``scale``), e.g. ``1.20 / 1.31 / 1.90 ms``."""
    import statistics

    low, mid, high = min(samples), statistics.median(samples), max(samples)
    return " / ".join(f"{v * scale:.{digits}f}" for v in (low, mid, high)) + (f" {unit}" if unit else "")


def load() -> str:
    """The 1-minute load average (how shared the machine was)."""
    try:
        return f"{os.getloadavg()[0]:.1f}"
    except OSError:
        return "?"


def main() -> None:
    only = sys.argv[1:]
    names = sorted(path.stem.removeprefix("bench_") for path in HERE.glob("bench_*.py"))
    if any(arg in ("-h", "--help") for arg in only):
        print(f"usage: python benchmarks/bench.py [NAME...]  (all when none given; names: {', '.join(names)})")
        return
    unknown = [arg for arg in only if arg not in names]
    if unknown:
        sys.exit(f"Error: unknown benchmark {', '.join(unknown)}; expected one of {', '.join(names)}")
    print(f"Machine: {machine()}; load average at start {load()}\n")
    print("| measurement | result | target |\n|---|---|---|")
    for path in sorted(HERE.glob("bench_*.py")):
        if only and path.stem.removeprefix("bench_") not in only:
            continue
        module = importlib.import_module(path.stem)
        for row in module.run():
            print("| " + " | ".join(row) + " |", flush=True)


if __name__ == "__main__":
    main()
