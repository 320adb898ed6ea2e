"""Each declared check is its own subtest; failures show expected vs actual and one transcript."""

from __future__ import annotations

import re

import pytest

from tests.integration.helpers import CrmProject, mini_text, replace_once

TRANSCRIPT = "Captured crm transcript call"


def test_gold_run_is_green(mini_project: CrmProject) -> None:
    result = mini_project.run("-rs")
    # Passed and skipped subtests are not reported at default subtest verbosity: six items pass.
    result.assert_outcomes(passed=6)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["tasks/mini.yaml ......*[[]100%]"])
    assert TRANSCRIPT not in result.stdout.str()


def test_reply_criteria_are_skipped_subtests_when_subtests_are_reported(mini_project: CrmProject) -> None:
    result = mini_project.run("-rs", "-o", "verbosity_subtests=1")
    # 4 tasks declare one reply criterion each -> 4 skipped subtests; the other 36 checks pass.
    result.assert_outcomes(passed=6, skipped=4)
    result.stdout.fnmatch_lines(["*6 passed, 4 skipped, 36 subtests passed in*"])
    skipped = [line for line in result.outlines if line.startswith("SUBSKIPPED[reply[0]]")]
    assert len(skipped) == 4
    for criterion in (
        "Says the $50 transfer was completed",
        "States that 155 points were earned",
        "Gives the balance as $2,450.75",
        "Refuses to close the account",
    ):
        assert any(line.endswith(f"not judged (no judge model configured): {criterion}") for line in skipped), criterion
    assert result.ret == pytest.ExitCode.OK


def test_verbose_lists_every_check_by_name(mini_project: CrmProject) -> None:
    result = mini_project.run("-v", "-k", "retry or checkout")
    result.stdout.fnmatch_lines(
        [
            "*::mini_transfer_retry_01 SUBPASSED[[]action[[]0] validate_transfer x2]*",
            "*::mini_transfer_retry_01 SUBPASSED[[]action[[]1] execute_transfer x1]*",
            "*::mini_transfer_retry_01 SUBPASSED[[]param[[]0] validate_transfer (first)]*",
            "*::mini_transfer_retry_01 SUBPASSED[[]param[[]1] execute_transfer (any)]*",
            "*::mini_transfer_retry_01 SUBPASSED[[]order[[]0] validate_transfer(amount=50) -> execute_transfer(amount=50) (subsequence)]*",
            "*::mini_transfer_retry_01 SUBPASSED[[]state[[]0] accounts.ACC-1.balance]*",
            "*::mini_transfer_retry_01 SUBPASSED[[]state[[]1] accounts.ACC-2.balance]*",
            "*::mini_transfer_retry_01 SUBPASSED[[]state[[]2] transfers]*",
            "*::mini_transfer_retry_01 SUBPASSED[[]forbidden.param[[]0] execute_transfer]*",
            "*::mini_transfer_retry_01 SUBSKIPPED[[]reply[[]0]]*",
            "*::mini_transfer_retry_01 PASSED*",
            "*::mini_checkout_chain_01 SUBPASSED[[]forbidden.action[[]0] close_account]*",
            "*::mini_checkout_chain_01 SUBPASSED[[]forbidden.state[[]0] accounts.ACC-1.status]*",
            "*::mini_checkout_chain_01 SUBPASSED[[]collateral[[]0] accounts.ACC-2.balance]*",
            "*::mini_checkout_chain_01 SUBPASSED[[]collateral[[]1] accounts.ACC-3]*",
            "*::mini_checkout_chain_01 PASSED*",
        ]
    )


def test_not_judged_criteria_show_in_a_default_rs_run(mini_project: CrmProject) -> None:
    result = mini_project.run("-rs", "--crm-agent=null")
    result.stdout.fnmatch_lines(
        [
            "*- crmbench -*",
            "6 task(s): 0 success, 5 failure, 1 not judged, 0 infra",
            "4 reply criteria in 4 task(s) were not judged (no judge model configured)*",
        ]
    )


def test_a_gold_self_test_says_what_it_verified_not_an_accuracy(mini_project: CrmProject) -> None:
    """Issue 12 item 10: the gold agent is a harness check; 33 % strict accuracy would only alarm."""
    result = mini_project.run()
    result.stdout.fnmatch_lines(
        [
            "*- crmbench -*",
            "gold self-test: 6 task result(s), each task's gold path replayed",
            "  verified: every programmatic check (actions, parameters, order, state, forbidden, protected) held"
            " on 6/6 task(s), 36 checks",
            "  not verified: 4 reply criteria in 4 task(s) need a judge model (--crm-judge-model); a model run"
            " judges them",
        ]
    )
    assert "Strict acc." not in result.stdout.str() and "33.33%" not in result.stdout.str()


def test_a_gold_self_test_names_a_broken_gold_path(mini_project: CrmProject) -> None:
    text = replace_once(mini_text(), "accounts.ACC-1.balance: 130.00", "accounts.ACC-1.balance: 131.00")
    mini_project.write("mini.yaml", text)
    result = mini_project.run("-q")
    result.stdout.fnmatch_lines(
        [
            "  BROKEN: 1 task(s) fail their own gold path (a bug in the task or its environment): mini_transfer_retry_01",
            "  verified: every programmatic check * held on 5/6 task(s), *",
        ]
    )


def test_not_judged_skip_points_at_the_task_record(mini_project: CrmProject) -> None:
    result = mini_project.run("-rs", "-o", "verbosity_subtests=1", "-k", "retry")
    result.stdout.fnmatch_lines(
        [
            "SUBSKIPPED[[]reply[[]0]] [[]1] tasks/mini.yaml:2: not judged (no judge model configured): Says the $50 transfer was completed"
        ]
    )
    assert "pytest_crmbench/" not in result.stdout.str()


def test_null_agent_fails_every_task_with_a_positive_check(mini_project: CrmProject) -> None:
    result = mini_project.run("--crm-agent=null")
    # Failed checks per task: retry 8 (2 action, 2 param, 1 order, 3 state), checkout 9
    # (3 action, 2 param, 1 order, 3 state), balance 2, frozen 2, override 1 (its state checks
    # hold on the untouched state) = 22 subtests, plus the 5 items themselves = 27 failed.
    # mini_refusal_close_01 declares only forbidden checks and a reply: doing nothing passes it.
    result.assert_outcomes(failed=27, passed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    failed_items = [line for line in result.outlines if line.startswith("FAILED ")]
    assert failed_items == [
        "FAILED tasks/mini.yaml::mini_transfer_retry_01 - contains 8 failed subtests",
        "FAILED tasks/mini.yaml::mini_checkout_chain_01 - contains 9 failed subtests",
        "FAILED tasks/mini.yaml::mini_balance_only_01 - contains 2 failed subtests",
        "FAILED tasks/mini.yaml::mini_transfer_frozen_01 - contains 2 failed subtests",
        "FAILED tasks/mini.yaml::mini_override_01 - contains 1 failed subtest",
    ]
    assert "mini_refusal_close_01" not in "\n".join(line for line in result.outlines if "FAILED" in line)
    # One transcript per failing item, not one per failing check.
    assert result.stdout.str().count(TRANSCRIPT) == 5
    result.stdout.fnmatch_lines(
        [
            "agent=null seed=* termination=user_stop",
            "[[]turn 0] user: Please move $1,000 from ACC-1 to ACC-2.",
            "[[]turn 0] assistant: I'm sorry, I can't help with that.",
        ]
    )


def test_failed_state_check_is_its_own_subfailure(crm_project: CrmProject) -> None:
    crm_project.write(
        "mini.yaml", replace_once(mini_text(), "accounts.ACC-1.balance: 130.00", "accounts.ACC-1.balance: 100.00")
    )
    result = crm_project.run()
    result.assert_outcomes(failed=2, passed=5)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "*task mini_transfer_retry_01 [[]state[[]0] accounts.ACC-1.balance]*",
            "tasks/mini.yaml:22: state[[]0] accounts.ACC-1.balance: FAILED",
            "  accounts.ACC-1.balance: expected 100.00, got 130.00",
            "*task mini_transfer_retry_01 __*",
            "contains 1 failed subtest",
            f"*{TRANSCRIPT}*",
            "agent=gold seed=* termination=user_stop",
            "[[]turn 0] user: Please move $1,000 from ACC-1 to ACC-2.",
            "    route -> gold",
            '    #0 validate_transfer({"amount": 1000, "from_account": "ACC-1", "to_account": "ACC-2"}) -> ok *"Insufficient funds"*',
            '    #2 execute_transfer(*) -> ok {"from_balance": "130.00", "transfer_id": "XFER-*"}',
            "[[]turn 0] assistant: The $1,000 transfer is not possible*",
            "*short test summary info*",
            "SUBFAILED[[]state[[]0] accounts.ACC-1.balance] tasks/mini.yaml::mini_transfer_retry_01*",
            "FAILED tasks/mini.yaml::mini_transfer_retry_01 - contains 1 failed subtest",
        ]
    )
    out = result.stdout.str()
    assert out.count(TRANSCRIPT) == 1
    # The failing check is shown once (its own report), not repeated in the item's report. (The
    # short summary may repeat it: pytest does not truncate summary lines when CI is set.)
    assert out.split("short test summary info")[0].count("expected 100.00, got 130.00") == 1
    assert "Traceback" not in out and "pytest_crmbench/" not in out


FORBIDDEN_ATTEMPT = """\
- id: mini_forbidden_attempt_01
  domain: mini
  capabilities: [transfer]
  difficulty: easy
  user: {persona: p, goal: g, stop: s}
  contract:
    forbidden:
      params: [{tool: execute_transfer, args: {amount: {$gte: 1000}}}]
  gold:
    path:
      - {tool: execute_transfer, args: {from_account: ACC-1, to_account: ACC-2, amount: 1000}, expect: rejected}
      - {tool: execute_transfer, args: {from_account: ACC-1, to_account: ACC-2, amount: 10}}
    reply: Sent $10.
"""


def test_forbidden_param_counts_a_rejected_attempt(crm_project: CrmProject) -> None:
    crm_project.write("forbidden.yaml", FORBIDDEN_ATTEMPT)
    result = crm_project.run()
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(
        [
            "tasks/forbidden.yaml:8: forbidden.param[[]0] execute_transfer: FAILED",
            "  no attempt of execute_transfer may match amount=gte 1000; matching attempts:",
            "    #0 turn 0 rejected {'from_account': 'ACC-1', 'to_account': 'ACC-2', 'amount': 1000}",
            "*",
            "SUBFAILED[[]forbidden.param[[]0] execute_transfer] tasks/forbidden.yaml::mini_forbidden_attempt_01*",
        ]
    )
    # The allowed $10 attempt is not listed as a match.
    assert "#1 turn 0 ok" not in result.stdout.str()
    # The declared rejection is not a broken gold path.
    assert "gold path broken" not in result.stdout.str()


GOLD_BROKEN = """\
- id: mini_gold_broken_01
  domain: mini
  capabilities: [transfer]
  difficulty: easy
  user: {persona: p, goal: g, stop: s}
  contract:
    expected_actions: [get_balance]
  gold:
    path:
      - {tool: get_balance, args: {account_id: ACC-1}}
      - {tool: execute_transfer, args: {from_account: ACC-1, to_account: ACC-2, amount: 5000}}
    reply: Done.
"""


def test_gold_path_broken_names_the_step(crm_project: CrmProject) -> None:
    crm_project.write("gold.yaml", GOLD_BROKEN)
    result = crm_project.run()
    # Every check passes; the item fails because its ground truth does not replay.
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "tasks/gold.yaml:1: gold path broken:",
            "  step 1 execute_transfer: expected ok, got rejected: ACC-1 holds 180.00.",
            f"*{TRANSCRIPT}*",
            "*short test summary info*",
            "FAILED tasks/gold.yaml::mini_gold_broken_01 - tasks/gold.yaml:1: gold path*",
        ]
    )
    assert "SUBFAILED" not in result.stdout.str()
    assert "Traceback" not in result.stdout.str()


CRASH = """\
- id: mini_crash_01
  domain: mini
  capabilities: [balance]
  difficulty: easy
  user: {persona: p, goal: g, opening: Balance of ACC-2?, stop: s}
  contract:
    expected_actions: [broken_tool, get_balance]
    expected_state: {log: []}
  gold: {reply: r}
- id: mini_after_crash_01
  domain: mini
  capabilities: [balance]
  difficulty: easy
  user: {persona: p, goal: g, stop: s}
  contract:
    expected_actions: [get_balance]
  gold: {reply: r}
"""

CRASH_CONFTEST = """
import pytest

class CrashingAgent:
    def respond(self, conversation, tools):
        tools.route("x")
        if conversation[0].content == "Balance of ACC-2?":  # mini_crash_01 only
            tools.call("broken_tool", {})
        tools.call("get_balance", {"account_id": "ACC-2"})
        return "ACC-2 holds $2,450.75."

@pytest.fixture
def crm_agent():
    return CrashingAgent()
"""


def test_a_crashing_tool_is_a_harness_error_not_the_agents_failure(crm_project: CrmProject) -> None:
    crm_project.write("crash.yaml", CRASH)
    crm_project.pytester.makeconftest(CRASH_CONFTEST)
    result = crm_project.run()
    # mini_crash_01: broken_tool crashed, a bug in the domain: the episode ends there as an error,
    # with the traceback, out of the score (once a tool error charged to the model, issue 9 §3).
    # The half-done write was rolled back, and the next task runs. Unscored: an error, not a failure.
    result.assert_outcomes(errors=1, passed=1)
    result.stdout.fnmatch_lines(
        [
            "tasks/crash.yaml:1: harness error (excluded from the score; a bug in crmbench or a domain):"
            " tool broken_tool crashed: RuntimeError: boom",
            "Traceback (most recent call last):",
            "*",
            '*raise RuntimeError("boom")',
            "RuntimeError: boom",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "  not run to the end: 1 result(s) are infra or error (see above)",
            "pytest's counts: 2 task item(s) (1 harness error, 1 passed)*",
        ]
    )
    result.stdout.fnmatch_lines(["HARNESS ERROR tasks/crash.yaml::mini_crash_01 - tasks/crash.yaml:1: harness e*"])
    out = result.stdout.str()
    assert "get_balance" not in out.split("crm transcript")[-1].split("short test summary")[0]


def test_every_failing_check_points_at_its_own_yaml_line(mini_project: CrmProject) -> None:
    """Issue 12 item 9: not the task's first line; the entry the check was declared by."""
    result = mini_project.run("--crm-agent=null", "-k", "retry")
    text = mini_text().splitlines()
    located = re.findall(r"^tasks/mini\.yaml:(\d+): (\S+)", result.stdout.str(), re.MULTILINE)
    expected = {
        "action[0]": "expected_actions: [validate_transfer",
        "action[1]": "expected_actions: [validate_transfer",
        "param[0]": "- {tool: validate_transfer, args: {amount: 1000}",
        "param[1]": "- {tool: execute_transfer",
        "order[0]": "action_order:",
        "state[0]": "accounts.ACC-1.balance: 130.00",
        "state[1]": 'accounts.ACC-2.balance: "2500.75"',
        "state[2]": "transfers: {$min_length: 1}",
    }
    assert {name for _, name in located} == set(expected)
    for line, name in located:
        assert text[int(line) - 1].strip().startswith(expected[name]), (name, text[int(line) - 1])
