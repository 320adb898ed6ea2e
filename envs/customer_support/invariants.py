"""Rules every customer-support world keeps: the seed, every task's initial state, and every state the
tools reach (``crmbench validate`` checks the first two; ``tests/envs/customer_support`` the third)."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal

from pytest_crmbench import Violation, invariant
from pytest_crmbench.env.values import ZERO

from .data_model import OPEN_STATUSES
from .tools.base import SupportTools, credited


class WorldInvariants(SupportTools):
    @invariant
    def invoices_add_up(self) -> Iterator[Violation]:
        """Credits stay within their line; an invoice's status follows from its lines, credits and
        payments; credits and payments belong to an invoice of their own account."""
        invoices, credits = self.state["invoices"], self.state["credits"]
        for credit_id, credit in credits.items():
            invoice = invoices.get(credit["invoice_id"])
            if invoice is None or invoice["account_id"] != credit["account_id"]:
                yield Violation(f"credits.{credit_id}.invoice_id", "is not an invoice of the credit's account")
            elif credit["line_id"] not in {line["line_id"] for line in invoice["lines"]}:
                yield Violation(f"credits.{credit_id}.line_id", f"is not a line of {credit['invoice_id']}")
        for payment_id, payment in self.state["payments"].items():
            invoice = invoices.get(payment["invoice_id"])
            if invoice is None or invoice["account_id"] != payment["account_id"]:
                yield Violation(f"payments.{payment_id}.invoice_id", "is not an invoice of the payment's account")
        for invoice_id, invoice in invoices.items():
            for line in invoice["lines"]:
                if credited(invoice_id, credits, line["line_id"]) > line["amount"]:
                    yield Violation(
                        f"invoices.{invoice_id}.lines", f"line {line['line_id']} is credited above its amount"
                    )
            if invoice["credited_amount"] != credited(invoice_id, credits):
                yield Violation(
                    f"invoices.{invoice_id}.credited_amount",
                    f"is {invoice['credited_amount']}; its credits add up to {credited(invoice_id, credits)}",
                )
            if invoice["status"] != self.derive_status(invoice):
                yield Violation(
                    f"invoices.{invoice_id}.status",
                    f"is {invoice['status']!r}; its balance due {self.balance_due(invoice)} makes it"
                    f" {self.derive_status(invoice)!r}",
                )

    @invariant
    def refunds_add_up(self) -> Iterator[Violation]:
        """A payment's refunds sum to its refunded amount, never above the payment."""
        totals: dict[str, Decimal] = {}
        for refund_id, refund in self.state["refunds"].items():
            payment = self.state["payments"].get(refund["payment_id"])
            if payment is None or payment["account_id"] != refund["account_id"]:
                yield Violation(f"refunds.{refund_id}.payment_id", "is not a payment of the refund's account")
                continue
            totals[refund["payment_id"]] = totals.get(refund["payment_id"], ZERO) + refund["amount"]
        for payment_id, payment in self.state["payments"].items():
            refunded = totals.get(payment_id, ZERO)
            if payment["refunded_amount"] != refunded or refunded > payment["amount"]:
                yield Violation(
                    f"payments.{payment_id}.refunded_amount",
                    f"is {payment['refunded_amount']}; its refunds add up to {refunded} of {payment['amount']}",
                )

    @invariant
    def cases_are_consistent(self) -> Iterator[Violation]:
        """A case's fields agree with its status, and every id it holds is a record of its account."""
        cases = self.state["cases"]
        for case_id, case in cases.items():
            path, status, account_id = f"cases.{case_id}", case["status"], case["account_id"]
            if (status == "escalated") != (case["queue"] != "tier1" and status in OPEN_STATUSES):
                yield Violation(f"{path}.queue", f"is {case['queue']!r} while the case is {status!r}")
            if status == "escalated" and case["escalated_at"] is None:
                yield Violation(f"{path}.escalated_at", "is missing on an escalated case")
            if status == "resolved" and (case["resolved_at"] is None or not case["resolution"]):
                yield Violation(f"{path}.resolved_at", "and a resolution are required on a resolved case")
            if (status == "closed") != (case["closed_at"] is not None):
                yield Violation(
                    f"{path}.closed_at", f"must be set exactly while the case is closed (status {status!r})"
                )
            if case["csat_score"] is not None and status not in ("resolved", "closed"):
                yield Violation(f"{path}.csat_score", "is set on a case that is not resolved")
            for field, table in (
                ("merged_into", "cases"),
                ("parent_case_id", "cases"),
                ("entitlement_id", "entitlements"),
            ):
                ref = case[field]
                if ref is not None and (
                    ref not in self.state[table] or self.state[table][ref]["account_id"] != account_id
                ):
                    yield Violation(f"{path}.{field}", f"is not a record of {account_id}")
            if case["merged_into"] is not None and status != "closed":
                yield Violation(f"{path}.merged_into", "is set on a case that is not closed")
        numbers = [int(c) for c in (k.removeprefix("CS-") for k in cases) if c.isdigit()]
        if numbers and max(numbers) > self.state["last_case_number"]:
            yield Violation("last_case_number", f"is below the highest case number {max(numbers)}")
        for name in ("case_comments", "handoffs"):
            for index, entry in enumerate(self.state[name]):
                case = cases.get(entry["case_id"])
                if case is None or case["account_id"] != entry["account_id"]:
                    yield Violation(f"{name}.{index}.case_id", "is not a case of the entry's account")

    @invariant
    def accounts_are_consistent(self) -> Iterator[Violation]:
        """Suspended exactly when a reason is recorded; an active account's services are active;
        entitlements belong to an account."""
        for account_id, account in self.state["accounts"].items():
            path = f"accounts.{account_id}"
            suspended = account["status"] == "suspended"
            if suspended != (account["suspended_reason"] is not None):
                yield Violation(
                    f"{path}.suspended_reason", f"must be set exactly while suspended ({account['status']!r})"
                )
            if account["status"] == "active" and any(s["status"] != "active" for s in account["services"]):
                yield Violation(f"{path}.services", "has a suspended service on an active account")
        for ent_id, ent in self.state["entitlements"].items():
            if ent["per_incident"] != (ent["cases_remaining"] is not None):
                yield Violation(f"entitlements.{ent_id}.cases_remaining", "is set exactly on per-incident entitlements")
