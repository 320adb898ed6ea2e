"""Every business rule the support tools enforce: each rejection with its code, and an untouched state."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from pytest_crmbench.env.environment import clone
from pytest_crmbench.env.state import identical

from .helpers import code_of, make, ok

CASE = {"subject": "Internet down", "description": "No connection since this morning."}

REJECTIONS: list[tuple[str, dict[str, Any] | None, str, dict[str, Any], str]] = [
    # (case, override, tool, args, code)
    (
        "unknown-account",
        None,
        "verify_customer",
        {"account_id": "ACC-9999", "full_name": "X", "postal_code": "1"},
        "ACCOUNT_NOT_FOUND",
    ),
    (
        "blank-identity",
        None,
        "verify_customer",
        {"account_id": "ACC-5001", "full_name": " ", "postal_code": "94110"},
        "MISSING_IDENTITY_DETAILS",
    ),
    ("other-customers-case", None, "get_case", {"account_id": "ACC-5003", "case_id": "CS-004120"}, "NOT_OWNER"),
    (
        "other-customers-invoice",
        None,
        "get_invoice",
        {"account_id": "ACC-5001", "invoice_id": "INV-5002-2601"},
        "NOT_OWNER",
    ),
    ("unknown-case", None, "get_case", {"account_id": "ACC-5003", "case_id": "CS-999999"}, "CASE_NOT_FOUND"),
    (
        "expired-entitlement",
        None,
        "create_case",
        {"account_id": "ACC-5004", **CASE, "case_type": "technical", "priority": "high", "entitlement_id": "ENT-0051"},
        "ENTITLEMENT_EXPIRED",
    ),
    (
        "future-entitlement",
        {"entitlements": {"ENT-0064": {"start_date": "2026-04-01"}}},
        "create_case",
        {"account_id": "ACC-5009", **CASE, "case_type": "technical", "priority": "high", "entitlement_id": "ENT-0064"},
        "ENTITLEMENT_NOT_STARTED",
    ),
    (
        "used-up-entitlement",
        None,
        "create_case",
        {"account_id": "ACC-5009", **CASE, "case_type": "technical", "priority": "high", "entitlement_id": "ENT-0063"},
        "NO_CASES_REMAINING",
    ),
    (
        "others-entitlement",
        None,
        "create_case",
        {"account_id": "ACC-5001", **CASE, "case_type": "technical", "priority": "high", "entitlement_id": "ENT-0042"},
        "NOT_OWNER",
    ),
    (
        "others-parent",
        None,
        "create_case",
        {"account_id": "ACC-5001", **CASE, "case_type": "technical", "priority": "high", "parent_case_id": "CS-004090"},
        "NOT_OWNER",
    ),
    (
        "closed-account",
        {"accounts": {"ACC-5001": {"status": "closed"}}},
        "create_case",
        {"account_id": "ACC-5001", **CASE, "case_type": "technical", "priority": "high"},
        "ACCOUNT_CLOSED",
    ),
    (
        "comment-closed-case",
        None,
        "add_comment",
        {"account_id": "ACC-5008", "case_id": "CS-004090", "body": "hi"},
        "CASE_CLOSED",
    ),
    (
        "bad-transition",
        None,
        "update_case_status",
        {"account_id": "ACC-5003", "case_id": "CS-004101", "status": "in_progress"},
        "INVALID_TRANSITION",
    ),
    (
        "status-of-resolved",
        None,
        "update_case_status",
        {"account_id": "ACC-5008", "case_id": "CS-004095", "status": "in_progress"},
        "CASE_NOT_OPEN",
    ),
    (
        "same-priority",
        None,
        "set_priority",
        {"account_id": "ACC-5003", "case_id": "CS-004101", "priority": "medium", "reason": "x"},
        "PRIORITY_UNCHANGED",
    ),
    (
        "escalate-medium",
        None,
        "escalate_case",
        {"account_id": "ACC-5003", "case_id": "CS-004101", "queue": "technical_tier2", "reason": "x"},
        "PRIORITY_TOO_LOW",
    ),
    (
        "escalate-to-tier1",
        None,
        "escalate_case",
        {"account_id": "ACC-5005", "case_id": "CS-004112", "queue": "tier1", "reason": "x"},
        "INVALID_QUEUE",
    ),
    (
        "escalate-twice",
        {
            "cases": {
                "CS-004112": {
                    "status": "escalated",
                    "queue": "network_ops",
                    "escalated_at": "2026-03-01T08:00:00+00:00",
                }
            }
        },
        "escalate_case",
        {"account_id": "ACC-5005", "case_id": "CS-004112", "queue": "network_ops", "reason": "x"},
        "ALREADY_ESCALATED",
    ),
    (
        "escalate-closed",
        None,
        "escalate_case",
        {"account_id": "ACC-5008", "case_id": "CS-004090", "queue": "technical_tier2", "reason": "x"},
        "CASE_NOT_OPEN",
    ),
    (
        "resolve-escalated",
        {
            "cases": {
                "CS-004112": {
                    "status": "escalated",
                    "queue": "network_ops",
                    "escalated_at": "2026-03-01T08:00:00+00:00",
                }
            }
        },
        "resolve_case",
        {"account_id": "ACC-5005", "case_id": "CS-004112", "resolution": "x"},
        "CASE_ESCALATED",
    ),
    ("close-unresolved", None, "close_case", {"account_id": "ACC-5003", "case_id": "CS-004101"}, "NOT_RESOLVED"),
    ("reopen-closed", None, "reopen_case", {"account_id": "ACC-5008", "case_id": "CS-004090"}, "CASE_CLOSED"),
    ("reopen-open", None, "reopen_case", {"account_id": "ACC-5003", "case_id": "CS-004101"}, "NOT_RESOLVED"),
    (
        "reopen-too-late",
        {"cases": {"CS-004095": {"resolved_at": "2026-02-20T16:00:00+00:00"}}},
        "reopen_case",
        {"account_id": "ACC-5008", "case_id": "CS-004095"},
        "REOPEN_WINDOW_EXPIRED",
    ),
    (
        "merge-self",
        None,
        "merge_cases",
        {"account_id": "ACC-5003", "master_case_id": "CS-004101", "duplicate_case_id": "CS-004101"},
        "SAME_CASE",
    ),
    (
        "merge-others",
        None,
        "merge_cases",
        {"account_id": "ACC-5003", "master_case_id": "CS-004101", "duplicate_case_id": "CS-004120"},
        "NOT_OWNER",
    ),
    (
        "merge-closed",
        None,
        "merge_cases",
        {"account_id": "ACC-5008", "master_case_id": "CS-004095", "duplicate_case_id": "CS-004090"},
        "CASE_NOT_OPEN",
    ),
    (
        "csat-open-case",
        None,
        "record_satisfaction",
        {"account_id": "ACC-5003", "case_id": "CS-004101", "score": 4},
        "CASE_NOT_RESOLVED",
    ),
    (
        "csat-twice",
        None,
        "record_satisfaction",
        {"account_id": "ACC-5008", "case_id": "CS-004088", "score": 5},
        "ALREADY_RATED",
    ),
    (
        "csat-out-of-range",
        None,
        "record_satisfaction",
        {"account_id": "ACC-5008", "case_id": "CS-004095", "score": 9},
        "INVALID_SCORE",
    ),
    (
        "handoff-closed",
        None,
        "handoff_to_human",
        {"account_id": "ACC-5008", "case_id": "CS-004090", "summary": "x"},
        "CASE_NOT_OPEN",
    ),
    (
        "credit-unknown-line",
        None,
        "apply_credit",
        {"account_id": "ACC-5001", "invoice_id": "INV-5001-2603", "line_id": "L9", "amount": 5, "reason": "x"},
        "LINE_NOT_FOUND",
    ),
    (
        "credit-above-line",
        None,
        "apply_credit",
        {"account_id": "ACC-5001", "invoice_id": "INV-5001-2603", "line_id": "L3", "amount": "15.01", "reason": "x"},
        "AMOUNT_EXCEEDS_LINE",
    ),
    (
        "credit-above-limit",
        None,
        "apply_credit",
        {"account_id": "ACC-5009", "invoice_id": "INV-5009-2603", "line_id": "L1", "amount": "150.01", "reason": "x"},
        "APPROVAL_REQUIRED",
    ),
    (
        "credit-others-invoice",
        None,
        "apply_credit",
        {"account_id": "ACC-5010", "invoice_id": "INV-5001-2603", "line_id": "L3", "amount": 15, "reason": "x"},
        "NOT_OWNER",
    ),
    (
        "credit-others-case",
        None,
        "apply_credit",
        {
            "account_id": "ACC-5001",
            "invoice_id": "INV-5001-2603",
            "line_id": "L3",
            "amount": 15,
            "reason": "x",
            "case_id": "CS-004120",
        },
        "NOT_OWNER",
    ),
    (
        "credit-zero",
        None,
        "apply_credit",
        {"account_id": "ACC-5001", "invoice_id": "INV-5001-2603", "line_id": "L3", "amount": 0, "reason": "x"},
        "INVALID_AMOUNT",
    ),
    (
        "refund-too-much",
        None,
        "issue_refund",
        {"account_id": "ACC-5006", "payment_id": "PAY-5006-0211", "amount": "70.00", "reason": "x"},
        "AMOUNT_EXCEEDS_PAYMENT",
    ),
    (
        "refund-too-old",
        {"payments": {"PAY-5002-0120": {"paid_at": "2025-12-30T09:00:00+00:00"}}},
        "issue_refund",
        {"account_id": "ACC-5002", "payment_id": "PAY-5002-0120", "amount": 10, "reason": "x"},
        "REFUND_WINDOW_EXPIRED",
    ),
    (
        "refund-others",
        None,
        "issue_refund",
        {"account_id": "ACC-5001", "payment_id": "PAY-5006-0211", "amount": 10, "reason": "x"},
        "NOT_OWNER",
    ),
    (
        "refund-blank-reason",
        None,
        "issue_refund",
        {"account_id": "ACC-5006", "payment_id": "PAY-5006-0211", "amount": 10, "reason": " "},
        "REASON_REQUIRED",
    ),
    ("restore-active", None, "restore_service", {"account_id": "ACC-5001"}, "NOT_SUSPENDED"),
    ("restore-overdue", None, "restore_service", {"account_id": "ACC-5012"}, "OVERDUE_BALANCE"),
    (
        "link-ended-outage",
        None,
        "link_case_to_outage",
        {"account_id": "ACC-5005", "case_id": "CS-004112", "outage_id": "OUT-6990"},
        "OUTAGE_RESOLVED",
    ),
    (
        "link-unaffected",
        None,
        "link_case_to_outage",
        {"account_id": "ACC-5003", "case_id": "CS-004101", "outage_id": "OUT-7001"},
        "NOT_AFFECTED",
    ),
    (
        "link-twice",
        {"cases": {"CS-004112": {"outage_id": "OUT-7001"}}},
        "link_case_to_outage",
        {"account_id": "ACC-5005", "case_id": "CS-004112", "outage_id": "OUT-7001"},
        "ALREADY_LINKED",
    ),
    ("unknown-article", None, "get_article", {"article_id": "KA-9999"}, "ARTICLE_NOT_FOUND"),
]


@pytest.mark.parametrize(
    ("override", "tool", "args", "code"), [r[1:] for r in REJECTIONS], ids=[r[0] for r in REJECTIONS]
)
def test_each_rule_rejects_with_its_code_and_changes_nothing(
    override: dict[str, Any] | None, tool: str, args: dict[str, Any], code: str
) -> None:
    env = make(override)
    before = clone(env.state)
    assert code_of(env, tool, **args) == code
    assert identical(env.state, before)


def test_verification_answers_without_revealing_the_values_on_file() -> None:
    env = make()
    good = ok(env, "verify_customer", account_id="ACC-5002", full_name=" kevin  osei ", postal_code="60614")
    bad = ok(env, "verify_customer", account_id="ACC-5002", full_name="Kevin Osei", postal_code="60615")
    assert good == {"account_id": "ACC-5002", "verified": True}
    assert bad == {"account_id": "ACC-5002", "verified": False}


def test_the_signature_journey_credits_the_duplicate_restores_and_escalates() -> None:
    env = make()
    invoice = ok(env, "get_invoice", account_id="ACC-5002", invoice_id="INV-5002-2601")
    assert (invoice["status"], invoice["balance_due"]) == ("overdue", Decimal("144.00"))
    assert code_of(env, "restore_service", account_id="ACC-5002") == "OVERDUE_BALANCE"
    credit = ok(
        env, "apply_credit", account_id="ACC-5002", invoice_id="INV-5002-2601", line_id="L3", amount=144, reason="dup"
    )
    assert credit["invoice_status"] == "paid"
    assert (
        code_of(
            env, "apply_credit", account_id="ACC-5002", invoice_id="INV-5002-2601", line_id="L3", amount=1, reason="x"
        )
        == "AMOUNT_EXCEEDS_LINE"
    )
    ok(env, "restore_service", account_id="ACC-5002")
    account = env.state["accounts"]["ACC-5002"]
    assert account["status"] == "active" and {s["status"] for s in account["services"]} == {"active"}
    case = ok(
        env,
        "create_case",
        account_id="ACC-5002",
        **CASE,
        case_type="billing",
        priority="urgent",
        entitlement_id="ENT-0042",
    )
    escalated = ok(
        env, "escalate_case", account_id="ACC-5002", case_id=case["case_id"], queue="billing_tier2", reason="r"
    )
    assert escalated == {
        "case_id": case["case_id"],
        "status": "escalated",
        "queue": "billing_tier2",
        "priority": "urgent",
    }
    assert env.violations() == []


def test_per_incident_entitlement_uses_one_case() -> None:
    env = make({"entitlements": {"ENT-0063": {"cases_remaining": 1}}})
    ok(
        env,
        "create_case",
        account_id="ACC-5009",
        **CASE,
        case_type="technical",
        priority="urgent",
        entitlement_id="ENT-0063",
    )
    assert env.state["entitlements"]["ENT-0063"]["cases_remaining"] == 0
    assert (
        code_of(
            env,
            "create_case",
            account_id="ACC-5009",
            **CASE,
            case_type="technical",
            priority="urgent",
            entitlement_id="ENT-0063",
        )
        == "NO_CASES_REMAINING"
    )


def test_a_second_case_of_the_same_type_within_the_hour_is_a_possible_duplicate() -> None:
    env = make()
    first = ok(env, "create_case", account_id="ACC-5001", **CASE, case_type="technical", priority="high")
    before = clone(env.state)
    again = code_of(env, "create_case", account_id="ACC-5001", **CASE, case_type="technical", priority="high")
    assert again == "POSSIBLE_DUPLICATE" and identical(env.state, before)
    other = ok(env, "create_case", account_id="ACC-5001", **CASE, case_type="billing", priority="low")
    assert (first["case_id"], other["case_id"]) == ("CS-004126", "CS-004127")
    assert env.state["last_case_number"] == 4127
    # an older open case of the same type does not block a new one (CS-004125 was opened on 28 February)
    ok(env, "create_case", account_id="ACC-5009", **CASE, case_type="technical", priority="high")


def test_a_case_is_handed_to_a_human_once() -> None:
    env = make()
    ok(env, "handoff_to_human", account_id="ACC-5010", case_id="CS-004120", summary="Wants a person.")
    again = code_of(env, "handoff_to_human", account_id="ACC-5010", case_id="CS-004120", summary="Again.")
    assert again == "ALREADY_HANDED_OFF" and len(env.state["handoffs"]) == 1


def test_a_public_comment_completes_the_first_response_once() -> None:
    env = make()
    ok(env, "add_comment", account_id="ACC-5003", case_id="CS-004107", body="internal", public=False)
    assert env.state["cases"]["CS-004107"]["first_response_at"] is None
    ok(env, "add_comment", account_id="ACC-5003", case_id="CS-004107", body="We are on it.")
    first = env.state["cases"]["CS-004107"]["first_response_at"]
    ok(env, "add_comment", account_id="ACC-5003", case_id="CS-004107", body="Update.")
    assert first is not None and env.state["cases"]["CS-004107"]["first_response_at"] == first


def test_merge_closes_the_duplicate_with_a_pointer_and_lifecycle_runs_to_closed() -> None:
    env = make()
    ok(env, "merge_cases", account_id="ACC-5003", master_case_id="CS-004101", duplicate_case_id="CS-004107")
    duplicate = env.state["cases"]["CS-004107"]
    assert (duplicate["status"], duplicate["merged_into"]) == ("closed", "CS-004101")
    ok(env, "update_case_status", account_id="ACC-5003", case_id="CS-004101", status="waiting_on_customer")
    ok(env, "resolve_case", account_id="ACC-5003", case_id="CS-004101", resolution="Gateway replaced.")
    ok(env, "close_case", account_id="ACC-5003", case_id="CS-004101")
    assert env.state["cases"]["CS-004101"]["status"] == "closed"
    ok(env, "reopen_case", account_id="ACC-5008", case_id="CS-004095")
    assert env.state["cases"]["CS-004095"]["status"] == "in_progress"
    assert env.violations() == []


def test_a_refund_of_the_duplicate_payment_leaves_the_invoice_paid_and_a_second_one_makes_it_due() -> None:
    env = make()
    ok(env, "issue_refund", account_id="ACC-5006", payment_id="PAY-5006-0211", amount="69.99", reason="paid twice")
    assert env.state["invoices"]["INV-5006-2602"]["status"] == "paid"
    assert (
        code_of(env, "issue_refund", account_id="ACC-5006", payment_id="PAY-5006-0211", amount=1, reason="x")
        == "ALREADY_REFUNDED"
    )
    ok(env, "issue_refund", account_id="ACC-5006", payment_id="PAY-5006-0210", amount=10, reason="x")
    assert env.state["invoices"]["INV-5006-2602"]["status"] == "overdue"  # the tool allows it; policy forbids it
    assert env.violations() == []


def test_reads_show_facts_not_deadlines_or_remaining_credit() -> None:
    env = make()
    case = ok(env, "get_case", account_id="ACC-5003", case_id="CS-004101")
    assert [m["name"] for m in case["milestones"]] == ["first_response", "resolution"]
    assert not any("target" in str(k) or "deadline" in str(k) for k in case) and "breach" not in str(case)
    invoice = ok(env, "get_invoice", account_id="ACC-5001", invoice_id="INV-5001-2603")
    assert "creditable" not in str(invoice) and invoice["total"] == Decimal("88.00")
    entitlements = ok(env, "get_entitlements", account_id="ACC-5003")
    assert entitlements["default_sla"]["resolution_hours"]["medium"] == 72


def test_knowledge_search_ranks_by_matching_words_and_outages_filter_by_postal_code() -> None:
    env = make()
    hits = ok(env, "search_knowledge", query="roaming charges mexico")["articles"]
    assert hits[0]["article_id"] == "KA-0104"
    assert ok(env, "search_knowledge", query="zzz")["articles"] == []
    assert [o["outage_id"] for o in ok(env, "check_outages", postal_code="78704")["outages"]] == [
        "OUT-7001",
        "OUT-6990",
    ]
    assert ok(env, "check_outages", postal_code="02139")["outages"] == []
