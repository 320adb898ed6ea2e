"""Returns of delivered lines and price adjustments within the price-match window."""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Literal

from pytest_crmbench import Amount, require, tool

from .base import CENT, RetailRules


class ReturnTools(RetailRules):
    def give_back(self, customer_id: str, order: dict[str, Any], amount: Decimal, method: str) -> None:
        """Money back to the customer: store credit, the gift card that paid, or the card (which
        the payment processor handles outside this world)."""
        if method == "store_credit":
            customer = self.state["customers"][customer_id]
            customer["store_credit"] = Decimal(customer["store_credit"]) + amount
            return
        card = self.paying_gift_card(order)
        if card is not None:
            card["balance"] = Decimal(card["balance"]) + amount

    @tool(kind="write")
    def create_return(
        self,
        customer_id: str,
        order_id: str,
        line_id: str,
        quantity: int,
        condition: Literal["unopened", "opened", "damaged"],
        restocking_fee: Decimal,
        refund_method: Literal["original", "store_credit"] = "original",
    ) -> dict[str, Any]:
        """Return units of a delivered line and refund them, after the customer's explicit yes. The
        refund is the units' price minus the restocking fee you charge (policy says which fee).
        "original" refunds go to the order's payment method (a gift card that paid gets its money
        back on the card).

        Args:
            customer_id: The verified customer, owner of the order.
            order_id: e.g. "ORD-1001".
            line_id: The line of the order, e.g. "L1".
            quantity: Units returned.
            condition: "unopened", "opened" or "damaged" (as the customer describes it).
            restocking_fee: The fee kept, in dollars (0 when none applies).
            refund_method: "original" (the order's payment method) or "store_credit".
        """
        order = self.order_of(customer_id, order_id)
        line = self.line_of(order, line_id)
        self.require_returnable(order, line, quantity)
        gross = Decimal(line["unit_price"]) * quantity
        fee = Decimal(str(restocking_fee)).quantize(CENT)
        cap = (gross * int(self.state["settings"]["max_restocking_fee_percent"]) / 100).quantize(CENT)
        require(
            Decimal(0) <= fee <= cap,
            422,
            "RESTOCKING_FEE_OUT_OF_RANGE",
            "The restocking fee must be between zero and the cap in policy.",
            param="restocking_fee",
        )
        amount = gross - fee
        self.give_back(customer_id, order, amount, refund_method)
        line["returned_quantity"] = int(line["returned_quantity"]) + quantity
        if all(item["returned_quantity"] == item["quantity"] for item in order["line_items"]):
            order["status"] = "returned"
        refund = self.insert(
            "refunds",
            {
                "order_id": order_id,
                "customer_id": customer_id,
                "line_id": line_id,
                "quantity": quantity,
                "unit_price": line["unit_price"],
                "condition": condition,
                "restocking_fee": fee,
                "amount": amount,
                "method": refund_method,
                "created_at": self.stamp(),
            },
        )
        return {"refund_id": refund["refund_id"], "amount": refund["amount"], "method": refund_method}

    @tool(kind="write")
    def create_price_adjustment(self, customer_id: str, order_id: str, line_id: str, amount: Amount) -> dict[str, Any]:
        """Refund a price drop on a line, to the order's payment method, after the customer's
        explicit yes: today's price must be below what they paid, within the price-match window
        counted from the day the order was placed. The amount is the drop per unit times the units
        they still keep: you work it out, and it is refunded exactly as you give it; the line's
        unit price becomes today's price.

        Args:
            customer_id: The verified customer, owner of the order.
            order_id: e.g. "ORD-1006".
            line_id: The line whose price dropped, e.g. "L1".
            amount: The adjustment in dollars.
        """
        order = self.order_of(customer_id, order_id)
        line = self.line_of(order, line_id)
        require(
            order["status"] not in ("cancelled", "returned"),
            409,
            "ORDER_NOT_ELIGIBLE",
            f"{order_id} is {order['status']}.",
            param="order_id",
        )
        days = int(self.state["settings"]["price_match_days"])
        require(
            self.age_days(order["placed_at"]) <= days,
            422,
            "PRICE_MATCH_WINDOW_CLOSED",
            f"{order_id} was placed on {order['placed_at'][:10]}; price adjustments close after {days} days.",
            param="order_id",
        )
        paid, today = Decimal(line["unit_price"]), Decimal(self.state["variants"][line["variant_id"]]["price"])
        require(today < paid, 422, "NO_PRICE_DROP", f"Line {line_id} is not cheaper today.", param="line_id")
        kept = self.units_kept(line)
        require(kept > 0, 422, "NO_UNITS_KEPT", f"No unit of {line_id} is still kept.", param="line_id")
        # The agent's figure is refunded as given: the tool does not check the arithmetic for it
        # (the task's checks do).
        self.give_back(customer_id, order, Decimal(amount), "original")
        line["unit_price"] = today
        record = self.insert(
            "price_adjustments",
            {
                "order_id": order_id,
                "customer_id": customer_id,
                "line_id": line_id,
                "units": kept,
                "from_price": paid,
                "to_price": today,
                "amount": amount,
                "created_at": self.stamp(),
            },
        )
        return {"price_adjustment_id": record["price_adjustment_id"], "amount": record["amount"]}
