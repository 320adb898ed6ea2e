"""The itsm happy paths end to end: numbering, derived priority, approvals, offboarding, scheduling."""

from __future__ import annotations

from decimal import Decimal

from .helpers import make, ok


def test_an_incident_gets_the_next_number_its_priority_and_the_cis_group() -> None:
    env = make()
    created = ok(
        env,
        "create_incident",
        caller_id="EMP-1011",
        short_description="VPN drops",
        impact=3,
        urgency=2,
        ci_id="CI-2003",
    )
    assert created["incident_id"] == "INC0010041" and created["priority"] == 4
    assert created["assignment_group"] == "GRP-NET" and env.state["number_counters"]["INC"] == 10041
    assert ok(env, "update_incident", incident_id="INC0010041", impact=1, urgency=1)["priority"] == 1
    ok(env, "link_problem", incident_id="INC0010041", problem_id="PRB0040007")
    assert "INC0010041" in ok(env, "get_problem", problem_id="PRB0040007")["incidents"]
    ok(
        env,
        "resolve_incident",
        incident_id="INC0010041",
        close_code="solved_workaround",
        close_notes="Legacy TLS profile",
    )
    ok(env, "close_incident", incident_id="INC0010041", acting_user_id="EMP-1005")
    assert env.state["incidents"]["INC0010041"]["state"] == "closed" and env.violations() == []


def test_privileged_access_needs_both_approvals_then_grants_membership() -> None:
    env = make()
    ritm = ok(
        env,
        "submit_request",
        requested_by="EMP-1009",
        requested_for="EMP-1009",
        item_id="CAT-ACC-SAPFIN",
        justification="ledger",
    )
    assert [a["approver_id"] for a in ritm["approvals"]] == ["EMP-1017", "EMP-1018"]
    assert (
        ok(env, "decide_approval", ritm_id=ritm["ritm_id"], approver_id="EMP-1017", decision="approved")["state"]
        == "pending_approval"
    )
    assert (
        ok(env, "decide_approval", ritm_id=ritm["ritm_id"], approver_id="EMP-1018", decision="approved")["state"]
        == "approved"
    )
    ok(env, "fulfill_request_item", ritm_id=ritm["ritm_id"])
    assert (
        "EMP-1009" in env.state["groups"]["GRP-FIN-SAP"]["members"]
        and "GRP-FIN-SAP" in env.state["users"]["EMP-1009"]["groups"]
    )
    assert env.violations() == []


def test_hardware_totals_and_stock() -> None:
    env = make()
    ritm = ok(
        env,
        "submit_request",
        requested_by="EMP-1002",
        requested_for="EMP-1002",
        item_id="CAT-MONITOR27",
        justification="x",
        quantity=2,
    )
    assert ritm["total"] == Decimal("579.00") and ritm["state"] == "approved"
    ok(env, "fulfill_request_item", ritm_id=ritm["ritm_id"])
    assert env.state["catalog"]["CAT-MONITOR27"]["stock"] == 10


def test_offboarding_takes_assets_back_then_deactivates() -> None:
    env = make()
    ok(env, "unassign_asset", ci_id="CI-5003")
    ok(env, "unassign_asset", ci_id="CI-5004")
    ok(env, "deactivate_user", user_id="EMP-1015", acting_user_id="EMP-1007")
    user = env.state["users"]["EMP-1015"]
    assert user["active"] is False and user["groups"] == []
    assert "EMP-1015" not in env.state["groups"]["GRP-SFDC"]["members"] and env.violations() == []
    assert ok(env, "verify_caller", user_id="EMP-1015", full_name="Kevin Doyle")["verified"] is False


def test_a_normal_change_goes_through_the_cab_to_a_schedule_and_a_retired_ci_is_deleted() -> None:
    env = make()
    change = ok(
        env, "create_change", requested_by="EMP-1006", change_type="normal", short_description="PSU", ci_id="CI-4006"
    )
    assert change == {
        "change_id": "CHG0030016",
        "change_type": "normal",
        "risk": "moderate",
        "state": "new",
        "cab_approval": "not_requested",
    }
    ok(env, "request_cab_approval", change_id="CHG0030016")
    ok(env, "approve_change", change_id="CHG0030016", approver_id="EMP-1012")
    ok(
        env,
        "schedule_change",
        change_id="CHG0030016",
        planned_start="2026-03-10T22:00:00+00:00",
        planned_end="2026-03-10T23:00:00+00:00",
    )
    assert env.state["changes"]["CHG0030016"]["state"] == "scheduled"
    assert ok(env, "delete_ci", ci_id="CI-4004", acting_user_id="EMP-1006") == {"ci_id": "CI-4004", "deleted": True}
    assert "CI-4004" not in env.state["cis"] and env.violations() == []
