"""Pipeline: accounts, lead conversion into account + contact + opportunity, opportunity stages."""

from __future__ import annotations

from datetime import date
from typing import Any

from pytest_crmbench import Amount, IsoDate, Rejection, require, tool
from pytest_crmbench.env.values import norm

from ..data_model import STAGE_PROBABILITY, Stage
from .base import SalesTools

CLOSED = ("Closed Won", "Closed Lost")


class PipelineTools(SalesTools):
    @tool(kind="read")
    def search_accounts(self, name: str) -> dict[str, Any]:
        """Find accounts whose name contains the text (case-insensitive).

        Args:
            name: Part of the company name, e.g. "Acme".
        """
        wanted = norm(name)
        found = [a for a in self.state["accounts"].values() if wanted and wanted in norm(a["name"])]
        return {"accounts": [{k: a[k] for k in ("account_id", "name", "state", "owner_id")} for a in found]}

    @tool(kind="read")
    def get_account(self, account_id: str) -> dict[str, Any]:
        """Get an account with its contacts and its opportunities (stage, amount, probability).

        Args:
            account_id: e.g. "ACC-5003".
        """
        account = self.get("accounts", account_id)
        contacts = [c for c in self.state["contacts"].values() if c["account_id"] == account_id]
        opportunities = [o for o in self.state["opportunities"].values() if o["account_id"] == account_id]
        return {**account, "contacts": contacts, "opportunities": opportunities}

    @tool(kind="read")
    def get_opportunity(self, opportunity_id: str) -> dict[str, Any]:
        """Get an opportunity: account, owner, stage, probability, amount, close date.

        Args:
            opportunity_id: e.g. "OPP-4410".
        """
        opportunity = self.get("opportunities", opportunity_id)
        return {**opportunity, "owner_name": self.rep_name(opportunity["owner_id"])}

    @tool(kind="write", prose=("opportunity_name",))
    def convert_lead(
        self,
        lead_id: str,
        account_id: str | None = None,
        opportunity_name: str | None = None,
        opportunity_amount: Amount | None = None,
    ) -> dict[str, Any]:
        """Convert a Qualified lead: creates a contact and an opportunity (stage Qualification) owned
        by the lead's owner, under an existing account when account_id is given, else a new account.

        Args:
            lead_id: The lead to convert.
            account_id: An existing account to attach the contact and opportunity to.
            opportunity_name: Name of the new opportunity (default "<company> - New Business").
            opportunity_amount: Expected deal size in USD, if known.
        """
        lead = self.open_lead(lead_id)
        message = f"Lead {lead_id} is {lead['status']}; only a Qualified lead can be converted."
        require(lead["status"] == "Qualified", 422, "LEAD_NOT_QUALIFIED", message)
        owner = lead["owner_id"]
        require(owner is not None, 422, "LEAD_UNASSIGNED", f"Lead {lead_id} has no owner; assign it first.")
        if account_id is None:
            fields = {"name": lead["company"], "state": lead["state"], "owner_id": owner}
            account = self.insert("accounts", fields)
        else:
            account = self.get("accounts", account_id, param="account_id")
        person = {k: lead[k] for k in ("first_name", "last_name", "title", "email")}
        contact = self.insert("contacts", {**person, "account_id": account["account_id"]})
        name = opportunity_name or f"{lead['company']} - New Business"
        deal = {"name": name, "account_id": account["account_id"], "owner_id": owner, "amount": opportunity_amount}
        opportunity = self.insert("opportunities", deal)
        lead.update(
            status="Closed - Converted",
            converted_account_id=account["account_id"],
            converted_contact_id=contact["contact_id"],
            converted_opportunity_id=opportunity["opportunity_id"],
        )
        return {
            "account_id": account["account_id"],
            "contact_id": contact["contact_id"],
            "opportunity_id": opportunity["opportunity_id"],
            "stage": opportunity["stage"],
        }

    @tool(kind="write", prose=("loss_reason",))
    def update_opportunity_stage(
        self,
        rep_id: str,
        opportunity_id: str,
        stage: Stage,
        amount: Amount | None = None,
        close_date: IsoDate | None = None,
        loss_reason: str | None = None,
    ) -> dict[str, Any]:
        """Move one of the rep's opportunities to a stage (the probability follows the stage).
        Closed Won needs an amount and a close date not in the future, and comes only after
        Negotiation/Review; Closed Lost needs a loss reason.

        Args:
            rep_id: The rep working the opportunity (must be its owner).
            opportunity_id: The opportunity.
            stage: The new stage.
            amount: New amount in USD, when it changes.
            close_date: New close date (YYYY-MM-DD), when it changes.
            loss_reason: Why the deal was lost (Closed Lost only).
        """
        self.rep(rep_id)
        opportunity = self.get("opportunities", opportunity_id, owner=rep_id)
        current = opportunity["stage"]
        closed_message = f"{opportunity_id} is already {current}; closed opportunities are read-only."
        require(current not in CLOSED, 409, "OPPORTUNITY_CLOSED", closed_message)
        require(stage != current, 409, "SAME_STAGE", f"{opportunity_id} is already at {stage}.", param="stage")
        final_amount = amount if amount is not None else opportunity["amount"]
        final_close = close_date or opportunity["close_date"]
        if stage == "Closed Won":
            self.check_won(opportunity_id, current, final_amount, final_close)
        if stage == "Closed Lost":
            given = bool((loss_reason or "").strip())
            require(given, 422, "LOSS_REASON_REQUIRED", "Say why the deal was lost.", param="loss_reason")
        if stage in CLOSED and final_close is not None and date.fromisoformat(final_close) > self.today():
            message = f"A closed deal's close date cannot be after today ({self.today().isoformat()})."
            raise Rejection(422, "CLOSE_DATE_IN_FUTURE", message, param="close_date")
        opportunity.update(stage=stage, probability=STAGE_PROBABILITY[stage], amount=final_amount)
        opportunity.update(close_date=final_close, loss_reason=loss_reason if stage == "Closed Lost" else None)
        return {k: opportunity[k] for k in ("opportunity_id", "stage", "probability", "amount", "close_date")}

    def check_won(self, opportunity_id: str, current: str, amount: Any, close_date: str | None) -> None:
        message = f"{opportunity_id} is at {current}; Closed Won comes only after Negotiation/Review."
        require(current == "Negotiation/Review", 409, "STAGE_SKIP", message, param="stage")
        require(bool(amount), 422, "AMOUNT_REQUIRED", "A won deal needs an amount.", param="amount")
        require(
            close_date is not None, 422, "CLOSE_DATE_REQUIRED", "A won deal needs a close date.", param="close_date"
        )
