"""Rounding and display that never overstate (docs/formats.md, "Numbers"); face words; --top;
p/q with floats."""

from __future__ import annotations

import csv
import io
import json
from fractions import Fraction

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import assert_one_line_error
from shelfie_solver.cli import main
from shelfie_solver.dice.rolls import parse_dice
from shelfie_solver.dice.errors import DiceError
from shelfie_solver.core.report import one_in, one_in_texts, percent, share_units
from shelfie_solver.dice.advise.words import chance_cell, chance_cells


@pytest.mark.parametrize("value, text", [
    (Fraction(186623, 186624), ">99.99%"),   # once printed ">=2 items 100.00%"
    (Fraction(1, 186624), "<0.01%"),
    (Fraction(19999, 20000), ">99.99%"),     # 99.995% would round up to 100.00
    (Fraction(9999, 10000), "99.99%"),       # exactly 99.99%
    (Fraction(1, 20000), "0.01%"),           # 0.005% rounds half up to 0.01
    (Fraction(1, 20001), "<0.01%"),
    (Fraction(1), "100.00%"),
    (Fraction(0), "0.00%"),
    (Fraction(15, 16), "93.75%"),
])
def test_percent_never_prints_a_false_certainty(value, text):
    assert percent(value) == text


def test_percent_one_decimal():
    assert percent(Fraction(1999, 2000), 1) == ">99.9%" and percent(Fraction(1, 2001), 1) == "<0.1%"


@settings(max_examples=300, deadline=None)
@given(st.fractions(min_value=0, max_value=1, max_denominator=10**9), st.integers(0, 3))
def test_percent_is_certain_only_when_exact(value, places):
    text = percent(value, places)
    if 0 < value < 1:
        assert not text.startswith("100") and Fraction(text.lstrip("<>").rstrip("%")) > 0
    else:
        assert text[0] not in "<>"


def test_one_in_tells_values_apart():
    """Once, 93.75% and 87.50% both printed "1 in 1.1"; 16/15 = 1.0667, 8/7 = 1.1429."""
    assert one_in_texts([Fraction(15, 16), Fraction(7, 8)]) == ["1 in 1.07", "1 in 1.14"]
    assert one_in(Fraction(347897, 7558272)) == "1 in 21.7"  # 7558272/347897 = 21.72...
    assert one_in(Fraction(1, 186624)) == "1 in 186,624"
    assert one_in(Fraction(186623, 186624)) == "1 in 1.00001"  # never "1 in 1" below certainty
    assert one_in(Fraction(1)) == "certain" and one_in(Fraction(0)) == "never"  # not "1 in 1"
    close = [Fraction(1000, 1001), Fraction(1001, 1002)]  # 1.001 and 1.000998...
    texts = one_in_texts(close)
    assert texts[0] != texts[1]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.fractions(min_value=Fraction(1, 10**6), max_value=1, max_denominator=10**6), min_size=1,
                max_size=8))
def test_one_in_distinct_values_print_distinctly(values):
    texts = one_in_texts(values)
    assert len({t for t in texts}) == len(set(values))


def test_odds_table_one_in_column_is_distinct():
    result = CliRunner().invoke(main, ["odds", "--target", "3C+2B", "--dice", "CCBJPP", "--top", "100"])
    assert result.exit_code == 0, result.output
    data = json.loads(CliRunner().invoke(main, ["odds", "--target", "3C+2B", "--dice", "CCBJPP",
                                                "--format", "json"]).stdout)
    chances = {Fraction(h["probability"]) for h in data["holds"]}
    lines = [line for line in result.stdout.splitlines() if " 1 in " in line and "/" in line]
    odds_texts = {line[line.index("1 in"):].strip() for line in lines if not line.startswith(("Optimal", "Baseline"))}
    assert len(odds_texts) == len(chances - {Fraction(0)})


def test_advise_never_shows_false_certainty():
    """Every percentage in the advise table of an ordinary position: 100.00%/0.00% only when exact."""
    result = CliRunner().invoke(main, ["advise", "--dice", "CCBJPP", "--top", "100", "--format", "json"])
    table = CliRunner().invoke(main, ["advise", "--dice", "CCBJPP", "--top", "100"]).stdout
    for hold in json.loads(result.stdout)["holds"]:
        for p in [hold["fail"], *hold["at_least"].values()]:
            if Fraction(p) not in (0, 1):
                assert percent(Fraction(p)) not in ("100.00%", "0.00%")
    assert "%" in table


# --- face names -------------------------------------------------------------------------------

@pytest.mark.parametrize("text", ["cats cat book joker plant plant", "CATS;cat;Book;jokers;plants;plant",
                                  "C,C,B,J,P,P", "c c b j p p", "CCBJPP", "cat cats book jokers plant plant"])
def test_face_words_and_plurals(rules, text):
    assert parse_dice(text, rules) == parse_dice("CCBJPP", rules)


@pytest.mark.parametrize("text, word", [
    ("dogs cat book joker plant plant", "'dogs'"),
    ("cat catz book joker plant plant", "'catz'"),
    ("CCBXPP", "'X'"),
])
def test_unknown_word_is_reported_as_a_word(rules, text, word):
    with pytest.raises(DiceError) as error:
        parse_dice(text, rules)
    assert word in str(error.value) and "plurals allowed" in str(error.value)


def test_unknown_word_cli_one_line():
    assert_one_line_error(CliRunner().invoke(main, ["advise", "--dice", "dogs cat book joker plant plant"]),
                          "unknown face 'dogs'")


# --- --top and machine formats ------------------------------------------------------------------

@pytest.mark.parametrize("command", [["advise", "--dice", "CCBJPP"],
                                     ["odds", "--target", "3C", "--dice", "CCBJPP"]])
def test_top_limits_table_and_markdown_not_json_or_csv(command):
    runner = CliRunner()
    full = json.loads(runner.invoke(main, [*command, "--format", "json", "--top", "2"]).stdout)["holds"]
    assert len(full) > 2
    rows = list(csv.DictReader(io.StringIO(runner.invoke(main, [*command, "--format", "csv", "--top", "2"]).stdout)))
    assert len(rows) == len(full)
    table = runner.invoke(main, [*command, "--top", "2"]).stdout
    assert f"{len(full) - 2} more holds not shown (--top)" in table
    markdown = runner.invoke(main, [*command, "--top", "2", "--format", "markdown"]).stdout
    assert f"{len(full) - 2} more holds not shown (--top)" in markdown
    help_text = " ".join(runner.invoke(main, [command[0], "--help"]).stdout.split())
    assert "table and markdown output (JSON and CSV list all)" in help_text


def test_json_and_csv_give_p_over_q_and_float():
    """Every exact value of advise's holds and failed-result shelves comes as "p/q" and float."""
    data = json.loads(CliRunner().invoke(main, ["advise", "--dice", "CCBJPP", "--format", "json"]).stdout)
    for hold in data["holds"]:
        for key in ("value", "points", "fail"):
            assert abs(float(Fraction(hold[key])) - hold[f"{key}_float"]) < 1e-12
    rows = list(csv.DictReader(io.StringIO(CliRunner().invoke(main, ["advise", "--dice", "CCBJPP", "--format",
                                                                     "csv"]).stdout)))
    assert {"value", "value_float", "points", "points_float", "reroll"} <= rows[0].keys()


def test_simulate_csv_has_exact_means_and_margins():
    result = CliRunner().invoke(main, ["simulate", "--players", "solver,greedy", "--games", "3", "--seed", "1",
                                       "--format", "csv", "--jobs", "1"])
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    for row in rows:
        assert abs(float(Fraction(row["mean_exact"])) - float(row["mean"])) < 1e-9
    assert {"win_margin", "score_margin"} <= {r["statistic"] for r in rows}


def test_issue_literal_186623_over_186624_is_not_100_percent():
    """Once reported: a ">=2 items" chance of 186623/186624 printed as 100.00%. On the empty
    board keeping P and J with two re-rolls left has exactly that chance (the reported figure)."""
    data = json.loads(CliRunner().invoke(main, ["advise", "--dice", "CCBJPP", "--format", "json"]).stdout)
    hold = next(h for h in data["holds"] if h["keep"] == "PJ")
    assert Fraction(hold["at_least"]["2"]) == Fraction(186623, 186624)
    table = CliRunner().invoke(main, ["advise", "--dice", "CCBJPP", "--top", "100"]).stdout
    row = next(line.split() for line in table.splitlines() if line.split()[1:2] == ["PJ"])
    assert ">99.99%" in row and "100%" in row  # >=2 items not certain; >=1 item exactly certain (no decimals)


# --- every seat's chance side by side adds up to 100% (advise.words.chance_cells) -------------



@pytest.mark.parametrize("values, texts", [
    # 1/3 = 33.333...%: each rounds to 33.3, three make 99.9; the one unit left goes to seat 1
    ([Fraction(1, 3)] * 3, ["33.4%", "33.3%", "33.3%"]),
    # 1/6 = 16.666...%: each rounds to 16.7, six make 100.2; floors 16.6 x 6 = 99.6, four units left
    ([Fraction(1, 6)] * 6, ["16.7%", "16.7%", "16.7%", "16.7%", "16.6%", "16.6%"]),
    # 0.06% rounds to 0.1 on its own; 99.94% to 99.9: 100.0 already, nothing moves
    ([Fraction(6, 10000), Fraction(9994, 10000)], ["0.1%", "99.9%"]),
    # 0.04% alone rounds to 0.0: a positive chance gets one unit, taken from 99.96% (never 100.0)
    ([Fraction(4, 10000), Fraction(9996, 10000)], ["0.1%", "99.9%"]),
    # exactly 0 and 1 stay certainties, without decimals (chance_cell)
    ([Fraction(0), Fraction(1), Fraction(0)], ["0%", "100%", "0%"]),
    # 0.15%, 0.25%, 99.6%: alone 0.2 + 0.3 + 99.6 = 100.1; floors 0.1 + 0.2 + 99.6, remainders .5 .5 0:
    # the one unit to the earlier seat
    ([Fraction(15, 10000), Fraction(25, 10000), Fraction(996, 1000)], ["0.2%", "0.2%", "99.6%"]),
])
def test_chances_side_by_side_add_up_to_100(values, texts):
    assert chance_cells(values) == texts


def test_chances_that_cannot_add_up_are_each_rounded_alone():
    # 99.97% and three of 0.01%: each positive one needs 0.1 and the first at most 99.9: 100.2 > 100
    values = [Fraction(9997, 10000)] + [Fraction(1, 10000)] * 3
    assert share_units(values, 1) is None
    assert chance_cells(values) == [">99.9%", "<0.1%", "<0.1%", "<0.1%"]
    # not adding up to 1 (model chances of seats not normalised): each on its own
    assert chance_cells([Fraction(1, 3), Fraction(1, 3)]) == ["33.3%", "33.3%"]


@pytest.mark.parametrize("values, pinned, texts", [
    # the new user's position: the advice gave the marking 4.9463% (4.9% on its own); unpinned the
    # largest remainder (.463 against .268 and .269) raised it to 5.0% beside the advice's 4.9%
    ([Fraction(49463, 10**6), Fraction(475268, 10**6), Fraction(475269, 10**6)], (), ["5.0%", "47.5%", "47.5%"]),
    ([Fraction(49463, 10**6), Fraction(475268, 10**6), Fraction(475269, 10**6)], (0,), ["4.9%", "47.5%", "47.6%"]),
    # 1/3 each: the pinned seat keeps 33.3, the unit left goes to the earliest other
    ([Fraction(1, 3)] * 3, (0,), ["33.3%", "33.4%", "33.3%"]),
    ([Fraction(1, 3)] * 3, (0, 1), ["33.3%", "33.3%", "33.4%"]),
    # a tiny pinned share prints as the advice prints it (<0.1%), counted as one unit
    ([Fraction(4, 10000), Fraction(4998, 10000), Fraction(4998, 10000)], (0,), ["<0.1%", "50.0%", "49.9%"]),
    # two seats pinned, whose own roundings cannot add up (49.95% and 50.05%: 50.0 + 50.1): each alone
    ([Fraction(4995, 10000), Fraction(5005, 10000)], (0, 1), ["50.0%", "50.1%"]),
])
def test_a_pinned_seat_keeps_the_rounding_the_advice_shows(values, pinned, texts):
    """play status pins the seats whose figure another screen shows on its own (the chance the
    advice gave the marking just made, the roller's): they print as chance_cell prints them."""
    assert chance_cells(values, pinned=pinned) == texts
    for i in pinned:
        assert texts[i] == chance_cell(values[i])


@st.composite
def _shares(draw):
    """Two to six shares adding up to exactly 1, some of them tiny, 0 or 1."""
    weights = draw(st.lists(st.one_of(st.integers(0, 10**6), st.sampled_from([0, 1, 2, 10**9])), min_size=2, max_size=6))
    total = sum(weights)
    if total == 0:
        weights[0], total = 1, 1
    return [Fraction(w, total) for w in weights]


@settings(max_examples=400, deadline=None)
@given(_shares(), st.integers(0, 2))
def test_share_units_add_up_and_stay_within_one_unit(values, places):
    units = share_units(values, places)
    scale = 100 * 10**places
    if units is None:  # only where the limits cannot hold: more tiny shares than units to spare
        floors = sum(max(int(v * scale), 1 if v > 0 else 0) for v in values)
        assert floors > scale
        return
    assert sum(units) == scale
    for v, u in zip(values, units):
        own = Fraction(percent(v, places).lstrip("<>").rstrip("%")) * 10**places if 0 < v < 1 else v * scale
        assert abs(u - v * scale) < 1 and abs(u - own) <= 1
        assert (u == 0) == (v == 0) and (u == scale) == (v == 1)
    texts = chance_cells(values, places)
    assert sum(Fraction(t.rstrip("%")) for t in texts) == 100
    assert all(t == chance_cell(v, places) for t, v in zip(texts, values) if v in (0, 1))


@pytest.mark.parametrize("value, places, text", [
    (6.04, 1, "+6.0"), (-9.66, 1, "-9.7"), (-0.04, 1, "0.0"), (0.04, 1, "0.0"), (-0.004, 2, "0.00"),
    (0.0, 2, "0.00"), (43.75, 2, "+43.75"),
])
def test_signed_never_prints_a_signed_zero(value, places, text):
    from shelfie_solver.core.report import signed

    assert signed(value, places) == text


@pytest.mark.parametrize("value, places, text", [
    (-0.001, 2, "0.00"), (-0.004, 2, "0.00"), (0.004, 2, "0.00"), (-0.006, 2, "-0.01"), (0.25, 2, "0.25"),
    (-1.5, 2, "-1.50"), (-0.04, 1, "0.0"),
])
def test_fixed_never_prints_a_negative_zero(value, places, text):
    """core/report.fixed: f"{-0.001:.2f}" is '-0.00'; what rounds to zero prints 0.00."""
    from shelfie_solver.core.report import fixed

    assert fixed(value, places) == text


def test_every_interval_is_written_low_high_in_brackets():
    """docs/formats.md "Numbers": one written form of an interval, ``[low, high]``, each end in
    the units of its figure; the margins of ``simulate`` put the mean's sign and the interval's."""
    from shelfie_solver.core.report import interval, signed
    from shelfie_solver.core.stats import estimate
    from shelfie_solver.core.tournament_report import margin_text

    assert interval(0.311, 0.4025, lambda x: f"{x * 100:.1f}%") == "[31.1%, 40.2%]"
    assert interval(-0.097, 0.005, lambda x: signed(x * 100, 1)) == "[-9.7, +0.5]"
    # two games, 1 and 3: mean 2, sd sqrt(2), t(0.975, 1) = 12.706: 2 +- 12.706, clipped to the
    # values seen [1, 3]
    assert margin_text(estimate([1, 3]), 2) == "+2.00 [+1.00, +3.00]"
    assert margin_text(estimate([Fraction(-1, 2), Fraction(-1, 2)]), 1, 100, " percentage points") == \
        "-50.0 percentage points [all -0.50; others <= 65.8%]"  # unanimous: z^2 / (2 + z^2) = 3.8415 / 5.8415
    assert margin_text(estimate([4]), 2) == "+4.00 [one game: no interval]"


def test_a_rollout_chance_interval_reads_as_the_tables_chances():
    """rollout's 95% column and the page's ``ci95_shown``: the Wilson interval of 0 wins in 40
    games is 0 to z^2 / (40 + z^2) = 3.8415 / 43.8415 = 8.76%, its ends as the tables print a
    chance: ``[0%, 8.8%]``; all 40 won: ``[91.2%, 100%]``."""
    from shelfie_solver.core.stats import PROPORTION, estimate
    from shelfie_solver.dice.rollout.report import span_cell

    assert span_cell(estimate([0] * 40, PROPORTION)) == "[0%, 8.8%]"
    assert span_cell(estimate([1] * 40, PROPORTION)) == "[91.2%, 100%]"
