"""What the contract mutation audit needs to know about the retail policy (``policy.md``) beyond
the conduct rules (``conduct.py``: the identity tool, the divisible transfer): the reads that look
at what a write changed. See docs/release.md.

No retail write is a harmless repeat: writing the same address or the same count again is a
second write nobody asked for (§2), which the conduct rules' scope check counts."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pytest_crmbench.core.evidence import ToolCall
from pytest_crmbench.release.mutation import Call, MutationHints


def _args(call: ToolCall) -> dict[str, Any]:
    return call.effective_arguments or {}


def _order(call: ToolCall) -> list[Call]:
    args = _args(call)
    return [Call("get_order", {"customer_id": args.get("customer_id"), "order_id": args.get("order_id")})]


def _customer(call: ToolCall) -> list[Call]:
    return [Call("get_customer", {"customer_id": _args(call).get("customer_id")})]


def _card(call: ToolCall) -> list[Call]:
    args = _args(call)
    return [Call("get_gift_card", {"customer_id": args.get("customer_id"), "gift_card_id": args.get("gift_card_id")})]


def _levels(call: ToolCall) -> list[Call]:
    return [Call("get_inventory", {"variant_id": _args(call).get("variant_id")})]


REREADS: dict[str, Callable[[ToolCall], list[Call]]] = {
    "update_shipping_address": _order,
    "cancel_order": _order,
    "create_return": _order,
    "create_price_adjustment": _order,
    "exchange_item": _order,
    "replace_gift_card": _card,
    "redeem_loyalty_points": _customer,
    "award_loyalty_points": _customer,
    "transfer_inventory": _levels,
    "record_inventory_count": _levels,
}

HINTS = MutationHints(rereads=REREADS)
