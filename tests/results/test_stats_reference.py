"""Issue 13's statistics against reference implementations (scipy, statsmodels) on generated data.

The references are test-extra dependencies only: the package computes everything in plain Python.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as scipy_stats
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.proportion import proportion_confint

from pytest_crmbench.results.stats import (
    cluster_bootstrap,
    detection_power,
    mcnemar_exact,
    paired_bootstrap,
    percentile,
    tasks_needed,
    wilson,
)

RESAMPLES = 4000


@given(total=st.integers(1, 2000), share=st.floats(0, 1))
def test_wilson_matches_statsmodels(total: int, share: float) -> None:
    successes = round(total * share)
    interval = wilson(successes, total)
    assert interval is not None
    low, high = proportion_confint(successes, total, alpha=0.05, method="wilson")
    assert interval.low == pytest.approx(low, abs=1e-12)
    assert interval.high == pytest.approx(high, abs=1e-12)
    assert 0 <= interval.low <= successes / total <= interval.high <= 1


@given(worse=st.integers(0, 300), better=st.integers(0, 300), same=st.integers(0, 300))
def test_exact_mcnemar_matches_statsmodels(worse: int, better: int, same: int) -> None:
    # Rows: before pass / fail; columns: now pass / fail.
    table = [[same, worse], [better, same]]
    reference = mcnemar(table, exact=True).pvalue
    assert mcnemar_exact(worse, better) == pytest.approx(min(1.0, reference), rel=1e-9, abs=1e-300)


@settings(deadline=None)  # numpy's first call can take 0.4 s on a loaded machine (a flake, not a bug)
@given(values=st.lists(st.floats(-1, 1), min_size=1, max_size=50), q=st.floats(0, 1))
def test_percentile_is_numpys_linear_method(values: list[float], q: float) -> None:
    ordered = sorted(values)
    assert percentile(ordered, q) == pytest.approx(float(np.percentile(ordered, q * 100)), abs=1e-12)


def _round_mean(successes: Any, scored: Any, axis: int = -1) -> Any:
    return (successes.sum(axis=axis) / scored.sum(axis=axis)).mean(axis=0)


tasks_with_rounds = st.integers(2, 4).flatmap(
    lambda rounds: st.lists(
        st.tuples(st.floats(0, 1), st.lists(st.floats(0, 1), min_size=rounds, max_size=rounds)),
        min_size=40,
        max_size=150,
    )
)


@settings(max_examples=20, deadline=None)
@given(tasks=tasks_with_rounds)
def test_cluster_bootstrap_matches_scipy_resampling_tasks(tasks: list[tuple[float, list[float]]]) -> None:
    # Each task has its own difficulty p; each round passes when a uniform draw is below it.
    outcomes = [[draw < p for draw in draws] for p, draws in tasks]
    ours = cluster_bootstrap(outcomes, resamples=RESAMPLES)
    assert ours is not None
    if ours.method == "wilson over tasks":
        # No resample can change the rate (every task alike): scipy's interval is a point, ours
        # counts tasks instead. Nothing to compare but that it holds the estimate.
        assert ours.low <= float(np.mean(outcomes)) <= ours.high
        return
    # scipy resamples tasks (paired=True keeps every round of a task together), statistic:
    # the mean over rounds of the round rates, as table 9's mean.
    matrix = np.array(outcomes, dtype=float).T  # rounds x tasks
    reference = scipy_stats.bootstrap(
        tuple(matrix),
        lambda *rounds, axis=-1: np.mean([r.mean(axis=axis) for r in rounds], axis=0),
        paired=True,
        vectorized=True,
        n_resamples=RESAMPLES,
        method="percentile",
        rng=np.random.default_rng(0),
    ).confidence_interval
    # Two Monte Carlo estimates of the same quantiles: equal up to resampling noise and one step
    # of the statistic's lattice.
    tolerance = 0.01 + 1 / matrix.size
    assert ours.low == pytest.approx(reference.low, abs=tolerance)
    assert ours.high == pytest.approx(reference.high, abs=tolerance)
    assert ours.low <= float(matrix.mean()) <= ours.high


@settings(max_examples=20, deadline=None)
@given(
    tasks=st.lists(
        st.tuples(st.integers(1, 3), st.integers(1, 3), st.floats(0, 1), st.floats(-0.3, 0.3)),
        min_size=40,
        max_size=150,
    ),
    seed=st.integers(0, 2**16),
)
def test_paired_bootstrap_matches_scipy(tasks: list[tuple[int, int, float, float]], seed: int) -> None:
    rng = np.random.default_rng(seed)
    pairs = []
    for now_n, before_n, p, shift in tasks:
        now_c = int((rng.random(now_n) < min(1, max(0, p + shift))).sum())
        before_c = int((rng.random(before_n) < p).sum())
        pairs.append((now_c, now_n, before_c, before_n))
    ours = paired_bootstrap(pairs, resamples=RESAMPLES)
    assert ours is not None
    columns = tuple(np.array(column, dtype=float) for column in zip(*pairs, strict=True))
    reference = scipy_stats.bootstrap(
        columns,
        lambda c1, n1, c0, n0, axis=-1: c1.sum(axis=axis) / n1.sum(axis=axis) - c0.sum(axis=axis) / n0.sum(axis=axis),
        paired=True,
        vectorized=True,
        n_resamples=RESAMPLES,
        method="percentile",
        rng=np.random.default_rng(1),
    ).confidence_interval
    tolerance = 0.01 + 2 / len(pairs)
    assert ours.interval.low == pytest.approx(reference.low, abs=tolerance)
    assert ours.interval.high == pytest.approx(reference.high, abs=tolerance)
    observed = columns[0].sum() / columns[1].sum() - columns[2].sum() / columns[3].sum()
    assert ours.difference == pytest.approx(observed)
    # The p-value and the interval tell the same story: 0 outside the 95 % interval <=> p < 0.05
    # (up to the +1 correction at the boundary).
    if ours.interval.low > 0.005 or ours.interval.high < -0.005:
        assert ours.p_value < 0.06


def test_cluster_bootstrap_resamples_tasks_not_attempts() -> None:
    # 30 tasks always pass and 30 always fail, 3 rounds each: 60 independent units, not 180. An
    # interval that resampled attempts would be about 1/sqrt(3) as wide.
    outcomes = [[True] * 3] * 30 + [[False] * 3] * 30
    interval = cluster_bootstrap(outcomes)
    assert interval is not None
    half_width_of_60_coins = 1.96 * (0.25 / 60) ** 0.5
    assert (interval.high - interval.low) / 2 == pytest.approx(half_width_of_60_coins, rel=0.1)
    assert interval.method == "cluster bootstrap"


def simulate_planning_model(tasks: int, trials: int, flip: float, rng: Any) -> tuple[Any, int, int]:
    """Per-task differences of success rates (now - before) and the discordant counts of trial 1."""
    regressed = round(0.02 * tasks)
    unstable = rng.random(tasks - regressed) < 2 * flip
    before = rng.random((tasks - regressed, trials)) < 0.5
    now = rng.random((tasks - regressed, trials)) < 0.5
    change = np.where(unstable, now.mean(axis=1) - before.mean(axis=1), 0.0)
    differences = np.concatenate([np.full(regressed, -1.0), change])
    worse = regressed + int((unstable & before[:, 0] & ~now[:, 0]).sum())
    better = int((unstable & now[:, 0] & ~before[:, 0]).sum())
    return differences, worse, better


@pytest.mark.parametrize(
    ("tasks", "trials", "flip"), [(555, 1, 0.054), (555, 3, 0.054), (1110, 3, 0.054), (800, 1, 0.03)]
)
def test_detection_power_matches_a_simulation_of_its_model(tasks: int, trials: int, flip: float) -> None:
    rng = np.random.default_rng(7)
    simulations, z_found, mcnemar_found = 1500, 0, 0
    for _ in range(simulations):
        differences, worse, better = simulate_planning_model(tasks, trials, flip, rng)
        z = differences.mean() / (differences.std(ddof=1) / np.sqrt(tasks))
        z_found += abs(z) > 1.959964
        mcnemar_found += mcnemar_exact(worse, better) < 0.05
    power = detection_power(tasks, trials, 0.02, flip)
    assert power == pytest.approx(z_found / simulations, abs=0.05)  # the paired test it approximates
    if trials == 1:
        # The exact test on discrete counts is more conservative than the approximation.
        assert power - 0.12 <= mcnemar_found / simulations <= power + 0.02


def test_tasks_needed_inverts_detection_power() -> None:
    for trials in (1, 3, 5):
        needed = tasks_needed(trials, 0.02, 0.054)
        assert detection_power(needed, trials, 0.02, 0.054) >= 0.8 > detection_power(needed - 1, trials, 0.02, 0.054)
    assert [tasks_needed(k, 0.02, 0.054) for k in (1, 3, 5, 10)] == [1323, 608, 461, 346]
