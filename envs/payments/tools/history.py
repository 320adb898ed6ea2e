"""What happened on an account: its payments, one payment in full, a monthly statement."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

from pytest_crmbench import IsoDate, YearMonth, require, tool
from pytest_crmbench.env.kit import day_of
from pytest_crmbench.env.values import norm

from .base import PaymentsTools


def _total(lines: list[dict[str, Any]], kind: str) -> Decimal:
    return sum((line["amount"] for line in lines if line["kind"] == kind), Decimal("0.00"))


class HistoryTools(PaymentsTools):
    @tool(kind="read")
    def list_transactions(
        self, account_id: str, since: IsoDate | None = None, merchant: str | None = None
    ) -> dict[str, Any]:
        """List an account's payments (newest first) with their refund and dispute status.

        Args:
            account_id: Account id.
            since: Optional ISO date (YYYY-MM-DD); only payments on or after it.
            merchant: Optional text; only payments whose merchant contains it (case-insensitive).
        """
        self.get("accounts", account_id)
        rows = []
        for txn in self.state["transactions"].values():
            day = day_of(txn["created_at"])
            if txn["account_id"] != account_id or (since is not None and day < date.fromisoformat(since)):
                continue
            if merchant and norm(merchant) not in norm(txn["merchant"]):
                continue
            row = {
                k: txn[k]
                for k in ("transaction_id", "merchant", "amount", "method_type", "payment_method_id", "status")
            }
            rows.append({**row, "date": day.isoformat(), "refunded_amount": txn["refunded_amount"]})
        rows.sort(key=lambda r: (r["date"], r["transaction_id"]), reverse=True)
        return {"account_id": account_id, "transactions": rows}

    @tool(kind="read")
    def get_transaction(self, account_id: str, transaction_id: str) -> dict[str, Any]:
        """Get one of the customer's payments with its refunds, age in days, receipts and dispute.

        Args:
            account_id: Account id of the customer who made the payment.
            transaction_id: Transaction id, e.g. "TXN-20260214-0007".
        """
        txn = self.get("transactions", transaction_id, owner=account_id)
        refunds = (self.state["refunds"].get(refund_id) for refund_id in txn["refund_ids"])
        shown = ("refund_id", "amount", "payment_method_id", "created_at", "reason")
        return {
            **txn,
            "age_days": self.age_days(txn["created_at"]),
            "refunds": [{k: refund[k] for k in shown} for refund in refunds if refund is not None],
        }

    @tool(kind="read")
    def get_statement(self, account_id: str, month: YearMonth) -> dict[str, Any]:
        """Get the monthly statement of an account: opening/closing balance, transfers, payments and refunds.

        Args:
            account_id: Account id.
            month: Calendar month as YYYY-MM, e.g. "2026-02".
        """
        self.get("accounts", account_id)
        start = date.fromisoformat(f"{month}-01")
        require(start <= self.today(), 422, "FUTURE_PERIOD", f"No statement for {month} yet.", param="month")
        end = (start.replace(day=28) + timedelta(days=4)).replace(day=1)
        lines: list[dict[str, Any]] = []
        after = Decimal("0.00")  # transfers after the month, to walk the live balance back to its end
        for day, line in self._statement_lines(account_id):
            if day >= end:
                after += line["amount"] if line["kind"].startswith("transfer") else Decimal("0.00")
            elif day >= start:
                lines.append(line)
        lines.sort(key=lambda line: (line["date"], line["reference"]))
        closing = self.state["accounts"][account_id]["balance"] - after
        transfers_in, transfers_out = _total(lines, "transfer_in"), -_total(lines, "transfer_out")
        return {
            "account_id": account_id,
            "period": month,
            "opening_balance": closing - transfers_in + transfers_out,
            "closing_balance": closing,
            "transfers_in": transfers_in,
            "transfers_out": transfers_out,
            "payments_total": -_total(lines, "payment"),
            "refunds_total": _total(lines, "refund"),
            "lines": lines,
        }

    def _statement_lines(self, account_id: str) -> Iterator[tuple[date, dict[str, Any]]]:
        """Every line of the account's history, undated by period: transfers, payments, refunds."""
        for t in self.state["transfers"].values():
            if account_id not in (t["from_account"], t["to_account"]):
                continue
            out = t["from_account"] == account_id
            other = t["to_account"] if out else t["from_account"]
            description = f"Transfer {'to' if out else 'from'} {other} {t['memo']}".strip()
            amount = -t["amount"] if out else t["amount"]
            yield self._line(
                t["created_at"], "transfer_out" if out else "transfer_in", t["transfer_id"], description, amount
            )
        for txn in self.state["transactions"].values():
            if txn["account_id"] == account_id:
                yield self._line(txn["created_at"], "payment", txn["transaction_id"], txn["merchant"], -txn["amount"])
        for refund in self.state["refunds"].values():
            if refund["account_id"] == account_id:
                description = f"Refund of {refund['transaction_id']}"
                yield self._line(refund["created_at"], "refund", refund["refund_id"], description, refund["amount"])

    @staticmethod
    def _line(stamp: str, kind: str, reference: str, description: str, amount: Decimal) -> tuple[date, dict[str, Any]]:
        day = day_of(stamp)
        return day, {
            "date": day.isoformat(),
            "kind": kind,
            "reference": reference,
            "description": description,
            "amount": amount,
        }
