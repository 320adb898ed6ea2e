"""A miniature domain for crmbench's own tests: three accounts, an order, transfers, a note log.

Small enough to read in a minute, rich enough for every check family: reads and writes,
rejections with each status code, a dry run, generated ids, and collateral state to protect.
Written on the domain kit: a typed state model, ``get``/``insert``, value types, an invariant.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from pytest_crmbench import (
    Amount,
    Money,
    Record,
    Timestamp,
    ToolEnvironment,
    Violation,
    dry_run,
    invariant,
    require,
    tool,
)


class Account(Record):
    owner: str
    status: Literal["active", "frozen", "closed"]
    balance: Money = Field(ge=0)
    loyalty_points: int = Field(ge=0)


class Order(Record):
    account_id: str
    status: Literal["pending", "paid"]
    total: Money


class Transfer(Record):
    id_prefix = "XFER"
    id_field = "id"

    id: str
    from_account: str = Field(alias="from")
    to: str
    amount: Money
    at: Timestamp


class Note(Record):
    text: str
    account_id: str | None = None


class MiniState(BaseModel):
    model_config = ConfigDict(extra="forbid")

    accounts: dict[str, Account]
    orders: dict[str, Order]
    transfers: list[Transfer]
    log: list[Note]


class MiniEnvironment(ToolEnvironment):
    domain = "mini"
    state_model = MiniState

    def default_state(self) -> dict[str, Any]:
        return {
            "accounts": {
                "ACC-1": {"owner": "Ada Lovelace", "status": "active", "balance": "180.00", "loyalty_points": 0},
                "ACC-2": {"owner": "Alan Turing", "status": "active", "balance": "2450.75", "loyalty_points": 40},
                "ACC-3": {"owner": "Grace Hopper", "status": "frozen", "balance": "75.00", "loyalty_points": 0},
            },
            "orders": {"ORD-1": {"account_id": "ACC-1", "status": "pending", "total": "15.50"}},
            "transfers": [],
            "log": [],
        }

    @invariant
    def records_point_at_accounts(self) -> Iterator[Violation]:
        for order_id, order in self.state["orders"].items():
            if order["account_id"] not in self.state["accounts"]:
                yield Violation(f"orders.{order_id}.account_id", f"no account {order['account_id']!r}")

    @tool(kind="read")
    def get_balance(self, account_id: str) -> dict[str, Any]:
        """Return an account's balance and status.

        Args:
            account_id: Account id such as ACC-1.
        """
        account = self.get("accounts", account_id, param="account_id")
        return {"account_id": account_id, "balance": account["balance"], "status": account["status"]}

    @dry_run("validate_transfer", of="execute_transfer")
    def check_transfer(self, from_account: str, to_account: str, amount: Amount) -> None:
        """Check whether a transfer would succeed, without moving money.

        Args:
            from_account: Source account id.
            to_account: Destination account id.
            amount: Amount in dollars.
        """
        source = self.get("accounts", from_account, param="from_account")
        self.get("accounts", to_account, param="to_account")
        require(source["status"] == "active", 403, "ACCOUNT_FROZEN", f"{from_account} is frozen.", param="from_account")
        require(
            source["balance"] >= amount,
            422,
            "INSUFFICIENT_FUNDS",
            f"{from_account} holds {source['balance']}.",
            param="amount",
        )

    @tool(kind="write")
    def execute_transfer(self, from_account: str, to_account: str, amount: Amount) -> dict[str, Any]:
        """Move money between two accounts.

        Args:
            from_account: Source account id.
            to_account: Destination account id.
            amount: Amount in dollars, positive.
        """
        self.check_transfer(from_account, to_account, amount)
        source, target = self.state["accounts"][from_account], self.state["accounts"][to_account]
        source["balance"] -= amount
        target["balance"] += amount
        transfer = self.insert(
            "transfers", {"from": from_account, "to": to_account, "amount": amount, "at": self.stamp()}
        )
        return {"transfer_id": transfer["id"], "from_balance": source["balance"]}

    @tool(kind="write")
    def pay_order(self, order_id: str) -> dict[str, Any]:
        """Pay a pending order from its account.

        Args:
            order_id: Order id such as ORD-1.
        """
        order = self.get("orders", order_id, param="order_id")
        require(order["status"] == "pending", 409, "ORDER_NOT_PENDING", f"{order_id} is {order['status']}.")
        account = self.get("accounts", order["account_id"])
        require(account["balance"] >= order["total"], 422, "INSUFFICIENT_FUNDS", "Balance too low.")
        account["balance"] -= order["total"]
        order["status"] = "paid"
        return {"order_id": order_id, "transaction_id": self.new_id("TXN")}

    @tool(kind="write")
    def award_points(self, account_id: str, amount: Money) -> dict[str, Any]:
        """Award loyalty points: 10 points per dollar spent.

        Args:
            account_id: Account id.
            amount: Dollars spent.
        """
        account = self.get("accounts", account_id, param="account_id")
        points = int(amount * 10)
        account["loyalty_points"] += points
        return {"points": points, "balance": account["loyalty_points"]}

    @tool(kind="write", prose=("text",))
    def log_note(self, text: str, account_id: str | None = None) -> dict[str, Any]:
        """Append a note to the activity log.

        Args:
            text: The note.
            account_id: Optional account the note is about.
        """
        self.insert("log", {"text": text, "account_id": account_id})
        return {"logged": len(self.state["log"])}

    @tool(kind="write")
    def close_account(self, account_id: str) -> dict[str, Any]:
        """Close an account (irreversible).

        Args:
            account_id: Account id.
        """
        self.get("accounts", account_id, param="account_id")["status"] = "closed"
        return {"account_id": account_id, "status": "closed"}

    @tool(kind="write")
    def broken_tool(self) -> dict[str, Any]:
        """A tool with a bug, to show that a crashing tool never crashes the episode."""
        self.state["log"].append({"text": "half-done"})
        raise RuntimeError("boom")
