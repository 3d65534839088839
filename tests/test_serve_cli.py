"""``shelfie-solve serve`` as a user runs it: the URL on the first line, the game served, the token
and QR code on a non-loopback host, SIGTERM / SIGINT stop it at once with the game file whole,
bad input one line (exit 2)."""

from __future__ import annotations

import json
import re
import signal
import sys
import tomllib
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from click.testing import CliRunner

pytest.importorskip("uvicorn")

from shelfie_solver.cli import main  # noqa: E402

from conftest import assert_one_line_error  # noqa: E402
from serve_support import Served  # noqa: E402


def new_game(path: Path) -> str:
    assert CliRunner().invoke(main, ["play", "new", str(path), "--players", "Ann,Ben", "--first", "Ann"]).exit_code == 0
    return str(path)


def get(url: str, headers: dict[str, str] | None = None) -> tuple[int, dict]:
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read())


def post(url: str, body: dict) -> tuple[int, dict]:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read())


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_serves_the_game_and_stops_at_once(tmp_path: Path, sig: int):
    game = new_game(tmp_path / "game.json")
    served = Served(game, "--port", "0")
    try:
        assert served.url.startswith("http://127.0.0.1:") and served.url.endswith("/")
        code, state = get(served.url + "api/state")
        assert code == 200 and state["revision"] == 1
        code, state = post(served.url + "api/roll", {"revision": 1, "dice": "CCBBPG"})
        assert code == 200 and state["done"] == ["Ann rolled PGBBCC (2 re-rolls left)."]
    finally:
        exit_code, seconds, out, err = served.stop(sig)
    assert seconds < 5, (seconds, err)
    assert exit_code == 128 + sig, err  # the shell's convention: 130 for Ctrl-C, 143 for SIGTERM (was 0)
    assert "Traceback" not in err and "Stopped" in out
    events = json.loads(Path(game).read_text())["events"]  # whole, and holds the roll
    assert [e["event"] for e in events] == ["start", "roll"]


def test_the_checked_modules_are_the_web_extra():
    """serve's check (web.EXTRA_MODULES) names every package of pyproject.toml's [web] extra, so a
    module of the extra missing is never met first inside the server (a traceback)."""
    from shelfie_solver.web import EXTRA_MODULES

    project = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extra = {re.split(r"[<>=!~\[ ;]", req, maxsplit=1)[0].lower() for req in project["optional-dependencies"]["web"]}
    assert set(EXTRA_MODULES) == extra == {"starlette", "uvicorn", "qrcode"}


@pytest.mark.parametrize("module", ["starlette", "uvicorn", "qrcode"])
def test_serve_without_a_module_of_the_web_extra_says_so_in_one_line(tmp_path: Path, monkeypatch, module: str):
    """After 'pip install .' without [web]: the user's serve on a new file printed a traceback
    ending "No module named 'uvicorn'" (exit 1), uvicorn being imported only inside the server.
    Each module of the extra missing (None in sys.modules: its import fails) is now the designed
    line, exit 2, before anything starts (the server is replaced by a failure here)."""
    import shelfie_solver.web.server as server

    monkeypatch.setattr(server, "serve", lambda *args, **kwargs: pytest.fail(f"served without {module}"))
    monkeypatch.setitem(sys.modules, module, None)
    result = CliRunner().invoke(main, ["serve", str(tmp_path / "g2.json"), "--seed", "777105"])
    assert_one_line_error(result, f"serve needs the web extra ({module} is missing)",
                          "expected pip install '.[web]' in the clone")
    assert not (tmp_path / "g2.json").exists()


def test_serving_a_game_not_made_yet_says_when_the_file_will_hold_it(tmp_path: Path):
    """serve on a file that does not exist yet (the user's g2.json): the start-up lines said
    "g2.json holds every action" and, on the next line, "No game in g2.json yet". The file holds
    nothing until the page's New game makes it (POST /api/new): the line says so, and once made
    the stop line says it holds every action."""
    game = tmp_path / "g2.json"
    served = Served(str(game), "--port", "0", "--seed", "777105")
    try:
        lines = served.more(2)
        code, state = post(served.url + "api/new", {"players": ["Nu", "Kim"], "first": "Nu"})
        assert code == 200 and state["revision"] == 1
    finally:
        exit_code, _, out, err = served.stop(signal.SIGTERM)
    assert lines == [f"Open the URL above on this machine. Ctrl-C stops; from the page's New game on, {game} holds "
                     "every action.",
                     f"No game in {game} yet: the page starts with New game (the names, who plays first) and "
                     "creates it."]
    assert exit_code == 143, err
    assert out.rstrip().splitlines()[-1] == f"Stopped; {game} holds every action."


def test_stopping_before_a_game_was_created_says_so(tmp_path: Path):
    """serve on a file never created (the New game screen unused): the last line says no game was
    made, not that the missing file "holds every action"."""
    game = tmp_path / "never.json"
    served = Served(str(game), "--port", "0")
    try:
        assert get(served.url + "api/new")[1]["exists"] is False  # serving (the stop handler set)
    finally:
        exit_code, _, out, err = served.stop(signal.SIGTERM)
    assert exit_code == 143, err
    assert out.rstrip().splitlines()[-1] == f"Stopped; no game was created, {game} does not exist."
    assert not game.exists()


def test_a_non_loopback_host_needs_the_token_and_shows_a_qr_code(tmp_path: Path):
    game = new_game(tmp_path / "game.json")
    served = Served(game, "--host", "0.0.0.0", "--port", "0")
    try:
        assert "/?token=" in served.url
        token = served.url.split("?token=", 1)[1]
        port = served.url.split(":")[2].split("/")[0]
        qr = served.more(3)
        assert all(set(line) <= set("█▀▄ \u00a0") for line in qr)  # the QR code drawn in block characters
        local = f"http://127.0.0.1:{port}/"
        assert get(local + "api/state")[0] == 401
        assert get(local + "api/state?token=wrong")[0] == 403
        assert get(local + f"api/state?token={token}")[0] == 200
        assert get(local + "api/state", {"X-Shelfie-Token": token})[0] == 200
    finally:
        served.stop()


def test_bad_input_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    assert_one_line_error(CliRunner().invoke(main, ["serve", str(tmp_path / "no-folder" / "none.json")]),
                          "does not exist")
    game = new_game(tmp_path / "game.json")
    assert_one_line_error(CliRunner().invoke(main, ["serve", game, "--objective", "nonsense"]), "nonsense")
    assert_one_line_error(CliRunner().invoke(main, ["serve", game, "--port", "70000"]), "--port")
    import socket

    def unknown(*args: object, **kwargs: object) -> None:  # no name is looked up on the network here
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    with monkeypatch.context() as patch:
        patch.setattr(socket, "getaddrinfo", unknown)
        assert_one_line_error(CliRunner().invoke(main, ["serve", game, "--host", "no.such.host.invalid"]),
                              "does not resolve")
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    assert_one_line_error(CliRunner().invoke(main, ["serve", str(bad)]), "not valid JSON")


def test_a_port_in_use_is_one_line(tmp_path: Path):
    game = new_game(tmp_path / "game.json")
    served = Served(game, "--port", "0")
    try:
        port = served.url.split(":")[2].strip("/")
        result = CliRunner().invoke(main, ["serve", game, "--port", port])
        assert_one_line_error(result, "cannot listen", port)
    finally:
        served.stop()


def test_a_missing_game_is_served_and_made_on_the_page(tmp_path: Path):
    """serve on a file that does not exist yet: the URL first, then the line saying the page makes
    the game; POST /api/new creates it as ``play new --seed`` would (D5), a second one is 409."""
    game = str(tmp_path / "new.json")
    served = Served(game, "--port", "0", "--seed", "3")
    try:
        assert served.url.startswith("http://127.0.0.1:")
        assert f"No game in {game} yet" in served.more(2)[1]
        assert get(served.url + "api/state")[0] == 404
        status, state = post(served.url + "api/new", {"players": ["Ann", "Ben"]})
        assert status == 200 and state["revision"] == 1
        same = tmp_path / "cli.json"
        assert CliRunner().invoke(main, ["play", "new", str(same), "--players", "Ann,Ben", "--seed", "3"]).exit_code == 0
        assert Path(game).read_text() == same.read_text()
        assert post(served.url + "api/new", {"players": ["Cy"]})[0] == 409
    finally:
        code, _, _, _ = served.stop()
    assert code == 143
