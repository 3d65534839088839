"""One screen per action of the ``play`` session (docs/play.md, "What is shown"), click-free.

After each action the session shows what a player needs now, in at most
:data:`SCREEN_LINES` lines of :data:`core.report.TABLE_WIDTH` columns: what happened (one
line, :func:`happened`), the warnings that changed since the last screen (:func:`screen_warnings`:
the blocking threats of D15 summarised in one line per opponent), the advice's best choice with
its reason and the next few (:func:`advice_lines`), and every sheet compactly
(:func:`report.compact_sheets`). Rule ids, the full sheets and every threat in full are for
``status`` and ``play GAME --verbose``; the :data:`LEGEND` is shown once at the start and on
``help``. The end of the game is told once, with the winners (:func:`final_lines`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import partial

from shelfie_solver.core.report import TABLE_WIDTH, Report, possessive, wrap_lines
from shelfie_solver.dice.game.events import (
    Block,
    EndTriggered,
    Event,
    Fail,
    GameOver,
    Hold,
    Mark,
    Pass,
    Roll,
    Stop,
    UncheckedMark,
)
from shelfie_solver.dice.play.gamefile import KeptGame, blocking_threats
from shelfie_solver.dice.play.report import compact_sheets, step_report
from shelfie_solver.dice.rolls import dice_codes

#: The most lines one screen takes (what a 24-row terminal shows with the prompt under it).
SCREEN_LINES = 23

#: How many choices after the best one the screen names ("Next: ...").
NEXT_CHOICES = 3

#: What the screen shows, said once at the start of the session and on ``help`` (8 lines).
LEGEND = """\
How to read the screen ('help' shows this again):
  first what happened, then a warning when it is new or changed;
  Best: the advised choice and its chance to win, 'exact' when computed from
    here, 'model' from the calibrated win model (docs/train.md); Why: its
    reason; Next: the choices after it (alone: the expected final score);
  sheets: a column a player, '>' the player to play; o marked, x eliminated,
    . available; each shelf's points after it, the columns' points, the total.
  'status': every sheet with its values; --verbose: every table, rule ids."""

# a parenthesis of rule ids only ("(D7)", "(D19, D20)", "(D8-D14)"), or ids leading one ("(D7: ...")
_IDS = r"D\d+(?:\s*[-,]\s*D?\d+)*"
_ONLY_IDS = re.compile(rf"\s*\({_IDS}\)")
_LEADING_IDS = re.compile(rf"\({_IDS}(?::\s*|;\s*|,\s*)")
_TRAILING_IDS = re.compile(rf"(?:,|;)\s*{_IDS}\)")


def without_rule_ids(text: str) -> str:
    """``text`` without its rule ids: ``(D7)`` dropped, ``(D7: 2 left)`` read ``(2 left)``,
    ``(blocked, D15)`` read ``(blocked)``."""
    return _TRAILING_IDS.sub(")", _LEADING_IDS.sub("(", _ONLY_IDS.sub("", text)))


def _plural(count: int, word: str, words: str | None = None) -> str:
    return f"{count} {word if count == 1 else words or word + 's'}"


def _cells(kept: KeptGame, cells: Sequence[int]) -> str:
    return " ".join(kept.board.cell_name(c) for c in cells)


def happened(before: KeptGame, after: KeptGame) -> str:
    """What the events ``after`` added to ``before`` did, in one line a player reads (no rule ids;
    a re-roll and the dice it gave are one sentence, every block of one line one sentence), or a
    line a sentence when they do not fit :data:`TABLE_WIDTH` together. The end of the game
    itself is left to :func:`final_lines`, so it is told once."""
    added = after.events[len(before.events):]
    names, rules = after.players, after.rules
    parts: list[str] = []
    if before.dice is not None and before.rerolls_left and added and isinstance(added[0], (Mark, Fail)):
        parts.append(f"{before.active_name} stopped with {dice_codes(before.dice, rules)} "
                     f"({_plural(before.rerolls_left, 're-roll')} left unused).")
    blocks: dict[tuple[int, int], list[str]] = {}  # (by, line): the losses, in the order of the events
    previous: Event | None = None
    ends = any(isinstance(e, GameOver) for e in added)  # the trigger and the end at once: final_lines says it
    for event in added:
        if isinstance(event, EndTriggered) and ends:
            continue
        if isinstance(event, Block):
            if (event.by, event.line) not in blocks:
                parts.append(f"{names[event.by]} completed {after.board.line_name(event.line)}: ")
            blocks.setdefault((event.by, event.line), []).append(f"{names[event.player]} loses "
                                                                 f"{_cells(after, event.cells)}")
            continue
        text = _event_text(before, after, event, previous)
        previous = event
        if text:
            parts.append(text)
    for (by, completed), lost in blocks.items():
        head = f"{names[by]} completed {after.board.line_name(completed)}: "
        parts[parts.index(head)] = head + ", ".join(lost) + " (blocked)."
    one = " ".join(parts)
    return one if len(one) <= TABLE_WIDTH else "\n".join(parts)  # too long for one line: a line a sentence


def _event_text(before: KeptGame, after: KeptGame, event: Event, previous: Event | None) -> str:
    """One event's clause for :func:`happened` (empty for those said elsewhere); ``previous``:
    the event before it (a :class:`Hold` makes a :class:`Roll` a re-roll)."""
    names, rules = after.players, after.rules
    if isinstance(event, Hold):
        return ""  # said with the roll after it
    if isinstance(event, Roll):
        dice, left = dice_codes(event.dice, rules), _plural(event.rerolls_left, "re-roll")
        hold = previous if isinstance(previous, Hold) else None
        if hold is None:
            return f"{names[event.player]} rolled {dice} ({left} left)."
        kept, again = dice_codes(hold.keep, rules), rules.dice - sum(hold.keep)
        how = f"kept {kept} and re-rolled {_plural(again, 'die', 'dice')}" if kept else f"re-rolled all {again} dice"
        return f"{names[event.player]} {how}: {dice} ({left} left)."
    if isinstance(event, Stop):
        dice = dice_codes(before.dice, rules) if before.dice is not None else ""
        return f"{names[event.player]} stops with {dice}: the dice are final ('undo' takes the stop back)."
    if isinstance(event, Mark):
        return f"{names[event.player]} marked {_cells(after, event.cells)}."
    if isinstance(event, UncheckedMark):
        return f"{names[event.player]} marked {_cells(after, event.cells)} (told, unchecked)."
    if isinstance(event, Fail):
        told = ", told, unchecked" if before.dice is None and not isinstance(previous, Roll) else ""
        return (f"{names[event.player]} gave up shelf {event.shelf + 1} (failed result{told}): "
                f"{_cells(after, event.cells) or 'nothing'} eliminated.")
    if isinstance(event, EndTriggered):
        who = ", ".join(names[s] for s in event.sheets)
        return f"End triggered: {who} closed enough shelves; the round is played out."
    if isinstance(event, Pass):
        return f"{names[event.player]} has no available item and passes."
    return ""


def screen_warnings(kept: KeptGame) -> list[str]:
    """The warnings of the screen, each one line of at most :data:`TABLE_WIDTH` columns: the last
    round and its turns left (D17, D18), a sheet one closed shelf from the trigger, and the
    blocking threats (D15) against the active player in one line per opponent (the lines they
    complete with one more item, and the active player's items at risk, the player named: the
    screen follows the previous player's action and is read by the next)."""
    if kept.over is not None:
        return []
    state, names = kept.state, kept.players
    out: list[str] = []
    if state.end_triggered:
        left = state.turns_left_in_round()
        out.append(f"Last round: {_plural(left, 'more turn')} after this one, then the game is over.")
    else:
        near = [seat for seat, sheet in enumerate(state.sheets) if sheet.closed_shelves() == state.trigger_shelves - 1]
        if near:
            # the words of 'status' (gamefile.warnings): "Ann has", every sheet named, never "you"
            # (the lines follow the previous player's action); several as a list with "and" and "each"
            who = [names[seat] for seat in near]
            closed = _plural(state.trigger_shelves - 1, 'closed shelf', 'closed shelves')
            if len(who) == 1:
                said = f"{who[0]} has {closed}"
            else:
                said = f"{', '.join(who[:-1])} and {who[-1]} have {closed} each"
            out.append(f"End near: {said}; one more triggers the last round.")
    by_seat: dict[int, list[tuple[str, str, tuple[int, ...]]]] = {}
    for threat in blocking_threats(kept):
        by_seat.setdefault(threat.seat, []).append((kept.board.line_name(threat.line),
                                                    kept.board.cell_name(threat.open_cell), threat.at_risk))
    out += [_threat_line(kept, names[seat], lines) for seat, lines in by_seat.items()]
    return out


def _threat_line(kept: KeptGame, name: str, lines: list[tuple[str, str, tuple[int, ...]]]) -> str:
    """One opponent's blocking threats in one line, shortened to fit :data:`TABLE_WIDTH`; the
    items at risk are the active player's, named (:func:`core.report.possessive`: "Ben's", "my"
    for a player named me), never "your" for the reader (D15; the screen follows the previous
    player's action)."""
    risk = sorted({c for _, _, cells in lines for c in cells})
    where = ", ".join(f"{cell} for {line}" for line, cell, _ in lines)
    whose, theirs = possessive(kept.active_name), possessive(kept.active_name, alone=True)
    forms = [f"Threat: {name} needs {where}: {whose} {_cells(kept, risk)} at risk.",
             f"Threat: {name} needs {where}: {_plural(len(risk), 'item')} of {theirs} at risk.",
             f"Threat: {name} is one item from {_plural(len(lines), 'line')}: {_plural(len(risk), 'item')} of "
             f"{theirs} at risk ('status')."]
    return next((f for f in forms if len(f) <= TABLE_WIDTH), forms[-1])


#: The advice report's title lines the screen keeps (by their start).
_KEPT_TITLES = ("Best:", "Decided:", "Stop and mark", "Failed result", "Why:", "Expected final score",
                "Sheet finished")


def advice_lines(kept: KeptGame, objective: str) -> list[str]:
    """The advice of the step for the screen: the best choice, its reason and the next
    :data:`NEXT_CHOICES` (``Next: keep BB 28.6%, ...``), without rule ids; before the roll the
    line saying what to type. Empty once the game is over."""
    if kept.over is not None:
        return []
    if kept.dice is None:
        return [f"{kept.active_name} to roll: type the {kept.rules.dice} dice (such as CCBJPP)."]
    report = step_report(kept, objective, NEXT_CHOICES + 1)
    lines = [without_rule_ids(t) for t in report.title if t.startswith(_KEPT_TITLES)]
    following = _next_choices(report)
    return lines + ([f"Next: {following}"] if following else [])


def _next_choices(report: Report) -> str:
    """The rows after the first as ``label value`` pairs, as many as fit one line."""
    headers = report.headers
    if not headers or len(report.rows) < 2:
        return ""
    label = next((headers.index(h) for h in ("keep", "mark", "shelf") if h in headers), 0)
    value = headers.index("exact") - 1 if "exact" in headers else \
        headers.index("potential change") if "potential change" in headers else None
    words = {"keep": "keep ", "shelf": "shelf "}.get(headers[label], "")
    out = ""
    for row in report.rows[1:NEXT_CHOICES + 1]:
        name = str(row[label])
        item = (words if not name.startswith("(") else "") + name + (f" {row[value]}" if value is not None else "")
        candidate = f"{out}, {item}" if out else item
        if len("Next: " + candidate) > TABLE_WIDTH:
            break
        out = candidate
    return out


def final_lines(kept: KeptGame) -> list[str]:
    """The end of the game, told once: the rounds played and the winners with their score (D18,
    D19, D20), then the other scores."""
    over = kept.over
    assert over is not None
    names = [kept.players[w] for w in over.winners]
    who = (f"{' and '.join(names)} share the victory" if len(names) > 1 else f"{names[0]} wins")
    others = ", ".join(f"{kept.players[s]} {p}" for s, p in enumerate(over.scores) if s not in over.winners)
    return [f"Game over after {_plural(over.rounds, 'round')}: {who} with {max(over.scores)} points"
            + (f" ({others})." if others else ".")]


def screen(kept: KeptGame, objective: str, done: str, warnings: Sequence[str]) -> str:
    """One screen: ``done`` (what happened, may be empty), ``warnings`` (those to show), the
    advice of the step (:func:`advice_lines`) or the end (:func:`final_lines`), then every sheet
    compactly (:func:`report.compact_sheets`; alone the one sheet). Each line fits
    :data:`TABLE_WIDTH` columns (long ones are wrapped at spaces)."""
    advice = final_lines(kept) if kept.over is not None else advice_lines(kept, objective)
    sheets = compact_sheets(kept, heading=_round_label(kept))
    warned = list(warnings)
    merged = partial(_threats_merged, kept.active_name)
    for shorter in (_without_next, merged, _without_why):  # over the budget: the least needed first
        text = "\n".join(wrap_lines([done, *warned, *advice] if done else [*warned, *advice], TABLE_WIDTH))
        if screen_height(text) + 1 + len(sheets) <= SCREEN_LINES:
            break
        warned, advice = shorter(warned, advice)
    text = "\n".join(wrap_lines([done, *warned, *advice] if done else [*warned, *advice], TABLE_WIDTH))
    return text + "\n\n" + "\n".join(sheets)


def _without_next(warned: list[str], advice: list[str]) -> tuple[list[str], list[str]]:
    return warned, [line for line in advice if not line.startswith("Next:")]


def _threats_merged(whose: str, warned: list[str], advice: list[str]) -> tuple[list[str], list[str]]:
    """Every threat line in one: the opponents named, 'status' for the items (``whose``: the
    active player, whose items they are)."""
    threats = [w for w in warned if w.startswith("Threat: ")]
    if len(threats) < 2:
        return warned, advice
    names = [w.split()[1] for w in threats]
    merged = f"Threats: {', '.join(names)} can each complete a line holding {possessive(whose)} items ('status')."
    return [w for w in warned if w not in threats] + [merged], advice


def _without_why(warned: list[str], advice: list[str]) -> tuple[list[str], list[str]]:
    return warned, [line for line in advice if not line.startswith("Why:")]


def _round_label(kept: KeptGame) -> str:
    return "" if kept.over is not None else f"round {kept.state.round}"


def screen_height(text: str) -> int:
    """The lines ``text`` takes on a terminal of :data:`TABLE_WIDTH` columns."""
    return sum(max(1, -(-len(line) // TABLE_WIDTH)) for line in text.split("\n"))


def new_warnings(shown: set[tuple[int, str]], kept: KeptGame, warnings: Sequence[str]) -> list[str]:
    """The ``warnings`` not on the last screen (``shown``: the active seat and the text of each
    warning it showed), so a warning seen before is not repeated while it stays the same."""
    return [w for w in warnings if (kept.active, w) not in shown]
