"""``--crm-agent=cmd:<command line>`` through pytest (issue 31): the mini tasks played by an agent in
another process over stdio, its tools over MCP and its model through the proxy, graded, gated and
recorded as an isolated, gate-worthy run."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_crmbench.models.fakellm import FakeLLM
from pytest_crmbench.models.llm import litellm_module
from pytest_crmbench.results.rundir import load_run
from tests.integration.helpers import MINI_IDS, CrmProject
from tests.integration.outside_runs import SMALL_SET, gold_server, run

pytest.importorskip("mcp.client.client")

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "agents"
ADAPTERS = {
    "plain": "plain_agent.py",
    "openai_agents": "openai_agents_adapter.py",
    "pydantic_ai": "pydantic_ai_adapter.py",
}
FRAMEWORKS = {"plain": "mcp", "openai_agents": "agents", "pydantic_ai": "pydantic_ai"}


@pytest.fixture(scope="module", autouse=True)
def litellm_imported() -> None:
    litellm_module()  # before any in-process run (see tests/integration/test_models.py)


@pytest.fixture
def server() -> Iterator[FakeLLM]:
    yield from gold_server()


@pytest.mark.parametrize(
    ("adapter", "concurrency", "tasks"),
    [
        pytest.param("plain", "1", MINI_IDS, id="plain-all-sequential"),
        pytest.param("openai_agents", "3", SMALL_SET, id="openai_agents-small-concurrent"),
        pytest.param("pydantic_ai", "3", SMALL_SET, id="pydantic_ai-small-concurrent"),
    ],
)
def test_a_command_agent_plays_scores_and_passes_the_gate(
    mini_project: CrmProject, server: FakeLLM, adapter: str, concurrency: str, tasks: list[str]
) -> None:
    pytest.importorskip(FRAMEWORKS[adapter])
    agent = f"cmd:{sys.executable} {EXAMPLES / ADAPTERS[adapter]}"
    selection = " or ".join(tasks)
    result = run(mini_project, server, agent, f"--crm-concurrency={concurrency}", "--crm-fail-under=1", "-k", selection)
    result.assert_outcomes(passed=len(tasks), deselected=len(MINI_IDS) - len(tasks))
    result.stdout.fnmatch_lines(["crmbench gate passed*"])
    run_dir = load_run(mini_project.path / "out")
    assert (run_dir.manifest["agent_process"], run_dir.manifest["gate_worthy"]) == ("isolated", True)
    assert {r.task_id: r.outcome for r in run_dir.records} == dict.fromkeys(tasks, "success")
    assert server.counts["agent"] >= len(tasks)  # every request went through the proxy to the run's model
    assert {r.body["model"] for r in server.by_role("agent")} == {"agent-model"}


def test_a_command_that_does_not_exist_stops_the_run_once(mini_project: CrmProject, server: FakeLLM) -> None:
    result = run(mini_project, server, "cmd:no-such-agent-31 --fast")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*--crm-agent: agent 'cmd:no-such-agent-31 --fast': no executable 'no-such-agent-31'*"]
    )
