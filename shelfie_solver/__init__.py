"""shelfie-solve: exact strategy engine for My Shelfie: The Dice Game (rules: RULES.md D1-D20)
and the original My Shelfie tile game (TILE-RULES.md, T1-T26).

Where things live (docs/architecture.md maps every module), in three layers and a command line:

* :mod:`.core` — shared by both games and knowing neither: errors, bounded input readers,
  files written whole, the parallel runner, the disk cache, report output, statistics and
  tournaments of many games.
* :mod:`.dice` — the dice game: rules, boards, the exact engine, games, advice, odds, cheat
  sheets, strategies, the whole-game solver, the ``learned`` objective, ``play``.
* :mod:`.tile` — the tile game: rules, shelves, the game state, the advisor, strategies.
* :mod:`.cli` — the ``shelfie-solve`` command above them (a thin click layer).
"""

__version__ = "0.1.0"
