"""The dice typed after a re-roll (D7), read as a hold and the dice now showing, click-free.

At the table a player re-rolls and then types either the new dice only or all the dice now on the
table. The dice kept stay on the table (D7), so every consistent reading of a typed line is a
hold ``keep`` with ``keep <= before`` (the dice showing before the re-roll), ``keep != before``
(keeping every die is stopping) and the dice after = ``keep`` + the dice rolled again. A line is
accepted only when exactly one reading is consistent (docs/play.md "After a re-roll"):

* **A hold is known** (typed ``keep K`` first, ``keep K new N``, ``keep K N``, ``reroll N --keep
  K``, or ``hold`` for the advised hold): the typed dice are the new dice when there are
  ``rules.dice - |K|`` of them, all the dice now on the table when there are ``rules.dice`` of
  them (they must contain ``K``).
* **No hold is known, all the dice typed**: the kept dice are among the faces both before and
  now; the reading is unique only when no face is in both (every die was re-rolled).
* **No hold is known, fewer dice typed**: they are the new dice, so ``rules.dice - m`` dice were
  kept; unique only when the dice before have one sub-multiset of that size (``CCCCCC``).

Anything else is refused with one line naming what was understood and how to type it
unambiguously (``keep BCJ new AAA``). Dice are :data:`rolls.Counts` (counts per side).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import product

from shelfie_solver.dice.game.actions import GAME_OVER
from shelfie_solver.dice.game.events import GameError
from shelfie_solver.dice.rolls import Counts, dice_codes, not_among
from shelfie_solver.dice.rules import Ruleset


class ReadingError(GameError):
    """Typed dice that no hold explains, or that several holds explain (the message says what
    was understood and the unambiguous form)."""


def sub_multisets(dice: Counts) -> Iterator[Counts]:
    """Every sub-multiset of ``dice`` (counts per side), from keeping nothing up."""
    for counts in product(*(range(c + 1) for c in dice)):
        yield tuple(counts)


def readings(before: Counts, typed: Counts, rules: Ruleset, keep: Counts | None = None) -> list[tuple[Counts, Counts]]:
    """Every consistent reading ``(keep, after)`` of ``typed`` after a re-roll of ``before``
    (module docstring); ``keep`` the hold when it is known, else ``None``. Pure: no checks
    beyond consistency."""
    n = rules.dice
    size = sum(typed)
    out: list[tuple[Counts, Counts]] = []
    if keep is not None:
        if any(k > b for k, b in zip(keep, before)) or keep == before:
            return []
        if size == n - sum(keep):
            out.append((keep, _add(keep, typed)))
        if size == n and all(k <= t for k, t in zip(keep, typed)) and sum(keep) > 0:
            out.append((keep, typed))
        return out
    if size == n:
        common = tuple(min(b, t) for b, t in zip(before, typed))
        return [(k, typed) for k in sub_multisets(common) if k != before]
    return [(k, _add(k, typed)) for k in sub_multisets(before) if sum(k) == n - size and k != before]


@dataclass(frozen=True)
class Forms:
    """The commands a refusal names, in the words of where the input came from: the ``play``
    prompt's (:data:`PROMPT`), the step commands' (:data:`STEP`) or ``serve``'s page
    (:data:`PAGE`: what to tap).

    Attributes:
        reroll: the unambiguous re-roll, from the dice kept and the new dice (codes; ``-`` for
            none kept) to the words that type it.
        stop: the words that stop instead (D7: keeping every die is stopping).
        fail: the words that give up a shelf (a failed result, D13), ``N`` the shelf.
        roll_first: before the roll, the words that enter it or tell a marking made without dice
            (followed by "a marking made without recorded dice").
        roll: the words that enter the initial roll (D6), for a re-roll asked before it.
        rerolling: the words of a re-roll in general (D7), for a second initial roll.
        mark: the words that mark items with the dice recorded (checked, D8-D14), from the items
            (``""``: any items), for a second roll or a marking told while dice are recorded.
        fail_best: what follows :attr:`fail` to name the advised shelf too (``""`` where there
            is no such form).
        undo: the words that give an undo's count (or, on the page, take back the last action),
            for a count of no action.
        unstop: the words that take back a stop (D7), for a re-roll after it.
        over: the refusal of an action once the game is over (D18), naming how to take back the
            last action there.
        must_mark: for a failed result refused while the dice can mark (D14,
            :func:`actions.must_mark`), the words that mark one of their items and list them.
    """

    reroll: Callable[[str, str], str]
    stop: str
    fail: str
    roll_first: str
    roll: str
    rerolling: str
    mark: Callable[[str], str]
    fail_best: str
    undo: str
    unstop: str
    over: str
    must_mark: str


def prompt_form(keep: str, new: str) -> str:
    """How the ``play`` prompt types a re-roll unambiguously (``keep`` ``-`` for none)."""
    return f"type 'keep {keep} new {new}', or 'keep DICE' first and then the dice"


def step_form(keep: str, new: str) -> str:
    """How the ``play reroll`` step types a re-roll unambiguously."""
    return f"give the kept dice: play reroll GAME {new} --keep {keep}"


def page_form(keep: str, new: str) -> str:
    """How ``serve``'s page enters a re-roll unambiguously: the dice held, then the new faces."""
    held = "no die" if keep == "-" else keep
    return f"hold {held} (tap those dice), tap Re-roll, then tap the new faces {new}"


PROMPT = Forms(prompt_form, "type 'stop' or mark items", "'fail N'", "enter the dice first, or 'told' for",
               "type the dice rolled, e.g. CCBJPP", rerolling="type 'keep KEPT new NEW'",
               mark=lambda items: f"type 'mark {items or 'ITEM...'}'", fail_best=", or 'fail best' for the advised one",
               undo="expected 'undo N', e.g. 'undo' (the last action) or 'undo 2' (the last two)",
               unstop="'undo'", over="the game is over (D18); to change the last action, type 'undo' ('status' shows the final "
                    "scores)", must_mark="mark one of its items ('advise' lists them)")
"""The ``play`` prompt's words."""
STEP = Forms(step_form, "play stop GAME, or mark items: play mark GAME ITEM...", "play fail GAME --shelf N",
             "roll first: play roll GAME DICE; or add --unchecked for",
             "play roll GAME DICE, e.g. play roll GAME CCBJPP", rerolling="play reroll GAME NEW --keep KEPT",
             mark=lambda items: f"play mark GAME {items or 'ITEM...'}",
             fail_best=", or --shelf best for the advised one",
             undo="expected play undo GAME N, e.g. play undo GAME 1 (the last action)", unstop="play undo GAME 1",
             over=GAME_OVER, must_mark="mark one of its items: play mark GAME ITEM... (play advise GAME lists them)")
"""The step commands' words."""
PAGE = Forms(page_form, "tap Stop (the dice are final), then tap the items to mark", "tapping shelf N",
             "tap the faces rolled first, or tap Told for", "tap the faces rolled",
             rerolling="tap the dice to hold, then tap Re-roll",
             mark=lambda items: f"tap {items or 'the items'} on the sheet, then tap Mark (after Stop while re-rolls "
                                "are left)",
             fail_best="", undo="tap Undo to take back the last action",
             unstop="tap Undo", over="the game is over (D18); to change the last action, tap Undo",
             must_mark="tap one of its items on the sheet, then tap Mark (the markings are listed, best first)")
"""``serve``'s page's words (docs/serve.md): its buttons, never a command to type."""


def read_reroll(before: Counts, typed: Counts, rules: Ruleset, keep: Counts | None = None,
                text: str = "", form: Forms = PROMPT,
                advised: Counts | None = None) -> tuple[Counts, Counts]:
    """The one reading ``(keep, after)`` of ``typed`` (the dice as typed: ``text``); ``form``
    words the commands a refusal names (:data:`PROMPT`, :data:`STEP`, :data:`PAGE`); ``advised``: the advised
    hold, which that refusal suggests when it is one of the readings.

    All the dice typed and equal to the dice before are refused naming the stop first (D7:
    keeping every die is stopping, the likelier meaning), then the re-roll that keeps the
    advised hold when it fits, else the re-roll's form with ``KEPT`` and ``NEW``: never a guess
    such as ``-`` (every die re-rolled and coming up the same) for the player to copy.

    Raises:
        ReadingError: no reading (the kept dice are not among the dice before, or not in the dice
            typed, or a count fits neither form), or several (the message gives the unambiguous
            form ``keep K new N``).
    """
    n = rules.dice

    def codes(dice: Counts) -> str:
        return dice_codes(dice, rules) or "nothing"

    shown = text.strip() or dice_codes(typed, rules)
    found = readings(before, typed, rules, keep)
    if len(found) == 1:
        return found[0]
    size = sum(typed)
    if keep is not None:
        if any(k > b for k, b in zip(keep, before)):
            raise ReadingError(f"cannot keep {codes(keep)}: {not_among(keep, before, rules)} (D7); "
                               "expected the kept dice, then the new dice")
        if keep == before:
            raise ReadingError(f"keeping every die is stopping (D7): {form.stop}")
        left = n - sum(keep)
        if size == n:
            raise ReadingError(f"the {n} dice {shown} do not contain the kept {codes(keep)} (D7: kept dice stay "
                               f"on the table); type the {left} new {_dice(left)} or all {n} dice now showing")
        raise ReadingError(f"keeping {codes(keep)} re-rolls {left} {_dice(left)}, but {size} new "
                           f"{'die was' if size == 1 else 'dice were'} given ({shown or 'none'}); expected the "
                           f"{left} new {_dice(left)} or all {n} dice now showing")
    if not found:  # fewer than n typed: none only when no die was typed
        raise ReadingError(f"no dice given after a re-roll of {codes(before)}; expected the new dice or all {n} dice "
                           "now showing")
    if advised is not None and not any(reading[0] == advised for reading in found):
        advised = None
    if_advised = "" if advised is None else \
        f"if you kept the advised {codes(advised)}: " if sum(advised) else "if you re-rolled every die as advised: "
    if size == n:
        if typed == before:
            if advised is None:
                again = "if dice were re-rolled and came up the same: " + form.reroll("KEPT", "NEW")
            else:
                again = if_advised.removesuffix(": ") + " and the dice came up the same: " + form.reroll(
                    codes(advised) if sum(advised) else "-", codes(tuple(t - a for t, a in zip(typed, advised))))
            raise ReadingError(f"{shown} are the dice that showed before the re-roll ({codes(before)}), so the dice "
                               f"kept are not known ({len(found)} readings): if no die was re-rolled, keeping every "
                               f"die is stopping (D7): {form.stop}; {again}")
        common = tuple(min(b, t) for b, t in zip(before, typed))
        hint = common if advised is None else advised
        new = tuple(t - h for t, h in zip(typed, hint))
        raise ReadingError(f"{shown} read as the {n} dice now showing after {codes(before)}, but the dice kept are "
                           f"not known: {codes(common)} may have stayed or been re-rolled ({len(found)} readings); "
                           + if_advised + form.reroll(codes(hint) if sum(hint) else "-", codes(new)))
    # never one reading picked for the player to copy: the advised hold, else KEPT to fill in
    kept = "KEPT" if advised is None else codes(advised)
    raise ReadingError(f"{shown} read as the {size} new {_dice(size)}, so {n - size} of {codes(before)} were kept, "
                       f"but which is not known ({len(found)} readings); " + if_advised + form.reroll(kept, shown))


def _add(a: Counts, b: Counts) -> Counts:
    return tuple(x + y for x, y in zip(a, b))


def _dice(count: int) -> str:
    return "die" if count == 1 else "dice"
