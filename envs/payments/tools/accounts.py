"""Identity, balances, loyalty and account security (freeze / unfreeze)."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any

from pytest_crmbench import Required, require, tool
from pytest_crmbench.env.values import norm

from .base import PaymentsTools


class AccountTools(PaymentsTools):
    @tool(kind="read")
    def verify_identity(
        self, account_id: str, full_name: str | None = None, email: str | None = None
    ) -> dict[str, Any]:
        """Check the identity details a customer gave against the account on file.

        Call this before any other private read or write. The customer must give the account id
        and at least one of: the account holder's full name, or the email on file. The answer
        says only whether the details match; it never reveals the values on file.

        Args:
            account_id: Account id the customer gave, e.g. "ACC-1002".
            full_name: Account holder's full name as the customer stated it.
            email: Email address the customer stated.
        """
        account = self.get("accounts", account_id)
        require(
            full_name or email, 422, "MISSING_IDENTITY_DETAILS", "Give the holder's full name or the email on file."
        )
        checks = {}
        if full_name:
            checks["full_name"] = norm(full_name) == norm(account["holder_name"])
        if email:
            checks["email"] = norm(email) == norm(account["email"])
        return {"account_id": account_id, "verified": all(checks.values()), "checks": checks}

    @tool(kind="read")
    def get_account_balance(self, account_id: str) -> dict[str, Any]:
        """Get an account's current balance, status and today's remaining transfer allowance.

        Args:
            account_id: Account id, e.g. "ACC-1001".
        """
        account = self.get("accounts", account_id)
        limit = account["daily_transfer_limit"]
        shown = {k: account[k] for k in ("account_id", "holder_name", "status", "balance", "currency")}
        shown["daily_transfer_limit"] = limit
        shown["transfer_allowance_remaining_today"] = max(limit - self.transferred_today(account_id), Decimal("0.00"))
        if account["freeze"]:
            shown["freeze"] = account["freeze"]
        return shown

    @tool(kind="read")
    def get_loyalty_balance(self, account_id: str) -> dict[str, Any]:
        """Get an account's loyalty points balance and its most recent loyalty ledger entries.

        Args:
            account_id: Account id, e.g. "ACC-1002".
        """
        account = self.get("accounts", account_id)
        entries = [e for e in self.state["loyalty_ledger"] if e["account_id"] == account_id][-5:]
        return {
            "account_id": account_id,
            "loyalty_points": account["loyalty_points"],
            "points_per_dollar": self.settings["loyalty_points_per_dollar"],
            "recent_entries": entries,
        }

    @tool(kind="write", prose=("reason",))
    def freeze_account(
        self, account_id: str, reason: Annotated[str, Required("Give the reason for the freeze.")]
    ) -> dict[str, Any]:
        """Freeze an account at the holder's request (lost card or phone, suspected fraud).

        A frozen account cannot send or receive transfers, make payments or change payment
        methods. Refunds and disputes still work.

        Args:
            account_id: Account id to freeze.
            reason: Why the customer wants the freeze, in a few words (e.g. "lost phone").
        """
        account = self.get("accounts", account_id)
        require(account["status"] != "closed", 409, "ACCOUNT_CLOSED", f"Account {account_id} is closed.")
        require(account["status"] != "frozen", 409, "ALREADY_FROZEN", f"Account {account_id} is already frozen.")
        account["status"] = "frozen"
        account["freeze"] = {"frozen_by": "customer", "reason": reason, "frozen_at": self.stamp()}
        return {"account_id": account_id, "status": "frozen", "freeze": account["freeze"]}

    @tool(kind="write")
    def unfreeze_account(self, account_id: str) -> dict[str, Any]:
        """Lift a freeze the customer placed themselves. Risk and compliance holds cannot be lifted here.

        Args:
            account_id: Account id to unfreeze.
        """
        account = self.get("accounts", account_id)
        status = account["status"]
        require(status == "frozen", 409, "NOT_FROZEN", f"Account {account_id} is not frozen (status {status}).")
        frozen_by = account["freeze"]["frozen_by"] if account["freeze"] else None
        message = f"Account {account_id} is held by {frozen_by}; only that team can lift it."
        require(frozen_by == "customer", 403, "HOLD_NOT_REMOVABLE", message)
        account["status"] = "active"
        account["freeze"] = None
        return {"account_id": account_id, "status": "active"}
