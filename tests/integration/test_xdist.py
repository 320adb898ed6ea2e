"""Under pytest-xdist, task items run and report exactly as they do serially."""

from __future__ import annotations

import json

import pytest

from pytest_crmbench.results.rundir import load_run
from tests.integration.helpers import BY_TASK, MINI_IDS, CrmProject, mini_text, replace_once

pytest.importorskip("xdist")


def test_gold_run_under_xdist_matches_serial(mini_project: CrmProject) -> None:
    serial = mini_project.run()
    serial.assert_outcomes(passed=6)
    result = mini_project.run_subprocess("-n", "2", "-p", "xdist")
    result.stdout.fnmatch_lines(["created: 2/2 workers", "*6 passed in*"])
    result.assert_outcomes(passed=6)
    assert result.ret == pytest.ExitCode.OK


def test_marker_selection_under_xdist_with_strict_markers(mini_project: CrmProject) -> None:
    # Workers register task markers while collecting, like a serial run does.
    result = mini_project.run_subprocess("-n", "2", "-p", "xdist", "--strict-markers", "-m", "policy or hard")
    result.assert_outcomes(passed=2)
    assert result.ret == pytest.ExitCode.OK


def test_subfailures_are_reported_under_xdist(crm_project: CrmProject) -> None:
    crm_project.write(
        "mini.yaml", replace_once(mini_text(), "accounts.ACC-1.balance: 130.00", "accounts.ACC-1.balance: 100.00")
    )
    result = crm_project.run_subprocess("-n", "2", "-p", "xdist")
    result.assert_outcomes(failed=2, passed=5)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "*task mini_transfer_retry_01 [[]state[[]0] accounts.ACC-1.balance]*",
            "tasks/mini.yaml:22: state[[]0] accounts.ACC-1.balance: FAILED",
            "  accounts.ACC-1.balance: expected 100.00, got 130.00",
            "*Captured crm transcript call*",
            "*short test summary info*",
            "SUBFAILED[[]state[[]0] accounts.ACC-1.balance] tasks/mini.yaml::mini_transfer_retry_01*",
            "FAILED tasks/mini.yaml::mini_transfer_retry_01 - contains 1 failed subtest",
        ]
    )
    assert result.stdout.str().count("Captured crm transcript call") == 1


def test_collection_error_under_xdist(crm_project: CrmProject) -> None:
    crm_project.add("mini.yaml")
    crm_project.add_bad("unknown_field.yaml")
    result = crm_project.run_subprocess("-n", "2", "-p", "xdist")
    # Unlike a serial run (exit 2, nothing runs), xdist's workers run the good file and the
    # controller reports the bad one as an error: exit 1. The message is the same one line.
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(passed=6, errors=1)
    result.stdout.fnmatch_lines(
        [
            "*ERROR collecting tasks/unknown_field.yaml*",
            "tasks/unknown_field.yaml:8: task 'mini_typo_01': field 'contract.expected_stat': unknown field*",
        ]
    )
    assert "Traceback" not in result.stdout.str()


def test_one_record_per_item_under_xdist(mini_project: CrmProject) -> None:
    result = mini_project.run_subprocess("-n", "2", "-p", "xdist", "--crm-trials=2", "--crm-run-dir=run")
    result.assert_outcomes(passed=12)
    # One crmbench section (the controller's), never one per worker.
    assert result.stdout.str().count("- crmbench -") == 1
    result.stdout.fnmatch_lines(["gold self-test: 12 task result(s), each task's gold path replayed"])
    lines = (mini_project.path / "run" / "results.jsonl").read_text().splitlines()
    keys = sorted((json.loads(line)["task_id"], json.loads(line)["trial"]) for line in lines)
    assert keys == sorted((task, trial) for task in MINI_IDS for trial in (0, 1))
    traces = (mini_project.path / "run" / "traces" / "mini.jsonl").read_text().splitlines()
    assert len(traces) == 12


# "crashy" plays the gold path, except on one task where it kills its worker process outright.
CRASHING_CONFTEST = (
    BY_TASK
    + """
import os

class Crash:
    def respond(self, conversation, tools):
        os._exit(1)

def pytest_crmbench_make_agent(name, context):
    if name == "crashy":
        return ByTask(lambda task: Crash() if task.id == "mini_checkout_chain_01" else GoldAgent(task))
"""
)


def test_a_killed_worker_yields_an_error_row_and_the_run_completes(mini_project: CrmProject) -> None:
    mini_project.pytester.makeconftest(CRASHING_CONFTEST)
    result = mini_project.run_subprocess("-n", "2", "-p", "xdist", "--crm-agent=crashy", "--crm-run-dir=run")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(passed=5, failed=1)
    result.stdout.fnmatch_lines(["6 task(s): 2 success, 0 failure, 3 not judged, 0 infra, 1 error"])
    records = {r.task_id: r for r in load_run(mini_project.path / "run").records}
    assert sorted(records) == sorted(MINI_IDS)
    crashed = records["mini_checkout_chain_01"]
    assert crashed.outcome == "error"
    assert crashed.error is not None and "crashed while running" in crashed.error
    # The controller knows the task from the task files: the error row keeps its domain.
    assert (crashed.domain, crashed.difficulty) == ("mini", "hard")
