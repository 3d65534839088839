"""The game-aware ``learned`` objective of the dice game (docs/train.md): the value function,
its features, parameters and files (``objective``), and its fit by self-play or to exact value
tables (``train``, ``shelfie-solve train``). docs/architecture.md places the package."""
