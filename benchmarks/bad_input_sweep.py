"""Try about a hundred nasty inputs across every command, each in its own process, and check
the rule of issue 8 §5: bad input is refused with exactly one line ``Error: ...`` on stderr,
nothing on stdout and exit code 2, never a traceback; heavy but accepted input runs (exit 0);
both within bounded time and memory.

    python benchmarks/bad_input_sweep.py          # prints one row per input and a summary

Each case runs ``shelfie-solve`` (this checkout) with a 120 s timeout; its peak resident memory
comes from ``os.wait4``. Exit status: 0 when every case follows the rule.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CLI = [sys.executable, "-c", "from shelfie_solver.cli import main; main()"]


def files(tmp: Path) -> dict[str, str]:
    """Nasty files, by name."""
    out: dict[str, str] = {}

    def put(name: str, data: bytes | str) -> None:
        path = tmp / name
        path.write_bytes(data if isinstance(data, bytes) else data.encode())
        out[name] = str(path)

    put("deep-list.toml", "dice = " + "[" * 500 + "]" * 500 + "\n")
    put("deep-table.toml", "x = " + "{a = " * 200 + "1" + "}" * 200 + "\n")
    put("dotted.toml", "a." * 100_000 + "b = 1\n")
    put("dotted-small.toml", "a." * 20 + "b = 1\n")
    put("big.toml", "# " + "x" * 2_000_000 + "\n")
    put("empty.toml", "")
    put("binary.toml", bytes(range(256)) * 10)
    put("latin1.toml", b'name = "caf\xe9"\n')
    put("bom-bad.toml", b"\xef\xbb\xbfdice = 0\n")
    put("dice0.toml", "dice = 0\n")
    put("bom-ok.toml", b"\xef\xbb\xbfrerolls = 1\n")
    put("b77-one.toml", "columns = [1, 2, 3, 4, 5, 6, 1]\n" + "".join(
        f"[[shelves]]\nfaces = [\"{face}\"]\nvalues = [1, 2, 3, 4, 5, 6, 7]\n"
        for face in ["plant", "game", "book", "award", "cat", "plant", "game"]))
    put("dice13.toml", "dice = 13\n")
    put("dice-huge.toml", "dice = " + "9" * 5000 + "\n")
    put("dice-float.toml", "dice = 6.5\n")
    put("dice-str.toml", 'dice = "six"\n')
    put("dice10.toml", "dice = 10\n")
    put("dice9.toml", "dice = 9\n")
    put("combos-1e9.toml", "combinations_per_turn = 1000000000\n")
    put("combos-6.toml", "combinations_per_turn = 6\n")
    put("combos-0.toml", "combinations_per_turn = 0\n")
    put("d12c12.toml", 'dice = 12\ncombinations_per_turn = 12\nfaces = [{name = "cat", code = "C"}]\njoker = false\n')
    put("rerolls-big.toml", "rerolls = 1000000\n")
    put("threshold-big.toml", "scoring_threshold = 1000000\n")
    put("faces-empty.toml", "faces = []\n")
    put("faces-dup.toml", 'faces = [{name = "cat", code = "C"}, {name = "cat", code = "D"}]\n')
    put("faces-13.toml", "faces = [" + ", ".join(f'{{name = "f{chr(97 + i)}", code = "{chr(65 + i)}"}}'
                                                 for i in range(13)) + "]\n")
    put("code-reserved.toml", 'faces = [{name = "cat", code = "."}]\n')
    put("joker-bad.toml", "joker = 3\n")
    put("unknown-key.toml", "colour = 1\n")
    all_faces = ["plant", "game", "book", "award", "cat"]
    rows = "".join(f"[[shelves]]\nfaces = {all_faces!r}\nvalues = [1, 2, 3, 4, 5, 6, 7]\n".replace("'", '"')
                   for _ in range(7))
    put("b77-all.toml", "columns = [1, 2, 3, 4, 5, 6, 1]\n" + rows)
    put("b8x8.toml", "columns = [1, 1, 1, 1, 1, 1, 1, 1]\n" + "[[shelves]]\nfaces = [\"cat\"]\nvalues = [1, 1, 1, 1, 1, 1, 1, 1]\n" * 8)
    put("b-value-huge.toml", "columns = [1]\n[[shelves]]\nfaces = [\"cat\"]\nvalues = [" + "9" * 400 + "]\n")
    put("b-joker-face.toml", "columns = [1]\n[[shelves]]\nfaces = [\"joker\"]\nvalues = [1]\n")
    put("b-no-shelves.toml", "columns = [1, 2]\n")
    put("b-col-7.toml", "columns = [7]\n[[shelves]]\nfaces = [\"cat\"]\nvalues = [1]\n")
    put("b-mismatch.toml", "columns = [1, 2]\n[[shelves]]\nfaces = [\"cat\"]\nvalues = [1]\n")
    put("games-empty.jsonl", "")
    put("games-deep.jsonl", "[" * 5000 + "]" * 5000 + "\n")
    put("games-seed.jsonl", '{"format": "shelfie-solve game 1", "seed": ' + "5" * 5000 + "}\n")
    put("marks-bad.txt", "zz/zz\n")
    os.mkfifo(tmp / "fifo")
    out["fifo"] = str(tmp / "fifo")
    (tmp / "dir").mkdir()
    out["dir"] = str(tmp / "dir")
    (tmp / "out").mkdir()
    (tmp / "elsewhere.md").write_text("precious")
    (tmp / "out" / "cheatsheet.md").symlink_to(tmp / "elsewhere.md")
    out["out-link"] = str(tmp / "out")
    (tmp / "dangling.jsonl").symlink_to(tmp / "nowhere" / "x.jsonl")
    out["dangling"] = str(tmp / "dangling.jsonl")
    return out


def cases(f: dict[str, str]) -> list[list[str]]:
    """Command lines of nasty input (each should exit 2 with one line)."""
    long = "9" * 5000
    out: list[list[str]] = []
    for name in ("deep-list.toml", "deep-table.toml", "dotted.toml", "dotted-small.toml", "big.toml",
                 "binary.toml", "latin1.toml", "bom-bad.toml", "dice0.toml", "dice13.toml", "dice-huge.toml",
                 "dice-float.toml", "dice-str.toml", "dice10.toml", "combos-1e9.toml", "combos-6.toml",
                 "combos-0.toml", "d12c12.toml", "rerolls-big.toml", "threshold-big.toml", "faces-empty.toml",
                 "faces-dup.toml", "faces-13.toml", "code-reserved.toml", "joker-bad.toml", "unknown-key.toml",
                 "fifo", "dir"):
        out.append(["advise", "--dice", "CCBJPP", "--rules", f[name]])
    for name in ("deep-list.toml", "dotted.toml", "b77-all.toml", "b8x8.toml", "b-value-huge.toml",
                 "b-joker-face.toml", "b-no-shelves.toml", "b-col-7.toml", "b-mismatch.toml", "empty.toml", "fifo"):
        out.append(["advise", "--dice", "CCBJPP", "--board", f[name]])
    for name in ("deep-list.toml", "dice10.toml", "fifo"):
        out.append(["odds", "--target", "5*", "--rules", f[name]])
    out.append(["odds", "--target", "r7c7", "--board", f["b77-all.toml"]])
    for name in ("dice9.toml", "dice10.toml", "combos-6.toml", "deep-table.toml"):
        out.append(["cheatsheet", "--rules", f[name], "--output", f["dir"] + "/never"])
    out.append(["cheatsheet", "--board", f["b77-all.toml"], "--output", f["dir"] + "/never"])
    for name in ("combos-6.toml", "dice10.toml", "d12c12.toml"):
        out.append(["simulate", "--players", "solver", "--games", "2", "--jobs", "2", "--rules", f[name]])
    out.append(["simulate", "--players", "solver", "--games", "2", "--board", f["b77-all.toml"], "--jobs", "1"])
    out += [
        ["simulate", "--players", "greedy", "--games", "1" + "0" * 30],
        ["simulate", "--players", "greedy", "--games", "1000001"],
        ["simulate", "--players", "greedy", "--games", "0"],
        ["simulate", "--players", "greedy", "--games", "-5"],
        ["simulate", "--players", "greedy", "--seed", long],
        ["simulate", "--players", "greedy", "--seed", "-1"],
        ["simulate", "--players", "greedy", "--seed", str(2**128)],
        ["simulate", "--players", "greedy", "--seed", "0x10"],
        ["simulate", "--players", "greedy", "--jobs", "0"],
        ["simulate", "--players", "x" * 5000],
        ["simulate", "--players", "greedy,greedy,greedy,greedy,greedy"],
        ["simulate", "--players", ""],
        ["simulate", "--players", "greedy", "--save", f["dir"]],
        ["simulate", "--players", "greedy", "--save", f["dangling"]],
        ["simulate", "--players", "greedy", "--save", "/dev/full"],
        ["simulate", "--players", "greedy", "--save", ""],
        ["simulate", "--players", "greedy", "--format", "xml"],
        ["advise", "--dice", "C" * 5000],
        ["advise", "--dice", "CCBJP"],
        ["advise", "--dice", "CCBJPPX"],
        ["advise", "--dice", ""],
        ["advise", "--dice", "cats cats book joker plant plant dog"],
        ["advise", "--dice", "CCBJPP", "--rerolls", "3"],
        ["advise", "--dice", "CCBJPP", "--rerolls", long],
        ["advise", "--dice", "CCBJPP", "--rerolls", "-1"],
        ["advise", "--dice", "CCBJPP", "--objective", "x" * 5000],
        ["advise", "--dice", "CCBJPP", "--objective", "item:r9c9"],
        ["advise", "--dice", "CCBJPP", "--marks", "zz/zz"],
        ["advise", "--dice", "CCBJPP", "--marks", "/" * 5000],
        ["advise", "--dice", "CCBJPP", "--marks", "o" * 5000],
        ["advise", "--dice", "CCBJPP", "--marks", f["fifo"]],
        ["advise", "--dice", "CCBJPP", "--marks", "/dev/zero"],
        ["advise", "--dice", "CCBJPP", "--marks", f["marks-bad.txt"]],
        ["advise", "--dice", "CCBJPP", "--top", long],
        ["advise", "--dice", "CCBJPP", "--format", "y" * 5000],
        ["advise", "--" + "z" * 5000],
        ["odds", "--target", "3" * 5000 + "C"],
        ["odds", "--target", "+" * 5000],
        ["odds", "--target", "r99c99"],
        ["odds", "--target", "7C"],
        ["odds", "--target", ""],
        ["odds", "--target", "5*", "--dice", "CCBJPPP"],
        ["cheatsheet", "--output", ""],
        ["cheatsheet", "--output", "/dev/null"],
        ["cheatsheet", "--output", f["out-link"]],
        ["cheatsheet", "--format", "pdf"],
        ["q" * 5000],
    ]
    return out


def accepted(f: dict[str, str]) -> list[list[str]]:
    """Heavy but accepted input: must run (exit 0) within the same time and memory bounds."""
    return [
        [],  # bare: the help
        ["odds", "--target", "5*", "--rules", f["combos-1e9.toml"]],  # dice alone: no item sets needed
        ["odds", "--target", "|".join(["r1c1"] * 2000)],
        ["advise", "--dice", "CCBJPPPPP", "--rules", f["dice9.toml"]],
        ["advise", "--dice", "CCBJPP", "--rules", f["bom-ok.toml"]],
        ["advise", "--dice", "CCBJPP", "--board", f["b77-one.toml"]],
        ["simulate", "--players", "solver,greedy", "--games", "1", "--seed", "1", "--jobs", "1", "--board",
         f["b77-one.toml"]],
    ]


def run(args: list[str], tmp: Path) -> tuple[int, str, str, float, float]:
    """(exit code, stdout, stderr, seconds, peak RSS MB) of one case."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    start = time.perf_counter()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen([*CLI, *args], stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=env, cwd=tmp)
        deadline = start + 120
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                proc.kill()
                pid, status, usage = os.wait4(proc.pid, 0)
                break
            time.sleep(0.02)
        out.seek(0)
        err.seek(0)
        code = os.waitstatus_to_exitcode(status)
        return (code, out.read().decode(errors="replace"), err.read().decode(errors="replace"),
                time.perf_counter() - start, usage.ru_maxrss / 1024)


def main() -> int:
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        f = files(tmp)
        bad = 0
        all_cases = [(args, True) for args in cases(f)] + [(args, False) for args in accepted(f)]
        slowest = biggest = 0.0
        for args, refused in all_cases:
            code, out, err, seconds, rss = run(args, tmp)
            lines = err.splitlines()
            if refused:
                ok = code == 2 and out == "" and len(lines) == 1 and lines[0].startswith("Error: ")
            else:
                ok = code == 0 and err == ""
            ok = ok and "Traceback" not in err
            slowest, biggest = max(slowest, seconds), max(biggest, rss)
            bad += not ok
            shown = " ".join(a if len(a) <= 40 else a[:37] + "..." for a in args).replace(str(tmp) + "/", "")
            first = (lines[0] if lines else out.split("\n")[0][:60]).replace(str(tmp) + "/", "")
            print(f"{'ok ' if ok else 'BAD'} exit {code:3d} {seconds:5.1f}s {rss:5.0f}MB  {shown[:70]:70s}  "
                  f"{first[:110]}", flush=True)
        if (tmp / "elsewhere.md").read_text() != "precious" or (tmp / "nowhere").exists():
            print("BAD a file outside the named folder was written")
            bad += 1
        print(f"\n{len(all_cases)} inputs ({sum(r for _, r in all_cases)} refused, "
              f"{sum(not r for _, r in all_cases)} accepted), {len(all_cases) - bad} follow the rule, {bad} do not; "
              f"slowest {slowest:.1f} s, largest {biggest:.0f} MB resident")
        return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
