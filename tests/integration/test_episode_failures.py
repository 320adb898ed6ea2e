"""How an episode that goes wrong on the agent's side is reported (abort, infra, agent bug)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from pytest_crmbench.results.rundir import load_run
from tests.integration.helpers import CrmProject, mini_text, replace_once

AGENTS_CONFTEST = """
from pytest_crmbench.core.errors import AgentAbort, InfraError

class Aborting:
    def respond(self, conversation, tools):
        raise AgentAbort("tool misuse, giving up")

class Flaky:
    def respond(self, conversation, tools):
        raise InfraError("provider returned 503 three times")

class Buggy:
    def respond(self, conversation, tools):
        return {}['missing']

class Unbuildable:
    def __init__(self):
        raise ImportError("no module named 'my_agent_sdk'")

def pytest_crmbench_make_agent(name, context):
    agents = {"abort": Aborting, "infra": Flaky, "buggy": Buggy, "unbuildable": Unbuildable}
    return agents.get(name, lambda: None)()
"""


@pytest.fixture
def project(mini_project: CrmProject) -> CrmProject:
    mini_project.pytester.makeconftest(AGENTS_CONFTEST)
    return mini_project


def test_agent_abort_fails_the_task_as_execution(project: CrmProject) -> None:
    # mini_refusal_close_01's checks all hold for an agent that did nothing: only the abort fails it.
    result = project.run("--crm-agent=abort", "-k", "refusal")
    result.assert_outcomes(failed=1, deselected=5)
    result.stdout.fnmatch_lines(
        [
            "tasks/mini.yaml:*: episode ended by agent_abort: tool misuse, giving up",
            "*Captured crm transcript call*",
            "agent=abort seed=* termination=agent_abort (tool misuse, giving up)",
        ]
    )
    assert "Traceback" not in result.stdout.str()


def test_infra_failure_is_reported_without_grading(project: CrmProject) -> None:
    result = project.run("--crm-agent=infra", "-k", "balance_only")
    # Issue 12 item 7: an error (E), not a failure (F), with its one-line reason in the short summary.
    result.assert_outcomes(errors=1, deselected=5)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "tasks/mini.yaml:*: infrastructure failure (excluded from the score): provider returned 503 three times",
            "INFRA tasks/mini.yaml::mini_balance_only_01 - tasks/mini.yaml:*: infrastruct*",
            "*= 5 deselected, 1 error in *",
        ]
    )
    verbose = project.run("--crm-agent=infra", "-k", "balance_only", "-v")
    verbose.stdout.fnmatch_lines(["tasks/mini.yaml::mini_balance_only_01 INFRA *"])
    # An infra episode is not graded: no check is reported as failed.
    assert "SUBFAILED" not in result.stdout.str()


def test_a_bug_in_the_agent_is_a_scored_failure_with_its_traceback(project: CrmProject) -> None:
    # Once a test error, which left the denominator: an agent could raise its way out of the tasks
    # it would fail (issue 11 item 1). Now it is the agent's failure, and the next task still runs.
    result = project.run("--crm-agent=buggy", "-k", "balance_only or refusal", "--crm-run-dir=out")
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
    result.assert_outcomes(failed=2 + 2, deselected=4)  # two items, and balance_only's two checks
    result.stdout.fnmatch_lines(
        [
            "tasks/mini.yaml:*: episode ended by agent_error: the agent raised KeyError: 'missing'",
            "Traceback (most recent call last):",
            "*return {}[[]'missing'[]]*",
            "KeyError: 'missing'",
        ]
    )
    result.stdout.fnmatch_lines(["2 task(s): 0 success, 2 failure, 0 not judged, 0 infra"])
    records = load_run(project.path / "out").records
    # Labelled by the first failed check; "execution" only where every check held (spec figure 13).
    assert {(r.outcome, r.termination, r.primary_label) for r in records} == {
        ("failure", "agent_error", "action"),
        ("failure", "agent_error", "execution"),
    }


def test_an_agent_whose_factory_raises_fails_its_tasks(project: CrmProject) -> None:
    result = project.run("--crm-agent=unbuildable", "-k", "refusal")
    result.assert_outcomes(failed=1, deselected=5)
    result.stdout.fnmatch_lines(
        ["tasks/mini.yaml:*: episode ended by agent_error: building the agent raised ImportError: *my_agent_sdk*"]
    )


def test_an_override_the_state_model_refuses_is_refused_at_collection_in_one_line(mini_project: CrmProject) -> None:
    # The gate's structural validation runs at collection too (issue 26 §3): no episode starts.
    text = replace_once(mini_text(), "accounts: {ACC-1: {balance: 999.99}}", "accounts: {ACC-1: {balance: 999.999}}")
    mini_project.write("mini.yaml", text)
    result = mini_project.run("-k", "override")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "*task 'mini_override_01'*initial_state.accounts.ACC-1.balance*Amount cannot have more than two decimal places*"
        ]
    )
    assert "Traceback" not in result.stdout.str()


def test_junit_marks_an_unscored_task_by_its_outcome_property(project: CrmProject) -> None:
    # JUnit has no "error during the call" element, so pytest writes <failure>; a CI reader tells
    # an excluded infra result from a scored failure by the testcase's crm_outcome property.
    project.run("--crm-agent=infra", "-k", "balance_only", "--junitxml=out.xml")
    (case,) = ET.parse(project.path / "out.xml").getroot().iter("testcase")
    properties = {p.get("name"): p.get("value") for p in case.iter("property")}
    assert properties["crm_outcome"] == "infra"
    project.run("--crm-agent=abort", "-k", "refusal", "--junitxml=scored.xml")
    (case,) = ET.parse(project.path / "scored.xml").getroot().iter("testcase")
    assert {p.get("name"): p.get("value") for p in case.iter("property")}["crm_outcome"] == "failure"
