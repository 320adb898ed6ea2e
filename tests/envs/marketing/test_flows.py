"""The happy paths: what each write does to the world."""

from __future__ import annotations

from decimal import Decimal

from .helpers import make, ok


def test_scheduling_fixes_the_recipients_less_unsubscribed_and_held() -> None:
    env = make()
    result = ok(
        env,
        "schedule_send",
        campaign_id="CMP-2026-011",
        email_ids=["EM-1202"],
        segment_id="SEG-0039",
        send_date="2026-03-04",
        send_time="15:00",
    )
    assert (result["scheduled_at"], result["recipient_count"]) == ("2026-03-04T15:00:00+00:00", 3)
    send = env.state["sends"][result["send_id"]]
    assert send["recipients"] == ["CT-1003", "CT-1008", "CT-1017"]  # CT-1016 is unsubscribed
    ok(env, "remove_from_segment", segment_id="SEG-0039", contact_ids=["CT-1003"])
    assert send["recipients"] == ["CT-1003", "CT-1008", "CT-1017"]  # fixed at scheduling
    ok(env, "remove_recipient", send_id=result["send_id"], contact_id="CT-1003")
    assert send["recipients"] == ["CT-1008", "CT-1017"]


def test_opt_out_and_a_newer_consent_resubscribe() -> None:
    env = make()
    ok(env, "record_opt_out", contact_id="CT-1009", source="web_form")
    contact = env.state["contacts"]["CT-1009"]
    assert (contact["email_status"], contact["unsubscribed_on"], contact["opt_out_source"]) == (
        "unsubscribed",
        "2026-03-02",
        "web_form",
    )
    assert ok(env, "list_sends", contact_id="CT-1007", status="scheduled")["sends"][0]["send_id"] == "SEND-88102"
    ok(
        env,
        "resubscribe",
        contact_id="CT-1015",
        consent_source="Signup form",
        captured_on="2026-02-27",
        double_opt_in=True,
    )
    carlos = env.state["contacts"]["CT-1015"]
    assert (carlos["email_status"], carlos["consent"]["basis"], carlos["unsubscribed_on"]) == (
        "subscribed",
        "double_opt_in",
        None,
    )


def test_budget_moves_conserve_the_total_and_campaigns_move_through_their_statuses() -> None:
    env = make()
    total = sum(c["budget"] for c in env.state["campaigns"].values())
    ok(env, "transfer_budget", from_campaign_id="CMP-2026-011", to_campaign_id="CMP-2026-014", amount="3100.00")
    assert env.state["campaigns"]["CMP-2026-011"]["budget"] == Decimal("4900.00")
    assert sum(c["budget"] for c in env.state["campaigns"].values()) == total
    ok(env, "set_campaign_status", campaign_id="CMP-2026-014", status="In Progress")
    ok(env, "cancel_send", send_id="SEND-88107")
    ok(env, "set_campaign_status", campaign_id="CMP-2026-017", status="Aborted")
    created = ok(
        env,
        "create_campaign",
        name="Q2 Dispatch Masterclass",
        budget=12000,
        start_date="2026-04-13",
        end_date="2026-05-22",
        channel="webinar",
    )
    assert env.state["campaigns"][created["campaign_id"]]["status"] == "Planned"


def test_find_contacts_lists_both_namesakes() -> None:
    found = ok(make(), "find_contacts", query="mark evans")["contacts"]
    assert [c["email"] for c in found] == ["mark.evans@brightpath.co.uk", "m.evans@evansplumbing.com"]
