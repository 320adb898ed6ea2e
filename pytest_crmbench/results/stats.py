"""The statistics of spec §B and §C (rates, round means, sample std, pass^k, Spearman, ranks) and
the uncertainty of issue 13 (Wilson and bootstrap intervals, flip rate, paired tests).

Pure functions over plain numbers. Rates are exact :class:`~fractions.Fraction` values so ties
(``=`` in table 6, shared ranks in figure 16) are decided exactly, never by float noise.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from statistics import NormalDist
from typing import Any


def rate(successes: int, total: int) -> Fraction | None:
    """``successes / total``, or None for an empty denominator (shown as ``n/a``, never 0 %)."""
    return Fraction(successes, total) if total else None


def mean(values: Sequence[float | Fraction]) -> float:
    if not values:
        raise ValueError("mean of no values")
    return float(sum(Fraction(v) for v in values) / len(values))


def sample_std(values: Sequence[float | Fraction]) -> float | None:
    """Sample standard deviation (denominator n - 1, spec table 9); None for fewer than two values."""
    if len(values) < 2:
        return None
    exact = [Fraction(v) for v in values]
    centre = sum(exact) / len(exact)
    return math.sqrt(float(sum((v - centre) ** 2 for v in exact) / (len(exact) - 1)))


def pass_hat_k(trials: Iterable[tuple[int, int]], k: int) -> Fraction | None:
    """tau-bench's pass^k: the mean over tasks of C(c, k) / C(n, k).

    ``trials`` holds one ``(n, c)`` per task: scored trials and successes among them. Tasks
    scored fewer than ``k`` times are left out (spec §C.1: only tasks scored in every round),
    so with ``n == k`` this is the share of tasks that succeeded every time.
    """
    if k < 1:
        raise ValueError("k must be at least 1")
    terms = [Fraction(math.comb(c, k), math.comb(n, k)) for n, c in trials if n >= k]
    return sum(terms, Fraction(0)) / len(terms) if terms else None


def average_ranks(values: Sequence[float | Fraction]) -> list[float]:
    """Ranks 1..n in ascending order of value; tied values share the mean of their positions."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        shared = (start + end) / 2 + 1
        for position in range(start, end + 1):
            ranks[order[position]] = shared
        start = end + 1
    return ranks


def spearman(x: Sequence[float | Fraction], y: Sequence[float | Fraction]) -> float | None:
    """Spearman's rho as the Pearson correlation of average ranks (correct with ties).

    None when it is undefined: fewer than two systems, or all values of one side equal.
    """
    if len(x) != len(y):
        raise ValueError("spearman needs two sequences of the same length")
    if len(x) < 2:
        return None
    rx, ry = average_ranks(x), average_ranks(y)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry, strict=True))
    sxx = sum((a - mx) ** 2 for a in rx)
    syy = sum((b - my) ** 2 for b in ry)
    if sxx == 0 or syy == 0:
        return None
    return sxy / math.sqrt(sxx * syy)


def competition_ranks(values: Sequence[Fraction | float | None]) -> list[int | None]:
    """Standard competition ranking, higher is better: ``1, 2, 2, 4`` (spec figure 16).

    Equal values share a rank and the next rank skips by the number tied. None (no value, e.g.
    no scored task in a domain) gets no rank.
    """
    present = [v for v in values if v is not None]
    return [None if v is None else 1 + sum(1 for other in present if other > v) for v in values]


def tied(ranks: Sequence[int | None]) -> list[bool]:
    """Whether each rank is shared with another entry (shown as ``2=``)."""
    return [r is not None and ranks.count(r) > 1 for r in ranks]


# -- uncertainty (issue 13) ------------------------------------------------------------------

CONFIDENCE = 0.95
BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 20261130
"""Fixed, so a report of the same runs shows the same intervals every time it is written."""
_FIELD_BITS = 32


@dataclass(frozen=True)
class Interval:
    """A two-sided confidence interval for a rate, as fractions in [0, 1]."""

    low: float
    high: float
    method: str
    """``wilson`` (one result per task) or ``cluster bootstrap`` (several rounds, resampling tasks)."""

    def overlaps(self, other: Interval) -> bool:
        return self.low <= other.high and other.low <= self.high

    def as_json(self) -> dict[str, Any]:
        return {"low": self.low, "high": self.high, "method": self.method, "confidence": CONFIDENCE}


def z_value(confidence: float = CONFIDENCE) -> float:
    return NormalDist().inv_cdf(0.5 + confidence / 2)


def wilson(successes: int, total: int, confidence: float = CONFIDENCE) -> Interval | None:
    """Wilson's score interval for ``successes / total``; None for an empty denominator.

    Unlike the normal (Wald) interval it stays inside [0, 1] and is not degenerate at 0 % or
    100 %, which matter here: a strong model passes every task of a small domain.
    """
    if total <= 0:
        return None
    if not 0 <= successes <= total:
        raise ValueError(f"successes must be within 0..{total}, got {successes}")
    z = z_value(confidence)
    p = successes / total
    denominator = 1 + z * z / total
    centre = (p + z * z / (2 * total)) / denominator
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / denominator
    # Clamp float noise: at p = 0 the low bound is exactly 0, at p = 1 the high bound exactly 1.
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == total else min(1.0, centre + half)
    return Interval(low, high, "wilson")


def percentile(sorted_values: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0..1) with linear interpolation between order statistics (numpy's default)."""
    position = q * (len(sorted_values) - 1)
    below = math.floor(position)
    above = min(below + 1, len(sorted_values) - 1)
    return sorted_values[below] + (sorted_values[above] - sorted_values[below]) * (position - below)


def _packed(fields: Sequence[int]) -> int:
    """Small counts packed into one integer, so that a resample is summed by one C-level ``sum``."""
    packed = 0
    for index, value in enumerate(fields):
        packed |= value << (index * _FIELD_BITS)
    return packed


def _unpacked(packed: int, count: int) -> list[int]:
    mask = (1 << _FIELD_BITS) - 1
    return [(packed >> (index * _FIELD_BITS)) & mask for index in range(count)]


def _resampled_sums(rows: Sequence[Sequence[int]], resamples: int, seed: int) -> Iterator[list[int]]:
    """Column sums of ``resamples`` bootstrap resamples of ``rows`` (drawn with replacement)."""
    if len(rows) >= 1 << (_FIELD_BITS - 8):
        raise ValueError("too many tasks for the packed bootstrap")
    width = len(rows[0])
    packed = [_packed(row) for row in rows]
    rng = random.Random(seed)
    for _ in range(resamples):
        yield _unpacked(sum(rng.choices(packed, k=len(packed))), width)


def _round_mean(sums: Sequence[int]) -> float | None:
    rates = [sums[i] / sums[i + 1] for i in range(0, len(sums), 2) if sums[i + 1]]
    return sum(rates) / len(rates) if rates else None


def rounds_rate(tasks: Sequence[Sequence[bool | None]]) -> float | None:
    """The equal-weight mean of the round rates (table 9's mean): ``tasks[i][r]`` is task i's
    outcome in round r, None when it was not scored there."""
    return _round_mean(_round_sums(tasks))


def _round_rows(tasks: Sequence[Sequence[bool | None]]) -> list[list[int]]:
    width = max((len(t) for t in tasks), default=0)
    rows = []
    for task in tasks:
        row: list[int] = []
        for index in range(width):
            outcome = task[index] if index < len(task) else None
            row.extend((int(outcome is True), int(outcome is not None)))
        rows.append(row)
    return rows


def _round_sums(tasks: Sequence[Sequence[bool | None]]) -> list[int]:
    rows = _round_rows(tasks)
    return [sum(column) for column in zip(*rows, strict=True)] if rows else []


def cluster_bootstrap(
    tasks: Sequence[Sequence[bool | None]],
    *,
    confidence: float = CONFIDENCE,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> Interval | None:
    """Percentile bootstrap interval of :func:`rounds_rate`, resampling whole tasks.

    A task's trials are not independent (an easy task passes every time), so the unit drawn with
    replacement is the task with all its rounds: treating 555 x 3 attempts as 1,665 independent
    ones would make the interval too narrow. Seeded: the same inputs give the same interval.
    When every task has the same rate (all passed, or all failed, in every round) the bootstrap
    cannot vary; the interval is then Wilson's over the number of tasks.
    """
    rows = [row for row in _round_rows(tasks) if any(row[1::2])]
    if not rows:
        return None
    statistics = sorted(
        value for sums in _resampled_sums(rows, resamples, seed) if (value := _round_mean(sums)) is not None
    )
    if statistics[0] == statistics[-1]:
        # Every task gave the same rate (say, all failed every round): resampling cannot move, and
        # [0, 0] would claim certainty. Count tasks instead, as Wilson does for one round.
        observed = statistics[0]
        interval = wilson(round(observed * len(rows)), len(rows), confidence)
        assert interval is not None
        return Interval(interval.low, interval.high, "wilson over tasks")
    alpha = 1 - confidence
    return Interval(percentile(statistics, alpha / 2), percentile(statistics, 1 - alpha / 2), "cluster bootstrap")


def rate_interval(tasks: Sequence[Sequence[bool | None]], **options: Any) -> Interval | None:
    """Wilson when every task has at most one scored result (a single run), else the cluster bootstrap."""
    if all(sum(o is not None for o in task) <= 1 for task in tasks):
        outcomes = [o for task in tasks for o in task if o is not None]
        return wilson(sum(outcomes), len(outcomes), options.get("confidence", CONFIDENCE))
    return cluster_bootstrap(tasks, **options)


def flip_rate(tasks: Sequence[Sequence[bool | None]]) -> Fraction | None:
    """Share of tasks, among those scored at least twice, whose scored outcomes are not all equal."""
    repeated = [{o for o in task if o is not None} for task in tasks if sum(o is not None for o in task) >= 2]
    return Fraction(sum(len(seen) > 1 for seen in repeated), len(repeated)) if repeated else None


# -- paired tests ------------------------------------------------------------------------------


def mcnemar_exact(worse: int, better: int) -> float:
    """Two-sided exact McNemar p-value from the discordant pairs.

    ``worse``: tasks that passed before and fail now; ``better``: the opposite. Under "no change"
    each discordant task is a fair coin, so the p-value is twice the binomial tail of the smaller
    count (capped at 1); concordant tasks carry no information about the difference.
    """
    if worse < 0 or better < 0:
        raise ValueError("discordant counts cannot be negative")
    n = worse + better
    if n == 0:
        return 1.0
    tail = Fraction(sum(math.comb(n, i) for i in range(min(worse, better) + 1)), 2**n)
    return float(min(Fraction(1), 2 * tail))


@dataclass(frozen=True)
class PairedBootstrap:
    difference: float
    """Current pooled rate minus the baseline's, over the paired tasks."""
    interval: Interval
    p_value: float
    resamples: int


def paired_bootstrap(
    pairs: Sequence[tuple[int, int, int, int]],
    *,
    confidence: float = CONFIDENCE,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> PairedBootstrap | None:
    """Difference of pooled rates with a paired bootstrap over tasks.

    ``pairs`` holds per task (successes now, scored now, successes before, scored before); tasks
    are drawn with replacement with both their sides, which keeps the pairing (a hard task is
    hard in both runs). The two-sided p-value is twice the smaller share of resampled differences
    on either side of zero, with the usual +1 correction so that it is never exactly 0.
    """
    rows = [list(p) for p in pairs if p[1] and p[3]]
    if not rows:
        return None
    totals = [sum(column) for column in zip(*rows, strict=True)]
    observed = totals[0] / totals[1] - totals[2] / totals[3]
    differences = sorted(s[0] / s[1] - s[2] / s[3] for s in _resampled_sums(rows, resamples, seed))
    at_most = sum(1 for d in differences if d <= 0)
    at_least = sum(1 for d in differences if d >= 0)
    p_value = min(1.0, 2 * (min(at_most, at_least) + 1) / (resamples + 1))
    alpha = 1 - confidence
    interval = Interval(percentile(differences, alpha / 2), percentile(differences, 1 - alpha / 2), "paired bootstrap")
    return PairedBootstrap(observed, interval, p_value, resamples)


# -- planning: how many tasks and trials detect a drop ------------------------------------------


def _planning(trials: int, drop: float, flip_rate: float) -> tuple[float, float]:
    """(spread of the per-task differences the test measures, spread of the trial noise alone)."""
    if trials < 1 or not 0 < drop < 1 or not 0 <= flip_rate <= 0.5:
        raise ValueError("need trials >= 1, 0 < drop < 1 and 0 <= flip_rate <= 0.5")
    noise = 2 * flip_rate / (2 * trials)  # coin-flip tasks: a difference of two means of k fair coins
    return math.sqrt(drop + noise - drop * drop), math.sqrt(noise)


def detection_power(tasks: int, trials: int, drop: float, flip_rate: float, alpha: float = 0.05) -> float:
    """The chance that the paired test finds a drop of ``drop`` (0.02 = 2 points) at level ``alpha``.

    Planning model (normal approximation; docs/reports.md works an example): a share ``drop`` of
    the tasks goes from always passing to always failing; a share ``2 * flip_rate`` are coin flips
    in every trial, so two single runs of one system disagree on ``flip_rate`` of the tasks (the
    flip rate crmbench reports); the other tasks never change. The task set is fixed, so the only
    chance is in the trials: the test's statistic has spread ``spread`` (what it estimates from the
    per-task differences) but varies from run to run only by the trial noise.
    """
    spread, noise = _planning(trials, drop, flip_rate)
    if noise == 0:
        return 1.0 if drop * math.sqrt(tasks) > z_value(1 - alpha) * spread else 0.0
    return NormalDist().cdf((drop * math.sqrt(tasks) - z_value(1 - alpha) * spread) / noise)


def tasks_needed(trials: int, drop: float, flip_rate: float, alpha: float = 0.05, power: float = 0.8) -> int:
    """The fewest tasks for which :func:`detection_power` reaches ``power``."""
    spread, noise = _planning(trials, drop, flip_rate)
    root = (z_value(1 - alpha) * spread + NormalDist().inv_cdf(power) * noise) / drop
    return math.ceil(root * root)
