"""The ASGI app of ``shelfie-solve serve`` (Starlette; the ``[web]`` extra): the JSON API of
:mod:`web.api`, the tile page's stateless API (:mod:`web.tile`) and the pages' static files,
nothing else (docs/serve.md).

Safety (docs/serve.md, "Safety"):

* with a ``token`` (a non-loopback host, :mod:`web.token`) every request — the page, its files,
  the API, an unknown path — must carry it: in the URL (``?token=``), the ``X-Shelfie-Token``
  header, or the cookie set when the page was opened with it; compared in constant time. Missing:
  401, wrong: 403;
* with ``allowed_hosts`` (loopback) a request naming another ``Host`` is refused (403), so a web
  page elsewhere cannot reach this server through a rebound DNS name;
* a write must be ``Content-Type: application/json`` (415 otherwise: a cross-site form cannot
  post here) and at most :data:`MAX_BODY_BYTES` (413);
* no path comes from the client: the one game file is the server's, the static files are fixed
  routes read from the package; the tile page's position comes whole in the body, never a file;
* every error is one line of JSON ``{"error": "..."}`` — bad input 400 with the CLI's message
  (:class:`core.errors.ShelfieError`), a stale write 409 (:class:`web.api.StaleWrite`), anything
  unexpected 500 — never a traceback page.
"""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable
from http.cookies import SimpleCookie
from importlib import resources
from typing import Any, TypeVar
from urllib.parse import parse_qs

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from shelfie_solver.core.errors import ShelfieError, error_line
from shelfie_solver.core.inputs import ConstantError, DuplicateKeyError, check_json_text, strict_loads
from shelfie_solver.web.api import WRITES, GameServer, StaleWrite, encode_answer
from shelfie_solver.web.newgame import GameExists, NewGame
from shelfie_solver.web.tile import StaleTile, TilePage
from shelfie_solver.web.token import token_matches

#: Largest request body accepted (a write is a few hundred bytes).
MAX_BODY_BYTES = 16 * 1024

#: The page's files: route -> (package file, media type).
STATIC = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/static/app.css": ("app.css", "text/css; charset=utf-8"),
    "/static/app.js": ("app.js", "text/javascript; charset=utf-8"),
    "/static/api.js": ("api.js", "text/javascript; charset=utf-8"),
    "/tile": ("tile.html", "text/html; charset=utf-8"),
    "/static/tile.css": ("tile.css", "text/css; charset=utf-8"),
    "/static/tile.js": ("tile.js", "text/javascript; charset=utf-8"),
}

TOKEN_COOKIE = "shelfie_token"
TOKEN_HEADER = "x-shelfie-token"

#: Headers of every answer: nothing cached (a state is stale after any action), no referrer (the
#: URL may hold the token), only this server's own files run on the page.
SECURITY_HEADERS = {
    "cache-control": "no-store",
    "referrer-policy": "no-referrer",
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "content-security-policy": ("default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
                                "img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"),
}


class AsciiJSONResponse(JSONResponse):
    """A JSON answer rendered by :func:`web.api.encode_answer`: every non-ASCII character escaped,
    so every answer can be encoded (a lone surrogate in a player's name is ``\\udcff``, valid
    JSON), never a UnicodeEncodeError after the action was written."""

    def render(self, content: Any) -> bytes:
        return encode_answer(content)


def error(status: int, message: str, **extra: Any) -> JSONResponse:
    """One line of JSON: ``{"error": message, ...extra}`` with ``status``."""
    return AsciiJSONResponse({"error": error_line(message), **extra}, status_code=status, headers=SECURITY_HEADERS)


def answer(data: dict[str, Any]) -> JSONResponse:
    """A JSON answer with :data:`SECURITY_HEADERS`."""
    return AsciiJSONResponse(data, headers=SECURITY_HEADERS)


class Guard:
    """ASGI middleware: the token and the ``Host`` check before any route (module docstring)."""

    def __init__(self, app: ASGIApp, token: str | None, allowed_hosts: frozenset[str] | None) -> None:
        self.app, self.token, self.allowed_hosts = app, token, allowed_hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        refusal = self._refusal(scope, headers)
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        if self.token is None or TOKEN_COOKIE in _cookies(headers):
            await self.app(scope, receive, send)
            return

        async def with_cookie(message: Message) -> None:  # the page's own files then need no ?token=
            if message["type"] == "http.response.start":
                cookie = f"{TOKEN_COOKIE}={self.token}; HttpOnly; SameSite=Strict; Path=/"
                message["headers"] = list(message.get("headers", [])) + [(b"set-cookie", cookie.encode())]
            await send(message)

        await self.app(scope, receive, with_cookie)

    def _refusal(self, scope: Scope, headers: dict[str, str]) -> Response | None:
        if self.allowed_hosts is not None:
            host = headers.get("host", "")
            name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
            if name.lower() not in self.allowed_hosts:
                return error(403, f"this server answers only to {', '.join(sorted(self.allowed_hosts))}, "
                                  f"not the host {host[:100]!r}")
        if self.token is None:
            return None
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        given = (query.get("token") or [None])[0] or headers.get(TOKEN_HEADER) or _cookies(headers).get(TOKEN_COOKIE)
        if given is None:
            return error(401, "this server needs its token: open the URL it printed (…/?token=...)")
        if not token_matches(given, self.token):
            return error(403, "wrong token: open the URL the server printed (…/?token=...)")
        return None


_T = TypeVar("_T")


async def run_in_threadpool(func: Callable[..., _T], *args: Any) -> _T:
    """``func(*args)`` on a worker thread, as starlette's ``run_in_threadpool``, but abandoned when
    the request's task is cancelled (a stop past its grace, ``web/server.py``): the task ends at
    once instead of waiting for the thread, so stopping is bounded; the thread finishes or is
    ended with the process (a write replaces its file whole or not at all, ``core/files.py``)."""
    import functools

    import anyio.to_thread

    return await anyio.to_thread.run_sync(functools.partial(func, *args), abandon_on_cancel=True)


def _cookies(headers: dict[str, str]) -> dict[str, str]:
    jar: SimpleCookie = SimpleCookie()
    try:
        jar.load(headers.get("cookie", ""))
    except Exception:  # a malformed cookie header is no cookie
        return {}
    return {k: v.value for k, v in jar.items()}


#: The example of a body a refusal gives: a dice-page write, a tile-page request.
DICE_BODY = '{"revision": 1, "dice": "CCBJPP"}'
TILE_BODY = '{"position": {...the keys of a tile advise position file...}, "move": "r7c4 r7c5 @4"}'


async def read_body(request: Request, example: str = DICE_BODY) -> dict[str, Any]:
    """The request body as a JSON object, at most :data:`MAX_BODY_BYTES`; ``example`` is the
    form a refusal shows (:data:`DICE_BODY`, :data:`TILE_BODY`). Parsed by the one strict parser
    of every file too (:func:`core.inputs.strict_loads`): ``NaN`` and ``Infinity`` (not JSON,
    RFC 8259) are refused, and so is a key given twice in any object, a dice write's as a tile
    request's (``{"revision": 1, "dice": "CCBJPP", "dice": "CCCCCC"}`` would record the second).

    Raises:
        HTTPException: 413 too large, 415 not JSON content, 400 not a JSON object or a key given
            twice.
    """
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        raise HTTPException(415, "a write is a JSON object sent as Content-Type: application/json")
    length = request.headers.get("content-length")
    if length is not None and not length.isdigit():
        raise HTTPException(400, f"bad Content-Length {length[:40]!r}; expected a number of bytes")
    if length is not None and int(length) > MAX_BODY_BYTES:
        raise HTTPException(413, f"the request body is over {MAX_BODY_BYTES:,} bytes; a write is a small JSON object")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY_BYTES:
            raise HTTPException(413, f"the request body is over {MAX_BODY_BYTES:,} bytes; a write is a small JSON object")
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise HTTPException(400, "the body is not UTF-8 text; expected a JSON object") from None
    try:  # nesting and number length bounded first: a 5000-digit integer was int()'s ValueError, a 500
        check_json_text(text, ValueError, "the request body")
    except ValueError as bad:
        raise HTTPException(400, f"{bad}; expected a small JSON object") from None
    try:
        data = strict_loads(text)
    except DuplicateKeyError as twice:
        raise HTTPException(400, f"the body: {twice}") from None
    except ConstantError as constant:
        raise HTTPException(400, f"the body: {constant} is not a JSON number (JSON has no NaN or Infinity); "
                                 f"expected an object like {example}") from None
    except (json.JSONDecodeError, RecursionError):
        raise HTTPException(400, f"the body is not JSON; expected an object like {example}") from None
    if not isinstance(data, dict):
        raise HTTPException(400, f"the body must be a JSON object like {example}")
    return data


Handler = Callable[[Request], Awaitable[Response]]


def guarded(call: Callable[[Request], Awaitable[dict[str, Any]]]) -> Handler:
    """An endpoint whose errors are one-line JSON: StaleWrite 409, ShelfieError 400 (the CLI's
    message), HTTPException its status, anything else 500. A success carries its time on the
    server (``Server-Timing: app;dur=MS``)."""

    async def endpoint(request: Request) -> Response:
        start = time.perf_counter()
        try:
            response: Response = answer(await call(request))
            response.headers["server-timing"] = f"app;dur={(time.perf_counter() - start) * 1000:.1f}"
            return response
        except StaleWrite as stale:
            return error(409, str(stale), revision=stale.revision, digest=stale.digest)
        except StaleTile as stale:
            return error(409, str(stale), revision=stale.revision)
        except GameExists as exists:
            return error(409, str(exists))
        except ShelfieError as bad:
            return error(400, str(bad))
        except HTTPException as http:
            return error(http.status_code, str(http.detail))
        except Exception as unexpected:  # noqa: BLE001 - the one-line contract holds for bugs too
            return error(500, f"internal error ({type(unexpected).__name__}); the game file is unchanged "
                              "or holds the whole action")

    return endpoint


#: The dice page's routes and its script, offered only with a dice game (``serve GAME``; the
#: tile page uses ``app.css`` too).
DICE_PAGE = ("/", "/static/app.js")


def create_app(server: GameServer | None, token: str | None = None,
               allowed_hosts: frozenset[str] | None = None, new_game: NewGame | None = None,
               tile: TilePage | None = None) -> Starlette:
    """The app over ``server``'s game file. ``token``: required on every request (non-loopback
    host); ``allowed_hosts``: the ``Host`` names answered (loopback), ``None`` for any;
    ``new_game``: how ``POST /api/new`` creates the file while it is missing (default: the
    standard board and rules, :class:`web.newgame.NewGame`); ``tile``: the tile page's API
    (default: the shipped tile ruleset, layout and cards, :class:`web.tile.TilePage`).

    ``server`` ``None`` (``serve --tile FILE`` without ``GAME``): no dice game; ``/`` redirects to
    ``/tile`` (its query, the token, kept), the dice page's files and API are 404 saying so."""
    tiles = tile if tile is not None else TilePage()
    if server is None:
        return _tile_only_app(tiles, token, allowed_hosts)
    setup = new_game if new_game is not None else NewGame(server.path)

    async def state(request: Request) -> dict[str, Any]:
        if not setup.exists():  # the page then shows its New game screen (GET /api/new)
            raise HTTPException(404, f"no game in {setup.info()['file']} yet: create one on the page "
                                     "(POST /api/new, docs/serve.md)")
        return await run_in_threadpool(server.state)

    async def new_info(request: Request) -> dict[str, Any]:
        return setup.info()

    async def new(request: Request) -> dict[str, Any]:
        body = await read_body(request)
        kept, done = await run_in_threadpool(setup.create, body)
        return await run_in_threadpool(server.state, kept, done)

    async def revision(request: Request) -> dict[str, Any]:
        return await run_in_threadpool(server.revision)

    async def stop(request: Request) -> dict[str, Any]:
        return await run_in_threadpool(server.stop_advice)

    async def review(request: Request) -> dict[str, Any]:
        return await run_in_threadpool(server.review)

    async def rollout(request: Request) -> dict[str, Any]:
        from shelfie_solver.web.rollout import rollout_answer

        query = request.query_params
        return await run_in_threadpool(rollout_answer, server.path, server.objective, query.get("games"),
                                       query.get("top"))

    def write(kind: str) -> Callable[[Request], Awaitable[dict[str, Any]]]:
        async def call(request: Request) -> dict[str, Any]:
            body = await read_body(request)
            return await run_in_threadpool(server.write, kind, body)

        return call

    routes = _static_routes() + _tile_routes(tiles)
    routes += [Route("/api/state", guarded(state), methods=["GET"]),
               Route("/api/revision", guarded(revision), methods=["GET"]),
               Route("/api/stop", guarded(stop), methods=["GET"]),
               Route("/api/review", guarded(review), methods=["GET"]),
               Route("/api/rollout", guarded(rollout), methods=["GET"]),
               Route("/api/new", guarded(new_info), methods=["GET"]),
               Route("/api/new", guarded(new), methods=["POST"])]
    routes += [Route(f"/api/{kind}", guarded(write(kind)), methods=["POST"]) for kind in WRITES]

    return _app(routes, token, allowed_hosts, "the pages are / and /tile")


def _tile_routes(tiles: TilePage, dice: bool = True) -> list[Route]:
    """The routes of the tile API (docs/serve.md, "The tile API") over ``tiles``; ``dice``: the
    server has a dice game (``GET /api/tile/info``'s ``dice``: the page links to it)."""

    async def tile_info(request: Request) -> dict[str, Any]:
        return {**tiles.info(), "dice": dice}

    async def tile_advise(request: Request) -> dict[str, Any]:
        body = await read_body(request, TILE_BODY)
        return await run_in_threadpool(tiles.advise, body)

    async def tile_apply(request: Request) -> dict[str, Any]:
        body = await read_body(request, TILE_BODY)
        return await run_in_threadpool(tiles.apply, body)

    async def tile_file(request: Request) -> dict[str, Any]:
        return await run_in_threadpool(tiles.read_file)

    async def tile_save(request: Request) -> dict[str, Any]:
        body = await read_body(request, TILE_BODY)
        return await run_in_threadpool(tiles.write_file, body)

    return [Route("/api/tile/info", guarded(tile_info), methods=["GET"]),
            Route("/api/tile/file", guarded(tile_file), methods=["GET"]),
            Route("/api/tile/file", guarded(tile_save), methods=["POST"]),
            Route("/api/tile/advise", guarded(tile_advise), methods=["POST"]),
            Route("/api/tile/apply", guarded(tile_apply), methods=["POST"])]


def _static_routes(skip: tuple[str, ...] = ()) -> list[Route]:
    """A GET route for each page and file of :data:`STATIC` but ``skip``, its bytes read once."""
    files = resources.files("shelfie_solver.web") / "static"

    def page(content: bytes, media: str) -> Handler:
        async def endpoint(request: Request) -> Response:
            return Response(content, media_type=media, headers=SECURITY_HEADERS)

        return endpoint

    return [Route(route, page((files / name).read_bytes(), media), methods=["GET"])
            for route, (name, media) in STATIC.items() if route not in skip]


#: What a dice request to a server without a dice game is told (404).
NO_DICE_GAME = ("no dice game on this server: it was started as serve --tile FILE.json without GAME; the tile "
                "page is /tile. Expected serve GAME [--tile FILE.json] for the dice page (docs/serve.md)")


def _tile_only_app(tiles: TilePage, token: str | None, allowed_hosts: frozenset[str] | None) -> Starlette:
    """The app of ``serve --tile FILE`` without ``GAME``: the tile page and its API only."""
    async def home(request: Request) -> Response:
        query = request.url.query
        return RedirectResponse("/tile" + (f"?{query}" if query else ""), status_code=303, headers=SECURITY_HEADERS)

    async def no_dice(request: Request) -> dict[str, Any]:
        raise HTTPException(404, NO_DICE_GAME)

    routes = _static_routes(skip=DICE_PAGE)
    routes += [Route("/", home, methods=["GET"])] + _tile_routes(tiles, dice=False)
    routes += [Route(r, guarded(no_dice), methods=["GET"]) for r in DICE_PAGE[1:]]
    routes += [Route(f"/api/{kind}", guarded(no_dice), methods=["GET", "POST"])
               for kind in ("state", "revision", "stop", "review", "rollout", "new", *WRITES)]
    return _app(routes, token, allowed_hosts, "the page is /tile (no dice game)")


def _app(routes: list[Route], token: str | None, allowed_hosts: frozenset[str] | None, pages: str) -> Starlette:
    """Starlette over ``routes`` with the one-line JSON errors and the :class:`Guard`."""

    async def http_error(request: Request, exc: Exception) -> Response:
        status = exc.status_code if isinstance(exc, HTTPException) else 500
        words = {404: f"no such page {request.url.path[:100]!r}; {pages}, the API /api/... (docs/serve.md)",
                 405: f"{request.method} is not allowed on {request.url.path[:100]}"}
        return error(status, words.get(status, str(getattr(exc, "detail", "")) or "error"))

    async def crash(request: Request, exc: Exception) -> Response:
        return error(500, f"internal error ({type(exc).__name__})")

    app = Starlette(routes=routes, exception_handlers={HTTPException: http_error, Exception: crash})
    app.add_middleware(Guard, token=token, allowed_hosts=allowed_hosts)
    return app
