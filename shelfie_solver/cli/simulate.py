"""``shelfie-solve simulate``: placeholder until its issue lands."""

from __future__ import annotations

import click


@click.command("simulate")
def simulate_command() -> None:
    """Not implemented yet."""
    raise click.ClickException("'simulate' is not implemented yet")
