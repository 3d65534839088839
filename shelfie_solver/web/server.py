"""Running ``shelfie-solve serve``: the listening socket, the URL (and token, QR code) printed,
uvicorn serving :func:`web.app.create_app`, and a clean stop on SIGINT / SIGTERM (docs/serve.md).

The socket is bound here, before uvicorn starts, so ``--port 0`` (a free port chosen by the
system) is known when the URL is printed on the first line of standard output. uvicorn handles
SIGINT and SIGTERM: it stops accepting, lets a request under way finish (at most
:data:`GRACE_SECONDS`; a write replaces the game file whole or not at all, :mod:`core.files`, so
even a hard stop never leaves half a file) and returns; :func:`serve` then returns the signal
(the CLI exits ``128 + signal``, 130 or 143, :func:`core.parallel.signal_exit_code`), or, when a
request's thread is still running past the grace, ends the process with that code without
waiting for it.

Connections are bounded in time too (:func:`bounded_protocol`, docs/serve.md "Timeouts"): a
request must arrive whole (headers and body) within :data:`REQUEST_SECONDS` of its first byte
(or of the connection, for the first), an idle connection after an answer is closed after
:data:`KEEP_ALIVE_SECONDS` (uvicorn's ``timeout_keep_alive``), and a request's headers are at most
:data:`MAX_HEADER_BYTES` (h11's ``max_incomplete_event_size``). On a stop, a connection whose
request has not arrived whole is closed at once: nothing of it can have been applied.
"""

from __future__ import annotations

import io
import os
import signal
import socket
from collections.abc import Callable
from types import FrameType

from shelfie_solver.core.errors import ShelfieError
from shelfie_solver.web.api import GameServer
from shelfie_solver.web.newgame import NewGame
from shelfie_solver.web.tile import TilePage
from shelfie_solver.web.token import is_loopback, new_token

#: Longest wait for requests under way when stopping, in seconds (uvicorn's
#: ``timeout_graceful_shutdown``); the whole stop takes at most about 2 s (docs/serve.md).
GRACE_SECONDS = 1
#: Longest time for a request to arrive whole, headers and body, in seconds: a connection that
#: sends nothing, or a request a byte at a time, is closed then.
REQUEST_SECONDS = 5.0
#: Longest idle time of a kept-alive connection after an answer, in seconds (uvicorn's
#: ``timeout_keep_alive``).
KEEP_ALIVE_SECONDS = 5
#: Largest request line and headers, in bytes (h11's ``max_incomplete_event_size``; a larger
#: one is answered 400 and the connection closed).
MAX_HEADER_BYTES = 16 * 1024


class ServeError(ShelfieError):
    """The server cannot start: a host that does not resolve, a port in use or not allowed."""


class _Stopped(Exception):
    """SIGTERM after uvicorn's shutdown (uvicorn raises the signal it caught again)."""


def listen(host: str, port: int) -> socket.socket:
    """A TCP socket listening on ``host``:``port`` (``0``: a free port).

    Raises:
        ServeError: the host does not resolve or the port cannot be bound (in use, privileged).
    """
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (socket.gaierror, UnicodeError) as error:
        raise ServeError(f"--host {host!r} does not resolve ({error}); expected an address such as 127.0.0.1 "
                         "(this machine only) or 0.0.0.0 (every network, with a token)") from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(64)
    except OSError as error:
        sock.close()
        raise ServeError(f"cannot listen on {host}:{port}: {error.strerror or error}; expected a free port, "
                         "or --port 0 to pick one") from None
    sock.set_inheritable(True)
    return sock


def shown_host(host: str) -> str:
    """The host name for the printed URL: for a wildcard (``0.0.0.0``, ``::``) this machine's
    name's address (what a phone on the same network can reach), IPv6 literals in brackets."""
    name = host
    if host in ("0.0.0.0", "::", ""):
        name = socket.gethostname()
        try:  # the machine's own addresses by its name: no packet is sent
            found = [str(info[4][0]) for info in socket.getaddrinfo(name, None, type=socket.SOCK_STREAM)]
        except OSError:
            found = []
        usable = [a for a in found if not is_loopback(a) and ":" not in a] or [a for a in found if not is_loopback(a)]
        name = usable[0] if usable else name
    return f"[{name}]" if ":" in name else name


def qr_text(url: str) -> str:
    """``url`` as a QR code drawn with block characters (``qrcode``'s ``print_ascii``)."""
    import qrcode

    code = qrcode.QRCode(border=1)
    code.add_data(url)
    code.make(fit=True)
    out = io.StringIO()
    code.print_ascii(out=out, invert=True)
    return out.getvalue().rstrip("\n")


def serve(path: str | None, host: str, port: int, objective: str, echo: Callable[[str], None],
          new_game: NewGame | None = None, tile: TilePage | None = None) -> int | None:
    """Serve the game file ``path`` until SIGINT or SIGTERM, and return that signal's number
    (``None`` if uvicorn stopped without one); ``echo`` prints a line (the URL
    first). A missing ``path`` is served too: the page creates it (``new_game``: the board,
    rules and seed of that game, :mod:`web.newgame`), said on a line after the URL. ``tile``: the
    tile page's API (:mod:`web.tile`), with the position file of ``serve --tile`` if any.
    ``path`` ``None``: no dice game, only the tile page (``serve --tile FILE``; ``tile`` must
    keep a file).

    Raises:
        ShelfieError: a bad game file or objective, a ``--tile`` file that cannot be kept, a host
            or port that cannot be used.
    """
    import uvicorn

    from shelfie_solver.web.app import create_app

    tiles = tile if tile is not None else TilePage()
    tiles.check_file()
    server = setup = None
    missing = False
    if path is not None:
        server = GameServer(path, objective)
        setup = new_game if new_game is not None else NewGame(path)
        missing = not setup.exists()
        if missing:
            setup.check(objective)
        else:
            server.check()
    elif tiles.file is None:
        raise ServeError("serve needs GAME, the dice game's file, or --tile FILE.json for the tile page alone; "
                         "expected serve GAME [--tile FILE.json] or serve --tile FILE.json")
    holds = f"{path} holds every action" if path is not None else f"{tiles.file} holds the tile position"
    token = None if is_loopback(host) else new_token()
    sock = listen(host, port)
    bound = sock.getsockname()[1]
    url = f"http://{shown_host(host)}:{bound}/" + ("" if path is not None else "tile") + \
        (f"?token={token}" if token else "")
    allowed = None if token else frozenset({"127.0.0.1", "localhost", "[::1]", host.lower(), shown_host(host).lower()})
    # a file not made yet holds nothing before the New game screen makes it (POST /api/new)
    will_hold = f"from the page's New game on, {path} holds every action" if missing else holds
    _greet(echo, url, host, token, will_hold, path if missing else None, path is None, tiles.file)
    config = uvicorn.Config(create_app(server, token, allowed, setup, tiles), log_level="warning", access_log=False,
                            lifespan="off", timeout_graceful_shutdown=GRACE_SECONDS, server_header=False,
                            http=bounded_protocol(), timeout_keep_alive=KEEP_ALIVE_SECONDS,
                            h11_max_incomplete_event_size=MAX_HEADER_BYTES, log_config=_ONE_LINE_LOGS)

    def stop(signum: int, frame: FrameType | None) -> None:
        raise _Stopped

    previous = signal.signal(signal.SIGTERM, stop)
    stopped_by: int | None = None
    try:
        uvicorn.Server(config).run(sockets=[sock])
    except KeyboardInterrupt:
        stopped_by = signal.SIGINT
    except _Stopped:
        stopped_by = signal.SIGTERM
    finally:
        signal.signal(signal.SIGTERM, previous)
        sock.close()
    if path is not None and not os.path.exists(path):  # the New game screen never created it
        echo(f"Stopped; no game was created, {path} does not exist.")
    else:
        echo(f"Stopped; {holds}.")
    _end_if_abandoned(stopped_by)
    return stopped_by


def _greet(echo: Callable[[str], None], url: str, host: str, token: str | None, holds: str,
           missing: str | None, tile_only: bool, tile_file: str | None) -> None:
    """The lines ``serve`` prints before it serves: the URL (and its QR code with a token), how
    to open it and stop and what ``holds`` what is done, a game file not created yet
    (``missing``), a tile page alone, the tile page's position file."""
    echo(url)
    if token:
        echo(qr_text(url))
        echo(f"Scan the code, or open the URL above, on a phone on the same network; every request needs the "
             f"token. Ctrl-C stops; {holds}.")
        if host in ("0.0.0.0", "::", ""):
            echo("If the phone cannot open it, give this machine's address on that network as --host "
                 "(e.g. --host 192.168.1.20): the URL then names it.")
    else:
        echo(f"Open the URL above on this machine. Ctrl-C stops; {holds}.")
    if missing is not None:
        echo(f"No game in {missing} yet: the page starts with New game (the names, who plays first) and creates it.")
    if tile_only:
        echo("No dice game (no GAME given): only the tile page is served.")
    if tile_file is not None:
        echo(f"The tile page (/tile) keeps its position in {tile_file}"
             + ("." if os.path.exists(tile_file) else " (made on the first Advise)."))


def _end_if_abandoned(stopped_by: int | None) -> None:
    """End the process now when a request's thread still runs after the grace (abandoned by
    ``web.app.run_in_threadpool``): the interpreter would wait for it at exit, and the stop must
    stay bounded (docs/serve.md). A write it may be doing replaces its file whole or not at all.
    The exit code is the one the CLI gives the signal ``stopped_by`` (0 without one)."""
    import sys
    import threading

    from shelfie_solver.core.parallel import signal_exit_code

    if any(t.is_alive() and not t.daemon for t in threading.enumerate() if t is not threading.main_thread()):
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0 if stopped_by is None else signal_exit_code(stopped_by))


#: uvicorn's log configuration: its messages (warnings and errors: a malformed request, a task
#: cancelled at the end of the grace) as one line each on stderr, never a traceback.
_ONE_LINE_LOGS: dict[str, object] = {
    "version": 1, "disable_existing_loggers": False,
    "filters": {"one_line": {"()": "shelfie_solver.web.server.OneLine"}},
    "handlers": {"stderr": {"class": "logging.StreamHandler", "stream": "ext://sys.stderr", "filters": ["one_line"]}},
    "loggers": {"uvicorn": {"handlers": ["stderr"], "level": "WARNING", "propagate": False},
                "uvicorn.error": {"level": "WARNING"}},
}


class OneLine:
    """A logging filter: a record's first line only, prefixed ``serve:``, with no traceback; the
    report of a request's task cancelled at the end of the grace is dropped (uvicorn's line
    ``Cancel 1 running task(s), ...`` said it already)."""

    def filter(self, record: object) -> bool:
        import asyncio
        import logging

        assert isinstance(record, logging.LogRecord)
        if record.exc_info and isinstance(record.exc_info[1], asyncio.CancelledError):
            return False
        record.msg = "serve: " + (record.getMessage().splitlines() or [""])[0]
        record.args, record.exc_info, record.exc_text, record.stack_info = None, None, None, None
        return True


def bounded_protocol() -> type:
    """uvicorn's h11 protocol with a deadline per request (module docstring): from the first byte
    of a request (or the connection's start) to its last, at most :data:`REQUEST_SECONDS`, else
    the connection is closed; cancelled once the request has arrived whole, so a long answer is
    never cut. On a stop, a connection whose request has not arrived whole is closed at once."""
    import asyncio

    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class BoundedH11Protocol(H11Protocol):
        deadline: object = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._arm()

        def data_received(self, data: bytes) -> None:
            if self.conn.their_state is h11.IDLE:
                self._arm()  # a new request begins (its timer runs until it has arrived whole)
            super().data_received(data)
            if self.conn.their_state not in (h11.IDLE, h11.SEND_BODY):
                self._disarm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def shutdown(self) -> None:
            if self.conn.their_state is h11.SEND_BODY and self.cycle is not None \
                    and not self.cycle.response_complete:
                self.transport.close()  # its body never came: nothing of it was applied
                return
            super().shutdown()

        def _arm(self) -> None:
            if self.deadline is None:
                self.deadline = self.loop.call_later(REQUEST_SECONDS, self._too_slow)

        def _disarm(self) -> None:
            if self.deadline is not None:
                self.deadline.cancel()  # type: ignore[attr-defined]
                self.deadline = None

        def _too_slow(self) -> None:
            self.deadline = None
            if not self.transport.is_closing():
                self.transport.close()

    return BoundedH11Protocol
