"""The itsm world: the seed and every task's initial state pass the model and the invariants, and
each invariant can fail."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_crmbench.core.loader import load_task_file
from pytest_crmbench.env.state import StateError

from .helpers import TASKS, ItsmEnvironment, make

TASK_RECORDS = load_task_file(TASKS)


def test_seed_keeps_every_world_invariant() -> None:
    env = make()
    assert env.violations() == []
    assert set(ItsmEnvironment.invariants) == {
        "priority_is_derived",
        "closed_incidents_have_codes",
        "numbers_come_from_counters",
        "memberships_agree",
        "request_items_add_up",
        "scheduled_changes_are_authorized",
    }
    assert env.state["incidents"]["INC0010040"]["priority"] == 2
    assert env.state["number_counters"]["INC"] == 10040


@pytest.mark.parametrize("record", TASK_RECORDS, ids=lambda r: r.task.id)
def test_every_task_starts_in_a_consistent_world(record: Any) -> None:
    env = ItsmEnvironment(record.task.initial_state, seed=0)
    assert env.violations() == [], record.task.id


BROKEN = [
    ({"incidents": {"INC0010036": {"priority": 1}}}, "priority"),
    ({"incidents": {"INC0010039": {"state": "resolved"}}}, "close_code"),
    ({"incidents": {"INC0010039": {"state": "on_hold"}}}, "hold_reason"),
    ({"users": {"EMP-1001": {"groups": ["GRP-VPN", "GRP-NET"]}}}, "groups"),
    ({"incidents": {"INC0010039": {"problem_id": "PRB0049999"}}}, "problem_id"),
    ({"request_items": {"RITM0010023": {"total": "1.00"}}}, "total"),
    ({"request_items": {"RITM0010023": {"state": "pending_approval"}}}, "state"),
    ({"changes": {"CHG0030014": {"state": "scheduled"}}}, "planned_start"),
    ({"number_counters": {"INC": 10039}}, "INC0010040"),
]


@pytest.mark.parametrize(("override", "field"), BROKEN)
def test_each_invariant_catches_a_broken_world(override: dict[str, Any], field: str) -> None:
    violations = make(override).violations()
    assert any(field in v.path for v in violations), violations


def test_the_model_refuses_unknown_fields_and_bad_values() -> None:
    with pytest.raises(StateError):
        make({"incidents": {"INC0010036": {"impact": 7}}})
    with pytest.raises(StateError):
        make({"cis": {"CI-2001": {"colour": "red"}}})
