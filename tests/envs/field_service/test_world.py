"""The field service world: the seed and every task's initial state pass the state model and the
world invariants, and each invariant can fail."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_crmbench.core.loader import load_task_file
from pytest_crmbench.env.state import StateError

from .helpers import TASKS, FieldServiceEnvironment, make

TASK_RECORDS = load_task_file(TASKS)


def test_seed_keeps_every_world_invariant() -> None:
    env = make()
    assert env.violations() == []
    assert set(FieldServiceEnvironment.invariants) == {
        "appointments_match_their_work_order",
        "scheduled_visits_are_complete",
        "no_double_booking",
        "parts_are_conserved",
    }
    assert env.state["appointments"]["SA-1002"]["status"] == "Scheduled"


@pytest.mark.parametrize("record", TASK_RECORDS, ids=[r.task.id for r in TASK_RECORDS])
def test_every_task_starts_in_a_consistent_world(record: Any) -> None:
    assert make(record.task.initial_state).violations() == []


BROKEN_WORLDS: list[tuple[str, dict[str, Any], str]] = [
    (
        "appointment-of-unknown-work-order",
        {"appointments": {"SA-1001": {"work_order_id": "WO-X"}}},
        "appointments.SA-1001.work_order_id",
    ),
    (
        "appointment-of-another-account",
        {"appointments": {"SA-1001": {"account_id": "ACC-5002"}}},
        "appointments.SA-1001.account_id",
    ),
    (
        "window-not-around-start",
        {"appointments": {"SA-1001": {"arrival_window_end": "2026-03-05T12:00:00-07:00"}}},
        "appointments.SA-1001.arrival_window_start",
    ),
    (
        "double-booked",
        {
            "appointments": {
                "SA-1006": {
                    "technician_id": "SR-103",
                    "sched_start": "2026-03-05T11:00:00-07:00",
                    "sched_end": "2026-03-05T13:00:00-07:00",
                    "arrival_window_start": "2026-03-05T10:00:00-07:00",
                    "arrival_window_end": "2026-03-05T12:00:00-07:00",
                }
            }
        },
        "appointments.SA-1006.sched_start",
    ),
    (
        "part-created-from-nothing",
        {"technicians": {"SR-101": {"van_stock": {"P-IGN-HSI": 2}}}},
        "parts.P-IGN-HSI.total_units",
    ),
    (
        "scheduled-without-technician",
        {"appointments": {"SA-1001": {"technician_id": None}}},
        "appointments.SA-1001.sched_start",
    ),
]


@pytest.mark.parametrize(("case", "override", "path"), BROKEN_WORLDS, ids=[c for c, _, _ in BROKEN_WORLDS])
def test_each_invariant_catches_a_broken_world(case: str, override: dict[str, Any], path: str) -> None:
    assert path in [v.path for v in make(override).violations()]


def test_the_state_model_refuses_unknown_fields_and_statuses() -> None:
    with pytest.raises(StateError):
        make({"appointments": {"SA-1001": {"status": "Postponed"}}})
    with pytest.raises(StateError):
        make({"technicians": {"SR-101": {"hourly_rate": 90}}})
