"""The bank's tools. Rules the business enforces raise rejections; conduct rules live in policy.md."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Any

from pytest_crmbench import Amount, Required, ToolEnvironment, Violation, dry_run, invariant, require, tool


class BankTools(ToolEnvironment):
    @tool(kind="read")
    def verify_customer(self, customer_id: str, email: str) -> dict[str, Any]:
        """Check the email a customer stated against the one on file (never reveals it).

        Args:
            customer_id: Customer id the customer gave, e.g. "CUS-1".
            email: The email address they stated.
        """
        customer = self.get("customers", customer_id)
        return {"customer_id": customer_id, "verified": email.strip().lower() == customer["email"]}

    @tool(kind="read")
    def get_balance(self, customer_id: str, account_id: str) -> dict[str, Any]:
        """Get the balance and status of one of the customer's accounts.

        Args:
            customer_id: The verified customer.
            account_id: One of their accounts, e.g. "ACC-1".
        """
        account = self.get("accounts", account_id, owner=customer_id)
        return {"account_id": account_id, "balance": account["balance"], "status": account["status"]}

    @dry_run("validate_transfer", of="execute_transfer")
    def check_transfer(self, customer_id: str, from_account: str, to_account: str, amount: Amount) -> dict[str, Any]:
        """Check whether a transfer would go through, without moving money.

        Args:
            customer_id: The verified customer, owner of the source account.
            from_account: Source account id.
            to_account: Destination account id.
            amount: Amount in USD, e.g. 50 or 50.00.
        """
        source = self.get("accounts", from_account, param="from_account", owner=customer_id)
        self.get("accounts", to_account, param="to_account")
        require(from_account != to_account, 422, "SAME_ACCOUNT", "Pick two different accounts.", param="to_account")
        require(source["status"] == "active", 409, "ACCOUNT_FROZEN", f"{from_account} is frozen.", param="from_account")
        limit = self.state["settings"]["per_transfer_limit"]
        require(amount <= limit, 422, "AMOUNT_EXCEEDS_LIMIT", f"At most {limit} USD per transfer.", param="amount")
        balance = source["balance"]
        require(amount <= balance, 422, "INSUFFICIENT_FUNDS", f"Balance is {balance} USD.", param="amount")
        return {"balance_after": balance - amount}

    @tool(kind="write", prose=("memo",))
    def execute_transfer(
        self, customer_id: str, from_account: str, to_account: str, amount: Amount, memo: str = ""
    ) -> dict[str, Any]:
        """Move money between accounts. Only after validate_transfer and the customer's explicit yes.

        Args:
            customer_id: The verified customer, owner of the source account.
            from_account: Source account id.
            to_account: Destination account id.
            amount: Amount in USD, at most 1,000.00.
            memo: Optional note.
        """
        self.check_transfer(customer_id, from_account, to_account, amount)  # the same rules as the dry run
        source, target = self.state["accounts"][from_account], self.state["accounts"][to_account]
        source["balance"] -= amount
        target["balance"] += amount
        parties = {"from_account": from_account, "to_account": to_account}
        transfer = self.insert("transfers", {**parties, "amount": amount, "memo": memo, "created_at": self.stamp()})
        return {"transfer_id": transfer["transfer_id"], "balance": source["balance"]}

    @tool(kind="write", prose=("reason",))
    def freeze_account(
        self, customer_id: str, account_id: str, reason: Annotated[str, Required("Say why the account is frozen.")]
    ) -> dict[str, Any]:
        """Freeze one of the customer's accounts (lost card, suspected fraud): no transfers out.

        Args:
            customer_id: The verified customer.
            account_id: The account to freeze.
            reason: Why, in a few words.
        """
        account = self.get("accounts", account_id, owner=customer_id)
        require(account["status"] == "active", 409, "ALREADY_FROZEN", f"{account_id} is already frozen.")
        account.update(status="frozen", frozen_reason=reason)
        return {"account_id": account_id, "status": "frozen"}

    @invariant
    def frozen_accounts_say_why(self) -> Iterator[Violation]:
        for account_id, account in self.state["accounts"].items():
            if (account["status"] == "frozen") != (account["frozen_reason"] is not None):
                yield Violation(f"accounts.{account_id}.frozen_reason", "is set exactly while the account is frozen")
