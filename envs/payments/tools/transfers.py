"""Account-to-account transfers: the rules once, as a check the dry run and the transfer share."""

from __future__ import annotations

from typing import Any

from pytest_crmbench import Amount, dry_run, require, tool

from .base import PaymentsTools

TRANSFER_REASONS = {
    "INSUFFICIENT_FUNDS": "Insufficient funds",
    "AMOUNT_EXCEEDS_LIMIT": "Amount exceeds the per-transfer limit",
    "DAILY_LIMIT_EXCEEDED": "Daily transfer limit exceeded",
    "SAME_ACCOUNT": "Source and destination are the same account",
    "ACCOUNT_NOT_FOUND": "Account not found",
    "ACCOUNT_FROZEN": "Account frozen",
    "ACCOUNT_CLOSED": "Account closed",
    "INVALID_AMOUNT": "Invalid amount",
}
"""The short ``reason`` validate_transfer gives with each code."""


class TransferTools(PaymentsTools):
    @dry_run("validate_transfer", of="execute_transfer", reasons=TRANSFER_REASONS)
    def check_transfer(self, from_account: str, to_account: str, amount: Amount) -> dict[str, Any]:
        """Check whether a transfer would go through, without moving any money.

        Runs every rule execute_transfer applies (accounts exist and are active, amount positive
        with at most 2 decimals, 10,000.00 USD per-transfer limit, daily limit, sufficient funds)
        and answers valid true/false with the reason and code of the first failed rule.

        Args:
            from_account: Source account id (the customer's own account).
            to_account: Destination account id.
            amount: Amount in USD, e.g. 50 or 50.00.
        """
        message = "Source and destination must be different accounts."
        require(from_account != to_account, 422, "SAME_ACCOUNT", message, param="to_account")
        source = self.open_account(from_account, "from_account")
        self.open_account(to_account, "to_account")
        limit = self.settings["per_transfer_limit"]
        message = f"Transfers are limited to {limit} USD each; split the amount or send at most {limit}."
        require(amount <= limit, 422, "AMOUNT_EXCEEDS_LIMIT", message, param="amount")
        daily = source["daily_transfer_limit"]
        left = daily - self.transferred_today(from_account)
        message = f"Daily transfer limit of {daily} USD; {left} USD remains today."
        require(amount <= left, 422, "DAILY_LIMIT_EXCEEDED", message, param="amount")
        balance = source["balance"]
        message = f"Insufficient funds: balance {balance} USD, short by {amount - balance} USD."
        require(amount <= balance, 422, "INSUFFICIENT_FUNDS", message, param="amount")
        return {
            "from_account": from_account,
            "to_account": to_account,
            "amount": amount,
            "balance_after": balance - amount,
        }

    @tool(kind="write", counterparty=("to_account",), prose=("memo",))
    def execute_transfer(self, from_account: str, to_account: str, amount: Amount, memo: str = "") -> dict[str, Any]:
        """Move money from one account's balance to another's. Only after the customer said yes.

        Args:
            from_account: Source account id (the verified customer's account).
            to_account: Destination account id.
            amount: Amount in USD, at most 10,000.00 per transfer.
            memo: Optional note shown on both statements.
        """
        self.check_transfer(from_account, to_account, amount)
        source, destination = self.state["accounts"][from_account], self.state["accounts"][to_account]
        source["balance"] -= amount
        destination["balance"] += amount
        parties = {"from_account": from_account, "to_account": to_account}
        transfer = self.insert("transfers", {**parties, "amount": amount, "memo": memo, "created_at": self.stamp()})
        return {
            "transfer_id": transfer["transfer_id"],
            "status": "completed",
            "amount": amount,
            "from_balance": source["balance"],
            "to_account": to_account,
        }
