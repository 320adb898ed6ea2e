"""A benchmark run's score and exit status do not depend on warnings in the agent's code (issue 32 item 7).

Each project here is configured as crmbench's own checkout was: ``filterwarnings = ["error"]``.
"""

from __future__ import annotations

import json

import pytest

from tests.integration.helpers import BY_TASK, CrmProject

AGENTS = (
    BY_TASK
    + """
import socket
import warnings


class Warns(GoldAgent):
    def respond(self, conversation, tools):
        warnings.warn("client.old_call() is deprecated", DeprecationWarning, stacklevel=1)
        return super().respond(conversation, tools)


class LeavesSocket(GoldAgent):
    '''Like a framework's HTTP client never closed: a socket freed with the agent, or at exit.'''

    def __init__(self, task):
        super().__init__(task)
        self.client = socket.socket()
        self.cycle = self  # freed by the garbage collector, not when the item lets go of it


def warning_factory():
    warnings.warn("make() is deprecated", DeprecationWarning, stacklevel=1)
    return ByTask(Warns)


def pytest_crmbench_make_agent(name, context):
    agents = {"plain": lambda: ByTask(GoldAgent), "warns": warning_factory, "socket": lambda: ByTask(LeavesSocket)}
    return agents[name]() if name in agents else None
"""
)


@pytest.fixture
def project(mini_project: CrmProject) -> CrmProject:
    mini_project.pytester.makeconftest(AGENTS)
    mini_project.write_config('filterwarnings = ["error"]\ncrm_fail_under = "0.3"\n')
    return mini_project


def outcomes(project: CrmProject, run: str) -> dict[str, str]:
    lines = (project.path / run / "results.jsonl").read_text().splitlines()
    return {record["task_id"]: record["outcome"] for record in map(json.loads, lines)}


def test_a_deprecation_warning_inside_respond_scores_as_without_it(project: CrmProject) -> None:
    plain = project.run("--crm-agent=plain", "--crm-run-dir=plain")
    assert plain.ret == 0
    warned = project.run("--crm-agent=warns", "--crm-run-dir=warned")
    assert warned.ret == 0, warned.stdout.str()
    assert outcomes(project, "warned") == outcomes(project, "plain")
    assert set(outcomes(project, "warned").values()) == {"success", "not_judged"}
    warned.stdout.fnmatch_lines(
        [
            "the agent's code issued * warning(s) in 6 of 6 result(s): recorded in the trajectories,"
            " never raised, and held against nothing",
            "crmbench gate passed*",
        ]
    )
    records = [json.loads(line) for line in (project.path / "warned" / "results.jsonl").read_text().splitlines()]
    assert all(record["agent_warnings"] >= 2 for record in records)  # the factory's and respond()'s


def test_an_unclosed_socket_of_the_agent_does_not_make_pytest_exit_1(project: CrmProject) -> None:
    # In a subprocess: its exit status is the one a user sees, after pytest's last collection of
    # unraisable exceptions at exit.
    result = project.run_subprocess("--crm-agent=socket", "-p", "no:randomly")
    assert result.ret == 0, result.stdout.str() + result.stderr.str()
    result.stdout.fnmatch_lines(["crmbench gate passed*"])
    assert "PytestUnraisableExceptionWarning" not in result.stdout.str() + result.stderr.str()


def test_a_strict_project_keeps_its_other_tests_strict(project: CrmProject) -> None:
    # Only the task items are lenient: a test of the project's own still fails on a warning.
    project.pytester.makepyfile(
        test_own="""
        import warnings

        def test_warns():
            warnings.warn("own code", DeprecationWarning)
        """
    )
    result = project.run("--crm-agent=warns", "test_own.py", "tasks")
    result.assert_outcomes(failed=1, passed=6)
    result.stdout.fnmatch_lines(["FAILED test_own.py::test_warns - DeprecationWarning: own code"])
