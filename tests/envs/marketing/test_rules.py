"""Every rule the marketing tools enforce: each rejection with its code, and an untouched state."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from .helpers import code_of, make, ok

ADDRESS = "NorthPeak Software, 200 Clarendon St, Boston, MA 02116, USA"
EMAIL = {"campaign_id": "CMP-2026-014", "name": "New", "subject": "Hello", "kind": "commercial"}
SEND = {
    "campaign_id": "CMP-2026-014",
    "email_ids": ["EM-1207"],
    "segment_id": "SEG-0045",
    "send_date": "2026-03-04",
    "send_time": "15:00",
}
CAMPAIGN = {"name": "New", "budget": 100, "start_date": "2026-03-10", "end_date": "2026-03-20"}

REJECTIONS: list[tuple[str, str, dict[str, Any], str]] = [
    ("unknown-contact", "get_contact", {"contact_id": "CT-9"}, "CONTACT_NOT_FOUND"),
    ("opt-out-twice", "record_opt_out", {"contact_id": "CT-1001", "source": "phone"}, "ALREADY_UNSUBSCRIBED"),
    (
        "resubscribe-subscribed",
        "resubscribe",
        {"contact_id": "CT-1004", "consent_source": "form", "captured_on": "2026-03-01"},
        "NOT_UNSUBSCRIBED",
    ),
    (
        "resubscribe-old-consent",
        "resubscribe",
        {"contact_id": "CT-1015", "consent_source": "form", "captured_on": "2025-11-20"},
        "CONSENT_OLDER_THAN_OPT_OUT",
    ),
    (
        "resubscribe-future",
        "resubscribe",
        {"contact_id": "CT-1015", "consent_source": "form", "captured_on": "2026-03-03"},
        "CONSENT_DATE_IN_FUTURE",
    ),
    (
        "resubscribe-no-source",
        "resubscribe",
        {"contact_id": "CT-1015", "consent_source": " ", "captured_on": "2026-03-01"},
        "CONSENT_SOURCE_REQUIRED",
    ),
    ("segment-empty", "create_segment", {"name": "X", "contact_ids": []}, "EMPTY_SEGMENT"),
    ("segment-unknown-contact", "create_segment", {"name": "X", "contact_ids": ["CT-9"]}, "CONTACT_NOT_FOUND"),
    (
        "segment-duplicate-name",
        "create_segment",
        {"name": "dach webinar invitees", "contact_ids": ["CT-1011"]},
        "DUPLICATE_SEGMENT_NAME",
    ),
    (
        "remove-non-member",
        "remove_from_segment",
        {"segment_id": "SEG-0044", "contact_ids": ["CT-1004"]},
        "NOT_A_MEMBER",
    ),
    ("campaign-past-start", "create_campaign", {**CAMPAIGN, "start_date": "2026-03-01"}, "START_IN_PAST"),
    ("campaign-end-before-start", "create_campaign", {**CAMPAIGN, "end_date": "2026-03-09"}, "END_BEFORE_START"),
    ("campaign-duplicate-name", "create_campaign", {**CAMPAIGN, "name": "Winter promo"}, "DUPLICATE_CAMPAIGN_NAME"),
    ("campaign-zero-budget", "create_campaign", {**CAMPAIGN, "budget": 0}, "INVALID_AMOUNT"),
    (
        "status-closed",
        "set_campaign_status",
        {"campaign_id": "CMP-2026-009", "status": "In Progress"},
        "CAMPAIGN_CLOSED",
    ),
    (
        "status-skip",
        "set_campaign_status",
        {"campaign_id": "CMP-2026-014", "status": "Completed"},
        "INVALID_TRANSITION",
    ),
    (
        "status-pending-sends",
        "set_campaign_status",
        {"campaign_id": "CMP-2026-017", "status": "Aborted"},
        "SCHEDULED_SENDS_PENDING",
    ),
    (
        "budget-too-much",
        "transfer_budget",
        {"from_campaign_id": "CMP-2026-011", "to_campaign_id": "CMP-2026-014", "amount": "3100.01"},
        "INSUFFICIENT_BUDGET",
    ),
    (
        "budget-same",
        "transfer_budget",
        {"from_campaign_id": "CMP-2026-014", "to_campaign_id": "CMP-2026-014", "amount": 1},
        "SAME_CAMPAIGN",
    ),
    (
        "budget-to-closed",
        "transfer_budget",
        {"from_campaign_id": "CMP-2026-011", "to_campaign_id": "CMP-2026-009", "amount": 1},
        "CAMPAIGN_CLOSED",
    ),
    (
        "email-no-unsubscribe",
        "create_email",
        {**EMAIL, "has_unsubscribe_link": False, "postal_address": ADDRESS},
        "UNSUBSCRIBE_REQUIRED",
    ),
    ("email-no-address", "create_email", {**EMAIL, "has_unsubscribe_link": True}, "POSTAL_ADDRESS_REQUIRED"),
    (
        "email-duplicate-name",
        "create_email",
        {**EMAIL, "name": "Webinar reminder", "has_unsubscribe_link": True, "postal_address": ADDRESS},
        "DUPLICATE_EMAIL_NAME",
    ),
    (
        "email-closed-campaign",
        "create_email",
        {**EMAIL, "campaign_id": "CMP-2026-009", "has_unsubscribe_link": True, "postal_address": ADDRESS},
        "CAMPAIGN_CLOSED",
    ),
    ("send-past", "schedule_send", {**SEND, "send_date": "2026-03-02", "send_time": "08:00"}, "SEND_TIME_IN_PAST"),
    ("send-bad-time", "schedule_send", {**SEND, "send_time": "3pm"}, "INVALID_TIME"),
    ("send-foreign-email", "schedule_send", {**SEND, "email_ids": ["EM-1210"]}, "EMAIL_NOT_IN_CAMPAIGN"),
    ("send-three-emails", "schedule_send", {**SEND, "email_ids": ["EM-1207", "EM-1208", "EM-1207"]}, "INVALID_EMAILS"),
    ("send-closed-campaign", "schedule_send", {**SEND, "campaign_id": "CMP-2026-009"}, "CAMPAIGN_CLOSED"),
    (
        "send-duplicate",
        "schedule_send",
        {**SEND, "email_ids": ["EM-1207"], "segment_id": "SEG-0031", "send_date": "2026-03-03"},
        "DUPLICATE_SEND",
    ),
    (
        "remove-recipient-sent",
        "remove_recipient",
        {"send_id": "SEND-88090", "contact_id": "CT-1004"},
        "SEND_NOT_SCHEDULED",
    ),
    ("remove-non-recipient", "remove_recipient", {"send_id": "SEND-88102", "contact_id": "CT-1015"}, "NOT_A_RECIPIENT"),
    ("cancel-sent", "cancel_send", {"send_id": "SEND-88090"}, "SEND_NOT_SCHEDULED"),
]


@pytest.mark.parametrize(("case", "tool", "args", "code"), REJECTIONS, ids=[r[0] for r in REJECTIONS])
def test_each_rule_rejects_with_its_code_and_changes_nothing(
    case: str, tool: str, args: dict[str, Any], code: str
) -> None:
    env = make()
    before = copy.deepcopy(env.state)
    assert code_of(env, tool, **args) == code
    assert env.state == before


def test_a_segment_of_only_suppressed_contacts_has_no_recipients() -> None:
    env = make()
    segment = ok(env, "create_segment", name="Gone", contact_ids=["CT-1001", "CT-1010"])["segment_id"]
    assert code_of(env, "schedule_send", **{**SEND, "segment_id": segment}) == "NO_RECIPIENTS"


def test_policy_only_rules_are_not_enforced_by_the_tools() -> None:
    """These stay conduct rules (policy.md): the tasks check them through state and replies."""
    env = make()
    # EU contacts without valid consent are scheduled like anyone subscribed
    result = ok(
        env,
        "schedule_send",
        campaign_id="CMP-2026-018",
        email_ids=["EM-1218"],
        segment_id="SEG-0042",
        send_date="2026-03-05",
        send_time="09:00",
    )
    assert result["recipient_count"] == 8
    # an opt-out does not take the contact off sends already scheduled
    ok(env, "record_opt_out", contact_id="CT-1007", source="email_reply")
    assert "CT-1007" in env.state["sends"]["SEND-88102"]["recipients"]
    # a promotional email may be labelled transactional
    ok(
        env,
        "create_email",
        campaign_id="CMP-2026-016",
        name="Ship",
        subject="Shipped",
        kind="transactional",
        has_unsubscribe_link=False,
    )
    # a re-subscription takes whatever consent source it is given
    ok(env, "resubscribe", contact_id="CT-1016", consent_source="they bought again", captured_on="2026-03-01")
