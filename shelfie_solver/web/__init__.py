"""The game at the table on a phone: a local web page over the game file ``play`` keeps
(``shelfie-solve serve``, docs/serve.md). Above the games, below the CLI (docs/architecture.md)."""
