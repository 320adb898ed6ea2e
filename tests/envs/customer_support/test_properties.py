"""Properties over random operation sequences (hypothesis): every world invariant keeps holding,
rejections change nothing, reads change nothing, and money is conserved: an invoice's balance due
is always its lines minus its credits minus what was paid and not refunded."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_crmbench.env.environment import clone
from pytest_crmbench.env.state import identical

from .helpers import SupportEnvironment, make

ACCOUNTS = [f"ACC-50{n:02d}" for n in range(1, 13)]
CASES = ["CS-004088", "CS-004090", "CS-004095", "CS-004101", "CS-004107", "CS-004112", "CS-004120", "CS-004125"]
INVOICES = ["INV-5001-2603", "INV-5002-2601", "INV-5006-2602", "INV-5007-2603", "INV-5012-2601", "INV-5011-2603"]
PAYMENTS = ["PAY-5006-0210", "PAY-5006-0211", "PAY-5002-0220", "PAY-5011-0221"]
AMOUNTS = st.sampled_from(["0.01", "15.00", "69.99", "84.00", "144.00", "150.00", "150.01", "500.00"])


@st.composite
def calls(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    account = draw(st.sampled_from(ACCOUNTS))
    case = draw(st.sampled_from(CASES))
    tool = draw(st.sampled_from(sorted(SupportEnvironment.tools)))
    args: dict[str, Any] = {"account_id": account}
    if tool in ("get_case", "close_case", "reopen_case"):
        args["case_id"] = case
    elif tool == "add_comment":
        args |= {"case_id": case, "body": "note", "public": draw(st.booleans())}
    elif tool == "update_case_status":
        args |= {"case_id": case, "status": draw(st.sampled_from(["in_progress", "waiting_on_customer"]))}
    elif tool == "set_priority":
        args |= {"case_id": case, "priority": draw(st.sampled_from(["low", "medium", "high", "urgent"])), "reason": "r"}
    elif tool == "escalate_case":
        args |= {
            "case_id": case,
            "queue": draw(st.sampled_from(["tier1", "billing_tier2", "network_ops"])),
            "reason": "r",
        }
    elif tool == "resolve_case":
        args |= {"case_id": case, "resolution": "fixed"}
    elif tool == "merge_cases":
        args |= {"master_case_id": case, "duplicate_case_id": draw(st.sampled_from(CASES))}
    elif tool == "record_satisfaction":
        args |= {"case_id": case, "score": draw(st.integers(0, 6))}
    elif tool == "handoff_to_human":
        args |= {"case_id": case, "summary": "s"}
    elif tool == "link_case_to_outage":
        args |= {"case_id": case, "outage_id": draw(st.sampled_from(["OUT-7001", "OUT-6990", "OUT-7002"]))}
    elif tool == "create_case":
        args |= {
            "subject": "s",
            "description": "d",
            "case_type": "billing",
            "priority": "high",
            "entitlement_id": draw(st.sampled_from([None, "ENT-0042", "ENT-0063", "ENT-0064"])),
        }
    elif tool in ("get_invoice", "apply_credit"):
        args["invoice_id"] = draw(st.sampled_from(INVOICES))
        if tool == "apply_credit":
            args |= {"line_id": draw(st.sampled_from(["L1", "L3", "L4"])), "amount": draw(AMOUNTS), "reason": "r"}
    elif tool == "issue_refund":
        args |= {"payment_id": draw(st.sampled_from(PAYMENTS)), "amount": draw(AMOUNTS), "reason": "r"}
    elif tool == "verify_customer":
        args |= {"full_name": "Kevin Osei", "postal_code": "60614"}
    elif tool == "search_knowledge":
        args = {"query": "wifi roaming outage"}
    elif tool == "get_article":
        args = {"article_id": "KA-0102"}
    elif tool == "check_outages":
        args = {"postal_code": draw(st.sampled_from(["78704", "60614"]))}
    return tool, args


def _money(env: Any) -> dict[str, Decimal]:
    """Per invoice: lines - credits - (payments - refunds), from the raw records."""
    state = env.state
    out = {}
    for invoice_id, invoice in state["invoices"].items():
        lines = sum((x["amount"] for x in invoice["lines"]), Decimal("0"))
        credits = sum((c["amount"] for c in state["credits"].values() if c["invoice_id"] == invoice_id), Decimal("0"))
        payments = [p for p in state["payments"].values() if p["invoice_id"] == invoice_id]
        refunds = sum(
            (
                r["amount"]
                for r in state["refunds"].values()
                if state["payments"][r["payment_id"]]["invoice_id"] == invoice_id
            ),
            Decimal("0"),
        )
        out[invoice_id] = lines - credits - (sum((p["amount"] for p in payments), Decimal("0")) - refunds)
    return out


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(calls(), min_size=1, max_size=25))
def test_random_sequences_keep_the_world_consistent(sequence: list[tuple[str, dict[str, Any]]]) -> None:
    env = make()
    for tool, args in sequence:
        before = clone(env.state)
        call = env.call(tool, args)
        if call.status != "ok" or SupportEnvironment.tools[tool].kind == "read":
            assert identical(env.state, before), (tool, args, call.error)  # refusals and reads change nothing
            continue
        assert env.violations() == [], (tool, args)
        for invoice_id, balance in _money(env).items():
            invoice = env.state["invoices"][invoice_id]
            assert env.balance_due(invoice) == balance  # type: ignore[attr-defined]
        credits = [c["amount"] for c in env.state["credits"].values()]
        assert all(amount <= Decimal("150.00") for amount in credits)
