"""The payments ToolEnvironment: wallet accounts, transfers, checkout, refunds, disputes.

Every tool is a method; its type hints and Google-style docstring become the JSON schema the
model sees. Business rules that must hold whatever the agent does (frozen accounts, funds,
limits, windows, duplicates) raise :class:`Rejection` *before* any mutation; the engine also
rolls the state back on a rejection. Policy-only rules (identity checks, explicit confirmation)
live in ``policy.md`` and are tested by the tasks' negative checks.

Money is ``Decimal`` quantized to cents everywhere in state; tool inputs are coerced with
``Decimal(str(x))`` so floats never leak in.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import date, datetime, timedelta
from decimal import ROUND_FLOOR, Decimal, InvalidOperation
from pathlib import Path
from typing import Any, Literal

from pytest_crmbench.env.environment import Rejection, ToolEnvironment, clone, tool

from .data_model import DisputeReason

SEED_PATH = Path(__file__).with_name("seed.json")
CENT = Decimal("0.01")
MONEY_KEYS = frozenset(
    {
        "balance",
        "amount",
        "refunded_amount",
        "daily_transfer_limit",
        "cycle_spend",
        "per_transfer_limit",
        "per_payment_limit",
    }
)
"""Keys whose values are money wherever they appear in the state tree."""


def money(value: Any) -> Decimal:
    """An exact amount in cents from a Decimal, int, float or numeric string."""
    return Decimal(str(value)).quantize(CENT)


def normalize_money(tree: Any) -> Any:
    """A copy of ``tree`` with every money field converted to a cents Decimal."""
    if isinstance(tree, Mapping):
        return {
            k: (
                money(v)
                if k in MONEY_KEYS and v is not None and not isinstance(v, (dict, list, bool))
                else normalize_money(v)
            )
            for k, v in tree.items()
        }
    if isinstance(tree, list):
        return [normalize_money(v) for v in tree]
    return tree


def points_for(amount: Decimal, per_dollar: int) -> int:
    """Loyalty points for a settled amount: floor(amount x rate)."""
    return int((amount * per_dollar).to_integral_value(rounding=ROUND_FLOOR))


def _norm(text: str | None) -> str:
    return " ".join((text or "").split()).casefold()


class PaymentsEnvironment(ToolEnvironment):
    """Payments operations for wallet customers: balances, transfers, checkout, refunds, disputes."""

    domain = "payments"

    def prepare_override(self, override: Mapping[str, Any]) -> Mapping[str, Any]:
        # Overrides written in YAML carry floats or strings; store money as cents Decimals.
        return normalize_money(override)  # type: ignore[no-any-return]

    def default_state(self) -> dict[str, Any]:
        state = json.loads(SEED_PATH.read_text(encoding="utf-8"), parse_float=Decimal)
        return normalize_money(state)  # type: ignore[no-any-return]

    # ------------------------------------------------------------------ helpers

    @property
    def settings(self) -> dict[str, Any]:
        return self.state["settings"]  # type: ignore[no-any-return]

    def _today(self) -> date:
        return datetime.fromisoformat(self.clock_start).date()

    def _stamp(self) -> str:
        return self.now().isoformat()

    def _account(self, account_id: str, param: str = "account_id") -> dict[str, Any]:
        account = self.state["accounts"].get(account_id)
        if account is None:
            raise Rejection(404, "ACCOUNT_NOT_FOUND", f"No account with id {account_id!r}.", param=param)
        return account  # type: ignore[no-any-return]

    def _open_account(
        self, account_id: str, param: str = "account_id", *, allow_frozen: bool = False
    ) -> dict[str, Any]:
        """The account, provided it may move money (closed: 409; frozen: 403 unless allowed)."""
        account = self._account(account_id, param)
        if account["status"] == "closed":
            raise Rejection(409, "ACCOUNT_CLOSED", f"Account {account_id} is closed.", param=param)
        if account["status"] == "frozen" and not allow_frozen:
            raise Rejection(
                403, "ACCOUNT_FROZEN", f"Account {account_id} is frozen; money movement is blocked.", param=param
            )
        return account

    def _transaction(self, transaction_id: str) -> dict[str, Any]:
        txn = self.state["transactions"].get(transaction_id)
        if txn is None:
            raise Rejection(
                404, "TRANSACTION_NOT_FOUND", f"No transaction with id {transaction_id!r}.", param="transaction_id"
            )
        return txn  # type: ignore[no-any-return]

    def _owned_transaction(self, transaction_id: str, account_id: str) -> dict[str, Any]:
        self._account(account_id)
        txn = self._transaction(transaction_id)
        if txn["account_id"] != account_id:
            raise Rejection(
                403,
                "NOT_OWNER",
                f"Transaction {transaction_id} does not belong to {account_id}.",
                param="transaction_id",
            )
        return txn

    def _method(self, payment_method_id: str, account_id: str) -> dict[str, Any]:
        method = self.state["payment_methods"].get(payment_method_id)
        if method is None or method["account_id"] != account_id:
            raise Rejection(
                404,
                "PAYMENT_METHOD_NOT_FOUND",
                f"Account {account_id} has no payment method {payment_method_id!r}.",
                param="payment_method_id",
            )
        return method  # type: ignore[no-any-return]

    @staticmethod
    def _amount(value: Decimal, param: str = "amount") -> Decimal:
        try:
            amount = Decimal(str(value))
        except InvalidOperation:
            raise Rejection(422, "INVALID_AMOUNT", "Amount must be a number.", param=param) from None
        if not amount.is_finite() or amount <= 0:
            raise Rejection(422, "INVALID_AMOUNT", "Amount must be greater than zero.", param=param)
        if amount != amount.quantize(CENT):
            raise Rejection(422, "INVALID_AMOUNT", "Amount cannot have more than two decimal places.", param=param)
        return amount.quantize(CENT)

    @staticmethod
    def _remaining(txn: Mapping[str, Any]) -> Decimal:
        """What of a payment is not refunded yet (refundable, or still disputable)."""
        return money(txn["amount"]) - money(txn["refunded_amount"])

    def _age_days(self, iso: str) -> int:
        return (self._today() - datetime.fromisoformat(iso).date()).days

    def _expired(self, method: Mapping[str, Any]) -> bool:
        if method["type"] != "card":
            return False
        today = self._today()
        return (int(method["exp_year"]), int(method["exp_month"])) < (today.year, today.month)

    def _transferred_today(self, account_id: str) -> Decimal:
        today = self._today().isoformat()
        return sum(
            (
                money(t["amount"])
                for t in self.state["transfers"].values()
                if t["from_account"] == account_id and t["created_at"][:10] == today
            ),
            Decimal("0.00"),
        )

    @staticmethod
    def _derive_status(txn: dict[str, Any], disputes: Mapping[str, Any]) -> str:
        dispute = disputes.get(txn.get("dispute_id") or "")
        if dispute is not None and dispute["status"] in ("needs_response", "under_review"):
            return "disputed"
        refunded, amount = money(txn["refunded_amount"]), money(txn["amount"])
        if refunded >= amount:
            return "refunded"
        return "partially_refunded" if refunded > 0 else "settled"

    def _log(self, txn: Mapping[str, Any], event: str, note: str = "") -> dict[str, Any]:
        entry = {
            "log_id": self.new_id("LOG"),
            "transaction_id": txn["transaction_id"],
            "account_id": txn["account_id"],
            "event": event,
            "note": note,
            "created_at": self._stamp(),
        }
        self.state["transaction_log"].append(entry)
        return entry

    def _transfer_problem(self, from_account: str, to_account: str, amount: Decimal) -> Rejection | None:
        """The first rule a transfer breaks, in the order ops checks them, or None."""
        try:
            value = self._amount(amount)
            if from_account == to_account:
                return Rejection(
                    422, "SAME_ACCOUNT", "Source and destination must be different accounts.", param="to_account"
                )
            source = self._open_account(from_account, "from_account")
            self._open_account(to_account, "to_account")
        except Rejection as rejection:
            return rejection
        limit = money(self.settings["per_transfer_limit"])
        if value > limit:
            return Rejection(
                422,
                "AMOUNT_EXCEEDS_LIMIT",
                f"Transfers are limited to {limit} USD each; split the amount or send at most {limit}.",
                param="amount",
            )
        remaining = money(source["daily_transfer_limit"]) - self._transferred_today(from_account)
        if value > remaining:
            return Rejection(
                422,
                "DAILY_LIMIT_EXCEEDED",
                f"Daily transfer limit of {money(source['daily_transfer_limit'])} USD; {remaining} USD remains today.",
                param="amount",
            )
        balance = money(source["balance"])
        if value > balance:
            return Rejection(
                422,
                "INSUFFICIENT_FUNDS",
                f"Insufficient funds: balance {balance} USD, short by {value - balance} USD.",
                param="amount",
            )
        return None

    @staticmethod
    def _public_account(account: Mapping[str, Any]) -> dict[str, Any]:
        return {
            "account_id": account["account_id"],
            "holder_name": account["holder_name"],
            "status": account["status"],
            "balance": money(account["balance"]),
            "currency": account["currency"],
        }

    def _public_method(self, method: Mapping[str, Any]) -> dict[str, Any]:
        account = self.state["accounts"][method["account_id"]]
        shown = {k: v for k, v in method.items() if v is not None and k != "routing_number"}
        shown["is_default"] = account.get("default_payment_method") == method["payment_method_id"]
        if method["type"] == "card":
            shown["expired"] = self._expired(method)
        return shown

    def _public_transaction(self, txn: Mapping[str, Any]) -> dict[str, Any]:
        shown: dict[str, Any] = clone(dict(txn))
        shown["refundable_amount"] = self._remaining(txn)
        shown["age_days"] = self._age_days(txn["created_at"])
        shown["refunds"] = [
            {k: refund[k] for k in ("refund_id", "amount", "payment_method_id", "created_at", "reason")}
            for refund in (self.state["refunds"].get(rid) for rid in txn["refund_ids"])
            if refund is not None
        ]
        return shown

    # ------------------------------------------------------------------ identity & balance

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
        account = self._account(account_id)
        if not full_name and not email:
            raise Rejection(422, "MISSING_IDENTITY_DETAILS", "Give the holder's full name or the email on file.")
        checks = {}
        if full_name:
            checks["full_name"] = _norm(full_name) == _norm(account["holder_name"])
        if email:
            checks["email"] = _norm(email) == _norm(account["email"])
        return {"account_id": account_id, "verified": all(checks.values()), "checks": checks}

    @tool(kind="read")
    def get_account_balance(self, account_id: str) -> dict[str, Any]:
        """Get an account's current balance, status and today's remaining transfer allowance.

        Args:
            account_id: Account id, e.g. "ACC-1001".
        """
        account = self._account(account_id)
        shown = self._public_account(account)
        limit = money(account["daily_transfer_limit"])
        shown["daily_transfer_limit"] = limit
        shown["transfer_allowance_remaining_today"] = max(limit - self._transferred_today(account_id), Decimal("0.00"))
        if account.get("freeze"):
            shown["freeze"] = clone(account["freeze"])
        return shown

    @tool(kind="read")
    def get_loyalty_balance(self, account_id: str) -> dict[str, Any]:
        """Get an account's loyalty points balance and its most recent loyalty ledger entries.

        Args:
            account_id: Account id, e.g. "ACC-1002".
        """
        account = self._account(account_id)
        entries = [clone(e) for e in self.state["loyalty_ledger"] if e["account_id"] == account_id][-5:]
        return {
            "account_id": account_id,
            "loyalty_points": account["loyalty_points"],
            "points_per_dollar": self.settings["loyalty_points_per_dollar"],
            "recent_entries": entries,
        }

    # ------------------------------------------------------------------ account security

    @tool
    def freeze_account(self, account_id: str, reason: str) -> dict[str, Any]:
        """Freeze an account at the holder's request (lost card or phone, suspected fraud).

        A frozen account cannot send or receive transfers, make payments or change payment
        methods. Refunds and disputes still work.

        Args:
            account_id: Account id to freeze.
            reason: Why the customer wants the freeze, in a few words (e.g. "lost phone").
        """
        account = self._account(account_id)
        if account["status"] == "closed":
            raise Rejection(409, "ACCOUNT_CLOSED", f"Account {account_id} is closed.")
        if account["status"] == "frozen":
            raise Rejection(409, "ALREADY_FROZEN", f"Account {account_id} is already frozen.")
        if not reason.strip():
            raise Rejection(422, "REASON_REQUIRED", "Give the reason for the freeze.", param="reason")
        account["status"] = "frozen"
        account["freeze"] = {"frozen_by": "customer", "reason": reason.strip(), "frozen_at": self._stamp()}
        return {"account_id": account_id, "status": "frozen", "freeze": clone(account["freeze"])}

    @tool
    def unfreeze_account(self, account_id: str) -> dict[str, Any]:
        """Lift a freeze the customer placed themselves. Risk and compliance holds cannot be lifted here.

        Args:
            account_id: Account id to unfreeze.
        """
        account = self._account(account_id)
        if account["status"] != "frozen":
            raise Rejection(409, "NOT_FROZEN", f"Account {account_id} is not frozen (status {account['status']}).")
        frozen_by = (account.get("freeze") or {}).get("frozen_by")
        if frozen_by != "customer":
            raise Rejection(
                403, "HOLD_NOT_REMOVABLE", f"Account {account_id} is held by {frozen_by}; only that team can lift it."
            )
        account["status"] = "active"
        account["freeze"] = None
        return {"account_id": account_id, "status": "active"}

    # ------------------------------------------------------------------ transfers

    @tool(kind="read")
    def validate_transfer(self, from_account: str, to_account: str, amount: Decimal) -> dict[str, Any]:
        """Check whether a transfer would go through, without moving any money.

        Runs every rule execute_transfer applies (accounts exist and are active, amount positive
        with at most 2 decimals, 10,000.00 USD per-transfer limit, daily limit, sufficient funds)
        and answers valid true/false with the reason and code of the first failed rule.

        Args:
            from_account: Source account id (the customer's own account).
            to_account: Destination account id.
            amount: Amount in USD, e.g. 50 or 50.00.
        """
        problem = self._transfer_problem(from_account, to_account, amount)
        if problem is None:
            value = money(amount)
            balance = money(self.state["accounts"][from_account]["balance"])
            return {
                "valid": True,
                "from_account": from_account,
                "to_account": to_account,
                "amount": value,
                "balance_after": balance - value,
            }
        reasons = {
            "INSUFFICIENT_FUNDS": "Insufficient funds",
            "AMOUNT_EXCEEDS_LIMIT": "Amount exceeds the per-transfer limit",
            "DAILY_LIMIT_EXCEEDED": "Daily transfer limit exceeded",
            "SAME_ACCOUNT": "Source and destination are the same account",
            "ACCOUNT_NOT_FOUND": "Account not found",
            "ACCOUNT_FROZEN": "Account frozen",
            "ACCOUNT_CLOSED": "Account closed",
            "INVALID_AMOUNT": "Invalid amount",
        }
        return {
            "valid": False,
            "reason": reasons.get(problem.code, problem.code),
            "code": problem.status,
            "error_code": problem.code,
            "message": problem.message,
            "param": problem.param,
        }

    @tool
    def execute_transfer(self, from_account: str, to_account: str, amount: Decimal, memo: str = "") -> dict[str, Any]:
        """Move money from one account's balance to another's. Only after the customer said yes.

        Args:
            from_account: Source account id (the verified customer's account).
            to_account: Destination account id.
            amount: Amount in USD, at most 10,000.00 per transfer.
            memo: Optional note shown on both statements.
        """
        problem = self._transfer_problem(from_account, to_account, amount)
        if problem is not None:
            raise problem
        value = money(amount)
        source, destination = self.state["accounts"][from_account], self.state["accounts"][to_account]
        transfer_id = self.new_id("XFER")
        source["balance"] = money(source["balance"]) - value
        destination["balance"] = money(destination["balance"]) + value
        self.state["transfers"][transfer_id] = {
            "transfer_id": transfer_id,
            "from_account": from_account,
            "to_account": to_account,
            "amount": value,
            "currency": "USD",
            "memo": memo,
            "status": "completed",
            "created_at": self._stamp(),
        }
        return {
            "transfer_id": transfer_id,
            "status": "completed",
            "amount": value,
            "from_balance": source["balance"],
            "to_account": to_account,
        }

    # ------------------------------------------------------------------ payment methods

    @tool(kind="read")
    def list_payment_methods(self, account_id: str) -> dict[str, Any]:
        """List the payment methods linked to an account (cards show brand and last 4 only).

        Args:
            account_id: Account id.
        """
        self._account(account_id)
        methods = [
            self._public_method(m)
            for m in self.state["payment_methods"].values()
            if m["account_id"] == account_id and m["status"] != "removed"
        ]
        return {"account_id": account_id, "payment_methods": methods}

    @tool
    def add_payment_method(
        self,
        account_id: str,
        method_type: Literal["paypal", "bank_account"],
        paypal_email: str | None = None,
        bank_name: str | None = None,
        routing_number: str | None = None,
        account_number: str | None = None,
    ) -> dict[str, Any]:
        """Link a PayPal account or a US bank account. Cards cannot be added here (customers add them in the app).

        A bank account starts as pending_verification and cannot be charged until the customer
        confirms two micro-deposits in the app. Never pass card numbers or security codes.

        Args:
            account_id: Account id.
            method_type: "paypal" or "bank_account".
            paypal_email: PayPal login email (for paypal).
            bank_name: Bank name (for bank_account).
            routing_number: 9-digit ABA routing number (for bank_account).
            account_number: Bank account number (for bank_account); only the last 4 digits are kept.
        """
        self._open_account(account_id)
        for param, value in (("paypal_email", paypal_email), ("bank_name", bank_name)):
            digits = "".join(ch for ch in value or "" if ch.isdigit())
            if len(digits) >= 13:
                raise Rejection(
                    422, "SENSITIVE_DATA_REJECTED", "Card numbers must never be sent through this channel.", param=param
                )
        active = [
            m
            for m in self.state["payment_methods"].values()
            if m["account_id"] == account_id and m["status"] != "removed"
        ]
        if len(active) >= int(self.settings["max_active_payment_methods"]):
            raise Rejection(409, "TOO_MANY_PAYMENT_METHODS", "Remove a payment method before adding another.")
        method: dict[str, Any] = {"account_id": account_id, "type": method_type, "added_on": self._today().isoformat()}
        if method_type == "paypal":
            if not paypal_email or "@" not in paypal_email:
                raise Rejection(422, "INVALID_PAYPAL_EMAIL", "Give the PayPal login email.", param="paypal_email")
            if any(m["type"] == "paypal" and _norm(m.get("paypal_email")) == _norm(paypal_email) for m in active):
                raise Rejection(
                    409, "DUPLICATE_PAYMENT_METHOD", "That PayPal account is already linked.", param="paypal_email"
                )
            method.update(status="active", paypal_email=paypal_email.strip())
        else:
            if not (routing_number or "").isdigit() or len(routing_number or "") != 9:
                raise Rejection(
                    422, "INVALID_ROUTING_NUMBER", "A routing number has exactly 9 digits.", param="routing_number"
                )
            number = (account_number or "").replace(" ", "").replace("-", "")
            if not number.isdigit() or not 4 <= len(number) <= 17:
                raise Rejection(
                    422, "INVALID_ACCOUNT_NUMBER", "A bank account number has 4 to 17 digits.", param="account_number"
                )
            if not bank_name:
                raise Rejection(422, "BANK_NAME_REQUIRED", "Give the bank's name.", param="bank_name")
            if any(
                m["type"] == "bank_account"
                and m.get("routing_number") == routing_number
                and m.get("last4") == number[-4:]
                for m in active
            ):
                raise Rejection(
                    409, "DUPLICATE_PAYMENT_METHOD", "That bank account is already linked.", param="account_number"
                )
            method.update(
                status="pending_verification",
                bank_name=bank_name.strip(),
                routing_number=routing_number,
                last4=number[-4:],
            )
        method_id = self.new_id("PM")
        method["payment_method_id"] = method_id
        self.state["payment_methods"][method_id] = method
        return self._public_method(method)

    @tool
    def remove_payment_method(self, account_id: str, payment_method_id: str) -> dict[str, Any]:
        """Unlink a payment method. The default method cannot be removed while others remain: set another default first.

        Args:
            account_id: Account id.
            payment_method_id: Id of the method to remove, e.g. "PM-2011".
        """
        account = self._open_account(account_id)
        method = self._method(payment_method_id, account_id)
        if method["status"] == "removed":
            raise Rejection(
                409, "PAYMENT_METHOD_REMOVED", f"{payment_method_id} is already removed.", param="payment_method_id"
            )
        others = [
            m
            for m in self.state["payment_methods"].values()
            if m["account_id"] == account_id and m["status"] != "removed" and m is not method
        ]
        if account.get("default_payment_method") == payment_method_id:
            if others:
                raise Rejection(
                    409,
                    "DEFAULT_PAYMENT_METHOD",
                    f"{payment_method_id} is the default; set another default first.",
                    param="payment_method_id",
                )
            account["default_payment_method"] = None
        method["status"] = "removed"
        return {"payment_method_id": payment_method_id, "status": "removed", "remaining": len(others)}

    @tool
    def set_default_payment_method(self, account_id: str, payment_method_id: str) -> dict[str, Any]:
        """Make a payment method the account's default for checkout.

        Args:
            account_id: Account id.
            payment_method_id: Id of an active, unexpired method on this account.
        """
        account = self._open_account(account_id)
        method = self._method(payment_method_id, account_id)
        if method["status"] != "active":
            raise Rejection(
                409, "PAYMENT_METHOD_INACTIVE", f"{payment_method_id} is {method['status']}.", param="payment_method_id"
            )
        if self._expired(method):
            raise Rejection(
                422,
                "PAYMENT_METHOD_EXPIRED",
                f"{payment_method_id} expired {method['exp_month']:02d}/{method['exp_year']}.",
                param="payment_method_id",
            )
        if account.get("default_payment_method") == payment_method_id:
            raise Rejection(
                409, "ALREADY_DEFAULT", f"{payment_method_id} is already the default.", param="payment_method_id"
            )
        account["default_payment_method"] = payment_method_id
        return {"account_id": account_id, "default_payment_method": payment_method_id}

    # ------------------------------------------------------------------ checkout chain

    @tool
    def process_payment(
        self, account_id: str, amount: Decimal, payment_method_id: str, merchant: str, description: str = ""
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
        account = self._open_account(account_id)
        value = self._amount(amount)
        limit = money(self.settings["per_payment_limit"])
        if value > limit:
            raise Rejection(422, "AMOUNT_EXCEEDS_LIMIT", f"Single payments are limited to {limit} USD.", param="amount")
        method = self._method(payment_method_id, account_id)
        if method["status"] == "pending_verification":
            raise Rejection(
                409,
                "PAYMENT_METHOD_UNVERIFIED",
                f"{payment_method_id} is waiting for micro-deposit verification.",
                param="payment_method_id",
            )
        if method["status"] != "active":
            raise Rejection(
                409, "PAYMENT_METHOD_INACTIVE", f"{payment_method_id} is {method['status']}.", param="payment_method_id"
            )
        if self._expired(method):
            raise Rejection(
                422,
                "PAYMENT_METHOD_EXPIRED",
                f"Card ending {method['last4']} expired {method['exp_month']:02d}/{method['exp_year']}.",
                param="payment_method_id",
            )
        if not merchant.strip():
            raise Rejection(422, "MERCHANT_REQUIRED", "Name the merchant.", param="merchant")
        transaction_id = self.new_id("TXN")
        self.state["transactions"][transaction_id] = {
            "transaction_id": transaction_id,
            "account_id": account_id,
            "merchant": merchant.strip(),
            "description": description,
            "amount": value,
            "currency": "USD",
            "payment_method_id": payment_method_id,
            "method_type": method["type"],
            "status": "settled",
            "created_at": self._stamp(),
            "refunded_amount": Decimal("0.00"),
            "refund_ids": [],
            "loyalty_awarded": False,
            "loyalty_points": 0,
            "receipt_ids": [],
            "logged": False,
            "dispute_id": None,
        }
        account["cycle_spend"] = money(account["cycle_spend"]) + value
        return {
            "transaction_id": transaction_id,
            "status": "settled",
            "amount": value,
            "currency": "USD",
            "payment_method_id": payment_method_id,
            "method_type": method["type"],
        }

    @tool
    def send_receipt(self, transaction_id: str, channel: Literal["email", "sms"] = "email") -> dict[str, Any]:
        """Send the receipt of a transaction to the contact details on file (step 2 of checkout; also for copies).

        Receipts only go to the email or phone on file, never to another address.

        Args:
            transaction_id: Transaction id returned by process_payment or shown in list_transactions.
            channel: "email" (default) or "sms".
        """
        txn = self._transaction(transaction_id)
        account = self._account(txn["account_id"])
        if channel == "email":
            if account.get("email_status") == "bounced":
                raise Rejection(
                    422,
                    "EMAIL_UNDELIVERABLE",
                    f"Mail to the address on file for {account['account_id']} bounces; try channel 'sms'.",
                    param="channel",
                )
            destination = account["email"]
        else:
            if not account.get("phone"):
                raise Rejection(
                    422, "NO_PHONE_ON_FILE", f"{account['account_id']} has no phone number on file.", param="channel"
                )
            destination = account["phone"]
        receipt_id = self.new_id("RCPT")
        receipt = {
            "receipt_id": receipt_id,
            "transaction_id": transaction_id,
            "account_id": account["account_id"],
            "channel": channel,
            "destination": destination,
            "sent_at": self._stamp(),
        }
        self.state["receipts"][receipt_id] = receipt
        txn["receipt_ids"].append(receipt_id)
        return dict(receipt)

    @tool
    def award_loyalty_points(self, account_id: str, transaction_id: str) -> dict[str, Any]:
        """Credit loyalty points for a settled payment: 10 points per dollar, rounded down (step 3 of checkout).

        Points can be awarded once per transaction.

        Args:
            account_id: Account id that made the payment.
            transaction_id: Transaction id returned by process_payment.
        """
        account = self._open_account(account_id, allow_frozen=True)
        txn = self._owned_transaction(transaction_id, account_id)
        if txn["loyalty_awarded"]:
            raise Rejection(
                409,
                "POINTS_ALREADY_AWARDED",
                f"Points for {transaction_id} were already awarded.",
                param="transaction_id",
            )
        status = self._derive_status(txn, self.state["disputes"])
        if status != "settled":
            raise Rejection(
                409,
                "NOT_ELIGIBLE",
                f"{transaction_id} is {status}; only settled payments earn points.",
                param="transaction_id",
            )
        points = points_for(money(txn["amount"]), int(self.settings["loyalty_points_per_dollar"]))
        txn["loyalty_awarded"] = True
        txn["loyalty_points"] = points
        account["loyalty_points"] = int(account["loyalty_points"]) + points
        self.state["loyalty_ledger"].append(
            {
                "entry_id": self.new_id("LOY"),
                "account_id": account_id,
                "transaction_id": transaction_id,
                "points": points,
                "kind": "earn",
                "created_at": self._stamp(),
            }
        )
        return {
            "transaction_id": transaction_id,
            "points_awarded": points,
            "loyalty_balance": account["loyalty_points"],
        }

    @tool
    def log_transaction(self, transaction_id: str, note: str = "") -> dict[str, Any]:
        """Write the audit-log entry that closes a checkout (last step of the checkout chain). Once per transaction.

        Args:
            transaction_id: Transaction id returned by process_payment.
            note: Optional short note for the audit log.
        """
        txn = self._transaction(transaction_id)
        if txn["logged"]:
            raise Rejection(
                409, "ALREADY_LOGGED", f"{transaction_id} is already in the transaction log.", param="transaction_id"
            )
        txn["logged"] = True
        entry = self._log(txn, "checkout_completed", note)
        return {
            "log_id": entry["log_id"],
            "transaction_id": transaction_id,
            "event": "checkout_completed",
            "receipt_sent": bool(txn["receipt_ids"]),
            "loyalty_awarded": txn["loyalty_awarded"],
        }

    # ------------------------------------------------------------------ transactions & statements

    @tool(kind="read")
    def list_transactions(
        self, account_id: str, since: str | None = None, merchant: str | None = None
    ) -> dict[str, Any]:
        """List an account's payments (newest first) with their refund and dispute status.

        Args:
            account_id: Account id.
            since: Optional ISO date (YYYY-MM-DD); only payments on or after it.
            merchant: Optional text; only payments whose merchant contains it (case-insensitive).
        """
        self._account(account_id)
        if since is not None:
            try:
                date.fromisoformat(since)
            except ValueError:
                raise Rejection(422, "INVALID_DATE", "Use an ISO date such as 2026-02-01.", param="since") from None
        rows = []
        for txn in self.state["transactions"].values():
            if txn["account_id"] != account_id:
                continue
            if since is not None and txn["created_at"][:10] < since:
                continue
            if merchant and _norm(merchant) not in _norm(txn["merchant"]):
                continue
            rows.append(
                {
                    "transaction_id": txn["transaction_id"],
                    "date": txn["created_at"][:10],
                    "merchant": txn["merchant"],
                    "amount": money(txn["amount"]),
                    "method_type": txn["method_type"],
                    "payment_method_id": txn["payment_method_id"],
                    "status": txn["status"],
                    "refunded_amount": money(txn["refunded_amount"]),
                }
            )
        rows.sort(key=lambda r: (r["date"], r["transaction_id"]), reverse=True)
        return {"account_id": account_id, "transactions": rows}

    @tool(kind="read")
    def get_transaction(self, transaction_id: str) -> dict[str, Any]:
        """Get one payment with its refunds, refundable amount, age in days, receipts and dispute.

        Args:
            transaction_id: Transaction id, e.g. "TXN-20260214-0007".
        """
        return self._public_transaction(self._transaction(transaction_id))

    @tool(kind="read")
    def get_statement(self, account_id: str, month: str) -> dict[str, Any]:
        """Get the monthly statement of an account: opening/closing balance, transfers, payments and refunds.

        Args:
            account_id: Account id.
            month: Calendar month as YYYY-MM, e.g. "2026-02".
        """
        self._account(account_id)
        try:
            start = date.fromisoformat(f"{month}-01")
        except ValueError:
            raise Rejection(422, "INVALID_MONTH", "Use YYYY-MM, e.g. 2026-02.", param="month") from None
        if start > self._today():
            raise Rejection(422, "FUTURE_PERIOD", f"No statement for {month} yet.", param="month")
        end = (start.replace(day=28) + timedelta(days=4)).replace(day=1)
        lines: list[dict[str, Any]] = []
        after_net = Decimal("0.00")
        for t in self.state["transfers"].values():
            day = t["created_at"][:10]
            sign = (
                Decimal(-1)
                if t["from_account"] == account_id
                else Decimal(1)
                if t["to_account"] == account_id
                else Decimal(0)
            )
            if not sign:
                continue
            amount = money(t["amount"]) * sign
            if day >= end.isoformat():
                after_net += amount
            elif day >= start.isoformat():
                kind = "transfer_out" if sign < 0 else "transfer_in"
                other = t["to_account"] if sign < 0 else t["from_account"]
                lines.append(
                    {
                        "date": day,
                        "kind": kind,
                        "reference": t["transfer_id"],
                        "description": f"Transfer {'to' if sign < 0 else 'from'} {other} {t['memo']}".strip(),
                        "amount": amount,
                    }
                )
        for txn in self.state["transactions"].values():
            if txn["account_id"] != account_id:
                continue
            day = txn["created_at"][:10]
            if start.isoformat() <= day < end.isoformat():
                lines.append(
                    {
                        "date": day,
                        "kind": "payment",
                        "reference": txn["transaction_id"],
                        "description": txn["merchant"],
                        "amount": -money(txn["amount"]),
                    }
                )
        for refund in self.state["refunds"].values():
            day = refund["created_at"][:10]
            if refund["account_id"] == account_id and start.isoformat() <= day < end.isoformat():
                lines.append(
                    {
                        "date": day,
                        "kind": "refund",
                        "reference": refund["refund_id"],
                        "description": f"Refund of {refund['transaction_id']}",
                        "amount": money(refund["amount"]),
                    }
                )
        lines.sort(key=lambda line: (line["date"], line["reference"]))
        closing = money(self.state["accounts"][account_id]["balance"]) - after_net
        transfers_in = sum((line["amount"] for line in lines if line["kind"] == "transfer_in"), Decimal("0.00"))
        transfers_out = -sum((line["amount"] for line in lines if line["kind"] == "transfer_out"), Decimal("0.00"))
        return {
            "account_id": account_id,
            "period": month,
            "opening_balance": closing - transfers_in + transfers_out,
            "closing_balance": closing,
            "transfers_in": transfers_in,
            "transfers_out": transfers_out,
            "payments_total": -sum((line["amount"] for line in lines if line["kind"] == "payment"), Decimal("0.00")),
            "refunds_total": sum((line["amount"] for line in lines if line["kind"] == "refund"), Decimal("0.00")),
            "lines": lines,
        }

    # ------------------------------------------------------------------ refunds

    @tool
    def issue_refund(self, transaction_id: str, amount: Decimal, reason: str) -> dict[str, Any]:
        """Refund all or part of a payment to its original payment method.

        Allowed within 90 days of the payment, up to the amount not yet refunded, and never while
        the charge is under dispute. Loyalty points earned on the refunded part are reversed.

        Args:
            transaction_id: Transaction id of the payment to refund.
            amount: Amount in USD to refund (full or partial).
            reason: Short reason, e.g. "item returned" or "duplicate charge".
        """
        txn = self._transaction(transaction_id)
        account = self._open_account(txn["account_id"], allow_frozen=True)
        value = self._amount(amount)
        status = self._derive_status(txn, self.state["disputes"])
        if status == "disputed":
            raise Rejection(
                409,
                "CHARGE_DISPUTED",
                f"{transaction_id} is under dispute {txn['dispute_id']}; a refund would pay the customer twice.",
                param="transaction_id",
            )
        remaining = self._remaining(txn)
        if remaining <= 0:
            raise Rejection(
                409, "ALREADY_REFUNDED", f"{transaction_id} has already been fully refunded.", param="transaction_id"
            )
        age = self._age_days(txn["created_at"])
        window = int(self.settings["refund_window_days"])
        if age > window:
            raise Rejection(
                422,
                "REFUND_WINDOW_EXPIRED",
                f"{transaction_id} is {age} days old; refunds are allowed within {window} days.",
                param="transaction_id",
            )
        if value > remaining:
            raise Rejection(
                422,
                "AMOUNT_EXCEEDS_REMAINING",
                f"Only {remaining} USD of {transaction_id} remains refundable.",
                param="amount",
            )
        if not reason.strip():
            raise Rejection(422, "REASON_REQUIRED", "Give a reason for the refund.", param="reason")
        refund_id = self.new_id("RFD")
        stamp = self._stamp()
        self.state["refunds"][refund_id] = {
            "refund_id": refund_id,
            "transaction_id": transaction_id,
            "account_id": txn["account_id"],
            "amount": value,
            "reason": reason.strip(),
            "payment_method_id": txn["payment_method_id"],
            "status": "succeeded",
            "created_at": stamp,
        }
        txn["refunded_amount"] = money(txn["refunded_amount"]) + value
        txn["refund_ids"].append(refund_id)
        txn["status"] = self._derive_status(txn, self.state["disputes"])
        reversed_points = 0
        if txn["loyalty_awarded"]:
            kept = points_for(
                money(txn["amount"]) - txn["refunded_amount"], int(self.settings["loyalty_points_per_dollar"])
            )
            reversed_points = int(txn["loyalty_points"]) - kept
            if reversed_points:
                txn["loyalty_points"] = kept
                account["loyalty_points"] = max(int(account["loyalty_points"]) - reversed_points, 0)
                self.state["loyalty_ledger"].append(
                    {
                        "entry_id": self.new_id("LOY"),
                        "account_id": txn["account_id"],
                        "transaction_id": transaction_id,
                        "points": -reversed_points,
                        "kind": "reversal",
                        "created_at": stamp,
                    }
                )
        self._log(txn, "refund_issued", f"{refund_id} {value} USD: {reason.strip()}")
        return {
            "refund_id": refund_id,
            "transaction_id": transaction_id,
            "amount": value,
            "refunded_to": txn["payment_method_id"],
            "transaction_status": txn["status"],
            "remaining_refundable": money(txn["amount"]) - txn["refunded_amount"],
            "loyalty_points_reversed": reversed_points,
        }

    # ------------------------------------------------------------------ disputes

    @tool
    def open_dispute(self, transaction_id: str, reason: DisputeReason, details: str) -> dict[str, Any]:
        """Open a dispute (chargeback) on a payment with the card network or PayPal.

        Only for charges not fully refunded, within 120 days, and with no dispute already open.
        The disputed amount is the part not yet refunded. While open, the charge cannot be refunded.

        Args:
            transaction_id: Transaction id of the charge.
            reason: One of fraudulent (customer did not make it), unrecognized, duplicate,
                product_not_received, product_unacceptable, subscription_canceled,
                credit_not_processed, general.
            details: The customer's account of what happened, in one or two sentences.
        """
        txn = self._transaction(transaction_id)
        self._open_account(txn["account_id"], allow_frozen=True)
        status = self._derive_status(txn, self.state["disputes"])
        if status == "disputed":
            raise Rejection(
                409,
                "DISPUTE_EXISTS",
                f"{transaction_id} already has an open dispute {txn['dispute_id']}.",
                param="transaction_id",
            )
        remaining = self._remaining(txn)
        if remaining <= 0:
            raise Rejection(
                409,
                "ALREADY_REFUNDED",
                f"{transaction_id} was fully refunded; there is nothing left to dispute.",
                param="transaction_id",
            )
        age = self._age_days(txn["created_at"])
        window = int(self.settings["dispute_window_days"])
        if age > window:
            raise Rejection(
                422,
                "DISPUTE_WINDOW_EXPIRED",
                f"{transaction_id} is {age} days old; disputes must be opened within {window} days.",
                param="transaction_id",
            )
        if not details.strip():
            raise Rejection(422, "DETAILS_REQUIRED", "Describe what happened.", param="details")
        dispute_id = self.new_id("DSP")
        stamp = self._stamp()
        dispute = {
            "dispute_id": dispute_id,
            "transaction_id": transaction_id,
            "account_id": txn["account_id"],
            "amount": remaining,
            "reason": reason,
            "details": details.strip(),
            "status": "needs_response",
            "opened_at": stamp,
            "evidence_due_by": (self._today() + timedelta(days=21)).isoformat(),
            "closed_at": None,
        }
        self.state["disputes"][dispute_id] = dispute
        txn["dispute_id"] = dispute_id
        txn["status"] = "disputed"
        self._log(txn, "dispute_opened", f"{dispute_id} {reason}")
        return dict(dispute)

    @tool(kind="read")
    def get_dispute(self, dispute_id: str) -> dict[str, Any]:
        """Get a dispute's status, amount, reason and deadlines.

        Args:
            dispute_id: Dispute id, e.g. "DSP-000123".
        """
        dispute = self.state["disputes"].get(dispute_id)
        if dispute is None:
            raise Rejection(404, "DISPUTE_NOT_FOUND", f"No dispute with id {dispute_id!r}.", param="dispute_id")
        return clone(dispute)  # type: ignore[no-any-return]

    @tool
    def withdraw_dispute(self, dispute_id: str, reason: str) -> dict[str, Any]:
        """Withdraw an open dispute at the customer's request (e.g. they now recognise the charge).

        Args:
            dispute_id: Dispute id.
            reason: Why the customer withdraws it.
        """
        dispute = self.state["disputes"].get(dispute_id)
        if dispute is None:
            raise Rejection(404, "DISPUTE_NOT_FOUND", f"No dispute with id {dispute_id!r}.", param="dispute_id")
        if dispute["status"] not in ("needs_response", "under_review"):
            raise Rejection(409, "DISPUTE_CLOSED", f"{dispute_id} is already {dispute['status']}.", param="dispute_id")
        if not reason.strip():
            raise Rejection(422, "REASON_REQUIRED", "Give the reason for withdrawing.", param="reason")
        dispute["status"] = "withdrawn"
        dispute["closed_at"] = self._stamp()
        txn = self.state["transactions"][dispute["transaction_id"]]
        txn["status"] = self._derive_status(txn, self.state["disputes"])
        self._log(txn, "dispute_withdrawn", f"{dispute_id}: {reason.strip()}")
        return {
            "dispute_id": dispute_id,
            "status": "withdrawn",
            "transaction_id": txn["transaction_id"],
            "transaction_status": txn["status"],
        }
