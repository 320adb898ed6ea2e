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
    verdict = evaluate(Gates(fail_under=0.5, max_infra=1), records, None)
    assert verdict.passed and verdict.notes == [
        "strict accuracy 50.00% (1/2) [9.5-90.5] >= fail-under 0.5",
        "1 infra/error result(s) <= max-infra 1, left out of the gate",
    ]
    verdict = evaluate(Gates(fail_under=0.51, max_infra=1), records, None)
    assert verdict.failures == ["strict accuracy 50.00% (1/2) [9.5-90.5] is below --crm-fail-under=0.51"]


def test_unscored_results_are_failures_to_a_gate_unless_max_infra_allows_them() -> None:
    # An agent that lost the tasks it would fail (a crash, an outage it claimed) once passed a
    # gate the gold agent failed: 13/13 of what was left (issue 11 item 1).
    records = [rec("a"), rec("b"), rec("c", "error"), rec("d", "infra")]
    verdict = evaluate(Gates(fail_under=0.6), records, None)
    assert verdict.failures == ["strict accuracy 50.00% (2/4) [15.0-85.0] is below --crm-fail-under=0.6"]
    assert verdict.notes == ["2 infra/error result(s) counted as failures (allow them with --crm-max-infra)"]
    assert evaluate(Gates(fail_under=0.6, max_infra=2), records, None).passed
    over = evaluate(Gates(fail_under=0.6, max_infra=1), records, None)
    assert over.failures == [
        "strict accuracy 50.00% (2/4) [15.0-85.0] is below --crm-fail-under=0.6",
        "2 infra/error result(s) exceed --crm-max-infra=1",
    ]


def test_a_drop_counts_this_runs_unscored_results_as_failures() -> None:
    baseline = [rec("a"), rec("b")]
    current = [rec("a"), rec("b", "error")]
    assert (
        evaluate(Gates(compare=Path("base")), current, baseline)
        .failures[0]
        .startswith("overall: 50.00% (1/2) vs baseline 100.00% (2/2)")
    )
    assert evaluate(Gates(compare=Path("base"), max_infra=1), current, baseline).passed


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
        "domain d2: 50.00% (1/2) vs baseline 100.00% (2/2): drop of 50.00 pp exceeds --crm-max-drop=30 "
        "(exact McNemar p = 1.000)"
    ]
    assert [p.task_id for p in verdict.comparison.worse] == ["d"]  # type: ignore[union-attr]
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


def test_a_passing_gate_still_names_the_unscored_results() -> None:
    from pytest_crmbench.results.records import ResultRecord

    records = [ResultRecord(task_id="a", outcome="success"), ResultRecord(task_id="b", outcome="error")]
    verdict = evaluate(Gates(fail_under=0.5), records, None)
    assert verdict.passed
    assert verdict.notes == [
        "strict accuracy 50.00% (1/2) [9.5-90.5] >= fail-under 0.5",
        "1 infra/error result(s) counted as failures (allow them with --crm-max-infra)",
    ]


def test_fail_under_over_trials_shows_a_bootstrap_interval_over_tasks() -> None:
    records = [
        ResultRecord(task_id=f"t{i}", trial=t, domain="d1", outcome="success") for i in range(20) for t in (0, 1)
    ]
    (note,) = evaluate(Gates(fail_under=0.5), records, None).notes
    # 40 results but 20 independent tasks, each always passing: the bootstrap cannot move, and the
    # interval counts the 20 tasks (Wilson over 40 attempts would claim 91.2-100).
    assert note == "strict accuracy 100.00% (40/40) [83.9-100.0] >= fail-under 0.5"


def test_significance_keeps_noise_from_failing_the_gate_but_not_a_real_drop() -> None:
    baseline = [rec(f"t{i:03}") for i in range(100)]
    noise = [rec(f"t{i:03}", "failure" if i < 3 else "success") for i in range(100)]
    gates = Gates(compare=Path("base"), max_drop=2, significance=0.05)
    verdict = evaluate(gates, noise, baseline)
    # 3 discordant tasks, all worse: exact McNemar p = 2 * (1/2)^3 = 0.25.
    assert verdict.passed
    assert verdict.notes == [
        "overall: 97.00% (97/100) vs baseline 100.00% (100/100): drop of 3.00 pp exceeds --crm-max-drop=2 "
        "but is not significant (exact McNemar p = 0.250 >= 0.05): treated as noise",
        "domain d1: 97.00% (97/100) vs baseline 100.00% (100/100): drop of 3.00 pp exceeds --crm-max-drop=2 "
        "but is not significant (exact McNemar p = 0.250 >= 0.05): treated as noise",
    ]
    assert not evaluate(Gates(compare=Path("base"), max_drop=2), noise, baseline).passed  # without: any drop
    real = [rec(f"t{i:03}", "failure" if i < 8 else "success") for i in range(100)]
    verdict = evaluate(gates, real, baseline)
    assert verdict.failures[0] == (
        "overall: 92.00% (92/100) vs baseline 100.00% (100/100): drop of 8.00 pp exceeds --crm-max-drop=2 "
        "and is significant (exact McNemar p = 0.008 < 0.05)"
    )


def test_per_domain_tests_share_the_significance_level() -> None:
    baseline = [rec(f"a{i:02}", domain="d1") for i in range(40)] + [rec(f"b{i:02}", domain="d2") for i in range(40)]
    # d1 loses 6 tasks (p = 0.031): significant at 0.05 alone, not at 0.05 / 2 domains.
    current = [rec(f"a{i:02}", "failure" if i < 6 else "success", domain="d1") for i in range(40)]
    current += [rec(f"b{i:02}", domain="d2") for i in range(40)]
    verdict = evaluate(Gates(compare=Path("base"), max_drop=10, significance=0.05), current, baseline)
    assert verdict.passed
    assert (
        "domain d1: 85.00% (34/40) vs baseline 100.00% (40/40): drop of 15.00 pp exceeds --crm-max-drop=10 but is "
        "not significant (exact McNemar p = 0.031 >= 0.025): treated as noise"
    ) in verdict.notes


def test_significance_is_a_level_not_a_percent() -> None:
    import pytest

    from pytest_crmbench.results.gates import check_significance

    assert check_significance(0.05) == 0.05
    for wrong in (0, 1, 5, -0.1):
        with pytest.raises(ValueError, match=r"0\.05 means 5 %"):
            check_significance(wrong)


def test_nothing_scored_in_both_runs_fails_the_comparison() -> None:
    verdict = evaluate(Gates(compare=Path("base")), [rec("a")], [rec("b")])
    assert verdict.failures == ["no task was scored in both this run and the baseline"]
