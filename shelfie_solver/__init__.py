"""shelfie-solve: exact strategy engine for My Shelfie: The Dice Game (rules: RULES.md D1-D20).

Where things live:

* :mod:`.rules` — the ruleset (dice, faces, Joker limits D11/D12, threshold D19, end D17).
* :mod:`.board` — board layout (D3), marks/state (D4), scoring (D19).
* :mod:`.dice` — dice parsing, multisets and exact re-roll transitions (D6, D7).
* :mod:`.allocate` — the combination allocator: dice -> groups -> items (D8-D14).
* :mod:`.objectives` — what a final roll is worth (points, marks, cell, safe, strategic).
* :mod:`.engine` — the exact DP over (dice, re-rolls left) with optimal holds.
* :mod:`.advise` — the advice for one turn (holds or markings), click-free.
* :mod:`.render` — tables / JSON / CSV / Markdown output.
* :mod:`.cli` — the ``shelfie-solve`` command (a thin click layer).
"""

__version__ = "0.1.0"
