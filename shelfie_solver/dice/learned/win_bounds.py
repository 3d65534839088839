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
