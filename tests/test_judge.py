"""The judge's local validator fails closed (spec §A.2): shape, count, order, verbatim quotes."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pytest_crmbench.models.judge import validate

CRITERIA = ["Says the transfer failed", "Gives the new balance"]
SAID = ["The transfer failed: insufficient funds.", "Your new balance is $130.00."]


def answer(verdicts: list[dict[str, Any]], flag: Any = False) -> str:
    return json.dumps({"verdicts": verdicts, "contradiction_found": flag})


def verdict(index: int, decision: str = "pass", quote: str | None = None, explanation: str = "ok") -> dict[str, Any]:
    return {
        "criterion": index,
        "decision": decision,
        "quote": SAID[index] if quote is None else quote,
        "explanation": explanation,
    }


def test_valid_output_gives_one_verdict_per_criterion_and_the_flag() -> None:
    checks, problem = validate(answer([verdict(0), verdict(1, "fail", "")]), CRITERIA, SAID)
    assert problem == "" and checks is not None
    assert [(c.name, c.status) for c in checks] == [
        ("reply[0]", "passed"),
        ("reply[1]", "failed"),
        ("reply[contradiction]", "passed"),
    ]


def test_whitespace_differences_in_a_quote_are_tolerated() -> None:
    checks, _ = validate(
        answer([verdict(0, quote="The transfer  failed:\ninsufficient funds."), verdict(1)]), CRITERIA, SAID
    )
    assert checks is not None


def test_contradiction_fails_the_reply() -> None:
    checks, _ = validate(answer([verdict(0), verdict(1)], flag=True), CRITERIA, SAID)
    assert checks is not None and checks[-1].status == "failed"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("All good!", "not a JSON object"),
        (answer([verdict(0)]), "2 criteria but 1 verdicts"),
        (answer([verdict(0), verdict(1), verdict(1)]), "2 criteria but 3 verdicts"),
        (answer([verdict(1), verdict(0)]), "in order"),
        (answer([verdict(0), verdict(1, quote="Your balance is fine.")]), "does not occur verbatim"),
        (answer([verdict(0), verdict(1, quote="")]), "passes without a quote"),
        (answer([verdict(0), verdict(1, explanation=" ")]), "no explanation"),
        (answer([verdict(0), verdict(1, decision="maybe")]), "decision pass|fail"),
        (answer([verdict(0), verdict(1)], flag="no"), "contradiction_found"),
        (json.dumps({"verdicts": []}), "contradiction_found"),
    ],
)
def test_invalid_output_is_rejected(text: str, message: str) -> None:
    checks, problem = validate(text, CRITERIA, SAID)
    assert checks is None and message in problem


def test_a_quote_must_keep_the_assistants_case() -> None:
    checks, problem = validate(answer([verdict(0, quote="THE TRANSFER FAILED"), verdict(1)]), CRITERIA, SAID)
    assert checks is None and "does not occur verbatim" in problem
