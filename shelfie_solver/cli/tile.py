"""``shelfie-solve tile``: the tile game (TILE-RULES.md): ``score``, ``advise`` and ``simulate``
(docs/tile.md)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import click

from shelfie_solver.core.errors import shorten
from shelfie_solver.tile.errors import TileError
from shelfie_solver.core.files import FileWriteError, replace_checked
from shelfie_solver.core.report import TABLE_WIDTH, Report, exact, render, wrap_lines
from shelfie_solver.core.tournament import MAX_GAMES
from shelfie_solver.tile.advise import PARTS, RankedMove
from shelfie_solver.tile.advice_json import advise, parse_move
from shelfie_solver.tile.advice_json import move_record as _move_record
from shelfie_solver.tile.denial import EXACT_REFILL_BOARDS
from shelfie_solver.tile.gains import QUARTER
from shelfie_solver.tile.state import Move, board_cell_name, check_move
from shelfie_solver.tile.position import load_position
from shelfie_solver.tile.rules import (TYPE_NAMES, TYPES, PersonalCard, load_cards, load_layout, load_ruleset,
                          read_shelf, shelf_cell_name, shelf_text)
from shelfie_solver.tile.shelf import COMMON_GOALS, goal_text, parse_goal, score_shelf
from shelfie_solver.tile.strategies import TILE_STRATEGIES, parse_tile_players
from shelfie_solver.cli.options import (F, force_option, format_option, games_option, jobs_option, prepare_run,
                                        save_option, scheduler_option, seed_option)

if TYPE_CHECKING:
    from shelfie_solver.core.stats import Summary

_FILE = click.Path(exists=True, dir_okay=False, readable=True)
#: Width of ``tile score``'s detail cells in the table: 80 columns less the part ("end token")
#: and points columns and the gaps between them.
_SCORE_DETAIL_WIDTH = TABLE_WIDTH - len("end token") - len("points") - 2 * 2


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


@tile_group.command("score", short_help="Exact score of a tile-game shelf.")
@click.argument("shelf_text_arg", metavar="SHELF")
@click.option("--personal", default=None, metavar="NAME",
              help="Personal goal card by name, 1-12 (T20, T21; pictured in docs/tile.md); the output says what it "
                   "asks for and which cells match.")
@click.option("--goals", "goals_text", default=None, metavar="GOALS",
              help="Common goals to check, by T-CG id or name, e.g. 3,9 or 'four corners,staircase' "
                   "(default: all 12).")
@click.option("--tokens", type=click.IntRange(0, 16), default=0, show_default=True,
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
    rules = load_ruleset(rules_path)
    shelf = read_shelf(shelf_text_arg)
    card = _card_named(load_cards(cards_path), personal) if personal is not None else None
    goals = _parse_goals(goals_text)
    breakdown = score_shelf(shelf, rules, card, tokens, 1 if end_token else 0)
    rows: list[list[Any]] = [["group", f"{TYPE_NAMES[t]} x {size}", points] for t, size, points in breakdown.groups]
    matching = [] if card is None else [cell for t, cell in enumerate(card.cells) if shelf[cell] == t]
    if card is not None:
        named = ", ".join(f"{TYPE_NAMES[shelf[c]]} {shelf_cell_name(c)}" for c in matching)
        detail = f"card {card.name}: {breakdown.personal_matches} of 6 cells match" + (f" ({named})" if named else "")
        if fmt == "table":  # at 80 columns: the cells named on lines of their own, within the detail column
            detail = "\n".join(wrap_lines([detail], _SCORE_DETAIL_WIDTH))
        rows.append(["personal", detail, breakdown.personal])
    rows += [["tokens", "common goal tokens", tokens]] if tokens else []
    rows += [["end token", "filled first (T23)", 1]] if end_token else []
    rows.append(["total", "T25", breakdown.total])
    met = [g for g in goals if g in breakdown.goals_met]
    title = [shelf_text(shelf, " / "),
             f"Score {breakdown.total}: groups {breakdown.adjacency}, personal {breakdown.personal}, "
             f"tokens {tokens}, end token {1 if end_token else 0}",
             "Common goals met: " + (", ".join(goal_text(g) for g in met) or "none")
             + f" (of {len(goals)} checked)"]
    if card is not None:
        title.append(f"Personal card {card.name} asks for: {card.words()} (row 1 at the top, column 1 on the left)")
    data = {"shelf": shelf_text(shelf, "/"), "total": breakdown.total, "adjacency": breakdown.adjacency,
            "groups": [{"type": TYPES[t], "size": s, "points": p} for t, s, p in breakdown.groups],
            "personal": {"card": card.name, "matches": breakdown.personal_matches, "points": breakdown.personal,
                         "matching_cells": [shelf_cell_name(c) for c in matching],
                         "asks": {TYPE_NAMES[t]: shelf_cell_name(c) for t, c in enumerate(card.cells)}}
            if card else None,
            "tokens": tokens, "end_token": 1 if end_token else 0,
            "goals": {f"T-CG{g}": g in breakdown.goals_met for g in goals}}
    click.echo(render(Report(title, ["part", "detail", "points"], rows, data), fmt, width=TABLE_WIDTH), nl=False)


# --- advise -----------------------------------------------------------------------------------


def _explain(r: RankedMove, board: tuple[int, ...]) -> str:
    gains = ", ".join(f"{name} {float(v):+.2f}" for name, v in r.parts.items() if v)
    extra = [f"scores T-CG{g}" for g in r.goals] + (["takes the end token"] if r.end else []) \
        + ([_refill_text(r)] if r.refill else [])
    return f"{_move_text(r.move, board)}: value {float(r.value):+.2f} ({gains or 'no change'})" + \
        (f"; {', '.join(extra)}" if extra else "")


def _refill_text(r: RankedMove) -> str:
    if r.outlook is None:
        return "triggers a refill (T16)"
    o = r.outlook
    how = f"exact over all {o.samples} boards it can draw" if o.exact else \
        f"{o.samples} sampled boards, 95% [{o.low / QUARTER:.2f}, {o.high / QUARTER:.2f}]"
    return f"triggers a refill (T16): next player's expected best gain {float(o.mean / QUARTER):.2f} ({how})"


def _refill_cell(r: RankedMove) -> str:
    """The table's refill column: how the denial term of a refill (T16) was computed."""
    if not r.refill:
        return ""
    if r.outlook is None:
        return "ignored"
    return "exact" if r.outlook.exact else f"{r.outlook.samples} samples"


def _rank_words(rank: int, ranks: list[int]) -> str:
    """``28`` or, for an exact tie, ``28 (tied with 4 others)`` (as ``advise`` marks ties)."""
    others = ranks.count(rank) - 1
    return f"{rank} (tied with {others} other{'s' if others != 1 else ''})" if others else str(rank)


def _move_text(move: Move, board: tuple[int, ...]) -> str:
    return (f"take {' '.join(board_cell_name(c) for c in move.cells)}, column {move.column + 1}, "
            f"bottom to top {''.join(TYPES[t] for t in move.types(board))}")


@tile_group.command("advise", short_help="Rank every legal move of a tile-game position.")
@click.argument("position_path", metavar="POSITION", type=_FILE)
@click.option("--top", type=click.IntRange(1, None), default=10, show_default=True,
              help="Moves to show in table and markdown output (JSON and CSV list all; JSON's legal_moves counts them).")
@click.option("--samples", type=click.IntRange(0, 10_000), default=40, show_default=True,
              help="Boards drawn to estimate what a refill (T16) gives the next player; 0: ignore refills.")
@click.option("--seed", type=click.IntRange(0, None), default=0, show_default=True, metavar="S",
              help="Seed of the refill samples (fixed by default, so the same position gives the same advice).")
@click.option("--exact-boards", type=click.IntRange(0, 20_000), default=EXACT_REFILL_BOARDS, show_default=True,
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
    board = state.board
    ranks = [r.rank for r in ranked]
    rows = [[f"{r.rank}=" if ranks.count(r.rank) > 1 else r.rank, " ".join(board_cell_name(c) for c in r.move.cells),
             r.move.column + 1, "".join(TYPES[t] for t in r.move.types(board)), f"{float(r.value):+.2f}"]
            + [f"{float(r.parts[p]):+.2f}" for p in PARTS] + [_refill_cell(r)] for r in ranked[:top]]
    card = setup.card(state.turn)
    title = [f"Seat {state.turn + 1} to move ({setup.players} players); {len(ranked)} legal moves (T10-T14)",
             f"Personal card {card.name if card else '?'}" + (f": {card.words()}" if card else ""),
             f"Common goals: {', '.join(goal_text(g) for g in setup.goals)}"]
    title += [f"Best: {_explain(ranked[0], board)}"] if ranked else []
    if len(ranked) > 1:  # one move is played: the next best are other choices, not what follows
        title.append("Alternatives to the best move (instead of it, not after it):")
        title += [f"  rank {_rank_words(r.rank, ranks)}: {_explain(r, board)}" for r in ranked[1:3]]
    data: dict[str, Any] = {k: v for k, v in advice.items() if k not in ("legal_moves", "moves")}
    if mine is not None:  # the same state as a listed move: same cells, column and types in order (T14)
        key = (frozenset(mine.cells), mine.column, mine.types(board))
        rated = next(r for r in ranked if (frozenset(r.move.cells), r.move.column, r.move.types(board)) == key)
        title.append(f"Your move, rank {_rank_words(rated.rank, ranks)} of {len(ranked)}: {_explain(rated, board)}")
        data["move"] = {**_move_record(rated, board), "tied_with": ranks.count(rated.rank) - 1}
    notes = ["Board cells are r<row>c<column>, 1-9 from the top left; shelf columns 1-5 from the left; "
             "order bottom to top.",
             "value = immediate (score change now, T25) + groups + personal (potential) + tempo + denial + race "
             "(docs/tile.md); exact values in JSON."]
    moves = advice["moves"]  # JSON and CSV list all, as advise and odds do
    data["legal_moves"], data["moves"] = len(ranked), moves
    # At 80 columns: the moves with their value, then the value's parts (in two tables when wide
    # values need it), each led by rank, take and column.
    split = [["rank", "take", "column"], ["order", "value", "refill"], list(PARTS[:3]), list(PARTS[3:])]
    click.echo(render(Report(title, ["rank", "take", "column", "order", "value", *PARTS, "refill"], rows, data, notes,
                             records=moves, split=split), fmt, width=TABLE_WIDTH), nl=False)


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
    if sys.stderr.isatty():
        with click.progressbar(length=games, label="Playing", file=sys.stderr, show_pos=True) as bar:
            summary, lines = simulate_tile(rules, layout, cards, players, games, seed, workers, save_path is not None,
                                           progress=bar.update, scheduler=scheduler)
    else:
        summary, lines = simulate_tile(rules, layout, cards, players, games, seed, workers, save_path is not None,
                                       scheduler=scheduler)
    if save_path is not None:
        try:
            replace_checked({save_path: ("".join(f"{line}\n" for line in lines).encode(), TILE_SAVED_GAMES_KIND)},
                            force)
        except FileWriteError as error:
            raise click.BadParameter(str(error), param_hint="'--save'") from None
    click.echo(render(_summary_report(summary, layout.name, save_path), fmt, width=TABLE_WIDTH), nl=False)


def _summary_report(summary: Summary, layout_name: str, saved: str | None) -> Report:
    """One column per seat, one row per statistic (:data:`TILE_STATISTICS`), 95% intervals; at a
    width, a table too wide for it is split into tables of as many seats as fit."""
    from shelfie_solver.tile.simulate import TILE_STATISTICS
    from shelfie_solver.cli.estimates import estimate_data, interval_text, seat_label

    seats = summary.seats
    title = [f"{summary.games} tile game{'s' if summary.games != 1 else ''} of {', '.join(summary.players)} "
             f"on layout {layout_name!r}, seed {summary.seed}",
             f"Game length: {interval_text(summary.rounds)} rounds (95% interval)",
             f"Leader: {seat_label(summary, summary.leader)}, "
             f"win rate {interval_text(seats[summary.leader].stats['win'], as_percent=True)}"]
    for m in summary.margins:
        title.append(f"{seat_label(summary, m.leader)} vs {seat_label(summary, m.other)}: score "
                     f"{float(m.score.mean):+.2f} [{m.score.low:+.2f}, {m.score.high:+.2f}] per game")
    rows = [[label] + [interval_text(s.stats[key], as_percent=key == "win") for s in seats] for key, label in TILE_STATISTICS]
    data: dict[str, Any] = {"games": summary.games, "players": list(summary.players), "seed": summary.seed,
                            "layout": layout_name, "rounds": estimate_data(summary.rounds), "leader": summary.leader + 1,
                            "seats": [{"seat": s.seat + 1, "strategy": s.strategy,
                                       **{key: estimate_data(s.stats[key]) for key, _ in TILE_STATISTICS}}
                                      for s in seats]}
    notes = ["[low, high]: 95% interval over games. T26 names one winner per game; the first player is drawn "
             "at random each game (T9)."]
    if saved:
        notes.append(f"Games saved to {saved} (JSON Lines, replayable).")
    records = [{"seat": s.seat + 1, "strategy": s.strategy, "statistic": key, "mean": exact(e.mean),
                "mean_float": float(e.mean), "ci_low": e.low, "ci_high": e.high, "sd": e.sd, "games": e.n}
               for s in seats for key, _ in TILE_STATISTICS for e in [s.stats[key]]]
    headers = ["statistic"] + [seat_label(summary, s.seat) for s in seats]
    return Report(title, headers, rows, data, notes, records=records,
                  split=[headers[:1], *([h] for h in headers[1:])])  # at 80 columns: as many seats a table as fit
