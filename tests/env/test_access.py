"""Ownership stamps: whose records each successful call read and wrote, computed by the environment."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict

from pytest_crmbench import Record, ToolEnvironment, tool
from pytest_crmbench.core.conduct import ConductRules, Identity


class Customer(Record):
    owner_field = "customer_id"
    customer_id: str
    name: str
    credit: int = 0


class Ticket(Record):
    owner_field = "customer_id"
    ticket_id: str
    customer_id: str
    text: str


class Note(Record):
    owner_field = "customer_id"
    customer_id: str
    text: str


class DeskState(BaseModel):
    model_config = ConfigDict(extra="forbid")
    customers: dict[str, Customer]
    tickets: dict[str, Ticket]
    notes: list[Note]


WORLD = {
    "customers": {"C1": {"customer_id": "C1", "name": "Ann"}, "C2": {"customer_id": "C2", "name": "Bob"}},
    "tickets": {
        "T1": {"ticket_id": "T1", "customer_id": "C1", "text": "router"},
        "T2": {"ticket_id": "T2", "customer_id": "C2", "text": "billing"},
    },
    "notes": [],
}


class Desk(ToolEnvironment):
    domain = "desk"
    state_model = DeskState
    conduct: ClassVar[ConductRules | None] = ConductRules(
        domain="desk", identity=Identity(tool="get_customer", subject="customer_id", passed="found")
    )

    def default_state(self) -> dict[str, Any]:
        return WORLD

    @tool(kind="read")
    def search_tickets(self, text: str = "") -> dict[str, Any]:
        """Search tickets by text, across every customer (the filter is the agent's to give).

        Args:
            text: Text the ticket contains.
        """
        hits = [t for t in self.state["tickets"].values() if text in t["text"]]
        return {"tickets": [{"ticket_id": t["ticket_id"], "text": t["text"]} for t in hits]}

    @tool(kind="read")
    def get_customer(self, customer_id: str) -> dict[str, Any]:
        """A customer's name.

        Args:
            customer_id: The customer.
        """
        return {"name": self.get("customers", customer_id)["name"], "found": True}

    @tool(kind="write", counterparty=("to_customer",))
    def move_credit(self, from_customer: str, to_customer: str, amount: int) -> dict[str, Any]:
        """Move store credit between customers.

        Args:
            from_customer: Who gives.
            to_customer: Who receives.
            amount: How much.
        """
        self.get("customers", from_customer, param="from_customer")["credit"] -= amount
        self.get("customers", to_customer, param="to_customer")["credit"] += amount
        return {"moved": amount}

    @tool(kind="write")
    def add_note(self, customer_id: str, text: str) -> dict[str, Any]:
        """Note on a customer.

        Args:
            customer_id: The customer.
            text: The note.
        """
        self.insert("notes", {"customer_id": customer_id, "text": text})
        return {"ok": True}


def test_an_unfiltered_search_reads_every_customer_it_returns() -> None:
    env = Desk()
    assert env.call("search_tickets", {}).access.read == ("C1", "C2")  # type: ignore[union-attr]
    assert env.call("search_tickets", {"text": "router"}).access.read == ("C1",)  # type: ignore[union-attr]


def test_lookups_are_reads_and_changed_records_are_writes() -> None:
    env = Desk()
    assert env.call("get_customer", {"customer_id": "C2"}).access.read == ("C2",)  # type: ignore[union-attr]
    note = env.call("add_note", {"customer_id": "C1", "text": "called"})
    assert note.access is not None and note.access.kind == "write" and note.access.written == ("C1",)


def test_a_counterparty_argument_is_not_the_callers_record() -> None:
    moved = Desk().call("move_credit", {"from_customer": "C1", "to_customer": "C2", "amount": 5})
    assert moved.access is not None and moved.access.read == ("C1",) and moved.access.written == ("C1",)


def test_refused_calls_and_domains_without_rules_carry_no_stamp() -> None:
    assert Desk().call("get_customer", {"customer_id": "C9"}).access is None

    class Plain(Desk):
        domain = "plain"
        conduct = None

    assert Plain().call("get_customer", {"customer_id": "C1"}).access is None


def test_stamps_are_deterministic() -> None:
    def stamps() -> list[Any]:
        env = Desk()
        calls = [
            env.call("search_tickets", {}),
            env.call("move_credit", {"from_customer": "C2", "to_customer": "C1", "amount": 1}),
        ]
        return [c.access for c in calls]

    assert stamps() == stamps()
