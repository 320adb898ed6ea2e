"""End to end through litellm's real HTTP path: the payments tasks against a scripted fake server.

Each test runs ``pytest tasks/payments.yaml --crm-model=openai/... --crm-api-base=http://127.0.0.1:PORT/v1``
(and the user and judge api bases)
in-process (pytester) against :class:`~pytest_crmbench.models.fakellm.FakeLLM` playing router, node agent,
simulator and judge. A project conftest dumps each item's verdict and evidence as JSON for the
assertions (and for the API-key grep).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from pytest_crmbench.core.loader import load_task_file
from pytest_crmbench.models.fakellm import Delay, FakeLLM, HttpError, Malformed, completion
from pytest_crmbench.models.llm import litellm_module
from pytest_crmbench.reference.router import REFUSALS
from tests.integration.helpers import CrmProject
from tests.llm_script import CASE_A, PAYMENTS_SCENARIOS, AgentTurn, Scenario, Script, rate_limited

REPO = Path(__file__).resolve().parents[2]
PAYMENTS_TASKS = len(load_task_file(REPO / "tasks" / "payments.yaml"))
"""Counted, not typed: adding a payments task must break no test (issue 25)."""
API_KEY = "fake-key-crmbench-test-DO-NOT-LEAK-0123456789"
CASE_A_ID = "payments_transfer_insufficient_then_retry_01"
CASE_B_ID = "payments_checkout_full_chain_02"
CASE_C_ID = "payments_balance_check_01"

DUMP_CONFTEST = """
import json
from pathlib import Path

import pytest

from pytest_crmbench.plugin.stash import evidence_key, verdict_key


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item):
    verdict, evidence = item.stash.get(verdict_key, None), item.stash.get(evidence_key, None)
    if verdict is not None:
        out = Path(str(item.config.rootpath)) / "results"
        out.mkdir(exist_ok=True)
        record = {"verdict": verdict.model_dump(mode="json"), "evidence": evidence.model_dump(mode="json")}
        (out / f"{item.name}.json").write_text(json.dumps(record, default=str))
"""


@pytest.fixture(scope="module", autouse=True)
def litellm_imported() -> None:
    # Import litellm in this process before any in-process run: pytester restores sys.modules
    # after each run, but litellm's import leaves an importlib_metadata finder in sys.meta_path
    # whose module would be dropped, after which the next run no longer finds pytest plugins.
    litellm_module()


@pytest.fixture
def script() -> Script:
    return Script(PAYMENTS_SCENARIOS)


@pytest.fixture
def server(script: Script) -> Iterator[FakeLLM]:
    with FakeLLM(script, lifetime_s=120) as fake:
        yield fake


@pytest.fixture
def payments(crm_project: CrmProject, monkeypatch: pytest.MonkeyPatch) -> CrmProject:
    shutil.copytree(REPO / "envs" / "payments", crm_project.path / "envs" / "payments")
    (crm_project.path / "agents").mkdir()
    shutil.copyfile(REPO / "agents" / "payments.yaml", crm_project.path / "agents" / "payments.yaml")
    crm_project.add("payments.yaml", REPO / "tasks" / "payments.yaml")
    crm_project.pytester.makeconftest(DUMP_CONFTEST)
    # filterwarnings = error as in our own config: the first litellm call must not trip on its
    # pydantic warning.
    crm_project.write_config('crm_retry_backoff = "0.01"\nfilterwarnings = ["error"]\n')
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    return crm_project


def model_options(server: FakeLLM) -> list[str]:
    """The payments tasks with all three roles' models on ``server``."""
    return [
        "tasks/payments.yaml",
        "--crm-model=openai/agent-model",
        "--crm-user-model=openai/user-model",
        "--crm-judge-model=openai/judge-model",
        f"--crm-api-base={server.base_url}",
        f"--crm-user-api-base={server.base_url}",
        f"--crm-judge-api-base={server.base_url}",
    ]


def run(project: CrmProject, server: FakeLLM, task_id: str, *extra: str) -> pytest.RunResult:
    return project.run(
        *model_options(server),
        "-k",
        task_id,
        *extra,
    )


def record(project: CrmProject, task_id: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((project.path / "results" / f"{task_id}.json").read_text())
    return data


def statuses(data: dict[str, Any]) -> dict[str, str]:
    return {check["name"]: check["status"] for check in data["verdict"]["checks"]}


def test_case_a_recovers_after_a_business_rejection(payments: CrmProject, server: FakeLLM) -> None:
    result = run(payments, server, CASE_A_ID)
    result.assert_outcomes(passed=1, deselected=PAYMENTS_TASKS - 1)
    data = record(payments, CASE_A_ID)
    verdict, evidence = data["verdict"], data["evidence"]
    assert verdict["outcome"] == "success"
    assert set(statuses(data).values()) == {"passed"}
    families = {check["family"] for check in verdict["checks"]}
    assert families == {"action", "param", "order", "state", "forbidden", "reply", "conduct"}
    assert evidence["termination"]["reason"] == "user_stop"
    assert [(r["turn"], r["node"]) for r in evidence["routing"]] == [(0, "transfer"), (1, "transfer")]
    assert [(c["name"], c["status"]) for c in evidence["tool_calls"]] == [
        ("verify_identity", "ok"),
        ("get_account_balance", "ok"),
        ("validate_transfer", "ok"),  # valid=false is an answer, not a rejection
        ("validate_transfer", "ok"),
        ("execute_transfer", "ok"),
    ]
    assert evidence["tool_calls"][2]["result"]["valid"] is False
    assert evidence["messages"][-1] == {"role": "user", "content": "Thanks, bye!", "turn": 2}  # stop text kept
    # Reasoning content came back with the agent's own later calls.
    later = [r for r in server.by_role("agent") if len(r.messages) > 3]
    assert any(m.get("reasoning_content") == "turn 0 step 0" for r in later for m in r.messages)


def test_case_b_duplicate_checkout_is_a_state_failure(payments: CrmProject, server: FakeLLM) -> None:
    result = run(payments, server, CASE_B_ID)
    # The item, its two failed state subtests and conduct's scope (a second payment nobody asked for).
    result.assert_outcomes(failed=4, deselected=PAYMENTS_TASKS - 1)
    data = record(payments, CASE_B_ID)
    verdict = data["verdict"]
    assert (verdict["outcome"], verdict["primary_label"]) == ("failure", "state")
    by_family: dict[str, set[str]] = {}
    for check in verdict["checks"]:
        by_family.setdefault(check["family"], set()).add(check["status"])
    # As the spec reports: action, params, order and the reply (with contradiction_found=false) pass.
    assert by_family == {
        "action": {"passed"},
        "param": {"passed"},
        "order": {"passed"},
        "reply": {"passed"},
        "state": {"failed", "passed"} if len(by_family["state"]) > 1 else {"failed"},
        "conduct": {"failed", "passed"},
    }
    scope = next(c for c in verdict["checks"] if c["name"] == "conduct.scope[0] writes")
    assert scope["status"] == "failed" and "process_payment: 2 successful call(s)" in scope["diff"]
    loyalty = next(c for c in verdict["checks"] if c["family"] == "state" and "loyalty_points" in c["name"])
    assert (loyalty["status"], loyalty["expected"], loyalty["actual"]) == ("failed", "155", 310)
    assert len(data["evidence"]["tool_calls"]) == 10
    assert len([m for m in data["evidence"]["messages"] if m["role"] == "assistant"]) == 4
    result.stdout.fnmatch_lines(["*state*loyalty_points*"])


def test_case_c_repeated_rejections_end_at_the_turn_limit(payments: CrmProject, server: FakeLLM) -> None:
    result = run(payments, server, CASE_C_ID, "--crm-max-turns=4")
    # The item; the balance was never read (2 subtests) and the identity never verified (1 subtest).
    result.assert_outcomes(failed=4, deselected=PAYMENTS_TASKS - 1)
    data = record(payments, CASE_C_ID)
    assert data["evidence"]["termination"]["reason"] == "max_turns"
    # Non-convergence fails the task; its label is its first failed check (spec figure 13).
    assert (data["verdict"]["outcome"], data["verdict"]["primary_label"]) == ("failure", "action")
    assert [c["status"] for c in data["evidence"]["tool_calls"]] == ["rejected"] * 4
    result.stdout.fnmatch_lines(["*episode ended by max_turns*"])


def test_tool_misuse_becomes_structured_errors_and_the_episode_goes_on(
    payments: CrmProject, server: FakeLLM, script: Script
) -> None:
    first = CASE_A.agent[0]
    misuse = AgentTurn(
        steps=[
            [("transfer_money", {"amount": 1000})],  # hallucinated
            [("validate_transfer", '{"from_account": "ACC-1002", "amount": ')],  # malformed JSON
            [("process_payment", {"account_id": "ACC-1002", "amount": 1000})],  # not exposed by transfer
            *first.steps,
        ],
        reply=first.reply,
    )
    script.scenarios = [Scenario(CASE_A.key, CASE_A.routes, [misuse, CASE_A.agent[1]], CASE_A.user)]
    result = run(payments, server, CASE_A_ID)
    result.assert_outcomes(passed=1, deselected=PAYMENTS_TASKS - 1)
    calls = record(payments, CASE_A_ID)["evidence"]["tool_calls"]
    assert [(c["name"], c["status"], (c["error"] or {}).get("type")) for c in calls[:3]] == [
        ("transfer_money", "error", "unknown_tool"),
        ("validate_transfer", "error", "invalid_json"),
        ("process_payment", "error", "unexposed_tool"),
    ]
    # The model saw each error as its tool result.
    observations = [m["content"] for r in server.by_role("agent") for m in r.messages if m.get("role") == "tool"]
    assert any("unknown_tool" in o for o in observations) and any("unexposed_tool" in o for o in observations)


def test_transient_failures_are_retried(payments: CrmProject, server: FakeLLM, script: Script) -> None:
    script.queue("agent", rate_limited(), HttpError(500), Delay(1.0, completion("late")))
    script.queue("user", HttpError(503))
    result = run(payments, server, CASE_A_ID, "--crm-request-timeout=0.4")
    result.assert_outcomes(passed=1, deselected=PAYMENTS_TASKS - 1)


@pytest.mark.parametrize(
    "fault",
    [rate_limited(), HttpError(500), Delay(1.0, completion("late")), Malformed()],
    ids=["429", "500", "timeout", "malformed"],
)
def test_persistent_provider_failure_is_infra_not_failure(
    payments: CrmProject, server: FakeLLM, script: Script, fault: Any
) -> None:
    script.always["agent"] = fault
    result = run(payments, server, CASE_A_ID, "--crm-request-timeout=0.3", "--crm-retries=2")
    data = record(payments, CASE_A_ID)
    assert data["verdict"]["outcome"] == "infra"
    assert data["evidence"]["termination"]["reason"] == "infra"
    assert len(server.by_role("agent")) == 3  # one call and two retries
    result.stdout.fnmatch_lines(
        ["*infrastructure failure (excluded from the score)*", "*0 failure, 0 not judged, 1 infra*"]
    )


@pytest.mark.parametrize("mode", ["short", "malformed", "unquoted", "empty_quote"])
def test_an_invalid_judge_is_never_a_pass(payments: CrmProject, server: FakeLLM, script: Script, mode: str) -> None:
    script.judge_mode = mode
    result = run(payments, server, CASE_A_ID)
    data = record(payments, CASE_A_ID)
    assert data["verdict"]["outcome"] == "infra"
    assert "judge output invalid after 3 attempts" in data["verdict"]["detail"]
    assert len(server.by_role("judge")) == 3
    result.assert_outcomes(errors=1, deselected=PAYMENTS_TASKS - 1)  # infra: a pytest error, never a failure (issue 12)


def test_judge_contradiction_flag_fails_the_reply(payments: CrmProject, server: FakeLLM, script: Script) -> None:
    script.judge_contradiction = True
    run(payments, server, CASE_A_ID).assert_outcomes(
        failed=2, deselected=PAYMENTS_TASKS - 1
    )  # the item and the subtest
    checks = statuses(record(payments, CASE_A_ID))
    assert checks["reply[contradiction]"] == "failed"
    assert checks["reply[0]"] == checks["reply[1]"] == "passed"


@pytest.mark.parametrize("label", ["unsafe", "out_of_scope"])
def test_refusal_labels_refuse_without_tools(payments: CrmProject, server: FakeLLM, script: Script, label: str) -> None:
    script.scenarios = [Scenario(CASE_A.key, [label], CASE_A.agent, [])]
    run(payments, server, CASE_A_ID)
    evidence = record(payments, CASE_A_ID)["evidence"]
    assert evidence["tool_calls"] == []
    assert evidence["routing"] == [{"turn": 0, "node": label, "detail": None}]
    assert evidence["messages"][1]["content"] == REFUSALS[label]
    assert server.by_role("agent") == []  # no node ran


def test_invalid_router_answers_fall_back_to_general(payments: CrmProject, server: FakeLLM, script: Script) -> None:
    script.queue("router", completion("transfer please"), completion('{"node": "teleport"}'))
    run(payments, server, CASE_A_ID)
    evidence = record(payments, CASE_A_ID)["evidence"]
    assert evidence["routing"][0]["node"] == "general"
    assert "router fallback" in evidence["routing"][0]["detail"]
    # general exposes no tool: what the node agent tried on turn 0 is refused by the environment.
    assert {(c["status"], c["error"]["type"]) for c in evidence["tool_calls"] if c["turn"] == 0} == {
        ("error", "unexposed_tool")
    }


def test_usage_and_cost_per_role_and_no_key_in_any_file(payments: CrmProject, server: FakeLLM) -> None:
    (payments.path / "prices.yaml").write_text("openai/agent-model: {input: 1.0, output: 2.0}\n")
    result = run(payments, server, CASE_A_ID, "--crm-prices=prices.yaml")
    result.assert_outcomes(passed=1, deselected=PAYMENTS_TASKS - 1)
    data = record(payments, CASE_A_ID)
    agent, user = data["evidence"]["usage"]["agent"], data["evidence"]["usage"]["user"]
    agent_calls = len(server.by_role("agent")) + len(server.by_role("router"))
    assert (agent["calls"], agent["prompt_tokens"], agent["completion_tokens"]) == (
        agent_calls,
        100 * agent_calls,
        10 * agent_calls,
    )
    # Cache-neutral: tokens x price per token, exact.
    assert Decimal(agent["cost_usd"]) == Decimal(agent_calls) * (100 * Decimal("1.0") + 10 * Decimal("2.0")) / 10**6
    assert user["calls"] == 2 and user["cost_usd"] is None  # unpriced: unknown, not zero
    judge = data["verdict"]["judge_usage"]
    assert judge["calls"] == 1 and judge["cost_usd"] is None
    leaked = [p for p in payments.path.rglob("*") if p.is_file() and API_KEY.encode() in p.read_bytes()]
    assert leaked == []
    assert API_KEY not in result.stdout.str() + result.stderr.str()
    # The key did reach the server, so the grep above is meaningful.
    assert all(r.headers.get("authorization") == f"Bearer {API_KEY}" for r in server.requests)
    # The run directory records which models and provider ran, and how, without a credential.
    (manifest_path,) = (payments.path / "crm-runs").glob("*/manifest.json")
    manifest = json.loads(manifest_path.read_text())
    assert manifest["models"]["agent"] == "openai/agent-model"
    assert manifest["models"]["providers"]["agent"] == "openai"
    assert manifest["sampling"]["api_base"] == server.base_url
    assert manifest["sampling"]["prices"] == ["openai/agent-model"]


def test_graph_needs_a_model(payments: CrmProject) -> None:
    result = payments.run("tasks/payments.yaml", "--crm-agent=graph")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--crm-agent=graph needs a model*"])


def test_flat_agent_exposes_every_tool(payments: CrmProject, server: FakeLLM) -> None:
    result = run(payments, server, CASE_A_ID, "--crm-agent=flat")
    result.assert_outcomes(passed=1, deselected=PAYMENTS_TASKS - 1)
    evidence = record(payments, CASE_A_ID)["evidence"]
    assert {r["node"] for r in evidence["routing"]} == {"flat"}
    assert server.by_role("router") == []
    assert len(server.by_role("agent")[0].body["tools"]) == 22


def test_concurrency_plays_episodes_ahead_with_the_same_results(payments: CrmProject, server: FakeLLM) -> None:
    selected = f"{CASE_A_ID} or {CASE_B_ID} or {CASE_C_ID}"
    server.latency_s = 0.05  # long enough for the three episodes' calls to overlap
    result = run(payments, server, selected, "--crm-concurrency=3", "--crm-max-turns=4")
    result.assert_outcomes(
        passed=1, failed=8, deselected=PAYMENTS_TASKS - 3
    )  # B with three failed subtests (two state, conduct's scope), C with three
    assert server.max_in_flight >= 2
    outcomes = {task: record(payments, task)["verdict"]["outcome"] for task in (CASE_A_ID, CASE_B_ID, CASE_C_ID)}
    assert outcomes == {CASE_A_ID: "success", CASE_B_ID: "failure", CASE_C_ID: "failure"}
    loyalty = record(payments, CASE_B_ID)["evidence"]["final_state"]["accounts"]["ACC-1002"]["loyalty_points"]
    assert loyalty == 310


def test_concurrency_with_xdist_needs_the_load_distribution(payments: CrmProject) -> None:
    result = payments.run(
        "tasks/payments.yaml", "--crm-model=openai/x", "--crm-concurrency=4", "-n", "2", "--dist", "loadfile"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--crm-concurrency with xdist needs --dist load*not --dist loadfile*"])


def test_a_key_in_a_provider_error_is_redacted_before_it_is_cut(
    payments: CrmProject, server: FakeLLM, script: Script
) -> None:
    # The provider echoes the key; wherever the 300-character cut falls, no part of it survives
    # in the results, the traces, the evidence or the terminal (issue 11 item 15).
    script.always["agent"] = HttpError(500, " ".join(f"attempt {n}: bad key {API_KEY}" for n in range(20)))
    result = run(payments, server, CASE_A_ID, "--crm-retries=0")
    data = record(payments, CASE_A_ID)
    assert data["verdict"]["outcome"] == "infra"
    assert "<redacted>" in data["verdict"]["detail"]
    head = API_KEY[:8]
    leaked = [p for p in payments.path.rglob("*") if p.is_file() and head.encode() in p.read_bytes()]
    assert leaked == []
    assert head not in result.stdout.str() + result.stderr.str()


FILTERED = "The response was filtered due to the prompt triggering Azure OpenAI's content management policy."


@pytest.mark.parametrize(
    ("role", "code", "outcome", "termination"),
    [
        ("agent", "content_filter", "failure", "agent_abort"),  # Azure's wording
        ("agent", "content_policy_violation", "failure", "agent_abort"),  # OpenAI's
        ("user", "content_filter", "infra", "infra"),
        ("judge", "content_policy_violation", "infra", "user_stop"),
    ],
)
def test_a_content_filter_is_charged_to_the_role_it_stopped(
    payments: CrmProject, server: FakeLLM, script: Script, role: str, code: str, outcome: str, termination: str
) -> None:
    # Classified by the error code, not by litellm's wording of it: a 400 with code content_filter
    # on the agent model was once infra, taking the agent's refusal out of the score (issue 11 item 2).
    script.always[role] = HttpError(400, FILTERED, code=code)
    run(payments, server, CASE_A_ID, "--crm-retries=0")
    data = record(payments, CASE_A_ID)
    assert (data["verdict"]["outcome"], data["evidence"]["termination"]["reason"]) == (outcome, termination)


def test_an_unknown_exception_in_the_model_calling_code_is_a_harness_error(
    payments: CrmProject, server: FakeLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Not a provider's answer but a bug on our side: never infra (which would hide it in a count),
    # never the agent's failure; an unscored error with its traceback (issue 9 §3).
    from pytest_crmbench.models.llm import Transport

    def broken_send(self: Transport, kwargs: dict[str, Any]) -> Any:
        return kwargs["no-such-key"]

    monkeypatch.setattr(Transport, "send", broken_send)
    result = run(payments, server, CASE_A_ID)
    data = record(payments, CASE_A_ID)
    assert (data["verdict"]["outcome"], data["evidence"]["termination"]["reason"]) == ("error", "harness_error")
    result.stdout.fnmatch_lines(
        [
            "*harness error (excluded from the score; a bug in crmbench or a domain): agent model openai/agent-model:"
            " unexpected KeyError while calling the model",
            "Traceback (most recent call last):",
            '*return kwargs[[]"no-such-key"[]]*',
        ]
    )
    result.stdout.fnmatch_lines(["*0 failure, 0 not judged, 0 infra, 1 error*"])
