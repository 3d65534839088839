"""A real game of the dice game kept at the table (``shelfie-solve play``, docs/play.md),
click-free: the game file and its actions checked against the rules (``gamefile``), the game
state rebuilt from sheets typed for ``advise --opponent`` (``seats``), what ``play`` shows
(``report``), the dice typed after a re-roll (``reading``) and the typed, interactive session
(``session``). docs/architecture.md places the package."""
