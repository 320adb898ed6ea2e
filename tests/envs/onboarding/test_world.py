"""The onboarding world: the seed and every task's initial state keep the world invariants, and each
invariant can fail (a broken override is reported at the path it breaks)."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_crmbench.core.loader import load_task_file
from pytest_crmbench.env.state import StateError

from .helpers import TASKS, OnboardingEnvironment, make

TASK_RECORDS = load_task_file(TASKS)


def test_seed_keeps_every_world_invariant() -> None:
    env = make()
    assert env.violations() == []
    assert set(OnboardingEnvironment.invariants) == {
        "one_application_per_business",
        "chain_is_consistent",
    }
    steps = {a["step"] for a in env.state["applications"].values()}
    assert steps == {"created", "configured", "verified", "live"}


@pytest.mark.parametrize("record", TASK_RECORDS, ids=[r.task.id for r in TASK_RECORDS])
def test_every_task_starts_in_a_consistent_world(record: Any) -> None:
    assert make(record.task.initial_state).violations() == []


BROKEN_WORLDS: list[tuple[str, dict[str, Any], str]] = [
    (
        "verified-without-kyb",
        {"applications": {"APP-2025-0194": {"step": "verified"}}},
        "applications.APP-2025-0194.kyb_check_id",
    ),
    (
        "configured-without-products",
        {"applications": {"APP-2025-0193": {"step": "configured"}}},
        "applications.APP-2025-0193.products",
    ),
    (
        "live-without-date",
        {"applications": {"APP-2025-0195": {"step": "live", "status": "live"}}},
        "applications.APP-2025-0195.status",
    ),
    (
        "live-without-admin",
        {"applications": {"APP-2025-0200": {"step": "live", "status": "live", "live_on": "2026-03-01"}}},
        "applications.APP-2025-0200.step",
    ),
    (
        "hold-without-check",
        {"applications": {"APP-2025-0196": {"status": "on_hold"}}},
        "applications.APP-2025-0196.status",
    ),
    ("duplicate-ein", {"applications": {"APP-2025-0199": {"tax_id": "82-0001234"}}}, "applications.APP-2025-0199"),
    (
        "ein-not-in-registry",
        {"applications": {"APP-2025-0199": {"tax_id": "99-9999999"}}},
        "applications.APP-2025-0199.tax_id",
    ),
    (
        "user-of-no-application",
        {
            "users": {
                "USR-3999": {
                    "user_id": "USR-3999",
                    "application_id": "APP-2025-0999",
                    "name": "X",
                    "email": "x@x.com",
                    "role": "viewer",
                }
            }
        },
        "users.USR-3999.application_id",
    ),
    (
        "verified-with-rejected-document",
        {"documents": {"DOC-5503": {"status": "rejected"}}},
        "applications.APP-2025-0195.step",
    ),
]


@pytest.mark.parametrize(("case", "override", "path"), BROKEN_WORLDS, ids=[c for c, _, _ in BROKEN_WORLDS])
def test_each_invariant_can_fail(case: str, override: dict[str, Any], path: str) -> None:
    assert path in [v.path for v in make(override).violations()], case


def test_the_state_model_refuses_unknown_fields_and_values() -> None:
    with pytest.raises(StateError):
        make({"applications": {"APP-2025-0193": {"step": "approved"}}})
    with pytest.raises(StateError):
        make({"applications": {"APP-2025-0193": {"nickname": "BL"}}})
