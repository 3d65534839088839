"""``shelfie-solve odds``: placeholder until its issue lands."""

from __future__ import annotations

import click


@click.command("odds")
def odds_command() -> None:
    """Not implemented yet."""
    raise click.ClickException("'odds' is not implemented yet")
