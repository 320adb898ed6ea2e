"""What every customer-support tool shares: account, case and invoice lookups, invoice arithmetic."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from pytest_crmbench import ToolEnvironment, require
from pytest_crmbench.env.values import ZERO

from ..data_model import OPEN_STATUSES


def invoice_total(invoice: Mapping[str, Any]) -> Decimal:
    return sum((line["amount"] for line in invoice["lines"]), ZERO)


def credited(invoice_id: str, credits: Mapping[str, Any], line_id: str | None = None) -> Decimal:
    """What has been credited on an invoice (or on one of its lines)."""
    amounts = (
        c["amount"]
        for c in credits.values()
        if c["invoice_id"] == invoice_id and (line_id is None or c["line_id"] == line_id)
    )
    return sum(amounts, ZERO)


def paid(invoice_id: str, payments: Mapping[str, Any]) -> Decimal:
    """What the customer paid on an invoice, net of refunds."""
    amounts = (p["amount"] - p["refunded_amount"] for p in payments.values() if p["invoice_id"] == invoice_id)
    return sum(amounts, ZERO)


class SupportTools(ToolEnvironment):
    """Base of the customer-support tool mixins: shared rules, no tools of its own."""

    @property
    def settings(self) -> dict[str, Any]:
        return self.state["settings"]  # type: ignore[no-any-return]

    def account(self, account_id: str) -> dict[str, Any]:
        return self.get("accounts", account_id)

    def case_of(self, account_id: str, case_id: str, param: str = "case_id") -> dict[str, Any]:
        """The customer's own case; another customer's is a 403 NOT_OWNER."""
        self.account(account_id)
        return self.get("cases", case_id, param=param, owner=account_id)

    def open_case(self, account_id: str, case_id: str, param: str = "case_id") -> dict[str, Any]:
        case = self.case_of(account_id, case_id, param)
        message = f"{case_id} is {case['status']}; only an open case can change."
        require(case["status"] in OPEN_STATUSES, 409, "CASE_NOT_OPEN", message, param=param)
        return case

    def invoice_of(self, account_id: str, invoice_id: str) -> dict[str, Any]:
        self.account(account_id)
        return self.get("invoices", invoice_id, owner=account_id)

    def balance_due(self, invoice: Mapping[str, Any]) -> Decimal:
        """Lines minus credits minus net payments (negative: the invoice is overpaid)."""
        invoice_id = invoice["invoice_id"]
        return (
            invoice_total(invoice)
            - credited(invoice_id, self.state["credits"])
            - paid(invoice_id, self.state["payments"])
        )

    def derive_status(self, invoice: Mapping[str, Any]) -> str:
        if self.balance_due(invoice) <= 0:
            return "paid"
        return "overdue" if invoice["due_on"] < self.today().isoformat() else "open"

    def refresh_invoice(self, invoice: dict[str, Any]) -> None:
        invoice["status"] = self.derive_status(invoice)
