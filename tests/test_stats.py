"""Statistics against hand-computed cases and the figures of spec §C (table 9, §C.2, §C.3)."""

from fractions import Fraction
from math import isclose, sqrt

import pytest

from pytest_crmbench.results.stats import (
    average_ranks,
    competition_ranks,
    mean,
    pass_hat_k,
    rate,
    sample_std,
    spearman,
    tied,
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
