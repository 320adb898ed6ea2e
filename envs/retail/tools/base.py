"""Lookups and money movements the retail tools share."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

from pytest_crmbench import Rejection, ToolEnvironment, require

CENT = Decimal("0.01")


class RetailRules(ToolEnvironment):
    """Ownership lookups and the rules several tools apply."""

    def customer(self, customer_id: str) -> dict[str, Any]:
        return self.get("customers", customer_id, param="customer_id")

    def order_of(self, customer_id: str, order_id: str) -> dict[str, Any]:
        self.customer(customer_id)
        return self.get("orders", order_id, owner=customer_id)

    def line_of(self, order: dict[str, Any], line_id: str) -> dict[str, Any]:
        line = next((item for item in order["line_items"] if item["line_id"] == line_id), None)
        if line is None:
            raise Rejection(404, "LINE_NOT_FOUND", f"{order['order_id']} has no line {line_id!r}.", param="line_id")
        return line  # type: ignore[no-any-return]

    @staticmethod
    def units_kept(line: dict[str, Any]) -> int:
        return int(line["quantity"]) - int(line["returned_quantity"]) - int(line["exchanged_quantity"])

    def require_returnable(self, order: dict[str, Any], line: dict[str, Any], quantity: int) -> None:
        """A delivered line, inside the return window, not final sale, with that many units kept."""
        order_id = order["order_id"]
        require(
            order["status"] == "delivered" and order["delivered_on"] is not None,
            409,
            "ORDER_NOT_DELIVERED",
            f"{order_id} is {order['status']}.",
            param="order_id",
        )
        window = int(self.state["settings"]["return_window_days"])
        delivered = date.fromisoformat(order["delivered_on"])
        require(
            (self.today() - delivered).days <= window,
            422,
            "RETURN_WINDOW_CLOSED",
            f"{order_id} was delivered on {order['delivered_on']}; returns and exchanges close after {window} days.",
            param="order_id",
        )
        require(
            not self.state["variants"][line["variant_id"]]["final_sale"],
            422,
            "FINAL_SALE",
            f"Line {line['line_id']} is a final-sale item.",
            param="line_id",
        )
        left = self.units_kept(line)
        require(
            0 < quantity <= left,
            422,
            "QUANTITY_NOT_RETURNABLE",
            f"{left} unit(s) of {line['line_id']} can be returned or exchanged.",
            param="quantity",
        )

    def paying_gift_card(self, order: dict[str, Any]) -> dict[str, Any] | None:
        """The gift card that takes money back for a gift-card order: the one that paid, or the
        card that replaced it."""
        card_id = order["gift_card_id"]
        seen: set[str] = set()
        while card_id is not None and card_id not in seen:
            seen.add(card_id)
            card = self.state["gift_cards"].get(card_id)
            if card is None:
                return None
            if card["status"] == "active":
                return card  # type: ignore[no-any-return]
            card_id = card["replaced_by"]
        require(
            order["gift_card_id"] is None,
            409,
            "GIFT_CARD_DISABLED",
            f"The gift card that paid for {order['order_id']} is disabled; settle on store credit instead.",
            param="order_id",
        )
        return None

    def manager(self, employee_id: str) -> dict[str, Any]:
        employee = self.get("staff", employee_id)
        require(
            employee["role"] == "manager",
            403,
            "NOT_A_MANAGER",
            f"{employee_id} is a store associate; inventory changes need a store manager.",
            param="employee_id",
        )
        return employee
