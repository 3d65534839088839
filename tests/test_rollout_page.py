"""The rollout of ``serve``'s dice page (docs/serve.md, docs/rollout.md): ``GET /api/rollout`` through
Starlette's TestClient (the JSON of ``rollout --format json``, one-line errors), and the page's
Rollout button in Debian's Chromium at phone size against a real server.

The game is a greedy two-player game replayed to the start of its last turn (D17, D18; the
helpers of tests/test_rollout.py), so the play-outs are one turn each and the page answers fast.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx2")

from starlette.testclient import TestClient  # noqa: E402

from shelfie_solver.dice.game.turn import play_seeded  # noqa: E402
from shelfie_solver.dice.play.gamefile import act, kept_game_to_text, split_actions, start_kept_game  # noqa: E402
from shelfie_solver.dice.strategies import strategy_named  # noqa: E402
from shelfie_solver.web.api import GameServer  # noqa: E402
from shelfie_solver.web.app import create_app  # noqa: E402

from test_rollout import SEEDS, _last_turn_start  # noqa: E402


@pytest.fixture(scope="module")
def last_turn_game(tmp_path_factory: pytest.TempPathFactory, board, rules) -> str:
    """A game file at the start of a last turn."""
    for seed in SEEDS:
        kept = _last_turn_start(board, rules, seed)
        if kept is not None:
            path = tmp_path_factory.mktemp("rollout") / "game.json"
            path.write_text(kept_game_to_text(kept))
            return str(path)
    pytest.fail("no last turn among the seeds")


def test_api_rollout_is_the_json_of_the_command(last_turn_game: str):
    client = TestClient(create_app(GameServer(last_turn_game)))
    answer = client.get("/api/rollout", params={"games": "40", "top": "2"})
    assert answer.status_code == 200, answer.text
    data = answer.json()
    state = client.get("/api/state").json()
    assert (data["revision"], data["digest"]) == (state["revision"], state["digest"])
    assert data["games"] == 40 and data["policies"] == ["win", "win"] and data["choices"] == []  # no dice: no choices
    assert 0 <= data["seed"] < 2**32  # a seed the page shows whole and the command takes back
    seats = data["position"]["seats"]
    assert sum(Fraction(s["win_chance"]) for s in seats) == 1
    for seat in seats:
        low, high = seat["ci95"]
        assert 0 <= low <= seat["win_chance_float"] <= high <= 1
    # the page's figures are the table's: they add up to 100%, a seat that won none of the 40
    # games reads 0% with the Wilson interval 0 to z^2 / (40 + z^2) = 3.8415 / 43.8415 = 8.76% -> [0%, 8.8%]
    assert sum(Fraction(s["shown"].rstrip("%")) for s in seats) == 100
    for seat in seats:
        if seat["win_chance"] == "0/1":
            assert seat["shown"] == "0%" and seat["ci95_shown"] == "[0%, 8.8%]" and "won none or all of the 40" in data["note"]
        elif seat["win_chance"] == "1/1":
            assert seat["shown"] == "100%" and seat["ci95_shown"] == "[91.2%, 100%]"


def test_api_rollout_bad_input(last_turn_game: str, tmp_path: Path, board, rules):
    client = TestClient(create_app(GameServer(last_turn_game)))
    for games in ("0", "2001", "many", "-3"):
        answer = client.get("/api/rollout", params={"games": games})
        assert answer.status_code == 400 and "games must be a whole number from 1 to 2,000" in answer.json()["error"]
    answer = client.get("/api/rollout", params={"top": "9"})
    assert answer.status_code == 400 and "top" in answer.json()["error"]
    finished = play_seeded(board, rules, [strategy_named("greedy")] * 2, 1)
    over = start_kept_game(board, rules, ("Ann", "Ben"), finished.events[0].first)
    for _, action in split_actions(finished.events):
        over = act(over, action)
    done = tmp_path / "over.json"
    done.write_text(kept_game_to_text(over))
    answer = TestClient(create_app(GameServer(str(done)))).get("/api/rollout")
    assert answer.status_code == 400 and "game is over" in answer.json()["error"]
    assert "\n" not in json.dumps(answer.json()["error"])


def test_the_rollout_button(last_turn_game: str, shots: Path):
    pytest.importorskip("browser_support")  # skips without Chromium
    from browser_support import ARGS, CHROMIUM, PHONE, playwright
    from serve_support import Served

    served = Served(last_turn_game, "--port", "0")
    try:
        with playwright.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page: Any = browser.new_page(viewport=PHONE, device_scale_factor=1)
            errors: list[str] = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.goto(served.url)
            page.wait_for_selector("#sheets .sheet")
            button = page.locator("#rollout-run")
            assert button.is_visible()
            box = button.bounding_box()
            assert box["width"] >= 44 and box["height"] >= 44
            button.click()
            page.locator("#rollout-result", has_text="Rollout of").wait_for(timeout=120_000)
            text = page.locator("#rollout-result").text_content()
            assert "200 games" in text and "Ann" in text and "Ben" in text and "95%" in text, text
            assert "0.0%" not in text and "100.0%" not in text, text  # the tables' 0% and 100%, never a false decimal
            assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
            page.locator("#rollout").scroll_into_view_if_needed()
            page.screenshot(path=str(shots / "10-rollout.png"))
            assert not errors, errors
            browser.close()
    finally:
        served.stop()
