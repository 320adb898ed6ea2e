"""A ``cmd:`` agent (issue 31): a separate process called per turn over stdio, its tools over MCP,
its model through the proxy. What it scores, what is recorded, what ends it."""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable, Iterator, Sequence

import pytest

from pytest_crmbench.core.evidence import Evidence
from pytest_crmbench.core.spec import Task
from pytest_crmbench.core.usage import UsageLedger
from pytest_crmbench.core.users import ScriptedUser, User
from pytest_crmbench.env.environment import ToolEnvironment
from pytest_crmbench.grading import grade
from pytest_crmbench.models.fakellm import FakeLLM, HttpError, Responder, completion
from pytest_crmbench.models.judge import LLMJudge
from pytest_crmbench.run.episode import Limits, run_episode
from pytest_crmbench.run.stdio_agent import SubprocessAgent, check_command, command_of
from tests import outside_agents
from tests.conftest import ListUser
from tests.llm_script import GoldScript
from tests.outside_agents import (
    GOLD_TASKS,
    REPO,
    InProcess,
    fake_servers,
    litellm_for_the_module,
    model_of,
    shipped,
)

pytest.importorskip("mcp.client.client")
# litellm's first call in the proxy's thread builds pydantic adapters that warn (plugin/options.py).
pytestmark = pytest.mark.filterwarnings(r"ignore::UserWarning:pydantic\._internal\._generate_schema")

PLAIN = [sys.executable, str(REPO / "examples" / "agents" / "plain_agent.py")]
CHEATERS = str(REPO / "tests" / "data" / "agents" / "stdio_cheaters.py")


@pytest.fixture(scope="module", autouse=True)
def litellm_imported() -> Iterator[None]:
    yield from litellm_for_the_module()


@pytest.fixture
def fake() -> Iterator[Callable[[Responder], FakeLLM]]:
    yield from fake_servers()


def play(
    argv: Sequence[str],
    task: Task,
    env_class: type[ToolEnvironment],
    user: User,
    server: FakeLLM | None = None,
    limits: Limits | None = None,
) -> tuple[Evidence, SubprocessAgent]:
    return outside_agents.play(functools.partial(SubprocessAgent, argv), task, env_class, user, server, limits)


@pytest.mark.parametrize(("domain", "task_id"), sorted(GOLD_TASKS.items()))
def test_a_gold_path_over_the_endpoint_scores_success(
    fake: Callable[[Responder], FakeLLM], domain: str, task_id: str
) -> None:
    task, env_class = shipped(domain, task_id)
    server = fake(GoldScript([task]))
    evidence, agent = play(PLAIN, task, env_class, ScriptedUser(task), server)
    assert evidence.termination.reason == "user_stop", evidence.termination.detail
    assert [c.name for c in evidence.tool_calls] == [g.tool for g in task.gold.path]
    assert [c.status for c in evidence.tool_calls] == [g.expect for g in task.gold.path]
    judge = LLMJudge(model_of(server, "openai/judge-model")).bind(UsageLedger())  # type: ignore[arg-type]
    verdict = grade(task, evidence, judge)
    assert verdict.outcome == "success", [c for c in verdict.checks if c.status != "passed"]
    # The agent's model calls went through the proxy: one per gold step and the reply, measured
    # by the harness as role agent, per turn as well.
    requests = len(task.gold.path) + 1
    assert evidence.usage["agent"].calls == requests
    assert evidence.usage["agent"].prompt_tokens == 50 * requests
    answered = len(evidence.assistant_messages())
    assert [usage.calls for usage in evidence.agent_turn_usage] == [requests] + [0] * (answered - 1)
    assert agent.name == "plain-mcp"


@pytest.mark.parametrize(
    ("adapter", "framework"), [("openai_agents_adapter.py", "agents"), ("pydantic_ai_adapter.py", "pydantic_ai")]
)
def test_an_adapter_shows_its_model_a_rejection_and_goes_on(
    fake: Callable[[Responder], FakeLLM], adapter: str, framework: str
) -> None:
    # The gold path's last call is refused by the environment (a 422 over the amount limit): the
    # framework must hand the MCP error result to its model as the tool's answer, not raise.
    pytest.importorskip(framework)
    task, env_class = shipped("payments", "payments_checkout_amount_limit_07")
    server = fake(GoldScript([task]))
    argv = [sys.executable, str(REPO / "examples" / "agents" / adapter)]
    evidence, agent = play(argv, task, env_class, ScriptedUser(task), server)
    assert evidence.termination.reason == "user_stop", evidence.termination.detail
    assert [c.status for c in evidence.tool_calls] == ["ok", "ok", "rejected"]
    assert grade(task, evidence).outcome in ("success", "not_judged")
    assert all(c.status == "passed" for c in grade(task, evidence).checks if c.family != "reply")
    assert evidence.usage["agent"].calls == 4
    assert evidence.messages[-1].content == task.gold.reply
    assert agent.name == {"agents": "openai-agents", "pydantic_ai": "pydantic-ai"}[framework]


def test_a_wrong_path_fails_the_same_checks_as_in_process(fake: Callable[[Responder], FakeLLM]) -> None:
    task, env_class = shipped("retail", GOLD_TASKS["retail"])
    skipped_verification = [(g.tool, dict(g.args)) for g in task.gold.path[1:]]  # no identity check
    server = fake(GoldScript([task], paths={task.id: skipped_verification}))
    over_stdio, _ = play(PLAIN, task, env_class, ScriptedUser(task), server)
    in_process = run_episode(
        task, env_class(seed=1), InProcess(skipped_verification), ScriptedUser(task), agent_name="x"
    )
    failed = [sorted(c.name for c in grade(task, e).checks if c.status == "failed") for e in (over_stdio, in_process)]
    assert failed[0] == failed[1] and failed[0], failed
    assert [c.name for c in over_stdio.tool_calls] == [c.name for c in in_process.tool_calls]


def test_the_doors_refuse_outside_a_turn_and_a_wrong_token(
    fake: Callable[[Responder], FakeLLM],
    monkeypatch: pytest.MonkeyPatch,
    mini_tasks: dict[str, Task],
    mini_env_class: type[ToolEnvironment],
) -> None:
    monkeypatch.setenv("SOME_PROVIDER_API_KEY", "sk-do-not-pass-me-on-0123456789")
    server = fake(lambda request: completion("hi", prompt_tokens=3, completion_tokens=1))
    task = mini_tasks["mini_balance_only_01"]
    evidence, agent = play([sys.executable, CHEATERS, "probe"], task, mini_env_class, ListUser(["one"]), server)
    assert evidence.termination.reason == "user_stop", evidence.termination.detail
    seen = json.loads(evidence.messages[1].content)
    assert seen["before"].startswith("error: ") and "no user turn is open" in seen["before"]
    assert seen["wrong_token"].startswith("failed")
    assert (seen["proxy_before"], seen["proxy_in_turn"]) == (409, 200)
    assert seen["secrets"] == []  # credentials stay in the harness
    assert seen["routed"] == {"type": "routed", "tools": ["get_balance"]}
    assert (seen["in_turn"], seen["turn"]) == ("ok", [0, 1])
    # Only the call made in the turn reached the environment, with the harness's turn and node.
    assert [(c.turn, c.node, c.name, c.status) for c in evidence.tool_calls] == [(0, "balance", "get_balance", "ok")]
    assert [(r.turn, r.node) for r in evidence.routing] == [(0, "balance")]
    assert evidence.usage["agent"].calls == 1  # the refused request reached no model
    assert agent.name == "cheater-probe"


@pytest.mark.parametrize(
    ("mode", "reason", "detail"),
    [
        ("crash", "agent_error", "the agent's process exited with code 3 before replying; its last stderr lines:"),
        ("garbage", "agent_error", "the agent's process broke the protocol: a line that is not JSON (b'this is not"),
        ("not_object", "agent_error", "the agent's process broke the protocol: a line that is not a JSON object"),
        ("oversized", "agent_error", "the agent's process broke the protocol: a line longer than 16777216 bytes"),
        ("silent_exit", "agent_error", "the agent's process exited with code 0 before replying"),
        ("no_ready", "agent_error", "the agent's process broke the protocol: expected the agent's first message"),
        ("gives_up", "agent_error", "the agent gave up: cannot reach my planner"),
        # Found right after the reply, or at the episode's end if the second line comes late.
        ("two_replies", "agent_error", "the agent's process broke the protocol: "),
        ("unknown", "agent_error", "the agent's process broke the protocol: unexpected message 'teleport'"),
        ("sleep", "timeout", "the agent did not reply within the task's time limit (turn 0); its process was killed"),
    ],
)
def test_what_ends_a_subprocess_agent_is_its_own_failure(
    mini_tasks: dict[str, Task], mini_env_class: type[ToolEnvironment], mode: str, reason: str, detail: str
) -> None:
    task = mini_tasks["mini_override_01"]
    evidence, _ = play(
        [sys.executable, CHEATERS, mode], task, mini_env_class, ListUser(["one"]), limits=Limits(task_timeout_s=4)
    )
    assert evidence.termination.reason == reason
    assert (evidence.termination.detail or "").startswith(detail), evidence.termination.detail
    if mode == "two_replies":
        assert "after the turn's reply" in (evidence.termination.detail or "") or "after the agent's last reply" in (
            evidence.termination.detail or ""
        )
    if mode == "crash":
        assert "about to crash: the last words" in (evidence.termination.detail or "")
    assert grade(task, evidence).outcome == "failure"  # scored, never unscored


@pytest.mark.parametrize(
    ("fault", "reason", "detail"),
    [
        (HttpError(401, "Incorrect API key provided"), "infra", "agent model openai/agent-model: AuthenticationError"),
        (HttpError(400, "flagged", code="content_filter"), "agent_abort", "model openai/agent-model:"),
        (HttpError(400, "messages are malformed"), "agent_error", "the agent's process exited with code 1"),
    ],
)
def test_model_failures_are_classified_as_for_the_reference_agents(
    fake: Callable[[Responder], FakeLLM],
    mini_tasks: dict[str, Task],
    mini_env_class: type[ToolEnvironment],
    fault: HttpError,
    reason: str,
    detail: str,
) -> None:
    server = fake(lambda request: fault)
    task = mini_tasks["mini_balance_only_01"]
    evidence, _ = play(PLAIN, task, mini_env_class, ScriptedUser(task), server)
    assert evidence.termination.reason == reason
    assert (evidence.termination.detail or "").startswith(detail), evidence.termination.detail
    if reason == "agent_error":  # the provider's 400 went back to the agent, whose client raised
        assert "400 Bad Request" in (evidence.termination.detail or "")


def test_command_names_are_checked_without_running_them() -> None:
    assert command_of("cmd:python -m my_agent --flag 'a b'") == ["python", "-m", "my_agent", "--flag", "a b"]
    assert check_command(f"cmd:{sys.executable} agent.py") is None
    assert "no command after 'cmd:'" in (check_command("cmd:  ") or "")
    assert "cannot split the command line" in (check_command("cmd:python 'unclosed") or "")
    assert "no executable 'no-such-agent-31'" in (check_command("cmd:no-such-agent-31 --x") or "")
