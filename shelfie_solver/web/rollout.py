"""``GET /api/rollout`` of the dice page (docs/serve.md, docs/rollout.md), framework-free: a small
rollout of the game file's current position, as ``shelfie-solve rollout GAME --format json``
gives it, with the revision it was made on (the page shows it only while the game is there)."""

from __future__ import annotations

from typing import Any

from shelfie_solver.core.errors import ShelfieError

#: Games of the page's rollout unless the request says otherwise, and the most it may ask for
#: (one thread of the server plays them; the command line has --jobs for more).
PAGE_GAMES, MOST_PAGE_GAMES = 200, 2000
#: Choices of the advice rolled out beside the position unless the request says otherwise.
PAGE_TOP, MOST_PAGE_TOP = 0, 5


class RolloutRequestError(ShelfieError):
    """A bad ``games`` or ``top`` in the query of ``GET /api/rollout``."""


def _whole(text: str | None, name: str, default: int, low: int, high: int) -> int:
    """A whole number ``low .. high`` from the query, ``default`` when absent.

    Raises:
        RolloutRequestError: not such a number (the message names the field and the range).
    """
    if text is None:
        return default
    if not (text.isascii() and text.isdecimal() and len(text) <= 6 and low <= int(text) <= high):
        raise RolloutRequestError(f"{name} must be a whole number from {low} to {high:,}, got {text[:20]!r}")
    return int(text)


def page_policy(objective: str) -> str:
    """The strategy of every seat for the page's objective: the objective itself when it is also a
    strategy (``win``, ``win-model``, ``learned``, ``learned:FILE``), else ``win``."""
    word = objective.strip().lower()
    return objective.strip() if word in ("win", "win-model", "learned") or word.startswith("learned:") else "win"


def rollout_answer(path: str, objective: str, games_text: str | None, top_text: str | None) -> dict[str, Any]:
    """The JSON of a rollout of the game file ``path``'s position: the ``rollout --format json``
    keys (``position.seats[].win_chance_float``, ``ci95``, ``choices``), ``revision`` and
    ``digest`` of the game it was made on; for the page, every seat's figures as the command's
    table prints them (``position.seats[].shown``: every seat's rounded to add up to 100%;
    ``ci95_shown``: ``[0%, 1.9%]``, :func:`rollout.report.span_cell`) and ``note`` where a seat won none or all of the games. One worker, a fresh 32-bit seed (reported as ``seed``:
    ``rollout GAME --seed S`` repeats it).

    Raises:
        RolloutRequestError: a bad ``games`` or ``top``. KeptGameError, RolloutError: the file is
            not a game, the game is over or has one player (one line, as the command).
    """
    from shelfie_solver.dice.play.gamefile import read_kept_game
    from shelfie_solver.dice.advise.words import chance_cells
    from shelfie_solver.dice.rollout.report import none_or_all_note, rollout_report, span_cell
    from shelfie_solver.core.tournament import fresh_seed
    from shelfie_solver.dice.rollout.run import check_rollout, rollout, seat_policies
    from shelfie_solver.dice.play.gamefile import digest_of

    games = _whole(games_text, "games", PAGE_GAMES, 1, MOST_PAGE_GAMES)
    top = _whole(top_text, "top", PAGE_TOP, 0, MOST_PAGE_TOP)
    kept = read_kept_game(path)
    check_rollout(kept, games)
    policies = seat_policies(page_policy(objective), len(kept.players))
    result = rollout(kept, policies, games, fresh_seed(), top)  # 32 bits: shown whole on the page
    data = rollout_report(kept, result, path).data
    texts = chance_cells([seat.mean for seat in result.position])  # the table's figures: they add up to 100%
    for record, text, seat in zip(data["position"]["seats"], texts, result.position):
        record.update({"shown": text, "ci95_shown": span_cell(seat)})
    note = none_or_all_note([texts], result.games)
    return {"revision": len(kept.events), "digest": digest_of(kept), **data, **({"note": note} if note else {})}
