"""Determinism: generated ids and timestamps are reproducible from the seed."""

from __future__ import annotations

from pytest_crmbench.env.environment import ToolEnvironment

from .helpers import make, ok


def _script(env: ToolEnvironment) -> list[str]:
    converted = ok(env, "convert_lead", lead_id="LEAD-30019")
    ids = [converted["account_id"], converted["contact_id"], converted["opportunity_id"]]
    ids.append(
        ok(env, "book_meeting", rep_id="REP-103", lead_id="LEAD-30012", date="2026-03-04", start_time="11:00")[
            "event_id"
        ]
    )
    ids.append(ok(env, "log_call", lead_id="LEAD-30012", rep_id="REP-101", outcome="connected")["activity_id"])
    lead = {"first_name": "Ana", "last_name": "Lopez", "company": "Lopez HVAC", "email": "ana@lopezhvac.com"}
    ids.append(ok(env, "create_lead", rep_id="REP-101", **lead, state="NJ", source="Web")["lead_id"])
    return ids


def test_generated_ids_and_stamps_are_reproducible_from_the_seed() -> None:
    one, same, other = _script(make(seed=5)), _script(make(seed=5)), _script(make(seed=6))
    assert one == same
    assert one != other
    assert [i.split("-")[0] for i in one] == ["ACC", "CON", "OPP", "EVT", "ACT", "LEAD"]
    first, second = make(seed=5), make(seed=5)
    _script(first), _script(second)
    assert first.state == second.state
