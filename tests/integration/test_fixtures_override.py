"""The public fixtures are overridable from a project's conftest.py like any pytest fixture."""

from __future__ import annotations

import json

from tests.integration.helpers import MINI_IDS, CrmProject

AGENT_CONFTEST = """
import pytest

class BalanceAgent:
    def respond(self, conversation, tools):
        tools.route("x")
        tools.call("get_balance", {"account_id": "ACC-2"})
        return "ACC-2 holds $2,450.75."

@pytest.fixture
def crm_agent():
    return BalanceAgent()
"""


def test_overriding_crm_agent(mini_project: CrmProject) -> None:
    mini_project.pytester.makeconftest(AGENT_CONFTEST)
    result = mini_project.run("-rA")
    passed = [line.split("::")[1] for line in result.outlines if line.startswith("PASSED tasks/mini.yaml::")]
    failed = [line.split("::")[1].split()[0] for line in result.outlines if line.startswith("FAILED tasks/mini.yaml::")]
    # balance_only: every check holds. refusal_close: only forbidden checks, untouched by a read.
    # override: one get_balance of any account, state untouched. The others need writes.
    assert passed == ["mini_balance_only_01", "mini_refusal_close_01", "mini_override_01"]
    assert failed == ["mini_transfer_retry_01", "mini_checkout_chain_01", "mini_transfer_frozen_01"]
    result.stdout.fnmatch_lines(['    #0 get_balance({"account_id": "ACC-2"}) -> ok *'])
    # The custom agent is not the gold agent, so no gold-path bookkeeping applies.
    assert "gold path broken" not in result.stdout.str()


def test_overridden_agent_is_not_labelled_gold(mini_project: CrmProject) -> None:
    mini_project.pytester.makeconftest(AGENT_CONFTEST)
    result = mini_project.run("-k", "retry")
    result.stdout.fnmatch_lines(["agent=* seed=* termination=user_stop"])
    assert "agent=gold " not in result.stdout.str()


ENV_CONFTEST = """
from decimal import Decimal

import pytest

@pytest.fixture
def crm_env(crm_env_class, crm_seed):
    # Ignores the task's own initial_state override on purpose.
    return crm_env_class({"accounts": {"ACC-1": {"balance": Decimal("123.45")}}}, seed=crm_seed)
"""


def test_overriding_crm_env_changes_the_initial_state(mini_project: CrmProject) -> None:
    mini_project.pytester.makeconftest(ENV_CONFTEST)
    result = mini_project.run("-k", "mini_override_01")
    result.assert_outcomes(failed=2, deselected=5)
    result.stdout.fnmatch_lines(
        [
            "tasks/mini.yaml:*: state[[]0] accounts.ACC-1.balance: FAILED",
            "  accounts.ACC-1.balance: expected 999.99, got 123.45",
            "*",
            '    #0 get_balance({"account_id": "ACC-1"}) -> ok {"account_id": "ACC-1", "balance": "123.45", "status": "active"}',
        ]
    )
    # The rest of the merged default state is there: the owner check still passes.
    assert "state[1] accounts.ACC-1.owner" not in result.stdout.str()


SEED_CONFTEST = """
import json
import pytest

@pytest.fixture(autouse=True)
def record_seed(request, crm_seed, crm_env, crm_task, crm_settings):
    assert crm_env.seed == crm_seed
    line = json.dumps({"task": crm_task.id, "seed": crm_seed, "base": crm_settings.base_seed})
    with open(request.config.rootpath / "seeds.jsonl", "a") as f:
        f.write(line + "\\n")
"""


def test_fixtures_are_visible_to_conftest_fixtures(mini_project: CrmProject) -> None:
    mini_project.pytester.makeconftest(SEED_CONFTEST)
    mini_project.run("--crm-seed=5").assert_outcomes(passed=6)
    rows = [json.loads(line) for line in (mini_project.path / "seeds.jsonl").read_text().splitlines()]
    assert [r["task"] for r in rows] == MINI_IDS
    assert {r["base"] for r in rows} == {5}
    assert len({r["seed"] for r in rows}) == 6  # derived per task


JUDGE_CONFTEST = """
import pytest
from pytest_crmbench.grading import CheckVerdict

@pytest.fixture(scope="session")
def crm_judge():
    def judge(task, evidence):
        reply = [m.content for m in evidence.messages if m.role == "assistant"][-1]
        verdicts = []
        for i, criterion in enumerate(task.contract.reply_criteria):
            ok = "$50" not in criterion
            verdicts.append(CheckVerdict(family="reply", name=f"reply[{i}]", status="passed" if ok else "failed", expected=criterion, diff="" if ok else f"reply {reply!r} does not meet: {criterion}"))
        return verdicts
    return judge
"""


def test_overriding_crm_judge_grades_reply_criteria(mini_project: CrmProject) -> None:
    mini_project.pytester.makeconftest(JUDGE_CONFTEST)
    result = mini_project.run("-rfs", "-o", "verbosity_subtests=1")
    # The judge fails the one criterion about "$50" and passes the other three: no skips left,
    # and 36 programmatic + 3 reply checks pass.
    result.assert_outcomes(failed=2, passed=5)
    result.stdout.fnmatch_lines(["*2 failed, 5 passed, 39 subtests passed in *"])
    result.stdout.fnmatch_lines(
        [
            "tasks/mini.yaml:20: reply[[]0]: FAILED",
            "  reply 'The $1,000 transfer is not possible (insufficient funds); I have sent $50 to ACC-2.' does not meet: Says the $50 transfer was completed",
            "*",
            "SUBFAILED[[]reply[[]0]] tasks/mini.yaml::mini_transfer_retry_01*",
        ]
    )
    assert "SUBSKIPPED" not in result.stdout.str()


def test_crm_settings_in_a_plain_test(mini_project: CrmProject) -> None:
    mini_project.pytester.makepyfile(
        test_settings="""
def test_settings(crm_settings):
    assert crm_settings.agent == "null"
    assert crm_settings.base_seed == 7
    assert crm_settings.limits.max_user_turns == 3
    assert crm_settings.limits.max_react_iterations == 2
    assert crm_settings.limits.task_timeout_s == 9.5
"""
    )
    mini_project.write_config('crm_agent = "null"\ncrm_seed = "7"\ncrm_max_turns = "3"\ncrm_max_iterations = "2"\n')
    result = mini_project.run("test_settings.py", "--crm-timeout=9.5")
    result.assert_outcomes(passed=1)
