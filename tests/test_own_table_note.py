"""The note of a board's own table (dice/learned/own_cache.py, docs/strategies.md "A board's own
table"): on a 4 x 5 or 5 x 4 board over the exact budget the shipped ``learned`` alone plays the
board's own table, and every command that names the objective says so in the one line
``simulate`` adds (:func:`own_cache.own_table_note`): ``advise`` (learned, no opponents),
``play`` alone (its objective win is learned there), and ``serve``'s page (under its values).
Nowhere else: not on the default board, not with opponents, not for strategic.

The fit itself (tens of CPU seconds a board, tests/test_own_cache.py) is not what is tested here:
each board's own table is put in this process's memory first (the shipped table as a stand-in),
as a run that fitted it would have it."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from conftest import EXAMPLES
from shelfie_solver.cli import main
from shelfie_solver.dice.board import load_board
from shelfie_solver.dice.learned import own_cache
from shelfie_solver.dice.learned.model_file import LearnedModel, default_model
from shelfie_solver.dice.rules import DEFAULT_RULES

BOARDS = {"4x5": str(EXAMPLES / "boards" / "held-out-4x5.toml"),
          "5x4": str(EXAMPLES / "boards" / "held-out-5x4-2345.toml")}
#: The note's opening words, its name the objective's own (never renamed)
NOTE = "plays this board's own table here: the board is over the exact budget"


@pytest.fixture
def own_tables(monkeypatch):
    """Both boards' own tables in memory, as after a fit in this process (no fit here)."""
    monkeypatch.delenv(own_cache.OWN_ENV, raising=False)
    shipped = default_model()
    models: dict = {}
    for path in BOARDS.values():
        board = load_board(path, DEFAULT_RULES)
        assert (board.n_shelves, board.n_columns) in own_cache.OWN_SHAPES
        models[(board, DEFAULT_RULES)] = LearnedModel(dict(shipped.weights), {"trained": {"own table": board.name}},
                                                      {(board.n_shelves, board.n_columns): shipped.for_board(1, board)})
    monkeypatch.setattr(own_cache, "_MODELS", models)
    from shelfie_solver.dice.strategies import strategy_named

    strategy_named.cache_clear()
    yield
    strategy_named.cache_clear()


def _note_lines(text: str) -> list[str]:
    """The note's lines, unwrapped (the table's notes wrap at 80 columns)."""
    flat = " ".join(line.strip() for line in text.splitlines())
    return [part for part in flat.split(". ") if NOTE in part]


@pytest.mark.parametrize("shape", sorted(BOARDS))
def test_advise_learned_alone_says_it_plays_the_own_table(own_tables, shape):
    result = CliRunner().invoke(main, ["advise", "--board", BOARDS[shape], "--dice", "CCBJPP", "--objective", "learned"])
    assert result.exit_code == 0, result.output
    assert [line.startswith("learned plays") for line in _note_lines(result.stdout)] == [True], result.stdout


@pytest.mark.parametrize("shape", sorted(BOARDS))
def test_advise_json_carries_the_note_as_play_does(own_tables, shape):
    """``advise --format json``: the key ``own_table`` holds the note the table prints (play's
    JSON has it too); absent where the table says nothing of an own table."""
    args = ["advise", "--board", BOARDS[shape], "--dice", "CCBJPP", "--objective", "learned"]
    table = CliRunner().invoke(main, args)
    data = json.loads(CliRunner().invoke(main, [*args, "--format", "json"]).stdout)
    assert NOTE in data["own_table"] and data["own_table"].startswith("learned plays")
    assert " ".join(data["own_table"].split()) in " ".join(table.stdout.split())
    plain = json.loads(CliRunner().invoke(main, ["advise", "--board", BOARDS[shape], "--dice", "CCBJPP",
                                                 "--format", "json"]).stdout)
    assert "own_table" not in plain


@pytest.mark.parametrize("args", [
    ["--objective", "learned"],                                    # the default board: the shipped tables
    ["--board", BOARDS["4x5"], "--objective", "strategic"],        # another objective
    ["--board", BOARDS["4x5"]],                                    # the default objective, strategic
    ["--board", BOARDS["4x5"], "--objective", "learned", "--opponent", "...../...../...../....."],  # with opponents
])
def test_advise_says_nothing_of_an_own_table_elsewhere(own_tables, args):
    result = CliRunner().invoke(main, ["advise", "--dice", "CCBJPP", *args])
    assert result.exit_code == 0, result.output
    assert "own table" not in result.stdout


@pytest.mark.parametrize("shape", sorted(BOARDS))
def test_play_alone_says_it_plays_the_own_table(own_tables, tmp_path, shape):
    game = str(tmp_path / "game.json")
    runner = CliRunner()
    assert runner.invoke(main, ["play", "new", game, "--players", "Ann", "--board", BOARDS[shape]]).exit_code == 0
    rolled = runner.invoke(main, ["play", "roll", game, "CCBJPP"])
    assert rolled.exit_code == 0, rolled.output
    # play's objective is win; alone it is learned (docs/play.md), as the title names it ("objective learned")
    assert "objective learned" in rolled.stdout
    assert [line.startswith("learned plays") for line in _note_lines(rolled.stdout)] == [True], rolled.stdout
    advised = runner.invoke(main, ["play", "advise", game, "--objective", "learned", "--format", "json"])
    assert advised.exit_code == 0, advised.output
    assert json.loads(advised.stdout)["own_table"].startswith(f"learned {NOTE}")
    strategic = runner.invoke(main, ["play", "advise", game, "--objective", "strategic"])
    assert strategic.exit_code == 0 and "own table" not in strategic.stdout


def test_play_with_opponents_and_on_the_default_board_says_nothing(own_tables, tmp_path):
    runner = CliRunner()
    for name, extra in (("two", ["--players", "Ann,Ben", "--first", "Ann", "--board", BOARDS["4x5"]]),
                        ("default", ["--players", "Ann"])):
        game = str(tmp_path / f"{name}.json")
        assert runner.invoke(main, ["play", "new", game, *extra]).exit_code == 0
        rolled = runner.invoke(main, ["play", "roll", game, "CCBJPP"])
        assert rolled.exit_code == 0, rolled.output
        assert "own table" not in rolled.stdout
        data = json.loads(runner.invoke(main, ["play", "advise", game, "--format", "json"]).stdout)
        assert "own_table" not in data


def test_the_page_says_it_under_its_values(own_tables, tmp_path):
    pytest.importorskip("starlette")
    from starlette.testclient import TestClient

    from shelfie_solver.web.api import GameServer
    from shelfie_solver.web.app import create_app

    game = str(tmp_path / "game.json")
    runner = CliRunner()
    assert runner.invoke(main, ["play", "new", game, "--players", "Ann", "--board", BOARDS["5x4"]]).exit_code == 0
    client = TestClient(create_app(GameServer(game)))
    before = client.get("/api/state").json()
    assert "own table" not in before["unit"]["note"]  # no advice before the roll: nothing fitted for it
    assert runner.invoke(main, ["play", "roll", game, "CCBJPP"]).exit_code == 0
    after = client.get("/api/state").json()
    assert after["unit"]["note"].endswith(f"learned {NOTE}, so its weights were fitted to the exact tables of its "
                                          "sub-boards, then improved by value iteration on the board itself "
                                          "(docs/solve-game.md, exact where it fits).")


def test_the_page_shows_it_in_a_browser(tmp_path, monkeypatch, shots):
    """The page at phone size, a one-player game on the 5 x 4 board after a roll: "What the
    numbers mean" says the objective plays the board's own table. The server (another process)
    reads the own table from the disk cache, put there first (the shipped table as a stand-in: no fit)."""
    pytest.importorskip("browser_support")  # skips without Chromium
    from browser_support import ARGS, CHROMIUM, PHONE, playwright
    from serve_support import Served
    from shelfie_solver.core import diskcache
    from shelfie_solver.dice.wholegame.float_kernel import has_numba

    if not has_numba():
        pytest.skip("the own table needs numba (own_cache.applies)")
    monkeypatch.setenv("SHELFIE_SOLVE_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv(own_cache.OWN_ENV, raising=False)
    for memo in ("_KNOWN", "_BY_OBJECT", "_MODELS"):
        monkeypatch.setattr(own_cache, memo, {})
    board = load_board(BOARDS["5x4"], DEFAULT_RULES)
    base = default_model().for_board(1, board)
    diskcache.write_entry(own_cache.KIND, own_cache._key(board, DEFAULT_RULES, base), {"weights": base})
    game = str(tmp_path / "game.json")
    runner = CliRunner()
    assert runner.invoke(main, ["play", "new", game, "--players", "Ann", "--board", BOARDS["5x4"]]).exit_code == 0
    assert runner.invoke(main, ["play", "roll", game, "CCBJPP"]).exit_code == 0
    served = Served(game, "--port", "0")
    try:
        with playwright.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page = browser.new_page(viewport=PHONE, device_scale_factor=1)
            errors: list[str] = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.goto(served.url)
            page.wait_for_selector("#sheets .sheet")
            details = page.locator("details.unit")
            details.locator("summary").click()
            text = details.text_content()
            assert f"learned {NOTE}" in text, text
            assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
            details.scroll_into_view_if_needed()
            page.screenshot(path=str(shots / "own-table-note.png"))
            assert not errors, errors
            browser.close()
    finally:
        served.stop()
