"""The shared core of both games, which knows neither game: errors and their one-line messages
(``errors``), bounded input readers (``inputs``), files written whole (``files``), the parallel
runner (``parallel``), the disk cache (``diskcache``), report output in every format
(``report``), exact statistics and tournaments of many games (``stats``, ``tournament``). The
dice game (:mod:`shelfie_solver.dice`) and the tile game (:mod:`shelfie_solver.tile`) build on it;
docs/architecture.md maps the layers."""
