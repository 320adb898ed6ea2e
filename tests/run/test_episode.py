from collections.abc import Sequence
from typing import Any

from pytest_crmbench.core.errors import AgentAbort, InfraError
from pytest_crmbench.core.evidence import Message
from pytest_crmbench.core.spec import Task
from pytest_crmbench.core.users import ScriptedUser
from pytest_crmbench.env.environment import ToolEnvironment
from pytest_crmbench.results.render import transcript
from pytest_crmbench.run.episode import ToolBox, run_episode
from tests.conftest import ListUser


class RoutingAgent:
    """Routes to a node exposing only get_balance, then tries a tool outside it."""

    def respond(self, conversation: Sequence[Message], tools: ToolBox) -> str:
        tools.route("balance", tools=["get_balance"], detail="asked for a balance")
        assert [s["function"]["name"] for s in tools.schemas()] == ["get_balance"]
        tools.call("get_balance", {"account_id": "ACC-2"})
        tools.call("close_account", {"account_id": "ACC-2"})
        return f"turn {tools.turn}"


def test_routing_exposure_and_evidence_channels(
    mini_tasks: dict[str, Task], mini_env_class: type[ToolEnvironment]
) -> None:
    task = mini_tasks["mini_balance_only_01"]
    env = mini_env_class(seed=5)
    evidence = run_episode(task, env, RoutingAgent(), ListUser(["one", "two"]), agent_name="router", trial=2)
    assert [(r.turn, r.node, r.detail) for r in evidence.routing] == [
        (0, "balance", "asked for a balance"),
        (1, "balance", "asked for a balance"),
    ]
    assert [(c.turn, c.node, c.name, c.status) for c in evidence.tool_calls] == [
        (0, "balance", "get_balance", "ok"),
        (0, "balance", "close_account", "error"),
        (1, "balance", "get_balance", "ok"),
        (1, "balance", "close_account", "error"),
    ]
    assert [(m.role, m.content) for m in evidence.messages] == [
        ("user", "one"),
        ("assistant", "turn 0"),
        ("user", "two"),
        ("assistant", "turn 1"),
        ("user", "Thanks, bye."),
    ]
    assert (evidence.trial, evidence.seed, evidence.agent, evidence.termination.reason) == (2, 5, "router", "user_stop")
    assert evidence.final_state["accounts"]["ACC-2"]["status"] == "active"
    text = transcript(evidence)
    assert "route -> balance (asked for a balance)" in text
    assert '#1 close_account({"account_id": "ACC-2"}) -> error' in text


def test_infra_and_abort_end_the_episode_without_raising(
    mini_tasks: dict[str, Task], mini_env_class: type[ToolEnvironment]
) -> None:
    task = mini_tasks["mini_balance_only_01"]

    class Failing:
        def __init__(self, exc: Exception) -> None:
            self.exc = exc

        def respond(self, conversation: Sequence[Message], tools: ToolBox) -> str:
            tools.call("get_balance", {"account_id": "ACC-1"})
            raise self.exc

    for exc, reason in (
        (InfraError("provider down after 3 retries"), "infra"),
        (AgentAbort("called 5 unknown tools"), "agent_abort"),
    ):
        evidence = run_episode(task, mini_env_class(seed=1), Failing(exc), ScriptedUser(task), agent_name="f")
        assert (evidence.termination.reason, evidence.termination.detail) == (reason, str(exc))
        assert len(evidence.tool_calls) == 1  # evidence gathered before the failure is kept


def test_scripted_user_opens_with_the_opening_or_the_goal(mini_tasks: dict[str, Task]) -> None:
    task = mini_tasks["mini_balance_only_01"]
    assert ScriptedUser(task).open() == "What's the balance on ACC-2?"
    no_opening = Task.model_validate({**task.model_dump(), "user": {**task.user.model_dump(), "opening": None}})
    assert ScriptedUser(no_opening).open() == task.user.goal
    assert ScriptedUser(task).respond([]).stop


def test_usage_adds_up_and_an_unknown_price_stays_unknown() -> None:
    from decimal import Decimal

    from pytest_crmbench.core.evidence import Usage

    usage = Usage()
    usage.add(prompt_tokens=100, completion_tokens=10, cost_usd=Decimal("0.001"), latency_s=0.5)
    usage.add(prompt_tokens=50, completion_tokens=5, cost_usd=Decimal("0.002"), latency_s=0.25)
    assert (usage.calls, usage.prompt_tokens, usage.completion_tokens, usage.cost_usd, usage.latency_s) == (
        2,
        150,
        15,
        Decimal("0.003"),
        0.75,
    )
    usage.add(prompt_tokens=1, completion_tokens=1, cost_usd=None, latency_s=0)
    usage.add(prompt_tokens=1, completion_tokens=1, cost_usd=Decimal(1), latency_s=0)
    assert usage.cost_usd is None


def test_a_simulator_that_runs_past_the_task_limit_is_infra_not_the_agents_timeout(
    mini_tasks: dict[str, Task], mini_env_class: type[ToolEnvironment]
) -> None:
    from pytest_crmbench.core.users import UserDecision
    from pytest_crmbench.run.episode import Limits

    task = mini_tasks["mini_balance_only_01"]
    now = [0.0]

    class SlowUser:
        def open(self) -> str:
            return "hi"

        def respond(self, conversation: Sequence[Message]) -> UserDecision:
            now[0] += 100  # the simulator's model call takes 100 s
            return UserDecision.end("thanks")

    class QuickAgent:
        def respond(self, conversation: Sequence[Message], tools: ToolBox) -> str:
            now[0] += 1
            return "done"

    evidence = run_episode(
        task,
        mini_env_class(seed=1),
        QuickAgent(),
        SlowUser(),
        agent_name="q",
        limits=Limits(task_timeout_s=50),
        clock=lambda: now[0],
    )
    assert evidence.termination.reason == "infra"
    assert "while the user simulator answered turn 0" in (evidence.termination.detail or "")


def test_a_judge_that_edits_the_evidence_cannot_change_the_next_task(
    mini_tasks: dict[str, Task], mini_env_class: type[ToolEnvironment]
) -> None:
    # deep_merge shared untouched subtrees with the class-wide default: a judge (or a hook holding
    # the evidence) that set a balance changed the world of every later task (issue 9 §3).
    from decimal import Decimal

    from pytest_crmbench.grading import grade
    from pytest_crmbench.run.baselines import GoldAgent

    def meddling_judge(task: Task, evidence: Any) -> list[Any]:
        evidence.initial_state["accounts"]["ACC-1"]["balance"] = Decimal(0)
        evidence.final_state["accounts"]["ACC-2"]["status"] = "closed"
        evidence.initial_state["log"].append("meddled")
        return []

    first = mini_tasks["mini_transfer_retry_01"]
    evidence = run_episode(
        first, mini_env_class(first.initial_state, seed=1), GoldAgent(first), ScriptedUser(first), agent_name="gold"
    )
    grade(first, evidence, meddling_judge)
    later = mini_env_class(seed=2)
    assert later.initial_state["accounts"]["ACC-1"]["balance"] == Decimal("180.00")
    assert later.state["accounts"]["ACC-2"]["status"] == "active"
    assert later.state["log"] == []


def test_a_warning_inside_respond_is_counted_not_raised_even_under_an_error_filter(
    mini_tasks: dict[str, Task], mini_env_class: type[ToolEnvironment]
) -> None:
    # Issue 32 item 7: a framework's DeprecationWarning inside respond() was an agent_error under
    # the checkout's filterwarnings = error.
    import warnings

    class Warning_:
        def respond(self, conversation: Sequence[Message], tools: ToolBox) -> str:
            warnings.warn("old_api() is deprecated", DeprecationWarning, stacklevel=1)
            return "done"

    task = mini_tasks["mini_balance_only_01"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        evidence = run_episode(task, mini_env_class(seed=1), Warning_(), ListUser(["a", "b"]), agent_name="warner")
        assert warnings.filters[0][0] == "error"  # the agent's guard left the caller's filters as they were
    assert evidence.termination.reason == "user_stop"
    [(line, count)] = evidence.agent_warnings.items()
    assert count == 2  # one per turn
    assert line.startswith("DeprecationWarning: old_api() is deprecated (test_episode.py:")
    assert "the agent's code issued 2 warning(s), recorded and not held against it:" in transcript(evidence)


def test_the_agents_model_use_is_kept_per_user_turn_a_failed_turn_included(
    mini_tasks: dict[str, Task], mini_env_class: type[ToolEnvironment]
) -> None:
    from decimal import Decimal

    from pytest_crmbench.core.usage import UsageLedger

    ledger = UsageLedger()
    requests_per_turn = [2, 0, 3]

    class Counting:
        """Records its model requests in the episode's ledger, as a reference agent does."""

        def respond(self, conversation: Sequence[Message], tools: ToolBox) -> str:
            for _ in range(requests_per_turn[tools.turn]):
                ledger.record("agent", prompt_tokens=10, completion_tokens=2, cost_usd=Decimal("0.01"), latency_s=0.1)
            if tools.turn == 2:
                raise AgentAbort("gave up after its requests")
            return "ok"

    task = mini_tasks["mini_balance_only_01"]
    evidence = run_episode(
        task, mini_env_class(seed=1), Counting(), ListUser(["a", "b", "c"]), agent_name="counting", usage=ledger
    )
    assert evidence.termination.reason == "agent_abort"
    assert [(u.calls, u.prompt_tokens, u.completion_tokens) for u in evidence.agent_turn_usage] == [
        (2, 20, 4),
        (0, 0, 0),
        (3, 30, 6),
    ]
    assert [u.cost_usd for u in evidence.agent_turn_usage] == [Decimal("0.02"), Decimal("0.00"), Decimal("0.03")]
    assert sum(u.calls for u in evidence.agent_turn_usage) == evidence.usage["agent"].calls == 5
    text = transcript(evidence)
    assert "[turn 0] assistant: ok\n    (the agent's model: 2 request(s), 20 prompt + 4 completion tokens)" in text
    assert "[turn 1] assistant: ok\n[turn 2]" in text  # no line for a turn without a request
