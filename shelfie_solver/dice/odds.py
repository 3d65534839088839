"""Exact odds of reaching a target (:mod:`targets`) over the remaining re-rolls, click-free.

* Optimal chance: the target's indicator over final rolls is the level-0 value of the engine's
  DP (:func:`dp.solve`, D6-D7), so ``V_r[roll]`` is the chance of meeting the target from
  ``roll`` with ``r`` re-rolls left under the best holds, and ``E_r[hold]`` each hold's chance.
* Baseline chance: the plain policy "keep the dice that already fit the target, re-roll the
  rest" (:meth:`targets.CompiledTarget.fits`), evaluated exactly by policy evaluation over the
  same transitions: ``B_0 = indicator``, ``B_r[roll] = E[B_{r-1} | keep fit(roll)]``. Not optimised.
* Simulation check: plays the optimal policy in ``N`` seeded turns and compares the estimate's
  99% Clopper-Pearson interval with the exact chance.

All chances are exact :class:`~fractions.Fraction` values (integers over ``sides**dice`` powers
inside); floats appear only in the simulation's interval and for display.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from shelfie_solver.dice.board import Board, Marks
from shelfie_solver.dice.rolls import Counts, DiceSpace, dice_codes, dice_names, space_for
from shelfie_solver.dice.engine.dp import TurnSolution, evaluate_policy, solve
from shelfie_solver.core.errors import ShelfieError
from shelfie_solver.dice.errors import DiceError
from shelfie_solver.dice.joker import all_jokers_roll
from shelfie_solver.core.report import Report, exact, interval, one_in, one_in_texts, percent, rank_text
from shelfie_solver.dice.advise.report import best_line, keep_label
from shelfie_solver.dice.advise.words import hold_words
from shelfie_solver.dice.rules import Ruleset
from shelfie_solver.dice.targets import CompiledTarget, Target, compile_target, describe

#: Confidence level of the simulation check's interval.
CONFIDENCE = 0.99
_CHUNK = 200_000
#: Most turns :func:`simulate` plays (``--simulate``): plenty for a tight interval, and a bound on
#: the run time and memory of a mistyped N (a million turns take a few seconds).
MAX_SIMULATED_TURNS = 10_000_000


@dataclass(frozen=True, eq=False)
class TargetSolution:
    """Optimal and baseline value functions of one target, for levels 0..``rerolls``.

    Attributes:
        compiled: the target resolved against the ruleset (and board).
        space: the dice space.
        indicator: ``int64 (R,)`` 1 where a final roll meets the target.
        optimal: the engine's :class:`~dp.TurnSolution` (values over ``D**r``, ``D = sides**dice``).
        baseline_hold: ``int64 (R,)`` hold index the baseline keeps from each roll.
        baseline: the baseline policy's values (:func:`dp.evaluate_policy`), same layout.
    """

    compiled: CompiledTarget
    space: DiceSpace
    indicator: np.ndarray
    optimal: TurnSolution
    baseline_hold: np.ndarray
    baseline: TurnSolution

    @property
    def baseline_values(self) -> list[np.ndarray]:
        """``baseline_values[r]`` is ``(R,)`` integers over ``D**r``: the chance of meeting the
        target from each roll with ``r`` re-rolls left under the baseline."""
        return [level[:, 0] for level in self.baseline.values]

    @property
    def rerolls(self) -> int:
        """The most re-rolls left solved for."""
        return self.optimal.rerolls

    def start_chance(self, rerolls: int, baseline: bool = False) -> Fraction:
        """Chance of meeting the target from the start of a turn: the initial roll (D6), then
        ``rerolls`` re-rolls (D7) under the optimal (or baseline) policy."""
        return (self.baseline if baseline else self.optimal).start_values(rerolls)[0]

    def roll_chance(self, roll: Counts, rerolls: int, baseline: bool = False) -> Fraction:
        """Chance of meeting the target from ``roll`` with ``rerolls`` re-rolls left."""
        return (self.baseline if baseline else self.optimal).roll_value(roll, rerolls)

    def baseline_keep(self, roll: Counts) -> Counts:
        """The dice the baseline keeps from ``roll`` (the whole roll = stop)."""
        return self.space.holds[int(self.baseline_hold[self.space.roll_index[roll]])]


def solve_target(compiled: CompiledTarget, rerolls: int) -> TargetSolution:
    """Solve a compiled target for 0..``rerolls`` re-rolls left: optimal and baseline.

    Args:
        compiled: from :func:`targets.compile_target`.
        rerolls: the most re-rolls left (>= 0).
    """
    space = space_for(compiled.rules)
    indicator = compiled.indicator(space)
    optimal = solve(space, indicator, rerolls)
    fits = compiled.fits(space)
    hold_index = space.hold_index
    holds = np.array([hold_index[tuple(int(x) for x in row)] for row in fits.keep], dtype=np.int64)
    baseline = evaluate_policy(space, indicator, holds, rerolls)
    return TargetSolution(compiled, space, indicator, optimal, holds, baseline)


# --- the answer of ``shelfie-solve odds`` -------------------------------------------------------


@dataclass(frozen=True)
class HoldChance:
    """One hold of the given dice: the chance of meeting the target after keeping it, with
    optimal play afterwards; ``rank`` is 1-based and exactly equal chances share it."""

    keep: Counts
    probability: Fraction
    rank: int


@dataclass(frozen=True, eq=False)
class Odds:
    """What ``shelfie-solve odds`` reports.

    Attributes:
        target: the parsed target. rules: the ruleset.
        rerolls: re-rolls left (after the initial roll when ``dice`` is None).
        dice: the dice showing, or ``None`` for the start of a turn.
        probability: optimal chance (exact). baseline: the baseline policy's chance (exact).
        holds: with dice and re-rolls left, every distinct hold best first.
        baseline_keep: with dice and re-rolls left, what the baseline keeps.
        by_rerolls: without dice, ``(optimal, baseline)`` for 0..``rerolls`` re-rolls.
        groups: with dice and no re-rolls left, per alternative the groups meeting it (or None).
        solution: the solved value functions (for :func:`sample_turns`).
    """

    target: Target
    rules: Ruleset
    rerolls: int
    dice: Counts | None
    probability: Fraction
    baseline: Fraction
    solution: TargetSolution
    holds: tuple[HoldChance, ...] = ()
    baseline_keep: Counts | None = None
    by_rerolls: tuple[tuple[Fraction, Fraction], ...] = ()
    groups: tuple[list[str] | None, ...] = ()


def odds(target: Target, rules: Ruleset, board: Board | None = None, marks: Marks | None = None,
         dice: Counts | None = None, rerolls: int | None = None) -> Odds:
    """The exact chance of meeting ``target``, optimal and baseline.

    Args:
        target: from :func:`targets.parse_target`.
        board, marks: needed for item targets (marks default: every item available).
        dice: the roll showing (counts per side, all ``rules.dice`` dice), or ``None`` for the
            start of a turn (the initial roll, then ``rerolls`` re-rolls).
        rerolls: re-rolls left, 0..``rules.rerolls`` (default the ruleset's, D7).

    Raises:
        DiceError: re-rolls out of range or the wrong number of dice.
        TargetError: the target cannot be resolved (:func:`targets.compile_target`).
    """
    left = rules.rerolls if rerolls is None else rerolls
    if not 0 <= left <= rules.rerolls:
        raise DiceError(f"re-rolls left must be from 0 to {rules.rerolls} (D7), got {left}")
    if dice is not None and (sum(dice) != rules.dice or len(dice) != rules.n_sides):
        raise DiceError(f"odds from a roll need all {rules.dice} dice, got {sum(dice)}")
    solution = solve_target(compile_target(target, rules, board, marks), left)
    if dice is None:
        levels = tuple((solution.start_chance(r), solution.start_chance(r, baseline=True)) for r in range(left + 1))
        return Odds(target, rules, left, None, levels[-1][0], levels[-1][1], solution, by_rerolls=levels)
    probability = solution.roll_chance(dice, left)
    baseline = solution.roll_chance(dice, left, baseline=True)
    if left == 0:
        return Odds(target, rules, 0, dice, probability, baseline, solution,
                    groups=tuple(solution.compiled.groups(dice)))
    return Odds(target, rules, left, dice, probability, baseline, solution,
                holds=rank_holds(solution, dice, left), baseline_keep=solution.baseline_keep(dice))


def six_jokers_count(result: Odds) -> bool:
    """Whether the all-Jokers roll meets the target (D12: it marks any one item, so it meets a target
    of one combination; a group never holds Jokers alone, D11, so only D12 can make it meet). The
    cheat sheet's set odds leave that roll out, so the two differ by it (docs/odds.md)."""
    roll = all_jokers_roll(result.rules)
    return roll is not None and bool(result.solution.compiled.meets(np.array([roll], dtype=np.int64))[0])


def rank_holds(solution: TargetSolution, dice: Counts, rerolls: int) -> tuple[HoldChance, ...]:
    """Every distinct hold of ``dice`` (``space.holds_of``) with ``rerolls`` >= 1 left, by chance
    (desc), then keeping more dice; exactly equal chances share a rank."""
    space = solution.space
    table = solution.optimal.hold_values[rerolls]
    assert table is not None, "holds exist only with at least one re-roll left"
    denominator = space.denominator ** rerolls
    chances = [(Fraction(int(table[space.hold_index[h], 0]), denominator), order, h)
               for order, h in enumerate(space.holds_of(dice))]
    chances.sort(key=lambda c: (-c[0], c[1]))
    out: list[HoldChance] = []
    for i, (p, _, hold) in enumerate(chances):
        rank = out[-1].rank if out and p == out[-1].probability else i + 1
        out.append(HoldChance(hold, p, rank))
    return tuple(out)


# --- simulation check -------------------------------------------------------------------------


@dataclass(frozen=True)
class SimulationCheck:
    """The optimal policy played in ``turns`` seeded turns.

    Attributes:
        turns, seed: as given. hits: turns whose final dice met the target.
        estimate: ``hits / turns`` (exact). low, high: the 99% Clopper-Pearson interval.
        exact: the exact chance. inside: whether ``low <= exact <= high`` (compared exactly).
    """

    turns: int
    seed: int
    hits: int
    estimate: Fraction
    low: float
    high: float
    exact: Fraction
    inside: bool


def sample_turns(solution: TargetSolution, turns: int, seed: int, rerolls: int,
             dice: Counts | None = None) -> SimulationCheck:
    """Play the optimal policy (``solution.optimal.policy``) for ``turns`` turns with
    ``numpy.random.default_rng(seed)``: from ``dice`` or a fresh initial roll, then ``rerolls``
    re-rolls. Same seed, same result.

    Raises:
        ShelfieError: ``turns`` < 1 or more than :data:`MAX_SIMULATED_TURNS`.
    """
    if not 1 <= turns <= MAX_SIMULATED_TURNS:
        raise ShelfieError(f"--simulate needs 1 to {MAX_SIMULATED_TURNS} turns, got {turns}")
    rng = np.random.default_rng(seed)
    space = solution.space
    hits = 0
    for lo in range(0, turns, _CHUNK):
        n = min(_CHUNK, turns - lo)
        if dice is None:
            rolls = _reroll(space, rng, np.full(n, space.hold_index[(0,) * space.n_sides]))
        else:
            rolls = np.full(n, space.roll_index[dice], dtype=np.int64)
        for level in range(rerolls, 0, -1):
            policy = solution.optimal.policy[level]
            assert policy is not None
            rolls = _reroll(space, rng, policy[rolls])
        hits += int(solution.indicator[rolls].sum())
    exact_value = solution.start_chance(rerolls) if dice is None else solution.roll_chance(dice, rerolls)
    low, high = _clopper_pearson(hits, turns)
    return SimulationCheck(turns, seed, hits, Fraction(hits, turns), low, high, exact_value,
                           Fraction(low) <= exact_value <= Fraction(high))


def _reroll(space: DiceSpace, rng: np.random.Generator, holds: np.ndarray) -> np.ndarray:
    """Roll indices after keeping ``holds`` (hold indices) and re-rolling the other dice."""
    kept = _hold_counts(space)[holds]
    free = space.n_dice - kept.sum(axis=1)
    faces = rng.integers(0, space.n_sides, size=(len(holds), space.n_dice))
    rolled = np.arange(space.n_dice)[None, :] < free[:, None]
    counts = kept + np.stack([((faces == s) & rolled).sum(axis=1) for s in range(space.n_sides)], axis=1)
    keys, order = _roll_keys(space)
    return order[np.searchsorted(keys, _encode(space, counts))]


def _hold_counts(space: DiceSpace) -> np.ndarray:
    return np.array(space.holds, dtype=np.int64).reshape(len(space.holds), space.n_sides)


def _encode(space: DiceSpace, counts: np.ndarray) -> np.ndarray:
    return counts @ (space.n_dice + 1) ** np.arange(space.n_sides, dtype=np.int64)


def _roll_keys(space: DiceSpace) -> tuple[np.ndarray, np.ndarray]:
    """Sorted roll keys and the roll index of each, for vectorised counts -> roll index."""
    keys = _encode(space, space.roll_counts)
    order = np.argsort(keys)
    return keys[order], order


def _clopper_pearson(hits: int, turns: int) -> tuple[float, float]:
    from scipy.stats import binomtest  # heavy import, only for --simulate

    found = binomtest(hits, turns).proportion_ci(confidence_level=CONFIDENCE, method="exact")
    return float(found.low), float(found.high)


# --- report -------------------------------------------------------------------------------------


def chance_text(p: Fraction, odds_text: str | None = None, why: str = "") -> str:
    """``12.35% = 1234/9999 (1 in 8.1)``; ``odds_text`` replaces the ``1 in X`` part (to use
    :func:`core.report.one_in_texts` digits shared with other figures shown beside it). A chance
    of exactly 1 or 0 reads ``100% (certain)`` or ``0% (impossible)`` (not ``100.00% = 1 (1 in
    1)``), ``why`` added inside the brackets (``0% (impossible: the dice are final)``); ``why``
    follows any other chance in brackets."""
    reason = f": {why}" if why else ""
    if p == 1:
        return f"100% (certain{reason})"
    if p == 0:
        return f"0% (impossible{reason})"
    return f"{percent(p)} = {p} ({odds_text or one_in(p)})" + (f" ({why})" if why else "")


def odds_report(result: Odds, simulation: SimulationCheck | None = None, top: int | None = None) -> Report:
    """The :class:`core.report.Report` of ``shelfie-solve odds`` (table, JSON, CSV, Markdown)."""
    rules = result.rules
    s = "" if result.rerolls == 1 else "s"
    title = [f"Target {result.target}: {describe(result.target, rules)} (rules: {rules.name})"]
    if result.dice is None:
        title.append(f"From the start of a turn: the initial roll, then {result.rerolls} re-roll{s}.")
    elif result.rerolls:
        title.append(f"From dice {dice_codes(result.dice, rules)} ({dice_names(result.dice, rules)}), "
                     f"{result.rerolls} re-roll{s} left.")
    else:
        title.append(f"Final dice {dice_codes(result.dice, rules)} ({dice_names(result.dice, rules)}), "
                     "no re-rolls left.")
    optimal_odds, baseline_odds = one_in_texts([result.probability, result.baseline])
    if result.dice is not None and result.rerolls == 0:
        title.append(f"Chance: {chance_text(result.probability, why='the dice are final')}.")
    else:
        title.append(f"Optimal play: {chance_text(result.probability, optimal_odds)}")
        baseline = "Baseline (keep the dice that already fit, re-roll the rest)"
        if result.baseline_keep is not None:
            baseline += f", keeping {dice_codes(result.baseline_keep, rules) or 'nothing'}"
        title.append(f"{baseline}: {chance_text(result.baseline, baseline_odds)}")
        if result.rerolls:
            title.append(_gain_text(result.probability - result.baseline))
    data: dict[str, Any] = {
        "target": str(result.target),
        "description": describe(result.target, rules),
        "rules": rules.name,
        "rerolls": result.rerolls,
        "dice": dice_codes(result.dice, rules) if result.dice is not None else None,
        "probability": exact(result.probability),
        "probability_float": float(result.probability),
        "one_in": float(1 / result.probability) if result.probability else None,
        "baseline_probability": exact(result.baseline),
        "baseline_probability_float": float(result.baseline),
    }
    notes: list[str] = []
    data["six_jokers_count"] = six_jokers_count(result)
    all_jokers = all_jokers_roll(rules)
    rolls_to_come = result.dice is None or result.rerolls > 0  # final dice: no chance is involved
    if data["six_jokers_count"] and all_jokers is not None and rolls_to_come:
        notes.append(f"{dice_codes(all_jokers, rules)} counts as meeting it (D12: every die a Joker "
                     "marks any one item), so these chances are a little above those of the dice alone.")
    if result.dice is None:
        headers, rows = _levels_table(result, data)
    elif result.rerolls:
        headers, rows = _holds_table(result, data, title, notes, top)
    else:
        headers, rows = _final_table(result, data, title)
    if simulation is not None:
        notes.append(simulation_text(simulation))
        data["simulation"] = {
            "turns": simulation.turns, "seed": simulation.seed, "hits": simulation.hits,
            "estimate": exact(simulation.estimate), "estimate_float": float(simulation.estimate),
            "confidence": CONFIDENCE, "interval": [simulation.low, simulation.high],
            "exact_inside": simulation.inside,
        }
    records = next(data[key] for key in ("holds", "by_rerolls", "alternatives") if key in data)
    # At 80 columns (core.report.render's width) a levels table too wide (long exact fractions)
    # is shown as the optimal columns, then the baseline ones, each led by the re-rolls.
    split = [["re-rolls"], ["optimal", "exact", "1 in"], ["baseline", "baseline exact"]] if result.dice is None else []
    return Report(title, headers, rows, data, notes, records=records, split=split)


def _gain_text(gain: Fraction) -> str:
    if gain == 0:
        return "Here the baseline is optimal: exactly the same chance."
    points = float(gain) * 100
    shown = f"{points:.2f}" if abs(points) >= 0.01 else f"{points:.2g}"
    return f"Optimal play adds {shown} percentage points (exactly {gain})."


def _levels_table(result: Odds, data: dict[str, Any]) -> tuple[list[str], list[list[Any]]]:
    headers = ["re-rolls", "optimal", "exact", "1 in", "baseline", "baseline exact"]
    odds_texts = one_in_texts([p for p, _ in result.by_rerolls])
    rows = [[r, percent(p), str(p), odds_texts[r], percent(b), str(b)] for r, (p, b) in enumerate(result.by_rerolls)]
    data["by_rerolls"] = [{"rerolls": r, "probability": exact(p), "probability_float": float(p),
                           "baseline_probability": exact(b), "baseline_probability_float": float(b)}
                          for r, (p, b) in enumerate(result.by_rerolls)]
    return headers, rows


def _holds_table(result: Odds, data: dict[str, Any], title: list[str], notes: list[str],
                 top: int | None) -> tuple[list[str], list[list[Any]]]:
    rules = result.rules
    ranks = [h.rank for h in result.holds]
    best = [h for h in result.holds if h.rank == 1]
    dice = result.dice if result.dice is not None else tuple(0 for _ in rules.sides)
    title.append("Best: " + best_line([hold_words(dice, h.keep, rules) for h in best]))
    shown = result.holds[:top] if top else result.holds
    headers = ["rank", "keep", "chance", "exact", "1 in"]
    odds_texts = one_in_texts([h.probability for h in shown])
    rows = [[rank_text(h.rank, ranks), keep_label(h.keep, rules),
             percent(h.probability), str(h.probability), text] for h, text in zip(shown, odds_texts)]
    if len(shown) < len(result.holds):
        notes.append(f"{len(result.holds) - len(shown)} more holds not shown (--top).")
    notes.append("chance: of meeting the target after keeping these dice, with optimal holds afterwards; "
                 "equal ranks (2=) are exact ties.")
    data["best_hold"] = dice_codes(best[0].keep, rules)
    data["baseline_hold"] = dice_codes(result.baseline_keep, rules) if result.baseline_keep is not None else None
    data["holds"] = [{"keep": dice_codes(h.keep, rules), "rank": h.rank, "probability": exact(h.probability),
                      "probability_float": float(h.probability)} for h in result.holds]
    return headers, rows


def _final_table(result: Odds, data: dict[str, Any], title: list[str]) -> tuple[list[str], list[list[Any]]]:
    met = result.probability == 1
    title.append(f"The dice {'meet' if met else 'do not meet'} the target.")
    headers = ["alternative", "met", "dice groups"]
    rows = [[str(alt), "yes" if groups else "no", " + ".join(groups) if groups else ""]
            for alt, groups in zip(result.target.alternatives, result.groups)]
    data["met"] = met
    data["alternatives"] = [{"alternative": str(alt), "met": groups is not None, "groups": groups}
                            for alt, groups in zip(result.target.alternatives, result.groups)]
    return headers, rows


def simulation_text(check: SimulationCheck) -> str:
    """One line: the estimate, its 99% interval and whether the exact chance lies inside."""
    verdict = "lies inside" if check.inside else "lies OUTSIDE"
    return (f"Simulation: {check.turns:,} turns (seed {check.seed}) met the target {check.hits:,} times: "
            f"estimate {percent(check.estimate)}, {CONFIDENCE:.0%} interval "
            f"{interval(check.low, check.high, lambda x: percent(Fraction(x)))} (Clopper-Pearson); "
            f"the exact {percent(check.exact)} {verdict} it.")
