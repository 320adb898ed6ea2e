"""Statistics against hand-computed cases and the figures of spec §C (table 9, §C.2, §C.3)."""

from fractions import Fraction
from math import isclose, sqrt

import pytest

from pytest_crmbench.results.stats import (
    Interval,
    average_ranks,
    cluster_bootstrap,
    competition_ranks,
    flip_rate,
    mcnemar_exact,
    mean,
    paired_bootstrap,
    pass_hat_k,
    rate,
    rate_interval,
    rounds_rate,
    sample_std,
    spearman,
    tied,
    wilson,
)

# Spec §C.2/§C.3: Gemini 3.8 Flash passes 480 tasks in rounds 2 and 3, averages 85.53 % (std 1.66 pp)
# over three rounds of 555, so round 1 is 464/555. Claude Opus 5 trails by 0.90, 3.24 and 2.55 pp,
# and has 554 tasks scored in every round: round 3 is 465/554.
GEMINI = [Fraction(464, 555), Fraction(480, 555), Fraction(480, 555)]
OPUS = [Fraction(459, 555), Fraction(462, 555), Fraction(465, 554)]


def pct(value: float | Fraction) -> str:
    return f"{float(value) * 100:.2f}"


def test_spec_round_means_and_sample_std() -> None:
    assert pct(mean(GEMINI)) == "85.53"
    assert f"{sample_std(GEMINI) * 100:.2f}" == "1.66"  # type: ignore[operator]
    assert pct(mean(OPUS)) == "83.29"
    assert f"{sample_std(OPUS) * 100:.2f}" == "0.62"  # type: ignore[operator]
    gaps = [pct(g - o) for g, o in zip(GEMINI, OPUS, strict=True)]
    assert gaps == ["0.90", "3.24", "2.55"]
    assert pct(mean([g - o for g, o in zip(GEMINI, OPUS, strict=True)])) == "2.23"


def test_sample_std_uses_n_minus_one() -> None:
    assert sample_std([1, 2, 3]) == 1.0  # population std would be 0.816
    assert sample_std([0.5]) is None
    assert sample_std([]) is None


def test_spec_pass_hat_3_gemini_434_of_555() -> None:
    # 434 tasks succeeded in all three rounds; the other 121 failed at least once.
    trials = [(3, 3)] * 434 + [(3, 2)] * 60 + [(3, 1)] * 40 + [(3, 0)] * 21
    assert pass_hat_k(trials, 3) == Fraction(434, 555)
    assert pct(pass_hat_k(trials, 3)) == "78.20"  # type: ignore[arg-type]


def test_spec_pass_hat_3_opus_only_tasks_scored_every_round() -> None:
    # 554 tasks scored in all three rounds (one infra exclusion); 407 passed every time.
    trials = [(3, 3)] * 407 + [(3, 2)] * 147 + [(2, 2)]
    assert pct(pass_hat_k(trials, 3)) == "73.47"  # type: ignore[arg-type]


def test_pass_hat_k_is_the_unbiased_estimator_for_more_trials_than_k() -> None:
    # C(2,2)/C(4,2) = 1/6 and C(4,2)/C(4,2) = 1: mean 7/12.
    assert pass_hat_k([(4, 2), (4, 4)], 2) == Fraction(7, 12)
    # k = 1 is plain accuracy over every trial.
    assert pass_hat_k([(4, 2), (4, 4)], 1) == Fraction(3, 4)
    assert pass_hat_k([(1, 1)], 2) is None
    with pytest.raises(ValueError):
        pass_hat_k([(1, 1)], 0)


def test_average_ranks_share_tied_positions() -> None:
    assert average_ranks([10, 20, 20, 30]) == [1.0, 2.5, 2.5, 4.0]
    assert average_ranks([3, 3, 3]) == [2.0, 2.0, 2.0]


def test_spearman_with_ties_by_hand() -> None:
    # ranks x = 1, 2.5, 2.5, 4; y = 1, 3, 2, 4: deviations give 4.5 / sqrt(4.5 * 5) = 3 / sqrt(10).
    assert isclose(spearman([1, 2, 2, 3], [1, 3, 2, 4]), 3 / sqrt(10))  # type: ignore[arg-type]
    assert isclose(spearman([1, 2, 3], [30, 20, 10]), -1.0)  # type: ignore[arg-type]
    assert spearman([1, 1, 1], [1, 2, 3]) is None
    assert spearman([1], [1]) is None


def test_competition_ranking_1_2_2_4() -> None:
    ranks = competition_ranks([Fraction(9, 10), Fraction(4, 5), Fraction(4, 5), Fraction(7, 10)])
    assert ranks == [1, 2, 2, 4]
    assert tied(ranks) == [False, True, True, False]
    assert competition_ranks([None, 0.5, 0.5]) == [None, 1, 1]


def test_rate_of_nothing_is_none_not_zero() -> None:
    assert rate(0, 0) is None
    assert rate(2, 6) == Fraction(1, 3)


def test_wilson_by_hand_and_at_the_edges() -> None:
    # 2/6: centre (1/3 + z^2/12) / (1 + z^2/6); known value 9.68 %-70.00 %.
    interval = wilson(2, 6)
    assert interval is not None
    assert (round(interval.low * 100, 2), round(interval.high * 100, 2)) == (9.68, 70.0)
    assert wilson(0, 10).low == 0.0  # type: ignore[union-attr]
    assert wilson(10, 10).high == 1.0  # type: ignore[union-attr]
    assert wilson(0, 0) is None
    with pytest.raises(ValueError):
        wilson(3, 2)


def test_intervals_overlap() -> None:
    assert Interval(0.1, 0.3, "wilson").overlaps(Interval(0.3, 0.5, "wilson"))
    assert not Interval(0.1, 0.29, "wilson").overlaps(Interval(0.3, 0.5, "wilson"))


def test_rate_interval_is_wilson_for_one_result_per_task_and_a_bootstrap_otherwise() -> None:
    single = [[True], [False], [None, True], [True]]
    assert rate_interval(single) == wilson(3, 4)
    repeated = [[True, True], [False, True], [True, None]]
    assert rate_interval(repeated).method == "cluster bootstrap"  # type: ignore[union-attr]
    assert rate_interval([[None]]) is None


def test_round_mean_weighs_rounds_equally() -> None:
    # Round 1: 2/2, round 2: 1/3 (the third task was infra in round 1): mean (1 + 1/3) / 2.
    assert rounds_rate([[True, True], [True, False], [None, False]]) == pytest.approx(2 / 3)


def test_cluster_bootstrap_is_seeded_and_covers_the_estimate() -> None:
    tasks = [[i % 3 != 0, i % 4 != 0, i % 5 != 0] for i in range(90)]
    first, again = cluster_bootstrap(tasks), cluster_bootstrap(tasks)
    assert first == again
    assert first is not None and first.low < rounds_rate(tasks) < first.high  # type: ignore[operator]
    assert cluster_bootstrap(tasks, seed=1) != first
    assert cluster_bootstrap([[None, None]]) is None


def test_flip_rate_counts_tasks_whose_scored_outcomes_differ() -> None:
    tasks = [[True, True, True], [True, False, True], [False, False, None], [True, None, None], [None, False, True]]
    # Scored at least twice: 1, 2, 3 and 5; outcomes differ in 2 and 5.
    assert flip_rate(tasks) == Fraction(2, 4)
    assert flip_rate([[True]]) is None


def test_exact_mcnemar_by_hand() -> None:
    # 6 worse, 0 better: 2 * (1/2)^6 = 1/32.
    assert mcnemar_exact(6, 0) == pytest.approx(1 / 32)
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(3, 3) == 1.0
    with pytest.raises(ValueError):
        mcnemar_exact(-1, 2)


def test_paired_bootstrap_finds_a_real_drop_and_not_noise() -> None:
    drop = [(0, 3, 3, 3)] * 15 + [(3, 3, 3, 3)] * 60 + [(1, 3, 1, 3)] * 25
    result = paired_bootstrap(drop)
    assert result is not None
    assert result.difference == pytest.approx(-15 / 100)
    assert result.interval.high < 0 and result.p_value < 0.01
    noise = [(1, 3, 2, 3)] * 10 + [(2, 3, 1, 3)] * 10 + [(3, 3, 3, 3)] * 30
    same = paired_bootstrap(noise)
    assert same is not None and same.difference == 0 and same.p_value > 0.5
    assert paired_bootstrap([(0, 0, 1, 1)]) is None


def test_a_bootstrap_that_cannot_vary_falls_back_to_wilson_over_tasks() -> None:
    always_failed = [[False, False]] * 6
    interval = cluster_bootstrap(always_failed)
    assert interval == Interval(0.0, wilson(0, 6).high, "wilson over tasks")  # type: ignore[union-attr]
    assert cluster_bootstrap([[True, True]] * 6).low == wilson(6, 6).low  # type: ignore[union-attr]
