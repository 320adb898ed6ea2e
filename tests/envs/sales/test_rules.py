"""Every rule the sales tools enforce: each rejection with its code, and an untouched state."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from .helpers import code_of, make, ok

BANT = {"budget": "$10k", "authority": "CEO signs", "need": "Scheduling", "timeline": "Q2"}
NEW_LEAD = {
    "rep_id": "REP-101",
    "first_name": "Ana",
    "last_name": "Lopez",
    "company": "Lopez HVAC",
    "email": "ana@lopezhvac.com",
    "state": "NJ",
    "source": "Web",
}

BOOKINGS: list[tuple[str, dict[str, Any], str]] = [
    ("taken", {"date": "2026-03-04", "start_time": "14:30"}, "SLOT_TAKEN"),
    ("overlap-start", {"date": "2026-03-04", "start_time": "09:45"}, "SLOT_TAKEN"),
    ("before-hours", {"date": "2026-03-04", "start_time": "08:30"}, "OUTSIDE_BUSINESS_HOURS"),
    ("past-closing", {"date": "2026-03-04", "start_time": "16:45"}, "OUTSIDE_BUSINESS_HOURS"),
    ("saturday", {"date": "2026-03-07", "start_time": "11:00"}, "OUTSIDE_BUSINESS_HOURS"),
    ("past", {"date": "2026-02-27", "start_time": "11:00"}, "START_IN_PAST"),
    ("bad-time", {"date": "2026-03-04", "start_time": "2pm"}, "INVALID_TIME"),
    ("too-long", {"date": "2026-03-04", "start_time": "11:00", "duration_minutes": 180}, "INVALID_DURATION"),
    ("bad-date", {"date": "4 March", "start_time": "11:00"}, "INVALID_DATE"),
]

REJECTIONS: list[tuple[str, str, dict[str, Any], str]] = [
    # (case, tool, arguments, code)
    ("unknown-lead", "get_lead", {"lead_id": "LEAD-99999"}, "LEAD_NOT_FOUND"),
    ("unknown-rep", "create_lead", {**NEW_LEAD, "rep_id": "REP-999"}, "REP_NOT_FOUND"),
    ("bad-email", "create_lead", {**NEW_LEAD, "email": "ana at lopez"}, "INVALID_EMAIL"),
    ("bad-state", "create_lead", {**NEW_LEAD, "state": "New Jersey"}, "INVALID_STATE"),
    ("blank-company", "create_lead", {**NEW_LEAD, "company": "  "}, "COMPANY_REQUIRED"),
    ("merge-self", "merge_leads", {"master_lead_id": "LEAD-30013", "duplicate_lead_id": "LEAD-30013"}, "SAME_LEAD"),
    (
        "merge-converted",
        "merge_leads",
        {"master_lead_id": "LEAD-30020", "duplicate_lead_id": "LEAD-30013"},
        "LEAD_ALREADY_CONVERTED",
    ),
    ("merge-closed", "merge_leads", {"master_lead_id": "LEAD-30013", "duplicate_lead_id": "LEAD-30022"}, "LEAD_CLOSED"),
    ("qualify-blank-fact", "qualify_lead", {"lead_id": "LEAD-30023", **BANT, "timeline": " "}, "TIMELINE_REQUIRED"),
    ("qualify-twice", "qualify_lead", {"lead_id": "LEAD-30019", **BANT}, "ALREADY_QUALIFIED"),
    ("qualify-converted", "qualify_lead", {"lead_id": "LEAD-30020", **BANT}, "LEAD_ALREADY_CONVERTED"),
    ("disqualify-no-reason", "disqualify_lead", {"lead_id": "LEAD-30027", "reason": ""}, "REASON_REQUIRED"),
    ("assign-out-of-territory", "assign_lead", {"lead_id": "LEAD-30017", "rep_id": "REP-101"}, "OUT_OF_TERRITORY"),
    ("assign-same-owner", "assign_lead", {"lead_id": "LEAD-30012", "rep_id": "REP-101"}, "ALREADY_OWNER"),
    ("log-closed", "log_call", {"lead_id": "LEAD-30022", "rep_id": "REP-101", "outcome": "connected"}, "LEAD_CLOSED"),
    ("convert-unqualified", "convert_lead", {"lead_id": "LEAD-30023"}, "LEAD_NOT_QUALIFIED"),
    ("convert-twice", "convert_lead", {"lead_id": "LEAD-30020"}, "LEAD_ALREADY_CONVERTED"),
    ("convert-unknown-account", "convert_lead", {"lead_id": "LEAD-30019", "account_id": "ACC-9"}, "ACCOUNT_NOT_FOUND"),
    ("convert-zero-amount", "convert_lead", {"lead_id": "LEAD-30019", "opportunity_amount": 0}, "INVALID_AMOUNT"),
    *[
        (f"book-{case}", "book_meeting", {"rep_id": "REP-103", "lead_id": "LEAD-30012", **args}, code)
        for case, args, code in BOOKINGS
    ],
    (
        "stage-not-owner",
        "update_opportunity_stage",
        {"rep_id": "REP-103", "opportunity_id": "OPP-4412", "stage": "Negotiation/Review"},
        "NOT_OWNER",
    ),
    (
        "stage-skip",
        "update_opportunity_stage",
        {"rep_id": "REP-103", "opportunity_id": "OPP-4411", "stage": "Closed Won"},
        "STAGE_SKIP",
    ),
    (
        "stage-same",
        "update_opportunity_stage",
        {"rep_id": "REP-103", "opportunity_id": "OPP-4411", "stage": "Needs Analysis"},
        "SAME_STAGE",
    ),
    (
        "won-future-date",
        "update_opportunity_stage",
        {"rep_id": "REP-103", "opportunity_id": "OPP-4410", "stage": "Closed Won"},
        "CLOSE_DATE_IN_FUTURE",
    ),
    (
        "lost-no-reason",
        "update_opportunity_stage",
        {"rep_id": "REP-103", "opportunity_id": "OPP-4413", "stage": "Closed Lost", "close_date": "2026-03-02"},
        "LOSS_REASON_REQUIRED",
    ),
]


@pytest.mark.parametrize(("case", "tool", "args", "code"), REJECTIONS, ids=[r[0] for r in REJECTIONS])
def test_each_rule_rejects_with_its_code_and_changes_nothing(
    case: str, tool: str, args: dict[str, Any], code: str
) -> None:
    env = make()
    before = copy.deepcopy(env.state)
    assert code_of(env, tool, **args) == code
    assert env.state == before


def test_won_needs_an_amount_and_a_close_date() -> None:
    env = make({"opportunities": {"OPP-4410": {"amount": None, "close_date": None}}})
    won = {"rep_id": "REP-103", "opportunity_id": "OPP-4410", "stage": "Closed Won"}
    assert code_of(env, "update_opportunity_stage", **won) == "AMOUNT_REQUIRED"
    assert code_of(env, "update_opportunity_stage", **won, amount=100) == "CLOSE_DATE_REQUIRED"
    ok(env, "update_opportunity_stage", **won, amount=100, close_date="2026-03-01")
    again = {**won, "stage": "Closed Lost", "loss_reason": "x"}
    assert code_of(env, "update_opportunity_stage", **again) == "OPPORTUNITY_CLOSED"


def test_the_same_call_logged_twice_is_refused_but_a_new_outcome_is_not() -> None:
    env = make()
    call = {"lead_id": "LEAD-30012", "rep_id": "REP-101", "outcome": "no_answer"}
    ok(env, "log_call", **call)
    assert code_of(env, "log_call", **call) == "CALL_ALREADY_LOGGED"
    ok(env, "log_call", **{**call, "outcome": "connected"})


def test_an_unassigned_qualified_lead_cannot_be_converted() -> None:
    env = make({"leads": {"LEAD-30019": {"owner_id": None}}})
    assert code_of(env, "convert_lead", lead_id="LEAD-30019") == "LEAD_UNASSIGNED"


def test_policy_only_rules_are_not_enforced_by_the_tools() -> None:
    """These stay conduct rules (policy.md) so that a task can see an agent break them."""
    env = make()
    ok(env, "log_call", lead_id="LEAD-30015", rep_id="REP-101", outcome="connected")  # another rep's lead
    ok(env, "send_email", lead_id="LEAD-30021", rep_id="REP-101", subject="Pricing", body="Attached.")  # opted out
    ok(env, "create_lead", **{**NEW_LEAD, "first_name": "Tom", "last_name": "Becker"})  # a duplicate person
    made_up = {"budget": "?", "authority": "CFO", "need": "?", "timeline": "Q2"}
    ok(env, "qualify_lead", lead_id="LEAD-30023", **made_up)  # facts the prospect never gave
    ok(env, "convert_lead", lead_id="LEAD-30018")  # Acme already has an account: a duplicate one
    assert len(env.state["accounts"]) == 5
