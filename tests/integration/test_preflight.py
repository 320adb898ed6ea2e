"""The model preflight (issue 12 items 2-4): a misconfigured model run fails in seconds, in one
line per problem, before any task; 401/403 are never retried; litellm missing is one line."""

from __future__ import annotations

import json
import shutil
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_crmbench.core.loader import load_task_file
from pytest_crmbench.models.fakellm import FakeLLM, HttpError
from pytest_crmbench.models.llm import litellm_module
from tests.integration.helpers import CrmProject
from tests.llm_script import PAYMENTS_SCENARIOS, Script

REPO = Path(__file__).resolve().parents[2]
PAYMENTS_TASKS = len(load_task_file(REPO / "tasks" / "payments.yaml"))
"""Counted, not typed: adding a payments task must break no test (issue 25)."""
RIGHT_KEY = "fake-key-right-0123456789"


@pytest.fixture(scope="module", autouse=True)
def litellm_imported() -> None:
    litellm_module()  # see tests/integration/test_models.py: import once, outside pytester's runs


@pytest.fixture
def payments(crm_project: CrmProject, monkeypatch: pytest.MonkeyPatch) -> CrmProject:
    shutil.copytree(REPO / "envs" / "payments", crm_project.path / "envs" / "payments")
    (crm_project.path / "agents").mkdir()
    shutil.copyfile(REPO / "agents" / "payments.yaml", crm_project.path / "agents" / "payments.yaml")
    crm_project.add("payments.yaml", REPO / "tasks" / "payments.yaml")
    crm_project.write_config('crm_retry_backoff = "0.01"\n')
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    return crm_project


@pytest.fixture
def locked_server() -> Iterator[FakeLLM]:
    """Answers only requests bearing RIGHT_KEY; lists two models."""
    with FakeLLM(Script(PAYMENTS_SCENARIOS), served=["agent-model", "user-model"], api_key=RIGHT_KEY) as fake:
        yield fake


def on(server: FakeLLM) -> list[str]:
    base = server.base_url
    return [f"--crm-api-base={base}", f"--crm-user-api-base={base}", f"--crm-judge-api-base={base}"]


def preflight_lines(result: pytest.RunResult) -> list[str]:
    """The preflight's lines (pytest prefixes only the first line of a usage error with ERROR:)."""
    return [line.removeprefix("ERROR: ") for line in result.stderr.lines if "crmbench preflight: " in line]


def test_a_missing_key_fails_the_session_before_any_task(payments: CrmProject) -> None:
    started = time.monotonic()
    result = payments.run("--crm-model=openai/gpt-5")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert preflight_lines(result) == [
        "crmbench preflight: agent model openai/gpt-5 (--crm-model): missing credential: set"
        " OPENAI_API_KEY (--crm-no-preflight skips this check)",
        "crmbench preflight: user and judge model gpt-5-mini (--crm-user-model, --crm-judge-model):"
        " missing credential: set OPENAI_API_KEY (--crm-no-preflight skips this check)",
    ]
    assert "passed" not in result.stdout.str() and "failed" not in result.stdout.str()
    assert time.monotonic() - started < 20
    assert not (payments.path / "crm-runs").exists()  # a run that never started writes nothing (issue 32 item 1)


def test_a_rejected_key_is_one_line_and_one_request(
    payments: CrmProject, locked_server: FakeLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "fake-key-wrong-0123456789")
    result = payments.run("--crm-model=openai/agent-model", "--crm-user-model=openai/user-model", *on(locked_server))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    lines = preflight_lines(result)
    assert len(lines) == 3, result.stderr.str()
    for line in lines:
        assert "credential rejected (HTTP 401): check OPENAI_API_KEY" in line
    assert "fake-key-wrong" not in result.stderr.str() + result.stdout.str()
    assert locked_server.unauthorised == 3  # one listing per target, nothing retried
    assert locked_server.requests == []


def test_a_role_sent_to_a_server_that_does_not_serve_it_is_named(
    payments: CrmProject, locked_server: FakeLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", RIGHT_KEY)
    result = payments.run(
        "--crm-model=openai/agent-model",
        "--crm-user-model=openai/user-model",
        "--crm-judge-model=openai/qwen3",
        *on(locked_server),
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert preflight_lines(result) == [
        f"crmbench preflight: judge model openai/qwen3 at {locked_server.base_url} (--crm-judge-model):"
        " the server does not serve 'qwen3' (it lists agent-model, user-model); name a served model, or point"
        " this role elsewhere with --crm-judge-api-base"
    ]


def test_the_readme_local_server_example_sends_the_simulator_and_judge_to_their_provider(
    payments: CrmProject, locked_server: FakeLLM
) -> None:
    """``--crm-model=openai/qwen3 --crm-api-base=<local>``: gpt-5-mini is not asked of the local server."""
    result = payments.run("--crm-model=openai/agent-model", f"--crm-api-base={locked_server.base_url}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    (line,) = [line for line in preflight_lines(result) if "gpt-5-mini" in line]
    assert line.endswith(
        "user and judge model gpt-5-mini (--crm-user-model, --crm-judge-model): missing"
        " credential: set OPENAI_API_KEY (--crm-no-preflight skips this check)"
    )


def test_a_healthy_setup_passes_the_preflight_with_each_roles_own_request_shapes(
    payments: CrmProject, locked_server: FakeLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", RIGHT_KEY)
    result = payments.run(
        "--crm-model=openai/agent-model",
        "--crm-user-model=openai/user-model",
        "--crm-judge-model=openai/user-model",
        *on(locked_server),
        "-k",
        "payments_transfer_insufficient_then_retry_01",
    )
    result.assert_outcomes(passed=1, deselected=PAYMENTS_TASKS - 1)
    probes = [r for r in locked_server.requests if r.role == "preflight"]
    # A server that lists the model still gets the requests its roles will make (issue 32 item 6):
    # the agent a tool-calling probe and a structured one; the user and judge (one model) one.
    shapes = sorted(
        (r.body["model"], "tools" if r.body.get("tools") else r.body["response_format"]["type"]) for r in probes
    )
    assert shapes == [("agent-model", "json_schema"), ("agent-model", "tools"), ("user-model", "json_schema")]
    assert all(r.body["max_tokens"] <= 16 for r in probes)


def test_without_the_preflight_a_401_is_an_infra_error_never_retried(
    payments: CrmProject, locked_server: FakeLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "fake-key-wrong-0123456789")
    result = payments.run(
        "--crm-model=openai/agent-model",
        "--crm-user-model=openai/user-model",
        "--crm-judge-model=openai/user-model",
        *on(locked_server),
        "--crm-no-preflight",
        "--crm-retries=4",
        "-k",
        "payments_transfer_insufficient_then_retry_01",
    )
    result.assert_outcomes(errors=1, deselected=PAYMENTS_TASKS - 1)
    assert locked_server.unauthorised == 1  # the router's first call; no retry, no further call
    result.stdout.fnmatch_lines(["*infrastructure failure (excluded from the score): *AuthenticationError*"])


def test_a_model_run_without_litellm_is_one_line(payments: CrmProject, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "litellm", None)  # `import litellm` now fails like an uninstalled one
    result = payments.run("--crm-model=openai/gpt-5")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert result.stderr.lines[0] == (
        "ERROR: model runs need litellm, which is not installed: pip install 'crmbench[models]'"
    )
    assert "Traceback" not in result.stderr.str() + result.stdout.str()
    assert "ModuleNotFoundError" not in result.stderr.str() + result.stdout.str()


# -- issue 32 item 6: servers without every request feature ----------------------------------------

ONE_TASK = "payments_transfer_insufficient_then_retry_01"


def all_roles_on(server: FakeLLM) -> list[str]:
    return ["--crm-model=openai/m", "--crm-user-model=openai/m", "--crm-judge-model=openai/m", *on(server)]


@pytest.mark.parametrize(
    ("refuses", "mode"), [(("json_schema",), "json_object"), (("json_schema", "json_object"), "prompt")]
)
def test_a_server_without_json_schema_gets_the_form_it_takes_and_the_episodes_run(
    payments: CrmProject, refuses: tuple[Any, ...], mode: str
) -> None:
    # llama.cpp's server answers response_format json_schema with a 500; before, every episode
    # ended infra after minutes of retries while the preflight was green.
    with FakeLLM(Script(PAYMENTS_SCENARIOS), served=["m"], refuses=refuses) as server:
        result = payments.run(*all_roles_on(server), "--crm-run-dir=run", "-k", ONE_TASK)
        asked = [r for r in server.requests if r.role in ("user", "judge", "router")]
    result.assert_outcomes(passed=1, deselected=PAYMENTS_TASKS - 1)
    assert {r.role for r in asked} == {"user", "judge", "router"}
    formats = {(r.body.get("response_format") or {}).get("type") for r in asked}
    assert formats == ({"json_object"} if mode == "json_object" else {None})
    assert all("JSON schema (crm_" in str(r.messages[0]["content"]) for r in asked)  # the schema, in words
    manifest = json.loads((payments.path / "run" / "manifest.json").read_text())
    assert manifest["output_modes"] == {"agent": mode, "user": mode, "judge": mode}


def test_the_forms_found_reach_the_xdist_workers(payments: CrmProject) -> None:
    with FakeLLM(Script(PAYMENTS_SCENARIOS), served=["m"], refuses=("json_schema",)) as server:
        result = payments.run(*all_roles_on(server), "-n", "2", "-k", ONE_TASK)
        user_formats = {(r.body.get("response_format") or {}).get("type") for r in server.by_role("user")}
    result.assert_outcomes(passed=1)
    assert user_formats == {"json_object"}


def test_a_server_without_tool_calling_stops_the_run_in_one_line(payments: CrmProject) -> None:
    with FakeLLM(Script(PAYMENTS_SCENARIOS), served=["m"], refuses=("tools",)) as server:
        started = time.monotonic()
        result = payments.run(*all_roles_on(server), "-k", ONE_TASK)
        episodes = [r for r in server.requests if r.role != "preflight"]
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    (line,) = preflight_lines(result)
    assert "agent" in line and "tools is not supported" in line and "takes tool definitions" in line
    assert episodes == [] and time.monotonic() - started < 30


def test_a_listed_model_still_gets_a_request(payments: CrmProject) -> None:
    # Before, a server that listed the model got no request at all; one that then refuses every
    # completion (here: the model is not loaded, 404) let every episode fail as infra.
    def not_loaded(request: Any) -> Any:
        return HttpError(404, "model not loaded")

    with FakeLLM(not_loaded, served=["m"], answers_probes=False) as server:
        result = payments.run(*all_roles_on(server), "-k", ONE_TASK)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert any("not served here" in line for line in preflight_lines(result)), result.stderr.str()
