"""Exchanges of delivered units for another variant of the same product."""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Literal

from pytest_crmbench import Money, Rejection, require, tool

from .base import RetailRules


class ExchangeTools(RetailRules):
    @tool(kind="read")
    def list_variants(self, product: str) -> dict[str, Any]:
        """Every variant of a product (matched by name, e.g. "rain jacket"): options, today's
        price, final-sale flag and the units the online fulfilment center can ship.

        Args:
            product: The product name or part of it.
        """
        wanted = product.strip().lower()
        store = self.state["stores"][self.state["settings"]["exchange_store"]]
        found = [
            {**variant, "online_units": int(store["inventory"].get(variant["variant_id"], 0))}
            for variant in self.state["variants"].values()
            if wanted and wanted in variant["product"].lower()
        ]
        if not found:
            raise Rejection(404, "PRODUCT_NOT_FOUND", f"No product matches {product!r}.", param="product")
        return {"variants": found}

    def settle(self, customer_id: str, order: dict[str, Any], difference: Decimal, settlement: str) -> None:
        """Charge (> 0) or pay back (< 0) a price difference: store credit, the gift card that
        paid, or the card (handled by the payment processor outside this world)."""
        if difference == 0:
            return
        if settlement == "store_credit":
            customer = self.state["customers"][customer_id]
            credit = Decimal(customer["store_credit"])
            require(
                credit >= difference,
                422,
                "INSUFFICIENT_STORE_CREDIT",
                f"Store credit is {credit} USD.",
                param="settlement",
            )
            customer["store_credit"] = credit - difference
            return
        card = self.paying_gift_card(order)
        if card is not None:
            balance = Decimal(card["balance"])
            require(
                balance >= difference,
                422,
                "INSUFFICIENT_GIFT_CARD_BALANCE",
                f"Gift card {card['gift_card_id']} holds {balance} USD.",
                param="settlement",
            )
            card["balance"] = balance - difference

    @tool(kind="write")
    def exchange_item(
        self,
        customer_id: str,
        order_id: str,
        line_id: str,
        quantity: int,
        new_variant_id: str,
        price_difference: Money,
        settlement: Literal["original", "store_credit"] = "original",
    ) -> dict[str, Any]:
        """Exchange delivered units for another variant of the same product, shipped from the
        online fulfilment center, after the customer's explicit yes. Same return window and
        final-sale rule as a return; no restocking fee. The price difference is the new variant's
        price today less the unit price paid, times the units: you work it out, and it is charged
        (positive) or paid back (negative) exactly as you give it, on the original payment method
        or on store credit.

        Args:
            customer_id: The verified customer, owner of the order.
            order_id: e.g. "ORD-1008".
            line_id: The line exchanged, e.g. "L2".
            quantity: Units exchanged.
            new_variant_id: The variant sent instead, e.g. "VAR-BOOT-10W".
            price_difference: In dollars, signed: e.g. 15.00 (customer pays) or -10.00 (customer gets back).
            settlement: "original" (the order's payment method) or "store_credit".
        """
        order = self.order_of(customer_id, order_id)
        line = self.line_of(order, line_id)
        new = self.get("variants", new_variant_id, param="new_variant_id")
        self.require_returnable(order, line, quantity)
        old = self.state["variants"][line["variant_id"]]
        require(
            new["product"] == old["product"],
            422,
            "DIFFERENT_PRODUCT",
            f"{new_variant_id} is a {new['product']}, not a {old['product']}: return it and order anew.",
            param="new_variant_id",
        )
        require(
            new_variant_id != line["variant_id"],
            422,
            "SAME_VARIANT",
            "That is the variant they have.",
            param="new_variant_id",
        )
        store = self.state["stores"][self.state["settings"]["exchange_store"]]
        units = int(store["inventory"].get(new_variant_id, 0))
        require(
            units >= quantity,
            409,
            "OUT_OF_STOCK",
            f"The fulfilment center has {units} unit(s) of {new_variant_id}.",
            param="new_variant_id",
        )
        # The agent's figure is charged or paid back as given: the tool does not check the
        # arithmetic for it (the task's checks do), as a till takes the amount the clerk enters.
        difference = Decimal(price_difference)
        self.settle(customer_id, order, difference, settlement)
        store["inventory"][new_variant_id] = units - quantity
        line["exchanged_quantity"] = int(line["exchanged_quantity"]) + quantity
        record = self.insert(
            "exchanges",
            {
                "order_id": order_id,
                "customer_id": customer_id,
                "line_id": line_id,
                "quantity": quantity,
                "from_variant": line["variant_id"],
                "to_variant": new_variant_id,
                "price_difference": difference,
                "settlement": settlement,
                "created_at": self.stamp(),
            },
        )
        return {"exchange_id": record["exchange_id"], "to_variant": new_variant_id, "settlement": settlement}
