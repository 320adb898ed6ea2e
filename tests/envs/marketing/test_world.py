"""The marketing world: the seed and every task's initial state keep the invariants; each can fail."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_crmbench.core.loader import load_task_file
from pytest_crmbench.env.state import StateError

from .helpers import TASKS, MarketingEnvironment, make

TASK_RECORDS = load_task_file(TASKS)


def test_seed_validates_and_keeps_every_world_invariant() -> None:
    env = make()
    assert env.violations() == []
    assert set(MarketingEnvironment.invariants) == {
        "sends_carry_their_campaigns_emails",
        "opt_outs_are_recorded",
        "budgets_cover_spend",
        "sends_match_their_status",
    }
    statuses = {c["email_status"] for c in env.state["contacts"].values()}
    assert statuses == {"subscribed", "unsubscribed", "held", "bounced"}


@pytest.mark.parametrize("record", TASK_RECORDS, ids=[r.task.id for r in TASK_RECORDS])
def test_every_task_starts_in_a_consistent_world(record: Any) -> None:
    assert make(record.task.initial_state).violations() == []


BROKEN_WORLDS: list[tuple[str, dict[str, Any], str]] = [
    ("segment-orphan", {"segments": {"SEG-0031": {"contact_ids": ["CT-9"]}}}, "segments.SEG-0031.contact_ids.0"),
    ("email-orphan", {"emails": {"EM-1201": {"campaign_id": "CMP-9"}}}, "emails.EM-1201.campaign_id"),
    ("send-foreign-email", {"sends": {"SEND-88102": {"email_ids": ["EM-1210"]}}}, "sends.SEND-88102.email_ids"),
    ("recipient-orphan", {"sends": {"SEND-88102": {"recipients": ["CT-9"]}}}, "sends.SEND-88102.recipients.0"),
    ("unsubscribed-undated", {"contacts": {"CT-1001": {"unsubscribed_on": None}}}, "contacts.CT-1001.unsubscribed_on"),
    ("source-on-subscribed", {"contacts": {"CT-1004": {"opt_out_source": "phone"}}}, "contacts.CT-1004.opt_out_source"),
    ("overspent", {"campaigns": {"CMP-2026-011": {"spent": "8000.01"}}}, "campaigns.CMP-2026-011.budget"),
    ("ends-early", {"campaigns": {"CMP-2026-014": {"end_date": "2026-03-01"}}}, "campaigns.CMP-2026-014.end_date"),
    ("sent-without-results", {"sends": {"SEND-88102": {"status": "sent"}}}, "sends.SEND-88102.results"),
    ("closed-with-send", {"campaigns": {"CMP-2026-017": {"status": "Aborted"}}}, "sends.SEND-88107.status"),
]


@pytest.mark.parametrize(("case", "override", "path"), BROKEN_WORLDS, ids=[b[0] for b in BROKEN_WORLDS])
def test_each_invariant_catches_its_broken_world(case: str, override: dict[str, Any], path: str) -> None:
    assert path in [v.path for v in make(override).violations()]


def test_the_state_model_refuses_unknown_values() -> None:
    with pytest.raises(StateError, match=r"contacts\.CT-1004"):
        make({"contacts": {"CT-1004": {"email_status": "paused"}}})
