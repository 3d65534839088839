"""The reason of a piece of advice, in one line, from computed numbers: what makes the best choice
better than the runner-up the list shows (the first choice ranked below it), in the table's own
rounding and words (docs/advise.md, "Why"):

- "marking r5c1 completes column 1, blocking Ben's r5c2 (D15), which closes Ben's second shelf:
  it ends the game at once (D17, D18): you win 57-24: 100% against 64.8% for r4c2 + r4c3";
- "r3c4 scores 15 more now but leaves Ben the block on column 4 (D15): 61.0% against 55.2%";
- "keep CC: 65.0% against 57.4% for keep PCC; it also scores the most this turn (20.77 expected
  points)";
- a decided game says so: "you have won whatever you roll" (every choice exactly 100%, D20).

Two values that print the same at the table's precision are never "48.6% against 48.6%": the
reason says "ahead by less than 0.1 percentage point (both 48.6%)" (a difference of two chances
in percentage points, as docs/review.md's losses, never "points", which are the game's, D19), or
"tied" for an exact tie. Every
chance is printed by :func:`words.chance_cell` at the precision asked (``places``): the
terminal's tables and ``serve``'s page use :data:`words.CHANCE_PLACES`; JSON
``reason_by_places`` also gives the reason at whole percent.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from functools import lru_cache
from typing import TYPE_CHECKING

from shelfie_solver.core.report import and_list, decimal, possessive
from shelfie_solver.dice.board import Board, Marks, score, top_other_score
from shelfie_solver.dice.rules import Ruleset
from shelfie_solver.dice.advise.words import (CHANCE_PLACES, chance_cell, hold_words, risk_cell, signed_points,
                                              tie_list)

if TYPE_CHECKING:
    from shelfie_solver.dice.advise.advice import Advice, HoldOption, MarkingOption, ShelfOption

#: A spread of win chance below this (a probability) between the best and the worst choice is
#: "the choice barely matters" (half a percentage point).
BARELY = Fraction(1, 200)


def amount(advice: Advice, value: Fraction, places: int = CHANCE_PLACES) -> str:
    """A value as its table prints it: the chance to win in percent (:func:`words.chance_cell`
    at ``places`` decimals), else the objective's value to 4 decimals (the table's ``value``)."""
    if advice.win_chance_exact is not None:
        return chance_cell(value, places)
    return f"{advice.objective.split(':', 1)[0]} value {decimal(value)}"


def versus(advice: Advice, best: Fraction, other: Fraction, name: str, places: int = CHANCE_PLACES,
           tied: Sequence[str] = ()) -> str:
    """The best value against the runner-up's (``name``, its words) as the table prints them:
    ``"A against B for NAME"``; ``"tied with NAME at A"`` for an exact tie; and for two values
    that differ but print the same, ``"ahead of NAME by less than 0.1 percentage point (both
    A)"`` (the step of the precision shown, in percentage points: a difference of chances, not
    the game's points), never ``"A against A"``. ``tied``: the choices exactly tied with the best
    (ranked ``1=`` beside it, the runner-up being the first choice ranked below them), named
    first: ``"tied with keep BBBBJ at A, against B for NAME"``."""
    a, b = amount(advice, best, places), amount(advice, other, places)
    lead = f"tied with {tie_list(tied)} at {a}, " if tied else ""
    if best == other:
        return f"tied with {tie_list([*tied, name])} at {a}"
    if a == b:
        step = ("0.0001" if advice.win_chance_exact is None else
                "1 percentage point" if places == 0 else f"0.{'0' * (places - 1)}1 percentage point")
        return f"{lead}ahead of {name} by less than {step} (both {a})"
    shown = decimal(other) if advice.win_chance_exact is None else b  # "strategic value 23.8537 against 23.7623": the unit once
    return f"{lead}against {shown} for {name}" if tied else f"{a} against {shown} for {name}"


def same_chance(advice: Advice, value: Fraction, places: int = CHANCE_PLACES) -> str:
    """Two choices the model gives the same chance ``value`` (an estimate that saturates), as the
    table prints it: ``"both keep your chance above 99.9%"``, ``"both leave your chance below
    0.1%"``, else ``"both give your chance as 45.3%"``."""
    cell = amount(advice, value, places)
    if cell.startswith(">"):
        return f"both keep your chance above {cell[1:]}"
    if cell.startswith("<"):
        return f"both leave your chance below {cell[1:]}"
    return f"both give your chance as {cell}"


def decided(values: Sequence[Fraction], exact: bool | None) -> Fraction | None:
    """The chance to win every choice gives when it is one and the same exactly (each of
    ``values``, with ``exact`` true: :attr:`advice.Advice.win_chance_exact`) and a certainty
    (1: won whatever the player does; 0: lost whatever), else None (D20)."""
    if exact is not True or not values:
        return None
    first = values[0]
    return first if first in (0, 1) and all(v == first for v in values) else None


def decided_words(value: Fraction, verb: str) -> str:
    """``"you have won whatever you roll"`` (``value`` 1) or ``"you can no longer win, whatever
    you roll"`` (0), ``verb`` the choice (``roll``, ``mark``, ``give up``)."""
    return f"you have won whatever you {verb}" if value == 1 else f"you can no longer win, whatever you {verb}"


def _names(advice: Advice, names: Sequence[str] | None) -> dict[int, str]:
    """The other players' names by seat (default "the opponent", or "opponent 1", ... in seat
    order after the player)."""
    state = advice.state
    if state is None:
        return {}
    others = [j for j in range(state.players) if j != state.active]
    if names is not None:
        return {j: names[j] for j in others}
    if len(others) == 1:
        return {others[0]: "the opponent"}
    return {j: f"opponent {i}" for i, j in enumerate(others, 1)}


def _blocks(advice: Advice, after: Marks) -> tuple[tuple[Marks, ...], list[tuple[int, int, tuple[int, ...]]]]:
    """The sheets once the player's sheet is ``after`` and every line newly complete on it has
    blocked the others (D15), with ``(line, seat, cells eliminated)`` per block."""
    from shelfie_solver.dice.sheet_rules import block, completed_lines

    state = advice.state
    assert state is not None
    board = advice.board
    before = set(completed_lines(board, advice.marks))
    new = [line for line in completed_lines(board, after) if line not in before]
    sheets = tuple(after if i == state.active else m for i, m in enumerate(state.sheets))
    blocked, events = block(board, sheets, state.active, new)
    return blocked, list(events)


def block_words(advice: Advice, after: Marks, names: Sequence[str] | None) -> str:
    """``"completes column 1, blocking Ben's r5c2 (D15)"`` for the blocks the player's sheet
    ``after`` makes (several seats' items joined as English: ``"blocking Nu's r2c1 and Lee's
    r4c1"``), ``""`` when it makes none."""
    if advice.state is None:
        return ""
    board, who = advice.board, _names(advice, names)
    _, events = _blocks(advice, after)
    if not events:
        return ""
    lines = list(dict.fromkeys(line for line, _, _ in events))
    lost = and_list([f"{possessive(who[seat])} {' '.join(board.cell_name(c) for c in cells)}"
                     for _, seat, cells in events])
    return f"completes {' and '.join(board.line_name(x) for x in lines)}, blocking {lost} (D15)"


def ending(advice: Advice, after: Marks, names: Sequence[str] | None, what: str,
           places: int = CHANCE_PLACES) -> str | None:
    """``what`` ends the game (D17) with the player's sheet ``after``, and how: the block that
    closes an opponent's second shelf (D15) when it is not the player's own sheet that triggers
    it; last in the round, the final scores (D18); else, with one opponent still to play, the
    lead and what they need in their last turn with their exact chance (D18, D20). None with
    more opponents still to play."""
    from shelfie_solver.dice.sheet_rules import triggers_end

    state = advice.state
    if state is None or state.players < 2:
        return None
    board, rules = advice.board, advice.rules
    sheets, _ = _blocks(advice, after)
    by_block = block_words(advice, after, names)
    if by_block and not triggers_end(board, after, rules):  # D17 on an opponent's sheet, by the block
        closed = [_names(advice, names)[j] for j, m in enumerate(sheets)
                  if j != state.active and triggers_end(board, m, rules)]
        if closed:
            what = f"{what} {by_block} and so closes {possessive(closed[0])} second shelf, which"
    mine = score(board, after, rules)
    if state.is_last_in_round():  # D18: the game ends at once, every score final
        best = top_other_score(board, sheets, state.active, rules)
        verdict = "you win" if mine > best else ("you lose" if mine < best else "a shared victory")
        return f"{what} ends the game at once (D17, D18): {verdict} {mine}-{best}"
    if state.players != 2:
        return None
    j = 1 - state.active
    their_score = score(board, sheets[j], rules)
    chance = _opponent_chance(board, rules, sheets[j], (mine,))
    who = _names(advice, names)[j]
    lead = f"you lead {mine}-{their_score}" if mine > their_score else (
        f"you trail {mine}-{their_score}" if mine < their_score else f"level at {mine}")
    need = mine - their_score + 1
    odds = chance_cell(chance, places)
    then = f"{who} then needs {need}+ points in one turn ({odds})" if need > 0 else \
        f"{who} is ahead already ({odds} to win)"
    return f"{what} ends the game (D17): {lead}; {then}"


@lru_cache(maxsize=32)
def _opponent_chance(board: Board, rules: Ruleset, marks: Marks, others: tuple[int, ...]) -> Fraction:
    """:func:`win_chance.opponent_chance`, kept: the reason is written at each precision shown."""
    from shelfie_solver.dice.win_chance import opponent_chance

    return opponent_chance(board, rules, marks, others)


def _runner(ranks: Sequence[int]) -> int | None:
    """The index of the runner-up among options of ``ranks``: the first ranked below the best."""
    return next((i for i, rank in enumerate(ranks) if rank != 1), None)


def _with_ties(best: str, tied: Sequence[str]) -> str:
    """The best choice named as the ``Best:`` line names it: ``stop (tied with keep BBBBJ)``."""
    return f"{best} (tied with {tie_list(tied)})" if tied else best


def hold_reason(advice: Advice, names: Sequence[str] | None = None, places: int = CHANCE_PLACES) -> str:
    """Why the best hold (module docstring): against the runner-up, what makes the difference."""
    holds = advice.holds
    best = holds[0]
    if len(holds) == 1:
        return "it is the only choice"
    settled = decided([h.value for h in holds], advice.win_chance_exact or all(h.exact for h in holds))
    if settled is not None:
        return decided_words(settled, "roll")
    at = _runner([h.rank for h in holds])
    if at is None:
        return "every hold is worth the same: the choice does not matter"
    worst = min(h.value for h in holds)
    if advice.win_chance_exact is not None and best.value - worst < BARELY:
        spread = float(best.value - worst) * 100
        within = f"{spread:.1f} percentage points" if spread >= 0.05 else "less than 0.1 percentage point"
        return f"every hold is within {within} of the chance to win: the choice barely matters"
    runner = holds[at]
    words = [hold_words(advice.dice, h.keep, advice.rules) for h in (best, runner)]
    tied = [hold_words(advice.dice, h.keep, advice.rules) for h in holds[1:at]]  # ranked 1= with the best
    if best.value == runner.value and best.points > runner.points:  # a model's estimate alike: the points
        return (f"{same_chance(advice, best.value, places)}; {_with_ties(words[0], tied)} scores more this turn "
                f"({decimal(best.points, 2)} against {decimal(runner.points, 2)} expected points)")
    compare = versus(advice, best.value, runner.value, words[1], places, tied)
    if best.keep == advice.dice and advice.markings and advice.markings[0].ends_game:
        after = advice.marks.with_marked(advice.markings[0].marking.cells)
        line = ending(advice, after, names, "stopping", places)
        if line:
            return f"{line}; {compare}"
    return f"{words[0]}: {compare}{_hold_factor(advice, best, runner)}"


def _hold_factor(advice: Advice, best: HoldOption, runner: HoldOption) -> str:
    """What else tells the best hold from the runner-up, as the table prints it: the expected
    points this turn (2 decimals), else the failed-result chance (D13)."""
    bp, rp = decimal(best.points, 2), decimal(runner.points, 2)
    bf, rf = (risk_cell(h.fail, advice.win_chance_exact is not None) for h in (best, runner))
    risk = f"a failed result (D13) {'less' if best.fail < runner.fail else 'more'} likely ({bf} against {rf})"
    if rp != bp and runner.points > best.points:
        return f", which scores more this turn ({rp} against {bp} expected points)" + \
            (f" but makes a failed result (D13) more likely ({rf} against {bf})"  # the runner-up's: its figure first
             if rf != bf and runner.fail > best.fail else "")
    if bp == rp:
        return f"; {risk}" if bf != rf else ""
    most = all(best.points >= h.points for h in advice.holds)
    return (f"; it also scores the most this turn ({bp} expected points)" if most else
            f"; it scores more this turn ({bp} against {rp} expected points)")


def _threatened(advice: Advice, names: Sequence[str] | None) -> dict[int, tuple[str, int]]:
    """The player's available items on lines an opponent completes with one more item (D15):
    cell -> (that opponent's name, the line)."""
    state = advice.state
    if state is None:
        return {}
    board = advice.board
    out: dict[int, tuple[str, int]] = {}
    for j, name in _names(advice, names).items():
        sheet = state.sheets[j]
        for index, line in enumerate(board.lines):
            open_cells = [c for c in line if sheet.is_available(c)]
            if len(open_cells) == 1 and sheet.count_marked(line) == len(line) - 1:
                for c in line:
                    if advice.marks.is_available(c):
                        out.setdefault(c, (name, index))
    return out


def _cells(advice: Advice, option: MarkingOption) -> str:
    return " + ".join(advice.board.cell_name(c) for c in option.marking.cells)


def marking_reason(advice: Advice, names: Sequence[str] | None = None, places: int = CHANCE_PLACES) -> str:
    """Why the best marking (module docstring): against the runner-up, the first of: the end of
    the game one of them makes (D17), a block it makes (D15), an item it saves from a block, the
    points now (D19)."""
    markings = advice.markings
    best = markings[0]
    if len(markings) == 1:
        return "it is the only marking these dice allow"
    settled = decided([m.value for m in markings], advice.win_chance_exact or all(m.exact for m in markings))
    if settled is not None:
        return decided_words(settled, "mark")
    at = _runner([m.rank for m in markings])
    if at is None:
        return "every marking is worth the same: the choice does not matter"
    runner = markings[at]
    cells, other = _cells(advice, best), _cells(advice, runner)
    tied = [_cells(advice, m) for m in markings[1:at]]  # ranked 1= with the best
    if best.value == runner.value and best.points > runner.points:  # a model's estimate alike: the points
        return (f"{same_chance(advice, best.value, places)}; {_with_ties(cells, tied)} scores "
                f"{best.points - runner.points} more now")
    compare = versus(advice, best.value, runner.value, other, places, tied)
    if best.ends_game and not runner.ends_game:
        line = ending(advice, advice.marks.with_marked(best.marking.cells), names, f"marking {cells}", places)
        if line:
            return f"{line}; {compare}"
    if runner.ends_game and not best.ends_game:
        line = ending(advice, advice.marks.with_marked(runner.marking.cells), names, f"marking {other}", places)
        if line:
            return f"{cells} keeps the game going, where {line}; {compare}"
    return _marking_factor(advice, best, runner, names, places, tied)


def _marking_factor(advice: Advice, best: MarkingOption, runner: MarkingOption, names: Sequence[str] | None,
                    places: int, tied: Sequence[str] = ()) -> str:
    """The blocks (D15) or the points (D19) that tell the best marking from the runner-up
    (``tied``: the markings ranked 1= with the best, :func:`versus`)."""
    cells, other = _cells(advice, best), _cells(advice, runner)
    compare = versus(advice, best.value, runner.value, other, places, tied)
    more = runner.points - best.points
    blocking = block_words(advice, advice.marks.with_marked(best.marking.cells), names)
    if blocking and not block_words(advice, advice.marks.with_marked(runner.marking.cells), names):
        return f"{cells} {blocking}: {compare}"
    saved = _threatened(advice, names)
    mine = [c for c in best.marking.cells if c in saved]
    theirs = [c for c in runner.marking.cells if c in saved]
    if len(mine) > len(theirs):  # best saves more items from a block than the runner-up (D15)
        board = advice.board
        who, line = saved[mine[0]]
        if more > 0 and not any(saved[c][1] == line for c in theirs):
            return (f"{other} scores {more} more now but leaves {who} the block on {board.line_name(line)} "
                    f"(D15): {compare}")
        rescued = [board.cell_name(c) for c in mine if c not in runner.marking.cells]
        return (f"marking {' + '.join(rescued)} now saves {'it' if len(rescued) == 1 else 'them'} from "
                f"{possessive(who)} block on {board.line_name(line)} (D15): {compare}")
    if more > 0:
        return f"{cells}: {compare}, which scores {more} more now ({runner.points:+d} against {signed_points(best.points)})"
    most = all(best.points >= m.points for m in advice.markings)
    score_words = (f"it also scores the most now ({signed_points(best.points)})" if most and more < 0 else
                   f"it scores {-more} more now ({best.points:+d} against {signed_points(runner.points)})" if more < 0
                   else f"both score {signed_points(best.points)} now")
    return f"{cells}: {compare}; {score_words}"


def shelf_reason(advice: Advice, names: Sequence[str] | None = None, places: int = CHANCE_PLACES) -> str:
    """Why the shelf to give up (D13): against the next shelf listed that is worth less, naming
    the shelves exactly tied with it (:func:`versus`)."""
    failed = advice.failed
    best = failed[0]
    lost = f"it gives up {len(best.lost_items)} item{'s' if len(best.lost_items) != 1 else ''} worth {best.lost_points} points"
    values = [o.value for o in failed if o.value is not None]
    if len(values) == len(failed) > 1:
        settled = decided(values, advice.win_chance_exact)
        if settled is not None:
            return decided_words(settled, "give up")
    runner = failed[1] if len(failed) > 1 else None
    if best.ends_game:
        line = ending(advice, advice.marks.with_eliminated(list(best.lost_items)), names,
                      f"giving up shelf {best.shelf + 1}", places)
        if line:
            return line + _shelf_compare(advice, best, runner, places, "; ")
    if runner is None:
        return f"the only shelf with an available item; {lost}"
    if best.value is not None and runner.value is not None:
        return f"{lost}" + _shelf_compare(advice, best, runner, places, ": ")
    return f"{lost}, the least line potential lost (next: shelf {runner.shelf + 1})"


def _shelf_compare(advice: Advice, best: ShelfOption, runner: ShelfOption | None, places: int, glue: str) -> str:
    if runner is None or best.value is None or runner.value is None:
        return ""
    if all(o.value == best.value for o in advice.failed):
        return f"{glue}every shelf gives the same chance"
    # the shelves come best first: those exactly tied with the best, then the first ranked below them
    tied = [f"shelf {o.shelf + 1}" for o in advice.failed[1:] if o.value == best.value]
    below = next((o for o in advice.failed[1:] if o.value != best.value and o.value is not None), runner)
    assert below.value is not None
    return glue + versus(advice, best.value, below.value, f"shelf {below.shelf + 1}", places, tied)


def reason(advice: Advice, names: Sequence[str] | None = None, places: int = CHANCE_PLACES) -> str | None:
    """The one-line reason of ``advice`` (None when there is nothing to choose), every chance
    printed at ``places`` decimals (:func:`words.chance_cell`)."""
    if advice.holds:
        return hold_reason(advice, names, places)
    if advice.markings:
        return marking_reason(advice, names, places)
    if advice.failed:
        return shelf_reason(advice, names, places)
    return None
