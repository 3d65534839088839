"""Hostile input of the smaller kinds (docs/formats.md "Limits", docs/serve.md "Safety"), each
accepted before its fix:

* a key given twice in a dice page's body (``{"revision": 1, "dice": "CCBJPP", "dice":
  "CCCCCC"}`` recorded CCCCCC) and in every JSON file read: one strict parser refuses it;
* ``tile score SHELF --layout /etc/passwd --cards /etc/passwd`` exited 0 without reading either:
  an option naming a file it would ignore is refused;
* a top-level key of no meaning in a learned file and in a binary table's header was accepted;
* the ``--tile`` file replaced by a symbolic link gave, in a 409, the SHA-256 of the link's target.
"""

from __future__ import annotations

import hashlib
import json
import os
import tomllib
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from shelfie_solver.cli import main

from conftest import EXAMPLES, assert_one_line_error
from test_hostile_input import TINY_BOARD, TINY_RULES

RUNNER = CliRunner()
SHELF = "PPTTP/PPTTF/GGBBF/GCCBB/GCCFF/PGBFP"


def cli(*args: object):
    return RUNNER.invoke(main, [str(a) for a in args])


def twice(text: str, value: str = '"junk"') -> str:
    """A JSON object's text with its first key given once more, first, with ``value``: read as
    the original by a parser that keeps the last value of a key (Python's ``json``)."""
    data = json.loads(text)
    first = next(iter(data))
    stripped = text.lstrip("\ufeff \n")
    assert stripped.startswith("{")
    return "{" + json.dumps(first) + ": " + value + ", " + stripped[1:]


@pytest.fixture
def tiny(tmp_path: Path) -> list[object]:
    (tmp_path / "b.toml").write_text(TINY_BOARD)
    (tmp_path / "r.toml").write_text(TINY_RULES)
    return ["--board", tmp_path / "b.toml", "--rules", tmp_path / "r.toml"]


def test_twice_keeps_the_file_as_it_was():
    """The edit itself: Python's json reads the edited text as the original (the last value
    wins), so a reader that accepts it would act on the file as if unedited."""
    text = '{"format": "x", "n": 1}'
    assert json.loads(twice(text)) == json.loads(text)


# --- a key given twice: the dice page's body ------------------------------------------------------


def test_a_dice_body_with_a_key_given_twice_is_refused(tmp_path: Path):
    pytest.importorskip("starlette")
    from starlette.testclient import TestClient

    from shelfie_solver.web.api import GameServer
    from shelfie_solver.web.app import create_app

    game = tmp_path / "game.json"
    assert cli("play", "new", game, "--players", "Ann,Ben", "--first", "Ann").exit_code == 0
    before = game.read_bytes()
    client = TestClient(create_app(GameServer(str(game))))
    answer = client.post("/api/roll", content=b'{"revision":1,"dice":"CCBJPP","dice":"CCCCCC"}',
                         headers={"content-type": "application/json"})
    assert answer.status_code == 400, answer.text
    assert answer.json() == {"error": "the body: the key 'dice' is given twice in one JSON object; expected each "
                                      "key once"}
    assert game.read_bytes() == before
    assert client.post("/api/roll", json={"revision": 1, "dice": "CCBJPP"}).status_code == 200  # once is fine


# --- a key given twice: every JSON file -----------------------------------------------------------


def _game_file(tmp_path: Path, tiny: list[object]) -> tuple[Path, list[object]]:
    game = tmp_path / "game.json"
    assert cli("play", "new", game, "--players", "Ann,Ben", "--first", "Ann").exit_code == 0
    return game, ["play", "status", game]


def _saved_games(tmp_path: Path, tiny: list[object]) -> tuple[Path, list[object]]:
    games = tmp_path / "games.jsonl"
    assert cli("simulate", *tiny, "--players", "greedy", "--games", "1", "--seed", "1", "--jobs", "1",
               "--save", games).exit_code == 0
    return games, ["review", games, "--objective", "points"]


def _value_table(tmp_path: Path, tiny: list[object]) -> tuple[Path, list[object]]:
    table = tmp_path / "t.json"
    assert cli("solve-game", *tiny, "--save", table).exit_code == 0
    return table, ["advise", "--dice", "PBJ", *tiny, "--objective", f"table:{table}"]


def _exact_checkpoint(tmp_path: Path, tiny: list[object]) -> tuple[Path, list[object]]:
    folder = tmp_path / "ck"
    assert cli("solve-game", *tiny, "--checkpoints", folder).exit_code == 0
    return folder / "layer-001.json", ["solve-game", *tiny, "--checkpoints", folder]


def _binary_header(tmp_path: Path, tiny: list[object]) -> tuple[Path, list[object]]:
    table = tmp_path / "t.npy"
    assert cli("solve-game", *tiny, "--float", "--jobs", "1", "--save", table).exit_code == 0
    return tmp_path / "t.json", ["advise", "--dice", "PBJ", *tiny, "--objective", f"table:{table}"]


def _float_checkpoint(tmp_path: Path, tiny: list[object]) -> tuple[Path, list[object]]:
    folder = tmp_path / "fck"
    args = ["solve-game", *tiny, "--float", "--jobs", "1", "--checkpoints", folder]
    assert cli(*args, "--save", tmp_path / "a.npy").exit_code == 0
    return folder / "layer-001.json", [*args, "--save", tmp_path / "b.npy"]


def _learned(tmp_path: Path, tiny: list[object]) -> tuple[Path, list[object]]:
    path = tmp_path / "learned.json"
    path.write_text((EXAMPLES / "learned-small-boards.json").read_text())
    return path, ["advise", "--dice", "CCBJPP", "--objective", f"learned:{path}"]


def _tile_position(tmp_path: Path, tiny: list[object]) -> tuple[Path, list[object]]:
    path = tmp_path / "position.json"
    path.write_text(json.dumps(tomllib.loads((EXAMPLES / "tile" / "position.toml").read_text())))
    return path, ["tile", "advise", path, "--samples", "0"]


FILES = {"game file": _game_file, "saved games": _saved_games, "value table": _value_table,
         "exact checkpoint": _exact_checkpoint, "binary table header": _binary_header,
         "float checkpoint": _float_checkpoint, "learned file": _learned, "tile position": _tile_position}


@pytest.mark.parametrize("kind", FILES)
def test_a_key_given_twice_in_a_file_is_refused(tmp_path: Path, tiny: list[object], kind: str):
    path, args = FILES[kind](tmp_path, tiny)
    if kind != "learned file":  # (read once per path in a process: its unedited read is in the test below)
        assert cli(*args).exit_code == 0  # the file as written is read
    original = path.read_text()
    edited = twice(original) if kind != "saved games" else "\n".join(twice(line) for line in original.splitlines())
    path.write_text(edited)
    assert_one_line_error(cli(*args), "is given twice in one JSON object")
    assert path.read_text() == edited  # not replaced


def test_a_pretty_printed_saved_game_with_a_key_twice_is_refused(tmp_path: Path, tiny: list[object]):
    path, args = _saved_games(tmp_path, tiny)
    game = json.loads(path.read_text().splitlines()[0])
    path.write_text(twice(json.dumps(game, indent=1)))
    assert_one_line_error(cli(*args), "is given twice")


def test_a_train_checkpoint_with_a_key_twice_is_refused(tmp_path: Path, tiny: list[object]):
    """Refused before any game is played (a checkpoint read as its last ``settings`` would be
    resumed, or silently started over)."""
    checkpoint = tmp_path / "train.checkpoint"
    checkpoint.write_text(twice(json.dumps({"settings": {"seed": 1}, "inputs": "x", "iterations": []})))
    result = cli("train", "--seed", "1", "--games", "1", "--iterations", "1", "--players", "1", "--jobs", "1", *tiny,
                 "--output", tmp_path / "out.json", "--checkpoint", checkpoint)
    assert_one_line_error(result, "is given twice")
    assert not (tmp_path / "out.json").exists()


# --- an option naming a file it would not read ----------------------------------------------------


def test_tile_score_refuses_the_files_it_would_not_read():
    assert_one_line_error(cli("tile", "score", SHELF, "--layout", "/etc/passwd", "--cards", "/etc/passwd"),
                          "--layout is not read by tile score")
    assert_one_line_error(cli("tile", "score", SHELF, "--cards", "/etc/passwd"), "--cards is read only with --personal")
    # with --personal the cards are read, and a file that is not cards is refused
    assert_one_line_error(cli("tile", "score", SHELF, "--cards", "/etc/passwd", "--personal", "4"), "/etc/passwd is not a TOML file")
    shipped = Path(__file__).resolve().parent.parent / "shelfie_solver" / "tile" / "data" / "personal.toml"
    assert cli("tile", "score", SHELF, "--cards", shipped, "--personal", "4").exit_code == 0


# --- unknown top-level keys -----------------------------------------------------------------------


def test_a_learned_file_refuses_an_unknown_top_level_key(tmp_path: Path):
    data = json.loads((EXAMPLES / "learned-small-boards.json").read_text())
    path = tmp_path / "learned.json"
    path.write_text(json.dumps({**data, "solitaire_shapez": {}}))
    assert_one_line_error(cli("advise", "--dice", "CCBJPP", "--objective", f"learned:{path}"),
                          "unknown key 'solitaire_shapez'")
    path.write_text(json.dumps(data))  # the keys train writes, "trained" included, are read
    assert cli("advise", "--dice", "CCBJPP", "--objective", f"learned:{path}").exit_code == 0


def test_a_binary_table_header_refuses_an_unknown_key(tmp_path: Path, tiny: list[object]):
    header, args = _binary_header(tmp_path, tiny)
    data = json.loads(header.read_text())
    assert set(data) == {"format", "board", "rules", "states", "dtype", "index", "optimum", "error_bound",
                         "scale_exponent", "array"}  # docs/formats.md, "Binary value table"
    header.write_text(json.dumps({**data, "error_bund": 0}))
    assert_one_line_error(cli(*args), "unknown key 'error_bund'")


# --- no digest of a file outside the served ones --------------------------------------------------


def _tile_client(tmp_path: Path) -> tuple[Any, Path, dict[str, Any]]:
    pytest.importorskip("starlette")
    from starlette.testclient import TestClient

    from shelfie_solver.web.app import create_app
    from shelfie_solver.web.tile import TilePage

    (tmp_path / "served").mkdir()
    path = tmp_path / "served" / "position.json"
    client = TestClient(create_app(None, tile=TilePage(file=str(path))))
    position = tomllib.loads((EXAMPLES / "tile" / "position.toml").read_text())
    assert client.post("/api/tile/file", json={"position": position, "revision": ""}).status_code == 200
    return client, path, position


@pytest.mark.parametrize("where", ["inside its folder", "outside its folder"])
def test_a_tile_file_replaced_by_a_link_gives_no_digest_of_its_target(tmp_path: Path, where: str):
    client, path, position = _tile_client(tmp_path)
    secret = (path.parent if where == "inside its folder" else tmp_path) / "secret.txt"
    secret.write_text("top secret\n")
    digest = hashlib.sha256(secret.read_bytes()).hexdigest()
    path.unlink()
    os.symlink(secret if where == "outside its folder" else secret.name, path)
    answers = [client.post("/api/tile/file", json={"position": position, "revision": ""}),
               client.get("/api/tile/file")]
    for answer in answers:
        assert answer.status_code == 400, answer.text
        assert digest not in answer.text and "top secret" not in answer.text
        assert str(tmp_path) not in answer.json()["error"] or where == "inside its folder"
    assert secret.read_text() == "top secret\n"


def test_a_tile_file_changed_to_another_position_still_gives_its_revision(tmp_path: Path):
    """The 409 of a file that reads as a position carries its revision (the page reloads it)."""
    client, path, position = _tile_client(tmp_path)
    changed = {**position, "turn": 3 - position["turn"]}  # the other seat of the two to move
    path.write_text(json.dumps(changed, indent=1) + "\n")
    stale = client.post("/api/tile/file", json={"position": position, "revision": ""})
    assert stale.status_code == 409
    assert stale.json()["revision"] == hashlib.sha256(path.read_bytes()).hexdigest()
