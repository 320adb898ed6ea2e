"""--crm-max-turns / --crm-timeout / --crm-max-iterations and their ini twins."""

from __future__ import annotations

import pytest

from tests.integration.helpers import CrmProject

CHATTY_USER_CONFTEST = """
import pytest
from pytest_crmbench.core.users import UserDecision

class ChattyUser:
    def open(self):
        return "What's the balance on ACC-2?"

    def respond(self, conversation):
        return UserDecision.say("more")

@pytest.fixture
def crm_user():
    return ChattyUser()
"""


def test_max_turns_ends_a_conversation_that_never_stops(mini_project: CrmProject) -> None:
    mini_project.pytester.makeconftest(CHATTY_USER_CONFTEST)
    result = mini_project.run("--crm-max-turns=3", "-k", "balance_only")
    # Every check passes (gold acts on turn 0); the episode itself is the failure.
    result.assert_outcomes(failed=1, deselected=5)
    result.stdout.fnmatch_lines(
        [
            "tasks/mini.yaml:*: episode ended by max_turns: no stop decision within 3 user turns",
            "*Captured crm transcript call*",
            "agent=gold seed=* termination=max_turns (no stop decision within 3 user turns)",
            "[[]turn 0] user: What's the balance on ACC-2?",
            "*",
            "[[]turn 1] user: more",
            "[[]turn 1] assistant: ",
            "[[]turn 2] user: more",
            "[[]turn 2] assistant: ",
            "=*short test summary info*",
        ]
    )
    assert "[turn 3]" not in result.stdout.str()
    assert "SUBFAILED" not in result.stdout.str()


def test_max_turns_ini_twin(mini_project: CrmProject) -> None:
    mini_project.pytester.makeconftest(CHATTY_USER_CONFTEST)
    mini_project.write_config('crm_max_turns = "2"\n')
    result = mini_project.run("-k", "balance_only")
    result.stdout.fnmatch_lines(["*episode ended by max_turns: no stop decision within 2 user turns"])
    # The command line wins over the ini value.
    result = mini_project.run("-k", "balance_only", "--crm-max-turns=4")
    result.stdout.fnmatch_lines(["*episode ended by max_turns: no stop decision within 4 user turns"])


def test_default_max_turns_is_thirty(mini_project: CrmProject) -> None:
    mini_project.pytester.makeconftest(CHATTY_USER_CONFTEST)
    result = mini_project.run("-k", "balance_only")
    result.stdout.fnmatch_lines(["*episode ended by max_turns: no stop decision within 30 user turns"])
    assert "[turn 29] user: more" in result.stdout.str()
    assert "[turn 30]" not in result.stdout.str()


SLOW_AGENT_CONFTEST = """
import time

class SlowAgent:
    def respond(self, conversation, tools):
        time.sleep(0.2)
        return "sorry, that took a while"

def pytest_crmbench_make_agent(name, context):
    return SlowAgent() if name == "slow" else None
"""


def test_timeout_fails_the_task(mini_project: CrmProject) -> None:
    mini_project.pytester.makeconftest(SLOW_AGENT_CONFTEST)
    result = mini_project.run("--crm-agent=slow", "--crm-timeout=0.05", "-k", "refusal")
    # mini_refusal_close_01's checks all hold for an idle agent: only the timeout fails it.
    result.assert_outcomes(failed=1, deselected=5)
    result.stdout.fnmatch_lines(["tasks/mini.yaml:*: episode ended by timeout: task exceeded 0.05s during turn 0"])
    # Without the limit it passes.
    mini_project.run("--crm-agent=slow", "-k", "refusal").assert_outcomes(passed=1, deselected=5)


@pytest.mark.parametrize(
    "option",
    ["--crm-max-turns=0", "--crm-max-turns=-1", "--crm-max-iterations=0", "--crm-timeout=0", "--crm-timeout=-2.5"],
)
def test_non_positive_limits_are_usage_errors(mini_project: CrmProject, option: str) -> None:
    result = mini_project.run(option)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    name, _, value = option.partition("=")
    result.stderr.fnmatch_lines([f"*argument {name}: {value} must be *"])
    assert "Traceback" not in result.stderr.str()


@pytest.mark.parametrize(
    ("option", "kind"),
    [
        ("--crm-max-turns=abc", "whole number"),
        ("--crm-max-iterations=1.5", "whole number"),
        ("--crm-timeout=soon", "number"),
    ],
)
def test_non_numeric_limits_are_usage_errors(mini_project: CrmProject, option: str, kind: str) -> None:
    result = mini_project.run(option)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    name, _, value = option.partition("=")
    result.stderr.fnmatch_lines([f"*argument {name}: '{value}' is not a {kind}"])


@pytest.mark.parametrize(
    ("ini", "kind"),
    [("crm_max_turns", "whole number"), ("crm_max_iterations", "whole number"), ("crm_timeout", "number")],
)
def test_invalid_ini_limits_are_usage_errors(mini_project: CrmProject, ini: str, kind: str) -> None:
    mini_project.write_config(f'{ini} = "lots"\n')
    result = mini_project.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: ini option {ini} = 'lots': 'lots' is not a {kind}"])


def test_zero_in_ini_is_a_usage_error_too(mini_project: CrmProject) -> None:
    mini_project.write_config('crm_max_turns = "0"\n')
    result = mini_project.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: ini option crm_max_turns = '0': 0 must be at least 1"])
