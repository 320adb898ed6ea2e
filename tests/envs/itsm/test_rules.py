"""Every rejection the itsm tools make, with its code, and the state left untouched."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from .helpers import code_of, make, ok

CAB_APPROVED = {
    "changes": {"CHG0030014": {"state": "authorize", "cab_approval": "approved", "approved_by": "EMP-1012"}}
}
WINDOW = {"planned_start": "2026-03-10T22:00:00+00:00", "planned_end": "2026-03-10T23:00:00+00:00"}

REJECTIONS: list[tuple[dict[str, Any], str, dict[str, Any], str]] = [
    ({}, "update_incident", {"incident_id": "INC0010036", "priority": 1}, "PRIORITY_DERIVED"),
    ({}, "update_incident", {"incident_id": "INC0010036", "urgency": 2}, "NO_CHANGE"),
    ({}, "update_incident", {"incident_id": "INC0010034", "urgency": 1}, "INCIDENT_NOT_OPEN"),
    ({}, "hold_incident", {"incident_id": "INC0010039", "hold_reason": "awaiting_caller"}, "COMMENT_REQUIRED"),
    ({}, "hold_incident", {"incident_id": "INC0010035", "hold_reason": "awaiting_vendor"}, "ALREADY_ON_HOLD"),
    ({}, "assign_incident", {"incident_id": "INC0010036", "group_id": "GRP-VPN"}, "NOT_ASSIGNMENT_GROUP"),
    (
        {},
        "assign_incident",
        {"incident_id": "INC0010036", "group_id": "GRP-APP", "assigned_to": "EMP-1009"},
        "NOT_GROUP_MEMBER",
    ),
    (
        {},
        "assign_incident",
        {"incident_id": "INC0010031", "group_id": "GRP-APP", "assigned_to": "EMP-1016"},
        "ALREADY_ASSIGNED",
    ),
    ({}, "close_incident", {"incident_id": "INC0010034", "acting_user_id": "EMP-1003"}, "ROLE_REQUIRED"),
    ({}, "close_incident", {"incident_id": "INC0010036", "acting_user_id": "EMP-1005"}, "NOT_RESOLVED"),
    ({}, "cancel_duplicate", {"incident_id": "INC0010038", "parent_id": "INC0010038"}, "SAME_INCIDENT"),
    ({}, "link_problem", {"incident_id": "INC0010039", "problem_id": "PRB0040005"}, "PROBLEM_CLOSED"),
    ({}, "link_problem", {"incident_id": "INC0010032", "problem_id": "PRB0040007"}, "ALREADY_LINKED"),
    (
        {},
        "submit_request",
        {"requested_by": "EMP-1002", "requested_for": "EMP-1002", "item_id": "CAT-ACC-VPN", "justification": "x"},
        "ALREADY_MEMBER",
    ),
    (
        {},
        "submit_request",
        {
            "requested_by": "EMP-1012",
            "requested_for": "EMP-1012",
            "item_id": "CAT-LAPTOP14",
            "justification": "x",
            "quantity": 8,
        },
        "OUT_OF_STOCK",
    ),
    (
        {},
        "submit_request",
        {
            "requested_by": "EMP-1001",
            "requested_for": "EMP-1001",
            "item_id": "CAT-VISIO",
            "justification": "x",
            "quantity": 2,
        },
        "QUANTITY_NOT_ALLOWED",
    ),
    (
        {},
        "submit_request",
        {"requested_by": "EMP-1014", "requested_for": "EMP-1014", "item_id": "CAT-VISIO", "justification": "x"},
        "NO_MANAGER",
    ),
    (
        {},
        "decide_approval",
        {"ritm_id": "RITM0010024", "approver_id": "EMP-1010", "decision": "approved"},
        "SELF_APPROVAL",
    ),
    (
        {},
        "decide_approval",
        {"ritm_id": "RITM0010021", "approver_id": "EMP-1011", "decision": "approved"},
        "NOT_AN_APPROVER",
    ),
    ({}, "fulfill_request_item", {"ritm_id": "RITM0010021"}, "NOT_APPROVED"),
    (
        {"request_items": {"RITM0010023": {"state": "fulfilled"}}},
        "cancel_request_item",
        {"ritm_id": "RITM0010023"},
        "NOT_CANCELABLE",
    ),
    (
        {},
        "create_change",
        {"requested_by": "EMP-1006", "change_type": "standard", "short_description": "x", "ci_id": "CI-4006"},
        "TEMPLATE_REQUIRED",
    ),
    (
        {},
        "create_change",
        {
            "requested_by": "EMP-1006",
            "change_type": "standard",
            "short_description": "x",
            "ci_id": "CI-4006",
            "template_id": "TPL-NOPE",
        },
        "TEMPLATE_NOT_FOUND",
    ),
    (
        {},
        "create_change",
        {
            "requested_by": "EMP-1006",
            "change_type": "standard",
            "short_description": "x",
            "ci_id": "CI-3001",
            "template_id": "TPL-PATCH",
        },
        "TEMPLATE_NOT_APPLICABLE",
    ),
    (
        {},
        "create_change",
        {
            "requested_by": "EMP-1006",
            "change_type": "normal",
            "short_description": "x",
            "ci_id": "CI-3001",
            "template_id": "TPL-PATCH",
        },
        "TEMPLATE_NOT_ALLOWED",
    ),
    ({}, "request_cab_approval", {"change_id": "CHG0030013"}, "CAB_NOT_NEEDED"),
    ({}, "request_cab_approval", {"change_id": "CHG0030011"}, "INVALID_STATE"),
    ({}, "approve_change", {"change_id": "CHG0030011", "approver_id": "EMP-1004"}, "SELF_APPROVAL"),
    ({}, "approve_change", {"change_id": "CHG0030011", "approver_id": "EMP-1006"}, "NOT_CAB_MEMBER"),
    ({}, "approve_change", {"change_id": "CHG0030014", "approver_id": "EMP-1012"}, "NOT_AWAITING_APPROVAL"),
    ({}, "schedule_change", {"change_id": "CHG0030014", **WINDOW}, "CAB_APPROVAL_REQUIRED"),
    (
        CAB_APPROVED,
        "schedule_change",
        {
            "change_id": "CHG0030014",
            "planned_start": "2026-03-01T22:00:00+00:00",
            "planned_end": "2026-03-01T23:00:00+00:00",
        },
        "INVALID_WINDOW",
    ),
    (
        CAB_APPROVED,
        "schedule_change",
        {
            "change_id": "CHG0030014",
            "planned_start": "2026-03-13T22:00:00+00:00",
            "planned_end": "2026-03-13T23:00:00+00:00",
        },
        "BLACKOUT_WINDOW",
    ),
    (
        {},
        "schedule_change",
        {
            "change_id": "CHG0030012",
            "planned_start": "2026-03-07T22:00:00+00:00",
            "planned_end": "2026-03-08T02:00:00+00:00",
        },
        "ALREADY_SCHEDULED",
    ),
    (
        {"changes": {"CHG0030011": {"cab_approval": "approved", "ci_id": "CI-4001"}}},
        "schedule_change",
        {
            "change_id": "CHG0030011",
            "planned_start": "2026-03-08T01:00:00+00:00",
            "planned_end": "2026-03-08T03:00:00+00:00",
        },
        "CI_CONFLICT",
    ),
    ({}, "delete_ci", {"ci_id": "CI-4004", "acting_user_id": "EMP-1004"}, "ROLE_REQUIRED"),
    ({}, "delete_ci", {"ci_id": "CI-4005", "acting_user_id": "EMP-1006"}, "CI_HAS_DEPENDENTS"),
    ({}, "delete_ci", {"ci_id": "CI-5001", "acting_user_id": "EMP-1006"}, "CI_HAS_DEPENDENTS"),
    ({}, "deactivate_user", {"user_id": "EMP-1015", "acting_user_id": "EMP-1011"}, "ROLE_REQUIRED"),
    ({}, "deactivate_user", {"user_id": "EMP-1015", "acting_user_id": "EMP-1007"}, "USER_HAS_ASSETS"),
    ({}, "unassign_asset", {"ci_id": "CI-4001"}, "NOT_ASSIGNED"),
    ({}, "get_incident", {"incident_id": "INC0099999"}, "INCIDENT_NOT_FOUND"),
]


@pytest.mark.parametrize(
    ("override", "tool", "args", "code"), REJECTIONS, ids=[f"{i:02d}-{r[1]}-{r[3]}" for i, r in enumerate(REJECTIONS)]
)
def test_each_rule_rejects_with_its_code_and_changes_nothing(
    override: dict[str, Any], tool: str, args: dict[str, Any], code: str
) -> None:
    env = make(override)
    before = copy.deepcopy(env.state)
    assert code_of(env, tool, **args) == code
    assert env.state == before


def test_check_schedule_answers_what_schedule_change_would_do() -> None:
    env = make(CAB_APPROVED)
    blocked = ok(
        env,
        "check_schedule",
        change_id="CHG0030014",
        planned_start="2026-03-28T22:00:00+00:00",
        planned_end="2026-03-29T02:00:00+00:00",
    )
    assert blocked["valid"] is False and blocked["error_code"] == "BLACKOUT_WINDOW"
    assert ok(env, "check_schedule", change_id="CHG0030014", **WINDOW)["valid"] is True
    assert env.state["changes"]["CHG0030014"]["state"] == "authorize"


def test_verification_never_reveals_the_name_on_file() -> None:
    env = make()
    assert ok(env, "verify_caller", user_id="EMP-1002", full_name="Mark Bellamy") == {
        "user_id": "EMP-1002",
        "verified": False,
    }
    assert ok(env, "verify_caller", user_id="EMP-1002", full_name="  marcus   BELL ")["verified"] is True
