"""What every payments tool shares: account and method lookups, windows, derived statuses, the log."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import ROUND_FLOOR, Decimal
from typing import Any

from pytest_crmbench import Rejection, ToolEnvironment, require
from pytest_crmbench.env.kit import day_of

from ..data_model import OPEN_DISPUTE


def points_for(amount: Decimal, per_dollar: int) -> int:
    """Loyalty points for a settled amount: floor(amount x rate)."""
    return int((amount * per_dollar).to_integral_value(rounding=ROUND_FLOOR))


def remaining(txn: Mapping[str, Any]) -> Decimal:
    """What of a payment is not refunded yet (refundable, or still disputable)."""
    return txn["amount"] - txn["refunded_amount"]  # type: ignore[no-any-return]


def derive_status(txn: Mapping[str, Any], disputes: Mapping[str, Any]) -> str:
    """A payment's status from its refunds and its dispute (stored, and recomputed on every change)."""
    dispute = disputes.get(txn["dispute_id"] or "")
    if dispute is not None and dispute["status"] in OPEN_DISPUTE:
        return "disputed"
    if txn["refunded_amount"] >= txn["amount"]:
        return "refunded"
    return "partially_refunded" if txn["refunded_amount"] > 0 else "settled"


class PaymentsTools(ToolEnvironment):
    """Base of the payments tool mixins: shared rules, no tools of its own."""

    @property
    def settings(self) -> dict[str, Any]:
        return self.state["settings"]  # type: ignore[no-any-return]

    def open_account(self, account_id: str, param: str = "account_id", *, allow_frozen: bool = False) -> dict[str, Any]:
        """The account, provided it may move money (closed: 409; frozen: 403 unless allowed)."""
        account = self.get("accounts", account_id, param=param)
        require(account["status"] != "closed", 409, "ACCOUNT_CLOSED", f"Account {account_id} is closed.", param=param)
        frozen = account["status"] == "frozen" and not allow_frozen
        message = f"Account {account_id} is frozen; money movement is blocked."
        require(not frozen, 403, "ACCOUNT_FROZEN", message, param=param)
        return account

    def method_of(self, payment_method_id: str, account_id: str) -> dict[str, Any]:
        """The account's own payment method; another customer's is as unknown as a missing one."""
        method = self.state["payment_methods"].get(payment_method_id)
        if method is None or method["account_id"] != account_id:
            message = f"Account {account_id} has no payment method {payment_method_id!r}."
            raise Rejection(404, "PAYMENT_METHOD_NOT_FOUND", message, param="payment_method_id")
        return method  # type: ignore[no-any-return]

    def active_methods(self, account_id: str) -> list[dict[str, Any]]:
        methods = self.state["payment_methods"].values()
        return [m for m in methods if m["account_id"] == account_id and m["status"] != "removed"]

    def expired(self, method: Mapping[str, Any]) -> bool:
        if method["type"] != "card":
            return False
        today = self.today()
        return (method["exp_year"], method["exp_month"]) < (today.year, today.month)

    def transferred_today(self, account_id: str) -> Decimal:
        today = self.today()
        transfers = self.state["transfers"].values()
        sent = (t["amount"] for t in transfers if t["from_account"] == account_id and day_of(t["created_at"]) == today)
        return sum(sent, Decimal("0.00"))

    def log_event(self, txn: Mapping[str, Any], event: str, note: str = "") -> dict[str, Any]:
        """Append an entry to the audit log of a transaction."""
        entry = {"transaction_id": txn["transaction_id"], "account_id": txn["account_id"], "event": event}
        return self.insert("transaction_log", {**entry, "note": note, "created_at": self.stamp()})

    def public_method(self, method: Mapping[str, Any]) -> dict[str, Any]:
        """A payment method as the model may see it: no routing number, empty fields left out."""
        account = self.state["accounts"][method["account_id"]]
        shown = {k: v for k, v in method.items() if v is not None and k != "routing_number"}
        shown["is_default"] = account["default_payment_method"] == method["payment_method_id"]
        if method["type"] == "card":
            shown["expired"] = self.expired(method)
        return shown
