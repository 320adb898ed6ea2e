"""The onboarding world as one typed state model: the single source of truth for the state.

A business customer goes live through the ordered chain create -> configure -> verify -> live
(spec figure 25): the application record is created, products and users are configured, KYB
verification (documents, beneficial owners, screening) passes, and only then is the account
finalized. The seed, every task's ``initial_state`` and every write pass through
:class:`OnboardingState`; contracts address the plain tree with dotted paths such as
``applications.APP-2025-0193.step``.

State layout::

    applications.<APP-…>     Application   (one per business; step and status of the chain)
    users.<USR-…>            PortalUser    (the business's users and roles)
    documents.<DOC-…>        Document      (KYB documents the business uploaded)
    kyb_checks.<KYC-…>       KybCheck      (one per KYB submission)
    contracts.<CTR-…>        Contract      (signed service contracts: dependencies of an account)
    registry.<tax id>        RegistryEntry (the company registry's ownership record, read-only)
    emails[]                 Email         (outbox: verification and welcome mails, append-only)
    settings                 Settings
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from pytest_crmbench import IsoDate, Record, Ref, Timestamp

Step = Literal["created", "configured", "verified", "live"]
STEPS: tuple[Step, ...] = ("created", "configured", "verified", "live")
Product = Literal["payments_api", "invoicing", "payouts", "card_issuing"]
Role = Literal["admin", "developer", "viewer"]
DocType = Literal["certificate_of_incorporation", "proof_of_address", "bank_statement"]
REQUIRED_DOCUMENTS: tuple[DocType, ...] = ("certificate_of_incorporation", "proof_of_address")


# The id of an application: the kit reports one naming no application.
ApplicationId = Annotated[str, Ref("applications")]


class Application(Record):
    """A business customer's onboarding application (Salesforce-style account onboarding record)."""

    id_prefix = "APP-2026"
    owner_field = "application_id"  # the customer record: its own owner

    application_id: str = Field(description="e.g. APP-2025-0193.")
    company_name: str = Field(description="Trading name.")
    legal_name: str = Field(description="Registered legal name.")
    tax_id: str = Field(description="US EIN, e.g. 84-3920175; unique across applications.")
    country: Literal["US"] = "US"
    contact_name: str = Field(description="Authorized signer and primary contact.")
    contact_email: str = Field(description="The contact's email (identity check; mails go here).")
    step: Step = Field("created", description="Last completed step of the chain.")
    status: Literal["in_progress", "on_hold", "live"] = "in_progress"
    products: list[Product] = Field(default_factory=list, description="Configured products.")
    language: Literal["en", "es", "fr", "de"] = "en"
    timezone: str = Field("America/New_York", description="IANA time zone for statements and mails.")
    kyb_check_id: str | None = Field(None, description="The latest KYB check, if submitted.")
    sandbox: bool = Field(False, description="A test application (may be deleted when unused).")
    created_on: IsoDate
    live_on: IsoDate | None = None


class PortalUser(Record):
    """A user of the business's portal account, with one role."""

    id_prefix = "USR"
    id_field = "user_id"
    owner_field = "application_id"
    noun = "user"

    user_id: str = Field(description="e.g. USR-3101.")
    application_id: ApplicationId
    name: str
    email: str
    role: Role


class Document(Record):
    """A KYB document the business uploaded through the portal."""

    id_prefix = "DOC"
    owner_field = "application_id"

    document_id: str = Field(description="e.g. DOC-5501.")
    application_id: ApplicationId
    doc_type: DocType
    status: Literal["requested", "accepted", "rejected"]
    note: str = Field("", description="Reviewer's note (why rejected) or the request's note.")
    updated_on: IsoDate


class DeclaredOwner(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    percent: int = Field(ge=0, le=100)


class KybCheck(Record):
    """One KYB submission: declared beneficial owners, the control person and the screening outcome."""

    id_prefix = "KYC"
    owner_field = "application_id"
    noun = "KYB check"

    kyb_check_id: str = Field(description="e.g. KYC-000771.")
    application_id: ApplicationId
    owners: list[DeclaredOwner]
    controller_name: str
    status: Literal["passed", "hold"]
    hold_reason: str | None = Field(None, description="Internal only: why screening holds it. Never disclosed.")
    submitted_at: Timestamp


class Contract(Record):
    """A signed service contract: a dependency that blocks deleting its application."""

    id_prefix = "CTR"
    owner_field = "application_id"

    contract_id: str
    application_id: ApplicationId
    title: str
    signed_on: IsoDate


class RegistryOwner(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    percent: int = Field(ge=0, le=100)
    watchlist_hit: bool = False


class RegistryEntry(BaseModel):
    """The company registry's record of a business (read-only reference data)."""

    model_config = ConfigDict(extra="forbid")

    tax_id: str
    legal_name: str
    owners: list[RegistryOwner]
    officers: list[str] = Field(description="Directors and officers (control persons).")


class Email(BaseModel):
    model_config = ConfigDict(extra="forbid")

    application_id: str
    to: str
    kind: Literal["welcome", "document_request"]
    sent_at: Timestamp


class Settings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    beneficial_owner_threshold: int = Field(25, description="Owners at or above this percent are declared.")


class OnboardingState(BaseModel):
    model_config = ConfigDict(extra="forbid")

    settings: Settings
    applications: dict[str, Application]
    users: dict[str, PortalUser]
    documents: dict[str, Document]
    kyb_checks: dict[str, KybCheck]
    contracts: dict[str, Contract]
    registry: dict[str, RegistryEntry]
    emails: list[Email]
