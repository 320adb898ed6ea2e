"""Identity, the account, its support entitlements and its case list."""

from __future__ import annotations

from typing import Any

from pytest_crmbench import require, tool
from pytest_crmbench.env.values import norm

from ..data_model import CaseStatus
from .base import SupportTools


class AccountTools(SupportTools):
    @tool(kind="read")
    def verify_customer(self, account_id: str, full_name: str, postal_code: str) -> dict[str, Any]:
        """Check that the person in the chat is the account holder: account id, full name and the
        postal code of the service address must all match. Call before any other account tool.

        The answer says only whether the details match; it never reveals the values on file.

        Args:
            account_id: Account id the customer gave, e.g. "ACC-5002".
            full_name: The full name the customer gave.
            postal_code: The service-address postal code the customer gave.
        """
        account = self.account(account_id)
        message = "Give the full name and postal code."
        require(full_name.strip() and postal_code.strip(), 422, "MISSING_IDENTITY_DETAILS", message)
        matches = norm(full_name) == norm(account["holder_name"]) and norm(postal_code) == norm(account["postal_code"])
        return {"account_id": account_id, "verified": matches}

    @tool(kind="read")
    def get_account(self, account_id: str) -> dict[str, Any]:
        """Get an account: holder, segment (residential/business), number of users or lines,
        status (active/suspended), services with monthly prices, add-ons with their start and
        cancellation dates, and promotions with their promised price and end date.

        Args:
            account_id: The verified customer's account id.
        """
        return self.account(account_id)

    @tool(kind="read")
    def get_entitlements(self, account_id: str) -> dict[str, Any]:
        """List the account's support entitlements (dates, SLA tier, per-incident cases left) with
        the SLA hours of each tier: first response and resolution, per priority. A case without an
        entitlement gets the standard tier.

        Args:
            account_id: The verified customer's account id.
        """
        self.account(account_id)
        sla = self.settings["sla"]
        rows = [
            {**e, "sla": sla[e["sla_tier"]]}
            for e in self.state["entitlements"].values()
            if e["account_id"] == account_id
        ]
        return {
            "account_id": account_id,
            "entitlements": rows,
            "default_sla": {"sla_tier": "standard", **sla["standard"]},
        }

    @tool(kind="read")
    def list_cases(self, account_id: str, status: CaseStatus | None = None) -> dict[str, Any]:
        """List the account's cases (id, subject, type, priority, status, queue, created_at), newest first.

        Args:
            account_id: The verified customer's account id.
            status: Only cases in this status (new, in_progress, waiting_on_customer, escalated,
                resolved, closed); all when left out.
        """
        self.account(account_id)
        keys = ("case_id", "subject", "case_type", "priority", "status", "queue", "created_at", "merged_into")
        cases = [
            {k: c[k] for k in keys}
            for c in self.state["cases"].values()
            if c["account_id"] == account_id and (status is None or c["status"] == status)
        ]
        cases.sort(key=lambda c: c["created_at"], reverse=True)
        return {"account_id": account_id, "cases": cases}
