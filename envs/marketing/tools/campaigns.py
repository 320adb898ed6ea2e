"""Campaigns: creation, status, budget reallocation and the emails of a campaign."""

from __future__ import annotations

from typing import Any, Literal

from pytest_crmbench import Amount, IsoDate, NonBlank, Rejection, require, tool
from pytest_crmbench.env.values import norm

from .base import MarketingTools

TRANSITIONS = {"Planned": ("In Progress", "Aborted"), "In Progress": ("Completed", "Aborted")}


class CampaignTools(MarketingTools):
    @tool(kind="read")
    def list_campaigns(self) -> dict[str, Any]:
        """List the campaigns with status, dates, budget and amount spent."""
        keys = ("campaign_id", "name", "status", "start_date", "end_date", "budget", "spent")
        return {"campaigns": [{k: c[k] for k in keys} for c in self.state["campaigns"].values()]}

    @tool(kind="read")
    def get_campaign(self, campaign_id: str) -> dict[str, Any]:
        """Get a campaign with its emails and its sends (status, schedule, segment).

        Args:
            campaign_id: e.g. "CMP-2026-014".
        """
        campaign = self.get("campaigns", campaign_id)
        emails = [e for e in self.state["emails"].values() if e["campaign_id"] == campaign_id]
        keys = ("send_id", "email_ids", "segment_id", "scheduled_at", "status")
        sends = [{k: s[k] for k in keys} for s in self.state["sends"].values() if s["campaign_id"] == campaign_id]
        return {**campaign, "emails": emails, "sends": sends}

    @tool(kind="write")
    def create_campaign(
        self,
        name: NonBlank,
        budget: Amount,
        start_date: IsoDate,
        end_date: IsoDate,
        channel: Literal["email", "webinar", "event", "paid_social"] = "email",
    ) -> dict[str, Any]:
        """Create a Planned campaign.

        Args:
            name: Campaign name.
            budget: Budget in USD.
            start_date: First day (YYYY-MM-DD), not in the past.
            end_date: Last day (YYYY-MM-DD), on or after the start.
            channel: Main channel.
        """
        taken = any(norm(c["name"]) == norm(name) for c in self.state["campaigns"].values())
        require(not taken, 409, "DUPLICATE_CAMPAIGN_NAME", f"A campaign named {name!r} exists.", param="name")
        today = self.today().isoformat()
        require(
            start_date >= today, 422, "START_IN_PAST", f"{start_date} is before today ({today}).", param="start_date"
        )
        require(
            end_date >= start_date, 422, "END_BEFORE_START", "The campaign ends before it starts.", param="end_date"
        )
        fields = {"name": name, "channel": channel, "budget": budget, "spent": 0, "start_date": start_date}
        campaign = self.insert("campaigns", {**fields, "end_date": end_date})
        return {"campaign_id": campaign["campaign_id"], "status": campaign["status"]}

    @tool(kind="write")
    def set_campaign_status(
        self, campaign_id: str, status: Literal["In Progress", "Completed", "Aborted"]
    ) -> dict[str, Any]:
        """Move a campaign along Planned -> In Progress -> Completed, or abort an open one.
        A campaign with scheduled sends cannot be completed or aborted.

        Args:
            campaign_id: The campaign.
            status: The new status.
        """
        campaign = self.open_campaign(campaign_id)
        current = campaign["status"]
        if status not in TRANSITIONS[current]:
            raise Rejection(409, "INVALID_TRANSITION", f"{current} cannot become {status}.", param="status")
        pending = [
            s for s in self.state["sends"].values() if s["campaign_id"] == campaign_id and s["status"] == "scheduled"
        ]
        if status != "In Progress" and pending:
            names = ", ".join(s["send_id"] for s in pending)
            raise Rejection(409, "SCHEDULED_SENDS_PENDING", f"Cancel or finish the scheduled sends first: {names}.")
        campaign["status"] = status
        return {"campaign_id": campaign_id, "status": status}

    @tool(kind="write")
    def transfer_budget(self, from_campaign_id: str, to_campaign_id: str, amount: Amount) -> dict[str, Any]:
        """Move unspent budget from one campaign to an open one.

        Args:
            from_campaign_id: The campaign giving budget (any status; only its unspent budget).
            to_campaign_id: The Planned or In Progress campaign receiving it.
            amount: USD.
        """
        same = from_campaign_id == to_campaign_id
        require(not same, 422, "SAME_CAMPAIGN", "Pick two different campaigns.", param="to_campaign_id")
        source = self.get("campaigns", from_campaign_id, param="from_campaign_id")
        target = self.open_campaign(to_campaign_id, param="to_campaign_id")
        if amount > source["budget"] - source["spent"]:
            message = f"{from_campaign_id} does not have {amount} USD of unspent budget."
            raise Rejection(422, "INSUFFICIENT_BUDGET", message, param="amount")
        source["budget"] -= amount
        target["budget"] += amount
        return {"from_campaign_id": from_campaign_id, "to_campaign_id": to_campaign_id, "amount": amount}

    @tool(kind="write", prose=("subject",))
    def create_email(
        self,
        campaign_id: str,
        name: NonBlank,
        subject: NonBlank,
        kind: Literal["commercial", "transactional"],
        has_unsubscribe_link: bool,
        postal_address: str | None = None,
    ) -> dict[str, Any]:
        """Create an email in a campaign. A commercial email needs an unsubscribe link and the
        sender's postal address (CAN-SPAM).

        Args:
            campaign_id: The campaign.
            name: Internal name.
            subject: Subject line.
            kind: commercial (promotes something) or transactional (only about an order or account).
            has_unsubscribe_link: Whether the footer carries an unsubscribe link.
            postal_address: The sender's physical postal address in the footer.
        """
        self.open_campaign(campaign_id)
        siblings = [e for e in self.state["emails"].values() if e["campaign_id"] == campaign_id]
        taken = any(norm(e["name"]) == norm(name) for e in siblings)
        require(not taken, 409, "DUPLICATE_EMAIL_NAME", f"{campaign_id} already has an email {name!r}.", param="name")
        if kind == "commercial":
            message = "A commercial email needs an unsubscribe link."
            require(has_unsubscribe_link, 422, "UNSUBSCRIBE_REQUIRED", message, param="has_unsubscribe_link")
            given = bool((postal_address or "").strip())
            message = "A commercial email needs the sender's postal address."
            require(given, 422, "POSTAL_ADDRESS_REQUIRED", message, param="postal_address")
        fields = {"campaign_id": campaign_id, "name": name, "subject": subject, "kind": kind}
        email = self.insert(
            "emails", {**fields, "has_unsubscribe_link": has_unsubscribe_link, "postal_address": postal_address}
        )
        return {"email_id": email["email_id"], "kind": kind}
