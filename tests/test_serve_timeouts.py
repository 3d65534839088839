"""``serve``'s time bounds (docs/serve.md, "Timeouts"), on a real server in a subprocess: idle and
incomplete connections are closed after the documented timeout (a raw socket that sends nothing,
half a request line and headers, headers with half a body, a kept-alive connection after an
answer); a stop with a request pending (a body that never comes, an answer that takes 8 s) ends
within the documented 2 s, exit 0, with no traceback and the file unchanged. Before these bounds
a connection that sent nothing stayed open for ever and a pending body held the stop for 3.3 s,
ending in a traceback of ``CancelledError``."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlparse

import pytest
from click.testing import CliRunner

pytest.importorskip("uvicorn")

from shelfie_solver.cli import main  # noqa: E402
from shelfie_solver.web.server import KEEP_ALIVE_SECONDS, REQUEST_SECONDS  # noqa: E402

from serve_support import ROOT, Served  # noqa: E402

#: The documented longest stop (docs/serve.md), and what a loaded test machine may add to it
#: (the interpreter's own exit; measured 0.2-0.5 s at a load average of 11).
STOP_SECONDS = 2.0
SLACK = 0.5


def new_game(tmp_path: Path) -> str:
    path = tmp_path / "game.json"
    assert CliRunner().invoke(main, ["play", "new", str(path), "--players", "Ann,Ben", "--first", "Ann"]).exit_code == 0
    return str(path)


def connect(url: str, data: bytes) -> socket.socket:
    where = urlparse(url)
    sock = socket.create_connection((where.hostname, where.port))
    sock.sendall(data)
    return sock


def closed_after(sock: socket.socket, start: float, limit: float) -> float | None:
    """Seconds from ``start`` until the server closed ``sock`` (everything it sent read), or
    ``None`` if it is still open after ``limit`` seconds."""
    sock.settimeout(max(0.1, start + limit - time.monotonic()))
    try:
        while sock.recv(4096):
            pass
    except (socket.timeout, TimeoutError):
        return None
    except ConnectionResetError:
        pass
    return time.monotonic() - start


PARTIAL = {
    "nothing sent": b"",
    "half the headers": b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\n",
    "half the body": b"POST /api/roll HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 100\r\n\r\n{\"revision\": 1, ",
}


def test_idle_and_incomplete_connections_are_closed_after_the_timeout(tmp_path: Path):
    game = new_game(tmp_path)
    before = Path(game).read_bytes()
    served = Served(game, "--port", "0")
    try:
        start = time.monotonic()
        socks = {name: connect(served.url, data) for name, data in PARTIAL.items()}
        answered = connect(served.url, b"GET /api/revision HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert answered.recv(4096).startswith(b"HTTP/1.1 200")
        answer_time = time.monotonic()
        limit = max(REQUEST_SECONDS, KEEP_ALIVE_SECONDS) + 4
        seconds = {name: closed_after(sock, start, limit) for name, sock in socks.items()}
        kept = closed_after(answered, answer_time, limit)
        assert all(s is not None and REQUEST_SECONDS - 0.5 <= s <= REQUEST_SECONDS + 3 for s in seconds.values()), \
            seconds
        assert kept is not None and KEEP_ALIVE_SECONDS - 0.5 <= kept <= KEEP_ALIVE_SECONDS + 3, kept
        # the server still answers afterwards
        with urllib.request.urlopen(served.url + "api/revision", timeout=10) as reply:
            assert reply.status == 200
    finally:
        code, _, _, err = served.stop()
    assert code == 143 and "Traceback" not in err
    assert Path(game).read_bytes() == before


def test_a_stop_with_a_body_still_coming_is_bounded(tmp_path: Path):
    game = new_game(tmp_path)
    before = Path(game).read_bytes()
    served = Served(game, "--port", "0")
    pending = connect(served.url, PARTIAL["half the body"])
    time.sleep(0.5)
    code, seconds, rest, err = served.stop()
    pending.close()
    assert code == 143 and "Traceback" not in err and "Error" not in err, err
    assert seconds <= STOP_SECONDS + SLACK, seconds
    assert rest.splitlines()[-1].startswith("Stopped; ")
    assert Path(game).read_bytes() == before


def test_a_stop_with_a_slow_answer_is_bounded(tmp_path: Path):
    """An answer that takes 8 s (the review made slow in the served process): the stop does not
    wait for it past the grace."""
    game = new_game(tmp_path)
    before = Path(game).read_bytes()
    code = ("import time\nfrom shelfie_solver.web import api\n"
            "api.GameServer.review = lambda self: time.sleep(8) or {}\n"
            "from shelfie_solver.cli import main\nmain()")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen([sys.executable, "-c", code, "serve", game, "--port", "0"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, env=env)
    assert process.stdout is not None
    url = process.stdout.readline().strip()
    answers: list[object] = []

    def review() -> None:
        try:
            with urllib.request.urlopen(url + "api/review", timeout=30) as reply:
                answers.append(reply.status)
        except Exception as error:  # noqa: BLE001 - the answer cut by the stop
            answers.append(error)

    thread = threading.Thread(target=review, daemon=True)
    thread.start()
    time.sleep(1.0)  # the review is under way
    start = time.monotonic()
    process.send_signal(signal.SIGTERM)
    out, err = process.communicate(timeout=30)
    seconds = time.monotonic() - start
    thread.join(timeout=10)
    assert process.returncode == 143 and "Traceback" not in err, err  # also when the answer is abandoned
    assert all(line.startswith("serve: ") for line in err.splitlines()), err
    assert seconds <= STOP_SECONDS + SLACK, seconds
    assert out.splitlines()[-1].startswith("Stopped; ")
    assert answers and answers[0] != 200  # it was cut, not waited for
    assert Path(game).read_bytes() == before
