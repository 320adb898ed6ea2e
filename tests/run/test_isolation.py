"""The isolated agent's process (issue 30): what crosses, what it keeps, what ends it.

Each test plays one mini episode with a ``tests.data.agents.cheaters`` agent in its own process.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from decimal import Decimal
from pathlib import Path

import pytest

from pytest_crmbench.core.evidence import Evidence
from pytest_crmbench.core.spec import Task
from pytest_crmbench.core.usage import UsageLedger
from pytest_crmbench.env.environment import ToolEnvironment
from pytest_crmbench.models.fakellm import FakeLLM, completion
from pytest_crmbench.models.llm import ModelConfig, Price
from pytest_crmbench.run.episode import AgentContext, Limits, run_episode
from pytest_crmbench.run.isolation import IsolatedAgent, probe_factory
from tests.conftest import ListUser

CHEATERS = "tests.data.agents.cheaters"
REPO = Path(__file__).resolve().parents[2]


def play(
    factory: str, task: Task, env_class: type[ToolEnvironment], lines: list[str], limits: Limits | None = None
) -> tuple[Evidence, UsageLedger]:
    limits = limits or Limits()
    usage = UsageLedger()
    context = AgentContext.for_domain(env_class, seed=1, limits=limits, usage=usage)
    agent = IsolatedAgent(f"{CHEATERS}:{factory}", context)
    try:
        evidence = run_episode(
            task, env_class(seed=1), agent, ListUser(lines), agent_name=factory, limits=limits, usage=usage
        )
    finally:
        agent.close()
    return evidence, usage


def last_reply(evidence: Evidence) -> str:
    return [m.content for m in evidence.messages if m.role == "assistant"][-1]


def test_state_across_turns_of_one_episode_and_only_one(
    mini_tasks: dict[str, Task], mini_env_class: type[ToolEnvironment]
) -> None:
    task = mini_tasks["mini_balance_only_01"]
    for _ in range(2):  # a fresh process per episode: the second does not remember the first
        evidence, _ = play("counter", task, mini_env_class, ["one", "two"])
        replies = [m.content for m in evidence.messages if m.role == "assistant"]
        assert replies == [
            "turn 1 of episode 1 in this process: ok; 1 tool(s)",
            "turn 2 of episode 1 in this process: ok; 1 tool(s)",
        ]
        calls = evidence.tool_calls
        assert [(c.turn, c.node, c.name, c.status) for c in calls] == [
            (0, "count", "get_balance", "ok"),
            (1, "count", "get_balance", "ok"),
        ]
        assert [(r.turn, r.node) for r in evidence.routing] == [(0, "count"), (1, "count")]


def test_usage_and_warnings_come_back_with_the_reply(
    mini_tasks: dict[str, Task], mini_env_class: type[ToolEnvironment]
) -> None:
    evidence, usage = play("reporter", mini_tasks["mini_balance_only_01"], mini_env_class, ["one", "two"])
    agent = usage.get("agent")
    assert agent is not None and (agent.calls, agent.prompt_tokens, str(agent.cost_usd)) == (2, 20, "0.02")
    assert list(evidence.agent_warnings.values()) == [2]
    assert "DeprecationWarning: this framework is deprecated" in next(iter(evidence.agent_warnings))


@pytest.mark.parametrize(
    ("factory", "detail"),
    [
        ("patch_checks", None),
        ("reach_referee", "the agent raised LookupError: no referee reachable from the ToolBox"),
        ("os_exit", "the agent's process exited with code 0 before replying"),
        ("system_exit", "the agent raised SystemExit: 0"),
        ("raise_infra", "the agent raised InfraError: provider unavailable after retries (an isolated agent cannot"),
        ("raise_harness", "the agent raised HarnessError: crmbench crashed, honestly (an isolated agent cannot"),
        ("fork", "the agent forked a process"),
    ],
)
def test_what_ends_an_isolated_agent_is_its_own_failure(
    mini_tasks: dict[str, Task], mini_env_class: type[ToolEnvironment], factory: str, detail: str | None
) -> None:
    evidence, _ = play(factory, mini_tasks["mini_override_01"], mini_env_class, ["one"])
    termination = evidence.termination
    if detail is None:  # patched only its own process's grader: an ordinary null answer
        assert termination.reason == "user_stop"
    else:
        assert termination.reason == "agent_error"
        assert (termination.detail or "").startswith(detail)


def test_nothing_of_the_task_is_in_the_agents_memory(
    mini_tasks: dict[str, Task], mini_env_class: type[ToolEnvironment]
) -> None:
    evidence, _ = play("read_gold", mini_tasks["mini_override_01"], mini_env_class, ["one"])
    assert last_reply(evidence) == "I'm sorry, I can't help with that."


@pytest.mark.parametrize("factory", ["sleep_20", "sleep_forever"])
def test_a_sleeping_agent_is_stopped_at_the_timeout(
    mini_tasks: dict[str, Task], mini_env_class: type[ToolEnvironment], factory: str
) -> None:
    started = time.monotonic()
    evidence, _ = play(factory, mini_tasks["mini_override_01"], mini_env_class, ["one"], Limits(task_timeout_s=1.0))
    assert time.monotonic() - started < 1.0 + 3
    assert evidence.termination.reason == "timeout"
    assert "its process was killed" in (evidence.termination.detail or "")


def test_the_tool_call_cap_refuses_then_ends_the_episode(
    mini_tasks: dict[str, Task], mini_env_class: type[ToolEnvironment]
) -> None:
    limits = Limits(max_tool_calls=3)
    evidence, _ = play("over_the_cap", mini_tasks["mini_override_01"], mini_env_class, ["one"], limits)
    calls = evidence.tool_calls
    assert [c.status for c in calls] == ["ok", "ok", "ok", "error"]
    assert calls[-1].error is not None and calls[-1].error["type"] == "tool_call_limit"
    assert "Tool call limit reached: at most 3 tool calls per user turn" in last_reply(evidence)
    assert evidence.termination.reason == "user_stop"
    flooded, _ = play("flood", mini_tasks["mini_override_01"], mini_env_class, ["one"], limits)
    assert len(flooded.tool_calls) == 6  # then the seventh ends it
    assert flooded.termination.reason == "agent_error"
    assert "twice the limit of 3" in (flooded.termination.detail or "")


def test_the_probe_imports_the_factory_elsewhere() -> None:
    assert probe_factory(f"{CHEATERS}:counter") is None
    assert "has no callable 'nothing'" in (probe_factory(f"{CHEATERS}:nothing") or "")
    assert "cannot import 'no_such_module_30'" in (probe_factory("no_such_module_30:make") or "")


def test_the_model_config_crosses_and_the_agent_calls_its_model(
    mini_tasks: dict[str, Task], mini_env_class: type[ToolEnvironment]
) -> None:
    # A user's agent builds its model client from context.model: the child gets a real
    # ModelConfig (not its text), prices and output mode included, and its usage comes back.
    with FakeLLM(lambda request: completion("hello from the model", prompt_tokens=7, completion_tokens=3)) as fake:
        price = Price(Decimal("0.000001"), Decimal("0.000002"))
        model = ModelConfig(model="openai/m", api_base=fake.base_url, retries=0, prices={"openai/m": price})
        usage = UsageLedger()
        context = AgentContext.for_domain(mini_env_class, seed=1, model=model, usage=usage)
        agent = IsolatedAgent(f"{CHEATERS}:model_asker", context)
        try:
            evidence = run_episode(
                mini_tasks["mini_balance_only_01"],
                mini_env_class(seed=1),
                agent,
                ListUser(["hi"]),
                agent_name="asker",
                usage=usage,
            )
        finally:
            agent.close()
    assert evidence.termination.reason != "agent_error", evidence.termination.detail
    assert last_reply(evidence) == "hello from the model"
    used = usage.get("agent")
    assert used is not None and (used.calls, used.prompt_tokens, used.cost_usd) == (1, 7, Decimal("0.000013"))


HARNESS_MAIN = """
import os
import sys
from pathlib import Path

with open(os.environ["MAIN_RUNS"], "a") as runs:  # what would run again in every agent's process
    runs.write(f"{os.getpid()} {__name__}\\n")


def main():
    from pytest_crmbench.core.loader import load_task_file
    from pytest_crmbench.core.usage import UsageLedger
    from pytest_crmbench.env.registry import discover
    from pytest_crmbench.run.episode import AgentContext, run_episode
    from pytest_crmbench.run.isolation import IsolatedAgent, probe_factory
    from tests.conftest import ListUser

    data = Path("tests") / "data"
    env_class = discover([data / "envs"])["mini"]
    task = next(r.task for r in load_task_file(data / "tasks" / "mini.yaml"))
    print(os.getpid())
    assert probe_factory("tests.data.agents.cheaters:counter", start_method=sys.argv[1]) is None
    for _ in range(2):
        context = AgentContext.for_domain(env_class, seed=1, usage=UsageLedger())
        agent = IsolatedAgent("tests.data.agents.cheaters:reader", context, start_method=sys.argv[1])
        try:
            evidence = run_episode(task, env_class(seed=1), agent, ListUser(["hi"]), agent_name="reader")
        finally:
            agent.close()
        print(evidence.termination.reason, len(evidence.tool_calls))


if __name__ == "__main__":
    main()
"""


@pytest.mark.parametrize("how", ["script", "module"])
@pytest.mark.parametrize("start_method", ["forkserver", "spawn"])
def test_the_harness_main_does_not_run_again_in_the_agents_process(tmp_path: Path, start_method: str, how: str) -> None:
    # multiprocessing runs the parent's main again in each child it prepares; under the pytest
    # console script that imported pytest into every agent's process (and ran a user's script).
    (tmp_path / "harness_main.py").write_text(HARNESS_MAIN, encoding="utf-8")
    runs = tmp_path / "main_runs.txt"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env.update(MAIN_RUNS=str(runs), PYTHONPATH=os.pathsep.join([str(REPO), str(tmp_path)]))
    command = ["harness_main"] if how == "module" else [str(tmp_path / "harness_main.py")]
    argv = [sys.executable, *(["-m"] if how == "module" else []), *command, start_method]
    done = subprocess.run(argv, cwd=REPO, env=env, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    pid, *played = done.stdout.split()
    assert played == ["user_stop", "1", "user_stop", "1"]  # two episodes, each played by its agent
    assert runs.read_text(encoding="utf-8").splitlines() == [f"{pid} __main__"]  # the harness's run, no other
