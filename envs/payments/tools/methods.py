"""Payment methods: list, link (PayPal or bank), unlink, choose the default."""

from __future__ import annotations

from typing import Any, Literal

from pytest_crmbench import Rejection, require, tool
from pytest_crmbench.env.values import norm

from .base import PaymentsTools


class MethodTools(PaymentsTools):
    @tool(kind="read")
    def list_payment_methods(self, account_id: str) -> dict[str, Any]:
        """List the payment methods linked to an account (cards show brand and last 4 only).

        Args:
            account_id: Account id.
        """
        self.get("accounts", account_id)
        return {
            "account_id": account_id,
            "payment_methods": [self.public_method(m) for m in self.active_methods(account_id)],
        }

    @tool(kind="write")
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
        self.open_account(account_id)
        for param, value in (("paypal_email", paypal_email), ("bank_name", bank_name)):
            digits = "".join(ch for ch in value or "" if ch.isdigit())
            message = "Card numbers must never be sent through this channel."
            require(len(digits) < 13, 422, "SENSITIVE_DATA_REJECTED", message, param=param)
        active = self.active_methods(account_id)
        full = len(active) >= self.settings["max_active_payment_methods"]
        require(not full, 409, "TOO_MANY_PAYMENT_METHODS", "Remove a payment method before adding another.")
        method: dict[str, Any] = {"account_id": account_id, "type": method_type, "added_on": self.today().isoformat()}
        if method_type == "paypal":
            method.update(status="active", paypal_email=self._paypal_email(paypal_email, active))
        else:
            number = (account_number or "").replace(" ", "").replace("-", "")
            self._check_bank_account(routing_number, number, bank_name, active)
            method.update(
                status="pending_verification",
                bank_name=(bank_name or "").strip(),
                routing_number=routing_number,
                last4=number[-4:],
            )
        return self.public_method(self.insert("payment_methods", method))

    @staticmethod
    def _paypal_email(email: str | None, active: list[dict[str, Any]]) -> str:
        if not email or "@" not in email:
            raise Rejection(422, "INVALID_PAYPAL_EMAIL", "Give the PayPal login email.", param="paypal_email")
        linked = any(m["type"] == "paypal" and norm(m["paypal_email"]) == norm(email) for m in active)
        require(
            not linked, 409, "DUPLICATE_PAYMENT_METHOD", "That PayPal account is already linked.", param="paypal_email"
        )
        return email.strip()

    @staticmethod
    def _check_bank_account(
        routing: str | None, number: str, bank_name: str | None, active: list[dict[str, Any]]
    ) -> None:
        valid_routing = (routing or "").isdigit() and len(routing or "") == 9
        message = "A routing number has exactly 9 digits."
        require(valid_routing, 422, "INVALID_ROUTING_NUMBER", message, param="routing_number")
        valid_number = number.isdigit() and 4 <= len(number) <= 17
        message = "A bank account number has 4 to 17 digits."
        require(valid_number, 422, "INVALID_ACCOUNT_NUMBER", message, param="account_number")
        require(bank_name, 422, "BANK_NAME_REQUIRED", "Give the bank's name.", param="bank_name")
        linked = any(
            m["type"] == "bank_account" and m["routing_number"] == routing and m["last4"] == number[-4:] for m in active
        )
        message = "That bank account is already linked."
        require(not linked, 409, "DUPLICATE_PAYMENT_METHOD", message, param="account_number")

    @tool(kind="write")
    def remove_payment_method(self, account_id: str, payment_method_id: str) -> dict[str, Any]:
        """Unlink a payment method. The default method cannot be removed while others remain: set another default first.

        Args:
            account_id: Account id.
            payment_method_id: Id of the method to remove, e.g. "PM-2011".
        """
        account = self.open_account(account_id)
        method = self.method_of(payment_method_id, account_id)
        message = f"{payment_method_id} is already removed."
        require(method["status"] != "removed", 409, "PAYMENT_METHOD_REMOVED", message, param="payment_method_id")
        others = [m for m in self.active_methods(account_id) if m is not method]
        if account["default_payment_method"] == payment_method_id:
            message = f"{payment_method_id} is the default; set another default first."
            require(not others, 409, "DEFAULT_PAYMENT_METHOD", message, param="payment_method_id")
            account["default_payment_method"] = None
        method["status"] = "removed"
        return {"payment_method_id": payment_method_id, "status": "removed", "remaining": len(others)}

    @tool(kind="write")
    def set_default_payment_method(self, account_id: str, payment_method_id: str) -> dict[str, Any]:
        """Make a payment method the account's default for checkout.

        Args:
            account_id: Account id.
            payment_method_id: Id of an active, unexpired method on this account.
        """
        account = self.open_account(account_id)
        method = self.method_of(payment_method_id, account_id)
        message = f"{payment_method_id} is {method['status']}."
        require(method["status"] == "active", 409, "PAYMENT_METHOD_INACTIVE", message, param="payment_method_id")
        if self.expired(method):
            message = f"{payment_method_id} expired {method['exp_month']:02d}/{method['exp_year']}."
            raise Rejection(422, "PAYMENT_METHOD_EXPIRED", message, param="payment_method_id")
        already = account["default_payment_method"] == payment_method_id
        message = f"{payment_method_id} is already the default."
        require(not already, 409, "ALREADY_DEFAULT", message, param="payment_method_id")
        account["default_payment_method"] = payment_method_id
        return {"account_id": account_id, "default_payment_method": payment_method_id}
