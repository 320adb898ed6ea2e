"""The sales world: one typed state model for the seed, every override and every write; the seed
and every task's initial state keep the world invariants, and each invariant can fail."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_crmbench.core.loader import load_task_file
from pytest_crmbench.env.state import StateError

from .helpers import TASKS, SalesEnvironment, make

TASK_RECORDS = load_task_file(TASKS)


def test_seed_validates_and_keeps_every_world_invariant() -> None:
    env = make()
    assert env.violations() == []
    assert set(SalesEnvironment.invariants) == {
        "lead_status_matches_its_record",
        "probability_follows_stage",
        "no_double_booking",
    }
    statuses = {lead["status"] for lead in env.state["leads"].values()}
    assert statuses == {
        "Open - Not Contacted",
        "Working - Contacted",
        "Qualified",
        "Closed - Converted",
        "Closed - Not Converted",
    }


@pytest.mark.parametrize("record", TASK_RECORDS, ids=[r.task.id for r in TASK_RECORDS])
def test_every_task_starts_in_a_consistent_world(record: Any) -> None:
    assert make(record.task.initial_state).violations() == []


BROKEN_WORLDS: list[tuple[str, dict[str, Any], str]] = [
    ("owner-unknown", {"leads": {"LEAD-30012": {"owner_id": "REP-999"}}}, "leads.LEAD-30012.owner_id"),
    ("contact-orphan", {"contacts": {"CON-7001": {"account_id": "ACC-9"}}}, "contacts.CON-7001.account_id"),
    ("event-lead-unknown", {"events": {"EVT-9001": {"lead_id": "LEAD-1"}}}, "events.EVT-9001.lead_id"),
    ("converted-without-ids", {"leads": {"LEAD-30019": {"status": "Closed - Converted"}}}, "leads.LEAD-30019.status"),
    (
        "converted-dangling",
        {"leads": {"LEAD-30020": {"converted_contact_id": "CON-1"}}},
        "leads.LEAD-30020.converted_contact_id",
    ),
    ("merged-without-master", {"leads": {"LEAD-30014": {"status": "Merged"}}}, "leads.LEAD-30014.merged_into"),
    (
        "disqualified-without-reason",
        {"leads": {"LEAD-30022": {"disqualified_reason": None}}},
        "leads.LEAD-30022.disqualified_reason",
    ),
    ("qualified-without-bant", {"leads": {"LEAD-30023": {"status": "Qualified"}}}, "leads.LEAD-30023.bant"),
    ("probability-off", {"opportunities": {"OPP-4411": {"probability": 50}}}, "opportunities.OPP-4411.probability"),
    (
        "won-without-amount",
        {"opportunities": {"OPP-4410": {"stage": "Closed Won", "probability": 100, "amount": None}}},
        "opportunities.OPP-4410.amount",
    ),
    (
        "lost-without-reason",
        {"opportunities": {"OPP-4413": {"stage": "Closed Lost", "probability": 0}}},
        "opportunities.OPP-4413.loss_reason",
    ),
    ("double-booked", {"events": {"EVT-9002": {"start": "2026-03-04T10:30:00-05:00"}}}, "events.EVT-9002.start"),
]


@pytest.mark.parametrize(("case", "override", "path"), BROKEN_WORLDS, ids=[b[0] for b in BROKEN_WORLDS])
def test_each_invariant_catches_its_broken_world(case: str, override: dict[str, Any], path: str) -> None:
    assert path in [v.path for v in make(override).violations()]


def test_the_state_model_refuses_unknown_fields_and_values() -> None:
    with pytest.raises(StateError, match=r"leads\.LEAD-30012"):
        make({"leads": {"LEAD-30012": {"status": "Hot"}}})
    with pytest.raises(StateError, match=r"opportunities\.OPP-4410"):
        make({"opportunities": {"OPP-4410": {"discount": 5}}})
