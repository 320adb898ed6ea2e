"""The happy paths: what each write does to the world."""

from __future__ import annotations

from decimal import Decimal

from .helpers import make, ok


def test_merge_keeps_the_master_and_takes_missing_values_from_the_duplicate() -> None:
    env = make()
    ok(env, "merge_leads", master_lead_id="LEAD-30013", duplicate_lead_id="LEAD-30014")
    master, duplicate = env.state["leads"]["LEAD-30013"], env.state["leads"]["LEAD-30014"]
    assert master["phone"] == "+1 201-555-0148"
    assert master["title"] == "Practice Manager"  # its own value wins
    assert (duplicate["status"], duplicate["merged_into"]) == ("Merged", "LEAD-30013")


def test_an_opt_out_survives_a_merge() -> None:
    env = make({"leads": {"LEAD-30014": {"email_opt_out": True}}})
    ok(env, "merge_leads", master_lead_id="LEAD-30013", duplicate_lead_id="LEAD-30014")
    assert env.state["leads"]["LEAD-30013"]["email_opt_out"] is True


def test_convert_into_an_existing_account_creates_a_contact_and_an_opportunity_only() -> None:
    env = make()
    result = ok(env, "convert_lead", lead_id="LEAD-30018", account_id="ACC-5003", opportunity_amount=55000)
    assert result["account_id"] == "ACC-5003"
    assert len(env.state["accounts"]) == 4
    opportunity = env.state["opportunities"][result["opportunity_id"]]
    assert (opportunity["stage"], opportunity["probability"], opportunity["amount"]) == (
        "Qualification",
        10,
        Decimal("55000.00"),
    )
    assert opportunity["owner_id"] == "REP-101"
    assert env.state["contacts"][result["contact_id"]]["email"] == "dana.whitfield@acmerobotics.com"
    lead = env.state["leads"]["LEAD-30018"]
    assert (lead["status"], lead["converted_opportunity_id"]) == ("Closed - Converted", result["opportunity_id"])


def test_convert_without_an_account_creates_one_named_after_the_company() -> None:
    env = make()
    result = ok(env, "convert_lead", lead_id="LEAD-30019")
    assert env.state["accounts"][result["account_id"]]["name"] == "Pinecrest Foods"
    assert env.state["opportunities"][result["opportunity_id"]]["amount"] is None


def test_booking_puts_the_meeting_on_the_calendar_and_marks_first_contact() -> None:
    env = make()
    result = ok(env, "book_meeting", rep_id="REP-103", lead_id="LEAD-30013", date="2026-03-04", start_time="11:00")
    assert result["start"] == "2026-03-04T11:00:00-05:00"
    assert env.state["leads"]["LEAD-30013"]["status"] == "Working - Contacted"
    day = ok(env, "get_calendar", rep_id="REP-103", date="2026-03-04")
    assert [e["start"][11:16] for e in day["events"]] == ["10:00", "11:00", "14:00", "16:00"]
    # back to back is fine: the 11:30 slot starts as the new meeting ends
    ok(env, "book_meeting", rep_id="REP-103", lead_id="LEAD-30012", date="2026-03-04", start_time="11:30")


def test_stage_probability_follows_the_stage_and_a_win_records_amount_and_date() -> None:
    env = make()
    moved = ok(
        env, "update_opportunity_stage", rep_id="REP-103", opportunity_id="OPP-4414", stage="Proposal/Price Quote"
    )
    assert moved["probability"] == 75
    won = {"rep_id": "REP-103", "opportunity_id": "OPP-4410", "stage": "Closed Won"}
    ok(env, "update_opportunity_stage", **won, amount=46500, close_date="2026-03-02")
    opportunity = env.state["opportunities"]["OPP-4410"]
    assert (opportunity["probability"], opportunity["amount"], opportunity["close_date"]) == (
        100,
        Decimal("46500.00"),
        "2026-03-02",
    )


def test_search_finds_duplicates_by_company_name_and_email() -> None:
    env = make()
    found = {lead["lead_id"] for lead in ok(env, "search_leads", query="brightline")["leads"]}
    assert found == {"LEAD-30013", "LEAD-30014", "LEAD-30024"}
    by_email = ok(env, "search_leads", query="sara.kim@brightlinedental.com")["leads"]
    assert {lead["lead_id"] for lead in by_email} == {"LEAD-30013", "LEAD-30014"}
    accounts = env.call("search_accounts", {"name": "acme"}).result["accounts"]
    assert [a["account_id"] for a in accounts] == ["ACC-5003"]
    assert [r["rep_id"] for r in ok(env, "list_reps", state="tx")["reps"]] == ["REP-102", "REP-104"]
