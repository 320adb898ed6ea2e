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
