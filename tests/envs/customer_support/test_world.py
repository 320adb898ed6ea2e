"""The support world: one typed state model for the seed, every override and every write; the seed
and every task's initial state keep the world invariants, and each invariant can fail."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from pytest_crmbench.core.loader import load_task_file
from pytest_crmbench.env.state import StateError

from .helpers import TASKS, SupportEnvironment, make

TASK_RECORDS = load_task_file(TASKS) if TASKS.exists() else []


def test_seed_validates_and_keeps_every_invariant() -> None:
    env = make()
    assert env.violations() == []
    assert set(SupportEnvironment.invariants) == {
        "invoices_add_up",
        "refunds_add_up",
        "cases_are_consistent",
        "accounts_are_consistent",
    }
    state = env.state
    assert state["settings"]["agent_credit_limit"] == Decimal("150.00")
    assert {a["status"] for a in state["accounts"].values()} == {"active", "suspended", "closed"}
    assert {c["status"] for c in state["cases"].values()} >= {"new", "in_progress", "resolved", "closed"}
    assert state["cases"]["CS-004101"]["merged_into"] is None  # the model fills what the seed leaves out


@pytest.mark.parametrize("record", TASK_RECORDS, ids=[r.task.id for r in TASK_RECORDS])
def test_every_task_starts_in_a_consistent_world(record: Any) -> None:
    assert make(record.task.initial_state).violations() == []


BROKEN_WORLDS: list[tuple[str, dict[str, Any], str]] = [
    ("status-not-derived", {"invoices": {"INV-5002-2601": {"status": "paid"}}}, "invoices.INV-5002-2601.status"),
    (
        "credit-above-line",
        {
            "credits": {
                "CR-000001": {
                    "credit_id": "CR-000001",
                    "account_id": "ACC-5001",
                    "invoice_id": "INV-5001-2603",
                    "line_id": "L3",
                    "amount": "16.00",
                    "reason": "x",
                    "created_at": "2026-03-01T10:00:00+00:00",
                }
            }
        },
        "invoices.INV-5001-2603.lines",
    ),
    (
        "credit-of-another-account",
        {
            "credits": {
                "CR-000002": {
                    "credit_id": "CR-000002",
                    "account_id": "ACC-5010",
                    "invoice_id": "INV-5001-2603",
                    "line_id": "L3",
                    "amount": "5.00",
                    "reason": "x",
                    "created_at": "2026-03-01T10:00:00+00:00",
                }
            }
        },
        "credits.CR-000002.invoice_id",
    ),
    (
        "refund-without-record",
        {"payments": {"PAY-5006-0211": {"refunded_amount": "10.00"}}},
        "payments.PAY-5006-0211.refunded_amount",
    ),
    ("escalated-in-tier1", {"cases": {"CS-004101": {"status": "escalated"}}}, "cases.CS-004101.queue"),
    ("closed-without-date", {"cases": {"CS-004101": {"status": "closed"}}}, "cases.CS-004101.closed_at"),
    ("csat-on-open-case", {"cases": {"CS-004101": {"csat_score": 3}}}, "cases.CS-004101.csat_score"),
    (
        "merged-into-other-account",
        {"cases": {"CS-004090": {"merged_into": "CS-004120"}}},
        "cases.CS-004090.merged_into",
    ),
    ("foreign-entitlement", {"cases": {"CS-004101": {"entitlement_id": "ENT-0042"}}}, "cases.CS-004101.entitlement_id"),
    (
        "suspended-without-reason",
        {"accounts": {"ACC-5001": {"status": "suspended"}}},
        "accounts.ACC-5001.suspended_reason",
    ),
    (
        "active-with-suspended-service",
        {"accounts": {"ACC-5002": {"status": "active", "suspended_reason": None}}},
        "accounts.ACC-5002.services",
    ),
    (
        "per-incident-count",
        {"entitlements": {"ENT-0042": {"cases_remaining": 3}}},
        "entitlements.ENT-0042.cases_remaining",
    ),
]


@pytest.mark.parametrize(("override", "path"), [c[1:] for c in BROKEN_WORLDS], ids=[c[0] for c in BROKEN_WORLDS])
def test_an_override_that_breaks_the_world_is_named_by_its_path(override: dict[str, Any], path: str) -> None:
    assert path in [v.path for v in make(override).violations()]


@pytest.mark.parametrize(
    ("override", "path"),
    [
        ({"cases": {"CS-004101": {"priority": "critical"}}}, "cases.CS-004101.priority"),
        ({"cases": {"CS-004101": {"csat_score": 7}}}, "cases.CS-004101.csat_score"),
        ({"accounts": {"ACC-5001": {"nickname": "R"}}}, "accounts.ACC-5001.nickname"),
        ({"settings": {"agent_credit_limit": "10.005"}}, "settings.agent_credit_limit"),
    ],
)
def test_an_override_the_state_model_refuses_names_its_field(override: dict[str, Any], path: str) -> None:
    with pytest.raises(StateError) as caught:
        make(override)
    assert path in [p for p, _ in caught.value.problems]


def test_every_tool_is_documented_and_declares_its_kind() -> None:
    for spec in SupportEnvironment.tool_schemas():
        function = spec["function"]
        assert len(function["description"]) > 30, function["name"]
        for name, prop in function["parameters"]["properties"].items():
            assert prop.get("description"), f"{function['name']}.{name} has no Args: entry"
    reads = sorted(n for n, s in SupportEnvironment.tools.items() if s.kind == "read")
    assert reads == [
        "check_outages",
        "get_account",
        "get_article",
        "get_case",
        "get_entitlements",
        "get_invoice",
        "list_cases",
        "list_invoices",
        "list_payments",
        "search_knowledge",
        "verify_customer",
    ]
