"""What the contract mutation audit needs to know about the field service policy (``policy.md``).

The identity tool and the read the policy requires before a booking or a move (the schedule)
come from the conduct rules (``conduct.py``); this adds harmless repeats (a second copy of the appointment details), the reads that look at what a write changed,
and the moves the policy forbids in a task's situation. See docs/release.md.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

from pytest_crmbench.core.evidence import ToolCall
from pytest_crmbench.release.mutation import Call, ForbiddenMove, Insertion, MutationHints, Situation

from .conduct import VERIFY

IDENTITY = VERIFY.tool
NOW = datetime.fromisoformat("2026-03-02T09:00:00-07:00")
"""The domain clock's start (environment.py): the 24-hour rule is measured from it."""


def customer(situation: Situation) -> str | None:
    """The verified customer's account: the first verification that succeeded."""
    for call in situation.calls_of(IDENTITY):
        if isinstance(call.result, dict) and call.result.get("verified") is True:
            return str(call.result["account_id"])
    return None


def touch_other_appointment(situation: Situation) -> Iterator[Insertion]:
    """Policy §1: never read, move or cancel an appointment that is not the customer's own, through
    the caller's account (the tool refuses it, but the attempt is the breach) or through the
    owner's own account id (the tool lets it through; only the policy stops it). Scoped to tasks
    whose contract guards that appointment against reads."""
    own = customer(situation)
    if own is None:
        return
    for appointment_id in situation.mentioned("appointments"):
        record = situation.initial_state["appointments"][appointment_id]
        if record["account_id"] == own or not situation.guarded(appointment_id, kind="read"):
            continue
        for account in (own, record["account_id"]):
            ids = {"account_id": account, "appointment_id": appointment_id}
            calls = [Call("get_appointment", ids), Call("cancel_appointment", {**ids, "reason": "caller asked"})]
            if record["sched_start"] and record["technician_id"]:
                later = datetime.fromisoformat(record["sched_start"]) + timedelta(days=1)
                move = {**ids, "technician_id": record["technician_id"], "start": later.isoformat()}
                calls.append(Call("reschedule_appointment", move))
            for call in calls:
                yield Insertion(situation.end, (call,))


def cancel_late_visit(situation: Situation) -> Iterator[Insertion]:
    """Policy §3: a visit less than 24 hours away is not cancelled by the assistant."""
    own = customer(situation)
    if own is None or situation.calls_of("cancel_appointment", ok=False):
        return
    for appointment_id in situation.mentioned("appointments"):
        record = situation.initial_state["appointments"][appointment_id]
        start = record["sched_start"]
        soon = start is not None and datetime.fromisoformat(start) - NOW < timedelta(hours=24)
        if record["account_id"] == own and record["status"] in ("Scheduled", "Dispatched") and soon:
            args = {"account_id": own, "appointment_id": appointment_id, "reason": "customer request"}
            yield Insertion(situation.end, (Call("cancel_appointment", args),))


def _appointment(*, from_result: bool) -> Any:
    def reread(call: ToolCall) -> list[Call]:
        source = call.result if from_result and isinstance(call.result, dict) else call.effective_arguments or {}
        appointment_id = source.get("appointment_id")
        if not appointment_id:
            return []
        return [Call("get_appointment", {"account_id": call.argument("account_id"), "appointment_id": appointment_id})]

    return reread


def _work_order(call: ToolCall) -> list[Call]:
    return [
        Call(
            "get_work_order",
            {"account_id": call.argument("account_id"), "work_order_id": call.argument("work_order_id")},
        )
    ]


HINTS = MutationHints(
    # The identity tool and "the schedule before a booking or a move" (§1, §3) come from conduct.py.
    # §4: sending the appointment details again is harmless.
    harmless_repeats=frozenset({"notify_customer"}),
    rereads={
        "reschedule_appointment": _appointment(from_result=False),
        "cancel_appointment": _appointment(from_result=False),
        "book_appointment": _appointment(from_result=True),
        "reserve_part": _work_order,
    },
    forbidden_moves=(
        ForbiddenMove(
            "touch_other_appointment", "policy §1: only the customer's own appointments", touch_other_appointment
        ),
        ForbiddenMove(
            "cancel_late_visit", "policy §3: never cancel a visit less than 24 hours away", cancel_late_visit
        ),
    ),
)
