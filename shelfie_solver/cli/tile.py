"""``shelfie-solve tile``: the tile game (TILE-RULES.md): ``score``, ``advise`` and ``simulate``
(docs/tile.md)."""

from __future__ import annotations


import click

from shelfie_solver.cli.options import WholeNumber

from shelfie_solver.core.errors import shorten
from shelfie_solver.tile.errors import TileError
from shelfie_solver.core.files import FileWriteError, replace_checked
from shelfie_solver.core.progress import progress_bar
from shelfie_solver.core.report import TABLE_WIDTH, render
from shelfie_solver.core.tournament import MAX_GAMES
from shelfie_solver.tile.advice_json import advise, parse_move
from shelfie_solver.tile.denial import EXACT_REFILL_BOARDS
from shelfie_solver.tile.state import check_move
from shelfie_solver.tile.position import load_position
from shelfie_solver.tile.report import advise_report, score_report, summary_report
from shelfie_solver.tile.rules import PersonalCard, load_cards, load_layout, load_ruleset, read_shelf
from shelfie_solver.tile.shelf import COMMON_GOALS, parse_goal, score_shelf
from shelfie_solver.tile.strategies import TILE_STRATEGIES, parse_tile_players
from shelfie_solver.cli.options import (F, force_option, format_option, games_option, jobs_option, prepare_run,
                                        save_option, scheduler_option, seed_option)

_FILE = click.Path(exists=True, dir_okay=False, readable=True)


def _data_options(func: F) -> F:
    """``--tile-rules``, ``--layout`` and ``--cards``: the tile game's data files."""
    func = click.option("--cards", "cards_path", type=_FILE, default=None, metavar="FILE",
                        help="The 12 personal goal cards, TOML (T20). Default: our own.")(func)
    func = click.option("--layout", "layout_path", type=_FILE, default=None, metavar="FILE",
                        help="Living-room layout, TOML (T3). Default: our own.")(func)
    return click.option("--tile-rules", "rules_path", type=_FILE, default=None, metavar="FILE",
                        help="Tile ruleset TOML: the assumption flags (refill, squares...). "
                             "Default: the choices of docs/tile-rules.md.")(func)


@click.group("tile", short_help="The original My Shelfie tile game: score, advise, simulate.")
def tile_group() -> None:
    """The original My Shelfie tile game (docs/tile-rules.md, T1-T26): exact scores, a move advisor
    and tournaments. Shelves: 6 lines of 5 letters, top row first, C cat, B book, G game,
    F frame, T trophy, P plant, '.' empty; lines separated by '/' or newlines.
    """


# --- score ------------------------------------------------------------------------------------


def _card_named(cards: tuple[PersonalCard, ...], name: str) -> PersonalCard:
    for card in cards:
        if card.name == name:
            return card
    raise TileError(f"no personal card named {shorten(name)}; expected one of {', '.join(c.name for c in cards)} (T20)")


def _parse_goals(text: str | None) -> tuple[int, ...]:
    """``--goals``: common goals by id or name (:func:`shelf.parse_goal`) separated by commas."""
    if text is None:
        return tuple(COMMON_GOALS)
    try:
        goals = tuple(dict.fromkeys(parse_goal(part.strip()) for part in text.split(",")))
    except TileError as error:
        raise TileError(f"bad --goals {shorten(text)}: {error}; separate them with commas, e.g. 3,'four corners'"
                        ) from None
    return goals


def _refuse_unread_files(layout_path: str | None, cards_path: str | None, personal: str | None) -> None:
    """``tile score`` reads no living-room layout, and the cards only for ``--personal``: a file
    named there would be ignored without a word (``--layout /etc/passwd`` exited 0), so it is
    refused.

    Raises:
        click.UsageError: ``--layout`` given, or ``--cards`` without ``--personal`` (one line).
    """
    if layout_path is not None:
        raise click.UsageError("--layout is not read by tile score: a shelf's score does not depend on the "
                               "living-room layout (T3, T22-T25); drop --layout")
    if cards_path is not None and personal is None:
        raise click.UsageError("--cards is read only with --personal (the card it names is scored, T21); add "
                               "--personal NAME or drop --cards")


@tile_group.command("score", short_help="Exact score of a tile-game shelf.")
@click.argument("shelf_text_arg", metavar="SHELF")
@click.option("--personal", default=None, metavar="NAME",
              help="Personal goal card by name, 1-12 (T20, T21; pictured in docs/tile.md); the output says what it "
                   "asks for and which cells match.")
@click.option("--goals", "goals_text", default=None, metavar="GOALS",
              help="Common goals to check, by T-CG id or name, e.g. 3,9 or 'four corners,staircase' "
                   "(default: all 12).")
@click.option("--tokens", type=WholeNumber(0, 16), default=0, show_default=True,
              help="Common-goal token points already taken (T18).")
@click.option("--end-token", is_flag=True, help="Count the end-game token (+1, T23).")
@_data_options
@format_option
def score_command(shelf_text_arg: str, personal: str | None, goals_text: str | None, tokens: int, end_token: bool,
                  rules_path: str | None, layout_path: str | None, cards_path: str | None, fmt: str) -> None:
    """Score a shelf exactly: groups (T22), personal goal (T21), common goals met (T-CG), total (T25).

    SHELF is the shelf as text (6 lines of 5, '/'-separated) or a file holding it.

    \b
    Examples:
      shelfie-solve tile score PPTTP/PPTTF/GGBBF/GCCBB/GCCFF/PGBFP --personal 4
      shelfie-solve tile score myshelf.txt --goals 3,9 --format json
    """
    _refuse_unread_files(layout_path, cards_path, personal)
    rules = load_ruleset(rules_path)
    shelf = read_shelf(shelf_text_arg)
    card = _card_named(load_cards(cards_path), personal) if personal is not None else None
    goals = _parse_goals(goals_text)
    breakdown = score_shelf(shelf, rules, card, tokens, 1 if end_token else 0)
    report = score_report(shelf, breakdown, card, goals, narrow=fmt == "table")
    click.echo(render(report, fmt, width=TABLE_WIDTH), nl=False)


# --- advise -----------------------------------------------------------------------------------


@tile_group.command("advise", short_help="Rank every legal move of a tile-game position.")
@click.argument("position_path", metavar="POSITION", type=_FILE)
@click.option("--top", type=WholeNumber(1, None), default=10, show_default=True,
              help="Moves to show in table and markdown output (JSON and CSV list all; JSON's legal_moves counts them).")
@click.option("--samples", type=WholeNumber(0, 10_000), default=40, show_default=True,
              help="Boards drawn to estimate what a refill (T16) gives the next player; 0: ignore refills.")
@click.option("--seed", type=WholeNumber(0, None), default=0, show_default=True, metavar="S",
              help="Seed of the refill samples (fixed by default, so the same position gives the same advice).")
@click.option("--exact-boards", type=WholeNumber(0, 20_000), default=EXACT_REFILL_BOARDS, show_default=True,
              metavar="N", help="A refill that can draw at most N distinct boards is averaged exactly over all "
                                "of them instead of sampled.")
@click.option("--move", "move_text", default=None, metavar="CELLS@COLUMN",
              help="Also rate this move: board cells r<row>c<column> (1-9 from the top left) in placement "
                   "order (bottom first) joined by '+', then '@' and the shelf column 1-5, e.g. r5c2+r5c1@4.")
@_data_options
@format_option
def advise_command(position_path: str, top: int, samples: int, seed: int, exact_boards: int, move_text: str | None,
                   rules_path: str | None, layout_path: str | None, cards_path: str | None, fmt: str) -> None:
    """Rank every legal move (T10-T14) of the active player in a position file (TOML or JSON,
    docs/tile.md; example examples/tile/position.toml) by the advisor's evaluation.

    \b
    Examples:
      shelfie-solve tile advise examples/tile/position.toml --top 5
      shelfie-solve tile advise examples/tile/position.toml --move r5c2+r5c1@4
    """
    position = load_position(position_path, load_ruleset(rules_path), load_layout(layout_path), load_cards(cards_path))
    setup, state = position.setup, position.state
    mine = parse_move(move_text) if move_text is not None else None
    if mine is not None:
        check_move(state, mine)
    ranked, advice = advise(setup, state, samples, seed, exact_boards)  # the JSON serve's tile page gives too
    click.echo(render(advise_report(setup, state, ranked, advice, top, mine), fmt, width=TABLE_WIDTH), nl=False)


# --- simulate ---------------------------------------------------------------------------------


@tile_group.command("simulate", short_help="Play many tile games to compare strategies.")
@click.option("--players", "players_text", required=True, metavar="S1,S2,...",
              help=f"One strategy per seat, 2 to 4: {', '.join(TILE_STRATEGIES)}.")
@games_option(200, MAX_GAMES)
@seed_option
@jobs_option
@scheduler_option
@save_option
@_data_options
@format_option
@force_option
def simulate_command(players_text: str, games: int, seed: int | None, jobs: int | None, scheduler: str | None,
                     save_path: str | None,
                     rules_path: str | None, layout_path: str | None, cards_path: str | None, fmt: str,
                     force: bool) -> None:
    """Play many tile games between strategies (advisor, greedy, random): win rates and scores
    with 95% intervals.

    \b
    Example:
      shelfie-solve tile simulate --players advisor,greedy --games 200 --seed 1
    """
    from shelfie_solver.tile.simulate import simulate_tile  # imported here, with the simulation statistics: advise starts faster

    rules, layout, cards = load_ruleset(rules_path), load_layout(layout_path), load_cards(cards_path)
    players = parse_tile_players(players_text)
    from shelfie_solver.tile.game import TILE_SAVED_GAMES_KIND

    seed, workers = prepare_run(save_path, seed, jobs, scheduler, inputs=[rules_path, layout_path, cards_path],
                                kinds=TILE_SAVED_GAMES_KIND, force=force)
    with progress_bar("Playing", games) as bar:  # a bar for people, nothing for pipes and tests
        summary, lines = simulate_tile(rules, layout, cards, players, games, seed, workers, save_path is not None,
                                       progress=bar.advance if bar else None, scheduler=scheduler)
    if save_path is not None:
        try:
            replace_checked({save_path: ("".join(f"{line}\n" for line in lines).encode(), TILE_SAVED_GAMES_KIND)},
                            force)
        except FileWriteError as error:
            raise click.BadParameter(str(error), param_hint="'--save'") from None
    click.echo(render(summary_report(summary, layout.name, save_path), fmt, width=TABLE_WIDTH), nl=False)
