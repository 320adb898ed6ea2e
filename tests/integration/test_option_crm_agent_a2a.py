"""``--crm-agent=a2a:<url>`` through pytest (issue 31): the mini tasks played by the example A2A
server (examples/agents/a2a_agent.py, its own process on a free port), its tools over MCP and its
model through the proxy, graded, gated and recorded as an isolated, gate-worthy run."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from pytest_crmbench.models.fakellm import FakeLLM
from pytest_crmbench.models.llm import litellm_module
from pytest_crmbench.results.rundir import load_run
from tests.integration.helpers import MINI_IDS, CrmProject
from tests.integration.outside_runs import SMALL_SET, gold_server, run

pytest.importorskip("a2a.server.routes")
pytest.importorskip("mcp.client.client")
pytest.importorskip("openai")

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "agents" / "a2a_agent.py"


@pytest.fixture(scope="module", autouse=True)
def litellm_imported() -> None:
    litellm_module()  # before any in-process run (see tests/integration/test_models.py)


@pytest.fixture
def server() -> Iterator[FakeLLM]:
    yield from gold_server()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def a2a_url() -> Iterator[str]:
    """The example A2A server, started once for the module; stopped (and waited for) at its end."""
    port = free_port()
    process = subprocess.Popen([sys.executable, str(EXAMPLE), str(port)], stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            assert process.poll() is None, process.stderr.read().decode() if process.stderr else ""
            try:
                if httpx.get(f"{url}/.well-known/agent-card.json", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "the example A2A server did not start"
            time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        process.wait(10)
        if process.stderr is not None:
            process.stderr.close()


@pytest.mark.parametrize("concurrency", ["1", "3"])
def test_an_a2a_agent_plays_scores_and_passes_the_gate(
    mini_project: CrmProject, server: FakeLLM, a2a_url: str, concurrency: str
) -> None:
    selection = " or ".join(SMALL_SET)
    result = run(
        mini_project,
        server,
        f"a2a:{a2a_url}",
        f"--crm-concurrency={concurrency}",
        "--crm-fail-under=1",
        "-k",
        selection,
    )
    result.assert_outcomes(passed=len(SMALL_SET), deselected=len(MINI_IDS) - len(SMALL_SET))
    result.stdout.fnmatch_lines(["crmbench gate passed*"])
    run_dir = load_run(mini_project.path / "out")
    assert (run_dir.manifest["agent_process"], run_dir.manifest["gate_worthy"]) == ("isolated", True)
    assert run_dir.manifest["system"] == f"a2a:{a2a_url}/openai/agent-model"
    assert {r.task_id: r.outcome for r in run_dir.records} == dict.fromkeys(SMALL_SET, "success")
    # The agent's model calls went through the proxy, measured as role agent in every result.
    assert all(r.usage["agent"].calls >= 1 for r in run_dir.records), [r.usage for r in run_dir.records]
    assert {r.body["model"] for r in server.by_role("agent")} == {"agent-model"}


def test_a_url_with_no_a2a_agent_stops_the_run_once(mini_project: CrmProject, server: FakeLLM) -> None:
    nobody = f"http://127.0.0.1:{free_port()}"
    result = run(mini_project, server, f"a2a:{nobody}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*--crm-agent: agent 'a2a:{nobody}': no A2A agent card: *"])
