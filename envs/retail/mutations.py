"""What the contract mutation audit needs to know about the retail policy (``policy.md``):
the identity tool and the reads that look at what a write changed. See docs/release.md."""

from __future__ import annotations

from typing import Any

from pytest_crmbench.core.evidence import ToolCall
from pytest_crmbench.release.mutation import Call, MutationHints

IDENTITY = "verify_customer"


def _order(call: ToolCall) -> list[Call]:
    args = call.effective_arguments or {}
    return [Call("get_order", {"customer_id": args.get("customer_id"), "order_id": args.get("order_id")})]


def _levels(call: ToolCall) -> list[Call]:
    args: dict[str, Any] = call.effective_arguments or {}
    return [Call("get_inventory", {"variant_id": args.get("variant_id")})]


HINTS = MutationHints(
    identity_tool=IDENTITY,
    # Writing the same address again leaves the order exactly as it was.
    harmless_repeats=frozenset({"update_shipping_address"}),
    rereads={
        "update_shipping_address": _order,
        "cancel_order": _order,
        "create_return": _order,
        "transfer_inventory": _levels,
    },
)
