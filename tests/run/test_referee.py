"""The referee: agents reach only what an agent may see, cheating is detected, crashes are charged right.

The adversaries of :mod:`tests.adversaries` each once scored more than they deserved (issue 11);
here each plays the mini tasks through the real episode loop and grader.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

import pytest

from pytest_crmbench.core.errors import HarnessError
from pytest_crmbench.core.evidence import Evidence, Message
from pytest_crmbench.core.spec import Task
from pytest_crmbench.core.users import ScriptedUser
from pytest_crmbench.env.environment import ToolEnvironment
from pytest_crmbench.grading import grade
from pytest_crmbench.grading.verdict import TaskVerdict
from pytest_crmbench.run.baselines import BrokenAgent, GoldAgent
from pytest_crmbench.run.episode import Agent, AgentContext, ToolBox, run_episode
from pytest_crmbench.run.referee import Referee
from tests import adversaries
from tests.conftest import ListUser


def play(task: Task, env_class: type[ToolEnvironment], agent: Agent) -> tuple[Evidence, TaskVerdict]:
    evidence = run_episode(task, env_class(task.initial_state, seed=3), agent, ScriptedUser(task), agent_name="x")
    return evidence, grade(task, evidence, lambda t, e: [])


# -- what an agent may see -----------------------------------------------------------------------


def test_the_agent_context_carries_no_task_and_no_environment(mini_env_class: type[ToolEnvironment]) -> None:
    context = AgentContext.for_domain(mini_env_class, seed=1)
    fields = vars(context)
    assert not any(isinstance(v, (Task, ToolEnvironment, type)) for v in fields.values())
    assert context.domain == "mini"
    assert [t["function"]["name"] for t in context.tools] == mini_env_class.tool_names()
    with pytest.raises(AttributeError):
        context.task  # type: ignore[attr-defined]  # noqa: B018


def test_the_context_of_a_real_domain_carries_its_policy() -> None:
    from pathlib import Path

    from pytest_crmbench.env.registry import discover

    payments = discover([Path(__file__).parents[2] / "envs"])["payments"]
    assert "policy" in AgentContext.for_domain(payments).policy.lower()


def test_no_attribute_of_the_toolbox_leads_to_the_environment(mini_env_class: type[ToolEnvironment]) -> None:
    env = mini_env_class(seed=1)
    tools = Referee(env).toolbox(0, 1e12, lambda: 0.0)
    reachable: list[Any] = []
    for value in vars(tools).values():
        reachable.append(value)
        reachable.extend(getattr(value, name, None) for name in ("__self__", "func", "args", "keywords"))
    assert not any(v is env or v is env.trace or v is env.state or v is env.rng for v in reachable)
    assert not any(isinstance(v, (ToolEnvironment, Referee)) for v in reachable)


def test_what_the_agent_is_handed_cannot_change_the_evidence(
    mini_tasks: dict[str, Task], mini_env_class: type[ToolEnvironment]
) -> None:
    class Editor:
        def respond(self, conversation: Sequence[Message], tools: ToolBox) -> str:
            call = tools.call("get_balance", {"account_id": "ACC-1"})
            call.result["balance"] = Decimal(0)
            with pytest.raises(ValueError, match="frozen"):
                call.status = "rejected"  # type: ignore[misc]
            with pytest.raises(ValueError, match="frozen"):
                conversation[0].content = "something the user never said"  # type: ignore[misc]
            return "ok"

    evidence, _ = play(mini_tasks["mini_balance_only_01"], mini_env_class, Editor())
    assert evidence.tool_calls[0].result["balance"] == Decimal("180.00")
    assert evidence.termination.reason == "user_stop"


# -- the four cheating agents --------------------------------------------------------------------


def test_gold_from_the_context_cannot_even_be_built(mini_env_class: type[ToolEnvironment]) -> None:
    with pytest.raises(AttributeError, match="task"):
        adversaries.make_gold_from_context(AgentContext.for_domain(mini_env_class))


@pytest.mark.parametrize(
    ("adversary", "found"),
    [
        (
            adversaries.PrivateCopy,
            "the state and the id source and the issued ids and the environment's tool trace changed outside a tool call",
        ),
        (adversaries.ForbiddenThenErase, "the environment's tool trace changed outside a tool call"),
        (adversaries.FakeState, "the state and the environment's tool trace changed outside a tool call"),
    ],
)
def test_tampering_with_the_world_ends_the_episode_as_tampered(
    mini_tasks: dict[str, Task], mini_env_class: type[ToolEnvironment], adversary: Any, found: str
) -> None:
    task = mini_tasks["mini_checkout_chain_01"]  # expected actions and state, forbidden actions and state
    evidence, verdict = play(task, mini_env_class, adversary(task))
    assert evidence.termination.reason == "tampered"
    assert evidence.termination.detail == f"{found} (found at the end)"
    assert (verdict.outcome, verdict.primary_label) == ("failure", "execution")


def test_forbidden_calls_stay_in_the_evidence_however_the_trace_is_edited(
    mini_tasks: dict[str, Task], mini_env_class: type[ToolEnvironment]
) -> None:
    task = mini_tasks["mini_checkout_chain_01"]
    evidence, verdict = play(task, mini_env_class, adversaries.ForbiddenThenErase(task))
    assert [c.name for c in evidence.tool_calls][-1] == "close_account"  # the referee's own record
    assert any(c.name.startswith("forbidden.action") and c.status == "failed" for c in verdict.checks)


def test_a_fake_trace_entry_never_reaches_the_evidence(
    mini_tasks: dict[str, Task], mini_env_class: type[ToolEnvironment]
) -> None:
    task = mini_tasks["mini_checkout_chain_01"]
    evidence, verdict = play(task, mini_env_class, adversaries.FakeState(task))
    assert evidence.tool_calls == []
    # The evidence holds the world as the tool calls left it (here: untouched), not what was written.
    assert evidence.final_state == evidence.initial_state
    assert all(c.status == "failed" for c in verdict.checks if c.name.startswith("state["))


def test_tampering_between_two_calls_is_found_at_the_next_call(
    mini_tasks: dict[str, Task], mini_env_class: type[ToolEnvironment]
) -> None:
    class Sneaky:
        def respond(self, conversation: Sequence[Message], tools: ToolBox) -> str:
            tools.call("get_balance", {"account_id": "ACC-1"})
            adversaries.live_environment(tools).state["accounts"]["ACC-1"]["balance"] = Decimal(10**6)
            try:
                tools.call("execute_transfer", {"from_account": "ACC-1", "to_account": "ACC-2", "amount": 1000})
            except Exception as exc:  # swallowing what it is handed does not help
                assert type(exc).__name__ == "EpisodeTampered"
            return "Done."

    evidence, verdict = play(mini_tasks["mini_transfer_retry_01"], mini_env_class, Sneaky())
    assert evidence.termination.reason == "tampered"
    assert evidence.termination.detail == "the state changed outside a tool call (found before tool call #1)"
    assert [c.name for c in evidence.tool_calls] == ["get_balance"]  # the transfer never ran
    assert verdict.outcome == "failure"


def test_an_honest_agent_is_not_tampering(mini_tasks: dict[str, Task], mini_env_class: type[ToolEnvironment]) -> None:
    for task in mini_tasks.values():
        evidence, _ = play(task, mini_env_class, GoldAgent(task))
        assert evidence.termination.reason == "user_stop", (task.id, evidence.termination)


# -- crashes: the agent's are its failures, ours are unscored errors ------------------------------


def test_an_agent_that_raises_fails_the_task_with_its_traceback(
    mini_tasks: dict[str, Task], mini_env_class: type[ToolEnvironment]
) -> None:
    # It once left the denominator: replaying gold on easy tasks and raising on the rest ranked
    # first, above the gold agent (issue 11 item 1).
    outcomes = {}
    for task in mini_tasks.values():
        evidence, verdict = play(task, mini_env_class, adversaries.CrashOnHard(task))
        outcomes[task.difficulty, verdict.outcome] = outcomes.get((task.difficulty, verdict.outcome), 0) + 1
        if task.difficulty != "easy":
            assert evidence.termination.reason == "agent_error"
            assert evidence.termination.detail is not None
            assert evidence.termination.detail.startswith("the agent raised RuntimeError: giving up on a")
            assert 'raise RuntimeError(f"giving up on a {task.difficulty} task")' in evidence.termination.detail
            # Labelled by its first failed check (spec figure 13); the crash itself only fails the task.
            assert (verdict.outcome, verdict.primary_label) == ("failure", "action")
    assert outcomes == {("easy", "success"): 4, ("medium", "failure"): 1, ("hard", "failure"): 1}


def test_a_factory_that_raises_is_the_agents_failure(
    mini_tasks: dict[str, Task], mini_env_class: type[ToolEnvironment]
) -> None:
    try:
        adversaries.make_gold_from_context(AgentContext.for_domain(mini_env_class))
    except AttributeError as exc:
        broken = BrokenAgent(exc)
    evidence, verdict = play(mini_tasks["mini_balance_only_01"], mini_env_class, broken)
    assert evidence.termination.reason == "agent_error"
    assert "building the agent raised AttributeError" in (evidence.termination.detail or "")
    assert verdict.outcome == "failure"


@pytest.mark.parametrize("reply", [None, 42, ["a list"]])
def test_a_reply_that_is_not_text_is_the_agents_failure(
    mini_tasks: dict[str, Task], mini_env_class: type[ToolEnvironment], reply: Any
) -> None:
    class Mute:
        def respond(self, conversation: Sequence[Message], tools: ToolBox) -> Any:
            return reply

    evidence, verdict = play(mini_tasks["mini_balance_only_01"], mini_env_class, Mute())
    assert evidence.termination.reason == "agent_error" and verdict.outcome == "failure"
    assert "returned" in (evidence.termination.detail or "")


def test_a_tool_crash_is_a_harness_error_even_when_the_agent_swallows_it(
    mini_tasks: dict[str, Task], mini_env_class: type[ToolEnvironment]
) -> None:
    # Once recorded as a tool error the model saw and charged to the model: our bug (issue 9 §3).
    class Swallower:
        def respond(self, conversation: Sequence[Message], tools: ToolBox) -> str:
            with contextlib.suppress(HarnessError):
                tools.call("broken_tool", {})
            with pytest.raises(HarnessError, match="crashed earlier"):
                tools.call("get_balance", {"account_id": "ACC-1"})
            return "All good!"

    evidence, verdict = play(mini_tasks["mini_balance_only_01"], mini_env_class, Swallower())
    assert evidence.termination.reason == "harness_error"
    assert (evidence.termination.detail or "").startswith("tool broken_tool crashed: RuntimeError: boom\nTraceback")
    assert verdict.outcome == "error" and verdict.checks == []
    assert evidence.final_state["log"] == []  # the half-done write was rolled back


def test_a_crashing_user_simulator_is_a_harness_error(
    mini_tasks: dict[str, Task], mini_env_class: type[ToolEnvironment]
) -> None:
    class BrokenUser(ListUser):
        def respond(self, conversation: Sequence[Message]) -> Any:
            raise KeyError("decision")

    task = mini_tasks["mini_balance_only_01"]
    evidence = run_episode(task, mini_env_class(seed=1), GoldAgent(task), BrokenUser(["hi"]), agent_name="gold")
    assert evidence.termination.reason == "harness_error"
    assert "the user simulator raised KeyError" in (evidence.termination.detail or "")
    assert grade(task, evidence).outcome == "error"
