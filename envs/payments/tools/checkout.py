"""The checkout chain: charge, receipt, loyalty points, audit log (each step its own tool)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pytest_crmbench import Amount, Rejection, Required, require, tool

from .base import PaymentsTools, derive_status, points_for


class CheckoutTools(PaymentsTools):
    @tool(kind="write", prose=("description",))
    def process_payment(
        self,
        account_id: str,
        amount: Amount,
        payment_method_id: str,
        merchant: Annotated[str, Required("Name the merchant.")],
        description: str = "",
    ) -> dict[str, Any]:
        """Charge a checkout to one of the account's payment methods (step 1 of the checkout chain).

        Returns the new transaction id; use it for send_receipt, award_loyalty_points and
        log_transaction. Never call it twice for one purchase: that charges the customer twice.

        Args:
            account_id: Account id of the paying customer.
            amount: Amount in USD, at most 5,000.00.
            payment_method_id: Id of an active method on the account (see list_payment_methods).
            merchant: Who is being paid, e.g. "Blue Bottle Coffee".
            description: What is being bought.
        """
        account = self.open_account(account_id)
        limit = self.settings["per_payment_limit"]
        message = f"Single payments are limited to {limit} USD."
        require(amount <= limit, 422, "AMOUNT_EXCEEDS_LIMIT", message, param="amount")
        method = self.method_of(payment_method_id, account_id)
        status = method["status"]
        message = f"{payment_method_id} is waiting for micro-deposit verification."
        require(status != "pending_verification", 409, "PAYMENT_METHOD_UNVERIFIED", message, param="payment_method_id")
        message = f"{payment_method_id} is {status}."
        require(status == "active", 409, "PAYMENT_METHOD_INACTIVE", message, param="payment_method_id")
        if self.expired(method):
            message = f"Card ending {method['last4']} expired {method['exp_month']:02d}/{method['exp_year']}."
            raise Rejection(422, "PAYMENT_METHOD_EXPIRED", message, param="payment_method_id")
        charge = {"account_id": account_id, "merchant": merchant, "description": description, "amount": amount}
        method_fields = {"payment_method_id": payment_method_id, "method_type": method["type"]}
        txn = self.insert("transactions", {**charge, **method_fields, "created_at": self.stamp()})
        account["cycle_spend"] += amount
        shown = ("transaction_id", "status", "amount", "currency", "payment_method_id", "method_type")
        return {key: txn[key] for key in shown}

    @tool(kind="write")
    def send_receipt(
        self, account_id: str, transaction_id: str, channel: Literal["email", "sms"] = "email"
    ) -> dict[str, Any]:
        """Send the receipt of a transaction to the contact details on file (step 2 of checkout; also for copies).

        Receipts only go to the email or phone on file, never to another address.

        Args:
            account_id: Account id of the customer who made the payment.
            transaction_id: Transaction id returned by process_payment or shown in list_transactions.
            channel: "email" (default) or "sms".
        """
        txn = self.get("transactions", transaction_id, owner=account_id)
        account = self.get("accounts", account_id)
        if channel == "email":
            message = f"Mail to the address on file for {account_id} bounces; try channel 'sms'."
            require(account["email_status"] != "bounced", 422, "EMAIL_UNDELIVERABLE", message, param="channel")
        else:
            message = f"{account_id} has no phone number on file."
            require(account["phone"], 422, "NO_PHONE_ON_FILE", message, param="channel")
        destination = account["email"] if channel == "email" else account["phone"]
        receipt = {"transaction_id": transaction_id, "account_id": account_id, "channel": channel}
        receipt = self.insert("receipts", {**receipt, "destination": destination, "sent_at": self.stamp()})
        txn["receipt_ids"].append(receipt["receipt_id"])
        return receipt

    @tool(kind="write")
    def award_loyalty_points(self, account_id: str, transaction_id: str) -> dict[str, Any]:
        """Credit loyalty points for a settled payment: 10 points per dollar, rounded down (step 3 of checkout).

        Points can be awarded once per transaction.

        Args:
            account_id: Account id that made the payment.
            transaction_id: Transaction id returned by process_payment.
        """
        account = self.open_account(account_id, allow_frozen=True)
        txn = self.get("transactions", transaction_id, owner=account_id)
        message = f"Points for {transaction_id} were already awarded."
        require(not txn["loyalty_awarded"], 409, "POINTS_ALREADY_AWARDED", message, param="transaction_id")
        status = derive_status(txn, self.state["disputes"])
        message = f"{transaction_id} is {status}; only settled payments earn points."
        require(status == "settled", 409, "NOT_ELIGIBLE", message, param="transaction_id")
        points = points_for(txn["amount"], self.settings["loyalty_points_per_dollar"])
        txn["loyalty_awarded"] = True
        txn["loyalty_points"] = points
        account["loyalty_points"] += points
        entry = {"account_id": account_id, "transaction_id": transaction_id, "points": points, "kind": "earn"}
        self.insert("loyalty_ledger", {**entry, "created_at": self.stamp()})
        return {
            "transaction_id": transaction_id,
            "points_awarded": points,
            "loyalty_balance": account["loyalty_points"],
        }

    @tool(kind="write", prose=("note",))
    def log_transaction(self, transaction_id: str, note: str = "") -> dict[str, Any]:
        """Write the audit-log entry that closes a checkout (last step of the checkout chain). Once per transaction.

        Args:
            transaction_id: Transaction id returned by process_payment.
            note: Optional short note for the audit log.
        """
        txn = self.get("transactions", transaction_id)
        message = f"{transaction_id} is already in the transaction log."
        require(not txn["logged"], 409, "ALREADY_LOGGED", message, param="transaction_id")
        txn["logged"] = True
        entry = self.log_event(txn, "checkout_completed", note)
        return {
            "log_id": entry["log_id"],
            "transaction_id": transaction_id,
            "event": "checkout_completed",
            "receipt_sent": bool(txn["receipt_ids"]),
            "loyalty_awarded": txn["loyalty_awarded"],
        }
