"""My Shelfie: The Dice Game (RULES.md, D1-D20), click-free, on the shared core: the rules and
boards as data (``rules``, ``board``, ``rolls``, ``joker``, ``sheet_rules``), the allocator and
objectives, the exact engine (``engine``), full games (``game``), the advice for one turn
(``advise``), odds, cheat sheets, strategies, tournaments and reviews, the whole-game solver
(``wholegame``), the ``learned`` objective (``learned``) and a real game at the table (``play``).
docs/architecture.md maps every module."""
