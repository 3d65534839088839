"""``shelfie-solve serve``'s JSON API through Starlette's TestClient (docs/serve.md): the same JSON
objects as ``play ... --format json``, stale writes refused (two pages on one game), the token,
bounded bodies, one-line JSON errors, the CLI's bad-input messages, the file kept byte for byte.

The game is the hand-worked one of tests/test_play.py (default board, Ann first; D5): Ann rolls
CCBBPG (shown sorted PGBBCC, D6), keeps CCBB and re-rolls CP (D7) -> PBBCCC, marks r1c1 r1c2 r2c2
(C, CC, BB: D8-D10); Ben's turn is told without dice (r3c1 r3c2 r3c3, D4/D9, unchecked).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from click.testing import CliRunner

pytest.importorskip("starlette")
pytest.importorskip("httpx2")

from starlette.testclient import TestClient  # noqa: E402

from shelfie_solver.cli import main  # noqa: E402
from shelfie_solver.web.api import GameServer  # noqa: E402
from shelfie_solver.web.app import MAX_BODY_BYTES, create_app  # noqa: E402

from serve_support import one_line_error  # noqa: E402
from shelfie_solver.web.token import is_loopback, new_token, token_matches  # noqa: E402


from conftest import ROOT, cli, cli_json  # noqa: E402


def new_game(path: Path, players: str = "Ann,Ben,me") -> str:
    cli("play", "new", str(path), "--players", players, "--first", "Ann")
    return str(path)


@pytest.fixture
def game(tmp_path: Path) -> str:
    return new_game(tmp_path / "game.json")


@pytest.fixture
def client(game: str) -> TestClient:
    return TestClient(create_app(GameServer(game)))


def post(client: TestClient, kind: str, **body: object):
    return client.post(f"/api/{kind}", json=body)


def test_the_test_client_runs_on_httpx2_without_a_deprecation_warning():
    """Starlette's TestClient on the old httpx warns (StarletteDeprecationWarning: "install
    `httpx2` instead"); the test extras install httpx2 (pyproject.toml), so importing it in a
    fresh interpreter with that warning an error succeeds."""
    done = subprocess.run([sys.executable, "-W", "error::starlette.exceptions.StarletteDeprecationWarning",
                           "-c", "import starlette.testclient"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_state_is_the_json_of_play_status_and_play_advise(game: str, client: TestClient):
    state = client.get("/api/state").json()
    assert state["status"] == cli_json("play", "status", game)
    assert state["advice"] == cli_json("play", "advise", game)
    assert state["revision"] == 1  # the start event (D5): the number of events in the file
    assert [s["number"] for s in state["layout"]["shelves"]] == [1, 2, 3, 4, 5]
    assert state["layout"]["shelves"][0]["values"] == [1, 2, 4, 7, 11]  # the default board's shelf 1 (D3)
    assert state["layout"]["dice"] == 6 and state["layout"]["rerolls"] == 2  # D2, D7


def test_each_write_returns_the_json_the_cli_step_prints(tmp_path: Path):
    """The page's numbers are play's: the same actions on two files, one through the API, one
    through the CLI, give equal JSON objects after every step."""
    web, term = new_game(tmp_path / "web.json"), new_game(tmp_path / "term.json")
    client = TestClient(create_app(GameServer(web)))
    revision = client.get("/api/state").json()["revision"]
    steps = [("roll", {"dice": "CCBBPG"}, ["play", "roll", term, "CCBBPG"]),
             ("reroll", {"keep": "CCBB", "new": "CP"}, ["play", "reroll", term, "--keep", "CCBB", "CP"]),
             ("mark", {"items": ["r1c1", "r1c2", "r2c2"]}, ["play", "mark", term, "r1c1", "r1c2", "r2c2"]),
             ("told", {"items": ["r3c1", "r3c2", "r3c3"]}, ["play", "mark", term, "--unchecked", "r3c1", "r3c2", "r3c3"]),
             # me's failed result told without dice (unchecked, D13): shelf 2 given up
             ("fail", {"shelf": 2}, ["play", "fail", term, "--shelf", "2"])]
    for kind, body, args in steps:
        answer = post(client, kind, revision=revision, **body)
        assert answer.status_code == 200, answer.text
        state = answer.json()
        assert state["advice"] == cli_json(*args)
        assert state["status"] == cli_json("play", "status", term)
        revision = state["revision"]
    assert Path(web).read_text() == Path(term).read_text()  # the same game file, event for event
    # Ann's sheet by hand: r1c1 (1) r1c2 (2) r2c2 (3) marked, no line has 3 marks: 0 points (D19)
    assert state["status"]["sheets"][0]["marks"] == "oo.../.o.../...../...../....."
    # Ben's told shelf 3: r3c1 r3c2 r3c3 = 2 + 2 + 3 = 7 points (D19, 3 marks score)
    assert state["status"]["sheets"][1]["score"] == 7 and state["lines"][1]["shelves"][2] == 7
    assert state["status"]["sheets"][2]["marks"] == "...../xxxxx/...../...../....."  # shelf 2 eliminated (D13)
    undone = post(client, "undo", revision=revision).json()
    cli("play", "undo", term)
    assert undone["status"] == cli_json("play", "status", term)
    assert undone["done"] == ["Undone: my failed result (shelf 2 given up)."]  # the last step above


def test_mark_best_with_rerolls_left_carries_play_s_note(tmp_path: Path):
    """{"best": true} with re-rolls left where the advice is to re-roll: the answer's done holds
    the note 'play mark --best' prints (one home, report.best_mark_note), after the stop line
    (the page shows done). The user's find: GGGBBA with 2 re-rolls left, marked best on the
    page, no note. Here the hand-worked game of tests/test_play.py: objective points, me first
    on empty default sheets, PPPPPG: marking now scores 0, keeping PPPPP at least 35/9 = 3.8889
    points (D7, D11, D19), so the best hold's value in the note is >= 3.8889, marking now's 0.0000.
    The same step in the terminal gives the same done, line for line."""
    web, term = str(tmp_path / "web.json"), str(tmp_path / "term.json")
    for path in (web, term):
        cli("play", "new", path, "--players", "Ann,me", "--first", "me")
    cli("play", "roll", term, "PPPPPG", "--objective", "points")
    stepped = cli_json("play", "mark", term, "--best", "--objective", "points")
    client = TestClient(create_app(GameServer(web, "points")))
    rolled = post(client, "roll", revision=1, dice="PPPPPG").json()
    answer = post(client, "mark", revision=rolled["revision"], best=True)
    assert answer.status_code == 200, answer.text
    done = answer.json()["done"]
    assert done[0] == "me stopped with PPPPPG (D7: 2 re-rolls left unused)."
    assert done[1].startswith("note: the advice was to re-roll (") and done[1].endswith("; marking now: 0.0000")
    assert float(done[1].split(");")[0].rsplit(": ", 1)[1]) >= 3.8889
    assert done == stepped["done"]
    assert answer.json()["advice"] == stepped
    assert Path(web).read_text() == Path(term).read_text()


def test_reroll_takes_both_forms_of_new_the_docs_give(tmp_path: Path):
    """docs/serve.md said POST /api/reroll's "new" is "only the new dice"; the API (as play reroll
    --keep) also takes all six dice now showing, kept ones among them (the user sent
    {"keep": "CCCJ", "new": "CCCCCJ"}). Every example of the docs' reroll row is posted on the
    hand-worked game (module docstring: CCBBPG, keep CCBB, re-roll CP -> PBBCCC, D7), and each
    gives the file and the answer of the CLI's 'play reroll --keep CCBB CP'; the row names both
    forms. keep absent is none kept: all six re-rolled."""
    docs = (ROOT / "docs" / "serve.md").read_text(encoding="utf-8")
    row = next(line for line in docs.splitlines() if line.startswith("| `reroll` |"))
    examples = [json.loads(text) for text in re.findall(r"`(\{[^`]*\})`", row)]
    assert [e["new"] for e in examples] == ["CP", "PBBCCC"], row  # the new dice, then all six (D7)
    term = new_game(tmp_path / "term.json")
    cli("play", "roll", term, "CCBBPG")
    stepped = cli_json("play", "reroll", term, "--keep", "CCBB", "CP")
    for number, body in enumerate(examples):
        web = new_game(tmp_path / f"web{number}.json")
        client = TestClient(create_app(GameServer(web)))
        rolled = post(client, "roll", revision=1, dice="CCBBPG").json()
        answer = post(client, "reroll", revision=rolled["revision"], **body)
        assert answer.status_code == 200, (body, answer.text)
        assert answer.json()["advice"] == stepped
        assert Path(web).read_text() == Path(term).read_text()
    web = new_game(tmp_path / "none.json")
    client = TestClient(create_app(GameServer(web)))
    rolled = post(client, "roll", revision=1, dice="CCBBPG").json()
    answer = post(client, "reroll", revision=rolled["revision"], new="PBBCCC").json()
    assert answer["done"] == ["Ann re-rolled all 6 dice (D7).", "Ann rolled PBBCCC (1 re-roll left)."]


def test_the_undo_words_name_the_action_then_the_player_for_any_name(tmp_path: Path):
    """``last_action.words`` (the page's Undo and Redo labels) say the action, then who made it
    ("roll PPBACC by me"), never "me's roll": the README names the reader's own seat ``me``. One
    game (Ann, Ben, me; Ann first, D5) through every kind of action, each label written by hand."""
    web = new_game(tmp_path / "web.json")
    client = TestClient(create_app(GameServer(web)))
    assert client.get("/api/state").json()["last_action"] is None  # nothing to take back yet
    steps = [("roll", {"dice": "CCBBPG"}, "roll PGBBCC by Ann"),  # shown sorted (D6)
             ("reroll", {"keep": "CCBB", "new": "CP"}, "re-roll (kept BBCC) by Ann"),  # D7
             ("mark", {"items": ["r1c1", "r1c2", "r2c2"]}, "marking r1c1 + r1c2 + r2c2 by Ann"),  # D8-D10
             ("told", {"items": ["r3c1", "r3c2", "r3c3"]}, "told marking r3c1 + r3c2 + r3c3 by Ben"),  # D4
             ("roll", {"dice": "PPBACC"}, "roll PPBACC by me"),
             ("stop", {}, "stop by me"),  # D7
             ("undo", {"count": 2}, "told marking r3c1 + r3c2 + r3c3 by Ben"),
             ("fail", {"shelf": 2}, "shelf 2 given up by me")]  # told without dice (D13)
    revision = client.get("/api/state").json()["revision"]
    for kind, body, words in steps:
        answer = post(client, kind, revision=revision, **body)
        assert answer.status_code == 200, answer.text
        state = answer.json()
        assert state["last_action"]["words"] == words
        assert "'s " not in words
        revision = state["revision"]


def test_stop_is_play_stop(game: str, client: TestClient):
    """GET /api/stop previews the markings (nothing written); POST /api/stop records the Stop
    (D7) as `play stop` does, and the page then sees the stopped state either way."""
    state = post(client, "roll", revision=1, dice="CCBBPG").json()
    stop = client.get("/api/stop").json()
    assert stop["revision"] == state["revision"]  # a preview: the file is unchanged
    assert stop["advice"]["markings"]  # the dice PGBBCC can mark (cats on shelf 1 etc., D8)
    after = post(client, "stop", revision=state["revision"]).json()
    assert after["revision"] == state["revision"] + 1  # one event: the stop
    assert after["status"]["turn"]["stopped"] is True and after["status"]["turn"]["rerolls_left"] == 0
    assert after["done"][0].startswith("Ann stops with PGBBCC (D7)")
    shown = cli_json("play", "stop", game)  # stopped already: shows the markings, writes nothing
    assert stop["advice"]["markings"] == shown["markings"] == after["advice"]["markings"]
    assert client.get("/api/state").json()["advice"] == cli_json("play", "advise", game)
    one_line_error(post(client, "reroll", revision=after["revision"], keep="CC", new="CCCC"), 400,
                   "stopped", "mark items: tap the items on the sheet", "take the stop back: tap Undo")


def test_the_page_s_refusals_say_what_to_tap(game: str, client: TestClient):
    """A refusal the page shows names its buttons, not the terminal's words: a re-roll keeping
    every die (stopping, D7) says to tap Stop (it said "type 'stop' or mark items", the prompt's
    words), a marking before the roll to tap the faces or Told (not the prompt's 'told'); the
    file is unchanged."""
    before = Path(game).read_bytes()
    message = one_line_error(post(client, "mark", revision=1, items=["r1c1"]), 400, "Ann has not rolled",
                             "tap the faces rolled first, or tap Told")
    assert "'told'" not in message and "play " not in message
    state = post(client, "roll", revision=1, dice="CCBBPG").json()
    rolled = Path(game).read_bytes()
    assert rolled != before
    message = one_line_error(post(client, "reroll", revision=state["revision"], keep="CCBBPG", new="CCBBPG"), 400,
                             "keeping every die is stopping (D7): tap Stop")
    assert "type" not in message and "play stop" not in message
    assert Path(game).read_bytes() == rolled


@pytest.mark.parametrize("body, given", [({"shelf": True}, "true"), ({"shelf": [1]}, "[1]"), ({"shelf": None}, "null"),
                                         ({}, "missing")])
def test_a_shelf_of_another_json_type_is_400_naming_the_form_and_what_to_tap(game: str, client: TestClient,
                                                                              body: dict, given: str):
    """POST /api/fail with "shelf" true (a JSON type error: the page sends the number as text)
    said "field 'shelf' must be text of at most 200 characters": it names what was given, the
    forms taken (text or a whole number, with the example body) and, as the page's refusals do,
    what to tap; HTTP 400, one line, the file unchanged. Absent it says so the same way."""
    before = Path(game).read_bytes()
    message = one_line_error(post(client, "fail", revision=1, **body), 400)
    assert message == (f'field "shelf" is {given}{", not a shelf" if given != "missing" else ""}; expected the '
                       'number of the shelf given up (D13), as text or a whole number, e.g. {"revision": 3, "shelf": '
                       '"2"}; on the page: give up a shelf by tapping shelf N')
    assert Path(game).read_bytes() == before


def test_the_page_s_new_refusals_say_what_to_tap(game: str, client: TestClient):
    """The refusals whose step commands now name the next command say it in the page's words
    (its buttons, never 'play ... GAME' or the prompt's 'type'): a failed result with no shelf
    names the shelves with an available item (D13: all five on a new sheet) and how to tap; a
    second roll (D6) a re-roll or the stop; a marking told while dice are recorded the checked
    marking with its items; an undo of no action the Undo button. Nothing is written."""
    before = Path(game).read_bytes()
    one_line_error(post(client, "fail", revision=1, shelf=""), 400, "no shelf given",
                   "here one of shelves 1, 2, 3, 4, 5; give one up (tapping shelf N)")
    one_line_error(post(client, "undo", revision=1, count=0), 400,
                   "undo needs a count of 1 or more actions, not 0; tap Undo to take back the last action")
    assert Path(game).read_bytes() == before
    state = post(client, "roll", revision=1, dice="CCBBPG").json()
    rolled = Path(game).read_bytes()
    messages = [
        one_line_error(post(client, "roll", revision=state["revision"], dice="CCCCCC"), 400,
                       "Ann has rolled already (PGBBCC, 2 re-rolls left", "a re-roll (tap the dice to hold, then tap "
                       "Re-roll); or tap Stop (the dice are final), then tap the items to mark"),
        one_line_error(post(client, "told", revision=state["revision"], items=["r1c1", "r2c2"]), 400,
                       "the dice PGBBCC are recorded: mark with them (checked): tap r1c1 r2c2 on the sheet, then "
                       "tap Mark"),
        one_line_error(post(client, "undo", revision=state["revision"], count=-1), 400, "tap Undo"),
        # D14: PGBBCC marks r1c1 (a cat), so no shelf may be given up; the page's words, not 'advise'
        one_line_error(post(client, "fail", revision=state["revision"], shelf="1"), 400,
                       "PGBBCC can mark an item, so it must (D14): tap one of its items on the sheet, then tap Mark"),
    ]
    assert not any("play " in m or "type " in m or "--" in m or "'advise'" in m for m in messages), messages
    assert Path(game).read_bytes() == rolled


def test_a_finished_game_s_refusal_says_tap_undo(tmp_path: Path):
    """Once the game is over (D17, D18: one player, both shelves of tiny-2x3 closed by two told
    turns) every write but Undo is refused in the page's words, its Undo button, not the command
    line's 'play undo GAME'; Undo still takes the last action back."""
    from conftest import EXAMPLES

    game = str(tmp_path / "over.json")
    cli("play", "new", game, "--players", "Ann", "--board", str(EXAMPLES / "boards" / "tiny-2x3.toml"))
    cli("play", "mark", game, "--unchecked", "r1c1", "r1c2", "r1c3")
    cli("play", "mark", game, "--unchecked", "r2c1", "r2c2", "r2c3")
    client = TestClient(create_app(GameServer(game)))
    revision = client.get("/api/state").json()["revision"]
    before = Path(game).read_bytes()
    for kind, body in (("roll", {"dice": "CCBBPG"}), ("mark", {"items": ["r1c1"]}), ("told", {"items": ["r1c1"]}),
                       ("fail", {"shelf": 1}), ("stop", {})):
        message = one_line_error(post(client, kind, revision=revision, **body), 400, "the game is over (D18)",
                                 "tap Undo")
        assert "play undo" not in message and "prompt" not in message
    assert Path(game).read_bytes() == before
    assert post(client, "undo", revision=revision).status_code == 200


def test_a_stop_made_in_the_terminal_is_seen_by_the_page(game: str, client: TestClient):
    """`play stop` in the terminal binds the page too (the Stop is in the game file, D7)."""
    state = post(client, "roll", revision=1, dice="CCBBPG").json()
    cli("play", "stop", game)
    now = client.get("/api/state").json()
    assert now["revision"] == state["revision"] + 1 and now["status"]["turn"]["stopped"] is True
    assert now["advice"]["markings"] and not now["advice"].get("holds")
    one_line_error(post(client, "reroll", revision=now["revision"], keep="CC", new="CCCC"), 400, "stopped")


def test_the_review_is_reviews_count(game: str, client: TestClient, tmp_path: Path):
    """The running difference to the best: review's total loss under the server's objective."""
    client = TestClient(create_app(GameServer(game, "points")))
    revision = post(client, "roll", revision=1, dice="CCBBPG").json()["revision"]
    revision = post(client, "mark", revision=revision, items=["r1c1"]).json()["revision"]  # one cat, r1c1
    answer = client.get("/api/review").json()
    expected = cli_json("review", game, "--player", "Ann", "--objective", "points")
    ann = answer["players"][0]
    assert ann["total_loss"] == expected["summary"]["total_loss"] and ann["decisions"] == 2
    assert ann["total_loss"] != "0/1"  # marking r1c1 alone is no best choice: a loss > 0
    # Ben's turn told, then me rolls: each player's entry is still review's (kept per player)
    revision = post(client, "told", revision=revision, items=["r3c1"]).json()["revision"]
    post(client, "roll", revision=revision, dice="AAGGGP")
    answer = client.get("/api/review").json()
    for seat, name in enumerate(["Ann", "Ben", "me"]):
        expected = cli_json("review", game, "--player", name, "--objective", "points")
        got = answer["players"][seat]
        assert (got["total_loss"], got["decisions"], got["unchecked"], got["turns"]) == (
            expected["summary"]["total_loss"], expected["summary"]["decisions"], expected["unchecked"], expected["turns"])
    assert answer["players"][1]["unchecked"] == 1 and answer["players"][2]["turns"] == 1


def test_the_review_goes_on_from_the_last_one_and_stays_reviews_count(game: str):
    """The server reviews each player from where that player's last review stood (only the
    actions since, docs/serve.md "Speed"), asked after every action: each entry stays what
    ``review --player P`` counts from the game's start on the file, through the opponents' turns,
    a player's second turn and an undo (the game back at an earlier action)."""
    server = GameServer(game, "points")
    client = TestClient(create_app(server))

    def check() -> None:
        answer = client.get("/api/review").json()
        for seat, name in enumerate(["Ann", "Ben", "me"]):
            expected = cli_json("review", game, "--player", name, "--objective", "points")
            got = answer["players"][seat]
            assert (got["total_loss"], got["decisions"], got["unchecked"], got["turns"]) == (
                expected["summary"]["total_loss"], expected["summary"]["decisions"], expected["unchecked"],
                expected["turns"]), (name, got)

    revision = 1
    for kind, body in [("roll", {"dice": "CCBBPG"}), ("mark", {"items": ["r1c1"]}), ("told", {"items": ["r3c1"]}),
                       ("roll", {"dice": "AAGGGP"}), ("mark", {"best": True}), ("roll", {"dice": "PPBBJC"}),
                       ("reroll", {"keep": "PP", "new": "BBJC"}), ("mark", {"best": True}), ("undo", {}),
                       ("undo", {"count": 2}), ("roll", {"dice": "GGGJCC"}), ("mark", {"best": True})]:
        answer = post(client, kind, revision=revision, **body)
        assert answer.status_code == 200, answer.json()
        revision = answer.json()["revision"]
        check()
    # Ann: turn 1 a marking with re-rolls left (the stop, D7, and the marking), turn 2 again after the undo
    assert server.review()["players"][0]["decisions"] == 4


def test_a_stale_write_is_refused_and_changes_nothing(game: str):
    """Two pages on one game: both loaded revision 1; the first roll wins, the second is refused
    with 409 and the file holds one roll, not two (nothing applied twice)."""
    first, second = TestClient(create_app(GameServer(game))), TestClient(create_app(GameServer(game)))
    assert first.get("/api/state").json()["revision"] == second.get("/api/state").json()["revision"] == 1
    assert post(first, "roll", revision=1, dice="CCBBPG").status_code == 200
    before = Path(game).read_bytes()
    refused = post(second, "roll", revision=1, dice="AAGGGP")
    one_line_error(refused, 409, "the game changed", "nothing was applied")
    assert refused.json()["revision"] == 2
    assert Path(game).read_bytes() == before
    events = json.loads(before)["events"]
    assert [e["event"] for e in events] == ["start", "roll"]


def test_same_event_count_after_an_undo_is_told_apart_by_the_digest(game: str, client: TestClient):
    """A page that saw roll PGBBCC (revision 2) must not act after another page undid it and
    rolled AAGGGP (revision 2 again): the digest differs, 409."""
    seen = post(client, "roll", revision=1, dice="CCBBPG").json()
    other = TestClient(create_app(GameServer(game)))
    post(other, "undo", revision=2)
    again = post(other, "roll", revision=1, dice="AAGGGP").json()
    assert again["revision"] == seen["revision"] and again["digest"] != seen["digest"]
    one_line_error(post(client, "mark", revision=2, digest=seen["digest"], items=["r1c1"]), 409)
    events = json.loads(Path(game).read_text())["events"]
    assert [e["event"] for e in events] == ["start", "roll"]  # the other page's roll stands, no mark added


def test_two_clients_at_once_apply_one_action(game: str):
    """Eight writes of the same revision at the same moment: exactly one is applied (the file's
    lock and the revision), seven are refused with 409."""
    clients = [TestClient(create_app(GameServer(game))) for _ in range(8)]
    start = threading.Barrier(len(clients))

    def roll(c: TestClient) -> int:
        start.wait()
        return post(c, "roll", revision=1, dice="CCBBPG").status_code

    with ThreadPoolExecutor(len(clients)) as pool:
        codes = sorted(pool.map(roll, clients))
    assert codes == [200] + [409] * 7
    assert [e["event"] for e in json.loads(Path(game).read_text())["events"]] == ["start", "roll"]


@pytest.mark.parametrize("kind, body, cli_args", [
    ("roll", {"dice": "CCBBP"}, ["roll", "CCBBP"]),
    ("roll", {"dice": "XXBBPG"}, ["roll", "XXBBPG"]),
    ("mark", {"items": ["r9c9"]}, ["mark", "--unchecked", "r9c9"]),
    ("told", {"items": ["r1c1", "r1c1"]}, ["mark", "--unchecked", "r1c1", "r1c1"]),
    ("reroll", {"keep": "CC", "new": "PG"}, ["reroll", "--keep", "CC", "PG"]),
    ("fail", {"shelf": "9"}, ["fail", "--shelf", "9"]),
    ("undo", {"count": 5}, ["undo", "5"]),
])
def test_bad_input_is_400_with_the_clis_message(game: str, client: TestClient, kind: str, body: dict,
                                                 cli_args: list[str]):
    before = Path(game).read_bytes()
    message = one_line_error(post(client, kind, revision=1, **body), 400)
    result = CliRunner().invoke(main, ["play", cli_args[0], game, *cli_args[1:]])
    assert result.exit_code == 2
    if kind == "reroll":  # the same refusal, how to enter the roll in each one's words (reading.Forms.roll)
        head = "Ann has not rolled yet; expected the initial roll (D6): "
        assert message == head + "tap the faces rolled"
        assert result.stderr.strip() == f"Error: {head}play roll {game} DICE, e.g. play roll {game} CCBJPP"
    elif kind != "mark":  # the page's mark has no dice yet; the CLI's --unchecked marking is another check
        assert result.stderr.strip() == f"Error: {message}"
    assert Path(game).read_bytes() == before


@pytest.mark.parametrize("body, fragment", [
    ({"dice": "CCBBPG"}, "revision"),
    ({"revision": "1", "dice": "CCBBPG"}, "revision"),
    ({"revision": True, "dice": "CCBBPG"}, "revision"),
    ({"revision": 1}, "missing field 'dice'"),
    ({"revision": 1, "dice": ["C"]}, "must be text"),
    ({"revision": 1, "dice": "C" * 5000}, "at most 200"),
    ({"revision": 1, "dice": "CCBBPG", "player": "Ben"}, "Ann is to play, not Ben"),
    ({"revision": 1, "dice": "CCBBPG", "digest": 5}, "digest"),
])
def test_malformed_writes_are_400(game: str, client: TestClient, body: dict, fragment: str):
    before = Path(game).read_bytes()
    one_line_error(client.post("/api/roll", json=body), 400, fragment)
    assert Path(game).read_bytes() == before


# The keys of each write, as docs/serve.md's table of writes lists them (every write: revision,
# digest, player); an unknown key is refused whole, never dropped with the check it names.
COMMON = '"revision", "digest", "player"'


@pytest.mark.parametrize("kind, body, unknown, expected, close", [
    ("roll", {"dice": "CCBJPP", "plyer": "Ben"}, "plyer", COMMON + ', "dice"', "player"),  # the turn check
    ("roll", {"dice": "CCBJPP", "digst": "0" * 64}, "digst", COMMON + ', "dice"', "digest"),  # the digest check
    ("reroll", {"keep": "CC", "new": "PGBB", "kept": "CC"}, "kept", COMMON + ', "keep", "new"', "keep"),
    ("stop", {"items": ["r1c1"]}, "items", COMMON, None),
    ("mark", {"items": ["r1c1"], "bset": True}, "bset", COMMON + ', "items", "best"', "best"),
    ("told", {"items": ["r1c1"], "best": True}, "best", COMMON + ', "items"', None),
    ("fail", {"shelf": "2", "items": ["r1c1"]}, "items", COMMON + ', "shelf"', None),
    ("undo", {"count": 1, "cuont": 2}, "cuont", COMMON + ', "count"', "count"),
])
def test_an_unknown_body_key_is_refused_naming_the_keys_expected(game: str, client: TestClient, kind: str,
                                                                 body: dict, unknown: str, expected: str,
                                                                 close: str | None):
    """The tester's find: {"revision": 1, "dice": "CCBJPP", "plyer": "Ben"} recorded Ann's roll
    (with "player" it is refused, Ann is to play): a typo turned the turn check off, and
    "digst" the digest check. Every write's body now holds only its keys, as the tile page's."""
    before = Path(game).read_bytes()
    message = one_line_error(post(client, kind, revision=1, **body), 400, f"unknown key '{unknown}'",
                             f"POST /api/{kind}", f"expected only {expected} (docs/serve.md)")
    assert ('did you mean' in message) == (close is not None)
    if close is not None:
        assert f'did you mean "{close}"?' in message
    assert Path(game).read_bytes() == before
    one_line_error(post(client, "roll", revision=1, dice="CCBJPP", player="Ben"), 400, "Ann is to play, not Ben")


def test_best_with_items_is_refused_as_play_mark_best_with_items(game: str, client: TestClient):
    """{"best": true, "items": ["r5c5"]} marked the best marking and dropped the items; play mark
    GAME r5c5 --best refuses it ("--best takes no items"). Both refused now, the file unchanged;
    "best" of another JSON type is refused too (it was ignored: the items were then read)."""
    rolled = post(client, "roll", revision=1, dice="CCBBPG").json()
    before = Path(game).read_bytes()
    one_line_error(post(client, "mark", revision=rolled["revision"], best=True, items=["r5c5"]), 400,
                   '"best": true takes no "items"', "play mark --best")
    one_line_error(post(client, "mark", revision=rolled["revision"], best=True, items=[]), 400, "takes no")
    one_line_error(post(client, "mark", revision=rolled["revision"], best="yes"), 400, 'field "best" must be')
    assert Path(game).read_bytes() == before
    result = CliRunner().invoke(main, ["play", "mark", game, "r5c5", "--best"])
    assert result.exit_code == 2 and "--best takes no items" in result.stderr
    assert post(client, "mark", revision=rolled["revision"], best=False, items=["r1c1"]).status_code == 200


def test_the_body_is_bounded_and_must_be_a_json_object(game: str, client: TestClient):
    before = Path(game).read_bytes()
    big = json.dumps({"revision": 1, "dice": "CCBBPG", "pad": "x" * MAX_BODY_BYTES})
    one_line_error(client.post("/api/roll", content=big, headers={"content-type": "application/json"}), 413)

    def chunks():  # no Content-Length: counted while read
        for _ in range(40):
            yield b" " * 1024

    one_line_error(client.post("/api/roll", content=chunks(), headers={"content-type": "application/json"}), 413)
    one_line_error(client.post("/api/roll", content=b'{"revision": 1, "dice": "CCBBPG"}',
                               headers={"content-type": "text/plain"}), 415)
    one_line_error(client.post("/api/roll", content=b"{not json", headers={"content-type": "application/json"}),
                   400, "not JSON")
    one_line_error(client.post("/api/roll", content=b"[1, 2]", headers={"content-type": "application/json"}),
                   400, "JSON object")
    one_line_error(client.post("/api/roll", content=b"[" * 8000 + b"]" * 8000,
                               headers={"content-type": "application/json"}), 400)
    assert Path(game).read_bytes() == before


def test_only_the_game_and_the_pages_files_are_served(game: str, client: TestClient):
    assert client.get("/").headers["content-type"].startswith("text/html")
    assert "<script type=\"module\" src=\"/static/app.js\">" in client.get("/").text
    assert client.get("/static/app.js").headers["content-type"].startswith("text/javascript")
    assert client.get("/static/app.css").status_code == 200
    for path in ["/static/../api.py", "/static/index.html", "/game.json", "/static/", "/etc/passwd",
                 "/api/state/../../game.json", "/api/nothing"]:
        one_line_error(client.get(path), 404, "no such page")
    one_line_error(client.post("/api/state", json={}), 405)
    one_line_error(client.get("/api/roll"), 405)
    # a path in the body is no path: the game file is the server's (the key is refused, nothing written)
    other = Path(game).parent / "other.json"
    one_line_error(post(client, "roll", revision=1, dice="CCBBPG", path=str(other)), 400, "unknown key 'path'")
    assert post(client, "roll", revision=1, dice="CCBBPG").status_code == 200
    assert sorted(p.name for p in Path(game).parent.iterdir()) == ["game.json"]
    headers = client.get("/").headers
    assert headers["cache-control"] == "no-store" and headers["referrer-policy"] == "no-referrer"
    assert "script-src 'self'" in headers["content-security-policy"]


def test_an_unexpected_error_is_one_line_of_json(game: str, monkeypatch: pytest.MonkeyPatch):
    server = GameServer(game)

    def broken() -> dict:
        raise RuntimeError("boom\nwith a second line")

    monkeypatch.setattr(server, "state", broken)
    client = TestClient(create_app(server), raise_server_exceptions=False)
    message = one_line_error(client.get("/api/state"), 500, "internal error (RuntimeError)")
    assert "boom" not in message


def test_a_bad_game_file_is_a_400_not_a_traceback(tmp_path: Path):
    path = tmp_path / "game.json"
    path.write_text('{"format": "shelfie-solve game 1", "events": [')
    client = TestClient(create_app(GameServer(str(path))))
    one_line_error(client.get("/api/state"), 400, "not valid JSON")


def test_the_token_is_required_on_every_request(game: str):
    token = new_token()
    client = TestClient(create_app(GameServer(game), token=token))
    for path in ["/", "/static/app.js", "/api/state", "/api/review", "/nothing"]:
        one_line_error(client.get(path), 401, "token")
        one_line_error(client.get(path, params={"token": token[:-1] + ("A" if token[-1] != "A" else "B")}), 403,
                       "wrong token")
    one_line_error(post(client, "roll", revision=1, dice="CCBBPG"), 401)
    one_line_error(client.post("/api/roll", json={"revision": 1, "dice": "CCBBPG"},
                               headers={"x-shelfie-token": "x" * 10_000}), 403)
    assert json.loads(Path(game).read_text())["events"][-1]["event"] == "start"  # nothing written
    assert client.get("/api/state", headers={"x-shelfie-token": token}).status_code == 200
    phone = TestClient(create_app(GameServer(game), token=token))
    page = phone.get("/", params={"token": token})  # the page opened from the printed URL
    assert page.status_code == 200 and "HttpOnly" in page.headers["set-cookie"]
    assert phone.get("/static/app.js").status_code == 200  # its files then come with the cookie
    fresh = TestClient(create_app(GameServer(game), token=token))
    fresh.cookies.set("shelfie_token", "guess")
    one_line_error(fresh.get("/api/state"), 403)


def test_loopback_answers_only_its_own_host_names(game: str):
    client = TestClient(create_app(GameServer(game), allowed_hosts=frozenset({"127.0.0.1", "localhost"})),
                        base_url="http://127.0.0.1:8000")
    assert client.get("/api/state").status_code == 200
    one_line_error(client.get("/api/state", headers={"host": "attacker.example:8000"}), 403, "answers only")


def test_token_helpers():
    assert is_loopback("127.0.0.1") and is_loopback("127.8.9.10") and is_loopback("::1") and is_loopback("[::1]")
    assert is_loopback("localhost") and not is_loopback("0.0.0.0") and not is_loopback("192.168.1.5")
    assert not is_loopback("example.com") and not is_loopback("::")
    a, b = new_token(), new_token()
    assert a != b and len(a) >= 32
    assert token_matches(a, a) and not token_matches(b, a) and not token_matches(None, a)
    assert not token_matches(a + "x" * 300, a) and not token_matches("", a)


from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_FIELD = st.one_of(st.none(), st.booleans(), st.integers(-3, 40), st.text(max_size=12),
                   st.sampled_from(["CCBBPG", "CC", "PG", "-", "best", "r1c1", "2"]),
                   st.lists(st.sampled_from(["r1c1", "r3c2", "r9c9", "x", ""]), max_size=4))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kind=st.sampled_from(["roll", "reroll", "mark", "told", "fail", "undo"]),
       body=st.dictionaries(st.sampled_from(["revision", "dice", "keep", "new", "items", "best", "shelf", "count",
                                             "player", "digest"]), _FIELD, max_size=5),
       revision=st.sampled_from([2, 2, 2, 1, 3, None]))
def test_any_write_is_applied_whole_or_refused_in_one_line(tmp_path_factory: pytest.TempPathFactory, kind: str,
                                                           body: dict, revision: int | None):
    """Whatever a page sends, the answer is 200 (and the file a game the rules accept) or a
    one-line refusal (400, 409) leaving the file byte for byte as it was; never 500."""
    game = new_game(tmp_path_factory.mktemp("any") / "game.json")
    client = TestClient(create_app(GameServer(game)))
    post(client, "roll", revision=1, dice="CCBBPG")
    before = Path(game).read_bytes()
    if revision is not None:  # mostly the revision the file is at (after the roll: 2 events)
        body = {**body, "revision": revision}
    answer = client.post(f"/api/{kind}", json=body)
    assert answer.status_code in (200, 400, 409), answer.text
    if answer.status_code == 200:
        assert GameServer(game).check().events  # replays under the rules
    else:
        one_line_error(answer, answer.status_code)
        assert Path(game).read_bytes() == before


# --- a new game from the page (POST /api/new): the file of `play new`, never overwritten ---------

def missing_client(tmp_path: Path, seed: int | None = None) -> tuple[str, TestClient]:
    from shelfie_solver.web.newgame import NewGame

    path = str(tmp_path / "new.json")
    return path, TestClient(create_app(GameServer(path), new_game=NewGame(path, seed=seed)))


def test_a_new_game_is_the_file_play_new_makes(tmp_path: Path):
    path, client = missing_client(tmp_path)
    one_line_error(client.get("/api/state"), 404, "no game in new.json yet", "POST /api/new")
    info = client.get("/api/new").json()
    assert info["exists"] is False and info["file"] == "new.json" and info["max_players"] == 4  # D1
    one_line_error(post(client, "new", players=["Ann", "Ben"], first="Ben", path=str(tmp_path / "other.json")), 400,
                   "unknown key 'path' in the body of POST /api/new", 'expected only "players", "first"')
    one_line_error(post(client, "new", players=["Ann", "Ben"], frist="Ben"), 400, 'did you mean "first"?')
    assert not Path(path).exists()
    answer = post(client, "new", players=["Ann", "Ben"], first="Ben")
    assert answer.status_code == 200, answer.text
    expected = tmp_path / "by-play-new.json"
    cli("play", "new", str(expected), "--players", "Ann,Ben", "--first", "Ben")
    assert Path(path).read_text() == expected.read_text()  # the same game as `play new` (D5: Ben first)
    assert not (tmp_path / "other.json").exists()  # a path in the body is no path
    assert answer.json()["status"] == cli_json("play", "status", path)
    assert answer.json()["revision"] == 1 and "Ben plays first (chosen, D5)" in answer.json()["done"][0]
    assert client.get("/api/new").json()["exists"] is True
    assert client.get("/api/state").json()["status"]["turn"]["player"] == "Ben"


def test_who_plays_first_is_drawn_from_the_seed_as_play_new_seed(tmp_path: Path):
    for seed in (0, 1, 7):
        folder = tmp_path / str(seed)
        folder.mkdir()
        path, client = missing_client(folder, seed)
        assert post(client, "new", players="Ann,Ben,me").status_code == 200
        cli("play", "new", str(folder / "cli.json"), "--players", "Ann,Ben,me", "--seed", str(seed))
        assert Path(path).read_text() == (folder / "cli.json").read_text()


def test_a_new_game_never_overwrites(tmp_path: Path, game: str):
    before = Path(game).read_bytes()
    client = TestClient(create_app(GameServer(game)))
    message = one_line_error(post(client, "new", players=["Zoe", "Yan"]), 409, "exists already")
    assert "overwritten" in message
    assert Path(game).read_bytes() == before
    path, fresh = missing_client(tmp_path)
    assert post(fresh, "new", players=["Ann"]).status_code == 200  # 1 player: solitaire (D1)
    made = Path(path).read_bytes()
    one_line_error(post(fresh, "new", players=["Ann", "Ben"]), 409, "exists already")
    assert Path(path).read_bytes() == made


@pytest.mark.parametrize("body, fragment", [
    ({"players": ["Ann", "ann"]}, "must differ"),
    ({"players": []}, "2 to 4 players (D1), or 1 for solitaire (this tool's extension), got 0"),
    ({"players": ["A", "B", "C", "D", "E"]}, "2 to 4 players (D1), or 1 for solitaire (this tool's extension), got 5"),
    ({"players": "Ann,Ben,Cy,Di,Ed"}, "got 5"),
    ({"players": ["Ann Lee", "Ben"]}, "without spaces"),
    ({"players": ["Ann", ""]}, "non-empty"),
    ({"players": 3}, '"players" must be'),
    ({"players": ["Ann", 7]}, '"players" must be'),
    ({}, '"players" must be'),
    ({"players": ["Ann", "Ben"], "first": "Zed"}, "no player 'Zed'"),
    ({"players": ["Ann", "Ben"], "first": 2}, '"first" must be'),
])
def test_bad_names_are_400_in_one_line_and_write_nothing(tmp_path: Path, body: dict, fragment: str):
    path, client = missing_client(tmp_path)
    one_line_error(client.post("/api/new", json=body), 400, fragment)
    assert not Path(path).exists()
    one_line_error(client.post("/api/new", content=b"players=Ann", headers={"Content-Type": "text/plain"}), 415)


# --- every figure as the CLI prints it (the state's "shown"): the page rounds no float ---------

def table_rows(text: str, header: str) -> list[dict[str, str]]:
    """The rows of the text table under the header line starting with ``header`` (``rank``),
    each a dict by column name (columns are 2+ spaces apart; a cell such as ``(re-roll all)`` has one)."""
    import re

    lines = text.splitlines()
    top = next(i for i, line in enumerate(lines) if line.startswith(header))
    names = re.split(r"\s{2,}", lines[top].strip())
    rows = []
    for line in lines[top + 2:]:
        if not line.strip():
            break
        rows.append(dict(zip(names, re.split(r"\s{2,}", line.strip()))))
    return rows


def test_every_figure_shown_is_the_cli_table_s_text(tmp_path: Path):
    """The state's ``shown`` holds each figure exactly as the terminal's table prints it, cell for
    cell, for the same position on a twin file: the holds' win chance and points (``play roll``),
    the markings' win chance (``play stop``), and with ``--objective points`` the holds' value
    (four decimals) and points. The page shows these texts (docs/serve.md)."""
    for objective, column in (("win", "win chance"), ("points", "value")):
        web, term = new_game(tmp_path / f"web-{objective}.json", "Ann,Ben"), new_game(tmp_path / f"term-{objective}.json", "Ann,Ben")
        client = TestClient(create_app(GameServer(web, objective)))
        state = post(client, "roll", revision=1, dice="CCBBPG").json()
        rows = table_rows(cli("play", "roll", term, "CCBBPG", "--objective", objective), "rank")
        assert len(rows) == 5  # the table's --top 5
        for row, shown in zip(rows, state["shown"]["holds"]):
            assert (shown["value"], shown["points"]) == (row[column], row["points"]), (row, shown)
        if objective == "win":
            state = post(client, "stop", revision=state["revision"]).json()
            rows = table_rows(cli("play", "stop", term, "--objective", objective), "rank")
            assert [s["value"] for s in state["shown"]["markings"][:len(rows)]] == [r["win chance"] for r in rows]


def test_shown_figures_are_rounded_from_the_exact_value():
    """``shown_figures`` on an advice of hand-made values, each worked by hand (half away from
    zero from the exact fraction, as every table): 841/2000 = 42.05% -> 42.1% (the float rounded
    in a browser, (0.4205 * 100).toFixed(1), reads 42.0); points 201/200 = 1.005 -> 1.01 (the
    float: 1.00); 1/3000 -> <0.1% and 2999/3000 -> >99.9% (a chance strictly between never reads
    as a certainty), exactly 1 -> 100%; short of the best 1/2 as the figures shown read: 50.0% and
    42.1% -> 7.9 percentage points (the unrounded gap, 7.95, would read 8.0 beside them), 0 for an
    exact tie, <0.1 for a loss between figures that print alike. Without a chance (``points``): the value at
    four decimals (2/3 -> 0.6667), short at two (1/3 -> 0.33; 1/10^6 -> <0.01); a failed result's
    potential change at two (-4/3 -> -1.33)."""
    from shelfie_solver.web.api import shown_figures

    def hold(chance: str, points: str = "0/1") -> dict[str, str]:
        return {"win_chance": chance, "value": chance, "points": points}

    advice = {"holds": [hold("1/2", "201/200"), hold("1/2"), hold("841/2000"), hold("1/3000"),
                        hold("4999/10000")],
              "markings": [{"win_chance": "1/1", "value": "1/1"}, {"win_chance": "2999/3000", "value": "2999/3000"}]}
    shown = shown_figures(advice, True)
    assert shown["holds"] == [
        {"value": "50.0%", "short": "0", "points": "1.01"}, {"value": "50.0%", "short": "0", "points": "0.00"},
        {"value": "42.1%", "short": "7.9", "points": "0.00"}, {"value": "<0.1%", "short": "50.0", "points": "0.00"},
        {"value": "50.0%", "short": "<0.1", "points": "0.00"}]
    assert shown["markings"] == [{"value": "100%", "short": "0"}, {"value": ">99.9%", "short": "<0.1"}]
    points = {"holds": [{"value": "1/1", "points": "1/1"}, {"value": "2/3", "points": "1/1"},
                        {"value": "999999/1000000", "points": "1/1"}],
              "shelves": [{"potential_change": "-4/3"}]}
    shown = shown_figures(points, False)
    assert [(h["value"], h["short"]) for h in shown["holds"]] == [("1.0000", "0"), ("0.6667", "0.33"),
                                                                 ("1.0000", "<0.01")]
    assert shown["shelves"] == [{"value": None, "potential_change": "-1.33"}]


def test_the_review_s_total_loss_is_shown_as_review_prints_it(game: str):
    """``GET /api/review``'s ``total_loss_shown`` is the total loss of ``review``'s summary line,
    the text the page shows: ``points`` at four decimals (``total 0.5000``), ``win`` in
    percentage points at one decimal (``total loss 5.7 percentage points``)."""
    import re

    for objective, pattern in (("points", r"; total (\S+)\n"), ("win", r"total loss (\S+) percentage points")):
        path = new_game(Path(game).with_name(f"loss-{objective}.json"))
        client = TestClient(create_app(GameServer(path, objective)))
        revision = post(client, "roll", revision=1, dice="CCBBPG").json()["revision"]
        post(client, "mark", revision=revision, items=["r1c1"])  # one cat alone: a loss > 0
        ann = client.get("/api/review").json()["players"][0]
        printed = re.search(pattern, cli("review", path, "--player", "Ann", "--objective", objective))
        assert printed and ann["total_loss_shown"] == printed.group(1) and ann["total_loss"] != "0/1"


def test_the_page_rounds_no_float_it_shows():
    """The page's script shows the server's texts (``shown``, ``total_loss_shown``, the rollout's
    ``shown``) and rounds no number itself: no toFixed, toPrecision or Math.round in app.js."""
    from importlib import resources

    script = (resources.files("shelfie_solver.web") / "static" / "app.js").read_text()
    for rounding in ("toFixed(", "toPrecision(", "Math.round(", "toLocaleString("):
        assert rounding not in script, rounding
    for text in ("shown.value", "shown.points", "shown.short", "shown.potential_change", "total_loss_shown"):
        assert text in script, text


def test_the_page_sends_only_the_keys_the_server_takes(tmp_path: Path):
    """Every body the page's script posts holds only keys docs/serve.md lists for that request
    (an unknown key is refused now): the writes' own keys at each ``write("kind", {...})``, the
    common ones ``write`` adds, the New game's; and each Redo body (``last_action``'s ``redo``,
    sent as is after an Undo) is taken: undone, then posted, it makes the same file again."""
    from importlib import resources

    script = (resources.files("shelfie_solver.web") / "static" / "app.js").read_text()
    documented = {"roll": {"dice"}, "reroll": {"keep", "new"}, "stop": set(), "mark": {"items", "best"},
                  "told": {"items"}, "fail": {"shelf"}, "undo": {"count"}}
    calls = re.findall(r'write\("(\w+)", \{([^}]*)\}', script)
    assert {kind for kind, _ in calls} == set(documented)  # every write is posted somewhere, found here
    for kind, fields in calls:
        assert set(re.findall(r"(\w+):", fields)) <= documented[kind], (kind, fields)
    assert "{ revision: S.revision, digest: S.digest, ...body }" in script  # what write adds to each
    assert re.findall(r'api\("POST", "/api/new", \{ (\w+), (\w+):', script) == [("players", "first")]

    game = new_game(tmp_path / "game.json")
    client = TestClient(create_app(GameServer(game)))
    steps = [("roll", {"dice": "CCBBPG"}), ("reroll", {"keep": "CCBB", "new": "CP"}), ("stop", {}),
             ("mark", {"items": ["r1c1", "r1c2", "r2c2"]}), ("told", {"items": ["r3c1", "r3c2", "r3c3"]}),
             ("fail", {"shelf": "2"})]
    for kind, body in steps:
        state = post(client, kind, revision=client.get("/api/state").json()["revision"], **body).json()
        made = Path(game).read_bytes()
        last = state["last_action"]
        assert last["kind"] == kind and set(last["redo"]) <= documented[kind]
        undone = post(client, "undo", revision=state["revision"], count=1).json()
        again = post(client, last["kind"], revision=undone["revision"], **last["redo"])
        assert again.status_code == 200, again.text
        assert Path(game).read_bytes() == made
