"""The customer-support world as one typed state model: the single source of truth for the state.

A telecom and internet provider's support desk, modelled on Salesforce Service Cloud (Case,
Entitlement, case milestones, Queue, Knowledge) and Zendesk tickets. The environment validates
``seed.json``, every task's ``initial_state`` and the state after every write tool through
:class:`SupportState`; tools read and write the plain tree it dumps, so contracts address it with
dotted paths such as ``cases.CS-004101.priority`` or ``invoices.INV-5002-2601.status``.

State layout::

    accounts.<ACC-…>          Account        (holder, plan services, add-ons, suspension)
    entitlements.<ENT-…>      Entitlement    (support plan: SLA tier, dates, per-incident count)
    cases.<CS-…>              Case           (priority, status lifecycle, queue, milestones)
    case_comments[]           CaseComment    (append-only; a public one is the first response)
    handoffs[]                Handoff        (append-only; transfers to a human agent)
    invoices.<INV-…>          Invoice        (lines; its balance and status follow from credits and payments)
    credits.<CR-…>            Credit         (a credit against one invoice line)
    payments.<PAY-…>          Payment        (what the customer paid against an invoice)
    refunds.<RF-…>            Refund         (money back to the card of a payment)
    outages.<OUT-…>           Outage         (a network event affecting every account in its postal codes)
    articles.<KA-…>           Article        (knowledge base)
    settings                  Settings       (credit limit, windows, SLA hours per tier and priority)
    last_case_number          int            (case ids are sequential, like Salesforce case numbers)
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from pytest_crmbench import IsoDate, Money, Record, Ref, Timestamp, YearMonth
from pytest_crmbench.env.values import ZERO

Priority = Literal["low", "medium", "high", "urgent"]
CaseType = Literal["billing", "technical", "account", "outage"]
CaseStatus = Literal["new", "in_progress", "waiting_on_customer", "escalated", "resolved", "closed"]
Queue = Literal["tier1", "billing_tier2", "technical_tier2", "network_ops", "customer_relations"]
OPEN_STATUSES = ("new", "in_progress", "waiting_on_customer", "escalated")
PRIORITIES: tuple[Priority, ...] = ("low", "medium", "high", "urgent")


# Ids of other records: the kit reports one naming no record ("names no account").
AccountId = Annotated[str, Ref("accounts")]
OutageId = Annotated[str, Ref("outages")]


class Service(BaseModel):
    """One subscribed service (a fiber line, a mobile line, a VoIP bundle) and its monthly price."""

    model_config = ConfigDict(extra="forbid")

    service_id: str = Field(description="e.g. SVC-5002-1.")
    name: str = Field(description="Plan name as on the invoice, e.g. 'Business Fiber 1 Gig'.")
    kind: Literal["fiber_internet", "mobile", "voip", "tv"]
    monthly_price: Money = Field(ge=0)
    status: Literal["active", "suspended"] = "active"


class AddOn(BaseModel):
    """An optional extra (static IP, travel pass); billed from ``started_on`` until ``cancelled_on``."""

    model_config = ConfigDict(extra="forbid")

    name: str
    monthly_price: Money = Field(ge=0)
    started_on: IsoDate
    cancelled_on: IsoDate | None = None


class Promotion(BaseModel):
    """A promised price for a service until a date (the invoice must honour it)."""

    model_config = ConfigDict(extra="forbid")

    service_id: str
    promo_price: Money = Field(ge=0)
    valid_until: IsoDate


class Account(Record):
    """A customer account (residential or business) and its subscribed services."""

    id_prefix = "ACC"
    owner_field = "account_id"  # the customer record: its own owner

    account_id: str = Field(description="e.g. ACC-5002.")
    holder_name: str = Field(description="Account holder's full name (identity check).")
    company: str | None = Field(None, description="Business name for business accounts.")
    segment: Literal["residential", "business"]
    postal_code: str = Field(description="Service address postal code (identity check, outage area).")
    email: str
    status: Literal["active", "suspended", "closed"] = "active"
    suspended_reason: str | None = Field(None, description="Set exactly while the account is suspended.")
    suspended_on: IsoDate | None = None
    users: int = Field(ge=1, description="People or lines the account serves (1 for a household).")
    services: list[Service]
    add_ons: list[AddOn] = Field(default_factory=list)
    promotions: list[Promotion] = Field(default_factory=list)
    customer_since: IsoDate


class Entitlement(Record):
    """A support entitlement (Salesforce Entitlement): the SLA tier that applies between two dates,
    optionally limited to a number of cases (per-incident)."""

    id_prefix = "ENT"
    owner_field = "account_id"

    entitlement_id: str = Field(description="e.g. ENT-0042.")
    account_id: AccountId
    name: str
    sla_tier: Literal["premium", "standard"]
    start_date: IsoDate
    end_date: IsoDate
    per_incident: bool = False
    cases_remaining: int | None = Field(None, ge=0, description="Only for per-incident entitlements.")


class Case(Record):
    """A support case (Salesforce Case / Zendesk ticket)."""

    id_prefix = "CS"
    owner_field = "account_id"

    case_id: str = Field(description="e.g. CS-004101.")
    account_id: AccountId
    subject: str
    description: str
    case_type: CaseType
    priority: Priority
    status: CaseStatus = "new"
    queue: Queue = "tier1"
    origin: Literal["chat", "phone", "email", "web"] = "chat"
    entitlement_id: str | None = None
    parent_case_id: str | None = Field(None, description="The earlier case this one follows up.")
    merged_into: str | None = Field(None, description="Set when the case was merged into another one.")
    outage_id: OutageId | None = None
    created_at: Timestamp
    first_response_at: Timestamp | None = Field(None, description="First Response milestone completion.")
    escalated_at: Timestamp | None = None
    escalation_reason: str | None = None
    resolved_at: Timestamp | None = Field(None, description="Resolution milestone completion.")
    resolution: str | None = None
    closed_at: Timestamp | None = None
    csat_score: int | None = Field(None, ge=1, le=5)
    csat_comment: str | None = None


class CaseComment(Record):
    id_prefix = "CC"
    owner_field = "account_id"
    id_field = "comment_id"

    comment_id: str
    case_id: str
    account_id: str
    body: str
    public: bool
    created_at: Timestamp


class Handoff(Record):
    id_prefix = "HO"
    owner_field = "account_id"
    id_field = "handoff_id"

    handoff_id: str
    case_id: str
    account_id: str
    summary: str
    created_at: Timestamp


class InvoiceLine(BaseModel):
    model_config = ConfigDict(extra="forbid")

    line_id: str = Field(description="e.g. L1.")
    description: str
    amount: Money = Field(gt=0)
    service_id: str | None = None


class Invoice(Record):
    """A monthly bill. Its balance is the lines minus credits minus net payments; its status follows."""

    id_prefix = "INV"
    owner_field = "account_id"

    invoice_id: str = Field(description="e.g. INV-5002-2601.")
    account_id: AccountId
    period: YearMonth
    issued_on: IsoDate
    due_on: IsoDate
    lines: list[InvoiceLine]
    status: Literal["open", "overdue", "paid"] = "open"
    credited_amount: Money = Field(ZERO, ge=0, description="Sum of the credits applied to the invoice.")


class Credit(Record):
    id_prefix = "CR"
    owner_field = "account_id"

    credit_id: str
    account_id: str
    invoice_id: str
    line_id: str
    amount: Money = Field(gt=0)
    reason: str
    case_id: str | None = None
    created_at: Timestamp


class Payment(Record):
    id_prefix = "PAY"
    owner_field = "account_id"

    payment_id: str
    account_id: str
    invoice_id: str
    amount: Money = Field(gt=0)
    method: str = Field(description="e.g. 'Visa ending 4242'.")
    paid_at: Timestamp
    refunded_amount: Money = Field(ZERO, ge=0)


class Refund(Record):
    id_prefix = "RF"
    owner_field = "account_id"

    refund_id: str
    account_id: str
    payment_id: str
    amount: Money = Field(gt=0)
    reason: str
    created_at: Timestamp


class Outage(Record):
    """A network event; every account whose postal code is listed is affected for ``services``."""

    id_prefix = "OUT"

    outage_id: str
    title: str
    postal_codes: list[str]
    services: list[Literal["fiber_internet", "mobile", "voip", "tv"]]
    status: Literal["active", "resolved"]
    started_at: Timestamp
    ended_at: Timestamp | None = None
    public_note: str


class Article(Record):
    id_prefix = "KA"
    id_field = "article_id"

    article_id: str
    title: str
    topic: CaseType
    keywords: list[str]
    summary: str
    body: str


class SlaHours(BaseModel):
    model_config = ConfigDict(extra="forbid")

    urgent: int = Field(gt=0)
    high: int = Field(gt=0)
    medium: int = Field(gt=0)
    low: int = Field(gt=0)


class SlaTier(BaseModel):
    model_config = ConfigDict(extra="forbid")

    first_response_hours: SlaHours
    resolution_hours: SlaHours


class Settings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    agent_credit_limit: Money = Field(gt=0, description="Largest single credit an agent may apply.")
    refund_window_days: int = Field(ge=0, description="Payments can be refunded this many days after they were made.")
    reopen_window_days: int = Field(
        ge=0, description="A resolved case can be reopened this many days after resolution."
    )
    sla: dict[Literal["premium", "standard"], SlaTier]


class SupportState(BaseModel):
    """The whole world; ``seed.json`` and every task's ``initial_state`` must validate against it."""

    model_config = ConfigDict(extra="forbid")

    settings: Settings
    last_case_number: int = Field(ge=0, description="Case numbers are sequential: the next case is CS-<this + 1>.")
    accounts: dict[str, Account]
    entitlements: dict[str, Entitlement]
    cases: dict[str, Case]
    case_comments: list[CaseComment]
    handoffs: list[Handoff]
    invoices: dict[str, Invoice]
    credits: dict[str, Credit]
    payments: dict[str, Payment]
    refunds: dict[str, Refund]
    outages: dict[str, Outage]
    articles: dict[str, Article]
