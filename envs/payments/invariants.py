"""Rules every payments world keeps: the seed, every task's initial state, and every state the tools
reach (``crmbench validate`` checks the first two; ``tests/envs/payments`` the third, with hypothesis)."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal

from pytest_crmbench import Violation, invariant

from .data_model import OPEN_DISPUTE
from .tools.base import PaymentsTools, derive_status, points_for, remaining


class WorldInvariants(PaymentsTools):
    @invariant
    def payments_add_up(self) -> Iterator[Violation]:
        """A payment's refunds sum to its refunded amount, never above the charge; its status and
        loyalty points follow from them."""
        refunds, disputes = self.state["refunds"], self.state["disputes"]
        rate = self.settings["loyalty_points_per_dollar"]
        for txn_id, txn in self.state["transactions"].items():
            path = f"transactions.{txn_id}"
            known = [refunds[r] for r in txn["refund_ids"] if r in refunds]
            if len(known) != len(txn["refund_ids"]) or any(r["transaction_id"] != txn_id for r in known):
                yield Violation(f"{path}.refund_ids", "lists a refund that does not exist or is of another payment")
            refunded = sum((r["amount"] for r in known), Decimal("0.00"))
            if refunded != txn["refunded_amount"] or remaining(txn) < 0:
                yield Violation(
                    f"{path}.refunded_amount",
                    f"is {txn['refunded_amount']}; its refunds add up to {refunded} of {txn['amount']}",
                )
            if txn["status"] != derive_status(txn, disputes):
                yield Violation(
                    f"{path}.status",
                    f"is {txn['status']!r}; its refunds and dispute make it {derive_status(txn, disputes)!r}",
                )
            points = points_for(remaining(txn), rate) if txn["loyalty_awarded"] else 0
            if txn["loyalty_points"] != points:
                yield Violation(
                    f"{path}.loyalty_points", f"is {txn['loyalty_points']}; the unrefunded amount earns {points}"
                )

    @invariant
    def transfers_move_balances(self) -> Iterator[Violation]:
        """Every transfer on record moved money: each balance is its opening balance plus the
        transfers in minus the transfers out (a transfer record alone would debit and credit nobody,
        and statements would stop reconciling)."""
        accounts = self.state["accounts"]
        moved = {account_id: Decimal("0.00") for account_id in accounts}
        for transfer in self.state["transfers"].values():
            if transfer["from_account"] in moved:
                moved[transfer["from_account"]] -= transfer["amount"]
            if transfer["to_account"] in moved:
                moved[transfer["to_account"]] += transfer["amount"]
        for account_id, account in accounts.items():
            expected = account["opening_balance"] + moved[account_id]
            if account["balance"] != expected:
                yield Violation(
                    f"accounts.{account_id}.balance",
                    f"is {account['balance']}; its opening balance {account['opening_balance']} and its transfers"
                    f" make it {expected}",
                )

    @invariant
    def references_resolve(self) -> Iterator[Violation]:
        """A payment's method, and a refund's, dispute's or receipt's payment, is of the record's own
        account (that each id names a record at all is checked from the data model's Refs)."""
        accounts, methods = self.state["accounts"], self.state["payment_methods"]
        transactions = self.state["transactions"]
        for txn_id, txn in transactions.items():
            method = methods.get(txn["payment_method_id"])
            if txn["account_id"] not in accounts or method is None or method["account_id"] != txn["account_id"]:
                yield Violation(f"transactions.{txn_id}.payment_method_id", "is not a method of the payment's account")
            elif method["type"] != txn["method_type"]:
                yield Violation(
                    f"transactions.{txn_id}.method_type",
                    f"is {txn['method_type']!r}; the method is a {method['type']!r}",
                )
        for name in ("refunds", "disputes", "receipts"):
            for record_id, record in self.state[name].items():
                txn = transactions.get(record["transaction_id"])
                if txn is None or txn["account_id"] != record["account_id"]:
                    yield Violation(f"{name}.{record_id}.transaction_id", "is not a payment of the record's account")

    @invariant
    def disputes_match_their_payment(self) -> Iterator[Violation]:
        """An open dispute is the one its payment points at, for at most what is not refunded."""
        for dispute_id, dispute in self.state["disputes"].items():
            txn = self.state["transactions"].get(dispute["transaction_id"])
            if txn is None or dispute["status"] not in OPEN_DISPUTE:
                continue
            if txn["dispute_id"] != dispute_id:
                yield Violation(
                    f"transactions.{dispute['transaction_id']}.dispute_id", f"is not its open dispute {dispute_id}"
                )
            if dispute["amount"] > txn["amount"]:
                yield Violation(f"disputes.{dispute_id}.amount", f"is more than the charge of {txn['amount']}")

    @invariant
    def accounts_are_consistent(self) -> Iterator[Violation]:
        """Frozen exactly when a freeze is recorded; the default method is an active one of the
        account; the account holds at least the loyalty points its payments hold."""
        held: dict[str, int] = {}
        for txn in self.state["transactions"].values():
            held[txn["account_id"]] = held.get(txn["account_id"], 0) + txn["loyalty_points"]
        for account_id, account in self.state["accounts"].items():
            path = f"accounts.{account_id}"
            if (account["status"] == "frozen") != (account["freeze"] is not None):
                yield Violation(
                    f"{path}.freeze", f"must be set exactly while the account is frozen (status {account['status']!r})"
                )
            default = self.state["payment_methods"].get(account["default_payment_method"] or "")
            if account["default_payment_method"] is not None and (
                default is None or default["account_id"] != account_id or default["status"] == "removed"
            ):
                yield Violation(f"{path}.default_payment_method", "is not an active method of the account")
            if account["loyalty_points"] < held.get(account_id, 0):
                yield Violation(f"{path}.loyalty_points", f"is below the {held[account_id]} points its payments hold")
