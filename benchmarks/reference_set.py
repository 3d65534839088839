"""A reference set of the CLI's output: every command, every --format, fixed inputs and seeds.

Recorded before a refactor (e.g. of the package layout) and again after it, the two sets must
compare byte for byte:

    python benchmarks/reference_set.py --root /work/base --out /work/refset/before
    python benchmarks/reference_set.py --root /work/main --out /work/refset/after
    python benchmarks/reference_set.py --compare /work/refset/before /work/refset/after

Each case runs ``shelfie-solve`` of REPO_ROOT in its own process,
``sys.executable -c 'import sys; from shelfie_solver.cli import main; sys.argv[0]="shelfie-solve"; main()' ARGS``
(the module and function come from REPO_ROOT/pyproject.toml's ``[project.scripts]``; ``--entry``
overrides), with PYTHONPATH=REPO_ROOT (REPO_ROOT/src when the package lives there), cwd a fresh
temporary work directory holding a copy of REPO_ROOT/examples plus the fixture files below, and
a fresh environment: PYTHONHASHSEED=0, SHELFIE_SOLVE_CACHE a fresh folder of this run,
HOME / XDG_CACHE_HOME / MPLCONFIGDIR / NUMBA_CACHE_DIR / PYTHONPYCACHEPREFIX all inside this run's
temporary folder (so nothing is written to REPO_ROOT or the user's folders), COLUMNS=80, LC_ALL=C.UTF-8,
TZ=UTC. Cases run one after the other in a fixed order, in the same work directory: multi-step
sessions (play new -> roll -> ... -> review; solve-game --save -> advise --objective table:FILE;
train -> simulate learned:FILE) see the files of the earlier steps, and the table cache fills up
as it would for a user (the `cache` cases show it).

Each case is written to OUT/NNN-name.txt: the argv, environment overrides, standard input, exit
code, stdout, stderr, and every file of the work directory that the case created, changed or
removed (text in full; binary files such as PNGs, or text over 256 KB, as size + sha256).
OUT/_run.txt holds the run's facts (root, time taken; not compared).

Normalised (so that two runs in different temporary folders compare equal), in every recorded
text (stdout, stderr, file contents), see NORMALISERS below:

* ``<WORK>``: the work directory's path; ``<CACHE>``: the table-cache folder; ``<TMP>``: this
  run's temporary folder (each also in its resolved form);
* ``<SECONDS>``: solve-game's timing, only in solve-game cases: the ``time`` row of the table /
  Markdown / CSV report (``time  10.0 s``) and JSON ``"seconds": 0.0207``.

Nothing else is normalised: cache entry counts and sizes are deterministic for this fixed
sequence (same tables built in the same order; entries hold no pickles or paths), PNG heatmaps
are byte-identical across runs (recorded as sha256), and every random command has a fixed seed.

``--compare A B`` prints the cases that differ (with a short diff) or exist on one side only,
and exits 1 if any do, 0 if the sets are identical.
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

TIMEOUT = 180  # seconds per case
TEXT_LIMIT = 256 * 1024  # files larger than this are recorded as size + sha256

# --------------------------------------------------------------------------------------------
# Fixtures written into the work directory (next to the copied examples/), identical for every root.

TINY_BOARD = """\
# 2 x 2 board for the exact solver (as tests/test_exact.py): solves in well under a second.
name = "tiny"
columns = [1, 2]

[[shelves]]
faces = ["plant"]
values = [1, 3]

[[shelves]]
faces = ["book"]
values = [2, 4]
"""

TINY_RULES = """\
name = "tiny"
dice = 3
rerolls = 1
combinations_per_turn = 3
scoring_threshold = 2
end_trigger_shelves = 2
faces = [ { name = "plant", code = "P" }, { name = "book", code = "B" } ]
"""

# A 2 x 3 board under the default rules (6 dice): a few hundred states.
SMALL23_BOARD = """\
name = "two by three"
columns = [1, 2, 3]

[[shelves]]
faces = ["cat"]
values = [1, 2, 4]

[[shelves]]
faces = ["book", "plant"]
values = [2, 3, 5]
"""

BAD_BOARD = """\
name = "bad"
columns = [1, 2, 9]

[[shelves]]
faces = ["cat"]
values = [1, 2, 3]
"""

SHELF_TXT = "PPTTP\nPPTTF\nGGBBF\nGCCBB\nGCCFF\nPGBFP\n"

FIXTURES: dict[str, str | bytes] = {
    "fixtures/tiny.toml": TINY_BOARD,
    "fixtures/tiny-rules.toml": TINY_RULES,
    "fixtures/two-by-three.toml": SMALL23_BOARD,
    "fixtures/bad-board.toml": BAD_BOARD,
    "fixtures/bad.toml": "columns = [1, 2\n",
    "fixtures/shelf.txt": SHELF_TXT,
    "fixtures/marks-opponent.txt": "# an opponent\no..../o..../o..../...../.....\n",
    "fixtures/not-json.json": "{not json",
}

# --------------------------------------------------------------------------------------------
# The cases.


@dataclass
class Case:
    name: str
    args: list[str]
    stdin: bytes | None = None
    env: dict[str, str] = field(default_factory=dict)
    norm: tuple[str, ...] = ()  # names of extra NORMALISERS for this case


def cases() -> list[Case]:
    out: list[Case] = []

    def c(name: str, args: str | list[str], stdin: bytes | str | None = None,
          env: dict[str, str] | None = None, norm: tuple[str, ...] = ()) -> None:
        argv = shlex.split(args) if isinstance(args, str) else list(args)
        data = stdin.encode() if isinstance(stdin, str) else stdin
        out.append(Case(name, argv, data, dict(env or {}), norm))

    formats = ("table", "json", "csv", "markdown")
    mid = "examples/marks/mid-game.txt"
    tiny = "--board fixtures/tiny.toml --rules fixtures/tiny-rules.toml"

    # ---- the top level and help texts
    c("version", "--version")
    c("help", "--help")
    for command in ("advise", "odds", "cheatsheet", "simulate", "play", "review", "solve-game",
                    "train", "cache", "tile"):
        c(f"help-{command}", f"{command} --help")
    c("help-play-mark", "play mark --help")
    c("help-tile-advise", "tile advise --help")
    c("err-unknown-command", "advis --dice CCBJPP")

    # ---- cache, empty (first: nothing built yet)
    c("cache-empty", "cache")

    # ---- advise
    for f in formats:
        c(f"advise-holds-{f}", f"advise --dice CCBJPP --format {f}")
    for f in formats:
        c(f"advise-markings-{f}", f"advise --dice CCCBJP --rerolls 0 --marks {mid} --top 4 --format {f}")
    for f in ("table", "json"):
        c(f"advise-opponent-{f}", "advise --dice CCBJPP --marks oo.../...../x..../...../..... "
                                  f"--opponent o..../o..../o..../...../..... --order 2 --round 3 --top 3 --format {f}")
    for f in ("table", "json"):
        c(f"advise-failed-{f}", f"advise --dice CCCCCC --rerolls 0 --marks xxxxx/o..../...../...../..... --format {f}")
    c("advise-names-points", ["advise", "--dice", "cat cat cat book book joker", "--rerolls", "1",
                              "--marks", "oo.o./o.o../xoxxx/.oo../o....", "--objective", "points", "--top", "5"])
    c("advise-stop-best-json", "advise --dice PPBCCJ --rerolls 1 --format json")
    c("advise-marks-objective", f"advise --dice CCBJPP --marks {mid} --objective marks --top 3")
    c("advise-safe-csv", f"advise --dice CCBJPP --marks {mid} --objective safe --format csv")
    c("advise-cell-markdown", "advise --dice CCBJPP --objective cell:r2c4 --top 3 --format markdown")
    c("advise-learned", "advise --dice CCBJPP --objective learned --top 3")
    c("advise-stdin-marks", "advise --dice CCBJPP --marks - --top 3", stdin="oo.../...../x..../...../.....\n")
    c("advise-opponent-file", f"advise --dice PGBBCC --marks {mid} --opponent fixtures/marks-opponent.txt "
                              "--opponent ...../...../...../...../..... --order 3 --round 5 --top 3")
    c("advise-finished", "advise --dice CCBJPP --marks ooooo/xxxxx/ooooo/xxxxx/ooooo --format json")
    c("advise-end-triggered", "advise --dice CCBJPP --marks xxxxx/xxxxx/...../...../..... --top 2")
    c("advise-five-dice", "advise --dice PBCGW --rules examples/rules/five-dice.toml "
                          "--board examples/boards/five-dice.toml --top 3")
    c("advise-mixed-faces", "advise --dice PPGBBJ --board examples/boards/mixed-faces.toml --top 3 --format csv")
    c("err-advise-five-dice", "advise --dice CCBJP")
    c("err-advise-face", "advise --dice CCBJPX")
    c("err-advise-marks", "advise --dice CCBJPP --marks oo.../...q./...../...../.....")
    c("err-advise-order-alone", "advise --dice CCBJPP --order 2")
    c("err-advise-board-bad", "advise --dice CCBJPP --board fixtures/bad-board.toml")
    c("err-advise-toml", "advise --dice CCBJPP --rules fixtures/bad.toml")

    # ---- odds
    for f in formats:
        c(f"odds-start-{f}", f"odds --target 3C+2B --format {f}")
    for f in ("table", "json"):
        c(f"odds-dice-{f}", f"odds --target 3C+2B --dice CCBJPP --top 6 --format {f}")
    c("odds-final-json", "odds --target '3C+2B|5*' --dice CCCBJP --rerolls 0 --format json")
    c("odds-items", f"odds --target 'r2c4|r2c5' --marks {mid} --rerolls 1")
    c("odds-classic", "odds --rules examples/rules/classic-five-dice.toml --target '5*'")
    c("odds-simulate", "odds --rules examples/rules/classic-five-dice.toml --target '5*' --simulate 20000 --seed 1")
    c("odds-simulate-json", "odds --target '4C|4B' --rerolls 1 --simulate 5000 --seed 7 --format json")
    c("err-odds-empty-term", "odds --target 3C+")
    c("err-odds-joker", "odds --target 3J")

    # ---- cheatsheet (every file it writes is recorded; PNG as sha256)
    c("cheatsheet-markdown", "cheatsheet --output sheets")
    c("cheatsheet-html-marks", f"cheatsheet --format html --output mid --marks {mid}")
    c("cheatsheet-csv-small", "cheatsheet --format csv --output small --board examples/boards/small.toml")
    c("err-cheatsheet-marks", "cheatsheet --output bad --marks ooo")

    # ---- simulate (always --jobs 1 but one --jobs 2 that must print the same)
    sim = "simulate --players solver,greedy --games 12 --seed 1"
    for f in formats:
        c(f"simulate-{f}", f"{sim} --jobs 1 --format {f}")
    c("simulate-jobs2", f"{sim} --jobs 2")
    c("simulate-save", "simulate --players threshold,solver,random --games 3 --seed 7 --jobs 1 --save sim.jsonl")
    c("simulate-solitaire-json", "simulate --players threshold --games 10 --seed 2 --jobs 1 --format json")
    c("simulate-four", "simulate --players random,greedy,threshold,learned --games 4 --seed 3 --jobs 1 --format markdown")
    c("simulate-small-board", "simulate --players solver,threshold --games 8 --seed 4 --jobs 1 "
                              "--board examples/boards/small.toml --format csv")
    c("err-simulate-strategy", "simulate --players solver,bogus --games 2 --seed 1")
    c("err-simulate-games0", "simulate --players solver --games 0 --seed 1")

    # ---- review of the simulated games
    for f in formats:
        c(f"review-sim-{f}", f"review sim.jsonl --player 1 --format {f}")
    c("review-sim-game2", "review sim.jsonl --game 2 --player 2 --objective points --threshold 1/2")
    c("err-review-game", "review sim.jsonl --game 9")
    c("err-review-missing", "review nothing.jsonl")

    # ---- play: the 3-player game of docs/play.md, step by step (errors included)
    g = "game.json"
    c("play-new", f"play new {g} --players Ann,Ben,me --first Ann")
    c("err-play-new-exists", f"play new {g} --players Ann,Ben")
    c("play-status-json-start", f"play status {g} --format json")
    c("play-roll", f"play roll {g} CCBBPG --top 3 --objective strategic")
    c("err-play-reroll-count", f"play reroll {g} --keep CCBB PPG")
    c("play-reroll-json", f"play reroll {g} --keep CCBB CP --top 3 --format json")
    c("play-mark", f"play mark {g} r1c1 r1c2 r2c2")
    c("play-mark-unchecked-md", f"play mark {g} --unchecked r3c1 r3c2 r3c3 --format markdown")
    c("err-play-wrong-player", f"play roll {g} AAGGGP --player Ann")
    c("play-roll-csv", f"play roll {g} AAGGGP --player me --top 3 --format csv")
    c("play-mark-2", f"play mark {g} r5c2 r4c3")
    c("play-undo", f"play undo {g}")
    c("play-mark-json", f"play mark {g} r5c2 r4c3 r3c1 --format json")
    c("play-status", f"play status {g}")
    c("play-mark-block", f"play mark {g} --unchecked r1c3 r1c4 r1c5")
    c("play-roll-cats", f"play roll {g} CCCCCC --top 3 --objective strategic")
    c("err-play-mark-failed", f"play mark {g} r1c1")
    c("play-advise-md", f"play advise {g} --format markdown")
    c("play-fail-json", f"play fail {g} --shelf 2 --format json")
    c("play-roll-last", f"play roll {g} PPPPPP --top 3")
    c("play-stop-csv", f"play stop {g} --top 3 --format csv --objective strategic")
    c("play-mark-over", f"play mark {g} r3c2 r3c3")
    for f in ("csv", "markdown"):
        c(f"play-status-over-{f}", f"play status {g} --format {f}")
    c("play-advise-over", f"play advise {g}")
    c("err-play-after-over", f"play roll {g} CCBJPP")
    for f in ("table", "markdown"):
        c(f"review-play-{f}", f"review {g} --player me --objective points --format {f}")
    c("review-play-learned", f"review {g} --player Ann --objective learned")

    # ---- play: a second game, seeded first player, --best, fail best, undo N
    g2 = "game2.json"
    c("play2-new-seed-json", f"play new {g2} --players Ann,me --seed 3 --format json")
    c("play2-roll-md", f"play roll {g2} CCBJPP --format markdown --top 2")
    c("play2-reroll-none", f"play reroll {g2} PPPPPP --top 2")
    c("play2-mark-best", f"play mark {g2} --best --top 2")
    c("play2-roll", f"play roll {g2} CCCCCC --top 2")
    c("play2-stop", f"play stop {g2} --top 2")
    c("play2-undo-2", f"play undo {g2} 2 --format json")
    c("play2-advise-csv", f"play advise {g2} --format csv --top 2")
    c("err-play2-undo-many", f"play undo {g2} 99")
    c("err-play-typo", f"play rol {g2} CCBJPP")
    c("err-play-session-args", f"play {g2} roll CCBJPP")
    c("play-help", "play help")

    # ---- play: the interactive session fed through standard input
    g3 = "game3.json"
    c("play3-new", f"play new {g3} --players Ann,Ben,me --first Ann")
    c("play3-session", f"play {g3}", stdin="help\nCCBBPG\nkeep CCBB CP\nmark r1c1 r1c2 r2c2\n"
                                          "told r3c1 r3c2 r3c3\nAAGGGP\nmark r5c2 r4c3\nundo\n"
                                          "mark r5c2 r4c3 r3c1\nstatus\nstauts\ntold r1c3 r1c4 r1c5\n"
                                          "CCCCCC\nmark r1c1\nfail 2\nPPPPPP\nadvise\nquit\n")
    c("play3-session-resume", f"play {g3} --objective strategic", stdin="stop\nmark best\n")
    c("play3-status-after", f"play status {g3}")
    c("review-session", f"review {g3} --player Ben --format json")
    g4 = "game4.json"
    c("play4-new", f"play new {g4} --players solo --seed 1")
    c("err-play4-session-long-line", f"play {g4}", stdin=b"C" * 5000 + b"\n")
    c("play4-session-not-utf8", f"play {g4}", stdin=b"CCB\xff\xfeJ\n")
    c("play4-session-eof", f"play {g4}", stdin="CCBJPP\nkeep PP BBBB\n")

    # ---- solve-game on a tiny board, then its value table as objective and strategy
    for f in formats:
        c(f"solve-game-{f}", f"solve-game {tiny} --jobs 1 --format {f}", norm=("seconds",))
    c("solve-game-save", f"solve-game {tiny} --jobs 1 --save tiny-table.json --checkpoints ck", norm=("seconds",))
    c("solve-game-resume-json", f"solve-game {tiny} --jobs 1 --checkpoints ck --format json", norm=("seconds",))
    c("solve-game-jobs2-save", "solve-game --board fixtures/two-by-three.toml --jobs 2 --save t23-table.json",
      norm=("seconds",))
    c("err-solve-game-default", "solve-game")
    c("err-solve-game-save-board", f"solve-game {tiny} --save fixtures/tiny.toml")
    c("advise-table-objective", f"advise --dice PBJ {tiny} --objective table:tiny-table.json")
    c("advise-table-objective-json", "advise --dice CCBJPP --board fixtures/two-by-three.toml "
                                     "--objective table:t23-table.json --format json")
    c("advise-table-final", f"advise --dice PBB --rerolls 0 --marks o./.. {tiny} --objective table:tiny-table.json "
                            "--format markdown")
    c("simulate-exact", f"simulate --players exact:tiny-table.json {tiny} --games 20 --seed 5 --jobs 1")
    c("simulate-exact-t23-json", "simulate --players exact:t23-table.json --games 4 --seed 5 --jobs 1 "
                                 "--board fixtures/two-by-three.toml --format json")
    c("err-simulate-exact-two", "simulate --players exact:t23-table.json,threshold --games 2 --seed 5 --jobs 1 "
                                "--board fixtures/two-by-three.toml")
    c("err-advise-table-board", "advise --dice CCBJPP --objective table:tiny-table.json")
    c("err-advise-table-not-json", "advise --dice CCBJPP --objective table:fixtures/not-json.json")

    # ---- train (short runs), then the parameter files as objective and strategy
    c("train-selfplay", "train --seed 1 --games 4 --iterations 1 --players 1,2 --jobs 1 --output mine.json")
    c("train-resume", "train --seed 1 --games 4 --iterations 1 --players 1,2 --jobs 1 --output mine.json")
    c("train-small-board", "train --seed 2 --games 2 --iterations 2 --players 1 --jobs 1 "
                           "--board examples/boards/small.toml --output small-learned.json")
    c("train-table", "train --table tiny-table.json --output tiny-learned.json")
    c("train-solitaire-boards", "train --seed 2 --players 1 --solitaire-boards 1 --games 2 --iterations 1 --jobs 1 "
                                "--output sol.json")
    c("err-train-no-seed", "train --games 2")
    c("err-train-players", "train --seed 1 --players 5")
    c("err-train-table-options", "train --table tiny-table.json --seed 3")
    c("advise-learned-file", "advise --dice CCBJPP --objective learned:mine.json --top 3")
    c("advise-learned-file-opponent-json", "advise --dice CCBJPP --opponent o..../...../...../...../..... "
                                           "--objective learned:mine.json --format json")
    c("simulate-learned-file", "simulate --players learned:mine.json,solver --games 4 --seed 3 --jobs 1")
    c("simulate-learned-table-file", f"simulate --players learned:tiny-learned.json {tiny} --games 10 --seed 3 --jobs 1")
    c("review-learned-file", f"review {g2} --player me --objective learned:mine.json --format csv")
    c("err-simulate-learned-count", "simulate --players learned:sol.json,solver --games 2 --seed 1 --jobs 1")
    c("err-learned-missing", "advise --dice CCBJPP --objective learned:nothing.json")

    # ---- tile
    shelf = "PPTTP/PPTTF/GGBBF/GCCBB/GCCFF/PGBFP"
    for f in formats:
        c(f"tile-score-{f}", f"tile score {shelf} --tokens 12 --end-token --format {f}")
    c("tile-score-personal", f"tile score {shelf} --personal 4 --goals 3,9")
    c("tile-score-file", "tile score fixtures/shelf.txt --format json")
    c("err-tile-score-float", "tile score ...../...../...../...../..C../.....")
    pos = "examples/tile/position.toml"
    for f in formats:
        c(f"tile-advise-{f}", f"tile advise {pos} --top 5 --format {f}")
    c("tile-advise-move", f"tile advise {pos} --top 3 --move r5c2+r5c1@4 --samples 10 --seed 2")
    c("tile-advise-no-refill", f"tile advise {pos} --top 3 --samples 0")
    c("err-tile-advise-move", f"tile advise {pos} --move r1c1@1")
    tsim = "tile simulate --players advisor,greedy --games 6 --seed 1 --jobs 1"
    for f in formats:
        c(f"tile-simulate-{f}", f"{tsim} --format {f}")
    c("tile-simulate-save", "tile simulate --players advisor-v1,random,greedy --games 3 --seed 2 --jobs 1 "
                            "--save tile.jsonl")
    c("err-tile-simulate-one", "tile simulate --players advisor --games 1 --seed 1")

    # ---- cache, after everything above built its tables
    for f in formats:
        c(f"cache-{f}", f"cache --format {f}")
    c("cache-clear-json", "cache --clear --format json")
    c("cache-after-clear", "cache")
    c("cache-off", "cache --format json", env={"SHELFIE_SOLVE_CACHE": "off"})
    c("advise-cache-off", "advise --dice CCBJPP --top 1", env={"SHELFIE_SOLVE_CACHE": "off"})
    c("cache-max-64m", "cache", env={"SHELFIE_SOLVE_CACHE_MAX": "64M"})
    c("err-cache-max", "cache", env={"SHELFIE_SOLVE_CACHE_MAX": "lots"})
    c("err-advise-cache-max", "advise --dice CCBJPP", env={"SHELFIE_SOLVE_CACHE_MAX": "lots"})
    return out


# --------------------------------------------------------------------------------------------
# Normalisation.

#: Extra normalisers a case may ask for (Case.norm): name -> [(pattern, replacement)].
NORMALISERS: dict[str, list[tuple[re.Pattern[str], str]]] = {
    # solve-game's wall-clock time: table / Markdown row `time  10.0 s`, CSV `time,10.0 s`, JSON "seconds".
    "seconds": [
        (re.compile(r"(?m)^(\|?\s*time\s*[|,]?\s*)[0-9][0-9,]*(?:\.[0-9]+)? s\b"), r"\g<1><SECONDS> s"),
        (re.compile(r'"seconds": [0-9.eE+-]+'), '"seconds": "<SECONDS>"'),
    ],
}


def normalise(text: str, places: list[tuple[str, str]], extra: tuple[str, ...]) -> str:
    for path, placeholder in places:
        text = text.replace(path, placeholder)
    for name in extra:
        for pattern, replacement in NORMALISERS[name]:
            text = pattern.sub(replacement, text)
    return text


# --------------------------------------------------------------------------------------------
# Running.


def package_dir(root: Path) -> Path:
    """The folder to put on PYTHONPATH: REPO_ROOT, or REPO_ROOT/src for a src layout."""
    src = root / "src"
    if (src / "shelfie_solver").is_dir() and not (root / "shelfie_solver").is_dir():
        return src
    return root


def entry_point(root: Path) -> tuple[str, str]:
    """module, function of the shelfie-solve script in REPO_ROOT/pyproject.toml."""
    try:
        scripts = tomllib.loads((root / "pyproject.toml").read_text())["project"]["scripts"]
        module, func = scripts["shelfie-solve"].split(":")
        return module.strip(), func.strip()
    except (OSError, KeyError, ValueError):
        return "shelfie_solver.cli", "main"


def snapshot(folder: Path) -> dict[str, str]:
    """relative path -> sha256 of every file under folder."""
    out = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file() and not path.is_symlink():
            out[path.relative_to(folder).as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def show_file(path: Path, places: list[tuple[str, str]], extra: tuple[str, ...]) -> str:
    data = path.read_bytes()
    digest = f"{len(data)} bytes, sha256 {hashlib.sha256(data).hexdigest()}"
    if len(data) > TEXT_LIMIT or b"\0" in data:
        return f"(binary or large: {digest})\n"
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return f"(not UTF-8: {digest})\n"
    text = normalise(text, places, extra)
    return text if text.endswith("\n") or not text else text + "\n(no newline at end of file)\n"


def decode(data: bytes) -> str:
    return data.decode("utf-8", errors="backslashreplace")


def describe_stdin(data: bytes | None) -> str:
    if data is None:
        return "(none: /dev/null)"
    if len(data) > 300:
        return f"{len(data)} bytes, sha256 {hashlib.sha256(data).hexdigest()}, starting {data[:40]!r}"
    return repr(data)


def record(root: Path, out: Path, entry: str | None) -> int:
    root = root.resolve()
    if not (root / "examples").is_dir():
        sys.exit(f"{root}/examples not found: --root must be a checkout of shelfie-solve")
    module, func = (entry.split(":") if entry else entry_point(root))
    code = f'import sys; from {module} import {func}; sys.argv[0]="shelfie-solve"; {func}()'
    tmp = Path(tempfile.mkdtemp(prefix="refset-"))
    work, cache = tmp / "work", tmp / "cache"
    work.mkdir()
    shutil.copytree(root / "examples", work / "examples")
    for name, content in FIXTURES.items():
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_bytes(content if isinstance(content, bytes) else content.encode())
    for sub in ("home", "xdg-cache", "mpl", "numba", "pycache"):
        (tmp / sub).mkdir()
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp / "home"),
        "XDG_CACHE_HOME": str(tmp / "xdg-cache"),
        "MPLCONFIGDIR": str(tmp / "mpl"),
        "NUMBA_CACHE_DIR": str(tmp / "numba"),
        "PYTHONPYCACHEPREFIX": str(tmp / "pycache"),
        "PYTHONPATH": str(package_dir(root)),
        "PYTHONHASHSEED": "0",
        "PYTHONIOENCODING": "utf-8",
        "SHELFIE_SOLVE_CACHE": str(cache),
        "COLUMNS": "80",
        "LINES": "24",
        "LC_ALL": "C.UTF-8",
        "LANG": "C.UTF-8",
        "TZ": "UTC",
    }
    places: list[tuple[str, str]] = []
    for path, placeholder in ((work, "<WORK>"), (cache, "<CACHE>"), (tmp, "<TMP>")):
        for form in dict.fromkeys((str(path), os.path.realpath(path))):
            places.append((form, placeholder))
    places.sort(key=lambda item: -len(item[0]))  # longest first: <WORK> before <TMP>

    # Check that the package imported is REPO_ROOT's, and build matplotlib's font cache once
    # (its "building the font cache" warning depends on how long that takes).
    check = subprocess.run([sys.executable, "-c", f"import {module.split('.')[0]} as p, matplotlib.font_manager; "
                            "print(p.__file__)"], cwd=work, env=env, capture_output=True, text=True)
    imported = Path(check.stdout.strip()).resolve() if check.returncode == 0 else None
    if imported is None or package_dir(root) not in imported.parents:
        sys.exit(f"the package imported is not {root}'s: {check.stdout.strip()} {check.stderr.strip()}")

    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    all_cases = cases()
    names = [case.name for case in all_cases]
    duplicates = {name for name in names if names.count(name) > 1}
    if duplicates:
        sys.exit(f"duplicate case names: {sorted(duplicates)}")
    started = time.monotonic()
    slow: list[tuple[float, str]] = []
    failures = 0
    for number, case in enumerate(all_cases, 1):
        before = snapshot(work)
        t0 = time.monotonic()
        try:
            done = subprocess.run([sys.executable, "-c", code, *case.args], cwd=work, env={**env, **case.env},
                                  input=case.stdin if case.stdin is not None else None,
                                  stdin=subprocess.DEVNULL if case.stdin is None else None,
                                  capture_output=True, timeout=TIMEOUT)
            status, stdout, stderr = str(done.returncode), done.stdout, done.stderr
        except subprocess.TimeoutExpired as expired:
            status, stdout, stderr = f"TIMEOUT after {TIMEOUT} s", expired.stdout or b"", expired.stderr or b""
        took = time.monotonic() - t0
        slow.append((took, f"{number:03d}-{case.name}"))
        after = snapshot(work)
        expected_error = case.name.startswith("err-")
        if (status == "0") == expected_error or "Traceback" in decode(stderr):
            failures += 1
            print(f"  note: {number:03d}-{case.name} exited {status}", file=sys.stderr)
        parts = [
            f"case: {number:03d} {case.name}",
            "argv: " + shlex.join(["shelfie-solve", *case.args]),
            "env: " + (" ".join(f"{k}={v}" for k, v in sorted(case.env.items())) or "(defaults)"),
            "stdin: " + describe_stdin(case.stdin),
            f"exit: {status}",
            "",
            "----- stdout -----",
            normalise(decode(stdout), places, case.norm).rstrip("\n"),
            "----- stderr -----",
            normalise(decode(stderr), places, case.norm).rstrip("\n"),
        ]
        for rel in sorted(set(before) | set(after)):
            if before.get(rel) == after.get(rel):
                continue
            if rel not in after:
                parts.append(f"----- file removed: {rel} -----")
                continue
            kind = "created" if rel not in before else "changed"
            parts.append(f"----- file {kind}: {rel} -----")
            parts.append(show_file(work / rel, places, case.norm).rstrip("\n"))
        parts.append("----- end -----")
        (out / f"{number:03d}-{case.name}.txt").write_text("\n".join(parts) + "\n", encoding="utf-8")
        print(f"{number:03d} {status:>3} {took:6.2f} s  {case.name}", flush=True)
    total = time.monotonic() - started
    shutil.rmtree(tmp, ignore_errors=True)
    slow.sort(reverse=True)
    facts = [
        f"root: {root}",
        f"entry: {module}:{func}",
        f"python: {sys.version.split()[0]} ({sys.executable})",
        f"cases: {len(all_cases)}",
        f"unexpected exit codes: {failures}",
        f"run time: {total:.1f} s",
        "slowest: " + ", ".join(f"{name} {seconds:.1f} s" for seconds, name in slow[:8]),
    ]
    (out / "_run.txt").write_text("\n".join(facts) + "\n")
    print("\n".join(facts))
    return 0


# --------------------------------------------------------------------------------------------
# Comparing.


def compare(a: Path, b: Path, context_lines: int = 40) -> int:
    def listing(folder: Path) -> dict[str, Path]:
        return {p.name: p for p in sorted(folder.glob("[0-9][0-9][0-9]-*.txt"))}

    left, right = listing(a), listing(b)
    if not left or not right:
        print(f"no cases found in {a if not left else b}")
        return 1
    differ = 0
    for name in sorted(set(left) | set(right)):
        if name not in right or name not in left:
            print(f"ONLY IN {a if name in left else b}: {name}")
            differ += 1
            continue
        one, two = left[name].read_bytes(), right[name].read_bytes()
        if one == two:
            continue
        differ += 1
        print(f"DIFFERS: {name}")
        diff = list(difflib.unified_diff(decode(one).splitlines(), decode(two).splitlines(),
                                         str(left[name]), str(right[name]), lineterm="", n=2))
        for line in diff[:context_lines]:
            print("    " + line)
        if len(diff) > context_lines:
            print(f"    ... {len(diff) - context_lines} more diff lines")
    total = len(set(left) | set(right))
    if differ:
        print(f"{differ} of {total} cases differ")
        return 1
    print(f"all {total} cases identical")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--out", type=Path, help="folder to write the recorded set to (replaced)")
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent,
                        help="the checkout to run (default: this script's)")
    parser.add_argument("--entry", help="MODULE:FUNCTION of the CLI (default: from ROOT/pyproject.toml)")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("DIR_A", "DIR_B"),
                        help="compare two recorded sets; exit 1 if any case differs")
    parser.add_argument("--list", action="store_true", help="list the cases and exit")
    args = parser.parse_args()
    if args.compare:
        return compare(*args.compare)
    if args.list:
        for number, case in enumerate(cases(), 1):
            print(f"{number:03d}-{case.name}: " + shlex.join(["shelfie-solve", *case.args]))
        return 0
    if args.out is None:
        parser.error("--out DIR (or --compare DIR_A DIR_B, or --list) is required")
    return record(args.root, args.out, args.entry)


if __name__ == "__main__":
    sys.exit(main())
