"""The reason of a piece of advice, in one line, from computed numbers: why the best choice beats
the natural alternative (the choice scoring most points now, stopping, going on, another shelf):
"stopping ends the game (D17): you lead 69-45; Sam then needs 25+ points in one turn (57.2%)",
"every hold is within 0.4 percentage points of the chance to win: the choice barely matters", "marking r3c4 now
saves it from Sam's block (D15)". docs/advise.md, "Why".
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import TYPE_CHECKING

from shelfie_solver.dice.board import Marks, score
from shelfie_solver.dice.rolls import dice_codes

if TYPE_CHECKING:
    from shelfie_solver.dice.advise.advice import Advice

#: A spread of win chance below this (a probability) between the best and the worst choice is
#: "the choice barely matters" (half a percentage point).
BARELY = Fraction(1, 200)


def amount(advice: Advice, value: Fraction) -> str:
    """A value in the player's unit: the chance to win in percent, else the objective's value."""
    if advice.win_chance_exact is not None:
        return f"{float(value) * 100:.1f}%"
    return f"{advice.objective.split(':', 1)[0]} value {float(value):.2f}"


def _names(advice: Advice, names: Sequence[str] | None) -> list[str]:
    """The other players' names in seat order after the player."""
    state = advice.state
    if state is None:
        return []
    others = [j for j in range(state.players) if j != state.active]
    if names is not None:
        return [names[j] for j in others]
    return ["the opponent"] if len(others) == 1 else [f"opponent {i}" for i in range(1, len(others) + 1)]


def ending(advice: Advice, after: Marks, names: Sequence[str] | None, what: str) -> str | None:
    """``what`` ends the game (D17) with the player's sheet ``after``: with one opponent still to
    play, the lead and what they need in their last turn, with their exact chance (D18, D20)."""
    from shelfie_solver.dice.sheet_rules import block, completed_lines
    from shelfie_solver.dice.win_chance import opponent_chance

    state = advice.state
    if state is None or state.players < 2:
        return None
    board, rules = advice.board, advice.rules
    if state.is_last_in_round():  # D18: the game ends at once, every score final
        mine = score(board, after, rules)
        best = max(score(board, m, rules) for i, m in enumerate(state.sheets) if i != state.active)
        verdict = "you win" if mine > best else ("you lose" if mine < best else "a shared victory")
        return f"{what} ends the game at once (D17, D18): {verdict} {mine}-{best}"
    if state.players != 2:
        return None
    j = 1 - state.active
    new = [line for line in completed_lines(board, after) if line not in completed_lines(board, advice.marks)]
    sheets = tuple(after if i == state.active else m for i, m in enumerate(state.sheets))
    theirs = block(board, sheets, state.active, new)[0][j] if new else state.sheets[j]
    mine, their_score = score(board, after, rules), score(board, theirs, rules)
    chance = opponent_chance(board, rules, theirs, (mine,))
    who = _names(advice, names)[0]
    lead = f"you lead {mine}-{their_score}" if mine > their_score else (
        f"you trail {mine}-{their_score}" if mine < their_score else f"level at {mine}")
    need = mine - their_score + 1
    then = f"{who} then needs {need}+ points in one turn ({float(chance) * 100:.1f}%)" if need > 0 else \
        f"{who} is ahead already ({float(chance) * 100:.1f}% to win)"
    return f"{what} ends the game (D17): {lead}; {then}"


def hold_reason(advice: Advice, names: Sequence[str] | None = None) -> str:
    """Why the best hold (module docstring)."""
    holds, rules = advice.holds, advice.rules
    best = holds[0]
    if len(holds) == 1:
        return "it is the only choice"
    worst = min(h.value for h in holds)
    if advice.win_chance_exact is not None and best.value - worst < BARELY:
        spread = float(best.value - worst) * 100
        within = f"{spread:.1f}" if spread >= 0.05 else "less than 0.1"
        return (f"every hold is within {within} percentage points of the chance to win: "
                "the choice barely matters")
    tied = [h for h in holds if h.rank == 1]
    others = [h for h in holds if h.rank != 1]
    if not others:
        return "every hold is worth the same: the choice does not matter"
    runner = others[0]
    stop = best.keep == advice.dice
    if stop:
        if advice.markings and advice.markings[0].ends_game:
            after = advice.marks.with_marked(advice.markings[0].marking.cells)
            line = ending(advice, after, names, "stopping")
            if line:
                return f"{line}; re-rolling (keep {dice_codes(runner.keep, rules) or 'nothing'}) {amount(advice, runner.value)}"
        return (f"stopping now: {amount(advice, best.value)} against {amount(advice, runner.value)} for "
                f"keep {dice_codes(runner.keep, rules) or 'nothing'}")
    most = max(holds, key=lambda h: (h.points, -h.rank))
    tie_note = f" (tied with {len(tied) - 1} more)" if len(tied) > 1 else ""
    if most.rank != 1:
        other = "stopping now" if most.keep == advice.dice else f"keep {dice_codes(most.keep, rules) or 'nothing'}"
        return (f"{amount(advice, best.value)}{tie_note} against {amount(advice, most.value)} for "
                f"{other}, which scores more this turn "
                f"({float(most.points):.1f} against {float(best.points):.1f} expected points)")
    return (f"it also scores the most this turn ({float(best.points):.1f} expected points){tie_note}; "
            f"next best keep {dice_codes(runner.keep, rules) or 'nothing'}: {amount(advice, runner.value)}")


def _threatened(advice: Advice, names: Sequence[str] | None) -> dict[int, str]:
    """The player's available items on lines an opponent completes with one more item (D15):
    cell -> that opponent's name."""
    state = advice.state
    if state is None:
        return {}
    board = advice.board
    who = dict(zip([j for j in range(state.players) if j != state.active], _names(advice, names)))
    out: dict[int, str] = {}
    for j, name in who.items():
        sheet = state.sheets[j]
        for line in board.lines:
            open_cells = [c for c in line if sheet.is_available(c)]
            if len(open_cells) == 1 and sheet.count_marked(line) == len(line) - 1:
                for c in line:
                    if advice.marks.is_available(c):
                        out.setdefault(c, name)
    return out


def marking_reason(advice: Advice, names: Sequence[str] | None = None) -> str:
    """Why the best marking (module docstring)."""
    board = advice.board
    markings = advice.markings
    best = markings[0]
    cells = " + ".join(board.cell_name(c) for c in best.marking.cells)
    if best.ends_game:
        line = ending(advice, advice.marks.with_marked(best.marking.cells), names, f"marking {cells}")
        if line:
            return line
    saved = _threatened(advice, names)
    rescued = [c for c in best.marking.cells if c in saved]
    if rescued:
        return (f"marking {board.cell_name(rescued[0])} now saves it from {saved[rescued[0]]}'s block (D15); "
                f"{amount(advice, best.value)}")
    if len(markings) == 1:
        return "it is the only marking these dice allow"
    most = max(markings, key=lambda m: (m.points, -m.rank))
    if most.rank != 1:
        other = " + ".join(board.cell_name(c) for c in most.marking.cells)
        return (f"{amount(advice, best.value)} against {amount(advice, most.value)} for {other}, which scores "
                f"more now ({most.points:+d} against {best.points:+d} points)")
    runner = next((m for m in markings if m.rank != 1), None)
    if runner is None:
        return "every marking is worth the same: the choice does not matter"
    other = " + ".join(board.cell_name(c) for c in runner.marking.cells)
    return f"it also scores the most now ({best.points:+d} points); next best {other}: {amount(advice, runner.value)}"


def shelf_reason(advice: Advice, names: Sequence[str] | None = None) -> str:
    """Why the shelf to give up (D13)."""
    failed = advice.failed
    best = failed[0]
    lost = f"it gives up {len(best.lost_items)} item{'s' if len(best.lost_items) != 1 else ''} worth {best.lost_points} points"
    if best.ends_game:
        line = ending(advice, advice.marks.with_eliminated(list(best.lost_items)), names,
                      f"giving up shelf {best.shelf + 1}")
        if line:
            alike = len(failed) > 1 and all(o.value == best.value for o in failed)
            return line + ("; every shelf gives the same chance" if alike else "")
    if len(failed) == 1:
        return f"the only shelf with an available item; {lost}"
    runner = failed[1]
    if best.value is not None and runner.value is not None:
        return f"{lost}: {amount(advice, best.value)} against {amount(advice, runner.value)} for shelf {runner.shelf + 1}"
    return f"{lost}, the least line potential lost (next: shelf {runner.shelf + 1})"


def reason(advice: Advice, names: Sequence[str] | None = None) -> str | None:
    """The one-line reason of ``advice`` (None when there is nothing to choose)."""
    if advice.holds:
        return hold_reason(advice, names)
    if advice.markings:
        return marking_reason(advice, names)
    if advice.failed:
        return shelf_reason(advice, names)
    return None
