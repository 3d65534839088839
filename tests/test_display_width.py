"""Terminal display width (core/report): a wide (CJK) character takes two columns, a combining
mark none; the compact sheets of the ``play`` screen cut and pad names by columns, so a player
named in CJK keeps four sheets aligned within 80 columns (docs/play.md, "What is shown")."""

from __future__ import annotations

from shelfie_solver.core.report import cut_to_width, display_width, pad_to_width
from shelfie_solver.dice.play.gamefile import start_kept_game
from shelfie_solver.dice.play.report import compact_sheets


def test_widths_by_hand():
    assert display_width("Ann") == 3 and display_width("日本") == 4 and display_width("e\u0301") == 1
    assert cut_to_width("日本語名前", 5) == "日本" and cut_to_width("Ann", 12) == "Ann"
    assert pad_to_width("日本", 6) == "日本  " and pad_to_width("toolong", 3) == "toolong"


def test_a_cjk_name_keeps_the_grid_of_an_ascii_name_of_its_width(board, rules):
    """'日本語名前名前名前' cut to 12 columns is '日本語名前名' (12 columns): every row of the
    sheets is then the row of a 12-letter ASCII name, column for column."""
    wide = compact_sheets(start_kept_game(board, rules, ("日本語名前名前名前", "Ben", "Çé", "me"), 0), "round 1")
    plain = compact_sheets(start_kept_game(board, rules, ("abcdefghijkl", "Ben", "Çé", "me"), 0), "round 1")
    assert wide[0] == plain[0].replace("abcdefghijkl", "日本語名前名")
    assert wide[1:] == plain[1:]
    assert all(display_width(row) <= 80 for row in wide)
