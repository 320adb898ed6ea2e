"""The CI gates shared by the plugin and ``crmbench gate``."""

from __future__ import annotations

from pathlib import Path

from pytest_crmbench.results.gates import Gates, evaluate, fails_under
from pytest_crmbench.results.records import ResultRecord


def rec(task: str, outcome: str = "success", domain: str = "d1") -> ResultRecord:
    return ResultRecord(task_id=task, domain=domain, outcome=outcome)  # type: ignore[arg-type]


def test_fails_under_is_exact_and_nothing_scored_always_fails() -> None:
    assert not fails_under(1, 3, 0.3333)
    assert fails_under(1, 3, 0.3334)
    assert not fails_under(1, 2, 0.5)
    assert fails_under(0, 0, 0)
    assert not fails_under(0, 4, 0)


def test_fail_under_counts_not_judged_as_a_non_success() -> None:
    records = [rec("a"), rec("b", "not_judged"), rec("c", "infra")]
    verdict = evaluate(Gates(fail_under=0.5), records, None)
    assert verdict.passed and verdict.notes == [
        "strict accuracy 50.00% (1/2) >= fail-under 0.5",
        "1 infra/error result(s) excluded from the score",
    ]
    verdict = evaluate(Gates(fail_under=0.51), records, None)
    assert verdict.failures == ["strict accuracy 50.00% (1/2) is below --crm-fail-under=0.51"]


def test_empty_or_all_infra_is_never_a_pass() -> None:
    assert not evaluate(Gates(fail_under=0), [], None).passed
    verdict = evaluate(Gates(max_infra=5), [rec("a", "infra"), rec("b", "error")], None)
    assert verdict.failures == ["no task was scored (empty selection, or every result was infra/error)"]


def test_max_infra_counts_infra_and_errors() -> None:
    records = [rec("a"), rec("b", "infra"), rec("c", "error")]
    assert evaluate(Gates(max_infra=2), records, None).passed
    assert evaluate(Gates(max_infra=1), records, None).failures == ["2 infra/error result(s) exceed --crm-max-infra=1"]


def test_compare_overall_and_per_domain_over_common_tasks() -> None:
    baseline = [rec("a"), rec("b"), rec("c", domain="d2"), rec("d", domain="d2"), rec("z", "failure")]
    # d2 drops from 100 % to 50 %; overall from 100 % to 75 % over the common tasks a-d (z not run now).
    current = [rec("a"), rec("b"), rec("c", domain="d2"), rec("d", "failure", domain="d2")]
    gates = Gates(compare=Path("base"), max_drop=30)
    verdict = evaluate(gates, current, baseline)
    assert verdict.failures == [
        "domain d2: 50.00% (1/2) vs baseline 100.00% (2/2): drop of 50.00 pp exceeds --crm-max-drop=30"
    ]
    assert evaluate(Gates(compare=Path("base"), max_drop=50), current, baseline).passed
    assert len(evaluate(Gates(compare=Path("base")), current, baseline).failures) == 2  # default: no drop at all


def test_gates_are_inactive_without_options() -> None:
    assert not Gates().active
    assert Gates(max_infra=0).active


def test_fail_under_is_a_fraction_and_a_percent_is_refused() -> None:
    import pytest

    from pytest_crmbench.results.gates import check_fraction

    assert check_fraction(0.8) == 0.8
    assert check_fraction(1) == 1
    for wrong in (80, -0.1, 1.01):
        with pytest.raises(ValueError, match=r"0\.80 means 80 %"):
            check_fraction(wrong)


def test_a_passing_gate_still_names_the_excluded_results() -> None:
    from pytest_crmbench.results.records import ResultRecord

    records = [ResultRecord(task_id="a", outcome="success"), ResultRecord(task_id="b", outcome="error")]
    verdict = evaluate(Gates(fail_under=0.5), records, None)
    assert verdict.passed
    assert verdict.notes == [
        "strict accuracy 100.00% (1/1) >= fail-under 0.5",
        "1 infra/error result(s) excluded from the score",
    ]
