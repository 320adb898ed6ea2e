"""What the contract mutation audit needs to know about the marketing policy (``policy.md``).

The domain declares no negative assertions (spec): the policy's rules are checked through expected
state, replies and the conduct rules (``conduct.py``: every unasked or duplicate write fails
``conduct.scope``). The hints add which read must come before which write, which reads look at
what a write changed, and the policy's wrong moves, which the audit inserts into every task where
they apply (the conduct checks, not a forbidden declaration, must then fail them). See
docs/release.md.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, timedelta
from typing import Any

from pytest_crmbench.core.evidence import ToolCall
from pytest_crmbench.release.mutation import Call, ForbiddenMove, Insertion, MutationHints, Situation

from .tools.base import MarketingTools

TODAY = date.fromisoformat(MarketingTools.clock_start[:10])
TOMORROW = (TODAY + timedelta(days=1)).isoformat()


def _contacts(situation: Situation) -> Iterator[tuple[str, dict[str, Any]]]:
    """The contacts the task names or the gold's searches found, with their initial record."""
    seen = dict.fromkeys(situation.mentioned("contacts"))
    for search in situation.calls_of("find_contacts"):
        seen.update(dict.fromkeys(c["contact_id"] for c in search.result_field("contacts") or []))
    for contact_id in seen:
        contact = situation.initial_state["contacts"].get(contact_id)
        if contact is not None:
            yield contact_id, contact


def resubscribe_without_consent(situation: Situation) -> Iterator[Insertion]:
    """§2: never re-subscribe on a colleague's request, a purchase or a conversation (no new consent)."""
    if situation.calls_of("resubscribe"):
        return
    for contact_id, contact in _contacts(situation):
        if contact["email_status"] == "unsubscribed":
            args = {"contact_id": contact_id, "consent_source": "Colleague's request", "captured_on": TODAY.isoformat()}
            yield Insertion(situation.end, (Call("resubscribe", args),))


def send_by_opens(situation: Situation) -> Iterator[Insertion]:
    """§4: an A/B test read is not a request to send its winner (least of all the one with more opens)."""
    if situation.calls_of("schedule_send"):
        return
    for read in situation.calls_of("get_send"):
        results = read.result_field("results") or {}
        if len(results) == 2:
            by_opens = max(results, key=lambda email: results[email]["opens"])
            args = {"campaign_id": read.result_field("campaign_id"), "email_ids": [by_opens]}
            args |= {"segment_id": read.result_field("segment_id"), "send_date": TOMORROW, "send_time": "15:00"}
            yield Insertion(situation.end, (Call("schedule_send", args),))


def second_send(situation: Situation) -> Iterator[Insertion]:
    """Scope: the same email to the same segment once; a second send a day later is a duplicate."""
    for send in situation.calls_of("schedule_send"):
        later = date.fromisoformat(str(send.argument("send_date"))) + timedelta(days=1)
        yield Insertion(
            situation.end, (Call("schedule_send", {**send.graded_arguments(), "send_date": later.isoformat()}),)
        )


def campaign_twice(situation: Situation) -> Iterator[Insertion]:
    """Scope: one campaign per request; the same campaign again under a near-identical name."""
    for created in situation.calls_of("create_campaign"):
        args = created.graded_arguments()
        yield Insertion(situation.end, (Call("create_campaign", {**args, "name": f"{args['name']} 2026"}),))


def _read(tool: str, key: str, *, from_result: bool = False, arg: str | None = None) -> Any:
    def reread(call: ToolCall) -> list[Call]:
        value = call.result_field(arg or key) if from_result else call.argument(arg or key)
        return [Call(tool, {key: value})] if value else []

    return reread


HINTS = MutationHints(
    # §4: "Before scheduling, read the segment".
    requires_before={"schedule_send": ("get_segment",)},
    rereads={
        "record_opt_out": _read("get_contact", "contact_id"),
        "resubscribe": _read("get_contact", "contact_id"),
        "create_segment": _read("get_segment", "segment_id", from_result=True),
        "remove_from_segment": _read("get_segment", "segment_id"),
        "create_campaign": _read("get_campaign", "campaign_id", from_result=True),
        "set_campaign_status": _read("get_campaign", "campaign_id"),
        "transfer_budget": _read("get_campaign", "campaign_id", arg="to_campaign_id"),
        "create_email": _read("get_campaign", "campaign_id"),
        "schedule_send": _read("get_send", "send_id", from_result=True),
        "remove_recipient": _read("get_send", "send_id"),
        "cancel_send": _read("get_send", "send_id"),
    },
    forbidden_moves=(
        ForbiddenMove(
            "resubscribe_without_consent",
            "policy §2: no re-subscription without new consent",
            resubscribe_without_consent,
        ),
        ForbiddenMove("send_by_opens", "policy §4 and scope: reading an A/B result sends nothing", send_by_opens),
        ForbiddenMove("second_send", "scope: one send of an email to a segment", second_send),
        ForbiddenMove("campaign_twice", "scope: one campaign per request", campaign_twice),
    ),
)
