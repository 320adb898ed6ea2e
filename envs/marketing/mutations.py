"""What the contract mutation audit needs to know about the marketing policy (``policy.md``).

The domain declares no negative assertions (spec), so no forbidden moves: the policy's rules are
checked through expected state and replies. The hints add which read must come before which
write and which reads look at what a write changed. See docs/release.md.
"""

from __future__ import annotations

from typing import Any

from pytest_crmbench.core.evidence import ToolCall
from pytest_crmbench.release.mutation import Call, MutationHints


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
)
