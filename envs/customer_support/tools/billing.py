"""Invoices, payments, credits against invoice lines, refunds of payments and service restoration."""

from __future__ import annotations

from typing import Annotated, Any

from pytest_crmbench import Amount, Rejection, Required, require, tool

from .base import SupportTools, credited, invoice_total


class BillingTools(SupportTools):
    def public_invoice(self, invoice: dict[str, Any]) -> dict[str, Any]:
        invoice_id = invoice["invoice_id"]
        credits = [c for c in self.state["credits"].values() if c["invoice_id"] == invoice_id]
        payments = [p for p in self.state["payments"].values() if p["invoice_id"] == invoice_id]
        return {
            **invoice,
            "total": invoice_total(invoice),
            "balance_due": self.balance_due(invoice),
            "credits": [{k: c[k] for k in ("credit_id", "line_id", "amount", "reason", "created_at")} for c in credits],
            "payments": [
                {k: p[k] for k in ("payment_id", "amount", "method", "paid_at", "refunded_amount")} for p in payments
            ],
        }

    @tool(kind="read")
    def list_invoices(self, account_id: str) -> dict[str, Any]:
        """List the account's invoices (period, issue and due dates, total, balance due, status), newest first.

        Args:
            account_id: The verified customer's account id.
        """
        self.account(account_id)
        rows = [
            {
                "invoice_id": i["invoice_id"],
                "period": i["period"],
                "issued_on": i["issued_on"],
                "due_on": i["due_on"],
                "total": invoice_total(i),
                "balance_due": self.balance_due(i),
                "status": i["status"],
            }
            for i in self.state["invoices"].values()
            if i["account_id"] == account_id
        ]
        rows.sort(key=lambda r: r["period"], reverse=True)
        return {"account_id": account_id, "invoices": rows}

    @tool(kind="read")
    def get_invoice(self, account_id: str, invoice_id: str) -> dict[str, Any]:
        """Get one of the customer's invoices: every line (id, description, amount, service), the
        credits and payments applied, the total, the balance due and the status.

        Args:
            account_id: The verified customer's account id.
            invoice_id: Invoice id, e.g. "INV-5002-2601".
        """
        return self.public_invoice(self.invoice_of(account_id, invoice_id))

    @tool(kind="read")
    def list_payments(self, account_id: str) -> dict[str, Any]:
        """List the account's payments (invoice, amount, card, date, amount refunded so far, and
        each refund with its date).

        Args:
            account_id: The verified customer's account id.
        """
        self.account(account_id)
        refunds = self.state["refunds"].values()
        rows = [
            {
                **p,
                "refunds": [
                    {k: r[k] for k in ("refund_id", "amount", "created_at")} for r in refunds if r["payment_id"] == pid
                ],
            }
            for pid, p in self.state["payments"].items()
            if p["account_id"] == account_id
        ]
        rows.sort(key=lambda p: p["paid_at"])
        return {"account_id": account_id, "payments": rows}

    @tool(kind="write", prose=("reason",))
    def apply_credit(
        self,
        account_id: str,
        invoice_id: str,
        line_id: str,
        amount: Amount,
        reason: Annotated[str, Required("Give the reason for the credit.")],
        case_id: str | None = None,
    ) -> dict[str, Any]:
        """Credit part or all of one invoice line (a billing correction). A line can be credited up
        to its amount in total; a single credit above the agent credit limit needs a billing
        supervisor (escalate to billing_tier2 instead).

        Args:
            account_id: The verified customer's account id.
            invoice_id: The invoice that holds the line.
            line_id: The line to correct, e.g. "L3".
            amount: Credit amount in USD.
            reason: Why the line is wrong.
            case_id: The case the correction belongs to, if any.
        """
        invoice = self.invoice_of(account_id, invoice_id)
        line = next((x for x in invoice["lines"] if x["line_id"] == line_id), None)
        if line is None:
            raise Rejection(404, "LINE_NOT_FOUND", f"{invoice_id} has no line {line_id!r}.", param="line_id")
        if case_id is not None:
            self.case_of(account_id, case_id)
        left = line["amount"] - credited(invoice_id, self.state["credits"], line_id)
        message = f"Line {line_id} of {invoice_id} cannot be credited by more than its amount."
        require(amount <= left, 422, "AMOUNT_EXCEEDS_LINE", message, param="amount")
        limit = self.settings["agent_credit_limit"]
        message = f"Credits above {limit} USD need a billing supervisor's approval."
        require(amount <= limit, 403, "APPROVAL_REQUIRED", message, param="amount")
        record = {"account_id": account_id, "invoice_id": invoice_id, "line_id": line_id, "amount": amount}
        credit = self.insert("credits", {**record, "reason": reason, "case_id": case_id, "created_at": self.stamp()})
        invoice["credited_amount"] += amount
        self.refresh_invoice(invoice)
        return {
            "credit_id": credit["credit_id"],
            "invoice_id": invoice_id,
            "line_id": line_id,
            "amount": amount,
            "invoice_status": invoice["status"],
        }

    @tool(kind="write", prose=("reason",))
    def issue_refund(
        self,
        account_id: str,
        payment_id: str,
        amount: Amount,
        reason: Annotated[str, Required("Give the reason for the refund.")],
    ) -> dict[str, Any]:
        """Refund all or part of a payment to the card it came from, within the refund window,
        up to what of the payment is not refunded yet.

        Args:
            account_id: The verified customer's account id.
            payment_id: The payment to refund, e.g. "PAY-70311".
            amount: Refund amount in USD.
            reason: Why the money goes back.
        """
        self.account(account_id)
        payment = self.get("payments", payment_id, owner=account_id)
        window = self.settings["refund_window_days"]
        age = self.age_days(payment["paid_at"])
        message = f"{payment_id} was made {age} days ago; refunds are possible within {window} days."
        require(age <= window, 422, "REFUND_WINDOW_EXPIRED", message, param="payment_id")
        left = payment["amount"] - payment["refunded_amount"]
        require(left > 0, 409, "ALREADY_REFUNDED", f"{payment_id} is fully refunded.", param="payment_id")
        message = f"The refund cannot exceed what of {payment_id} is not yet refunded."
        require(amount <= left, 422, "AMOUNT_EXCEEDS_PAYMENT", message, param="amount")
        refund = {"account_id": account_id, "payment_id": payment_id, "amount": amount, "reason": reason}
        stored = self.insert("refunds", {**refund, "created_at": self.stamp()})
        payment["refunded_amount"] += amount
        invoice = self.state["invoices"][payment["invoice_id"]]
        self.refresh_invoice(invoice)
        return {
            "refund_id": stored["refund_id"],
            "payment_id": payment_id,
            "amount": amount,
            "refunded_to": payment["method"],
            "invoice_status": invoice["status"],
        }

    @tool(kind="write")
    def restore_service(self, account_id: str) -> dict[str, Any]:
        """Lift a non-payment suspension and reactivate every service. Only when no invoice of the
        account is overdue with a balance due.

        Args:
            account_id: The verified customer's account id.
        """
        account = self.account(account_id)
        message = f"{account_id} is {account['status']}, not suspended."
        require(account["status"] == "suspended", 409, "NOT_SUSPENDED", message, param="account_id")
        overdue = sorted(
            i["invoice_id"]
            for i in self.state["invoices"].values()
            if i["account_id"] == account_id and i["status"] == "overdue"
        )
        message = f"Overdue invoices still have a balance due: {', '.join(overdue)}."
        require(not overdue, 422, "OVERDUE_BALANCE", message, param="account_id")
        account.update(status="active", suspended_reason=None, suspended_on=None)
        for service in account["services"]:
            service["status"] = "active"
        return {
            "account_id": account_id,
            "status": "active",
            "services": [s["service_id"] for s in account["services"]],
        }
