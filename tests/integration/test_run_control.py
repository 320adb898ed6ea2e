"""Ordinary pytest run control works on task items: --lf, -x, --junitxml."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from tests.integration.helpers import MINI_IDS, CrmProject, mini_text, replace_once

WRONG_STATE = replace_once(mini_text(), "accounts.ACC-1.balance: 130.00", "accounts.ACC-1.balance: 100.00")


def test_last_failed_reruns_only_the_failed_task(crm_project: CrmProject) -> None:
    crm_project.write("mini.yaml", WRONG_STATE)
    crm_project.run().assert_outcomes(failed=2, passed=5)
    result = crm_project.run("--lf", "-v")
    result.stdout.fnmatch_lines(["*run-last-failure: rerun previous 1 failure*"])
    result.assert_outcomes(failed=2, skipped=1)  # -v reports subtests: the not-judged reply is a skip
    ran = {line.split()[0] for line in result.outlines if line.startswith("tasks/mini.yaml::")}
    assert ran == {"tasks/mini.yaml::mini_transfer_retry_01"}
    # Fixed task: --lf runs it, it passes, and the next --lf has nothing left to rerun.
    crm_project.write("mini.yaml", mini_text())
    crm_project.run("--lf").assert_outcomes(passed=1)
    result = crm_project.run("--lf")
    result.stdout.fnmatch_lines(["run-last-failure: no previously failed tests, not deselecting items."])
    result.assert_outcomes(passed=6)


def test_exitfirst_stops_after_the_first_failing_task(mini_project: CrmProject) -> None:
    result = mini_project.run("--crm-agent=null", "-x")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    # The first failed check (a subtest) sets session.shouldfail; pytest's subtests then re-raise
    # it, so the item fails with that check too and nothing after it runs.
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(
        [
            "tasks/mini.yaml uF",
            "*",
            "SUBFAILED[[]action[[]0] validate_transfer x2] tasks/mini.yaml::mini_transfer_retry_01*",
            "FAILED tasks/mini.yaml::mini_transfer_retry_01 - tasks/mini.yaml:15: action[[]0*",
            "*stopping after 2 failures*",
        ]
    )
    out = result.stdout.str()
    for task_id in MINI_IDS[1:]:
        assert task_id not in out


def test_exitfirst_still_shows_the_transcript(mini_project: CrmProject) -> None:
    result = mini_project.run("--crm-agent=null", "-x")
    assert "Captured crm transcript call" in result.stdout.str()


def test_maxfail_counts_failed_checks_not_tasks(mini_project: CrmProject) -> None:
    # Each failed subtest counts towards --maxfail: mini_transfer_retry_01 alone has 8 failing
    # checks, so the run stops inside it after its third failed check (+1 for the item itself).
    result = mini_project.run("--crm-agent=null", "--maxfail=3")
    result.assert_outcomes(failed=4)
    result.stdout.fnmatch_lines(["tasks/mini.yaml uuuF", "*", "*stopping after 4 failures*"])
    out = result.stdout.str()
    assert "order[0]" not in out
    assert "mini_checkout_chain_01" not in out


def test_junitxml_lists_every_task(crm_project: CrmProject) -> None:
    crm_project.write("mini.yaml", WRONG_STATE)
    result = crm_project.run("--junitxml=out.xml")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    report = crm_project.path / "out.xml"
    assert report.is_file()
    cases = ET.parse(report).getroot().findall(".//testcase")
    assert [(c.get("classname"), c.get("name")) for c in cases] == [
        ("tasks.mini.yaml", task_id) for task_id in MINI_IDS
    ]
    failing = cases[0]
    messages = [f.get("message") for f in failing.findall("failure")]
    assert (
        "tasks/mini.yaml:22: state[0] accounts.ACC-1.balance: FAILED\n  accounts.ACC-1.balance: expected 100.00, got 130.00"
        in messages
    )
    for case in cases[1:]:
        assert case.find("failure") is None and case.find("error") is None
