"""The statistics of spec §B and §C: rates, round means, sample std, pass^k, Spearman, ranks.

Pure functions over plain numbers. Rates are exact :class:`~fractions.Fraction` values so ties
(``=`` in table 6, shared ranks in figure 16) are decided exactly, never by float noise.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from fractions import Fraction


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
