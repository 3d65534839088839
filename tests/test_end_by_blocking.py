"""The end trigger on every sheet after the blocks (D15, D17), in one home, and the order of play
(D5, D18) in one home.

The hand-worked position (default board, docs/rules.md): Ann plays first, Ben last in the round.
Ann gave up shelf 5 (D13, told) and marked r4c2 r4c3 r4c4 r4c5 (24 points: 2+5+6+11, D19) and
r3c5; her r4c1 is her only available item on shelf 4. Ben marked r1c1-r1c4 (shelf 1: 1+2+4+7 = 14),
r2c1-r2c3 (shelf 2: 1+3+4 = 8) and r3c1, r4c1 (column 1 so far r1c1 r2c1 r3c1 r4c1: 1+1+2+1 = 5),
27 points. Ben rolls GGGGGA: the Award marks r5c1 (column 1 needs 1 die, shelf 5 shows awards)
and completes his column 1, which eliminates Ann's r4c1 (D15): Ann then has shelves 4 and 5
without an available item, the end is triggered (D17) and, Ben being last in the round, the game
ends at once (D18) with Ben ahead (at least 29 against 24): every marking with r5c1 is a sure win,
exactly 1 (D20), whatever the model says.
"""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

import numpy as np
from click.testing import CliRunner
from hypothesis import given, settings, strategies as st

from shelfie_solver.cli import main
from shelfie_solver.dice.board import Marks, item_sets
from shelfie_solver.dice.board import load_board
from shelfie_solver.dice.rules import DEFAULT_RULES
from shelfie_solver.dice.sheet_rules import marking_ends_game, markings_end_game

ROOT = Path(__file__).resolve().parents[1]


def run(*args: str) -> str:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


def blocked_position(path: Path) -> str:
    game = str(path)
    run("play", "new", game, "--players", "Ann,Ben", "--first", "Ann")
    run("play", "fail", game, "--shelf", "5")
    for cells in ("r1c1 r1c2 r1c3", "r4c2 r4c3 r4c4", "r1c4 r2c1 r2c2", "r4c5", "r2c3 r3c1 r4c1", "r3c5"):
        run("play", "mark", game, "--unchecked", *cells.split())
    run("play", "roll", game, "GGGGGA")
    return game


def test_a_marking_that_ends_the_game_by_blocking_is_a_sure_win_in_play(tmp_path):
    game = blocked_position(tmp_path / "g.json")
    advice = json.loads(run("play", "stop", game, "--format", "json"))
    markings = advice["markings"]
    ending = [m for m in markings if "r5c1" in m["cells"]]
    assert ending and all(m["win_chance_float"] == 1.0 and m["win_chance_exact"] for m in ending)
    assert all(m["ends_game"] for m in ending)
    assert not any(m["win_chance_exact"] for m in markings if "r5c1" not in m["cells"])
    assert markings[0]["cells"] == ending[0]["cells"]
    run("play", "mark", game, *ending[0]["cells"])
    status = json.loads(run("play", "status", game, "--format", "json"))
    ben = next(s for s in status["sheets"] if s["name"] == "Ben")
    assert ben["win_chance_float"] == 1.0 and ben["win_chance_exact"]  # the chance shown before the marking


def test_advise_opponent_sees_the_end_by_blocking():
    ann = "...../...../....o/.oooo/xxxxx"
    ben = "oooo./ooo../o..../o..../....."
    data = json.loads(run("advise", "--dice", "GGGGGA", "--rerolls", "0", "--marks", ben, "--opponent", ann,
                          "--order", "2", "--round", "4", "--format", "json"))
    ending = [m for m in data["markings"] if "r5c1" in m["cells"]]
    assert ending and all(m["win_chance_float"] == 1.0 and m["win_chance_exact"] and m["ends_game"] for m in ending)
    assert data["win_chance_exact"] and data["win_chance_float"] == 1.0
    assert "ends the game at once" in data["reason"] and "you win 57-24" in data["reason"]  # 27 + 30 points


def test_serve_shows_the_same_exact_chance(tmp_path):
    from starlette.testclient import TestClient

    from shelfie_solver.web.api import GameServer
    from shelfie_solver.web.app import create_app

    game = blocked_position(tmp_path / "g.json")
    client = TestClient(create_app(GameServer(game)))
    state = client.get("/api/state").json()
    revision = state["revision"]
    stop = client.post("/api/stop", json={"revision": revision}).json()
    markings = stop["advice"]["markings"]
    ending = [m for m in markings if "r5c1" in m["cells"]]
    assert ending and all(m["win_chance_float"] == 1.0 and m["win_chance_exact"] for m in ending)


# --- one home for D17 after D15 -------------------------------------------------------------


def _brute_force_ends(board, rules, sheets, seat, cells) -> bool:
    """Independent of sheet_rules: mark, eliminate every other sheet's available items on each line
    the player has all marked (D15), count shelves whose five items are none available (D17)."""
    n_sh, n_co = board.n_shelves, board.n_columns
    marked = [set(c for c in range(board.n_cells) if m.marked >> c & 1) for m in sheets]
    gone = [set(c for c in range(board.n_cells) if m.eliminated >> c & 1) for m in sheets]
    marked[seat] |= set(cells)
    lines = [[s * n_co + c for c in range(n_co)] for s in range(n_sh)]
    lines += [[s * n_co + c for s in range(n_sh)] for c in range(n_co)]
    for line in lines:
        if all(c in marked[seat] for c in line):
            for other in range(len(sheets)):
                if other != seat:
                    gone[other] |= {c for c in line if c not in marked[other]}
    need = min(rules.end_trigger_shelves, n_sh)
    for p in range(len(sheets)):
        closed = sum(all(c in marked[p] or c in gone[p] for c in lines[s]) for s in range(n_sh))
        if closed >= need:
            return True
    return False


@st.composite
def tables(draw):
    board = load_board(None, DEFAULT_RULES)
    players = draw(st.integers(2, 4))
    sheets = []
    for _ in range(players):
        states = draw(st.lists(st.sampled_from("..ox"), min_size=board.n_cells, max_size=board.n_cells))
        marked = sum(1 << c for c, s in enumerate(states) if s == "o")
        gone = sum(1 << c for c, s in enumerate(states) if s == "x")
        sheets.append(Marks(board.n_shelves, board.n_columns, marked, gone))
    return board, tuple(sheets), draw(st.integers(0, players - 1))


@settings(max_examples=60, deadline=None)
@given(tables())
def test_markings_end_game_equals_a_brute_force(table):
    board, sheets, seat = table
    rules = DEFAULT_RULES
    available = [c for c in range(board.n_cells) if sheets[seat].is_available(c)]
    chosen = [cells for size in (1, 2, 3) for cells in itertools.combinations(available, size)][:300]
    if not chosen:
        return
    sets = item_sets(board, 3)
    index = {tuple(int(c) for c in row if c >= 0): i for i, row in enumerate(sets.cells)}
    taken = sets.take(np.array([index[c] for c in chosen], dtype=np.int64))
    fast = markings_end_game(board, rules, sheets, seat, taken)
    for k, cells in enumerate(chosen):
        expected = _brute_force_ends(board, rules, sheets, seat, cells)
        assert bool(fast[k]) == expected == marking_ends_game(board, rules, sheets, seat, cells)


# --- one home for the order of play (D5, D18) ------------------------------------------------


def test_the_round_order_is_written_once():
    """``(seat - first) % players`` lives in game/events.py (place_in_round) only."""
    formula = re.compile(r"\(\s*[\w.\[\]]+\s*-\s*[\w.]*first\s*\)\s*%")
    found = [f"{path.relative_to(ROOT)}:{i}" for path in (ROOT / "shelfie_solver" / "dice").rglob("*.py")
             for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if formula.search(line) and path.name != "events.py"]
    assert not found, found


def three_seat_position(path: Path) -> str:
    """The position of :func:`blocked_position` with Cy seated third, after Ben (D5: Ann, Ben,
    Cy): Cy's told markings (r2c5, r3c4, r5c5) touch neither column 1 nor Ann's shelves, so Ben's
    r5c1 still blocks Ann's r4c1 and closes her second shelf (D15, D17); but Ben is no longer last
    in the round: Cy plays once more (D18)."""
    game = str(path)
    run("play", "new", game, "--players", "Ann,Ben,Cy", "--first", "Ann")
    run("play", "fail", game, "--shelf", "5")
    for cells in ("r1c1 r1c2 r1c3", "r2c5", "r4c2 r4c3 r4c4", "r1c4 r2c1 r2c2", "r3c4", "r4c5",
                  "r2c3 r3c1 r4c1", "r5c5", "r3c5"):
        run("play", "mark", game, "--unchecked", *cells.split())
    run("play", "roll", game, "GGGGGA")
    return game


def best_line(text: str) -> str:
    """The title's best line, its wrapped lines joined."""
    flat = " ".join(text.split())
    return flat[flat.index("Best: mark"):flat.index("Why:") if "Why:" in flat else None]


def test_the_title_times_the_end_as_the_reason_does(tmp_path):
    """The tester's find: last in the round, the title said "this ends the game after the round"
    while the Why line said "ends the game at once (D17, D18)". D18: the last player of the round
    who triggers the end ends the game at once; an earlier seat's trigger lets the round be played
    out. Ben last of two (at once), Ben second of three (after the round), for the best line of
    the title and the footer under the end column."""
    last = " ".join(run("play", "stop", blocked_position(tmp_path / "two.json")).split())
    assert "r5c1" in best_line(last) and best_line(last).rstrip().endswith("; this ends the game at once")
    assert "which ends the game at once (D17, D18)" in last
    assert "the game ends at once, this seat being last in the round (D18)" in last
    assert "after the round" not in last and "the round is played out" not in last

    three = three_seat_position(tmp_path / "three.json")
    earlier = " ".join(run("play", "stop", three).split())
    assert "r5c1" in best_line(earlier) and best_line(earlier).rstrip().endswith("; this ends the game after the round")
    assert "at once" not in earlier
    assert "ends game: it closes the shelf that triggers the end (D17), the round is played out (D18)." in earlier
    # the points objective's title (another table, the same words)
    points = " ".join(run("play", "advise", str(tmp_path / "two.json"), "--objective", "points").split())
    assert "r5c1" in best_line(points) and best_line(points).rstrip().endswith("; this ends the game at once")
    points = " ".join(run("play", "advise", three, "--objective", "points").split())
    assert "r5c1" in best_line(points) and best_line(points).rstrip().endswith("; this ends the game after the round")


def test_nothing_ends_the_game_once_the_end_is_triggered(tmp_path):
    # small-3x4, Ann, Ben, Cy (Ann first): Ann closes her second shelf by giving up shelf 3 and
    # triggers the end (D17); Ben's dice PPBBAA mark nothing (a failed result, D13) and giving up
    # shelf 3 closes his own second shelf, which before was flagged "ends game" with "this ends the
    # game after the round". The round is played out whatever Ben does (D18): no choice ends it
    import json

    from conftest import EXAMPLES

    game, board = str(tmp_path / "g.json"), str(EXAMPLES / "boards" / "small-3x4.toml")
    steps = [["new", game, "--players", "Ann,Ben,Cy", "--first", "Ann", "--board", board],
             ["mark", game, "--unchecked", "r1c1", "r1c2", "r1c3"], ["mark", game, "--unchecked", "r1c1", "r1c2", "r1c3"],
             ["mark", game, "--unchecked", "r2c1", "r2c3"], ["fail", game, "--shelf", "2"], ["fail", game, "--shelf", "2"],
             ["fail", game, "--shelf", "3"], ["fail", game, "--shelf", "3"], ["roll", game, "PPBBAA"], ["stop", game]]
    for step in steps:
        result = CliRunner().invoke(main, ["play", *step])
        assert result.exit_code == 0, (step, result.output)
    data = json.loads(CliRunner().invoke(main, ["play", "advise", game, "--format", "json"]).stdout)
    assert data["turn"]["end_triggered"] and data["turn"]["player"] == "Ben"
    assert [s["shelf"] for s in data["shelves"]] and not any(s["ends_game"] for s in data["shelves"])
    text = CliRunner().invoke(main, ["play", "advise", game]).stdout
    assert "ends the game" not in text and "ends game" not in text, text
