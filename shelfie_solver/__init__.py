"""shelfie-solve: exact strategy engine for My Shelfie: The Dice Game (rules: docs/rules.md,
D1-D20) and the original My Shelfie tile game (docs/tile-rules.md, T1-T26).

Where things live (docs/architecture.md maps every module), in four layers, each importing only
the ones below it (the import-linter contracts in pyproject.toml):

* :mod:`.core` — shared by both games and knowing neither: errors, bounded input readers,
  files written whole, the parallel runner, the disk cache, report output, statistics and
  tournaments of many games.
* :mod:`.dice` — the dice game: rules, boards, the exact engine, games, advice, odds, cheat
  sheets, strategies, the whole-game solver, the ``learned`` objective, ``play``.
* :mod:`.tile` — the tile game: rules, shelves, the game state, the advisor, strategies; the
  dice game's sibling in one layer (neither imports the other).
* :mod:`.web` — the page ``shelfie-solve serve`` serves (the game at the table on a phone,
  and the tile game's page), above the games.
* :mod:`.cli` — the ``shelfie-solve`` command above them all (a thin click layer, the only
  one that imports click).
"""

__version__ = "0.1.0"
