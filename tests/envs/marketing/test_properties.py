"""Properties over random operation sequences (hypothesis): every world invariant keeps holding,
rejections and reads change nothing, the total budget is conserved and never below what was spent,
and no send is ever scheduled to a contact who was unsubscribed or held when it was scheduled."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .helpers import make

CONTACTS = [f"CT-10{n:02d}" for n in range(1, 22)]
CAMPAIGNS = ["CMP-2026-009", "CMP-2026-011", "CMP-2026-014", "CMP-2026-015", "CMP-2026-017", "CMP-2026-018"]
SENDS = ["SEND-88090", "SEND-88102", "SEND-88104", "SEND-88105", "SEND-88107"]
SEGMENTS = ["SEG-0031", "SEG-0039", "SEG-0042", "SEG-0044", "SEG-0045"]
EMAIL_OF = {
    "CMP-2026-011": "EM-1202",
    "CMP-2026-014": "EM-1207",
    "CMP-2026-015": "EM-1210",
    "CMP-2026-017": "EM-1215",
    "CMP-2026-018": "EM-1218",
}


def _call(
    kind: str, contact: str, campaign: str, other: str, send: str, segment: str, amount: int
) -> tuple[str, dict[str, Any]]:
    calls: dict[str, tuple[str, dict[str, Any]]] = {
        "opt_out": ("record_opt_out", {"contact_id": contact, "source": "phone"}),
        "resubscribe": ("resubscribe", {"contact_id": contact, "consent_source": "form", "captured_on": "2026-03-01"}),
        "remove": ("remove_from_segment", {"segment_id": segment, "contact_ids": [contact]}),
        "transfer": ("transfer_budget", {"from_campaign_id": campaign, "to_campaign_id": other, "amount": amount}),
        "status": (
            "set_campaign_status",
            {"campaign_id": campaign, "status": ["In Progress", "Completed", "Aborted"][amount % 3]},
        ),
        "schedule": (
            "schedule_send",
            {
                "campaign_id": campaign,
                "email_ids": [EMAIL_OF.get(campaign, "EM-1201")],
                "segment_id": segment,
                "send_date": "2026-03-05",
                "send_time": f"{amount % 24:02d}:00",
            },
        ),
        "unrecipient": ("remove_recipient", {"send_id": send, "contact_id": contact}),
        "cancel": ("cancel_send", {"send_id": send}),
        "read": ("get_segment", {"segment_id": segment}),
    }
    return calls[kind]


OPERATION = st.tuples(
    st.sampled_from(
        ["opt_out", "resubscribe", "remove", "transfer", "status", "schedule", "unrecipient", "cancel", "read"]
    ),
    st.sampled_from(CONTACTS),
    st.sampled_from(CAMPAIGNS),
    st.sampled_from(CAMPAIGNS),
    st.sampled_from(SENDS),
    st.sampled_from(SEGMENTS),
    st.integers(1, 6000),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(OPERATION, min_size=1, max_size=20))
def test_random_operations_keep_the_world_whole(operations: list[tuple[Any, ...]]) -> None:
    env = make()
    total = sum(c["budget"] for c in env.state["campaigns"].values())
    for operation in operations:
        name, args = _call(*operation)
        before = copy.deepcopy(env.state)
        call = env.call(name, args)
        if call.status != "ok" or name == "get_segment":
            assert env.state == before, (name, args, call.status)
            continue
        assert sum(c["budget"] for c in env.state["campaigns"].values()) == total
        if name == "schedule_send":
            for contact_id in env.state["sends"][call.result["send_id"]]["recipients"]:
                assert before["contacts"][contact_id]["email_status"] not in ("unsubscribed", "held")
        assert env.violations() == [], (name, args)


@given(st.integers(0, 2**16))
def test_resets_are_isolated_from_each_other(seed: int) -> None:
    make(seed=seed).call("record_opt_out", {"contact_id": "CT-1004", "source": "phone"})
    assert make(seed=seed).state == make().state
