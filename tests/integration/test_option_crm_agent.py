"""--crm-agent / crm_agent: built-in agents, package.module:factory, the make_agent hook, usage errors."""

from __future__ import annotations

import pytest

from tests.integration.helpers import CrmProject

BALANCE_AGENT = """
class BalanceAgent:
    def respond(self, conversation, tools):
        tools.route("x")
        tools.call("get_balance", {"account_id": "ACC-2"})
        return "ACC-2 holds $2,450.75."
"""

# What BalanceAgent (one get_balance of ACC-2) earns: mini_balance_only_01 passes all its checks;
# mini_refusal_close_01 has only forbidden checks, which a read does not violate;
# mini_override_01 asks for one get_balance of any account and a state a read leaves alone.
BALANCE_OUTCOMES = {
    "mini_transfer_retry_01": "FAILED",
    "mini_checkout_chain_01": "FAILED",
    "mini_balance_only_01": "PASSED",
    "mini_transfer_frozen_01": "FAILED",
    "mini_refusal_close_01": "PASSED",
    "mini_override_01": "PASSED",
}


def outcome_by_task(result: pytest.RunResult) -> dict[str, str]:
    """Task id -> PASSED/FAILED from ``-rA`` short summary lines of items (not subtests)."""
    found = {}
    for line in result.outlines:
        word, _, rest = line.partition(" ")
        if word in ("PASSED", "FAILED") and rest.startswith("tasks/mini.yaml::"):
            found[rest.split("::")[1].split()[0]] = word
    return found


def assert_usage_error(result: pytest.RunResult, message: str) -> None:
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: --crm-agent: {message}"])
    out = result.stdout.str() + result.stderr.str()
    assert "Traceback" not in out and "pytest_crmbench/" not in out


def test_ini_crm_agent_and_command_line_precedence(mini_project: CrmProject) -> None:
    mini_project.write_config('crm_agent = "null"\n')
    mini_project.run().assert_outcomes(failed=27, passed=1)  # as --crm-agent=null
    mini_project.run("--crm-agent=gold").assert_outcomes(passed=6)


def test_package_module_factory(mini_project: CrmProject) -> None:
    mini_project.pytester.syspathinsert()
    mini_project.pytester.makepyfile(
        **{"mypkg/__init__": "", "mypkg/agents": BALANCE_AGENT + "\n\ndef make(context):\n    return BalanceAgent()\n"}
    )
    result = mini_project.run("--crm-agent=mypkg.agents:make", "-rA")
    assert outcome_by_task(result) == BALANCE_OUTCOMES
    result.stdout.fnmatch_lines(["agent=mypkg.agents:make seed=* termination=user_stop"])


def test_factory_receives_what_an_agent_may_see(mini_project: CrmProject) -> None:
    # The domain, its tool schemas and policy, the seed and the limits; never the task (issue 11).
    mini_project.pytester.syspathinsert()
    mini_project.pytester.makepyfile(
        factories="""
from pytest_crmbench.run.baselines import NullAgent

def make(context):
    assert context.domain == "mini"
    assert "get_balance" in [tool["function"]["name"] for tool in context.tools]
    assert isinstance(context.seed, int)
    assert context.limits.max_react_iterations == 4
    assert not hasattr(context, "task") and not hasattr(context, "environment")
    return NullAgent()
"""
    )
    result = mini_project.run("--crm-agent=factories:make", "--crm-max-iterations=4", "--crm-run-dir=out")
    result.assert_outcomes(passed=1, failed=27)  # null fails every task with a positive check (5 + 22 checks)
    assert "AssertionError" not in result.stdout.str()


def test_unknown_agent_is_a_usage_error(mini_project: CrmProject) -> None:
    result = mini_project.run("--crm-agent=nonexistent")
    assert_usage_error(
        result, "unknown agent 'nonexistent': use one of gold, null, graph, flat or 'package.module:factory'"
    )


def test_unimportable_module_is_a_usage_error_with_a_sys_path_hint(mini_project: CrmProject) -> None:
    result = mini_project.run("--crm-agent=nomod:fn")
    assert_usage_error(
        result,
        "agent 'nomod:fn': cannot import 'nomod': No module named 'nomod' (the folder that contains 'nomod' must be"
        " on sys.path: run with PYTHONPATH=<that folder>, or add pythonpath = * under *tool.pytest* in the pyproject.toml*",
    )


def test_a_missing_dependency_of_the_agent_module_gets_no_sys_path_hint(mini_project: CrmProject) -> None:
    mini_project.pytester.syspathinsert()
    mini_project.pytester.makepyfile(needy="import not_installed_anywhere\n\ndef make(context):\n    return None\n")
    result = mini_project.run("--crm-agent=needy:make")
    assert_usage_error(result, "agent 'needy:make': cannot import 'needy': No module named 'not_installed_anywhere'")
    assert "sys.path" not in result.stderr.str()


def test_missing_factory_is_a_usage_error(mini_project: CrmProject) -> None:
    mini_project.pytester.syspathinsert()
    mini_project.pytester.makepyfile(factories="x = 1\n")
    result = mini_project.run("--crm-agent=factories:make")
    assert_usage_error(result, "agent 'factories:make': 'factories' has no callable 'make'")


HOOK_CONFTEST = (
    BALANCE_AGENT
    + """

def pytest_crmbench_make_agent(name, context):
    if name == "mine":
        return BalanceAgent()
    return None
"""
)


def test_make_agent_hook_builds_a_named_agent(mini_project: CrmProject) -> None:
    mini_project.pytester.makeconftest(HOOK_CONFTEST)
    result = mini_project.run("--crm-agent=mine", "-rA")
    assert outcome_by_task(result) == BALANCE_OUTCOMES
    result.stdout.fnmatch_lines(["agent=mine seed=* termination=user_stop", "    route -> x"])


def test_make_agent_hook_returning_none_falls_back_to_builtins(mini_project: CrmProject) -> None:
    mini_project.pytester.makeconftest(HOOK_CONFTEST)
    mini_project.run().assert_outcomes(passed=6)
    mini_project.run("--crm-agent=null").assert_outcomes(failed=27, passed=1)


def test_unknown_agent_with_a_hook_is_still_a_clear_error(mini_project: CrmProject) -> None:
    mini_project.pytester.makeconftest(HOOK_CONFTEST)
    result = mini_project.run("--crm-agent=nonexistent")
    out = result.stdout.str() + result.stderr.str()
    assert "unknown agent 'nonexistent'" in out
    assert "pytest_crmbench/" not in out and "Traceback" not in out
