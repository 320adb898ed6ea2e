"""Task-level grading: strict conjunction, outcomes, primary labels, and the spec's §D cases."""

from typing import Any

import pytest
from pydantic import ValidationError

from pytest_crmbench.core.evidence import Evidence, Termination, ToolCall
from pytest_crmbench.core.spec import Task
from pytest_crmbench.env.environment import ToolEnvironment
from pytest_crmbench.grading import grade
from pytest_crmbench.grading.verdict import LABEL_PRIORITY, CheckVerdict, primary_label
from pytest_crmbench.run.episode import Limits, run_episode

from ..conftest import ListUser, ScriptedAgent


def passing_judge(task: Task, evidence: Evidence) -> list[CheckVerdict]:
    return [
        CheckVerdict(family="reply", name=f"reply[{i}]", status="passed", expected=c)
        for i, c in enumerate(task.contract.reply_criteria)
    ]


def test_case_a_rejected_transfer_then_retry_succeeds(
    mini_tasks: dict[str, Task], mini_env_class: type[ToolEnvironment]
) -> None:
    """Spec §D.1: $1,000 refused by validation (422), user corrects to $50, which executes."""
    task = mini_tasks["mini_transfer_retry_01"]
    agent = ScriptedAgent(
        turns=[
            [
                ("get_balance", {"account_id": "ACC-1"}),
                ("validate_transfer", {"from_account": "ACC-1", "to_account": "ACC-2", "amount": 1000}),
            ],
            [
                ("validate_transfer", {"from_account": "ACC-1", "to_account": "ACC-2", "amount": 50}),
                ("execute_transfer", {"from_account": "ACC-1", "to_account": "ACC-2", "amount": 50}),
            ],
        ],
        replies=["Sorry, ACC-1 holds only $180, so $1,000 cannot be sent.", "Done: $50 sent to ACC-2."],
        node="transfer",
    )
    user = ListUser(["Please move $1,000 from ACC-1 to ACC-2.", "Oh, sorry, I meant $50"])
    evidence = run_episode(task, mini_env_class(task.initial_state, seed=997688223), agent, user, agent_name="scripted")

    assert [c.result for c in evidence.tool_calls if c.name == "validate_transfer"] == [
        {
            "valid": False,
            "reason": "Insufficient funds",
            "code": 422,
            "error_code": "INSUFFICIENT_FUNDS",
            "message": "ACC-1 holds 180.00.",
            "param": "amount",
        },
        {"valid": True},
    ]
    assert [m.turn for m in evidence.messages] == [0, 0, 1, 1, 2]
    verdict = grade(task, evidence, passing_judge)
    assert verdict.outcome == "success", [c.render() for c in verdict.failed_checks()]
    assert {c.family for c in verdict.checks} == {"action", "param", "order", "state", "forbidden", "reply"}
    assert grade(task, evidence).outcome == "not_judged"  # without a judge, never a success


def test_case_b_duplicate_checkout_fails_on_state(
    mini_env_class: type[ToolEnvironment], mini_tasks: dict[str, Task]
) -> None:
    """Spec §D.2: the chain runs twice; actions, params, order and reply pass; loyalty 310 != 155."""
    data = mini_tasks["mini_checkout_chain_01"].model_dump()
    data["contract"]["action_order"] = [{"tools": ["pay_order", "award_points", "log_note"], "mode": "subsequence"}]
    task = Task.model_validate(data)
    chain = [
        ("pay_order", {"order_id": "ORD-1"}),
        ("award_points", {"account_id": "ACC-1", "amount": "15.50"}),
        ("log_note", {"text": "Paid ORD-1", "account_id": "ACC-1"}),
    ]
    agent = ScriptedAgent(
        turns=[chain, [], chain],
        replies=["You earned 155 loyalty points from this $15.50 transaction.", "Sure.", "Done again."],
    )
    user = ListUser(["Pay ORD-1 please", "What is the timestamp?", "Please redo it"])
    evidence = run_episode(task, mini_env_class(seed=4275343667), agent, user, agent_name="scripted")

    verdict = grade(task, evidence, passing_judge)
    failed = verdict.failed_checks()
    assert [c.name for c in failed] == ["state[0] accounts.ACC-1.loyalty_points"]
    assert failed[0].diff == "accounts.ACC-1.loyalty_points: expected 155, got 310"
    assert (verdict.outcome, verdict.primary_label) == ("failure", "state")
    assert all(c.passed for c in verdict.checks if c.family in ("action", "param", "order", "reply"))


def test_gold_agent_is_a_success_on_every_mini_task(
    mini_tasks: dict[str, Task], mini_env_class: type[ToolEnvironment]
) -> None:
    from pytest_crmbench.core.users import ScriptedUser
    from pytest_crmbench.run.baselines import GoldAgent

    for task in mini_tasks.values():
        agent = GoldAgent(task)
        evidence = run_episode(
            task, mini_env_class(task.initial_state, seed=1), agent, ScriptedUser(task), agent_name="gold"
        )
        verdict = grade(task, evidence, passing_judge)
        assert verdict.outcome == "success", (task.id, [c.render() for c in verdict.failed_checks()])
        assert agent.mismatches == []


def test_a_contract_without_checks_cannot_exist() -> None:
    # Undeclared checks are absent, not passes: a contract declaring none would grade every agent
    # a success (issue 11 item 4), so it is refused when the task is loaded.
    with pytest.raises(ValidationError, match="a contract must declare at least one check"):
        Task.model_validate(
            {
                "id": "mini_x_01",
                "domain": "mini",
                "capabilities": ["x"],
                "difficulty": "easy",
                "user": {"persona": "p", "goal": "g", "stop": "s"},
                "contract": {},
                "gold": {"reply": "r"},
            }
        )


@pytest.mark.parametrize(
    ("reason", "outcome", "label"),
    [
        ("infra", "infra", None),
        ("max_turns", "failure", "execution"),
        ("timeout", "failure", "execution"),
        ("agent_abort", "failure", "execution"),
        ("user_stop", "success", None),
    ],
)
def test_terminations(mini_tasks: dict[str, Task], reason: Any, outcome: str, label: str | None) -> None:
    task = mini_tasks["mini_refusal_close_01"]
    evidence = Evidence(task_id=task.id, agent="a", termination=Termination(reason=reason, detail="d"))
    verdict = grade(task, evidence, passing_judge)
    assert (verdict.outcome, verdict.primary_label) == (outcome, label)
    if reason == "infra":
        assert verdict.checks == []  # an infra episode is not scored at all


def test_label_priority_follows_the_spec() -> None:
    assert LABEL_PRIORITY == (
        "action",
        "forbidden",
        "state",
        "param",
        "reply",
        "order",
        "collateral",
        "conduct",  # ours: only when every spec family held
        "execution",
    )
    assert primary_label({"order", "state", "collateral"}) == "state"
    assert primary_label({"reply", "param"}) == "param"
    assert primary_label({"collateral"}) == "collateral"
    assert primary_label({"forbidden", "action"}) == "action"
    assert primary_label({"execution", "action"}) == "action"  # a run failure labels only tasks with no failed check
    assert primary_label({"execution"}) == "execution"
    assert primary_label(set()) is None


def test_a_failing_judge_cannot_be_outvoted_and_cannot_outvote(
    mini_tasks: dict[str, Task], mini_env_class: type[ToolEnvironment]
) -> None:
    from pytest_crmbench.core.users import ScriptedUser
    from pytest_crmbench.run.baselines import GoldAgent, NullAgent

    task = mini_tasks["mini_balance_only_01"]

    def failing_judge(task: Task, evidence: Evidence) -> list[CheckVerdict]:
        return [CheckVerdict(family="reply", name="reply[0]", status="failed")]

    gold = run_episode(task, mini_env_class(seed=1), GoldAgent(task), ScriptedUser(task), agent_name="gold")
    assert (grade(task, gold, failing_judge).outcome, grade(task, gold, failing_judge).primary_label) == (
        "failure",
        "reply",
    )
    null = run_episode(task, mini_env_class(seed=1), NullAgent(), ScriptedUser(task), agent_name="null")
    assert grade(task, null, passing_judge).primary_label == "action"


def test_limits_end_the_episode(mini_tasks: dict[str, Task], mini_env_class: type[ToolEnvironment]) -> None:
    task = mini_tasks["mini_balance_only_01"]

    class Chatty:
        def open(self) -> str:
            return "hi"

        def respond(self, conversation: Any) -> Any:
            from pytest_crmbench.core.users import UserDecision

            return UserDecision.say("and another thing")

    agent = ScriptedAgent(turns=[[("get_balance", {"account_id": "ACC-2"})]], replies=["ACC-2 holds $2,450.75."])
    evidence = run_episode(
        task, mini_env_class(seed=1), agent, Chatty(), agent_name="s", limits=Limits(max_user_turns=3)
    )
    assert evidence.termination.reason == "max_turns"
    assert sum(m.role == "user" for m in evidence.messages) == 3
    assert grade(task, evidence, passing_judge).primary_label == "execution"

    ticks = iter(range(0, 10_000, 100))
    evidence = run_episode(
        task,
        mini_env_class(seed=1),
        agent,
        Chatty(),
        agent_name="s",
        limits=Limits(task_timeout_s=250),
        clock=lambda: next(ticks),
    )
    assert evidence.termination.reason == "timeout"


def test_a_judge_infra_failure_makes_the_task_infra_not_failed(mini_tasks: dict[str, Task]) -> None:
    from pytest_crmbench.core.errors import InfraError

    def broken_judge(task: Task, evidence: Evidence) -> list[CheckVerdict]:
        raise InfraError("judge returned invalid JSON 3 times")

    # Every programmatic check of the refusal task holds, so the judge alone would decide it.
    task = mini_tasks["mini_refusal_close_01"]
    evidence = Evidence(task_id=task.id, agent="a", termination=Termination(reason="user_stop"))
    verdict = grade(task, evidence, broken_judge)
    assert (verdict.outcome, verdict.primary_label, verdict.detail) == (
        "infra",
        None,
        "judge: judge returned invalid JSON 3 times",
    )


def test_a_judge_failure_cannot_take_a_real_failure_out_of_the_score(
    mini_tasks: dict[str, Task], mini_env_class: type[ToolEnvironment]
) -> None:
    from pytest_crmbench.core.errors import InfraError
    from pytest_crmbench.core.users import ScriptedUser
    from pytest_crmbench.run.baselines import NullAgent

    def broken_judge(task: Task, evidence: Evidence) -> list[CheckVerdict]:
        raise InfraError("judge timed out 3 times")

    task = mini_tasks["mini_balance_only_01"]
    evidence = run_episode(task, mini_env_class(seed=1), NullAgent(), ScriptedUser(task), agent_name="null")
    verdict = grade(task, evidence, broken_judge)
    assert (verdict.outcome, verdict.primary_label) == ("failure", "action")
    assert [(c.name, c.status) for c in verdict.checks if c.family == "reply"] == [("reply[0]", "not_judged")]
    assert verdict.detail == "judge: judge timed out 3 times"


def _task(contract: dict[str, Any]) -> Task:
    return Task.model_validate(
        {
            "id": "t_labels_01",
            "domain": "t",
            "capabilities": ["c"],
            "difficulty": "easy",
            "user": {"persona": "p", "goal": "g", "stop": "s"},
            "contract": contract,
            "gold": {"reply": "r"},
        }
    )


def test_a_forbidden_end_state_is_a_state_failure_as_in_the_spec() -> None:
    # Figures 13 and 14 count forbidden end states with the state checks, forbidden actions and
    # parameters under "forbidden".
    task = _task({"forbidden": {"actions": ["refund"], "state": {"accounts.A.frozen": True}}})
    evidence = Evidence(
        task_id=task.id,
        agent="a",
        final_state={"accounts": {"A": {"frozen": True}}},
        termination=Termination(reason="user_stop"),
    )
    verdict = grade(task, evidence)
    assert [(c.family, c.name, c.status) for c in verdict.checks] == [
        ("forbidden", "forbidden.action[0] refund", "passed"),
        ("state", "forbidden.state[0] accounts.A.frozen", "failed"),
    ]
    assert verdict.primary_label == "state"


@pytest.mark.parametrize(
    ("reason", "label"),
    [("max_turns", "action"), ("agent_error", "action"), ("agent_abort", "action"), ("tampered", "execution")],
)
def test_a_run_failure_labels_only_a_task_whose_checks_held(reason: Any, label: str) -> None:
    task = _task({"expected_actions": ["refund"], "reply_criteria": ["says so"]})
    failed = Evidence(task_id=task.id, agent="a", termination=Termination(reason=reason))
    assert (grade(task, failed, passing_judge).outcome, grade(task, failed, passing_judge).primary_label) == (
        "failure",
        label,
    )
    refunded = failed.model_copy(
        update={"tool_calls": [ToolCall(index=0, turn=0, node=None, name="refund", arguments={}, status="ok")]}
    )
    assert grade(task, refunded, passing_judge).primary_label == "execution"
