"""The words and numbers a piece of dice advice is told in, one wording for the tables of
``advise`` and ``play`` (:mod:`report`), their reason lines (:mod:`reasons`) and ``serve``'s page:
a hold in a sentence (``keep CC``, ``re-roll all``, ``stop``, D7) and a chance as a table cell
(a certainty without decimals). docs/advise.md, "Why".
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from shelfie_solver.core.report import percent, share_texts
from shelfie_solver.dice.rolls import Counts, dice_codes
from shelfie_solver.dice.rules import Ruleset


def hold_words(dice: Counts, keep: Counts, rules: Ruleset) -> str:
    """A hold in a sentence, the one wording the reason lines, the best line and the page share:
    ``keep CC``; ``re-roll all`` for none kept; ``stop`` for every die kept (D7)."""
    codes = dice_codes(keep, rules)
    if keep == dice:
        return "stop"
    return f"keep {codes}" if codes else "re-roll all"


#: Decimals of a chance to win (and of a failed-result chance) in the tables of ``advise`` and
#: ``play``, and in their reason lines.
CHANCE_PLACES = 1


def chance_cell(value: Fraction, places: int = CHANCE_PLACES) -> str:
    """A chance as the tables print it: :func:`core.report.percent` at ``places`` decimals, but a
    certainty without decimals (exactly 0 is ``0%`` and exactly 1 ``100%``), so that ``0.0%`` never
    stands beside ``<0.1%``: a chance strictly between prints as ``<0.1%`` or ``>99.9%``."""
    if value in (0, 1):
        return f"{int(value) * 100}%"
    return percent(value, places)


def chance_cells(values: Sequence[Fraction], places: int = CHANCE_PLACES) -> list[str]:
    """Every seat's chance to win shown side by side (``play status``, ``rollout``, ``serve``'s
    rollout): as :func:`chance_cell` prints each, but rounded together so that they add up to
    exactly 100% (:func:`core.report.share_units`: each within one unit of its own rounding, a
    positive chance never ``0%``, one below 1 never ``100%``; exactly 0 and 1 print ``0%`` and
    ``100%``). Where the chances do not add up to 1, or cannot be rounded so, each is
    :func:`chance_cell` on its own. E.g. 1/3, 1/3, 1/3 print ``33.4%``, ``33.3%``, ``33.3%``."""
    return share_texts(values, places, lambda v: chance_cell(v, places))
