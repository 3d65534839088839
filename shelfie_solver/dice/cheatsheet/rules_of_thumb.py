"""Hold rules of thumb: the solver's best first-roll holds by roll pattern (section 3, docs/cheatsheet.md).

:func:`hold_rules` solves one turn under the default objective (``Strategic``, D6-D12), reads
every first roll's best hold and margin (:func:`roll_choices`), and aggregates the rolls of
each pattern into one :class:`HoldRule`: the words (:mod:`~shelfie_solver.dice.cheatsheet.wording`)
that at least :data:`RULE_AGREEMENT` of the pattern's rolls agree on, naming which groups to keep
by a face order or a face rule where it must, else :data:`NO_RULE`. The most common patterns
covering :data:`RULES_COVERAGE` of first rolls are the ones shown.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from itertools import product

from shelfie_solver.dice.board import Board, Marks
from shelfie_solver.dice.cheatsheet.wording import (
    ORDER_MARK,
    Pattern,
    describe_hold,
    group_name,
    joined,
    number_word,
    ordered_words,
    pattern_of,
    unequal_groups,
)
from shelfie_solver.dice.engine.dp import TurnSolution, solve_turn
from shelfie_solver.dice.objectives import Strategic
from shelfie_solver.dice.rolls import Counts, multinomial
from shelfie_solver.dice.rules import Ruleset

#: Hold rules cover the most common first-roll patterns until at least this share of first
#: rolls is covered (patterns tied with the last one shown are shown too).
RULES_COVERAGE = Fraction(9, 10)


@dataclass(frozen=True)
class RollChoice:
    """The solver's best hold for one first roll (``rules.rerolls`` re-rolls left).

    Attributes:
        roll: the first roll. weight: its probability (D6).
        hold: the engine's chosen hold (``policy``; exact ties broken by the engine's rule).
        value: its value under the objective (potential points for ``Strategic``).
        margin: value minus the best value among the roll's other holds (0 on a tie).
        tied: the roll's other holds with exactly the same value (usually none).
        all_tied: every hold of the roll has the same value (the objective is indifferent).
    """

    roll: Counts
    weight: Fraction
    hold: Counts
    value: Fraction
    margin: Fraction
    tied: tuple[Counts, ...] = ()
    all_tied: bool = False

    @property
    def best_holds(self) -> tuple[Counts, ...]:
        """The chosen hold, then the holds tied with it."""
        return (self.hold,) + self.tied


def roll_choices(solution: TurnSolution, rules: Ruleset) -> list[RollChoice]:
    """Every first roll's best hold and margin, from one solved turn (``solution.rerolls`` >= 1)."""
    space = solution.space
    level = solution.rerolls
    table, policy = solution.hold_values[level], solution.policy[level]
    assert table is not None and policy is not None
    den = solution.denominator(level, 0)
    out = []
    for index, roll in enumerate(space.rolls):
        chosen = int(policy[index])
        best = int(table[chosen, 0])
        others = [(int(table[space.hold_index[h], 0]), h) for h in space.holds_of(roll)
                  if space.hold_index[h] != chosen]
        margin = best - max(v for v, _ in others) if others else 0
        tied = tuple(h for v, h in others if v == best)
        out.append(RollChoice(roll, Fraction(multinomial(roll), space.denominator), space.holds[chosen],
                              Fraction(best, den), Fraction(margin, den), tied, len(tied) == len(others)))
    return out


@dataclass(frozen=True)
class HoldRule:
    """A rule of thumb for one first-roll pattern.

    Attributes:
        pattern: the pattern. share: probability of a first roll of this pattern (exact).
        advice: the best hold in pattern terms (the words most of the pattern's rolls agree on),
            naming which groups by face where the pattern's rolls differ (:func:`_rule`), or
            :data:`NO_RULE`.
        agree: share of the pattern's rolls (by probability) whose best hold, or one exactly tied
            with it, has those words (:attr:`closest`'s share when there is no rule).
        margin: mean (by probability) over the pattern's rolls of how much the best hold beats the
            next best, in the objective's units (potential points).
        example: the pattern's first roll (dice order) whose best hold follows ``advice``, and
            that hold.
        order: the face order ``advice`` names groups by (``None``: it needs none).
        closest: the words most rolls agree on; ``advice`` is :data:`NO_RULE` instead when they
            agree on less than :data:`RULE_AGREEMENT` of the rolls (``agree`` is then theirs).
    """

    pattern: Pattern
    share: Fraction
    advice: str
    agree: Fraction
    margin: Fraction
    example: tuple[Counts, Counts]
    order: tuple[int, ...] | None = None
    closest: str = ""

    @property
    def holds(self) -> bool:
        """Whether the rule agrees with the solver on at least :data:`RULE_AGREEMENT` of its rolls."""
        return self.advice != NO_RULE


def hold_rules(board: Board, marks: Marks, rules: Ruleset) -> tuple[tuple[HoldRule, ...], tuple[HoldRule, ...]]:
    """``(shown, all)``: rules of thumb for every first-roll pattern, most common first, and
    the leading ones covering at least :data:`RULES_COVERAGE` of first rolls (ties included).

    One ``dp.solve_turn(board, marks, rules, Strategic())``; empty when the ruleset has no
    re-rolls (no holds to choose, D7).
    """
    if rules.rerolls < 1:
        return (), ()
    solution = solve_turn(board, marks, rules, Strategic())
    by_pattern: dict[Pattern, list[RollChoice]] = {}
    for choice in roll_choices(solution, rules):
        by_pattern.setdefault(pattern_of(choice.roll, rules), []).append(choice)
    every = sorted((_rule(p, choices, rules, board, marks) for p, choices in by_pattern.items()),
                   key=lambda r: (-r.share, -len(r.pattern[0]), r.pattern))
    shown: list[HoldRule] = []
    covered = Fraction(0)
    for rule in every:
        if covered >= RULES_COVERAGE and rule.share != shown[-1].share:
            break
        shown.append(rule)
        covered += rule.share
    return tuple(shown), tuple(every)


#: The words of a roll whose holds all have exactly the same value (the objective is indifferent).
ANY_HOLD = "any hold (all equal)"


def _choice_words(choice: RollChoice, hold: Counts, rules: Ruleset) -> str:
    """:func:`describe_hold` of one of a roll's best holds (no face order), or :data:`ANY_HOLD`
    when every hold of the roll ties."""
    return ANY_HOLD if choice.all_tied else describe_hold(choice.roll, hold, rules)


def _rule(pattern: Pattern, choices: list[RollChoice], rules: Ruleset, board: Board, marks: Marks) -> HoldRule:
    """Aggregate one pattern's rolls: each roll supports the words of each of its best holds.

    A hold that keeps some of the roll's same-size groups and not others ("one of two pairs")
    names which by a face order (:func:`describe_hold`); every order of the item faces is tried
    (the sheet's own orders first, :func:`_face_orders`) and the one most rolls agree with
    wins. When no words reach :data:`RULE_AGREEMENT`, the rule says so (:data:`NO_RULE`) and
    keeps the closest words.
    """
    share = sum((c.weight for c in choices), Fraction(0))
    margin = sum((c.weight * c.margin for c in choices), Fraction(0)) / share
    best: tuple[Fraction, str, tuple[int, ...] | None, tuple[Counts, Counts]] | None = None
    plain = [[(h, _choice_words(c, h, rules), unequal_groups(c.roll, h, rules)) for h in reversed(c.best_holds)]
             for c in choices]
    for order in _face_orders(board, marks, rules):
        weight_of: dict[str, Fraction] = {}
        words_of = [{w: h for h, words, unequal in holds
                     if (w := words if c.all_tied else ordered_words(words, unequal, order, rules)) is not None}
                    for c, holds in zip(choices, plain)]
        for c, found in zip(choices, words_of):
            for w in found:
                weight_of[w] = weight_of.get(w, Fraction(0)) + c.weight
        if not weight_of:
            continue
        advice = min(weight_of, key=lambda w: (-weight_of[w], w))
        agree = weight_of[advice] / share
        if best is None or agree > best[0]:
            example = next((c.roll, words[advice]) for c, words in zip(choices, words_of) if advice in words)
            best = (agree, advice, order if ORDER_MARK in advice else None, example)
        if agree == 1:
            break
    if best is None or best[0] < RULE_AGREEMENT:
        by_face = _face_rule(pattern, choices, rules, share)
        if by_face is not None and (best is None or by_face[0] > best[0]):
            best = by_face
    if best is None:  # every roll's best holds are ambiguous against every order (not seen in practice)
        c = choices[0]
        return HoldRule(pattern, share, NO_RULE, Fraction(0), margin, (c.roll, c.hold), None, "")
    agree, advice, named_by, example = best
    if agree < RULE_AGREEMENT:
        return HoldRule(pattern, share, NO_RULE, agree, margin, example, named_by, advice)
    return HoldRule(pattern, share, advice, agree, margin, example, named_by, advice)


#: One size class of a face rule: ``(dice kept per group, faces allowed (preferred first),
#: most groups kept)``; ``(0, (), 0)`` keeps none of them.
_ClassRule = tuple[int, tuple[int, ...], int]


def _face_rule(pattern: Pattern, choices: list[RollChoice], rules: Ruleset,
               share: Fraction) -> tuple[Fraction, str, tuple[int, ...], tuple[Counts, Counts]] | None:
    """The best *face rule* for a pattern: for each group size, keep ``d`` dice of each of at
    most ``m`` groups whose face is among an allowed list, the list's first faces first, plus a
    number of Jokers (e.g. "keep the pair, one single of award, then plant and the Joker"). The
    faces are ordered by how often the solver keeps them; a roll agrees when the rule's hold is
    one of its best holds. Each group size has its own face order (:func:`_kept_order`).
    Returns ``(agree, words, a restricting class's face order, example)`` or ``None``.
    """
    n = rules.n_faces
    joker = rules.joker_index
    sizes = sorted(set(pattern[0]), reverse=True)
    orders = {size: _kept_order(choices, size, n) for size in sizes}
    positions = {size: {f: i for i, f in enumerate(order)} for size, order in orders.items()}
    tally: dict[tuple[tuple[_ClassRule, ...], int], Fraction] = {}
    example: dict[tuple[tuple[_ClassRule, ...], int], tuple[Counts, Counts]] = {}
    for c in choices:
        seen: set[tuple[tuple[_ClassRule, ...], int]] = set()
        for hold in c.best_holds:
            per_class = [_class_rules(c.roll, hold, size, orders[size], positions[size], n) for size in sizes]
            jokers = hold[joker] if joker is not None else 0
            for combo in product(*per_class):
                key = (tuple(combo), jokers)
                if key not in seen:
                    seen.add(key)
                    tally[key] = tally.get(key, Fraction(0)) + c.weight
                    example.setdefault(key, (c.roll, hold))
    if not tally:
        return None
    key = min(tally, key=lambda k: (-tally[k], _rule_words(k, sizes, pattern, rules)))
    order = next((a for _, a, _ in key[0] if 0 < len(a) < n), orders[sizes[-1]])
    return tally[key] / share, _rule_words(key, sizes, pattern, rules), order, example[key]


def _kept_order(choices: list[RollChoice], size: int, n: int) -> tuple[int, ...]:
    """Item faces by how much of their groups of ``size`` the solver keeps (by probability),
    most first; ties by side number."""
    rate = {f: Fraction(0) for f in range(n)}
    for c in choices:
        for f in range(n):
            if c.roll[f] == size:
                rate[f] += c.weight * Fraction(c.hold[f], size)
    return tuple(sorted(range(n), key=lambda f: (-rate[f], f)))


def _class_rules(roll: Counts, hold: Counts, size: int, order: tuple[int, ...], position: dict[int, int],
                 n: int) -> list[_ClassRule]:
    """Every class rule for the roll's groups of ``size`` that keeps exactly what ``hold`` keeps."""
    groups = sorted((f for f in range(n) if roll[f] == size), key=lambda f: position[f])
    kept = {f: hold[f] for f in groups}
    amounts = {k for k in kept.values() if k}
    if len(amounts) > 1:
        return []
    keeps = sorted(amounts) if amounts else list(range(1, size + 1))  # keeping none fits any d
    chosen = [f for f in groups if kept[f]]
    out: list[_ClassRule] = [] if chosen else [(0, (), 0)]
    for d in keeps:
        for cut in range(1, n + 1):
            allowed = order[:cut]
            eligible = [f for f in groups if f in allowed]
            for most in range(1, len(groups) + 1):
                if eligible[:most] == chosen:
                    out.append((d, allowed, most))
    return out


def _rule_words(key: tuple[tuple[_ClassRule, ...], int], sizes: list[int], pattern: Pattern,
                rules: Ruleset) -> str:
    """Words for a face rule, e.g. ``keep the pair, one single of award, then plant and the Joker``."""
    parts = []
    for size, (d, allowed, most) in zip(sizes, key[0]):
        if not d:
            continue
        count = pattern[0].count(size)
        every = len(allowed) == rules.n_faces and most >= count
        dice = "" if d == size else f"{number_word(d)} {'die' if d == 1 else 'dice'} of "
        if every:
            group = f"the {group_name(size)}" if count == 1 else f"every {group_name(size)}"
            parts.append(f"{dice}{group}" if not dice
                         else f"{dice}{'each ' + group_name(size) if count > 1 else group}")
            continue
        names = [rules.sides[f].name for f in allowed]
        if count == 1:  # the only group of its size: keep it when its face is listed
            listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]
            parts.append(f"{dice}the {group_name(size)} if {listed}")
            continue
        many = "one" if most == 1 else f"up to {number_word(most)}"
        parts.append(f"{dice}{many} {group_name(size, plural=most > 1)} of {', then '.join(names)}")
    jokers, rolled = key[1], pattern[1]
    if jokers:
        parts.append("the Joker" if rolled == 1 else
                     ("both Jokers" if jokers == rolled == 2 else
                      f"all {number_word(rolled)} Jokers" if jokers == rolled else
                      f"{number_word(jokers)} Joker{'s' if jokers > 1 else ''}"))
    return "keep " + joined(parts) if parts else "re-roll all dice"


#: A rule of thumb must agree with the solver on at least this share of its pattern's rolls.
RULE_AGREEMENT = Fraction(4, 5)
#: The advice of a pattern whose best holds no rule of thumb describes for RULE_AGREEMENT of rolls.
NO_RULE = "no rule of thumb holds for 80% of these rolls"


def _face_orders(board: Board, marks: Marks, rules: Ruleset) -> list[tuple[int, ...]]:
    """Face orders to try, the sheet's own first: faces whose shelves hold more marks, then more
    available points; then every other permutation (all of them for up to 5 item faces)."""
    from itertools import permutations

    marked, available = marks.bit_arrays()
    weight = {f: (0, 0) for f in range(rules.n_faces)}
    for shelf, faces in enumerate(board.shelf_faces):
        cells = list(board.lines[shelf])
        mark_count = int(sum(marked[c] for c in cells))
        points = int(sum(available[c] * board.value(c) for c in cells))
        for f in faces:
            weight[f] = (weight[f][0] + mark_count, weight[f][1] + points)
    sheet = tuple(sorted(range(rules.n_faces), key=lambda f: (-weight[f][0], -weight[f][1], f)))
    orders = [sheet]
    if rules.n_faces <= 5:
        orders += [p for p in permutations(range(rules.n_faces)) if p != sheet]
    return orders

