"""Hypothesis: random operation sequences keep every world invariant and the stock conserved; reads
change nothing; the dry run agrees with its write."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from .helpers import make

USERS = ["EMP-1001", "EMP-1002", "EMP-1007", "EMP-1010", "EMP-1012", "EMP-1015", "EMP-1017", "EMP-1018"]
INCIDENTS = ["INC0010031", "INC0010033", "INC0010035", "INC0010036", "INC0010039", "INC0010041"]
RITMS = ["RITM0010021", "RITM0010022", "RITM0010023", "RITM0010024", "RITM0010025"]
CHANGES = ["CHG0030011", "CHG0030013", "CHG0030014", "CHG0030016"]
CIS = ["CI-4004", "CI-4005", "CI-5003", "CI-5004", "CI-4006"]
HOURS = st.integers(min_value=0, max_value=24 * 40)


def window(start: int, length: int) -> dict[str, str]:
    from datetime import datetime, timedelta

    begin = datetime.fromisoformat("2026-03-02T10:00:00+00:00") + timedelta(hours=start)
    return {"planned_start": begin.isoformat(), "planned_end": (begin + timedelta(hours=length)).isoformat()}


OPERATIONS = st.one_of(
    st.builds(
        lambda u, i, g: ("create_incident", {"caller_id": u, "short_description": "x", "impact": i, "urgency": g}),
        st.sampled_from(USERS),
        st.sampled_from([1, 2, 3]),
        st.sampled_from([1, 2, 3]),
    ),
    st.builds(
        lambda n, g: ("update_incident", {"incident_id": n, "urgency": g}),
        st.sampled_from(INCIDENTS),
        st.sampled_from([1, 2, 3]),
    ),
    st.builds(
        lambda n, r: ("hold_incident", {"incident_id": n, "hold_reason": r, "comment": "c"}),
        st.sampled_from(INCIDENTS),
        st.sampled_from(["awaiting_caller", "awaiting_vendor"]),
    ),
    st.builds(
        lambda n: ("resolve_incident", {"incident_id": n, "close_code": "solved_permanently", "close_notes": "n"}),
        st.sampled_from(INCIDENTS),
    ),
    st.builds(
        lambda u, it, q: (
            "submit_request",
            {"requested_by": u, "requested_for": u, "item_id": it, "justification": "j", "quantity": q},
        ),
        st.sampled_from(USERS),
        st.sampled_from(["CAT-LAPTOP14", "CAT-MONITOR27", "CAT-ACC-SAPFIN", "CAT-VISIO"]),
        st.integers(1, 4),
    ),
    st.builds(
        lambda r, a, d: ("decide_approval", {"ritm_id": r, "approver_id": a, "decision": d}),
        st.sampled_from(RITMS),
        st.sampled_from(USERS),
        st.sampled_from(["approved", "rejected"]),
    ),
    st.builds(lambda r: ("fulfill_request_item", {"ritm_id": r}), st.sampled_from(RITMS)),
    st.builds(lambda r: ("cancel_request_item", {"ritm_id": r}), st.sampled_from(RITMS)),
    st.builds(lambda c: ("request_cab_approval", {"change_id": c}), st.sampled_from(CHANGES)),
    st.builds(
        lambda c, a: ("approve_change", {"change_id": c, "approver_id": a}),
        st.sampled_from(CHANGES),
        st.sampled_from(["EMP-1012", "EMP-1005"]),
    ),
    st.builds(
        lambda c, s, n: ("schedule_change", {"change_id": c, **window(s, n)}),
        st.sampled_from(CHANGES),
        HOURS,
        st.integers(1, 6),
    ),
    st.builds(lambda c: ("unassign_asset", {"ci_id": c}), st.sampled_from(CIS)),
    st.builds(lambda c: ("delete_ci", {"ci_id": c, "acting_user_id": "EMP-1006"}), st.sampled_from(CIS)),
    st.builds(lambda u: ("deactivate_user", {"user_id": u, "acting_user_id": "EMP-1007"}), st.sampled_from(USERS)),
)


def issued(state: dict[str, Any], item: str) -> int:
    return sum(
        r["quantity"] for r in state["request_items"].values() if r["item_id"] == item and r["state"] == "fulfilled"
    )


@settings(max_examples=60, deadline=None)
@given(st.lists(OPERATIONS, max_size=25))
def test_any_sequence_keeps_the_world_consistent_and_stock_conserved(
    operations: list[tuple[str, dict[str, Any]]],
) -> None:
    env = make()
    before = {i: (c["stock"], issued(env.state, i)) for i, c in env.state["catalog"].items() if c["stock"] is not None}
    for name, args in operations:
        env.call(name, args)
        assert env.violations() == [], (name, args)
    for item, (stock, given_out) in before.items():
        assert env.state["catalog"][item]["stock"] + issued(env.state, item) == stock + given_out


READS = st.one_of(
    st.builds(lambda n: ("get_incident", {"incident_id": n}), st.sampled_from(INCIDENTS)),
    st.builds(lambda u: ("search_incidents", {"caller_id": u}), st.sampled_from(USERS)),
    st.builds(lambda c: ("get_ci", {"ci_id": c}), st.sampled_from(CIS)),
    st.builds(lambda q: ("search_cis", {"query": q}), st.text(max_size=5)),
    st.builds(lambda u: ("get_user", {"user_id": u}), st.sampled_from(USERS)),
    st.builds(lambda r: ("get_request_item", {"ritm_id": r}), st.sampled_from(RITMS)),
    st.builds(
        lambda c, s, n: ("check_schedule", {"change_id": c, **window(s, n)}),
        st.sampled_from(CHANGES),
        HOURS,
        st.integers(1, 6),
    ),
)


@settings(max_examples=60, deadline=None)
@given(READS)
def test_reads_change_nothing(read: tuple[str, dict[str, Any]]) -> None:
    env = make()
    before = copy.deepcopy(env.state)
    env.call(*read)
    assert env.state == before


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(CHANGES), HOURS, st.integers(1, 6), st.booleans())
def test_check_schedule_agrees_with_schedule_change(change: str, start: int, length: int, approved: bool) -> None:
    override = (
        {"changes": {c: {"cab_approval": "approved", "approved_by": "EMP-1012"} for c in ("CHG0030011", "CHG0030014")}}
        if approved
        else {}
    )
    env = make(override)
    args = {"change_id": change, **window(start, length)}
    verdict = env.call("check_schedule", args).result
    write = env.call("schedule_change", args)
    assert (write.status == "ok") == verdict["valid"]
    if write.status == "rejected":
        assert write.error is not None and write.error["code"] == verdict["error_code"]
