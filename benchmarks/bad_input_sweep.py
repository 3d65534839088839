"""Try about 330 nasty inputs across every command (the newer play, review, tile and solve-game
included, the piped `play GAME` session, a hostile table cache, and hand-edited files of the kinds in
:func:`hostile_files`), each in its own process, and check
the rule of docs/formats.md, "Limits": bad input is refused with exactly one line ``Error: ...`` on stderr,
nothing on stdout and exit code 2, never a traceback; heavy but accepted input runs (exit 0);
both within bounded time and memory.

    python benchmarks/bad_input_sweep.py          # prints one row per input and a summary
    python benchmarks/bad_input_sweep.py play tile  # only the cases of these commands
    python benchmarks/bad_input_sweep.py hostile    # only the multi-step checks of hostile_special
    python benchmarks/bad_input_sweep.py issue      # only the multi-step checks of issue_special

Each case runs ``shelfie-solve`` (this checkout) with a 120 s timeout; its peak resident memory
comes from ``os.wait4``. Exit status: 0 when every case follows the rule.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

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
    # the newer commands: game files (play, review), tile positions, value tables (solve-game)
    put("deep.json", "[" * 40_000 + "]" * 40_000)
    put("bignum.json", '{"format": "shelfie-solve game 1", "seed": ' + "9" * 5000 + "}\n")
    put("array.json", "[1, 2]\n")
    put("truncated.json", '{"format": "shelfie-solve game 1", "players": ["A", "B"], "ru')
    put("not-utf8.json", b"\xe9\xff{}")
    put("tiny-board.toml", 'name = "tiny"\ncolumns = [1, 2]\n[[shelves]]\nfaces = ["plant"]\nvalues = [1, 3]\n'
                           '[[shelves]]\nfaces = ["book"]\nvalues = [2, 4]\n')
    put("tiny-rules.toml", 'name = "tiny"\ndice = 3\nrerolls = 1\nscoring_threshold = 2\nend_trigger_shelves = 2\n'
                           'faces = [{name = "plant", code = "P"}, {name = "book", code = "B"}]\n')
    position = (ROOT / "examples" / "tile" / "position.toml").read_text()
    put("pos-nested-goals.toml", position.replace("goals = [7, 11]", "goals = [[7], [11]]"))
    put("pos-typo.toml", position.replace("end_token = 0", "end_tokn = 1"))
    put("pos-floating.toml", position.replace('"..B..",\n    "..G..",', '"B....",\n    ".....",', 1))
    put("pos-huge.toml", position.replace("players = 2", "players = " + "9" * 5000))
    put("pos-players.json", '{"players": 100000000000000000000}')
    put("shelf-big.txt", "P" * 200_000)
    put("layout.toml", (ROOT / "shelfie_solver" / "tile" / "data" / "layout.toml").read_bytes())
    subprocess.run([*CLI, "play", "new", str(tmp / "game.json"), "--players", "Ann,Ben", "--first", "Ann"],
                   capture_output=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, check=True)
    out["game.json"] = str(tmp / "game.json")
    subprocess.run([*CLI, "solve-game", "--board", out["tiny-board.toml"], "--rules", out["tiny-rules.toml"],
                    "--save", str(tmp / "table.json")], capture_output=True,
                   env={**os.environ, "PYTHONPATH": str(ROOT)}, check=True)
    table = json.loads((tmp / "table.json").read_text())
    out["table.json"] = str(tmp / "table.json")
    keys = list(table["values"])
    put("table-floats.json", json.dumps({**table, "values": {k: 0.5 for k in keys}}))
    put("table-short.json", json.dumps({**table, "values": {k: table["values"][k] for k in keys[1:]}}))
    put("table-foreign.json", json.dumps({**table, "format": "something else"}))
    put("table-negative.json", json.dumps({**table, "values": {k: "-1000/1" for k in keys}}))
    learned = json.loads((ROOT / "examples" / "learned-small-boards.json").read_text())
    put("learned-floats.json", json.dumps({**learned, "weights": {n: {p: [w + 0.5 for w in row] for p, row in phases.items()}
                                                                  for n, phases in learned["weights"].items()}}))
    (tmp / "ck").mkdir()
    os.mkfifo(tmp / "ck" / "solve.json")
    out["ck-fifo"] = str(tmp / "ck")
    (tmp / "zero.json").symlink_to("/dev/zero")
    out["zero.json"] = str(tmp / "zero.json")
    (tmp / "outside.json").write_text("precious")
    (tmp / "links").mkdir()
    (tmp / "links" / "game.json").symlink_to(tmp / "outside.json")
    out["link-out"] = str(tmp / "links" / "game.json")
    os.mkfifo(tmp / "fifo")
    out["fifo"] = str(tmp / "fifo")
    (tmp / "dir").mkdir()
    out["dir"] = str(tmp / "dir")
    (tmp / "out").mkdir()
    (tmp / "elsewhere.md").write_text("precious")
    (tmp / "out" / "cheatsheet.md").symlink_to(tmp / "elsewhere.md")
    out["out-link"] = str(tmp / "out")
    (tmp / "games-link.json").symlink_to(tmp / "game.json")
    out["games-link"] = str(tmp / "games-link.json")
    (tmp / "dangling.jsonl").symlink_to(tmp / "nowhere" / "x.jsonl")
    out["dangling"] = str(tmp / "dangling.jsonl")
    out.update(hostile_files(tmp, out))
    (tmp / "foreign.png").write_bytes(Path(out["game.json"]).read_bytes())  # a game file named .png
    out["foreign.png"] = str(tmp / "foreign.png")
    return out


def hostile_files(tmp: Path, f: dict[str, str]) -> dict[str, str]:
    """Hand-edited files of the kinds that once broke the rule: a lone surrogate or a formula as a
    player's name, checkpoint and table values in exponent notation or out of range, a
    5000-digit number in a train checkpoint, a game file one action short of the reader's 1 MiB,
    learned weights past the int64 bound."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out: dict[str, str] = {}
    game = json.loads(Path(f["game.json"]).read_text())
    for name, players in (("game-surrogate.json", ["\ud800", "Ben"]), ("game-surrogate-roll.json", ["\ud800", "Ben"]),
                          ("game-formula.json", ["=1+1", "@Ben"])):  # names are words: a formula without spaces
        (tmp / name).write_text(json.dumps({**game, "players": players}))
        out[name] = str(tmp / name)
    size = len(json.dumps(game, separators=(",", ":"))) + 1
    # names are at most 32 characters: the board's name fills the file (its size is the file's own)
    full = {**game, "board": {**game["board"], "name": game["board"]["name"] + "x" * (1_048_533 - size + 3)}}
    (tmp / "game-full.json").write_text(json.dumps(full, separators=(",", ":")) + "\n")
    out["game-full.json"] = str(tmp / "game-full.json")
    tiny = ["--board", f["tiny-board.toml"], "--rules", f["tiny-rules.toml"]]
    subprocess.run([*CLI, "play", "new", str(tmp / "game-tiny.json"), "--players", "me", *tiny], capture_output=True,
                   env=env, check=True)
    out["game-tiny.json"] = str(tmp / "game-tiny.json")
    for value in ("1e1000", "1e10000", "1e1000000", "1000000/1", "-5/1", "1/" + "3" * 5000):
        folder = tmp / f"ck-{value.replace('/', '_')[:20]}"
        subprocess.run([*CLI, "solve-game", *tiny, "--checkpoints", str(folder)], capture_output=True, env=env,
                       check=True)
        layer = sorted(folder.glob("layer-*.json"))[0]
        data = json.loads(layer.read_text())
        layer.write_text(json.dumps({**data, "values": {k: value for k in data["values"]}}))
        out[f"ck {value[:20]}"] = str(folder)
    out.update(float_hostile_files(tmp, tiny, env))
    out.update(issue_files(tmp, tiny, env))
    table = json.loads(Path(f["table.json"]).read_text())
    (tmp / "table-tiny-exponent.json").write_text(json.dumps({**table, "values": {k: "1e-1000000"
                                                                                  for k in table["values"]}}))
    out["table-tiny-exponent.json"] = str(tmp / "table-tiny-exponent.json")
    (tmp / "train-5000-digits.checkpoint").write_text('{"settings": ' + "5" * 5000 + "}")
    out["train-5000-digits.checkpoint"] = str(tmp / "train-5000-digits.checkpoint")
    learned = json.loads((ROOT / "examples" / "learned-small-boards.json").read_text())
    for power in (50, 58, 60, 63):
        edited = json.loads(json.dumps(learned))
        next(iter(edited["weights"].values()))["1"][0] = 2**power - (power == 63)
        (tmp / f"learned-2**{power}.json").write_text(json.dumps(edited))
        out[f"learned-2**{power}.json"] = str(tmp / f"learned-2**{power}.json")
    return out


def float_hostile_files(tmp: Path, tiny: list[str], env: dict[str, str]) -> dict[str, str]:
    """Float checkpoints (``fck ...``: a bound in exponent notation or 300 digits long, a layer
    times 1e300) and binary tables (``fnpy ...``: 1e6 points or a NaN in the array, a header naming
    another array) of the tiny board, each edited once."""
    import numpy as np

    out: dict[str, str] = {}
    for edit in ("bound 1e999999", "bound 1/1e300", "layer x 1e300"):
        folder = tmp / f"fck-{edit.replace(' ', '-').replace('/', '_')}"
        subprocess.run([*CLI, "solve-game", *tiny, "--float", "--jobs", "1", "--checkpoints", str(folder)],
                       capture_output=True, env=env, check=True)
        head = folder / "layer-000.json"
        if edit.startswith("bound"):
            bound = "1e999999" if "e999999" in edit else "1/1" + "0" * 300
            head.write_text(json.dumps({**json.loads(head.read_text()), "bound": bound}))
        else:
            array = sorted(folder.glob("layer-*.npy"))[-2]
            np.save(array, np.load(array) * 1e300)
        out[f"fck {edit}"] = str(folder)
    for edit in ("1e6", "nan", "array path"):
        table = tmp / f"fnpy-{edit.replace(' ', '-')}.npy"
        subprocess.run([*CLI, "solve-game", *tiny, "--float", "--jobs", "1", "--save", str(table)],
                       capture_output=True, env=env, check=True)
        values = np.load(table)
        if edit == "array path":
            header = table.with_suffix(".json")
            header.write_text(json.dumps({**json.loads(header.read_text()), "array": "../elsewhere.npy"}))
        else:
            values[-1 if edit == "nan" else 0] = np.nan if edit == "nan" else 1e6
            np.save(table, values)
        out[f"fnpy {edit}"] = str(table)
    return out


def issue_files(tmp: Path, tiny: list[str], env: dict[str, str]) -> dict[str, str]:
    """The files of the breaks of a hostile pass (one of each kind in its list): a game file that
    a float table's header would replace (``mygame.json`` beside ``--save mygame.npy``); a binary
    table, a float checkpoint layer and a second table whose ``.npy`` header has the unbalanced
    bracket ``(N, `` (numpy's ``tokenize.TokenError``); a game file, a value table and a binary
    table header giving a key twice; a learned file and a binary table header with a junk key."""
    out: dict[str, str] = {}
    folder = tmp / "issue"
    folder.mkdir()
    subprocess.run([*CLI, "play", "new", str(folder / "mygame.json"), "--players", "Ann,Ben,me"], capture_output=True,
                   env=env, check=True)
    out["mygame.json"] = str(folder / "mygame.json")

    def unbalanced(array: Path) -> None:
        raw = array.read_bytes()
        length = int.from_bytes(raw[8:10], "little")
        header = raw[10:10 + length]
        edited = header.replace(b",)", b", ", 1)
        array.write_bytes(raw[:10] + edited + raw[10 + length:])

    for name in ("unbalanced", "twice", "junk"):
        subprocess.run([*CLI, "solve-game", *tiny, "--float", "--jobs", "1", "--save", str(folder / f"{name}.npy")],
                       capture_output=True, env=env, check=True)
        out[f"npy {name}"] = str(folder / f"{name}.npy")
    unbalanced(folder / "unbalanced.npy")
    header = folder / "twice.json"
    header.write_text('{"format": "junk", ' + header.read_text().lstrip()[1:])
    header = folder / "junk.json"
    header.write_text(json.dumps({**json.loads(header.read_text()), "error_bund": 0}))
    subprocess.run([*CLI, "solve-game", *tiny, "--float", "--jobs", "1", "--checkpoints", str(folder / "fck"),
                    "--save", str(folder / "fck.npy")], capture_output=True, env=env, check=True)
    unbalanced(folder / "fck" / "layer-001.npy")
    out["issue fck unbalanced"] = str(folder / "fck")
    game = json.loads((folder / "mygame.json").read_text())
    (folder / "game-twice.json").write_text('{"players": ["X", "Y"], ' + json.dumps(game)[1:])
    out["game-twice.json"] = str(folder / "game-twice.json")
    subprocess.run([*CLI, "solve-game", *tiny, "--save", str(folder / "table-twice.json")], capture_output=True,
                   env=env, check=True)
    table = folder / "table-twice.json"
    table.write_text('{"format": "junk", ' + table.read_text().lstrip()[1:])
    out["table-twice.json"] = str(table)
    learned = json.loads((ROOT / "examples" / "learned-small-boards.json").read_text())
    (folder / "learned-junk.json").write_text(json.dumps({**learned, "solitaire_shapez": {}}))
    out["learned-junk.json"] = str(folder / "learned-junk.json")
    return out


def issue_cases(f: dict[str, str]) -> list[list[str]]:
    """Command lines of the breaks of a hostile pass (each refused in one line, exit 2): the float
    table's header over a game file, the unbalanced ``.npy`` header for ``table:``, ``exact:``
    and a checkpoint resume, keys given twice in files, ``tile score`` with files it would not
    read, junk keys in a learned file and a binary table header."""
    tiny = ["--board", f["tiny-board.toml"], "--rules", f["tiny-rules.toml"]]
    unbalanced = f["npy unbalanced"]
    return [
        ["solve-game", *tiny, "--float", "--jobs", "1", "--save", f["mygame.json"][:-5] + ".npy"],
        ["advise", "--dice", "PBJ", *tiny, "--objective", "table:" + unbalanced],
        ["simulate", *tiny, "--players", "exact:" + unbalanced, "--games", "1", "--seed", "1", "--jobs", "1"],
        ["solve-game", *tiny, "--float", "--jobs", "1", "--checkpoints", f["issue fck unbalanced"], "--save",
         f["dir"] + "/never-fck.npy"],
        ["play", "status", f["game-twice.json"]],
        ["advise", "--dice", "PBJ", *tiny, "--objective", "table:" + f["table-twice.json"]],
        ["advise", "--dice", "PBJ", *tiny, "--objective", "table:" + f["npy twice"]],
        ["tile", "score", "PPTTP/PPTTF/GGBBF/GCCBB/GCCFF/PGBFP", "--layout", "/etc/passwd", "--cards", "/etc/passwd"],
        ["tile", "score", "PPTTP/PPTTF/GGBBF/GCCBB/GCCFF/PGBFP", "--cards", "/etc/passwd"],
        ["advise", "--dice", "CCBJPP", "--objective", "learned:" + f["learned-junk.json"]],
        ["advise", "--dice", "PBJ", *tiny, "--objective", "table:" + f["npy junk"]],
    ]


def _serve(args: list[str], env: dict[str, str], code: str = "") -> tuple[subprocess.Popen[str], str]:
    """A real ``serve`` (``code`` run first in its process) and its URL, the first line."""
    process = subprocess.Popen([sys.executable, "-c", code + "from shelfie_solver.cli import main; main()", "serve",
                                *args, "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={**env, "PYTHONUNBUFFERED": "1"})
    assert process.stdout is not None
    return process, process.stdout.readline().strip()


def _stop(process: subprocess.Popen[str]) -> tuple[float, int, str]:
    """SIGTERM: (seconds to exit, exit code (143 after a clean stop: 128 + 15), stderr)."""
    import signal

    start = time.monotonic()
    process.send_signal(signal.SIGTERM)
    try:
        _, err = process.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        _, err = process.communicate()
    return time.monotonic() - start, process.returncode, err


def _post(url: str, body: bytes) -> tuple[int, str]:
    import urllib.error
    import urllib.request

    request = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as reply:
            return reply.status, reply.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def _stale_prompt(tmp: Path, env: dict[str, str]) -> tuple[bool, str]:
    """``play q.json`` shows ``Ben roll>``; meanwhile another writer records Ben's roll CCCCCC
    (``play roll``, as the page's POST /api/roll); then PPPPPP is typed: the session must not
    write it as a re-roll (nothing written, the change said)."""
    import select

    game = tmp / "issue" / "q.json"
    subprocess.run([*CLI, "play", "new", str(game), "--players", "Ben,me", "--first", "Ben"], capture_output=True,
                   env=env, check=True)
    process = subprocess.Popen([*CLI, "play", str(game)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, env=env)
    assert process.stdout is not None and process.stdin is not None
    seen, deadline = b"", time.monotonic() + 120
    while b"roll>" not in seen and time.monotonic() < deadline and process.poll() is None:
        if select.select([process.stdout], [], [], 0.5)[0]:
            seen += os.read(process.stdout.fileno(), 4096)
    subprocess.run([*CLI, "play", "roll", str(game), "CCCCCC"], capture_output=True, env=env)
    after_page = game.read_bytes()
    try:
        out, _ = process.communicate(b"PPPPPP\nquit\n", timeout=120)
    except subprocess.TimeoutExpired:
        process.kill()
        out, _ = process.communicate()
    text = (seen + out).decode(errors="replace")
    ok = game.read_bytes() == after_page and "re-rolled all 6 dice" not in text
    return ok, "nothing written over the other writer's roll" if ok else "the typed roll was written as a re-roll"


def _raw(url: str, data: bytes) -> Any:
    import socket
    from urllib.parse import urlparse

    where = urlparse(url)
    sock = socket.create_connection((where.hostname, where.port))
    sock.sendall(data)
    return sock


def _closed_within(sock: Any, seconds: float) -> bool:
    import socket

    sock.settimeout(seconds)
    try:
        while sock.recv(4096):
            pass
    except (socket.timeout, TimeoutError):
        return False
    except ConnectionResetError:
        pass
    return True


def issue_special(tmp: Path, f: dict[str, str]) -> tuple[int, int]:
    """The multi-step checks of the breaks of a hostile pass: the game file beside a refused
    ``--save X.npy`` still a game; the session acting on a stale prompt; a dice-page body giving a
    key twice; the ``--tile`` file replaced by a symbolic link (no digest of its target); a stop with
    a body still coming and with an 8 s answer under way (at most 2 s); idle and incomplete
    connections closed after the timeout. Returns (cases, cases that broke the rule)."""
    import hashlib

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    results: list[tuple[str, bool, str]] = []
    done = subprocess.run([*CLI, "play", "status", f["mygame.json"]], capture_output=True, text=True, env=env)
    results.append(("game file beside --save X.npy kept", done.returncode == 0 and "not a saved game" not in done.stderr,
                    (done.stderr.splitlines() or ["still a game"])[0]))
    results.append(("session on a stale prompt", *_stale_prompt(tmp, env)))
    game = tmp / "issue" / "served.json"
    subprocess.run([*CLI, "play", "new", str(game), "--players", "Ann,Ben", "--first", "Ann"], capture_output=True,
                   env=env, check=True)
    tile = tmp / "issue" / "served" / "position.json"
    tile.parent.mkdir()
    position = subprocess.run([sys.executable, "-c", "import json, tomllib, sys; print(json.dumps(tomllib.loads("
                               "open(sys.argv[1]).read())))", str(ROOT / "examples" / "tile" / "position.toml")],
                              capture_output=True, text=True, check=True).stdout
    tile.write_text(position)
    before = game.read_bytes()
    process, url = _serve([str(game), "--tile", str(tile)], env)
    status, answer = _post(url + "api/roll", b'{"revision":1,"dice":"CCBJPP","dice":"CCCCCC"}')
    results.append(("dice body with a key twice", status == 400 and game.read_bytes() == before, f"{status} {answer}"))
    secret = tile.parent / "secret.txt"
    secret.write_text("top secret\n")
    tile.unlink()
    tile.symlink_to(secret.name)
    status, answer = _post(url + "api/tile/file", ('{"position": ' + position + ', "revision": ""}').encode())
    digest = hashlib.sha256(secret.read_bytes()).hexdigest()
    results.append(("--tile replaced by a link", status == 400 and digest not in answer, f"{status} {answer[:90]}"))
    start = time.monotonic()
    socks = [_raw(url, data) for data in (b"", b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\n")]
    closed = [_closed_within(sock, max(0.1, start + 9 - time.monotonic())) for sock in socks]
    results.append(("idle and half-sent connections closed", all(closed), f"closed {closed} within 9 s (timeout 5 s)"))
    pending = _raw(url, b"POST /api/roll HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                        b"Content-Length: 100\r\n\r\n{")
    time.sleep(0.5)
    seconds, code, err = _stop(process)
    pending.close()
    results.append(("stop with a body still coming", code == 143 and seconds <= 2.0 and "Traceback" not in err,
                    f"{seconds:.2f} s, exit {code}"))
    slow = "import time\nfrom shelfie_solver.web import api\napi.GameServer.review = lambda self: time.sleep(8) or {}\n"
    process, url = _serve([str(game)], env, slow)
    import threading

    threading.Thread(target=_get, args=(url + "api/review",), daemon=True).start()
    time.sleep(1.0)
    seconds, code, err = _stop(process)
    results.append(("stop with an 8 s answer under way", code == 143 and seconds <= 2.0 and "Traceback" not in err,
                    f"{seconds:.2f} s, exit {code}"))
    for name, ok, shown in results:
        print(f"{'ok ' if ok else 'BAD'} {name:40s} {shown.replace(str(tmp) + '/', '')[:110]}")
    return len(results), sum(not ok for _, ok, _ in results)


def _get(url: str) -> None:
    import urllib.request

    try:
        urllib.request.urlopen(url, timeout=30).read()
    except Exception:  # noqa: BLE001 - the answer cut by the stop
        pass


def hostile_cases(f: dict[str, str]) -> list[list[str]]:
    """Command lines of the hostile files (each refused in one line, exit 2)."""
    tiny = ["--board", f["tiny-board.toml"], "--rules", f["tiny-rules.toml"]]
    out = [["solve-game", *tiny, "--checkpoints", f[name]] for name in f if name.startswith("ck ")]
    out += [["solve-game", *tiny, "--float", "--jobs", "1", "--checkpoints", f[name], "--save",
             f["dir"] + "/never.npy"] for name in f if name.startswith("fck ")]
    out += [["simulate", *tiny, "--players", "exact:" + f[name], "--games", "1", "--seed", "1", "--jobs", "1"]
            for name in f if name.startswith("fnpy ")]
    out += [["advise", "--dice", "PBJ", *tiny, "--objective", "table:" + f[name]] for name in f
            if name.startswith("fnpy ")]
    out.append(["solve-game", *tiny, "--float", "--jobs", "1", "--checkpoints", f["dir"] + "/fck",
                "--save", f["dir"] + "/fck/solve.npy"])  # the header would replace the manifest
    exponent = "table:" + f["table-tiny-exponent.json"]
    out += [
        ["advise", "--dice", "PBJ", *tiny, "--objective", exponent],
        ["play", "roll", f["game-tiny.json"], "PBP", "--objective", exponent],  # must not record the roll
        ["review", f["game-tiny.json"], "--objective", exponent],
        ["train", "--seed", "1", "--games", "1", "--iterations", "1", "--players", "1", "--jobs", "1",
         "--output", f["dir"] + "/never.json", "--checkpoint", f["train-5000-digits.checkpoint"]],
        ["play", "roll", f["game-full.json"], "CCBJPP"],  # the game file is full: refused, unchanged
    ]
    out += [["advise", "--dice", "CCBJPP", "--objective", "learned:" + f[f"learned-2**{p}.json"]] for p in (50, 58, 60, 63)]
    out += [["train", "--seed", "1", "--players", given] for given in ("5", "0", "", "2,x", "-2", ",")]
    return out


#: What the one line of some refusals must say (the shortener once cut the example and the value).
MUST_SAY = {("train", "--seed", "1", "--players", given): f"(e.g. 1,2,3,4), got {given!r}"
            for given in ("5", "0", "", "2,x", "-2", ",")}


def rollout_cases(f: dict[str, str]) -> list[list[str]]:
    """rollout GAME, solve-game --players 2 and --report --histogram, and play new's names: each
    refused before any game is played (each in :data:`MUST_SAY` with the words its line must hold)."""
    game, board = f["game.json"], f["tiny-board.toml"]
    out = [["rollout", game, "--policy", text] for text in ("", ",", "win,", "win,,win", "win,win,win")]
    MUST_SAY.update({tuple(args): "--policy" for args in out})
    out += [["rollout", game, "--games", n] for n in ("0", "100001", "1e3", "-1")]
    out += [["rollout", game, "--top", n] for n in ("51", "-1")]
    out += [["rollout", f[name]] for name in ("dir", "fifo", "zero.json", "truncated.json", "array.json")]
    out += [["rollout", game, "--policy", "exact2:" + f["table.json"]], ["rollout", game, "--seed", "-1"],
            ["solve-game", "--board", board, "--players", "2", "--save", f["foreign.png"]],
            ["solve-game", "--board", board, "--players", "3"],
            ["solve-game", "--board", board, "--players", "2", "--versus", "greedy"],
            ["solve-game", "--board", board, "--players", "2", "--checkpoints", f["foreign.png"]],
            ["solve-game", "--report", "--board", board, "--histogram", f["foreign.png"]],  # not a PNG: kept
            ["solve-game", "--report", "--board", board, "--histogram", f["dir"]],
            ["solve-game", "--report", "--board", board, "--histogram", f["dir"] + "/no/such/h.png"],
            ["play", "new", f["dir"] + "/g-esc.json", "--players", "A\x1b[2JB,Ben"],
            ["play", "new", f["dir"] + "/g-long.json", "--players", "W" * 33 + ",Ben"]]
    return out


def hostile_accepted(f: dict[str, str]) -> list[list[str]]:
    """Names from hand-edited files, printed escaped on every output (exit 0, nothing on stderr)."""
    surrogate = f["game-surrogate.json"]
    return [["play", "status", surrogate], ["play", "advise", surrogate], ["review", surrogate],
            ["play", "status", surrogate, "--format", "csv"], ["play", "advise", surrogate, "--format", "markdown"],
            ["play", "roll", f["game-surrogate-roll.json"], "CCBJPP"],
            ["play", "status", f["game-formula.json"], "--format", "csv"], ["play", "status", f["game-full.json"]]]


def hostile_special(tmp: Path, f: dict[str, str]) -> tuple[int, int]:
    """The kinds that need more than one command line: the session with standard input closed
    (one line, exit 2), the session on a full game file (refused in the session, file
    unchanged), CSV of a formula name (neutralised), and Ctrl-C during `solve-game --checkpoints`
    and `train --checkpoint` (the message says what was kept). Returns (cases, cases that broke
    the rule)."""
    import signal

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    results: list[tuple[str, bool, str]] = []
    game = f["game.json"]
    before = Path(game).read_bytes()
    done = subprocess.run(["sh", "-c", 'exec "$0" -c "from shelfie_solver.cli import main; main()" play "$1" <&-',
                           sys.executable, game], capture_output=True, text=True, env=env, timeout=120)
    lines = done.stderr.splitlines()
    results.append(("session <&-", done.returncode == 2 and len(lines) == 1 and lines[0].startswith("Error: ")
                    and done.stdout == "" and Path(game).read_bytes() == before, (lines or [""])[0]))
    full = Path(f["game-full.json"])
    full_before = full.read_bytes()
    done = subprocess.run([*CLI, "play", str(full)], input="CCBJPP\n", capture_output=True, text=True, env=env,
                          timeout=120)
    results.append(("session on a full game file", done.returncode == 0 and "is full" in done.stdout
                    and "Traceback" not in done.stderr and full.read_bytes() == full_before,
                    next((line for line in done.stdout.splitlines() if "is full" in line), "")))
    results.append(("full game file unchanged by play roll", full.read_bytes() == full_before, ""))
    results.append(stale_prompt(tmp, env))
    tiny_game = json.loads(Path(f["game-tiny.json"]).read_text())
    results.append(("no roll recorded with a refused table:", len(tiny_game["events"]) == 1, ""))
    done = subprocess.run([*CLI, "play", "status", f["game-formula.json"], "--format", "csv"], capture_output=True,
                          text=True, env=env, timeout=120)
    cells = [line.split(",", 2)[1] for line in done.stdout.splitlines()[1:]]
    results.append(("csv formula names", cells == ["'=1+1", "'@Ben"], " ".join(cells)))
    small = str(ROOT / "examples" / "boards" / "small.toml")
    for name, args, ready in (
            ("Ctrl-C solve-game --checkpoints", ["solve-game", "--board", small, "--checkpoints", str(tmp / "ck-int"),
                                                 "--jobs", "1"],
             lambda: len(list((tmp / "ck-int").glob("layer-*.json"))) >= 2),
            ("Ctrl-C train --checkpoint", ["train", "--seed", "1", "--games", "10", "--iterations", "20", "--players",
                                           "1", "--jobs", "1", "--output", str(tmp / "int.json"), "--checkpoint",
                                           str(tmp / "int.checkpoint")],
             lambda: (tmp / "int.checkpoint").exists())):
        process = subprocess.Popen([*CLI, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                                   start_new_session=True)
        deadline = time.monotonic() + 120
        while not ready() and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGINT)
        try:
            out, err = process.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            out, err = process.communicate()
        last = (err.splitlines() or [""])[-1]
        results.append((name, process.returncode == 130 and "kept in" in last and "nothing saved" not in last, last))
    for name, ok, shown in results:
        print(f"{'ok ' if ok else 'BAD'} {name:40s} {shown.replace(str(tmp) + '/', '')[:110]}")
    return len(results), sum(not ok for _, ok, _ in results)


def cases(f: dict[str, str]) -> list[list[str]]:
    """Command lines of nasty input (each should exit 2 with one line)."""
    long = "9" * 5000
    out: list[list[str]] = []
    for name in ("deep-list.toml", "deep-table.toml", "dotted.toml", "dotted-small.toml", "big.toml",
                 "binary.toml", "latin1.toml", "bom-bad.toml", "dice0.toml", "dice13.toml", "dice-huge.toml",
                 "dice-float.toml", "dice-str.toml", "combos-1e9.toml", "combos-6.toml",
                 "combos-0.toml", "d12c12.toml", "rerolls-big.toml", "threshold-big.toml", "faces-empty.toml",
                 "faces-dup.toml", "faces-13.toml", "code-reserved.toml", "joker-bad.toml", "unknown-key.toml",
                 "fifo", "dir"):
        out.append(["advise", "--dice", "CCBJPP", "--rules", f[name]])
    for name in ("deep-list.toml", "dotted.toml", "b77-all.toml", "b8x8.toml", "b-value-huge.toml",
                 "b-joker-face.toml", "b-no-shelves.toml", "b-col-7.toml", "b-mismatch.toml", "empty.toml", "fifo"):
        out.append(["advise", "--dice", "CCBJPP", "--board", f[name]])
    for name in ("deep-list.toml", "fifo"):
        out.append(["odds", "--target", "5*", "--rules", f[name]])
    # over the work bounds (docs/formats.md): 10 dice on a 7 x 7 board; a 9-dice 7 x 7 cheat sheet
    out.append(["advise", "--dice", "CCBJPPGGAA", "--rules", f["dice10.toml"], "--board", f["b77-one.toml"]])
    out.append(["cheatsheet", "--rules", f["dice9.toml"], "--board", f["b77-one.toml"], "--output",
                f["dir"] + "/never"])
    out.append(["simulate", "--players", "solver", "--games", "2", "--rules", f["dice10.toml"], "--board",
                f["b77-one.toml"]])
    out.append(["odds", "--target", "r7c7", "--board", f["b77-all.toml"]])
    for name in ("combos-6.toml", "deep-table.toml"):
        out.append(["cheatsheet", "--rules", f[name], "--output", f["dir"] + "/never"])
    out.append(["cheatsheet", "--board", f["b77-all.toml"], "--output", f["dir"] + "/never"])
    for name in ("combos-6.toml", "d12c12.toml"):
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
        ["advise", "--dice", "CCBJPP", "--order", "2"],
        ["advise", "--dice", "CCBJPP", "--opponent", "zz/zz"],
        ["advise", "--dice", "CCBJPP", "--opponent", f["fifo"]],
        ["advise", "--dice", "CCBJPP", "--opponent", "o" * 5000],
        ["advise", "--dice", "CCBJPP", *["--opponent", "...../...../...../...../....."] * 4],
        ["advise", "--dice", "CCBJPP", "--opponent", "...../...../...../...../.....", "--order", long],
        ["advise", "--dice", "CCBJPP", "--opponent", "...../...../...../...../.....", "--round", "-1"],
        ["advise", "--dice", "CCBJPP", "--opponent", "xxxxx/xxxxx/...../...../....."],
        ["advise", "--dice", "CCBJPP", "--opponent", "...../...../...../...../.....", "--objective", "safe"],
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
    out += new_command_cases(f)
    out += hostile_cases(f)
    out += issue_cases(f)
    out += rollout_cases(f)
    return out


def new_command_cases(f: dict[str, str]) -> list[list[str]]:
    """play, review, tile and solve-game: files of every wrong kind, values of every wrong size."""
    long = "9" * 5000
    game, tiny = f["game.json"], ["--board", f["tiny-board.toml"], "--rules", f["tiny-rules.toml"]]
    out: list[list[str]] = []
    for name in ("fifo", "dir", "zero.json", "deep.json", "bignum.json", "array.json", "truncated.json",
                 "not-utf8.json", "games-empty.jsonl"):
        out += [["play", "status", f[name]], ["play", "advise", f[name]], ["play", f[name]], ["review", f[name]]]
    for name in ("fifo", "zero.json", "deep.json", "dir", "link-out"):
        out.append(["play", "roll", f[name], "CCBJPP"])
    out += [
        ["play", "new", game, "--players", "A,B"],  # exists
        ["play", "new", f["link-out"], "--players", "A"],
        ["play", "new", "", "--players", "A"],
        ["play", "new", f["dir"] + "/no/such/dir/g.json", "--players", "A"],
        ["play", "new", f["dir"] + "/g1.json", "--players", "A,,B"],
        ["play", "new", f["dir"] + "/g2.json", "--players", ",".join(["x"] * 5000)],
        ["play", "new", f["dir"] + "/g3.json", "--players", "A,a"],
        ["play", "new", f["dir"] + "/g4.json", "--players", "A,B", "--first", "C"],
        ["play", "new", f["dir"] + "/g5.json", "--players", "A", "--seed", long],
        ["play", "roll", game, "CCBJP"],
        ["play", "roll", game, "C" * 5000],
        ["play", "roll", game, "CCBJPP", "--objective", "nope"],  # must not write the roll
        ["play", "roll", game, "CCBJPP", "--objective", "table:" + f["fifo"]],
        ["play", "roll", game, "CCBJPP", "--player", "Zed"],
        ["play", "roll", game, "CCBJPP", "--top", "0"],
        ["play", "reroll", game, "CC", "--keep", "CCBB"],
        ["play", "mark", game, "r1c1"],
        ["play", "mark", game, "--best", "r1c1"],
        ["play", "mark", game, "--unchecked", "r1c1", "r1c1"],
        ["play", "mark", game, "--unchecked", "r1c1" * 3000],
        ["play", "mark", game, "--unchecked", "r0c0"],
        ["play", "mark", game, "--unchecked", "r1c1", "r1c2", "r1c3", "r1c4"],
        ["play", "fail", game, "--shelf", long],
        ["play", "fail", game, "--shelf", "best"],
        ["play", "fail", game, "--shelf", "1e3"],
        ["play", "fail", game],  # no --shelf: the shelves and the form, not click's "Missing option"
        ["play", "undo", game, "0"],
        ["play", "undo", game, "5"],
        ["play", "undo", game, long],
        ["play", game, "--objective", "nope"],
        ["play", game, "CCBJPP"],
        ["review", game, "--player", "9"],
        ["review", game, "--player", "Zed"],
        ["review", game, "--threshold", "1e-99999"],
        ["review", game, "--threshold", "1e999999999"],
        ["review", game, "--threshold", "nan"],
        ["review", game, "--game", "2"],
        ["review", game, "--game", "0"],  # counted from 1 (docs/review.md)
        ["review", game, "--game", "-3"],
        ["review", game, "--objective", "nope"],
        ["review", game, "--plot", game],  # the reviewed file itself: refused before any work
        ["review", f["games-link"], "--plot", game],  # the same file through a link
        ["review", game, "--plot", "-"],  # an image on standard output
        ["review", game, "--plot", f["dir"] + "/curve.gif"],  # only .png, .svg, .pdf
        ["play", "mark", game, "r" + long + "c1"],  # a 5000-digit row: int() refused it with ValueError
        ["play", "mark", game, "--unchecked", "r1c" + long],
        ["tile", "score", "P" * 5000],
        ["tile", "score", f["fifo"]],
        ["tile", "score", f["zero.json"]],
        ["tile", "score", f["shelf-big.txt"]],
        ["tile", "score", "...../...../...../...../PP.../P.P.."],
        ["tile", "score", "PPTTP/PPTTF/GGBBF/GCCBB/GCCFF/PGBFP", "--personal", long],
        ["tile", "score", "PPTTP/PPTTF/GGBBF/GCCBB/GCCFF/PGBFP", "--goals", long],
        ["tile", "score", "PPTTP/PPTTF/GGBBF/GCCBB/GCCFF/PGBFP", "--goals=-1"],  # was read as goal 1
        ["tile", "score", "PPTTP/PPTTF/GGBBF/GCCBB/GCCFF/PGBFP", "--goals", "T-CG-8"],
        ["tile", "advise", f["deep.json"]],
        ["tile", "advise", f["bignum.json"]],
        ["tile", "advise", f["zero.json"]],
        ["tile", "advise", f["pos-players.json"]],
        ["tile", "advise", f["pos-nested-goals.toml"]],
        ["tile", "advise", f["pos-typo.toml"]],
        ["tile", "advise", f["pos-floating.toml"]],
        ["tile", "advise", f["pos-huge.toml"]],
        ["tile", "advise", str(ROOT / "examples" / "tile" / "position.toml"), "--move", "4,0@" + long],
        ["tile", "advise", str(ROOT / "examples" / "tile" / "position.toml"), "--samples", "100000000"],
        ["tile", "advise", str(ROOT / "examples" / "tile" / "position.toml"), "--top", "0", "--format", "json"],
        ["cache", "--format", "pdf"],
        ["cache", "everything"],
        ["tile", "simulate", "--players", "advisor", "--games", "1"],
        ["tile", "simulate", "--players", "random,random", "--games", "2", "--save", "/dev/full"],
        ["tile", "simulate", "--players", "random,random", "--games", "1", "--layout", f["layout.toml"], "--save",
         f["layout.toml"]],  # the layout read would be replaced
        ["solve-game"],  # the default board: refused with the estimate
        ["solve-game", *tiny, "--max-states", "1"],
        ["solve-game", *tiny, "--max-states", long],
        ["solve-game", *tiny, "--checkpoints", ""],
        ["solve-game", *tiny, "--checkpoints", game],
        ["solve-game", *tiny, "--checkpoints", f["ck-fifo"]],
        ["solve-game", *tiny, "--save", f["dir"]],
        ["solve-game", *tiny, "--save", f["fifo"]],
        ["solve-game", *tiny, "--save", f["link-out"]],
        ["solve-game", *tiny, "--save", f["tiny-board.toml"]],  # an input file as the output
        ["solve-game", *tiny, "--save", f["tiny-rules.toml"]],
        ["simulate", *tiny, "--players", "exact:" + f["table.json"], "--games", "1", "--save", f["table.json"]],
        ["simulate", *tiny, "--players", "greedy", "--games", "1", "--save", f["tiny-board.toml"]],
        ["train", "--seed", "1", "--games", "1", "--iterations", "1", "--players", "1", *tiny, "--output",
         f["tiny-rules.toml"]],
        ["train", "--seed", "1", "--games", "1", "--iterations", "1", "--players", "1", "--output",
         f["dir"] + "/same.json", "--checkpoint", f["dir"] + "/same.json"],
    ]
    for name in ("table-floats.json", "table-short.json", "table-foreign.json", "table-negative.json", "fifo",
                 "zero.json", "deep.json", "game.json"):
        out.append(["advise", "--dice", "PBJ", *tiny, "--objective", "table:" + f[name]])
    # train --table (fit to value tables): files of every wrong kind, self-play options, the table as --output
    for name in ("table-foreign.json", "table-floats.json", "table-negative.json", "fifo", "zero.json", "deep.json",
                 "dir", "game.json"):
        out.append(["train", "--table", f[name], "--output", f["dir"] + "/fit.json"])
    out += [
        ["train", "--table", f["table.json"], "--output", f["table.json"]],  # would replace the table
        ["train", "--table", f["table.json"], "--output", f["dir"]],
        ["train", "--table", f["table.json"], "--table", f["table.json"], "--output", f["dir"] + "/fit.json"],
        ["train", "--table", f["table.json"], "--seed", "1", "--output", f["dir"] + "/fit.json"],
        ["train", "--table", f["table.json"], "--games", "5", "--output", f["dir"] + "/fit.json"],
        ["train", "--table", f["table.json"], *tiny, "--output", f["dir"] + "/fit.json"],
        ["train", "--table", ""],
        ["train", "--output", f["dir"] + "/fit.json"],  # self-play without --seed
        # --solitaire-boards: a ruleset of 3 dice (the family's columns need up to 5), no 1 in
        # --players, with --table, out of range
        ["train", "--seed", "1", "--players", "1", "--solitaire-boards", "1", *tiny, "--output",
         f["dir"] + "/fit.json"],
        ["train", "--seed", "1", "--players", "2", "--solitaire-boards", "1", "--output", f["dir"] + "/fit.json"],
        ["train", "--table", f["table.json"], "--solitaire-boards", "1", "--output", f["dir"] + "/fit.json"],
        ["train", "--seed", "1", "--solitaire-boards", "-1", "--output", f["dir"] + "/fit.json"],
    ]
    # learned:FILE parameter files (objective and strategy)
    for name in ("learned-floats.json", "table.json", "fifo", "zero.json", "deep.json", "dir"):
        out.append(["advise", "--dice", "CCBJPP", "--objective", "learned:" + f[name]])
    out += [
        ["advise", "--dice", "CCBJPP", "--objective", "learned:"],
        ["simulate", "--players", "learned:" + f["learned-floats.json"] + ",greedy", "--games", "1"],
        ["review", game, "--objective", "learned:" + f["learned-floats.json"]],
        ["play", "advise", game, "--objective", "learned:"],
        ["play", "advise", game, "--objective", "nope"],  # before the first roll too
    ]
    out.append(["simulate", *tiny, "--players", "exact:" + f["table-short.json"], "--games", "1", "--jobs", "1"])
    out.append(["simulate", *tiny, "--players", "exact:" + f["table.json"] + ",greedy", "--games", "1"])
    MUST_SAY.update({("play", "fail", game): f"one of shelves 1, 2, 3, 4, 5; give one up (play fail {game} --shelf N)",
                     ("play", "undo", game, "0"): f"undo needs a count of 1 or more actions, not 0; expected play undo "
                                                  f"{game} N"})
    return out


def accepted(f: dict[str, str]) -> list[list[str]]:
    """Heavy but accepted input: must run (exit 0) within the same time and memory bounds."""
    return [
        [],  # bare: the help
        ["odds", "--target", "5*", "--rules", f["combos-1e9.toml"]],  # dice alone: no item sets needed
        ["odds", "--target", "|".join(["r1c1"] * 2000)],
        ["advise", "--dice", "CCBJPPPPP", "--rules", f["dice9.toml"]],
        ["advise", "--dice", "CCBJPPGGAA", "--rules", f["dice10.toml"]],
        ["odds", "--target", "5*", "--rules", f["dice10.toml"]],
        ["cheatsheet", "--rules", f["dice10.toml"], "--output", "sheet-10-dice"],
        ["advise", "--dice", "CCBJPP", "--rules", f["bom-ok.toml"]],
        ["advise", "--dice", "CCBJPP", "--board", f["b77-one.toml"]],
        ["simulate", "--players", "solver,greedy", "--games", "1", "--seed", "1", "--jobs", "1", "--board",
         f["b77-one.toml"]],
        ["play", "status", f["game.json"]],
        ["review", f["game.json"]],
        ["tile", "score", "PPTTP/PPTTF/GGBBF/GCCBB/GCCFF/PGBFP"],
        ["tile", "score", "\ufeffPPTTP/PPTTF/GGBBF/GCCBB/GCCFF/PGBFP"],  # a byte-order mark is ignored
        ["tile", "advise", str(ROOT / "examples" / "tile" / "position.toml"), "--samples", "0"],
        ["tile", "advise", str(ROOT / "examples" / "tile" / "position.toml"), "--top", "1", "--format", "csv"],
        ["cache", "--format", "json"],
        ["advise", "--dice", "CCBJPP", "--opponent", "o..../o..../o..../...../.....", "--order", "2", "--round", "3"],  # shows the cache only (never --clear here: the user's own cache)
        ["advise", "--dice", "CCBJPP", "--objective", "learned:" + str(ROOT / "examples" / "learned-small-boards.json")],
        ["advise", "--dice", "PBJ", "--board", f["tiny-board.toml"], "--rules", f["tiny-rules.toml"],
         "--objective", "table:" + f["table.json"]],
        *hostile_accepted(f),
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


def session_cases(tmp: Path, f: dict[str, str]) -> int:
    """The interactive ``play GAME`` fed from a pipe: /dev/zero, a 1 MB line, bytes that are not
    UTF-8 and garbage lines must end (or go on) without a traceback and leave the file as it was.
    Returns the number of cases that broke the rule (the pseudo-terminal cases are in
    tests/test_play_session.py)."""
    bad = 0
    game = Path(f["game.json"])
    before = game.read_bytes()
    (tmp / "long-line.txt").write_text("C" * 1_000_000)
    garbage = b"'unterminated\n\x00\x01\x1b[A\n\xff\xfe\nkeep\nmark\nfail 1 2\nundo x\nundo -1\nfail " + b"9" * 3000 + b"\n"
    (tmp / "garbage.txt").write_bytes(garbage)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for name, code in (("/dev/zero", 2), (str(tmp / "long-line.txt"), 2), (str(tmp / "garbage.txt"), 0)):
        start = time.perf_counter()
        with open(name, "rb") as stdin:
            try:
                done = subprocess.run([*CLI, "play", str(game)], stdin=stdin, capture_output=True, env=env,
                                      timeout=120)
                ok = done.returncode == code and b"Traceback" not in done.stderr + done.stdout
                ok = ok and len(done.stderr.splitlines()) == (code == 2)
                shown = (done.stderr.decode(errors="replace").splitlines() or ["(continues, exit 0)"])[0]
            except subprocess.TimeoutExpired:
                ok, shown = False, "timed out"
        ok = ok and game.read_bytes() == before
        bad += not ok
        print(f"{'ok ' if ok else 'BAD'} session < {Path(name).name:20s} {time.perf_counter() - start:5.1f}s  "
              f"{shown[:110]}")
    return bad


def env_cases(tmp: Path) -> int:
    """A hostile environment: table-cache entries (core/diskcache.py) truncated, then replaced by
    FIFOs (which once hung every command), a blank ``SHELFIE_SOLVE_CACHE`` and ``off``, a
    ``SHELFIE_SOLVE_CACHE_MAX`` too small for any entry, and ``OPENBLAS_NUM_THREADS`` set by the
    user: ``advise`` must answer as with a fresh cache (exit 0, nothing on stderr); a
    ``SHELFIE_SOLVE_CACHE_MAX`` that is not a size is refused in one line (exit 2). Returns the
    number of cases that broke the rule."""
    cache = tmp / "cache"
    args = [*CLI, "advise", "--dice", "CCBJPP", "--format", "json"]
    base = {**os.environ, "PYTHONPATH": str(ROOT), "SHELFIE_SOLVE_CACHE": str(cache)}
    fresh = subprocess.run(args, capture_output=True, env=base, cwd=tmp, timeout=120).stdout
    bad = 0
    for name in ("truncated entries", "FIFO entries", "cache ' '", "cache off", "OPENBLAS_NUM_THREADS=2",
                 "SHELFIE_SOLVE_CACHE_MAX=1k", "SHELFIE_SOLVE_CACHE_MAX=lots"):
        env = dict(base)
        if name.startswith("SHELFIE_SOLVE_CACHE_MAX"):
            env["SHELFIE_SOLVE_CACHE"] = str(tmp / "bounded-cache")
            env["SHELFIE_SOLVE_CACHE_MAX"] = name.split("=")[1]
        elif name == "truncated entries":
            for entry in cache.glob("*.npy"):
                entry.write_bytes(entry.read_bytes()[:200])
        elif name == "FIFO entries":
            for entry in cache.glob("*.npy"):
                entry.unlink()
                os.mkfifo(entry)
        elif name.startswith("cache"):
            env["SHELFIE_SOLVE_CACHE"] = name[7:-1] if "'" in name else "off"
            env["XDG_CACHE_HOME"] = str(tmp / "xdg")
        else:
            env["OPENBLAS_NUM_THREADS"] = "2"
        start = time.perf_counter()
        try:
            done = subprocess.run(args, capture_output=True, env=env, cwd=tmp, timeout=120)
            ok = done.returncode == 0 and done.stderr == b"" and done.stdout == fresh and bool(fresh)
            if name.endswith("=lots"):  # not a size: one line, exit 2
                ok = (done.returncode == 2 and done.stdout == b"" and len(done.stderr.splitlines()) == 1
                      and done.stderr.startswith(b"Error: SHELFIE_SOLVE_CACHE_MAX="))
            elif name.endswith("=1k"):  # every entry is larger than 1 KiB: none kept
                ok = ok and not list((tmp / "bounded-cache").glob("*.npy"))
            shown = (done.stderr.decode(errors="replace").splitlines() or ["same advice, exit 0"])[-1]
        except subprocess.TimeoutExpired:
            ok, shown = False, "timed out"
        ok = ok and not (tmp / " ").exists()
        bad += not ok
        print(f"{'ok ' if ok else 'BAD'} env {name:24s} {time.perf_counter() - start:5.1f}s  {shown[:110]}")
    return bad


def stale_prompt(tmp: Path, env: dict[str, str]) -> tuple[str, bool, str]:
    """The session at 'Ben roll>' while the page records Ben's roll CCCCCC (the web API's
    revision-checked write); PPPPPP typed then must write nothing (no re-roll recorded) and say
    what changed (issue: a session acting on a stale prompt)."""
    from shelfie_solver.dice.play.session import Session
    from shelfie_solver.web.api import GameServer

    game = tmp / "stale.json"
    subprocess.run([*CLI, "play", "new", str(game), "--players", "Ann,Ben", "--first", "Ben"], capture_output=True,
                   env=env, timeout=120, check=True)
    session = Session(str(game), "strategic")
    session.prompt()
    GameServer(str(game)).write("roll", {"revision": 1, "dice": "CCCCCC"})
    written = game.read_bytes()
    said = " ".join(session.handle("PPPPPP").split())
    kinds = [e["event"] for e in json.loads(written)["events"][1:]]
    ok = game.read_bytes() == written and kinds == ["roll"] and "Ben rolled CCCCCC" in said \
        and "Nothing was written" in said and session.prompt() == "Ben CCCCCC/2> "
    return "session line at a stale prompt", ok, said[:110]


def main() -> int:
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        f = files(tmp)
        game_before = Path(f["game.json"]).read_bytes()
        table_before = Path(f["table.json"]).read_bytes()
        inputs_before = [Path(f[name]).read_bytes() for name in ("tiny-board.toml", "tiny-rules.toml", "layout.toml")]
        bad = 0
        all_cases = [(args, True) for args in cases(f)] + [(args, False) for args in accepted(f)]
        if sys.argv[1:]:  # only the cases of these commands, e.g. `play review tile solve-game`
            all_cases = [(args, refused) for args, refused in all_cases if args[:1] and args[0] in sys.argv[1:]]
        slowest = biggest = 0.0
        for args, refused in all_cases:
            code, out, err, seconds, rss = run(args, tmp)
            lines = err.splitlines()
            if refused:
                ok = code == 2 and out == "" and len(lines) == 1 and lines[0].startswith("Error: ")
                ok = ok and MUST_SAY.get(tuple(args), "") in lines[0]
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
        if (tmp / "outside.json").read_text() != "precious":
            print("BAD a game file written through a link leading outside its folder")
            bad += 1
        if Path(f["game.json"]).read_bytes() != game_before:
            print("BAD refused input changed the game file")
            bad += 1
        if [Path(f[name]).read_bytes() for name in ("tiny-board.toml", "tiny-rules.toml", "layout.toml")] != inputs_before:
            print("BAD refused input replaced a board or rules file")
            bad += 1
        if Path(f["table.json"]).read_bytes() != table_before:
            print("BAD refused input changed the value table")
            bad += 1
        if Path(f["foreign.png"]).read_bytes() != game_before:
            print("BAD a game file named .png replaced by solve-game without --force")
            bad += 1
        checks = 6  # the files left as they were, above
        bad += session_cases(tmp, f)
        checks += 3
        if not sys.argv[1:] or "env" in sys.argv[1:]:
            bad += env_cases(tmp)
            checks += 7
        if not sys.argv[1:] or "hostile" in sys.argv[1:]:
            special, broke = hostile_special(tmp, f)
            checks, bad = checks + special, bad + broke
        if not sys.argv[1:] or "issue" in sys.argv[1:]:
            special, broke = issue_special(tmp, f)
            checks, bad = checks + special, bad + broke
        total = len(all_cases) + checks
        print(f"\n{len(all_cases)} inputs ({sum(r for _, r in all_cases)} refused, "
              f"{sum(not r for _, r in all_cases)} accepted) and {checks} more checks: {total - bad} of {total} "
              f"follow the contract, {bad} do not; slowest {slowest:.1f} s, largest {biggest:.0f} MB resident")
        return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
