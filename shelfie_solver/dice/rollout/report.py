"""The report of ``shelfie-solve rollout`` (docs/rollout.md) as a :class:`core.report.Report`:
a table of the position and each rolled-out choice, every seat's chance to win with its 95%
interval, and the JSON of the same (``win_chance`` exact, ``win_chance_float``, ``ci95`` per seat).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from shelfie_solver.core.report import Report, and_list, exact, interval, signed
from shelfie_solver.core.stats import Estimate
from shelfie_solver.dice.advise.words import chance_cell, chance_cells
from shelfie_solver.dice.play.gamefile import KeptGame
from shelfie_solver.dice.play.report import whose_turn
from shelfie_solver.dice.rollout.run import RolloutResult
from shelfie_solver.dice.strategies import STRATEGIES


def _interval(value: Estimate) -> list[float | None]:
    """The 95% interval as two floats (None where there is none: one game, a t interval)."""
    return [None if math.isnan(x) else x for x in (value.low, value.high)]


def seat_records(seats: tuple[Estimate, ...], names: tuple[str, ...]) -> list[dict[str, Any]]:
    """Every seat's chance as JSON: seat (1-based), player, ``win_chance`` ("p/q"),
    ``win_chance_float`` and ``ci95`` ([low, high], Wilson)."""
    return [{"seat": s + 1, "player": names[s], "win_chance": exact(e.mean), "win_chance_float": float(e.mean),
             "ci95": _interval(e)} for s, e in enumerate(seats)]


def span_cell(value: Estimate) -> str:
    """A 95% interval for the table: ``[30.1%, 40.9%]`` (:func:`core.report.interval`), each end
    as the tables print a chance (:func:`advise.words.chance_cell`: ``[0%, 0.4%]`` for none won,
    ``[99.6%, 100%]`` for all won, ``<0.1%`` for a positive end that rounds to 0)."""
    if math.isnan(value.low):  # no interval (core/stats.Estimate)
        return ""
    return interval(value.low, value.high, lambda x: chance_cell(Fraction(x)))


def _points(x: float) -> str:
    """Percentage points with a sign, one decimal (:func:`core.report.signed`)."""
    return signed(x, 1)


def _difference(value: Estimate | None) -> str:
    """``versus_best`` (best minus this) as this minus best in percentage points with its
    interval (:func:`core.report.interval`), ``best`` for the best choice."""
    if value is None:
        return "best"
    if value.n < 2:
        return _points(-float(value.mean) * 100)
    if value.unanimous:  # the same on every game's dice: no t interval (core/stats.Estimate), said in its place
        return f"{_points(-float(value.mean) * 100)} [every game]"
    return f"{_points(-float(value.mean) * 100)} {interval(-value.high, -value.low, lambda x: _points(x * 100))}"


#: The strategies a ``simulate --save`` game names its seats by: the registry's names, and
#: ``learned:FILE``, ``exact:FILE`` and ``exact2:FILE`` by the part before the colon.
_STRATEGY_WORDS = frozenset((*STRATEGIES, "exact", "exact2"))


def seat_titles(names: tuple[str, ...], policies: tuple[str, ...]) -> tuple[str, ...]:
    """Every seat's column title: the player's name, or ``seat N: POLICY`` where the game's names
    are the strategies of a ``simulate --save`` game (they repeat, or each is a strategy's name):
    those name what played the simulation, not the strategy playing the seat in this rollout
    (``POLICY``), and repeated they tell no column apart (every column "learned")."""
    strategies = all(name.split(":", 1)[0].lower() in _STRATEGY_WORDS for name in names)
    if len(set(names)) == len(names) and not strategies:
        return names
    return tuple(f"seat {seat + 1}: {policy}" for seat, policy in enumerate(policies))


def _row(head: Any, label: str, advice: str, seats: tuple[Estimate, ...], mover: int, versus: str) -> list[Any]:
    """One row: the mover's chance and interval, then every other seat's chance, the chances as
    the tables print them and rounded together to add up to 100% (:func:`advise.words.chance_cells`)."""
    texts = chance_cells([e.mean for e in seats])
    others = [text for s, text in enumerate(texts) if s != mover]
    return [head, label, advice, texts[mover], span_cell(seats[mover]), *others, versus]


def none_or_all_note(rows: list[list[Any]], games: int) -> str | None:
    """The note of a seat shown winning none (``0%``) or all (``100%``) of the games played: an
    estimate, not a certainty (docs/rollout.md, "Figures"); ``None`` where no such figure shows."""
    cells = {cell for row in rows for cell in row}
    if not cells & {"0%", "100%"}:
        return None
    played = f"{games:,} game{'' if games == 1 else 's'} played"
    return f"0% and 100%: won none or all of the {played}: an estimate, not a certainty (see the 95% interval)."


def rollout_report(kept: KeptGame, result: RolloutResult, source: str) -> Report:
    """The report of a rollout of the game in ``source`` (its file name, for the title)."""
    names = seat_titles(kept.players, tuple(result.policies))  # the columns' titles and the notes' names
    mover = result.mover
    games = f"{result.games:,} game{'' if result.games == 1 else 's'} (seed {result.seed})"
    if len(set(result.policies)) == 1:
        policy = f"policy {result.policies[0]} in every seat"
    elif names != kept.players:  # the titles name each seat's policy already
        policy = "policies " + ", ".join(result.policies) + " by seat"
    else:
        policy = "policies " + ", ".join(f"{n} {p}" for n, p in zip(names, result.policies))
    if result.win_model is not None:  # --win-model FILE: the chance to win by that file, not the shipped one
        policy += f", win model {result.win_model}"
    title = [f"Rollout of {source}: {whose_turn(kept)}", f"{games}, {policy}."]
    others = [n for s, n in enumerate(names) if s != mover]
    alike = list(result.alike)
    # rank: the choices' order by the played-out chance (blank on the position's row), as advise's tables
    headers = ["rank", "choice", "advice", names[mover], "95%", *others, "vs best"]
    rows: list[list[Any]] = [_row("", "position", "", result.position, mover, "")]
    for rank, choice in enumerate(result.choices, 1):
        advice = chance_cell(choice.root.advice) if choice.root.advice is not None else ""
        rows.append(_row(rank, choice.root.label, advice, choice.seats, mover, _difference(choice.versus_best)))
    data: dict[str, Any] = {
        "game": source, "games": result.games, "games_asked": result.asked, "seed": result.seed,
        "settled_early": result.settled, "policies": list(result.policies),
        **({"win_model": result.win_model} if result.win_model is not None else {}), "mover": mover + 1,
        "player": kept.players[mover],
        "position": {"seats": seat_records(result.position, kept.players)},
        "choices": [_choice_record(c, kept.players) for c in result.choices],
        "alike_in_every_game": [[result.choices[i].root.label for i in group] for group in alike],
    }
    # names as they are, never with "'s" ("me's interval" for a player named me): "for <name>"
    notes = [f"Every seat's chance to win (ties shared, D20) over the games played from here; 95%: "
             f"the 95% interval for {names[mover]} (Wilson; every seat's: --format json). vs best: this choice's chance "
             f"minus the best one's for {names[mover]}, in percentage points, paired on the same dice (Student t 95%). "
             "position: as the policy plays; advice: the advice's own chance of the choice."]
    if len(result.choices) > 1:
        notes.append(f"The rows 1, 2, ... are ordered by the played-out chance of {names[mover]}, best first, not by "
                     "the advice (the advice column keeps its own figures).")
    if result.settled:
        notes.append(f"Stopped after {result.games:,} of {result.asked:,} games: the order of the choices is settled "
                     "(every neighbour's paired interval above 0, docs/rollout.md).")
    elif len(result.choices) > 1 and result.ordered:
        notes.append(f"The order of the choices is settled at {result.games:,} games (every neighbour's paired "
                     "interval above 0, docs/rollout.md).")
    elif len(result.choices) > 1 and alike == [tuple(range(len(result.choices)))]:  # never settles (docs/rollout.md)
        notes.append(f"Every choice gave {names[mover]} the same result in every game: the order of the choices "
                     "cannot be settled by more games (docs/rollout.md).")
    elif len(result.choices) > 1:  # whatever the count: below the first check too (docs/rollout.md)
        same = "; ".join(and_list([result.choices[i].root.label for i in group]) for group in alike)
        notes.append("The order of the choices is not settled at this many games (docs/rollout.md): more --games "
                     "narrow the intervals" + (f", but never between {same}, which gave {names[mover]} the same "
                                               "result in every game." if alike else "."))
    none_or_all = none_or_all_note([row[3:-1] for row in rows], result.games)
    if none_or_all is not None:
        notes.append(none_or_all)
    if not result.choices:  # the position alone: no rank, no advice, nothing to compare
        headers, rows = headers[1:2] + headers[3:-1], [row[1:2] + row[3:-1] for row in rows]
        notes[0] = (f"Every seat's chance to win (ties shared, D20) over the games played from here, as the policy "
                    f"plays; 95%: the 95% interval for {names[mover]} (Wilson; every seat's: --format json).")
    return Report(title, headers, rows, data, notes, records=_records(data), narrow=["advice"])


def _choice_record(choice: Any, names: tuple[str, ...]) -> dict[str, Any]:
    """One choice as JSON: kind, label, the advice's value, every seat's chance, the paired difference."""
    versus = choice.versus_best
    return {"kind": choice.root.kind, "choice": choice.root.label,
            "advice_win_chance": exact(choice.root.advice) if choice.root.advice is not None else None,
            "advice_win_chance_float": float(choice.root.advice) if choice.root.advice is not None else None,
            "seats": seat_records(choice.seats, names),
            "versus_best": None if versus is None else {"difference": exact(versus.mean),
                                                        "difference_float": float(versus.mean),
                                                        "ci95": _interval(versus)}}


def _records(data: dict[str, Any]) -> list[dict[str, Any]]:
    """CSV rows: the position and each choice, one row per seat."""
    out = [{"row": "position", **seat} for seat in data["position"]["seats"]]
    for rank, choice in enumerate(data["choices"], 1):
        out += [{"row": rank, "choice": choice["choice"], **seat} for seat in choice["seats"]]
    return out
