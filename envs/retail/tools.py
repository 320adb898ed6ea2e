"""The retail tools: a service and store-manager desk's reads and writes.

Rules the business enforces (ownership, order states, return window, final sale, returnable
quantity, the restocking-fee cap, stock on hand, a manager's authority) raise rejections; conduct
rules (identity first, an explicit yes, which fee applies, refunding to the original method unless
the customer asks for store credit, safety stock on transfers) live in ``policy.md`` so an agent
can break them and a task can see it.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Annotated, Any, Literal

from pytest_crmbench import Rejection, Required, ToolEnvironment, require, tool

from .data_model import MODIFIABLE

CENT = Decimal("0.01")


class RetailRules(ToolEnvironment):
    """Ownership lookups shared by the tools."""

    def order_of(self, customer_id: str, order_id: str) -> dict[str, Any]:
        self.get("customers", customer_id, param="customer_id")
        return self.get("orders", order_id, owner=customer_id)

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


class CustomerTools(RetailRules):
    """Identity and orders as the customer sees them."""

    @tool(kind="read")
    def verify_customer(self, customer_id: str, email: str) -> dict[str, Any]:
        """Check the email a customer stated against the one on file (never reveals it).

        Args:
            customer_id: The customer's id, e.g. "CUS-1001".
            email: The email address they stated.
        """
        customer = self.get("customers", customer_id)
        verified = email.strip().lower() == customer["email"]
        return {"customer_id": customer_id, "verified": verified, "name": customer["name"] if verified else None}

    @tool(kind="read")
    def get_customer(self, customer_id: str) -> dict[str, Any]:
        """The verified customer's profile: name, store credit, loyalty points and order ids.

        Args:
            customer_id: The verified customer.
        """
        customer = self.get("customers", customer_id)
        orders = [o["order_id"] for o in self.state["orders"].values() if o["customer_id"] == customer_id]
        return {**customer, "order_ids": orders}

    @tool(kind="read")
    def get_order(self, customer_id: str, order_id: str) -> dict[str, Any]:
        """One of the customer's orders: status, dates, address, payment method, line items (with
        each variant's product, options and final-sale flag) and its refunds.

        Args:
            customer_id: The verified customer.
            order_id: e.g. "ORD-1001".
        """
        order = self.order_of(customer_id, order_id)
        lines = [{**line, "variant": self.state["variants"][line["variant_id"]]} for line in order["line_items"]]
        refunds = [r for r in self.state["refunds"].values() if r["order_id"] == order_id]
        return {**order, "line_items": lines, "refunds": refunds}

    @tool(kind="write")
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

    @tool(kind="write")
    def cancel_order(
        self, customer_id: str, order_id: str, reason: Annotated[str, Required("Say why the order is cancelled.")]
    ) -> dict[str, Any]:
        """Cancel an order that has not shipped yet, after the customer's explicit yes; the payment
        is voided in full on the original method.

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
        order.update(status="cancelled", cancel_reason=reason)
        return {"order_id": order_id, "status": "cancelled"}


class ReturnTools(RetailRules):
    """Returns and refunds of delivered lines."""

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
        line = next((item for item in order["line_items"] if item["line_id"] == line_id), None)
        if line is None:
            raise Rejection(404, "LINE_NOT_FOUND", f"{order_id} has no line {line_id!r}.", param="line_id")
        require(
            order["status"] == "delivered",
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
            f"{order_id} was delivered on {order['delivered_on']}; returns close after {window} days.",
            param="order_id",
        )
        require(
            not self.state["variants"][line["variant_id"]]["final_sale"],
            422,
            "FINAL_SALE",
            f"Line {line_id} is a final-sale item.",
            param="line_id",
        )
        left = int(line["quantity"]) - int(line["returned_quantity"])
        require(
            0 < quantity <= left,
            422,
            "QUANTITY_NOT_RETURNABLE",
            f"{left} unit(s) of {line_id} can be returned.",
            param="quantity",
        )
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
        line["returned_quantity"] = int(line["returned_quantity"]) + quantity
        if all(item["returned_quantity"] == item["quantity"] for item in order["line_items"]):
            order["status"] = "returned"
        if refund_method == "store_credit":
            customer = self.state["customers"][customer_id]
            customer["store_credit"] = Decimal(customer["store_credit"]) + amount
        refund = self.insert(
            "refunds",
            {
                "order_id": order_id,
                "customer_id": customer_id,
                "line_id": line_id,
                "quantity": quantity,
                "condition": condition,
                "restocking_fee": fee,
                "amount": amount,
                "method": refund_method,
                "created_at": self.stamp(),
            },
        )
        return {"refund_id": refund["refund_id"], "amount": refund["amount"], "method": refund_method}


class StoreTools(RetailRules):
    """Store-manager operations: inventory levels and transfers between stores."""

    @tool(kind="read")
    def get_inventory(self, variant_id: str) -> dict[str, Any]:
        """Units of one variant available in every store.

        Args:
            variant_id: e.g. "VAR-JKT-L-NVY".
        """
        variant = self.get("variants", variant_id)
        levels = {s["store_id"]: int(s["inventory"].get(variant_id, 0)) for s in self.state["stores"].values()}
        return {"variant": variant, "available": levels}

    @tool(kind="write")
    def transfer_inventory(
        self, employee_id: str, from_store: str, to_store: str, variant_id: str, quantity: int
    ) -> dict[str, Any]:
        """Move units of a variant from one store to another (a store manager's request).

        Args:
            employee_id: The store manager asking, e.g. "EMP-301".
            from_store: The store that sends, e.g. "STR-BOS".
            to_store: The store that receives, e.g. "STR-CAM".
            variant_id: e.g. "VAR-JKT-L-NVY".
            quantity: Units to move.
        """
        self.manager(employee_id)
        source = self.get("stores", from_store, param="from_store")
        target = self.get("stores", to_store, param="to_store")
        self.get("variants", variant_id)
        require(from_store != to_store, 422, "SAME_STORE", "A transfer needs two different stores.", param="to_store")
        on_hand = int(source["inventory"].get(variant_id, 0))
        require(
            0 < quantity <= on_hand, 422, "INSUFFICIENT_STOCK", f"{from_store} has {on_hand} unit(s).", param="quantity"
        )
        source["inventory"][variant_id] = on_hand - quantity
        target["inventory"][variant_id] = int(target["inventory"].get(variant_id, 0)) + quantity
        record = self.insert(
            "transfers",
            {
                "employee_id": employee_id,
                "from_store": from_store,
                "to_store": to_store,
                "variant_id": variant_id,
                "quantity": quantity,
                "created_at": self.stamp(),
            },
        )
        return {
            "transfer_id": record["transfer_id"],
            "from_store": from_store,
            "to_store": to_store,
            "quantity": quantity,
        }
