"""The model layer without a server: classification, prices, cache-neutral cost, redaction."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from pytest_crmbench.core.errors import CrmbenchError
from pytest_crmbench.models.llm import Price, classify, load_price_table, parse_json_object


class FakeError(Exception):
    """Stands for a provider SDK's exception: a class name and a status code (and maybe a body)."""

    def __init__(self, status: int | None, code: str | None = None) -> None:
        self.status_code = status
        self.body = {"message": "whatever the provider says", "code": code} if code else None


def named(name: str, status: int | None = None, code: str | None = None) -> Exception:
    return type(name, (FakeError,), {})(status, code)


@pytest.mark.parametrize(
    ("exc", "kind"),
    [
        (named("RateLimitError", 429), "transient"),
        (named("Timeout", 408), "transient"),
        (named("InternalServerError", 500), "transient"),
        (named("APIError", 529), "transient"),
        (named("APIError", 402), "fatal"),  # litellm maps 402/403 to plain APIError
        (named("AuthenticationError", 401), "fatal"),
        (named("NotFoundError", 404), "fatal"),
        (named("BadRequestError", 400), "fatal"),
        (named("ContextWindowExceededError", 400), "model"),
        (named("ContentPolicyViolationError", 400), "model"),
        # Azure's and OpenAI's content filters arrive as a plain 400 with a code, whatever the text
        # says: once classified infra, which took the agent's refusal out of the score (issue 11 item 2).
        (named("BadRequestError", 400, "content_filter"), "model"),
        (named("BadRequestError", 400, "content_policy_violation"), "model"),
        (named("BadRequestError", 400, "context_length_exceeded"), "model"),
        (named("BadRequestError", 400, "invalid_request_error"), "fatal"),
        (TimeoutError("socket"), "transient"),
        (ConnectionResetError("reset"), "transient"),
        # Not a provider's answer: a bug in the calling code is a harness error, not infra.
        (ValueError("boom"), "harness"),
        (KeyError("choices"), "harness"),
    ],
)
def test_classify(exc: Exception, kind: str) -> None:
    assert classify(exc) == kind


def test_price_table_is_per_million_and_cost_is_cache_neutral(tmp_path: Path) -> None:
    table = tmp_path / "prices.yaml"
    table.write_text("openai/local: {input: 0.25, output: 2}\n")
    price = load_price_table(table)["openai/local"]
    assert price == Price(Decimal("0.00000025"), Decimal("0.000002"))
    assert price.cost(1000, 100) == Decimal("0.00045")


@pytest.mark.parametrize("text", ["- a\n", "m: 3\n", "m: {input: 1}\n", "m: {input: x, output: 1}\n"])
def test_bad_price_tables_are_errors(tmp_path: Path, text: str) -> None:
    table = tmp_path / "prices.yaml"
    table.write_text(text)
    with pytest.raises(CrmbenchError, match="price table"):
        load_price_table(table)


def test_parse_json_object_tolerates_a_fence() -> None:
    assert parse_json_object('```json\n{"node": "general"}\n```') == {"node": "general"}
    assert parse_json_object("[1]") is None


def test_litellms_own_missing_key_error_is_never_retried(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 12 item 2: litellm reports a missing OpenAI key as a 500 InternalServerError, which was
    retried like an outage. Raised for real, offline: the SDK refuses before any request is sent."""
    from pytest_crmbench.core.errors import InfraError
    from pytest_crmbench.models.llm import ModelClient, ModelConfig, litellm_module

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    litellm = litellm_module()
    with pytest.raises(Exception) as caught:
        litellm.completion(model="openai/gpt-5", messages=[{"role": "user", "content": "hi"}], max_retries=0)
    assert "Missing credentials" in str(caught.value)
    assert classify(caught.value) == "fatal"
    slept: list[float] = []
    client = ModelClient(ModelConfig("openai/gpt-5", retries=4, backoff_s=1.0), "agent", sleep=slept.append)
    with pytest.raises(InfraError, match="Missing credentials") as failed:
        client.complete([{"role": "user", "content": "hi"}])
    assert slept == [] and "attempts" not in str(failed.value)


def test_a_local_server_serves_only_the_roles_that_play_its_model() -> None:
    """Issue 12 item 4: the simulator and judge do not follow --crm-api-base to a server that
    serves another model; the same model id does (same model, same server)."""
    from pytest_crmbench.models.llm import ModelSettings
    from pytest_crmbench.models.preflight import Target, targets

    local = "http://127.0.0.1:8000/v1"
    readme = ModelSettings(agent="openai/qwen3", user="gpt-5-mini", judge="gpt-5-mini", api_base=local)
    assert [readme.api_base_of(role) for role in ("agent", "user", "judge")] == [local, None, None]
    assert targets(readme) == [
        Target("openai/qwen3", local, ("agent",)),
        Target("gpt-5-mini", None, ("user", "judge")),
    ]
    same = ModelSettings(agent="openai/qwen3", user="openai/qwen3", judge="gpt-5-mini", api_base=local)
    assert same.api_base_of("user") == local and same.api_base_of("judge") is None
    other = "http://127.0.0.1:9000/v1"
    own = ModelSettings(
        agent="openai/qwen3", user="openai/llama", judge="openai/llama", api_base=local, judge_api_base=other
    )
    assert (own.api_base_of("user"), own.api_base_of("judge")) == (None, other)
    assert own.config("judge").api_base == other
