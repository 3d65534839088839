"""My Shelfie, the tile game (TILE-RULES.md, T1-T26, T-CG1-T-CG12): a sibling of the dice game
built on the same patterns (rules and boards as data, immutable replayable events, a click-free
core under ``shelfie-solve tile``) and on the shared ``core``. Modules: ``rules`` (data and
checks), ``shelf`` (groups, scoring, common goals), ``state`` (the setup, positions, legal moves,
events), ``game`` (playing, saving and replaying games), ``position`` (position files); the
advisor: ``goalreach``, ``gains`` and ``placements`` (a seat's placements and their terms),
``race`` (the common-goal race), ``refill`` (a refill's distribution), ``denial`` (the next
player's best gain), ``advise`` (the ranking); ``strategies``, ``simulate``."""
