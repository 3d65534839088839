"""The words and numbers a piece of dice advice is told in, one wording for the tables of
``advise`` and ``play`` (:mod:`report`), their reason lines (:mod:`reasons`) and ``serve``'s page:
a hold in a sentence (``keep CC``, ``re-roll all``, ``stop``, D7) and a chance as a table cell
(a certainty without decimals). docs/advise.md, "Why".
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from fractions import Fraction

from shelfie_solver.core.report import and_list, percent, share_texts
from shelfie_solver.dice.rolls import Counts, dice_codes
from shelfie_solver.dice.rules import Ruleset


def signed_points(points: int) -> str:
    """A change of score with its sign and unit, singular for one: ``+1 point``, ``+3 points``,
    ``+0 points``, ``-1 point`` (D19's points)."""
    return f"{points:+d} point{'' if abs(points) == 1 else 's'}"


def hold_words(dice: Counts, keep: Counts, rules: Ruleset) -> str:
    """A hold in a sentence, the one wording the reason lines, the best line and the page share:
    ``keep CC``; ``re-roll all`` for none kept; ``stop`` for every die kept (D7)."""
    codes = dice_codes(keep, rules)
    if keep == dice:
        return "stop"
    return f"keep {codes}" if codes else "re-roll all"


def tie_list(names: Sequence[str], shown: int = 4) -> str:
    """The choices tied with the best (exact ties, D20's equal chances or an objective's equal
    values), the one wording of the ``Best:`` line and the reason: :func:`core.report.and_list` of them, the
    first ``shown`` and ``N more`` beyond: ``keep BBBBJ``, ``keep X and keep Y``, ``A, B, C, D and
    12 more``."""
    if len(names) > shown:
        return f"{', '.join(names[:shown])} and {len(names) - shown} more"
    return and_list(names)


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


#: Decimals of a hold's other chances (a failed result, D13; marking at least j items) in the
#: table of an objective that is not the chance to win (``percent``'s two); beside a chance to
#: win they have :data:`CHANCE_PLACES`.
RISK_PLACES = 2


def risk_cell(value: Fraction, beside_win: bool) -> str:
    """A hold's failed-result chance (D13) or chance to mark at least j items as its table prints
    it, and as the title's ``failed-result chance`` and the reason line say it: :func:`chance_cell`
    at :data:`CHANCE_PLACES` beside a chance to win (``beside_win``: the table of ``win``), else at
    :data:`RISK_PLACES`, so the title reads as the best hold's ``failed`` cell (``0%`` for none,
    ``0.02%``, never ``<0.1%`` above a cell of ``0.02%``)."""
    return chance_cell(value, CHANCE_PLACES if beside_win else RISK_PLACES)


def chance_cells(values: Sequence[Fraction], places: int = CHANCE_PLACES, pinned: Collection[int] = ()) -> list[str]:
    """Every seat's chance to win shown side by side (``play status``, ``rollout``, ``serve``'s
    rollout): as :func:`chance_cell` prints each, but rounded together so that they add up to
    exactly 100% (:func:`core.report.share_units`: each within one unit of its own rounding, a
    positive chance never ``0%``, one below 1 never ``100%``; exactly 0 and 1 print ``0%`` and
    ``100%``). Where the chances do not add up to 1, or cannot be rounded so, each is
    :func:`chance_cell` on its own. E.g. 1/3, 1/3, 1/3 print ``33.4%``, ``33.3%``, ``33.3%``.
    ``pinned``: the seats whose figure another screen shows on its own (``play status``: the
    chance the advice gave the marking just made, and the roller's value), printed as there,
    :func:`chance_cell`; the others absorb the rounding (:func:`core.report.share_units`)."""
    return share_texts(values, places, lambda v: chance_cell(v, places), pinned)
