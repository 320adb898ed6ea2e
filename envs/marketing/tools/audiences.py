"""Audiences: contacts, their subscription and consent, and static segments."""

from __future__ import annotations

from typing import Annotated, Any

from pytest_crmbench import IsoDate, NonBlank, Rejection, Required, require, tool
from pytest_crmbench.env.values import norm

from ..data_model import OptOutSource
from .base import MarketingTools


class AudienceTools(MarketingTools):
    @tool(kind="read")
    def find_contacts(self, query: Annotated[str, Required("Give a name or email to search for.")]) -> dict[str, Any]:
        """Find contacts whose name or email contains the query (case-insensitive).

        Args:
            query: A name or an email address.
        """
        wanted = norm(query)
        found = []
        for contact in self.state["contacts"].values():
            full_name = f"{contact['first_name']} {contact['last_name']}"
            if wanted in norm(full_name) or wanted in norm(contact["email"]):
                keys = ("contact_id", "first_name", "last_name", "email", "country", "email_status")
                found.append({k: contact[k] for k in keys})
        return {"contacts": found}

    @tool(kind="read")
    def get_contact(self, contact_id: str) -> dict[str, Any]:
        """Get a contact: subscription status, consent record, opt-out date and source.

        Args:
            contact_id: e.g. "CT-1007".
        """
        return dict(self.get("contacts", contact_id))

    @tool(kind="write")
    def record_opt_out(self, contact_id: str, source: OptOutSource) -> dict[str, Any]:
        """Unsubscribe a contact from marketing email, recording how they asked.

        Args:
            contact_id: The contact.
            source: How the opt-out request came in.
        """
        contact = self.get("contacts", contact_id)
        message = f"{contact_id} is already unsubscribed (since {contact['unsubscribed_on']})."
        require(contact["email_status"] != "unsubscribed", 409, "ALREADY_UNSUBSCRIBED", message)
        contact.update(email_status="unsubscribed", unsubscribed_on=self.today().isoformat(), opt_out_source=source)
        return {"contact_id": contact_id, "email_status": "unsubscribed"}

    @tool(kind="write", prose=("consent_source",))
    def resubscribe(
        self, contact_id: str, consent_source: NonBlank, captured_on: IsoDate, double_opt_in: bool = False
    ) -> dict[str, Any]:
        """Re-subscribe an unsubscribed contact on a new consent record.

        Args:
            contact_id: The contact.
            consent_source: Where the new consent was given (form, page, event).
            captured_on: The date it was given (YYYY-MM-DD), not after today.
            double_opt_in: Whether the contact confirmed by email.
        """
        contact = self.get("contacts", contact_id)
        status = contact["email_status"]
        require(status == "unsubscribed", 409, "NOT_UNSUBSCRIBED", f"{contact_id} is {status}.")
        if captured_on > self.today().isoformat():
            raise Rejection(422, "CONSENT_DATE_IN_FUTURE", "Consent cannot be dated after today.", param="captured_on")
        if contact["unsubscribed_on"] and captured_on <= contact["unsubscribed_on"]:
            message = f"The consent must be newer than the opt-out of {contact['unsubscribed_on']}."
            raise Rejection(422, "CONSENT_OLDER_THAN_OPT_OUT", message, param="captured_on")
        basis = "double_opt_in" if double_opt_in else "explicit_opt_in"
        contact["consent"] = {"basis": basis, "source": consent_source, "captured_on": captured_on}
        contact.update(email_status="subscribed", unsubscribed_on=None, opt_out_source=None)
        return {"contact_id": contact_id, "email_status": "subscribed", "consent_basis": basis}

    @tool(kind="read")
    def get_segment(self, segment_id: str) -> dict[str, Any]:
        """Get a segment with each member's country, subscription status and consent basis.

        Args:
            segment_id: e.g. "SEG-0031".
        """
        segment = self.get("segments", segment_id)
        members = []
        for contact_id in segment["contact_ids"]:
            contact = self.state["contacts"][contact_id]
            keys = ("contact_id", "first_name", "last_name", "email", "country", "email_status")
            members.append({**{k: contact[k] for k in keys}, "consent_basis": contact["consent"]["basis"]})
        return {"segment_id": segment_id, "name": segment["name"], "members": members}

    @tool(kind="write")
    def create_segment(self, name: NonBlank, contact_ids: list[str]) -> dict[str, Any]:
        """Create a static segment of contacts.

        Args:
            name: Segment name.
            contact_ids: The contacts in it.
        """
        taken = any(norm(g["name"]) == norm(name) for g in self.state["segments"].values())
        require(not taken, 409, "DUPLICATE_SEGMENT_NAME", f"A segment named {name!r} exists.", param="name")
        require(bool(contact_ids), 422, "EMPTY_SEGMENT", "A segment needs at least one contact.", param="contact_ids")
        for contact_id in contact_ids:
            self.get("contacts", contact_id, param="contact_ids")
        unique = list(dict.fromkeys(contact_ids))
        segment = self.insert("segments", {"name": name, "contact_ids": unique})
        return {"segment_id": segment["segment_id"], "size": len(unique)}

    @tool(kind="write")
    def remove_from_segment(self, segment_id: str, contact_ids: list[str]) -> dict[str, Any]:
        """Remove contacts from a static segment (sends already scheduled keep their recipients).

        Args:
            segment_id: The segment.
            contact_ids: The contacts to remove.
        """
        segment = self.get("segments", segment_id)
        require(bool(contact_ids), 422, "CONTACT_IDS_REQUIRED", "Name the contacts to remove.", param="contact_ids")
        for contact_id in contact_ids:
            if contact_id not in segment["contact_ids"]:
                message = f"{contact_id} is not in {segment_id}."
                raise Rejection(409, "NOT_A_MEMBER", message, param="contact_ids")
        segment["contact_ids"] = [c for c in segment["contact_ids"] if c not in contact_ids]
        return {"segment_id": segment_id, "size": len(segment["contact_ids"])}
