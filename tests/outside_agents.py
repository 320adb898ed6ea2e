"""What the tests of the agents crmbench calls per turn share (``cmd:`` over stdio, ``a2a:`` over
A2A): the shipped tasks a gold path is played on, the scripted model server, an episode played
with such an agent, and the same calls made in pytest's process for comparison."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

from pytest_crmbench.core.evidence import Evidence, Message
from pytest_crmbench.core.loader import load_task_file
from pytest_crmbench.core.spec import Task
from pytest_crmbench.core.usage import UsageLedger
from pytest_crmbench.core.users import User
from pytest_crmbench.env.environment import ToolEnvironment
from pytest_crmbench.env.registry import discover
from pytest_crmbench.models.fakellm import FakeLLM, Responder
from pytest_crmbench.models.llm import ModelConfig, Transport, litellm_module
from pytest_crmbench.run.episode import AgentContext, Limits, ToolBox, run_episode
from pytest_crmbench.run.outside import OutsideAgent

REPO = Path(__file__).resolve().parents[1]
GOLD_TASKS = {
    "payments": "payments_balance_check_01",  # two reads
    "retail": "retail_order_management_address_change_01",  # a write
    "itsm": "itsm_incident_log_laptop_01",  # a write whose new id the reply quotes
}
"""A task of each of three shipped domains, for a gold path over the agent's channel."""

TRANSPORT = Transport()
"""One session's door to litellm for a test module's models, closed at the module's end."""

A = TypeVar("A", bound=OutsideAgent)


def shipped(domain: str, task_id: str) -> tuple[Task, type[ToolEnvironment]]:
    task = next(r.task for r in load_task_file(REPO / "tasks" / f"{domain}.yaml") if r.task.id == task_id)
    return task, discover([REPO / "envs"])[domain]


def litellm_for_the_module() -> Iterator[None]:
    """The body of a module's autouse fixture: litellm imported once, not inside the first episode's
    time; its cached clients closed at the end (no ResourceWarning later)."""
    litellm_module()
    yield
    TRANSPORT.close()


def fake_servers() -> Iterator[Callable[[Responder], FakeLLM]]:
    """The body of a ``fake`` fixture: start scripted model servers, all stopped at the test's end."""
    servers: list[FakeLLM] = []

    def start(responder: Responder) -> FakeLLM:
        servers.append(FakeLLM(responder, lifetime_s=120).start())
        return servers[-1]

    yield start
    for server in servers:
        server.stop()


def model_of(server: FakeLLM | None, name: str = "openai/agent-model") -> ModelConfig | None:
    if server is None:
        return None
    return ModelConfig(model=name, api_base=server.base_url, retries=0, timeout_s=20, transport=TRANSPORT)


def play(
    build: Callable[[AgentContext], A],
    task: Task,
    env_class: type[ToolEnvironment],
    user: User,
    server: FakeLLM | None = None,
    limits: Limits | None = None,
) -> tuple[Evidence, A]:
    """One episode with the agent ``build`` makes from its context; the agent is closed after it."""
    limits = limits or Limits()
    usage = UsageLedger()
    context = AgentContext.for_domain(env_class, seed=1, limits=limits, model=model_of(server), usage=usage)
    agent = build(context)
    try:
        evidence = run_episode(
            task, env_class(seed=1), agent, user, agent_name="outside", limits=limits, trial=0, usage=usage
        )
    finally:
        agent.close()
    return evidence, agent


class InProcess:
    """The same calls from an agent in pytest's process, for comparison."""

    def __init__(self, path: Sequence[tuple[str, dict[str, Any]]]) -> None:
        self.path = path

    def respond(self, conversation: Sequence[Message], tools: ToolBox) -> str:
        for name, args in self.path:
            tools.call(name, args)
        return "Done."
