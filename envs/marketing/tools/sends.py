"""Sends: scheduling an email (or an A/B pair) to a segment, changing or cancelling it, results."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from pytest_crmbench import IsoDate, Rejection, require, tool

from ..data_model import SUPPRESSED
from .base import MarketingTools

CLOCK = re.compile(r"^([01][0-9]|2[0-3]):[0-5][0-9]$")


class SendTools(MarketingTools):
    @tool(kind="read")
    def list_sends(self, status: str | None = None, contact_id: str | None = None) -> dict[str, Any]:
        """List sends, optionally only those with a status or with a contact among the recipients.

        Args:
            status: "scheduled", "sent" or "cancelled".
            contact_id: Only sends this contact is a recipient of.
        """
        keys = ("send_id", "campaign_id", "email_ids", "segment_id", "scheduled_at", "status")
        sends = [
            {k: s[k] for k in keys}
            for s in self.state["sends"].values()
            if (status is None or s["status"] == status) and (contact_id is None or contact_id in s["recipients"])
        ]
        return {"sends": sends}

    @tool(kind="read")
    def get_send(self, send_id: str) -> dict[str, Any]:
        """Get a send: emails, segment, schedule, status, recipients and, once sent, the results
        per email (delivered, opens, clicks).

        Args:
            send_id: e.g. "SEND-88102".
        """
        return dict(self.get("sends", send_id))

    @tool(kind="write")
    def schedule_send(
        self, campaign_id: str, email_ids: list[str], segment_id: str, send_date: IsoDate, send_time: str
    ) -> dict[str, Any]:
        """Schedule one email (or two, for a 50/50 A/B split) to a segment. The recipients are the
        segment's members at this moment, less unsubscribed and held contacts.

        Args:
            campaign_id: The Planned or In Progress campaign.
            email_ids: One email of the campaign, or two for an A/B test.
            segment_id: The audience.
            send_date: Day of the send (YYYY-MM-DD).
            send_time: Time of the send, UTC, "HH:MM".
        """
        self.open_campaign(campaign_id)
        count_ok = 1 <= len(set(email_ids)) == len(email_ids) <= 2
        require(count_ok, 422, "INVALID_EMAILS", "Give one email, or two different ones for A/B.", param="email_ids")
        for email_id in email_ids:
            email = self.get("emails", email_id, param="email_ids")
            if email["campaign_id"] != campaign_id:
                raise Rejection(
                    422, "EMAIL_NOT_IN_CAMPAIGN", f"{email_id} belongs to {email['campaign_id']}.", param="email_ids"
                )
        segment = self.get("segments", segment_id)
        require(
            CLOCK.match(send_time) is not None, 422, "INVALID_TIME", "Give the time as HH:MM (UTC).", param="send_time"
        )
        when = datetime.fromisoformat(f"{send_date}T{send_time}:00").replace(tzinfo=UTC)
        require(when > self.now(), 422, "SEND_TIME_IN_PAST", f"{when.isoformat()} has passed.", param="send_time")
        for other in self.state["sends"].values():
            same = (other["email_ids"], other["segment_id"], other["scheduled_at"]) == (
                email_ids,
                segment_id,
                when.isoformat(),
            )
            if same and other["status"] == "scheduled":
                raise Rejection(
                    409, "DUPLICATE_SEND", f"{other['send_id']} already sends this then.", param="email_ids"
                )
        contacts = self.state["contacts"]
        recipients = [c for c in segment["contact_ids"] if contacts[c]["email_status"] not in SUPPRESSED]
        require(bool(recipients), 422, "NO_RECIPIENTS", f"No sendable contact in {segment_id}.", param="segment_id")
        fields = {"campaign_id": campaign_id, "email_ids": email_ids, "segment_id": segment_id}
        send = self.insert("sends", {**fields, "scheduled_at": when.isoformat(), "recipients": recipients})
        return {"send_id": send["send_id"], "scheduled_at": send["scheduled_at"], "recipient_count": len(recipients)}

    @tool(kind="write")
    def remove_recipient(self, send_id: str, contact_id: str) -> dict[str, Any]:
        """Take one contact off a scheduled send.

        Args:
            send_id: The scheduled send.
            contact_id: The contact to take off.
        """
        send = self.scheduled_send(send_id)
        self.get("contacts", contact_id)
        require(
            contact_id in send["recipients"], 409, "NOT_A_RECIPIENT", f"{contact_id} is not a recipient of {send_id}."
        )
        send["recipients"].remove(contact_id)
        return {"send_id": send_id, "recipient_count": len(send["recipients"])}

    @tool(kind="write")
    def cancel_send(self, send_id: str) -> dict[str, Any]:
        """Cancel a scheduled send.

        Args:
            send_id: The scheduled send.
        """
        send = self.scheduled_send(send_id)
        send["status"] = "cancelled"
        return {"send_id": send_id, "status": "cancelled"}
