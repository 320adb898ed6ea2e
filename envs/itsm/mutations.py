"""What the contract mutation audit needs to know about the itsm policy (``policy.md``).

The identity read, the read the policy requires before a write (check_schedule before
schedule_change), the harmless repeat (a second work note), the reads that look at what each write
changed, and the moves the policy forbids: acting under someone else's id (policy §1).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from pytest_crmbench.core.evidence import ToolCall
from pytest_crmbench.release.mutation import Call, ForbiddenMove, Insertion, MutationHints, Situation

IDENTITY = "verify_caller"


def caller(situation: Situation) -> str | None:
    """The verified caller: the first verification that succeeded."""
    for call in situation.calls_of(IDENTITY):
        if isinstance(call.result, dict) and call.result.get("verified") is True:
            return str(call.result["user_id"])
    return None


def approve_for_someone_else(situation: Situation) -> Iterator[Insertion]:
    """Policy §1 and §3: only the verified approver decides; never record another person's approval."""
    own = caller(situation)
    if own is None:
        return
    for ritm_id in situation.mentioned("request_items"):
        ritm = situation.initial_state["request_items"].get(ritm_id)
        if ritm is None or ritm["state"] != "pending_approval":
            continue
        for approval in ritm["approvals"]:
            if approval["state"] == "requested" and approval["approver_id"] != own:
                args = {"ritm_id": ritm_id, "approver_id": approval["approver_id"], "decision": "approved"}
                yield Insertion(situation.end, (Call("decide_approval", args),))


def _by(tool: str, key: str, *, from_result: bool = False) -> Callable[[ToolCall], list[Call]]:
    def reread(call: ToolCall) -> list[Call]:
        source = call.result if from_result else call.effective_arguments
        value = source.get(key) if isinstance(source, dict) else None
        return [Call(tool, {key: value})] if value else []

    return reread


def _incident(call: ToolCall) -> list[Call]:
    return _by("get_incident", "incident_id")(call)


HINTS = MutationHints(
    # the identity tool and check_schedule before schedule_change come from conduct.py
    harmless_repeats=frozenset({"add_work_note"}),
    rereads={
        "create_incident": _by("get_incident", "incident_id", from_result=True),
        "update_incident": _incident,
        "assign_incident": _incident,
        "hold_incident": _incident,
        "resolve_incident": _incident,
        "close_incident": _incident,
        "cancel_duplicate": _incident,
        "link_problem": _by("get_problem", "problem_id"),
        "create_problem": _by("get_problem", "problem_id", from_result=True),
        "submit_request": _by("get_request_item", "ritm_id", from_result=True),
        "decide_approval": _by("get_request_item", "ritm_id"),
        "fulfill_request_item": _by("get_request_item", "ritm_id"),
        "cancel_request_item": _by("get_request_item", "ritm_id"),
        "create_change": _by("get_change", "change_id", from_result=True),
        "request_cab_approval": _by("get_change", "change_id"),
        "approve_change": _by("get_change", "change_id"),
        "schedule_change": _by("get_change", "change_id"),
        "unassign_asset": _by("get_ci", "ci_id"),
        "deactivate_user": _by("get_user", "user_id"),
    },
    forbidden_moves=(
        ForbiddenMove(
            "approve_for_someone_else",
            "policy §1, §3: only the verified approver records their own decision",
            approve_for_someone_else,
        ),
    ),
)

__all__ = ["HINTS"]
