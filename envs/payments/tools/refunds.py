"""Refunds to the original payment method, and disputes (chargebacks) with the card network."""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated, Any

from pytest_crmbench import Amount, Required, require, tool

from ..data_model import OPEN_DISPUTE, DisputeReason
from .base import PaymentsTools, derive_status, points_for, remaining


class RefundTools(PaymentsTools):
    def _charge(self, account_id: str, transaction_id: str) -> dict[str, Any]:
        """The customer's payment to refund or dispute (another customer's is a 403 NOT_OWNER): its
        account may be frozen (refunds and disputes still work there), not closed."""
        txn = self.get("transactions", transaction_id, owner=account_id)
        self.open_account(txn["account_id"], allow_frozen=True)
        return txn

    @tool(kind="write", prose=("reason",))
    def issue_refund(
        self,
        account_id: str,
        transaction_id: str,
        amount: Amount,
        reason: Annotated[str, Required("Give a reason for the refund.")],
    ) -> dict[str, Any]:
        """Refund all or part of a payment to its original payment method.

        Allowed within 90 days of the payment, up to the amount not yet refunded, and never while
        the charge is under dispute. Loyalty points earned on the refunded part are reversed.

        Args:
            account_id: Account id of the customer who made the payment.
            transaction_id: Transaction id of the payment to refund.
            amount: Amount in USD to refund (full or partial).
            reason: Short reason, e.g. "item returned" or "duplicate charge".
        """
        txn = self._charge(account_id, transaction_id)
        disputed, age = derive_status(txn, self.state["disputes"]) == "disputed", self.age_days(txn["created_at"])
        message = f"{transaction_id} is under dispute {txn['dispute_id']}; a refund would pay the customer twice."
        require(not disputed, 409, "CHARGE_DISPUTED", message, param="transaction_id")
        left = remaining(txn)
        message = f"{transaction_id} has already been fully refunded."
        require(left > 0, 409, "ALREADY_REFUNDED", message, param="transaction_id")
        window = self.settings["refund_window_days"]
        message = f"{transaction_id} is {age} days old; refunds are allowed within {window} days."
        require(age <= window, 422, "REFUND_WINDOW_EXPIRED", message, param="transaction_id")
        message = f"Only {left} USD of {transaction_id} remains refundable."
        require(amount <= left, 422, "AMOUNT_EXCEEDS_REMAINING", message, param="amount")
        account = self.state["accounts"][txn["account_id"]]
        stamp = self.stamp()
        refund = {"transaction_id": transaction_id, "account_id": txn["account_id"], "amount": amount, "reason": reason}
        refund = self.insert("refunds", {**refund, "payment_method_id": txn["payment_method_id"], "created_at": stamp})
        txn["refunded_amount"] += amount
        txn["refund_ids"].append(refund["refund_id"])
        txn["status"] = derive_status(txn, self.state["disputes"])
        reversed_points = 0
        if txn["loyalty_awarded"]:
            kept = points_for(remaining(txn), self.settings["loyalty_points_per_dollar"])
            reversed_points = txn["loyalty_points"] - kept
            if reversed_points:
                txn["loyalty_points"] = kept
                account["loyalty_points"] = max(account["loyalty_points"] - reversed_points, 0)
                entry = {"account_id": txn["account_id"], "transaction_id": transaction_id, "points": -reversed_points}
                self.insert("loyalty_ledger", {**entry, "kind": "reversal", "created_at": stamp})
        self.log_event(txn, "refund_issued", f"{refund['refund_id']} {amount} USD: {reason}")
        return {
            "refund_id": refund["refund_id"],
            "transaction_id": transaction_id,
            "amount": amount,
            "refunded_to": txn["payment_method_id"],
            "transaction_status": txn["status"],
            "loyalty_points_reversed": reversed_points,
        }

    @tool(kind="write", prose=("details",))
    def open_dispute(
        self,
        account_id: str,
        transaction_id: str,
        reason: DisputeReason,
        details: Annotated[str, Required("Describe what happened.")],
    ) -> dict[str, Any]:
        """Open a dispute (chargeback) on a payment with the card network or PayPal.

        Only for charges not fully refunded, within 120 days, and with no dispute already open.
        The disputed amount is the part not yet refunded. While open, the charge cannot be refunded.

        Args:
            account_id: Account id of the customer who made the payment.
            transaction_id: Transaction id of the charge.
            reason: One of fraudulent (customer did not make it), unrecognized, duplicate,
                product_not_received, product_unacceptable, subscription_canceled,
                credit_not_processed, general.
            details: The customer's account of what happened, in one or two sentences.
        """
        txn = self._charge(account_id, transaction_id)
        disputed, age = derive_status(txn, self.state["disputes"]) == "disputed", self.age_days(txn["created_at"])
        message = f"{transaction_id} already has an open dispute {txn['dispute_id']}."
        require(not disputed, 409, "DISPUTE_EXISTS", message, param="transaction_id")
        message = f"{transaction_id} was fully refunded; there is nothing left to dispute."
        require(remaining(txn) > 0, 409, "ALREADY_REFUNDED", message, param="transaction_id")
        window = self.settings["dispute_window_days"]
        message = f"{transaction_id} is {age} days old; disputes must be opened within {window} days."
        require(age <= window, 422, "DISPUTE_WINDOW_EXPIRED", message, param="transaction_id")
        due = (self.today() + timedelta(days=21)).isoformat()
        claim = {"transaction_id": transaction_id, "account_id": txn["account_id"], "amount": remaining(txn)}
        dispute = self.insert(
            "disputes",
            {**claim, "reason": reason, "details": details, "opened_at": self.stamp(), "evidence_due_by": due},
        )
        txn["dispute_id"] = dispute["dispute_id"]
        txn["status"] = "disputed"
        self.log_event(txn, "dispute_opened", f"{dispute['dispute_id']} {reason}")
        return dispute

    @tool(kind="read")
    def get_dispute(self, dispute_id: str) -> dict[str, Any]:
        """Get a dispute's status, amount, reason and deadlines.

        Args:
            dispute_id: Dispute id, e.g. "DSP-000123".
        """
        return self.get("disputes", dispute_id)

    @tool(kind="write", prose=("reason",))
    def withdraw_dispute(
        self, dispute_id: str, reason: Annotated[str, Required("Give the reason for withdrawing.")]
    ) -> dict[str, Any]:
        """Withdraw an open dispute at the customer's request (e.g. they now recognise the charge).

        Args:
            dispute_id: Dispute id.
            reason: Why the customer withdraws it.
        """
        dispute = self.get("disputes", dispute_id)
        message = f"{dispute_id} is already {dispute['status']}."
        require(dispute["status"] in OPEN_DISPUTE, 409, "DISPUTE_CLOSED", message, param="dispute_id")
        dispute["status"] = "withdrawn"
        dispute["closed_at"] = self.stamp()
        txn = self.state["transactions"][dispute["transaction_id"]]
        txn["status"] = derive_status(txn, self.state["disputes"])
        self.log_event(txn, "dispute_withdrawn", f"{dispute_id}: {reason}")
        return {
            "dispute_id": dispute_id,
            "status": "withdrawn",
            "transaction_id": txn["transaction_id"],
            "transaction_status": txn["status"],
        }
