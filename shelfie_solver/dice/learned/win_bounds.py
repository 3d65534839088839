"""The bounds within which the win model's features are computed in int64 (docs/win-chance.md,
"Boards of high values"): one home for :func:`learned.win_model.design` and the compiled
:func:`learned.kernel._win_strengths_into`, which check the same bounds and beyond them give way
to exact Python integers (kept apart so the kernel need not import :mod:`learned.win_model`,
which would add its imports to ``simulate``'s start-up).

Every seat's ``|P|`` and ``|score| * WEIGHT_SCALE`` below :data:`DESIGN_INPUT_BOUND` (2**40, about
11 million points) and the round below :data:`DESIGN_ROUND_BOUND` keep ``P x r``, ``score x r`` and
``F`` below 2**61; a lead below :data:`DESIGN_LEAD_BOUND` (2**31, about 21,000 points) keeps
``lead x |lead|`` below 2**62 (a board of values up to 10,000, docs/formats.md, can lead by far
more before its value scale is applied). numba freezes these into the compiled kernel (clear
``__pycache__`` after changing one, as for ``engine/kernel.py``).
"""

from __future__ import annotations

#: Every seat's ``|P|`` and ``|score| * WEIGHT_SCALE`` are below this for int64 (module docstring).
DESIGN_INPUT_BOUND = 1 << 40
#: The round is below this for int64.
DESIGN_ROUND_BOUND = 1 << 20
#: Every seat's ``|lead|`` (``P`` minus the best other seat's) is below this for int64.
DESIGN_LEAD_BOUND = 1 << 31

#: A line's state for the sheet features of the win model (docs/win-chance.md, "The sheets'
#: line states"): its marked count ``m`` capped at this and its available count ``a`` capped at
#: this minus the capped ``m`` (D4, D19; exact on a board of lines of 5 items, the default).
LINE_STATE_CAP = 5
#: The states of one line: ``(m, a)`` with ``m + a <= LINE_STATE_CAP``, numbered by
#: :func:`line_state` (21 with lines of 5).
LINE_STATES = (LINE_STATE_CAP + 1) * (LINE_STATE_CAP + 2) // 2


def line_state(m: int, a: int) -> int:
    """The number of the state of a line with ``m`` items marked and ``a`` available (D4): ``m``
    capped at :data:`LINE_STATE_CAP`, ``a`` at the cap minus that; 0 to ``LINE_STATES - 1``,
    ``(0, 0)`` first, then ``(0, 1)``, ..., ``(0, 5)``, ``(1, 0)``, ... The same in the numpy
    :func:`learned.win_model.sheet_states` and the compiled kernel (which copies it)."""
    mm = min(m, LINE_STATE_CAP)
    aa = min(a, LINE_STATE_CAP - mm)
    return mm * (LINE_STATE_CAP + 1) - mm * (mm - 1) // 2 + aa
