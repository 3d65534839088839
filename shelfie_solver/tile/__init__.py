"""My Shelfie, the tile game (TILE-RULES.md, T1-T26, T-CG1-T-CG12): a sibling of the dice-game
engine built on the same patterns (rules and boards as data, immutable replayable events, a
click-free core under ``shelfie-solve tile``). Modules: ``rules`` (data and checks), ``shelf``
(groups, scoring, common goals), ``engine`` (state, legal moves, events), ``advise``,
``strategies``, ``simulate``, ``position`` (position files)."""
