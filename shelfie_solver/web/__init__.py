"""The game at the table on a phone: a local web page over the game file ``play`` keeps
(``shelfie-solve serve``, docs/serve.md), and the tile game's page (``/tile``, :mod:`web.tile`).
Above the games, below the CLI (docs/architecture.md)."""

#: The modules of the ``[web]`` extra (pyproject.toml) that ``serve`` imports: Starlette (the app,
#: :mod:`web.app`), uvicorn (the server, :mod:`web.server`) and qrcode (the token's QR code).
#: ``serve`` checks them all before it starts, so a missing one is one line, never a traceback.
EXTRA_MODULES = ("starlette", "uvicorn", "qrcode")
