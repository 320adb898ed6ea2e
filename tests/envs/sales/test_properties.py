"""Properties over random operation sequences (hypothesis): every world invariant keeps holding,
rejections and reads change nothing, and records are conserved (a conversion adds exactly one
contact and one opportunity; leads are never deleted; events never overlap)."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .helpers import make

LEADS = [f"LEAD-300{n}" for n in range(12, 28)] + ["LEAD-99999"]
REPS = ["REP-101", "REP-102", "REP-103", "REP-104", "REP-999"]
OPPS = [f"OPP-44{n}" for n in range(10, 15)]
STAGES = ["Needs Analysis", "Proposal/Price Quote", "Negotiation/Review", "Closed Won", "Closed Lost"]
BANT = {"budget": "b", "authority": "a", "need": "n", "timeline": "t"}


def _call(kind: str, lead: str, other: str, rep: str, opp: str, stage: str, hour: int) -> tuple[str, dict[str, Any]]:
    calls: dict[str, tuple[str, dict[str, Any]]] = {
        "merge": ("merge_leads", {"master_lead_id": lead, "duplicate_lead_id": other}),
        "qualify": ("qualify_lead", {"lead_id": lead, **BANT}),
        "disqualify": ("disqualify_lead", {"lead_id": lead, "reason": "no fit"}),
        "assign": ("assign_lead", {"lead_id": lead, "rep_id": rep}),
        "call": ("log_call", {"lead_id": lead, "rep_id": rep, "outcome": "connected"}),
        "convert": ("convert_lead", {"lead_id": lead, **({"account_id": "ACC-5002"} if hour % 2 else {})}),
        "book": (
            "book_meeting",
            {"rep_id": rep, "lead_id": lead, "date": "2026-03-04", "start_time": f"{hour:02d}:30"},
        ),
        "stage": (
            "update_opportunity_stage",
            {
                "rep_id": rep,
                "opportunity_id": opp,
                "stage": stage,
                "amount": 1000,
                "close_date": "2026-03-02",
                "loss_reason": "x",
            },
        ),
        "read": ("get_lead", {"lead_id": lead}),
    }
    return calls[kind]


OPERATION = st.tuples(
    st.sampled_from(["merge", "qualify", "disqualify", "assign", "call", "convert", "book", "stage", "read"]),
    st.sampled_from(LEADS),
    st.sampled_from(LEADS),
    st.sampled_from(REPS),
    st.sampled_from(OPPS),
    st.sampled_from(STAGES),
    st.integers(7, 17),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(OPERATION, min_size=1, max_size=20))
def test_random_operations_keep_the_world_whole(operations: list[tuple[Any, ...]]) -> None:
    env = make()
    for operation in operations:
        name, args = _call(*operation)
        before = copy.deepcopy(env.state)
        call = env.call(name, args)
        if call.status != "ok" or name == "get_lead":
            assert env.state == before, (name, args, call.status)
            continue
        assert set(env.state["leads"]) == set(before["leads"])  # leads are never deleted
        if name == "convert_lead":
            assert len(env.state["contacts"]) == len(before["contacts"]) + 1
            assert len(env.state["opportunities"]) == len(before["opportunities"]) + 1
        assert env.violations() == [], (name, args)


@given(st.integers(0, 2**16))
def test_resets_are_isolated_from_each_other(seed: int) -> None:
    first = make(seed=seed)
    first.call("convert_lead", {"lead_id": "LEAD-30019"})
    assert make(seed=seed).state == make().state
