"""Identity and orders as the customer sees them; changes before shipment."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any

from pytest_crmbench import Required, require, tool
from pytest_crmbench.env.values import ZERO, norm

from ..data_model import MODIFIABLE
from .base import RetailRules


class CustomerTools(RetailRules):
    @tool(kind="read")
    def verify_customer(self, customer_id: str, email: str) -> dict[str, Any]:
        """Check the email a customer stated against the one on file (never reveals it).

        Args:
            customer_id: The customer's id, e.g. "CUS-1001".
            email: The email address they stated.
        """
        customer = self.get("customers", customer_id)
        verified = norm(email) == norm(customer["email"])
        return {"customer_id": customer_id, "verified": verified, "name": customer["name"] if verified else None}

    @tool(kind="read")
    def get_customer(self, customer_id: str) -> dict[str, Any]:
        """The verified customer's profile: name, store credit, loyalty points, order ids and gift
        card ids.

        Args:
            customer_id: The verified customer.
        """
        customer = self.customer(customer_id)
        orders = [o["order_id"] for o in self.state["orders"].values() if o["customer_id"] == customer_id]
        cards = [c["gift_card_id"] for c in self.state["gift_cards"].values() if c["customer_id"] == customer_id]
        return {**customer, "order_ids": orders, "gift_card_ids": cards}

    @tool(kind="read")
    def get_order(self, customer_id: str, order_id: str) -> dict[str, Any]:
        """One of the customer's orders: status, dates, address, payment method, line items (with
        each variant's product, options, today's price and final-sale flag), and its refunds,
        exchanges and price adjustments.

        Args:
            customer_id: The verified customer.
            order_id: e.g. "ORD-1001".
        """
        order = self.order_of(customer_id, order_id)
        lines = [{**line, "variant": self.state["variants"][line["variant_id"]]} for line in order["line_items"]]

        def of_order(collection: str) -> list[dict[str, Any]]:
            return [r for r in self.state[collection].values() if r["order_id"] == order_id]

        return {
            **order,
            "line_items": lines,
            "refunds": of_order("refunds"),
            "exchanges": of_order("exchanges"),
            "price_adjustments": of_order("price_adjustments"),
        }

    @tool(kind="write", prose=("address",))
    def update_shipping_address(self, customer_id: str, order_id: str, address: str) -> dict[str, Any]:
        """Change where an order that has not shipped yet goes, after the customer's explicit yes.

        Args:
            customer_id: The verified customer, owner of the order.
            order_id: e.g. "ORD-1002".
            address: The full new address, street, city, state and ZIP.
        """
        order = self.order_of(customer_id, order_id)
        require(
            order["status"] in MODIFIABLE,
            409,
            "ORDER_ALREADY_SHIPPED",
            f"{order_id} is {order['status']}.",
            param="order_id",
        )
        require(
            len(address.strip()) >= 10, 422, "ADDRESS_INCOMPLETE", "Give street, city, state and ZIP.", param="address"
        )
        order["shipping_address"] = address.strip()
        return {"order_id": order_id, "shipping_address": order["shipping_address"]}

    @tool(kind="write", prose=("reason",))
    def cancel_order(
        self, customer_id: str, order_id: str, reason: Annotated[str, Required("Say why the order is cancelled.")]
    ) -> dict[str, Any]:
        """Cancel an order that has not shipped yet, after the customer's explicit yes; the payment
        is voided in full on the original method (an order a gift card paid gets what it cost
        back on that card, or on the card that replaced it).

        Args:
            customer_id: The verified customer, owner of the order.
            order_id: e.g. "ORD-1002".
            reason: Why, in a few words.
        """
        order = self.order_of(customer_id, order_id)
        require(
            order["status"] in MODIFIABLE,
            409,
            "ORDER_ALREADY_SHIPPED",
            f"{order_id} is {order['status']}.",
            param="order_id",
        )
        card = self.paying_gift_card(order)
        if card is not None:
            # The void of a gift-card payment is the card's money coming back, not a processor event.
            paid = sum((Decimal(line["unit_price"]) * int(line["quantity"]) for line in order["line_items"]), ZERO)
            card["balance"] = Decimal(card["balance"]) + paid
        order.update(status="cancelled", cancel_reason=reason)
        return {"order_id": order_id, "status": "cancelled"}
