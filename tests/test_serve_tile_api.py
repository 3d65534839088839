"""The tile page's API of ``shelfie-solve serve`` (``/api/tile/...``, docs/serve.md "The tile
page") through Starlette's TestClient: the advice is exactly ``tile advise --format json`` of the
same position, a move is applied as the rules say by hand (T10-T16), bad positions, moves and
bodies are refused in one line of JSON.

The position is examples/tile/position.toml (docs/tile.md), read here with ``tomllib``, not the
project's reader, and sent as the JSON object the page keeps in its URL.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

pytest.importorskip("starlette")
pytest.importorskip("httpx2")

from starlette.testclient import TestClient  # noqa: E402

from shelfie_solver.cli import main  # noqa: E402
from shelfie_solver.web.api import GameServer  # noqa: E402
from shelfie_solver.web.app import MAX_BODY_BYTES, create_app  # noqa: E402

from serve_support import one_line_error  # noqa: E402

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "tile" / "position.toml"


@pytest.fixture
def client(tmp_path: Path) -> TestClient:
    return TestClient(create_app(GameServer(str(tmp_path / "game.json"))))  # no dice game: the tile API needs none


def example() -> dict[str, Any]:
    return tomllib.loads(EXAMPLE.read_text())


def cli_json(*args: str) -> dict[str, Any]:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_advice_is_the_json_of_tile_advise(client: TestClient, tmp_path: Path):
    answer = client.post("/api/tile/advise", json={"position": example()})
    assert answer.status_code == 200, answer.text
    assert "app;dur=" in answer.headers["server-timing"]
    assert answer.json()["advice"] == cli_json("tile", "advise", str(EXAMPLE), "--format", "json")
    twin = tmp_path / "position.json"  # the same position as a JSON position file: the same answer
    twin.write_text(json.dumps(example()))
    assert answer.json()["advice"] == cli_json("tile", "advise", str(twin), "--format", "json")


def test_a_refill_position_gives_the_same_sampled_numbers(client: TestClient, tmp_path: Path):
    """Moves that empty the board (T16) carry the refill outlook, sampled with tile advise's seed."""
    position = small_position()
    twin = tmp_path / "small.json"
    twin.write_text(json.dumps(position))
    advice = client.post("/api/tile/advise", json={"position": position}).json()["advice"]
    assert advice == cli_json("tile", "advise", str(twin), "--format", "json")
    assert any(m["refill"] for m in advice["moves"])


def small_position() -> dict[str, Any]:
    """2 players; books at r5c4 r5c5, a lone cat at r5c7 (T3: usable with 2 players)."""
    board = ["---------", "---------", "---------", "---------", "...BB.C..", "---------", "---------",
             "---------", "---------"]  # '-' and '.' both read as no tile
    return {"players": 2, "goals": [1, 2], "personal": "1", "board": board,
            "shelf": [{"rows": ["....."] * 6}, {"rows": ["....."] * 6}]}


def test_apply_moves_the_tiles_as_the_rules_say(client: TestClient):
    """r7c4 r7c5 r7c6 are the cats CCC (the example's row 7 ---CCC---); seat 1's column 4 holds
    T (row 5) and F (row 6), so the cats go to rows 4, 3, 2 (T13, T14); seat 2 is next."""
    answer = client.post("/api/tile/apply", json={"position": example(), "move": "r7c4+r7c5+r7c6@4"})
    assert answer.status_code == 200, answer.text
    data = answer.json()
    after = data["position"]
    assert after["board"][6] == "---...---"
    assert [row for row in after["board"][:6]] == example()["board"][:6]
    assert after["shelf"][0]["rows"] == ["..B..", "..GC.", ".GGC.", ".GCC.", "TTTT.", "TPFF."]
    assert after["shelf"][1]["rows"] == example()["shelf"][1]["rows"]
    assert after["turn"] == 2 and after["personal"] == "" and "bag" not in after
    assert data["refill"] is False and data["over"] is False
    assert data["done"] == ["Seat 1 took r7c4 r7c5 r7c6 into column 4 (bottom to top CCC)."]


def test_apply_says_when_the_board_needs_a_refill(client: TestClient):
    """Taking both books leaves the cat at r5c7 with no neighbour: a refill (T16), drawn at the table."""
    data = client.post("/api/tile/apply", json={"position": small_position(), "move": "r5c5+r5c4@1"}).json()
    assert data["refill"] is True
    assert data["position"]["board"][4] == "......C.."
    assert data["position"]["shelf"][0]["rows"][4:] == ["B....", "B...."]
    assert "refill (T16)" in data["done"][-1]


@pytest.mark.parametrize("move, words", [
    ("r1c1@1", "holds no tile (T10)"),                    # '-' / empty cell
    ("r5c4+r5c6@1", "straight line without gaps (T10-T11)"),
    ("r9c9@1", "r9c9 holds no tile (T10)"),
    ("r7c4@9", "column 9 is not 1-5"),
    ("r7c4", "expected board cells"),
    ("4,3@1", "counted from 1"),
])
def test_an_illegal_or_bad_move_is_refused(client: TestClient, move: str, words: str):
    one_line_error(client.post("/api/tile/apply", json={"position": example(), "move": move}), 400, words)


def test_a_move_into_a_full_column_is_refused(client: TestClient):
    position = example()
    position["shelf"][0]["rows"] = ["B....", "G....", "G....", "G....", "T....", "T...."]
    one_line_error(client.post("/api/tile/apply", json={"position": position, "move": "r7c4@1"}), 400,
                   "column 1 has fewer than 1 empty cells (T12, T14)")


@pytest.mark.parametrize("change, words", [
    ({"goals": [{}]}, "goals must list"),
    ({"goals": [1, 1]}, "goals must list"),
    ({"board": ["...."]}, "bad board"),
    ({"personal": "13"}, "personal must name"),
    ({"players": 5}, "players must be"),
    ({"end_tokn": 1}, "unknown key"),
    ({"shelf": [{"rows": 3}, {"rows": 3}]}, "6 strings of 5"),
    ({"shelf": [{"rows": ["B....", ".....", ".....", ".....", ".....", "....."]}, {"rows": ["....."] * 6}]}, "T4"),
    ({"board": ["B" * 9] * 9}, "unusable"),
    ({"bag": {"C": "x"}}, "bag"),
])
def test_bad_positions_are_refused_in_one_line(client: TestClient, change: dict[str, Any], words: str):
    for route, move in (("advise", {}), ("apply", {"move": "r7c4@4"})):
        body = {"position": {**example(), **change}, **move}
        one_line_error(client.post(f"/api/tile/{route}", json=body), 400, words)


@pytest.mark.parametrize("body", [{}, {"position": "players = 2"}, {"position": [1, 2]}])
def test_the_position_must_be_an_object(client: TestClient, body: dict[str, Any]):
    one_line_error(client.post("/api/tile/advise", json=body), 400, "position")


def test_bodies_are_bounded_json(client: TestClient):
    big = {"position": example(), "pad": "x" * (MAX_BODY_BYTES + 1)}
    one_line_error(client.post("/api/tile/advise", json=big), 413, "bytes")
    one_line_error(client.post("/api/tile/advise", content=b"position=1",
                               headers={"content-type": "application/x-www-form-urlencoded"}), 415)
    one_line_error(client.post("/api/tile/advise", content=b"{", headers={"content-type": "application/json"}), 400)
    one_line_error(client.post("/api/tile/apply", json={"position": example(), "move": "r7c4@" + "4" * 100}), 400,
                   "move")
    one_line_error(client.get("/api/tile/advise"), 405)


def test_info_gives_the_layout_cards_and_goals(client: TestClient):
    info = client.get("/api/tile/info").json()
    assert [t["letter"] for t in info["types"]] == list("CBGFTP")
    assert {n: "".join(info["usable"][n]).count("1") for n in ("2", "3", "4")} == {"2": 29, "3": 37, "4": 45}  # T3
    assert info["tokens"] == {"2": [8, 4], "3": [8, 6, 4], "4": [8, 6, 4, 2]}  # T7
    assert [c["name"] for c in info["cards"]] == [str(n) for n in range(1, 13)]  # our 12 cards (T20)
    assert info["goals"][7] == {"id": 8, "name": "four corners", "text": "T-CG8 (four corners)"}


def test_the_tile_page_and_its_files_are_served(client: TestClient):
    page = client.get("/tile")
    assert page.status_code == 200 and 'src="/static/tile.js"' in page.text and 'href="/"' in page.text
    assert client.get("/static/tile.js").headers["content-type"].startswith("text/javascript")
    assert client.get("/static/tile.css").status_code == 200
    assert 'href="/tile"' in client.get("/").text  # the dice page links to it


# --- serve GAME --tile FILE.json: the position kept in a file, each write on its revision -----


@pytest.fixture
def kept(tmp_path: Path) -> tuple[TestClient, Path]:
    from shelfie_solver.web.tile import TilePage

    path = tmp_path / "position.json"
    return TestClient(create_app(GameServer(str(tmp_path / "game.json")), tile=TilePage(file=str(path)))), path


def test_the_tile_file_is_written_whole_on_its_revision(kept: tuple[TestClient, Path]):
    client, path = kept
    assert client.get("/api/tile/info").json()["file"] == "position.json"
    first = client.get("/api/tile/file").json()
    assert first == {"file": "position.json", "exists": False, "revision": "", "position": None}
    saved = client.post("/api/tile/file", json={"position": example(), "revision": ""})
    assert saved.status_code == 200, saved.text
    assert json.loads(path.read_text()) == example() == saved.json()["position"]
    import hashlib

    assert saved.json()["revision"] == hashlib.sha256(path.read_bytes()).hexdigest()
    # the file is a position tile advise reads: the same advice as the API's
    assert cli_json("tile", "advise", str(path), "--format", "json") == \
        client.post("/api/tile/advise", json={"position": example()}).json()["advice"]
    before = path.read_bytes()
    stale = client.post("/api/tile/file", json={"position": example(), "revision": ""})  # another page's old revision
    one_line_error(stale, 409, "changed since")
    assert stale.json()["revision"] == saved.json()["revision"] and path.read_bytes() == before
    bad = {**example(), "personal": ""}
    one_line_error(client.post("/api/tile/file", json={"position": bad, "revision": saved.json()["revision"]}), 400,
                   "personal must name")
    one_line_error(client.post("/api/tile/file", json={"position": example()}), 400, "revision")
    assert path.read_bytes() == before


def test_undo_writes_the_older_position_back_on_the_revision(kept: tuple[TestClient, Path]):
    """The page's Undo (docs/serve.md "Undo") writes the position before the last Apply through
    the same checked write: on the file's revision it gives the first write's bytes again (the
    same SHA-256), on a revision gone since it is refused (409) and the file is left as it is."""
    import hashlib

    client, path = kept
    first = client.post("/api/tile/file", json={"position": example(), "revision": ""}).json()
    original = path.read_bytes()
    moved = client.post("/api/tile/apply", json={"position": example(), "move": "r7c4+r7c5+r7c6@4"}).json()
    after = {**moved["position"], "personal": "2"}
    second = client.post("/api/tile/file", json={"position": after, "revision": first["revision"]})
    assert second.status_code == 200, second.text
    assert second.json()["revision"] != first["revision"]
    undone = client.post("/api/tile/file", json={"position": example(), "revision": second.json()["revision"]})
    assert undone.status_code == 200, undone.text
    assert path.read_bytes() == original and undone.json()["revision"] == hashlib.sha256(original).hexdigest()
    assert undone.json()["revision"] == first["revision"] and undone.json()["position"] == example()
    stale = client.post("/api/tile/file", json={"position": example(), "revision": second.json()["revision"]})
    one_line_error(stale, 409, "changed since")
    assert stale.json()["revision"] == first["revision"] and path.read_bytes() == original


def test_no_tile_file_without_serve_tile(client: TestClient):
    one_line_error(client.get("/api/tile/file"), 400, "--tile")
    one_line_error(client.post("/api/tile/file", json={"position": example(), "revision": ""}), 400, "--tile")


def test_serve_tile_needs_a_json_position_file(tmp_path: Path):
    for name, text, words in (("position.toml", "", ".json"), ("bad.json", "{", "not valid JSON"),
                              ("wrong.json", '{"players": 2}', "[[shelf]]")):
        path = tmp_path / name
        path.write_text(text)
        result = CliRunner().invoke(main, ["serve", str(tmp_path / "game.json"), "--tile", str(path)])
        assert result.exit_code == 2, result.output
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("Error:") and words in lines[0], result.output


# --- arbitrary positions: each is advised or refused in one line, never a 500 -----------------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_VALUES = st.recursive(st.none() | st.booleans() | st.integers(-10, 30) | st.text("CBGFTP.-rc0123456789@+ ", max_size=12),
                       lambda inner: st.lists(inner, max_size=10) | st.dictionaries(st.sampled_from(
                           ["rows", "taken", "C", "B", "x"]), inner, max_size=3), max_leaves=20)
_KEYS = ["players", "first", "turn", "goals", "personal", "end_token", "board", "bag", "shelf", "extra"]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(changes=st.dictionaries(st.sampled_from(_KEYS), _VALUES, min_size=1, max_size=3),
       move=st.one_of(st.none(), st.integers(), st.text("rc0123456789@+,", max_size=16)))
def test_arbitrary_positions_and_moves_never_crash(client: TestClient, changes: dict[str, Any], move: Any):
    position = {**example(), **changes}
    for route, body in (("advise", {"position": position}), ("apply", {"position": position, "move": move}),
                        ("apply", {"position": example(), "move": move})):
        answer = client.post(f"/api/tile/{route}", json=body)
        assert answer.status_code in (200, 400), (route, body, answer.text)
        if answer.status_code == 400:
            one_line_error(answer, 400)


_ROW9 = st.text("CBGFTP..--", min_size=9, max_size=9)
_ROW5 = st.text("CBGFTP....", min_size=5, max_size=5)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(board=st.lists(_ROW9, min_size=9, max_size=9), shelves=st.lists(st.lists(_ROW5, min_size=6, max_size=6),
       min_size=2, max_size=2), cells=st.lists(st.tuples(st.integers(1, 9), st.integers(1, 9)), min_size=1, max_size=3),
       column=st.integers(1, 5))
def test_random_boards_and_shelves_are_advised_or_refused(client: TestClient, board: list[str],
                                                          shelves: list[list[str]], cells: list[tuple[int, int]],
                                                          column: int):
    position = {**example(), "board": board, "shelf": [{"rows": rows} for rows in shelves]}
    advised = client.post("/api/tile/advise", json={"position": position})
    assert advised.status_code in (200, 400), advised.text
    move = "+".join(f"r{r}c{c}" for r, c in cells) + f"@{column}"
    applied = client.post("/api/tile/apply", json={"position": position, "move": move})
    assert applied.status_code in (200, 400), applied.text
    if advised.status_code == 400:  # a refused position is refused by apply too, with the same line
        assert applied.json() == advised.json()
    elif applied.status_code == 200:  # a legal move is a ranked move or the same state (T10-T14)
        ranked = {(frozenset(m["cells"]), m["column"], m["order"]) for m in advised.json()["advice"]["moves"]}
        order = "".join(board[r - 1][c - 1] for r, c in cells)
        assert (frozenset(f"r{r}c{c}" for r, c in cells), column, order) in ranked


def test_the_tile_page_needs_the_token_of_a_non_loopback_server(tmp_path: Path):
    client = TestClient(create_app(GameServer(str(tmp_path / "game.json")), token="s3cret"))
    one_line_error(client.get("/tile"), 401, "token")
    one_line_error(client.post("/api/tile/advise", json={"position": example()}), 401, "token")
    one_line_error(client.post("/api/tile/advise", json={"position": example()}, headers={"X-Shelfie-Token": "no"}),
                   403, "wrong token")
    assert client.get("/tile?token=s3cret").status_code == 200  # sets the cookie the page's requests then carry
    assert client.post("/api/tile/advise", json={"position": example()}).status_code == 200


@pytest.mark.parametrize("body", ["[1]", '"x"', "1", "{", ""])
def test_a_body_that_is_no_object_is_refused_with_the_tile_form(client: TestClient, body: str):
    """The tile endpoints' refusals show a tile request's form, not a dice write's."""
    for path in ("/api/tile/advise", "/api/tile/apply"):
        answer = client.post(path, content=body, headers={"content-type": "application/json"})
        message = one_line_error(answer, 400, '"position"')
        assert "dice" not in message


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_are_not_json(client: TestClient, constant: str):
    """RFC 8259 JSON has no NaN or Infinity (Python's json reads them by default)."""
    body = '{"position": {"players": %s}}' % constant
    answer = client.post("/api/tile/advise", content=body, headers={"content-type": "application/json"})
    one_line_error(answer, 400, f"{constant} is not a JSON number")


# --- the same form as tile advise's position file: no stray key, no key twice, ASCII only -----


def cli_refusal(tmp_path: Path, name: str, text: str, *words: str, args: tuple[str, ...] = ()) -> str:
    """``tile advise`` on a position file holding ``text``: exit 2 and one ``Error:`` line."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    result = CliRunner().invoke(main, ["tile", "advise", str(path), *args])
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error:"), result.output
    for word in words:
        assert word.lower() in lines[0].lower(), lines[0]
    return lines[0]


def post_text(client: TestClient, route: str, text: str) -> Any:
    return client.post(f"/api/tile/{route}", content=text.encode(), headers={"content-type": "application/json"})


@pytest.mark.parametrize("route, body", [
    ("advise", {"move": "r7c4@4"}),            # advise takes no move: nothing is silently dropped
    ("advise", {"positon": {}}),
    ("apply", {"move": "r7c4@4", "mvoe": "r7c5@4"}),
    ("file", {"revision": "", "revison": ""}),
])
def test_an_unknown_body_key_is_refused(kept: tuple[TestClient, Path], route: str, body: dict[str, Any]):
    client, path = kept
    expected = {"advise": '"position"', "apply": '"position", "move"', "file": '"position", "revision"'}[route]
    unknown = sorted(set(body) - {"move", "revision"} or {"move"})[0]
    message = one_line_error(client.post(f"/api/tile/{route}", json={"position": example(), **body}), 400,
                             f"unknown key '{unknown}'", expected)
    assert f"/api/tile/{route}" in message
    assert not path.exists()  # nothing written


@pytest.mark.parametrize("text, key", [
    ('{"position": {"players": 3, %s}}', "players"),     # in the position: 3 (refused) then 2
    ('{"position": {%s, "turn": 1, "turn": 2}}', "turn"),
    ('{"position": {}, "position": {%s}}', "position"),  # at the top: the second one is a good position
])
def test_a_key_given_twice_is_refused_as_in_a_position_file(client: TestClient, tmp_path: Path, text: str, key: str):
    inner = json.dumps(example())[1:-1]
    body = text % inner
    json.loads(body)  # Python's json alone reads it, keeping the last value
    for route in ("advise", "apply"):
        one_line_error(post_text(client, route, body), 400, f"the key '{key}' is given twice", "each key once")
    if key != "position":  # the same position as a file for tile advise: refused too, JSON and TOML alike
        position = body[len('{"position": '):-1]
        cli_refusal(tmp_path, "twice.json", position, f"the key '{key}' is given twice", "each key once")
        toml = f"{key} = 2\n" + EXAMPLE.read_text()  # the example sets players and turn too
        cli_refusal(tmp_path, "twice.toml", toml, "not valid TOML")


def test_a_tile_file_with_a_key_twice_is_refused_at_start(tmp_path: Path):
    path = tmp_path / "twice.json"
    path.write_text(json.dumps(example())[:-1] + ', "players": 2}')
    result = CliRunner().invoke(main, ["serve", str(tmp_path / "game.json"), "--tile", str(path)])
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1, result.output
    assert "'players' is given twice" in result.output


FULL_WIDTH_7 = "\uff17"  # FULLWIDTH DIGIT SEVEN: str.isdigit() and int() read it as 7


@pytest.mark.parametrize("change, words", [
    ({"goals": [FULL_WIDTH_7, 11]}, "goals has"),                 # the example's goals are [7, 11]
    ({"goals": ["T-CG" + FULL_WIDTH_7, 11]}, "goals has"),
    ({"board": ["----F----", "----B----", "---FBF---", "--TPBGB--", "GCCGFGBPP", "--CBPCG--",
                "---\uff23CC---", "----.----", "----.----"]}, "board row 7"),   # FULLWIDTH C
    ({"board": ["----F----", "----B----", "---FBF---", "--TPBGB--", "GCCGFGBPP", "--CBPCG--",
                "---\ufb00CC---", "----.----", "----.----"]}, "board row 7"),    # the ligature ff: upper() is FF
])
def test_non_ascii_text_is_refused_by_the_api_and_tile_advise(client: TestClient, tmp_path: Path,
                                                            change: dict[str, Any], words: str):
    position = {**example(), **change}
    api = one_line_error(client.post("/api/tile/advise", json={"position": position}), 400, words, "not an ASCII")
    cli = cli_refusal(tmp_path, "wide.json", json.dumps(position, ensure_ascii=False), words, "not an ASCII")
    assert cli.removeprefix("Error: ") == api  # the same line, word for word


def test_a_shelf_row_with_a_unicode_space_is_refused(client: TestClient, tmp_path: Path):
    """U+3000 (IDEOGRAPHIC SPACE) is dropped by str.strip(): the row would read as 4 cells."""
    position = example()
    position["shelf"][1]["rows"][0] = ".....\u3000"
    one_line_error(client.post("/api/tile/advise", json={"position": position}), 400, "shelf 2 rows", "U+3000")
    cli_refusal(tmp_path, "space.json", json.dumps(position), "shelf 2 rows", "U+3000")


@pytest.mark.parametrize("move", ["r" + FULL_WIDTH_7 + "c4@4", "r7c4@\uff14"])
def test_a_move_with_full_width_digits_is_refused(client: TestClient, tmp_path: Path, move: str):
    """r7c4@4 is legal (the example's row 7 is ---CCC---); its full-width twin is not read as it."""
    assert client.post("/api/tile/apply", json={"position": example(), "move": "r7c4@4"}).status_code == 200
    one_line_error(client.post("/api/tile/apply", json={"position": example(), "move": move}), 400,
                   "not ASCII", "r<row>c<column>")
    result = CliRunner().invoke(main, ["tile", "advise", str(EXAMPLE), "--move", move])
    assert result.exit_code == 2 and "not ASCII" in result.output, result.output


def test_lower_case_tile_letters_read_as_capitals_in_both(client: TestClient, tmp_path: Path):
    """The board and the shelves take a tile letter in either case, in the API and tile advise
    alike: the lower-case example is advised exactly as the example. The bag's keys are
    capitals in both (``{"c": 3}`` is refused by both)."""
    lower = example()
    lower["board"] = [row.lower() for row in lower["board"]]
    for shelf in lower["shelf"]:
        shelf["rows"] = [row.lower() for row in shelf["rows"]]
    assert lower["board"][6] == "---ccc---"
    expected = cli_json("tile", "advise", str(EXAMPLE), "--format", "json")
    assert client.post("/api/tile/advise", json={"position": lower}).json()["advice"] == expected
    twin = tmp_path / "lower.json"
    twin.write_text(json.dumps(lower))
    assert cli_json("tile", "advise", str(twin), "--format", "json") == expected
    bag = {**example(), "bag": {"c": 1}}
    api = one_line_error(client.post("/api/tile/advise", json={"position": bag}), 400, "bag must be")
    assert "capitals (CBGFTP)" in api  # the refusal says which case the keys take
    assert cli_refusal(tmp_path, "bag.json", json.dumps(bag), "bag must be").removeprefix("Error: ") == api


# --- serve --tile: a file that cannot be made is refused at start; GAME may be left out --------


def test_a_tile_file_in_a_missing_folder_is_refused_at_start(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    import shelfie_solver.web.server as server

    def started(*args: object) -> None:
        raise AssertionError("the server started")

    monkeypatch.setattr(server, "listen", started)
    for args in ([str(tmp_path / "game.json")], []):
        result = CliRunner().invoke(main, ["serve", *args, "--tile", str(tmp_path / "missing" / "p.json")])
        assert result.exit_code == 2, result.output
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("Error: --tile"), result.output
        assert f"{tmp_path / 'missing'} does not exist" in lines[0] and "existing folder" in lines[0]


@pytest.mark.parametrize("text, words", [
    ("[1, 2]", ("expected a JSON object like examples/tile/position.toml",)),  # not the request body's form
    ("{}", ("position: expected one [[shelf]] table",)),
])
def test_a_tile_file_that_is_no_position_is_refused_at_start_naming_it(tmp_path: Path, text: str,
                                                                        words: tuple[str, ...]):
    path = tmp_path / "p.json"
    path.write_text(text)
    result = CliRunner().invoke(main, ["serve", "--tile", str(path)])
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"Error: {path}: "), result.output
    assert all(word in lines[0] for word in words) and '{"position"' not in lines[0], result.output


@pytest.mark.parametrize("args, named", [(["--objective", "points"], "--objective"), (["--seed", "7"], "--seed"),
                                         (["--board", str(EXAMPLE.parent.parent / "boards" / "small.toml")], "--board")])
def test_dice_options_without_game_are_refused(tmp_path: Path, args: list[str], named: str):
    """Without GAME there is no dice game for --objective, --board, --rules or --seed to set:
    refused (exit 2, one line naming the option) rather than ignored."""
    result = CliRunner().invoke(main, ["serve", "--tile", str(tmp_path / "p.json"), *args])
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"Error: {named} ") and "without GAME" in lines[0], result.output


def test_serve_needs_game_or_a_tile_file(tmp_path: Path):
    result = CliRunner().invoke(main, ["serve"])
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "missing GAME" in lines[0] and "serve --tile FILE.json" in lines[0], result.output


def test_the_tile_page_alone_has_no_dice_game(tmp_path: Path):
    from shelfie_solver.web.tile import TilePage

    path = tmp_path / "p.json"
    client = TestClient(create_app(None, tile=TilePage(file=str(path))), follow_redirects=False)
    home = client.get("/?token=abc")
    assert home.status_code == 303 and home.headers["location"] == "/tile?token=abc"
    assert client.get("/tile").status_code == 200 and client.get("/static/app.css").status_code == 200
    info = client.get("/api/tile/info").json()
    assert info["dice"] is False and info["file"] == "p.json"
    for method, route in (("GET", "/api/state"), ("GET", "/api/new"), ("POST", "/api/roll"), ("GET", "/static/app.js")):
        one_line_error(client.request(method, route), 404, "no dice game", "serve GAME")
    assert client.post("/api/tile/advise", json={"position": example()}).status_code == 200
    assert client.post("/api/tile/file", json={"position": example(), "revision": ""}).status_code == 200
    assert json.loads(path.read_text()) == example()
    with_dice = TestClient(create_app(GameServer(str(tmp_path / "game.json"))))
    assert with_dice.get("/api/tile/info").json()["dice"] is True


def test_serve_with_only_a_tile_file_serves_the_tile_page(tmp_path: Path):
    import urllib.request

    from serve_support import Served

    path = tmp_path / "p.json"
    served = Served("--tile", str(path), "--port", "0")
    try:
        assert served.url.startswith("http://127.0.0.1:") and served.url.endswith("/tile")
        assert served.more(3)[1:] == ["No dice game (no GAME given): only the tile page is served.",
                                      f"The tile page (/tile) keeps its position in {path} (made on the first Advise)."]
        with urllib.request.urlopen(served.url, timeout=10) as page:
            assert page.status == 200 and b"tile.js" in page.read()
        with urllib.request.urlopen(served.url.removesuffix("tile"), timeout=10) as home:  # / goes to /tile
            assert home.url.endswith("/tile")
    finally:
        code, _, out, err = served.stop()
    assert code == 143 and "Traceback" not in err, err  # SIGTERM: 128 + 15
    assert out.strip().splitlines()[-1] == f"Stopped; {path} holds the tile position."
    assert not path.exists()  # nothing written without an Advise
