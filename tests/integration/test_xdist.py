"""Under pytest-xdist, task items run and report exactly as they do serially."""

from __future__ import annotations

import pytest

from tests.integration.helpers import CrmProject, mini_text, replace_once

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
            "tasks/mini.yaml:2: state[[]0] accounts.ACC-1.balance: FAILED",
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
