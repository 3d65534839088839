"""Printable strategy cheat sheets computed by the solver, click-free (docs/cheatsheet.md).

One idea per module, in dependency order:

- :mod:`.wording`: holds and roll patterns in words ("keep one pair and the Joker"; D7, D11).
- :mod:`.rules_of_thumb`: section 3, the solver's best first-roll holds grouped by pattern.
- :mod:`.compute`: the :class:`CheatSheet` and its exact numbers, sections 1-4 (D4-D13).
- :mod:`.tables`: the sections' tables, labels and notes as text, shared by every format.
- :mod:`.heatmap`: the item odds as a PNG (matplotlib, imported lazily).
- :mod:`.formats`: Markdown, one A4 HTML page, CSV.
- :mod:`.output`: :func:`generate` the files, :func:`write_files` them whole or not at all.

Code inside ``shelfie_solver`` imports from those modules. The names below are re-exported
for callers that want the sheet's public API in one namespace (``__all__`` lists them).
"""

from __future__ import annotations

from shelfie_solver.dice.cheatsheet.compute import (
    CheatSheet,
    HeldOdds,
    ItemOdds,
    RiskSample,
    SampleState,
    SetOdds,
    all_jokers_gap,
    build_sheet,
    face_set_odds,
    held_rows,
    item_odds,
    risk_sample,
    risk_samples,
    sample_states,
    set_odds,
    sheet_steps,
)
from shelfie_solver.dice.cheatsheet.formats import CSV_HEADERS, render_csv, render_html, render_markdown
from shelfie_solver.dice.cheatsheet.heatmap import HEATMAP_NAME, render_heatmap
from shelfie_solver.dice.cheatsheet.output import (
    SHEET_FORMATS,
    SHEET_NAMES,
    OutputError,
    check_output_dir,
    generate,
    sheet_files,
    write_files,
)
from shelfie_solver.dice.cheatsheet.rules_of_thumb import (
    ANY_HOLD,
    NO_RULE,
    RULE_AGREEMENT,
    RULES_COVERAGE,
    HoldRule,
    RollChoice,
    hold_rules,
    roll_choices,
)
from shelfie_solver.dice.cheatsheet.tables import chance_text, item_cell_text
from shelfie_solver.dice.cheatsheet.wording import ORDER_MARK, describe_hold, pattern_name, pattern_of

__all__ = [
    # compute
    "CheatSheet", "HeldOdds", "ItemOdds", "RiskSample", "SampleState", "SetOdds", "all_jokers_gap", "build_sheet",
    "face_set_odds", "held_rows", "item_odds", "risk_sample", "risk_samples", "sample_states", "set_odds",
    "sheet_steps",
    # formats, heatmap
    "CSV_HEADERS", "render_csv", "render_html", "render_markdown", "HEATMAP_NAME", "render_heatmap",
    # output
    "SHEET_FORMATS", "SHEET_NAMES", "OutputError", "check_output_dir", "generate", "sheet_files", "write_files",
    # rules_of_thumb
    "ANY_HOLD", "NO_RULE", "RULE_AGREEMENT", "RULES_COVERAGE", "HoldRule", "RollChoice", "hold_rules", "roll_choices",
    # tables, wording
    "chance_text", "item_cell_text", "ORDER_MARK", "describe_hold", "pattern_name", "pattern_of",
]
