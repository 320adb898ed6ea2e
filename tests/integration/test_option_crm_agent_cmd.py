"""``--crm-agent=cmd:<command line>`` through pytest (issue 31): the mini tasks played by an agent in
another process over stdio, its tools over MCP and its model through the proxy, graded, gated and
recorded as an isolated, gate-worthy run."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_crmbench.core.loader import load_task_file
from pytest_crmbench.models.fakellm import FakeLLM
from pytest_crmbench.models.llm import litellm_module
from pytest_crmbench.results.rundir import load_run
from tests.integration.helpers import DATA, MINI_IDS, CrmProject
from tests.llm_script import GoldScript

pytest.importorskip("mcp.client.client")

PLAIN = Path(__file__).resolve().parents[2] / "examples" / "agents" / "plain_agent.py"


@pytest.fixture(scope="module", autouse=True)
def litellm_imported() -> None:
    litellm_module()  # before any in-process run (see tests/integration/test_models.py)


@pytest.fixture
def server() -> Iterator[FakeLLM]:
    tasks = [record.task for record in load_task_file(DATA / "tasks" / "mini.yaml")]
    with FakeLLM(GoldScript(tasks), lifetime_s=120) as fake:
        yield fake


def run(project: CrmProject, server: FakeLLM, agent: str, *extra: str) -> pytest.RunResult:
    project.write_config('filterwarnings = ["error"]\n')
    return project.run(
        f"--crm-agent={agent}",
        "--crm-model=openai/agent-model",
        f"--crm-api-base={server.base_url}",
        "--crm-user-model=scripted",
        "--crm-judge-model=openai/judge-model",
        f"--crm-judge-api-base={server.base_url}",
        "--crm-no-preflight",
        "--crm-run-dir=out",
        *extra,
    )


@pytest.mark.parametrize("concurrency", ["1", "3"])
def test_a_command_agent_plays_scores_and_passes_the_gate(
    mini_project: CrmProject, server: FakeLLM, concurrency: str
) -> None:
    agent = f"cmd:{sys.executable} {PLAIN}"
    result = run(mini_project, server, agent, f"--crm-concurrency={concurrency}", "--crm-fail-under=1")
    result.assert_outcomes(passed=len(MINI_IDS))
    result.stdout.fnmatch_lines(["crmbench gate passed*"])
    run_dir = load_run(mini_project.path / "out")
    assert (run_dir.manifest["agent_process"], run_dir.manifest["gate_worthy"]) == ("isolated", True)
    assert {r.task_id: r.outcome for r in run_dir.records} == dict.fromkeys(MINI_IDS, "success")
    assert server.counts["agent"] >= len(MINI_IDS)  # every request went through the proxy to the run's model
    assert {r.body["model"] for r in server.by_role("agent")} == {"agent-model"}


def test_a_command_that_does_not_exist_stops_the_run_once(mini_project: CrmProject, server: FakeLLM) -> None:
    result = run(mini_project, server, "cmd:no-such-agent-31 --fast")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*--crm-agent: agent 'cmd:no-such-agent-31 --fast': no executable 'no-such-agent-31'*"]
    )
