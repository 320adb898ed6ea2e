"""A miniature domain for crmbench's own tests: two accounts, orders, a loyalty ledger.

Small enough to read in a minute, rich enough for every check family: reads and writes,
rejections with each status code, generated ids, and collateral state to protect.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from pytest_crmbench import Rejection, ToolEnvironment, tool

CENT = Decimal("0.01")


def money(value: Any) -> Decimal:
    return Decimal(str(value)).quantize(CENT)


class MiniEnvironment(ToolEnvironment):
    domain = "mini"

    def default_state(self) -> dict[str, Any]:
        return {
            "accounts": {
                "ACC-1": {
                    "owner": "Ada Lovelace",
                    "status": "active",
                    "balance": Decimal("180.00"),
                    "loyalty_points": 0,
                },
                "ACC-2": {
                    "owner": "Alan Turing",
                    "status": "active",
                    "balance": Decimal("2450.75"),
                    "loyalty_points": 40,
                },
                "ACC-3": {
                    "owner": "Grace Hopper",
                    "status": "frozen",
                    "balance": Decimal("75.00"),
                    "loyalty_points": 0,
                },
            },
            "orders": {"ORD-1": {"account_id": "ACC-1", "status": "pending", "total": Decimal("15.50")}},
            "transfers": [],
            "log": [],
        }

    def _account(self, account_id: str) -> dict[str, Any]:
        account = self.state["accounts"].get(account_id)
        if account is None:
            raise Rejection(404, "ACCOUNT_NOT_FOUND", f"No account {account_id}.", param="account_id")
        return account  # type: ignore[no-any-return]

    @tool(kind="read")
    def get_balance(self, account_id: str) -> dict[str, Any]:
        """Return an account's balance and status.

        Args:
            account_id: Account id such as ACC-1.
        """
        account = self._account(account_id)
        return {"account_id": account_id, "balance": account["balance"], "status": account["status"]}

    @tool(kind="read")
    def validate_transfer(self, from_account: str, to_account: str, amount: Decimal) -> dict[str, Any]:
        """Check whether a transfer would succeed, without moving money.

        Args:
            from_account: Source account id.
            to_account: Destination account id.
            amount: Amount in dollars.
        """
        source = self._account(from_account)
        self._account(to_account)
        if source["status"] != "active":
            return {"valid": False, "code": 403, "reason": "Source account is frozen"}
        if source["balance"] < money(amount):
            return {"valid": False, "code": 422, "reason": "Insufficient funds"}
        return {"valid": True}

    @tool
    def execute_transfer(self, from_account: str, to_account: str, amount: Decimal) -> dict[str, Any]:
        """Move money between two accounts.

        Args:
            from_account: Source account id.
            to_account: Destination account id.
            amount: Amount in dollars, positive.
        """
        source, target, amount = self._account(from_account), self._account(to_account), money(amount)
        if source["status"] != "active":
            raise Rejection(403, "ACCOUNT_FROZEN", f"{from_account} is frozen.", param="from_account")
        if amount <= 0:
            raise Rejection(422, "INVALID_AMOUNT", "Amount must be positive.", param="amount")
        if source["balance"] < amount:
            raise Rejection(422, "INSUFFICIENT_FUNDS", f"{from_account} holds {source['balance']}.", param="amount")
        source["balance"] -= amount
        target["balance"] += amount
        transfer_id = self.new_id("XFER")
        self.state["transfers"].append(
            {"id": transfer_id, "from": from_account, "to": to_account, "amount": amount, "at": self.now().isoformat()}
        )
        return {"transfer_id": transfer_id, "from_balance": source["balance"]}

    @tool
    def pay_order(self, order_id: str) -> dict[str, Any]:
        """Pay a pending order from its account.

        Args:
            order_id: Order id such as ORD-1.
        """
        order = self.state["orders"].get(order_id)
        if order is None:
            raise Rejection(404, "ORDER_NOT_FOUND", f"No order {order_id}.", param="order_id")
        if order["status"] != "pending":
            raise Rejection(409, "ORDER_NOT_PENDING", f"{order_id} is {order['status']}.")
        account = self._account(order["account_id"])
        if account["balance"] < order["total"]:
            raise Rejection(422, "INSUFFICIENT_FUNDS", "Balance too low.")
        account["balance"] -= order["total"]
        order["status"] = "paid"
        return {"order_id": order_id, "transaction_id": self.new_id("TXN")}

    @tool
    def award_points(self, account_id: str, amount: Decimal) -> dict[str, Any]:
        """Award loyalty points: 10 points per dollar spent.

        Args:
            account_id: Account id.
            amount: Dollars spent.
        """
        account = self._account(account_id)
        points = int(money(amount) * 10)
        account["loyalty_points"] += points
        return {"points": points, "balance": account["loyalty_points"]}

    @tool
    def log_note(self, text: str, account_id: str | None = None) -> dict[str, Any]:
        """Append a note to the activity log.

        Args:
            text: The note.
            account_id: Optional account the note is about.
        """
        self.state["log"].append({"text": text, "account_id": account_id})
        return {"logged": len(self.state["log"])}

    @tool
    def close_account(self, account_id: str) -> dict[str, Any]:
        """Close an account (irreversible).

        Args:
            account_id: Account id.
        """
        self._account(account_id)["status"] = "closed"
        return {"account_id": account_id, "status": "closed"}

    @tool
    def broken_tool(self) -> dict[str, Any]:
        """A tool with a bug, to show that a crashing tool never crashes the episode."""
        self.state["log"].append({"text": "half-done"})
        raise RuntimeError("boom")
