"""The marketing world's rules across records, checked on the seed, every task's initial state and
(by the hypothesis test) after every operation."""

from __future__ import annotations

from collections.abc import Iterator

from pytest_crmbench import ToolEnvironment, Violation, invariant

from .data_model import OPEN_CAMPAIGN


class WorldInvariants(ToolEnvironment):
    """The invariants mixin: no tools, only world rules."""

    @invariant
    def sends_carry_their_campaigns_emails(self) -> Iterator[Violation]:
        emails = self.state["emails"]
        for send_id, send in self.state["sends"].items():
            for email_id in send["email_ids"]:
                if email_id not in emails or emails[email_id]["campaign_id"] != send["campaign_id"]:
                    yield Violation(f"sends.{send_id}.email_ids", f"{email_id} is no email of the send's campaign")

    @invariant
    def opt_outs_are_recorded(self) -> Iterator[Violation]:
        for contact_id, contact in self.state["contacts"].items():
            unsubscribed = contact["email_status"] == "unsubscribed"
            if unsubscribed != (contact["unsubscribed_on"] is not None):
                yield Violation(
                    f"contacts.{contact_id}.unsubscribed_on", "is set exactly when the contact is unsubscribed"
                )
            if not unsubscribed and contact["opt_out_source"] is not None:
                yield Violation(f"contacts.{contact_id}.opt_out_source", "is set only on an unsubscribed contact")

    @invariant
    def budgets_cover_spend(self) -> Iterator[Violation]:
        for campaign_id, campaign in self.state["campaigns"].items():
            if campaign["spent"] > campaign["budget"]:
                yield Violation(f"campaigns.{campaign_id}.budget", "is at least what the campaign has spent")
            if campaign["end_date"] < campaign["start_date"]:
                yield Violation(f"campaigns.{campaign_id}.end_date", "is on or after the start date")

    @invariant
    def sends_match_their_status(self) -> Iterator[Violation]:
        for send_id, send in self.state["sends"].items():
            if (send["status"] == "sent") != bool(send["results"]):
                yield Violation(f"sends.{send_id}.results", "exist exactly once the send is sent")
            if send["results"] and set(send["results"]) != set(send["email_ids"]):
                yield Violation(f"sends.{send_id}.results", "has one entry per email of the send")
            campaign = self.state["campaigns"].get(send["campaign_id"])
            if send["status"] == "scheduled" and campaign is not None and campaign["status"] not in OPEN_CAMPAIGN:
                yield Violation(f"sends.{send_id}.status", "a closed campaign has no scheduled send")
