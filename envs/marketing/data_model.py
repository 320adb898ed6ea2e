"""The marketing world as one typed state model: the single source of truth for the state.

Modelled on Salesforce Marketing Cloud / HubSpot marketing: contacts with a subscription status
(subscribed, unsubscribed, held, bounced) and a recorded consent basis, static segments, campaigns
with status and budget, emails (commercial or transactional) and sends (scheduled to a segment;
the recipients are fixed when the send is scheduled; an A/B send carries two emails and, once
sent, results per variant). Tasks address it with dotted paths (``contacts.CT-1007.email_status``).

State layout::

    contacts.<CT-…>        Contact
    segments.<SEG-…>       Segment
    campaigns.<CMP-…>      Campaign
    emails.<EM-…>          Email
    sends.<SEND-…>         Send
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from pytest_crmbench import IsoDate, Money, Record, Ref, Timestamp

EmailStatus = Literal["subscribed", "unsubscribed", "held", "bounced"]
SUPPRESSED = ("unsubscribed", "held")
"""Statuses the platform never sends to (bounced addresses are still sendable)."""
ConsentBasis = Literal["explicit_opt_in", "double_opt_in", "pre_ticked", "imported", "none"]
CampaignStatus = Literal["Planned", "In Progress", "Completed", "Aborted"]
OPEN_CAMPAIGN = ("Planned", "In Progress")
OptOutSource = Literal["unsubscribe_link", "email_reply", "phone", "web_form", "in_person"]


# Ids of other records: the kit reports one naming no record ("names no contact").
ContactId = Annotated[str, Ref("contacts")]
SegmentId = Annotated[str, Ref("segments")]
CampaignId = Annotated[str, Ref("campaigns")]


class Consent(BaseModel):
    """How the contact agreed to marketing email, as recorded."""

    model_config = ConfigDict(extra="forbid")

    basis: ConsentBasis
    source: str = ""
    captured_on: IsoDate | None = None


class Contact(Record):
    id_prefix = "CT"

    contact_id: str = Field(description="e.g. CT-1007.")
    first_name: str
    last_name: str
    email: str
    country: str = Field(description="ISO 3166 alpha-2 code.")
    email_status: EmailStatus = "subscribed"
    consent: Consent
    unsubscribed_on: IsoDate | None = None
    opt_out_source: OptOutSource | None = None


class Segment(Record):
    id_prefix = "SEG"

    segment_id: str
    name: str
    contact_ids: list[ContactId]


class Campaign(Record):
    id_prefix = "CMP"

    campaign_id: str
    name: str
    status: CampaignStatus = "Planned"
    channel: Literal["email", "webinar", "event", "paid_social"] = "email"
    budget: Money = Field(ge=0)
    spent: Money = Field(ge=0)
    start_date: IsoDate
    end_date: IsoDate


class Email(Record):
    id_prefix = "EM"

    email_id: str
    campaign_id: CampaignId
    name: str
    subject: str
    kind: Literal["commercial", "transactional"]
    has_unsubscribe_link: bool
    postal_address: str | None = None


class VariantResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    delivered: int = Field(ge=0)
    opens: int = Field(ge=0)
    clicks: int = Field(ge=0)


class Send(Record):
    id_prefix = "SEND"

    send_id: str
    campaign_id: CampaignId
    email_ids: list[str] = Field(min_length=1, max_length=2, description="Two emails: an A/B split.")
    segment_id: SegmentId
    scheduled_at: Timestamp
    status: Literal["scheduled", "sent", "cancelled"] = "scheduled"
    recipients: list[ContactId] = Field(description="Contact ids, fixed when the send is scheduled.")
    results: dict[str, VariantResult] = Field(default_factory=dict, description="Per email id, once sent.")


class MarketingState(BaseModel):
    model_config = ConfigDict(extra="forbid")

    contacts: dict[str, Contact]
    segments: dict[str, Segment]
    campaigns: dict[str, Campaign]
    emails: dict[str, Email]
    sends: dict[str, Send]
