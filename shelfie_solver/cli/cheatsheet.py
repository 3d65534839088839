"""``shelfie-solve cheatsheet``: placeholder until its issue lands."""

from __future__ import annotations

import click


@click.command("cheatsheet")
def cheatsheet_command() -> None:
    """Not implemented yet."""
    raise click.ClickException("'cheatsheet' is not implemented yet")
