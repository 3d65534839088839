"""``shelfie-solve serve``: the game file of ``play`` as a page for a phone at the table
(docs/serve.md; the ``[web]`` extra)."""

from __future__ import annotations

import importlib

import click

from shelfie_solver.cli.options import (WholeNumber, board_option, first_seed_option, load_setup, play_objective_option,
                                        rules_option)


@click.command("serve", short_help="The game file as a page for a phone at the table.")
@click.argument("game", metavar="[GAME]", required=False)
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on: 127.0.0.1 is this machine only; any other (0.0.0.0: every network) "
                   "needs the random token printed in the URL and as a QR code.")
@click.option("--port", type=WholeNumber(0, 65535), default=0, show_default=True,
              help="Port to listen on; 0 picks a free one.")
@play_objective_option
@click.option("--tile", "tile_path", default=None, metavar="FILE.json",
              help="Keep the tile page's (/tile) position in this JSON position file (tile advise reads it): "
                   "read when the page opens, written whole on each Advise. Default: the position lives only "
                   "in the page's URL.")
@board_option
@rules_option
@first_seed_option
def serve_command(game: str | None, host: str, port: int, objective: str, tile_path: str | None, board_path: str | None,
                  rules_path: str | None, seed: int | None) -> None:
    """Serve the game file GAME (made by 'play new') as a web page: tap the dice, get the advice,
    mark items, undo. The page and 'play' can take turns on one game. The URL is the first line
    printed; Ctrl-C or SIGTERM stops it with the file whole (exit 130 or 143).

    If GAME does not exist yet, the page starts with a New game screen (names, who plays first)
    and creates GAME as 'play new' would, with --board, --rules and --seed (used only then).

    The tile game's page is /tile: a position entered by taps, the moves of 'tile advise' ranked,
    each applied with one tap (docs/serve.md). With --tile FILE.json, GAME may be left out: only
    the tile page is served (/ goes to /tile).

    \b
    Examples:
      shelfie-solve serve game.json
      shelfie-solve serve new-game.json --seed 7   (a new game, made on the page)
      shelfie-solve serve game.json --host 0.0.0.0 --port 8000   (a phone on the same network)
      shelfie-solve serve game.json --tile position.json   (the tile page keeps its position there)
      shelfie-solve serve --tile position.json   (the tile page alone, no dice game)
    """
    try:
        from shelfie_solver.web import EXTRA_MODULES

        for module in EXTRA_MODULES:  # imported by serve() only once it starts: checked first
            importlib.import_module(module)
        from shelfie_solver.web.newgame import NewGame
        from shelfie_solver.web.server import serve
        from shelfie_solver.web.tile import TilePage
    except ImportError as error:
        raise click.ClickException(f"serve needs the web extra ({error.name or error} is missing); expected "
                                   "pip install '.[web]' in the clone") from None
    if game is None and tile_path is None:
        raise click.UsageError("missing GAME: the dice game's file (play new GAME), or --tile FILE.json for the "
                               "tile page alone; expected serve GAME [--tile FILE.json] or serve --tile FILE.json")
    if game is None:  # the dice game's options would be ignored without a word: refused instead
        given = [f"--{name.replace('_path', '')}" for name in ("objective", "board_path", "rules_path", "seed")
                 if click.get_current_context().get_parameter_source(name) != click.core.ParameterSource.DEFAULT]
        if given:
            raise click.UsageError(f"{', '.join(given)} set{'s' if len(given) == 1 else ''} the dice game, and there "
                                   "is none without GAME; expected serve GAME [options] --tile FILE.json, or serve "
                                   "--tile FILE.json alone")
    rules, board, _ = load_setup(rules_path, board_path, None)
    new_game = None if game is None else NewGame(game, rules, board, seed)
    stopped_by = serve(game, host, port, objective, click.echo, new_game, TilePage(file=tile_path))
    if stopped_by is not None:  # the shell's convention, as simulate: 130 for Ctrl-C, 143 for SIGTERM
        from shelfie_solver.core.parallel import signal_exit_code

        raise click.exceptions.Exit(signal_exit_code(stopped_by))
