"""The game at the table on a phone: a local web page over the game file ``play`` keeps
(``shelfie-solve serve``, docs/serve.md), and the tile game's page (``/tile``, :mod:`web.tile`).
Above the games, below the CLI (docs/architecture.md)."""
