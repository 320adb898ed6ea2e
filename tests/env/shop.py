"""A tiny domain written on the kit, for the kit's own tests: customers, their orders, an event log."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from pytest_crmbench import (
    Amount,
    IsoDate,
    Money,
    NonBlank,
    Record,
    Ref,
    Required,
    Timestamp,
    ToolEnvironment,
    Violation,
    dry_run,
    invariant,
    require,
    tool,
)
from pytest_crmbench.env.kit import day_of


class Customer(Record):
    id_prefix = "CUS"

    customer_id: str
    name: str
    credit: Money = Field(ge=0)


class Order(Record):
    id_prefix = "ORD"
    owner_field = "customer_id"

    order_id: str
    customer_id: Annotated[str, Ref("customers")]  # the kit reports an order naming no customer
    total: Money = Field(gt=0)
    status: Literal["open", "paid", "cancelled"] = "open"
    placed_at: Timestamp
    due_on: IsoDate | None = None


class Event(Record):
    id_prefix = "EVT"
    id_field = "event_id"

    event_id: str
    text: str


class Note(Record):
    text: str


class ShopState(BaseModel):
    model_config = ConfigDict(extra="forbid")

    customers: dict[str, Customer]
    orders: dict[str, Order]
    events: list[Event]
    notes: list[Note]
    open_for_business: bool = True


SEED: dict[str, Any] = {
    "customers": {
        "CUS-1": {"customer_id": "CUS-1", "name": "Ada", "credit": "100"},
        "CUS-2": {"customer_id": "CUS-2", "name": "Alan", "credit": 0.5},
    },
    "orders": {
        "ORD-1": {"order_id": "ORD-1", "customer_id": "CUS-1", "total": 30, "placed_at": "2026-02-20T10:00:00+00:00"},
    },
    "events": [],
    "notes": [],
}


class OrderTools(ToolEnvironment):
    """A mixin: tools without a domain, inherited by the concrete environment."""

    @tool(kind="read")
    def get_order(self, customer_id: str, order_id: str) -> dict[str, Any]:
        """Return one of the customer's orders.

        Args:
            customer_id: The customer asking.
            order_id: Order id such as ORD-1.
        """
        self.get("customers", customer_id)
        return self.get("orders", order_id, owner=customer_id)

    @dry_run("check_order", of="place_order")
    def can_order(self, customer_id: str, total: Amount) -> dict[str, Any]:
        """Say whether the customer may place an order of this total, without placing it.

        Args:
            customer_id: Customer id.
            total: Order total in dollars.
        """
        customer = self.get("customers", customer_id)
        require(
            total <= customer["credit"],
            422,
            "CREDIT_EXCEEDED",
            f"{customer_id} has {customer['credit']} of credit.",
            param="total",
        )
        return {"credit_after": customer["credit"] - total}

    @tool(kind="write")
    def place_order(self, customer_id: str, total: Amount, note: str = "") -> dict[str, Any]:
        """Place an order charged to the customer's credit.

        Args:
            customer_id: Customer id.
            total: Order total in dollars.
            note: Optional note.
        """
        self.can_order(customer_id, total)
        self.state["customers"][customer_id]["credit"] -= total
        order = self.insert("orders", {"customer_id": customer_id, "total": total, "placed_at": self.stamp()})
        self.insert("events", {"text": f"placed {order['order_id']}"})
        if note:
            self.insert("notes", {"text": note})
        return order


class ShopEnvironment(OrderTools):
    domain = "kit_shop"
    state_model = ShopState

    def default_state(self) -> dict[str, Any]:
        return SEED

    @invariant
    def orders_are_not_placed_in_the_future(self) -> Iterator[Violation]:
        for order_id, order in self.state["orders"].items():
            if day_of(order["placed_at"]) > self.today():
                yield Violation(f"orders.{order_id}.placed_at", "is after today")

    @tool(kind="write")
    def cancel_order(
        self, customer_id: str, order_id: str, reason: Annotated[str, Required("Say why the order is cancelled.")]
    ) -> dict[str, Any]:
        """Cancel an open order and give the credit back.

        Args:
            customer_id: The customer asking.
            order_id: The order to cancel.
            reason: Why.
        """
        order = self.get("orders", order_id, owner=customer_id)
        require(order["status"] == "open", 409, "ORDER_NOT_OPEN", f"{order_id} is {order['status']}.", param="order_id")
        order["status"] = "cancelled"
        self.state["customers"][customer_id]["credit"] += order["total"]
        self.insert("events", {"text": f"cancelled {order_id}: {reason}"})
        return {"order_id": order_id, "status": "cancelled"}

    @tool(kind="write")
    def rename(self, customer_id: str, name: NonBlank) -> dict[str, Any]:
        """Change a customer's name.

        Args:
            customer_id: Customer id.
            name: The new name.
        """
        self.get("customers", customer_id)["name"] = name
        return {"customer_id": customer_id, "name": name}

    @tool(kind="write")
    def corrupt(self, value: str) -> dict[str, Any]:
        """Write a raw value into a customer's credit (a buggy tool, for the tests).

        Args:
            value: What to write.
        """
        self.state["customers"]["CUS-1"]["credit"] = value
        return {}
