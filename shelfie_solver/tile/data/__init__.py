"""Data files of the tile game shipped inside the package: our own living-room layout (T3), our
own 12 personal goal cards (T20) and the default ruleset with its assumption flags."""
