"""The cheat sheet's tables, labels and notes as text, shared by every format (docs/cheatsheet.md).

Each ``*_table`` function returns ``(headers, rows)`` of plain strings for one section of a
:class:`~shelfie_solver.dice.cheatsheet.compute.CheatSheet`; :func:`section_notes`,
:func:`setup_lines` and :func:`all_jokers_note` give the prose around them (citing D4-D13). The
Markdown, HTML and CSV renderers (:mod:`~shelfie_solver.dice.cheatsheet.formats`) lay them out.
Probabilities never round to a false certainty (:func:`chance_text`).
"""

from __future__ import annotations

from fractions import Fraction

from shelfie_solver.core.report import decimal, percent
from shelfie_solver.dice.board import Board
from shelfie_solver.dice.cheatsheet.compute import CheatSheet, ItemOdds, RiskSample, SetOdds, held_rows
from shelfie_solver.dice.cheatsheet.rules_of_thumb import RULE_AGREEMENT, HoldRule
from shelfie_solver.dice.cheatsheet.wording import describe_hold, dice_text, joined, number_word, pattern_name
from shelfie_solver.dice.rolls import dice_codes
from shelfie_solver.dice.rules import Ruleset


def _face_names(faces: tuple[int, ...], rules: Ruleset) -> str:
    return joined([rules.sides[f].name for f in faces])


def set_label(entry: SetOdds, rules: Ruleset) -> str:
    """``any one face`` when an entry covers every item face, else the faces' names."""
    if len(entry.faces) == rules.n_faces and rules.n_faces > 1:
        return "any one face"
    return _face_names(entry.faces, rules)


def held_label(matching: int, joker: bool) -> str:
    """``2 matching``, ``1 matching + Joker``, ``Joker only``."""
    if joker:
        return "Joker only" if matching == 0 else f"{matching} matching + Joker"
    return f"{matching} matching"


def chance_text(value: Fraction) -> str:
    """A probability for display with two decimals, never rounding to a false certainty:
    ``0%`` and ``100%`` only when exact, else at least ``<0.01%`` / at most ``>99.99%``."""
    if value == 0 or value == 1:
        return f"{int(value) * 100}%"
    return percent(value)  # the shared formatter: <0.01% / >99.99% (docs/formats.md, "Numbers")


def rerolls_text(n: int) -> str:
    """``1 re-roll``, ``2 re-rolls``."""
    return f"{n} re-roll" if n == 1 else f"{n} re-rolls"


def item_cell_text(item: ItemOdds) -> str:
    """``96.25%``, ``marked`` or ``eliminated``."""
    return chance_text(item.chance) if item.chance is not None else item.state.name.lower()


def shelf_heading(board: Board, rules: Ruleset, shelf: int) -> str:
    """``shelf 1 (cat)``."""
    return f"shelf {shelf + 1} ({board.shelf_label(shelf, rules)})"


def column_heading(board: Board, column: int) -> str:
    """``col 3: 3 dice``."""
    return f"col {column + 1}: {dice_text(board.columns[column])}"


def item_table(sheet: CheatSheet, compact: bool = False) -> tuple[list[str], list[list[str]]]:
    """Headers and rows of the item odds table (shelves x columns); ``compact`` shortens the
    labels for the printed page (``s1 cat``, ``c3: 3 dice``)."""
    board, rules = sheet.board, sheet.rules
    if compact:
        headers = ["shelf"] + [f"c{c + 1}: {dice_text(n)}" for c, n in enumerate(board.columns)]
        labels = [f"s{s + 1} {board.shelf_label(s, rules)}" for s in range(board.n_shelves)]
    else:
        headers = ["shelf \\ column"] + [column_heading(board, c) for c in range(board.n_columns)]
        labels = [shelf_heading(board, rules, s) for s in range(board.n_shelves)]
    rows = [[labels[s]] + [item_cell_text(sheet.items[board.cell(s, c)]) for c in range(board.n_columns)]
            for s in range(board.n_shelves)]
    return headers, rows


def fresh_table(sheet: CheatSheet, entry: SetOdds) -> tuple[list[str], list[list[str]]]:
    """Headers and rows of the set odds table from a fresh roll, for one entry."""
    headers = ["matching dice", "no re-roll"] + [f"{rerolls_text(r)}" for r in range(1, sheet.rules.rerolls + 1)]
    rows = [[str(n)] + [chance_text(p) for p in chances] for n, chances in enumerate(entry.fresh, start=1)]
    return headers, rows


def held_table(sheet: CheatSheet, entry: SetOdds, rerolls: int,
               compact: bool = False) -> tuple[list[str], list[list[str]]]:
    """Headers and rows of the mid-turn table for ``rerolls`` re-rolls left: rows = holds,
    columns = target set sizes 2..dice; ``made`` where the held dice already form the set.
    ``compact`` labels holds ``2``, ``1+J`` and targets by their size only."""
    targets = list(range(2, sheet.rules.dice + 1))
    lookup = {(h.target, h.matching, h.joker): h for h in entry.held if h.rerolls == rerolls}
    if compact:
        headers = ["held \\ set of"] + [str(n) for n in targets]
    else:
        headers = ["holding"] + [f"{n} of a kind" for n in targets]
    rows = []
    for matching, joker in held_rows(sheet.rules):
        label = held_label(matching, joker)
        if compact:
            code = sheet.rules.joker.code if sheet.rules.joker else ""
            label = f"{matching or ''}{'+' if matching and joker else ''}{code if joker else ''}"
        row = [label]
        for n in targets:
            odds = lookup[(n, matching, joker)]
            row.append("made" if odds.made else chance_text(odds.chance))
        rows.append(row)
    return headers, rows


def _margin_text(value: Fraction) -> str:
    return decimal(value, 2)


def _share_text(value: Fraction) -> str:
    return f"{percent(value)} ({value.numerator}/{value.denominator})"


def _agree_text(value: Fraction) -> str:
    return "all" if value == 1 else chance_text(value)


def advice_text(rule: HoldRule) -> str:
    """A rule's advice, with the closest words when no rule holds (:data:`rules_of_thumb.NO_RULE`)."""
    return rule.advice if rule.holds else f"{rule.advice} (closest: {rule.closest})"


def rules_table(sheet: CheatSheet) -> tuple[list[str], list[list[str]]]:
    """Headers and rows of the hold rules of thumb (the section note explains the headers)."""
    rules = sheet.rules
    headers = ["first roll", "share", "best hold", "agree", "margin", "example"]
    rows = [[pattern_name(r.pattern), _share_text(r.share), advice_text(r), _agree_text(r.agree),
             _margin_text(r.margin),
             f"{dice_codes(r.example[0], rules)}: keep {dice_codes(r.example[1], rules) or 'nothing'}"]
            for r in sheet.rules_of_thumb]
    return headers, rows


def hold_text(sample: RiskSample, rules: Ruleset) -> str:
    """A risk sample's best hold in words and dice codes, with its ties (``-`` when it has none)."""
    if sample.hold is None or sample.roll is None:
        return "-"
    words = describe_hold(sample.roll, sample.hold, rules)
    codes = dice_codes(sample.hold, rules)
    text = f"{words} ({codes})" if codes and sample.hold != sample.roll else words
    if sample.ties:
        text += f", tied with {sample.ties} other hold{'s' if sample.ties != 1 else ''}"
    return text


def risk_table(sheet: CheatSheet) -> tuple[list[str], list[list[str]]]:
    """Headers and rows of the failed-result risk table (the section note explains the headers)."""
    rules, board = sheet.rules, sheet.board
    headers = ["sample state", "available items", "risk", "failing roll", "best hold", "after it", "re-roll all"]
    rows = []
    for s in sheet.risks:
        rows.append([s.state.name, " ".join(board.cell_name(c) for c in s.state.cells), chance_text(s.risk),
                     dice_codes(s.roll, rules) if s.roll else "none (every roll marks)", hold_text(s, rules),
                     chance_text(s.hold_risk) if s.hold_risk is not None else "-",
                     chance_text(s.reroll_risk) if s.reroll_risk is not None else "-"])
    return headers, rows


def setup_lines(sheet: CheatSheet) -> list[str]:
    """The sheet's setup: board and state, then the ruleset."""
    rules, board = sheet.rules, sheet.board
    joker = f" + {rules.joker.name}" if rules.joker else ""
    faces = ", ".join(f"{f.code}={f.name}" for f in rules.sides)
    state = "empty board" if not (sheet.marks.marked or sheet.marks.eliminated) else f"marks '{sheet.marks}'"
    return [f"Board {board.name!r}, {state}.",
            f"Rules {rules.name!r}: {rules.dice} dice with {rules.n_faces} faces{joker} ({faces}), "
            f"{rerolls_text(rules.rerolls)}, up to {rules.combinations_per_turn} combinations per turn."]


def joker_legend(rules: Ruleset) -> str:
    """``" J = Joker."`` with the Joker's code (a leading space), empty without a Joker."""
    return f" {rules.joker.code} = Joker." if rules.joker else ""


def _joker_note(rules: Ruleset) -> str:
    """How Jokers count toward a set under the ruleset (D11)."""
    if rules.jokers_per_group == 0:
        return "Jokers do not count toward a set in this ruleset (D11)."
    jokers = "one Joker" if rules.jokers_per_group == 1 else f"up to {rules.jokers_per_group} Jokers"
    alone = "" if rules.joker_alone else ", never Jokers alone, so not in a set of 1"
    return f"A Joker counts as a matching die: {jokers} per set{alone} (D11)."


def all_jokers_note(sheet: CheatSheet, entry: SetOdds, gap: tuple[ItemOdds, Fraction] | None) -> str | None:
    """The footnote under ``entry``'s fresh-roll table when an item of its faces has odds above
    them (``gap``: the sheet's :func:`compute.all_jokers_gap`), else ``None``."""
    if gap is None or sheet.board.faces_of(gap[0].cell)[0] not in entry.faces:
        return None
    item, chance = gap
    n, jokers = sheet.board.need(item.cell), number_word(sheet.rules.dice)
    assert item.chance is not None
    return (f"Note: item odds (section 1) are a little above these set odds with {rerolls_text(sheet.rules.rerolls)} "
            f"(largest gap: {sheet.board.cell_name(item.cell)}, {chance_text(item.chance)} against "
            f"{chance_text(chance)} for {n} matching dice): {jokers} Jokers mark any one item (D12) but are no set "
            "(D11).")


def section_notes(sheet: CheatSheet) -> dict[str, str]:
    """The note under each section's heading, by key: ``items``, ``sets``, ``held``, ``rules``, ``risk``."""
    rules = sheet.rules
    faces_note = "Faces with different figures get their own table."
    if len(sheet.sets) == 1 and rules.n_faces > 1:
        faces_note = "All item faces give exactly the same figures (checked), so one table serves every face."
    joker_note = f" {_joker_note(rules)}" if rules.joker else ""
    return {
        "items": "Chance of marking each item this turn, playing every roll and re-roll for that item alone "
                 "(from the start of a turn; D6-D12).",
        "sets": f"Chance of a set of n matching dice of one face, holding optimally for it.{joker_note} {faces_note}",
        "held": "Mid-turn: chance of completing the set by the end of the turn, holding the dice listed and "
                "re-rolling the rest, then holding optimally. 'made': the held dice already form the set.",
        "rules": (f"The solver's best hold for the first roll ({rerolls_text(rules.rerolls)} left) under the strategic "
                  f"objective (docs/objectives.md) on this board state, for the most common first-roll patterns "
                  f"({chance_text(sheet.coverage)} of first rolls). share: of first rolls (exact); agree: share of "
                  f"the pattern's rolls whose best hold (or one exactly tied with it) is the one stated; a rule is "
                  f"stated only when it agrees on at least {RULE_AGREEMENT * 100}% of its rolls, naming which "
                  f"groups to keep by face where it must, else the row says so and shows the closest words and "
                  f"their agreement; margin: "
                  f"mean gain of the best hold over the second best, in potential points; example: a roll of the "
                  f"pattern and its best hold."),
        "risk": "risk: chance of a failed result (D13: the dice mark nothing, a shelf is eliminated) this turn, "
                "playing only to avoid it (objective 'safe'), in sample late-game states where every other item is "
                "marked; failing roll: the most probable first roll that marks nothing yet; best hold: the hold "
                "minimising the risk from it; after it / re-roll all: the risk after that hold / after re-rolling "
                "all dice.",
    }

