"""Exact where it fits, two players (dice/wholegame/exact2_cache.py, docs/solve-game.md): the
two-player table of a board within SHELFIE_SOLVE_EXACT2_BUDGET, solved on first use, kept in the
disk cache, and played and shown by ``win`` in two-player games. The truths are the table file
of ``solve-game --players 2 --save`` (the strategy ``exact2:FILE``) and the rules of the cache."""

from __future__ import annotations

import json
import os
import signal
import time
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner
from conftest import EXAMPLES, assert_one_line_error

from shelfie_solver.cli import main
from shelfie_solver.core import diskcache
from shelfie_solver.dice.board import load_board
from shelfie_solver.dice.game.dice_sources import GeneratorDice
from shelfie_solver.dice.game.events import Fail, Mark, Roll, Stop
from shelfie_solver.dice.objective_names import advice_objective, parse_objective
from shelfie_solver.dice.play.gamefile import act, start_kept_game
from shelfie_solver.dice.play.report import step_advice, table_chances
from shelfie_solver.dice.rules import DEFAULT_RULES
from shelfie_solver.dice.wholegame import exact2_cache
from shelfie_solver.dice.wholegame.two_player import state_key
from shelfie_solver.dice.wholegame.two_player_table import (
    OBJECTIVE_SCALE,
    load_two_player,
)

TINY = str(EXAMPLES / "boards" / "tiny-2x3.toml")


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """A cache folder of the test's own, nothing in this process's memory, the default budgets."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("SHELFIE_SOLVE_CACHE", str(folder))
    monkeypatch.delenv("SHELFIE_SOLVE_CACHE_MAX", raising=False)
    monkeypatch.delenv(exact2_cache.BUDGET_ENV, raising=False)
    monkeypatch.setattr(exact2_cache, "_KNOWN", {})
    monkeypatch.setattr(exact2_cache, "_COUNTS", {})
    return folder


@pytest.fixture(scope="module")
def table_file(tmp_path_factory):
    """The table of tiny-2x3 written by ``solve-game --players 2 --save`` (the truth: ``exact2:FILE``)."""
    path = tmp_path_factory.mktemp("exact2") / "tiny.json"
    result = CliRunner().invoke(main, ["solve-game", "--players", "2", "--board", TINY, "--save", str(path)])
    assert result.exit_code == 0, result.output
    return str(path)


def _entries(folder) -> list[str]:
    return [e.kind for e in diskcache.entries(folder)]


def _simulate(players: str, save, seed: int, games: int):
    return CliRunner().invoke(main, ["simulate", "--players", players, "--board", TINY, "--games", str(games),
                                     "--seed", str(seed), "--jobs", "1", "--save", str(save)])


def test_win_plays_exactly_the_games_of_the_table(cache, table_file, tmp_path):
    """Same seed: the games of win,learned are those of exact2:T,learned, byte for byte but for the
    players' names the save records."""
    ours, theirs = tmp_path / "win.jsonl", tmp_path / "table.jsonl"
    first = _simulate("win,learned", ours, 7, 30)
    assert first.exit_code == 0, first.output
    assert "exact two-player optimum" in first.stdout
    second = _simulate(f"exact2:{table_file},learned", theirs, 7, 30)
    assert second.exit_code == 0, second.output
    renamed = theirs.read_bytes().replace(json.dumps(f"exact2:{table_file}").encode(), b'"win"')
    assert renamed == ours.read_bytes()
    assert len(ours.read_text().splitlines()) == 30


def _play_by_win(seed: int):
    """A tiny-2x3 game of two seats played by win's advice at the final dice (holds at random
    from the seed); yields the kept game at each turn's start."""
    rules = DEFAULT_RULES
    board = load_board(TINY, rules)
    rng = np.random.default_rng(seed)
    source = GeneratorDice(rng)
    kept = start_kept_game(board, rules, ("A", "B"), int(rng.integers(2)))
    while kept.over is None:
        yield kept
        seat = kept.active
        kept = act(kept, (Roll(seat, source.roll((0,) * rules.n_sides, rules), rules.rerolls),))
        kept = act(kept, (Stop(seat),))
        advice = step_advice(kept, "win")
        assert advice is not None
        kept = act(kept, (Mark(seat, advice.markings[0].marking.cells),) if advice.markings
                   else (Fail(seat, advice.failed[0].shelf, advice.failed[0].lost_items),))


@pytest.mark.parametrize("seed", [3, 4, 5])
def test_the_status_chance_is_the_tables_value(cache, table_file, seed):
    """At every turn's start the active seat's status chance is the table file's value of the
    position (within the objective's 2^-30 and the table's bound), exact, the seats adding to 1;
    the advice names the exact two-player optimum."""
    table = load_two_player(table_file)
    tolerance = Fraction(1, OBJECTIVE_SCALE) + table.bound
    turns = 0
    for kept in _play_by_win(seed):
        state = kept.state
        chances = table_chances(kept)
        value = Fraction(table.value(state_key(state.board, (state.sheets[0], state.sheets[1]), state.active,
                                               state.first, state.end_triggered)))
        assert abs(chances[state.active][0] - value) <= tolerance
        assert all(flag for _, flag in chances) and sum(c for c, _ in chances) == 1
        assert advice_objective("win", state).name == "exact two-player optimum"
        turns += 1
    assert turns >= 4


def test_over_the_budget_keeps_the_model(cache, monkeypatch):
    """A budget of 1 state: win stays on the model (its objective and its play), nothing solved."""
    monkeypatch.setenv(exact2_cache.BUDGET_ENV, "1")
    board = load_board(TINY, DEFAULT_RULES)
    kept = start_kept_game(board, DEFAULT_RULES, ("A", "B"), 0)
    found = exact2_cache.route(board, DEFAULT_RULES)
    assert not found.exact and "over the exact budget" in found.reason
    assert parse_objective("win", board, kept.state).name == "win"
    from shelfie_solver.dice.strategies import WinStrategy

    assert WinStrategy().exact(kept.state) is None
    assert exact2_cache.KIND not in _entries(cache)


def test_the_default_board_does_not_fit(cache):
    board = load_board(None, DEFAULT_RULES)
    found = exact2_cache.route(board, DEFAULT_RULES)
    assert not found.exact and "25 items" in found.reason


def test_kept_in_the_cache_and_read_back(cache, table_file, monkeypatch, capsys):
    """Solved once (an estimate line), written whole as a 'two-player-values' entry that ``cache``
    lists, equal to the table file; a new process (memory cleared) reads it without solving."""
    board = load_board(TINY, DEFAULT_RULES)
    first = exact2_cache.solution_for(board, DEFAULT_RULES)
    assert first is not None
    assert "Solving the two-player game of board 'tiny 2x3' exactly, once: 30,719 states" in capsys.readouterr().err
    assert _entries(cache).count(exact2_cache.KIND) == 1
    truth = load_two_player(table_file)
    assert np.array_equal(first.keys, truth.keys) and np.array_equal(first.values, truth.values)
    monkeypatch.setattr(exact2_cache, "_KNOWN", {})

    def refuse(*args, **kwargs):
        raise AssertionError("solved again instead of read from the cache")

    monkeypatch.setattr("shelfie_solver.dice.wholegame.two_player.solve_two_player", refuse)
    again = exact2_cache.solution_for(board, DEFAULT_RULES)
    assert again is not None and np.array_equal(again.values, truth.values) and capsys.readouterr().err == ""
    assert again.bound == Fraction(truth.bound)
    listing = json.loads(CliRunner().invoke(main, ["cache", "--format", "json"]).stdout)
    assert listing["kinds"][exact2_cache.KIND]["entries"] == 1


def test_interrupted_solve_keeps_nothing_and_stays_on_the_model(cache, monkeypatch, capsys):
    """Ctrl-C during the solve: nothing written, one line on stderr, the model from then on."""
    board = load_board(TINY, DEFAULT_RULES)
    kept = start_kept_game(board, DEFAULT_RULES, ("A", "B"), 0)

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr("shelfie_solver.dice.wholegame.two_player.solve_two_player", interrupted)
    assert parse_objective("win", board, kept.state).name == "win"
    assert capsys.readouterr().err.count(exact2_cache.INTERRUPTED_LINE) == 1
    assert exact2_cache.KIND not in _entries(cache)
    assert not exact2_cache.route(board, DEFAULT_RULES).exact
    assert parse_objective("win", board, kept.state).name == "win"  # not asked again
    assert capsys.readouterr().err == ""


def test_ctrl_c_in_simulate_plays_on_with_the_model(cache, monkeypatch, tmp_path):
    """Ctrl-C in the first-use solve of ``simulate --players win,learned``: the games are played by
    the model, stderr says so once, exit 0, no entry."""
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr("shelfie_solver.dice.wholegame.two_player.solve_two_player", interrupted)
    result = _simulate("win,learned", tmp_path / "games.jsonl", 1, 3)
    assert result.exit_code == 0, result.output
    assert result.stderr.count(exact2_cache.INTERRUPTED_LINE) == 1
    assert "exact two-player optimum" not in result.stdout
    assert exact2_cache.KIND not in _entries(cache)


@pytest.mark.parametrize("setting, words", [({"SHELFIE_SOLVE_CACHE": "off"}, "not kept: the table cache is off"),
                                            ({"SHELFIE_SOLVE_CACHE_MAX": "100K"}, "not kept: larger than"),
                                            ({}, "kept in the table cache;")])
def test_the_estimate_line_says_whether_the_table_is_kept(cache, monkeypatch, setting, words):
    """The estimate line said "kept in the table cache" with the cache off or the table over
    its bound too; now it says whether it will be kept."""
    for name, value in setting.items():
        monkeypatch.setenv(name, value)
    result = CliRunner().invoke(main, ["advise", "--dice", "GGCCBP", "--board", TINY, "--marks", ".../...",
                                       "--opponent", ".../...", "--objective", "win"])
    assert result.exit_code == 0, result.output
    line = next(line for line in result.stderr.splitlines() if line.startswith("Solving the two-player"))
    assert words in line
    assert (exact2_cache.KIND in _entries(cache)) == (not setting)


def test_sigterm_in_the_solve_is_ctrl_c(cache, monkeypatch):
    """SIGTERM during the first-use solve (which has no signal handler of its own) was the
    default death (exit -15, no line); now as Ctrl-C: one line, the model, exit 0, no entry."""
    def terminated(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(10)  # the handler raises here
        raise AssertionError("SIGTERM was not delivered")

    monkeypatch.setattr("shelfie_solver.dice.wholegame.two_player.solve_two_player", terminated)
    result = CliRunner().invoke(main, ["advise", "--dice", "GGCCBP", "--board", TINY, "--marks", ".../...",
                                       "--opponent", ".../...", "--objective", "win"])
    assert result.exit_code == 0, result.output
    assert result.stderr.count(exact2_cache.INTERRUPTED_LINE) == 1
    assert "exact two-player optimum" not in result.stdout
    assert exact2_cache.KIND not in _entries(cache)
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


@pytest.mark.parametrize("text", ["lots", "-5", "2.4m", "1e6"])
def test_bad_budget_is_one_line(cache, monkeypatch, text):
    """A budget that is not a number of states: exit 2, one line naming the variable."""
    monkeypatch.setenv(exact2_cache.BUDGET_ENV, text)
    result = CliRunner().invoke(main, ["advise", "--dice", "GGCCBP", "--board", TINY, "--marks", ".../...",
                                       "--opponent", ".../..."])
    assert_one_line_error(result, exact2_cache.BUDGET_ENV, "number of states")


def test_advise_opponent_shows_the_table(cache, table_file):
    """``advise --opponent`` on tiny-2x3 at the game's start: the best marking's chance is the
    table's best worth (exact2:FILE's advice, the same figure) and the objective is named."""
    args = ["advise", "--dice", "GGCCBP", "--rerolls", "0", "--board", TINY, "--marks", ".../...",
            "--opponent", ".../...", "--format", "json"]
    ours = json.loads(CliRunner().invoke(main, args).stdout)
    theirs = json.loads(CliRunner().invoke(main, [*args, "--objective", f"exact2:{table_file}"]).stdout)
    assert ours["objective"] == "exact two-player optimum"
    assert ours["win_chance"] == theirs["win_chance"] and ours["win_chance_exact"] is True


def test_the_page_and_review_name_it_and_show_percent(cache):
    """The web page's advice (play's JSON) names the exact two-player optimum and words its value as
    the chance to win in percent; a review under win says the table stood for it."""
    from shelfie_solver.dice.review import review
    from shelfie_solver.web.api import advice_json, value_unit

    board = load_board(TINY, DEFAULT_RULES)
    kept = start_kept_game(board, DEFAULT_RULES, ("A", "B"), 0)
    kept = act(kept, (Roll(0, (0, 2, 1, 0, 2, 1), DEFAULT_RULES.rerolls),))
    advice = advice_json(kept, "win")
    assert advice["objective"] == "exact two-player optimum" and advice["win_chance_exact"] is True
    assert value_unit(advice["objective"], True)["percent"] is True
    kept = act(kept, (Stop(0),))
    best = step_advice(kept, "win")
    assert best is not None
    kept = act(kept, (Mark(0, best.markings[0].marking.cells),))
    assert review(kept, 0, "win").objective == "win (exact two-player optimum)"


def test_ctrl_c_part_way_through_a_real_solve(cache, monkeypatch):
    """Ctrl-C once the real solve has reported its first layers (a progress bar, as on a
    terminal, whose callback raises): ``advise --opponent`` goes on with the model, says so once,
    exits 0, keeps nothing; the next process solves and keeps it."""
    from contextlib import contextmanager

    seen: list[int] = []

    class Bar:
        def advance(self, steps: int) -> None:
            seen.append(steps)
            if len(seen) > 2:
                raise KeyboardInterrupt

    @contextmanager
    def bar(label, total=None, *, delay=0.0):
        yield Bar() if label.startswith("Solving") else None

    monkeypatch.setattr("shelfie_solver.core.progress.progress_bar", bar)
    args = ["advise", "--dice", "GGCCBP", "--rerolls", "0", "--board", TINY, "--marks", ".../...",
            "--opponent", ".../..."]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert 0 < sum(seen) < 30_719  # stopped part way
    assert result.stderr.count(exact2_cache.INTERRUPTED_LINE) == 1
    assert "objective win" in result.stdout and "exact two-player optimum" not in result.stdout
    assert exact2_cache.KIND not in _entries(cache)
    monkeypatch.undo()
    monkeypatch.setenv("SHELFIE_SOLVE_CACHE", str(cache))
    monkeypatch.setattr(exact2_cache, "_KNOWN", {})  # a new process
    again = CliRunner().invoke(main, args)
    assert "exact two-player optimum" in again.stdout.replace("\n  ", " ")
    assert _entries(cache).count(exact2_cache.KIND) == 1


def test_a_position_no_game_reaches_stays_on_the_model(cache):
    """Seat 1 opens the round (D5) with an empty sheet while seat 2 has marked an item: no game
    from empty sheets gets there, so the table does not hold it and win decides by the model."""
    from shelfie_solver.dice.board import Marks
    from shelfie_solver.dice.game.events import GameState
    from shelfie_solver.dice.strategies import WinStrategy

    board = load_board(TINY, DEFAULT_RULES)
    empty = Marks(board.n_shelves, board.n_columns, 0)
    state = GameState(board, DEFAULT_RULES, (empty, Marks(board.n_shelves, board.n_columns, 1)), 0, 0, 2, False)
    assert exact2_cache.solution_for(board, DEFAULT_RULES) is not None  # the board fits
    assert WinStrategy().exact(state) is None
    assert exact2_cache.exact2_objective(state) is None
    assert parse_objective("win", board, state).name == "win"
    reachable = GameState(board, DEFAULT_RULES, (empty, empty), 0, 0, 0, False)
    assert WinStrategy().exact(reachable) is not None


def test_a_table_over_the_cache_bound_is_used_not_written(cache, monkeypatch):
    """SHELFIE_SOLVE_CACHE_MAX below the table's size (30,719 keys and values: 480 KB): the table
    is solved and played from memory, nothing is written; the bound holds for this kind too."""
    monkeypatch.setenv("SHELFIE_SOLVE_CACHE_MAX", "64K")
    board = load_board(TINY, DEFAULT_RULES)
    assert exact2_cache.solution_for(board, DEFAULT_RULES) is not None
    assert exact2_cache.KIND not in _entries(cache)
    assert sum(e.size for e in diskcache.entries(cache)) <= 64 << 10


def test_train_with_a_play_model_plays_by_it_not_by_the_table(cache, monkeypatch, tmp_path):
    """``train --win-model --self-play win --play-model X`` on tiny-2x3 (which fits the two-player
    budget): the self-play games are X's, so the file written is byte for byte the one written
    with the exact two-player solve off (``SHELFIE_SOLVE_EXACT2_BUDGET=0``: the model plays);
    a win given an explicit model never switches to the table."""
    from shelfie_solver.dice.learned.win_fit import EVEN
    from shelfie_solver.dice.learned.win_model import model_text
    from shelfie_solver.dice.strategies import WinStrategy

    played = tmp_path / "even.json"
    played.write_text(model_text(EVEN))

    def train(output) -> str:
        result = CliRunner().invoke(main, ["train", "--win-model", "--self-play", "win", "--play-model", str(played),
                                           "--board", TINY, "--seed", "5", "--games", "3", "--jobs", "1",
                                           "--output", str(output)])
        assert result.exit_code == 0, result.output
        return output.read_text()

    fits = train(tmp_path / "fits.json")
    monkeypatch.setenv(exact2_cache.BUDGET_ENV, "0")
    assert train(tmp_path / "off.json") == fits
    monkeypatch.delenv(exact2_cache.BUDGET_ENV)
    board = load_board(TINY, DEFAULT_RULES)
    empty = start_kept_game(board, DEFAULT_RULES, ("A", "B"), 0).state
    assert WinStrategy().exact(empty) is not None  # the board fits: plain win plays the table
    assert WinStrategy(win_model=EVEN).exact(empty) is None


def test_train_without_a_play_model_plays_by_the_shipped_model_not_by_the_table(cache, monkeypatch, tmp_path):
    """``train --win-model --self-play win`` without ``--play-model`` on tiny-2x3 says its games
    are "by the shipped model (data/win.json)", but plain ``win`` plays the exact two-player table
    there: the two-player games were the table's. Now the shipped model plays them, so the file
    is byte for byte the one written with the exact two-player solve off
    (``SHELFIE_SOLVE_EXACT2_BUDGET=0``: only the model can play), and the line says so."""

    def train(output) -> tuple[str, str]:
        result = CliRunner().invoke(main, ["train", "--win-model", "--self-play", "win", "--board", TINY,
                                           "--seed", "5", "--games", "3", "--jobs", "1", "--output", str(output)])
        assert result.exit_code == 0, result.output
        return output.read_text(), result.stdout

    fits, said = train(tmp_path / "fits.json")
    assert "(by the shipped model (data/win.json))" in said
    monkeypatch.setenv(exact2_cache.BUDGET_ENV, "0")
    assert train(tmp_path / "off.json")[0] == fits
    assert json.loads(fits)["played_by"] == "the shipped model (data/win.json)"


def _served_new_game(tmp_path, *setup: str, name: str = "game.json") -> tuple[Any, Any]:
    """A new game of A and B (A first; ``setup``: play new's --board ...) and a TestClient of
    ``serve`` on it."""
    pytest.importorskip("starlette")
    pytest.importorskip("httpx2")
    from starlette.testclient import TestClient

    from shelfie_solver.web.api import GameServer
    from shelfie_solver.web.app import create_app

    path = tmp_path / name
    made = CliRunner().invoke(main, ["play", "new", str(path), "--players", "A,B", "--first", "A", *setup])
    assert made.exit_code == 0, made.output
    return path, TestClient(create_app(GameServer(str(path))))


def test_serves_review_names_the_exact_table(cache, tmp_path):
    """``serve``'s ``GET /api/review`` on tiny-2x3 with two players said objective ``win`` and
    "from the fitted model" while the exact two-player table stood for it: it names the source
    as ``review`` does (``win (exact two-player optimum)``) and words the unit as ``advise``'s
    table figures (TABLE_CHANCE_WORDS: "from the exact two-player table")."""
    path, client = _served_new_game(tmp_path, "--board", TINY)
    assert client.get("/api/review").json()["objective"] == "win (exact two-player optimum)"  # no decision yet
    revision = client.post("/api/roll", json={"revision": 1, "dice": "GGCCBP"}).json()["revision"]
    advice = client.get("/api/state").json()
    assert advice["advice"]["objective"] == "exact two-player optimum"
    answer = client.get("/api/review").json()
    assert answer["revision"] == revision
    expected = json.loads(CliRunner().invoke(main, ["review", str(path), "--player", "A", "--format",
                                                    "json"]).stdout)
    assert expected["objective"] == answer["objective"] == "win (exact two-player optimum)"
    assert "fitted model" not in json.dumps(answer)
    assert answer["unit"]["percent"] is True and "exact two-player table" in answer["unit"]["note"]
    assert answer["unit"] == advice["unit"]


def test_serves_state_before_the_first_roll_names_the_exact_table(cache, tmp_path):
    """``GET /api/state`` before the first roll on tiny-2x3 with two players: the sheets' chances
    are the exact two-player table's (``win_chance_exact``), and the unit's note said they came
    "from the fitted model" (no advice yet named the table). The note is the table's words, as
    after the roll; on the default board (too large for the table) it stays the model's."""
    path, client = _served_new_game(tmp_path, "--board", TINY)
    before = client.get("/api/state").json()
    assert all(sheet["win_chance_exact"] for sheet in before["status"]["sheets"])
    assert "fitted model" not in json.dumps(before)
    assert "exact two-player table" in before["unit"]["note"]
    client.post("/api/roll", json={"revision": 1, "dice": "GGCCBP"})
    assert client.get("/api/state").json()["unit"] == before["unit"]

    state = _served_new_game(tmp_path, name="default.json")[1].get("/api/state").json()
    assert "fitted model" in state["unit"]["note"]


def test_the_state_count_is_kept_on_disk(cache, monkeypatch):
    """The two-player state count of a board (the budget's test, :func:`exact2_cache.state_count`)
    is counted once and kept in the disk cache with its budget: a new process reads it, over the
    budget too (-1), without counting again (a board of 12 items took a minute a command)."""
    from shelfie_solver.dice.wholegame import two_player

    board = load_board(TINY, DEFAULT_RULES)
    assert exact2_cache.state_count(board, DEFAULT_RULES, 10**6) == 30_719  # docs/solve-game.md's count
    assert exact2_cache.state_count(board, DEFAULT_RULES, 1000) is None
    assert _entries(cache).count(exact2_cache.COUNT_KIND) == 2
    monkeypatch.setattr(exact2_cache, "_COUNTS", {})  # a new process: nothing in memory

    def counted(*_args):
        raise AssertionError("counted again")

    monkeypatch.setattr(two_player, "reachable_states", counted)
    assert exact2_cache.state_count(board, DEFAULT_RULES, 10**6) == 30_719
    assert exact2_cache.state_count(board, DEFAULT_RULES, 1000) is None
    with pytest.raises(AssertionError, match="counted again"):  # another budget is another entry
        exact2_cache.state_count(board, DEFAULT_RULES, 2000)
