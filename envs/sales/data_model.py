"""The sales world as one typed state model: the single source of truth for the state.

Modelled on Salesforce Sales Cloud: reps with territories, leads with a status picklist and BANT
qualification, accounts, contacts, opportunities with stages whose probability follows the stage,
and calendar events. The seed, every task's ``initial_state`` and every write pass through
:class:`SalesState`; tasks address it with dotted paths (``leads.LEAD-30012.status``).

State layout::

    reps.<REP-…>            Rep            (sales reps: SDRs and account executives)
    leads.<LEAD-…>          Lead
    accounts.<ACC-…>        Account
    contacts.<CON-…>        Contact
    opportunities.<OPP-…>   Opportunity
    events.<EVT-…>          Event          (meetings on a rep's calendar)
    activities[]            Activity       (append-only: logged calls and emails)
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from pytest_crmbench import IsoDate, Money, Record, Ref, Timestamp

LeadStatus = Literal[
    "Open - Not Contacted",
    "Working - Contacted",
    "Qualified",
    "Closed - Converted",
    "Closed - Not Converted",
    "Merged",
]
CLOSED_LEAD = ("Closed - Converted", "Closed - Not Converted", "Merged")
LeadSource = Literal["Web", "Webinar", "Trade Show", "Referral", "Cold Call", "Partner"]
Stage = Literal[
    "Prospecting",
    "Qualification",
    "Needs Analysis",
    "Value Proposition",
    "Id. Decision Makers",
    "Perception Analysis",
    "Proposal/Price Quote",
    "Negotiation/Review",
    "Closed Won",
    "Closed Lost",
]
STAGE_PROBABILITY: dict[str, int] = {
    "Prospecting": 10,
    "Qualification": 10,
    "Needs Analysis": 20,
    "Value Proposition": 50,
    "Id. Decision Makers": 60,
    "Perception Analysis": 70,
    "Proposal/Price Quote": 75,
    "Negotiation/Review": 90,
    "Closed Won": 100,
    "Closed Lost": 0,
}
"""Salesforce's default stage probabilities: the probability always follows the stage."""
OPEN_STAGES = tuple(s for s in STAGE_PROBABILITY if not s.startswith("Closed"))
CallOutcome = Literal["connected", "left_voicemail", "no_answer", "wrong_number"]

# Ids of other records: the kit reports one naming no record ("names no rep").
RepId = Annotated[str, Ref("reps")]
LeadId = Annotated[str, Ref("leads")]
AccountId = Annotated[str, Ref("accounts")]
ContactId = Annotated[str, Ref("contacts")]
OpportunityId = Annotated[str, Ref("opportunities")]


class Rep(Record):
    rep_id: str = Field(description="e.g. REP-101.")
    name: str
    role: Literal["sdr", "ae"] = Field(description="Sales development rep or account executive.")
    email: str
    territory: list[str] = Field(description="US state codes the rep covers.")


class Bant(BaseModel):
    """Qualification facts as the prospect stated them (None: not known yet)."""

    model_config = ConfigDict(extra="forbid")

    budget: str | None = None
    authority: str | None = None
    need: str | None = None
    timeline: str | None = None


class Lead(Record):
    id_prefix = "LEAD"
    # No owner_field: lead records are public read/write across the sales team (the org-wide
    # default); "never work another rep's lead" is a policy rule, so a task can see it broken.
    lead_id: str = Field(description="e.g. LEAD-30012.")
    first_name: str
    last_name: str
    company: str
    title: str = ""
    email: str
    phone: str = ""
    state: str = Field(description="US state code of the company.")
    source: LeadSource
    status: LeadStatus = "Open - Not Contacted"
    owner_id: RepId | None = Field(default=None, description="The rep working the lead; None: unassigned.")
    created_date: IsoDate
    email_opt_out: bool = False
    bant: Bant = Field(default_factory=Bant)
    disqualified_reason: str | None = None
    merged_into: LeadId | None = None
    converted_account_id: AccountId | None = None
    converted_contact_id: ContactId | None = None
    converted_opportunity_id: OpportunityId | None = None


class Account(Record):
    id_prefix = "ACC"

    account_id: str
    name: str
    state: str
    industry: str = ""
    owner_id: RepId


class Contact(Record):
    id_prefix = "CON"

    contact_id: str
    account_id: AccountId
    first_name: str
    last_name: str
    title: str = ""
    email: str


class Opportunity(Record):
    id_prefix = "OPP"
    owner_field = "owner_id"

    opportunity_id: str
    name: str
    account_id: AccountId
    owner_id: RepId
    stage: Stage = "Qualification"
    probability: int = Field(ge=0, le=100, default=10)
    amount: Money | None = Field(default=None, ge=0)
    close_date: IsoDate | None = None
    loss_reason: str | None = None


class Event(Record):
    id_prefix = "EVT"

    event_id: str
    rep_id: RepId = Field(description="Whose calendar the event is on.")
    subject: str
    start: Timestamp
    duration_minutes: int = Field(gt=0)
    lead_id: LeadId | None = None


class Activity(Record):
    id_prefix = "ACT"

    activity_id: str
    kind: Literal["call", "email"]
    lead_id: str
    rep_id: str
    outcome: CallOutcome | None = None
    subject: str = ""
    notes: str = ""
    created_at: Timestamp


class SalesState(BaseModel):
    model_config = ConfigDict(extra="forbid")

    reps: dict[str, Rep]
    leads: dict[str, Lead]
    accounts: dict[str, Account]
    contacts: dict[str, Contact]
    opportunities: dict[str, Opportunity]
    events: dict[str, Event]
    activities: list[Activity]
