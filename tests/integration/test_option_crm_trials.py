"""--crm-trials / crm_trials: k items per task, seeds per trial, per-trial accuracy and pass^k."""

from __future__ import annotations

import re

import pytest

from pytest_crmbench.results.rundir import load_run
from tests.integration.helpers import CrmProject


def test_each_task_runs_k_times_as_separate_items(mini_project: CrmProject) -> None:
    result = mini_project.run("--co", "-q", "--crm-trials=3", "-k", "retry or override")
    assert [line for line in result.outlines if "::" in line] == [
        "tasks/mini.yaml::mini_transfer_retry_01[t1]",
        "tasks/mini.yaml::mini_transfer_retry_01[t2]",
        "tasks/mini.yaml::mini_transfer_retry_01[t3]",
        "tasks/mini.yaml::mini_override_01[t1]",
        "tasks/mini.yaml::mini_override_01[t2]",
        "tasks/mini.yaml::mini_override_01[t3]",
    ]


def test_progress_counts_each_trial_once(mini_project: CrmProject) -> None:
    # Each check is a subtest report, rebuilt by pytest from text; pytest 9 tracks progress by the
    # parsed node id, which for "task[t1]" differed between the item and its subtest reports.
    result = mini_project.run("--crm-trials=3", "-k", "retry or override", "-q")  # -q: a character per subtest
    assert result.ret == 0
    shown = [int(p) for p in re.findall(r"\[\s*(\d+)%\]", result.stdout.str())]
    assert shown and shown[-1] == 100 and max(shown) == 100


def test_trials_get_their_own_seeds_and_are_reported(mini_project: CrmProject) -> None:
    result = mini_project.run("--crm-trials=2", "--crm-run-dir=run", "-k", "retry or override or balance")
    result.assert_outcomes(passed=6)
    result.stdout.fnmatch_lines(["*- crmbench -*", "gold self-test: 6 task result(s), each task's gold path replayed"])
    null = mini_project.run("--crm-trials=2", "--crm-agent=null", "-k", "retry or override or balance")
    null.stdout.fnmatch_lines(
        [
            "*- crmbench -*",
            "3 task(s) in trial 1 of 2: 0 success, 3 failure, 0 not judged, 0 infra",
            "2 trials: t1 0.00%, t2 0.00%; mean 0.00% [[]0.0-56.1[]] (95% CI, bootstrap over tasks), sample std"
            " 0.00 pp; pass^2 0.00%; flip rate 0.00%",
        ]
    )
    records = load_run(mini_project.path / "run").records
    assert sorted((r.task_id, r.trial) for r in records) == [
        (task, trial)
        for task in ("mini_balance_only_01", "mini_override_01", "mini_transfer_retry_01")
        for trial in (0, 1)
    ]
    seeds = {(r.task_id, r.trial): r.seed for r in records}
    assert seeds[("mini_override_01", 0)] != seeds[("mini_override_01", 1)]
    # Trial 1 (t1) has the seed of a single-trial run: adding trials does not change round 1.
    single = mini_project.run("--crm-run-dir=single", "-k", "override")
    single.assert_outcomes(passed=1)
    (one,) = load_run(mini_project.path / "single").records
    assert one.seed == seeds[("mini_override_01", 0)]


def test_ini_twin_and_validation(mini_project: CrmProject) -> None:
    mini_project.write_config('crm_trials = "2"\n')
    result = mini_project.run("--co", "-q")
    assert sum(1 for line in result.outlines if re.search(r"\[t2\]$", line)) == 6
    result = mini_project.run("--crm-trials=0")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*argument --crm-trials: 0 must be at least 1"])
    mini_project.write_config('crm_trials = "0"\n')
    result = mini_project.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: ini option crm_trials = '0': 0 must be at least 1"])
