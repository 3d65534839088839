"""Data files shipped inside the package: the default board (our own design)."""
