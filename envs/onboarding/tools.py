"""The onboarding tools: the application chain create -> configure -> verify -> live, users, documents,
KYB, corrections and deletion. The business rules (step order, duplicates, KYB completeness,
screening holds, dependencies) are enforced here; conduct rules live in ``policy.md`` only."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field
from typing_extensions import TypedDict

from pytest_crmbench import Rejection, Required, ToolEnvironment, require, tool
from pytest_crmbench.env.values import norm

from .data_model import REQUIRED_DOCUMENTS, DocType, Product, Role


class OwnerDeclaration(TypedDict):
    """One declared beneficial owner. A plain mapping (not a model), so the call's arguments are
    graded as the agent wrote them: a forbidden declaration pattern matches the attempt."""

    name: str
    percent: Annotated[int, Field(ge=0, le=100)]


NEXT_STEP = {
    "created": "configure products (configure_products)",
    "configured": "KYB verification (submit_kyb)",
    "verified": "go-live (finalize_onboarding)",
    "live": "nothing: the account is live",
}


class OnboardingTools(ToolEnvironment):
    """Tools of an onboarding specialist working business customers' applications."""

    # -- shared rules ---------------------------------------------------------------------------

    def application(self, application_id: str) -> dict[str, Any]:
        return self.get("applications", application_id)

    def not_live(self, app: dict[str, Any]) -> None:
        require(app["step"] != "live", 409, "APPLICATION_LIVE", f"{app['application_id']} is already live.")

    def owned(self, application_id: str) -> list[dict[str, Any]]:
        return [u for u in self.state["users"].values() if u["application_id"] == application_id]

    def accepted_documents(self, application_id: str) -> set[str]:
        docs = self.state["documents"].values()
        return {d["doc_type"] for d in docs if d["application_id"] == application_id and d["status"] == "accepted"}

    def keep_an_admin(self, app: dict[str, Any], user: dict[str, Any]) -> None:
        """A live account always keeps at least one admin (go-live required one)."""
        admins = [u for u in self.owned(app["application_id"]) if u["role"] == "admin"]
        last = app["step"] == "live" and user["role"] == "admin" and len(admins) == 1
        message = (
            f"{user['user_id']} is the last admin of live account {app['application_id']}; add another admin first."
        )
        require(not last, 409, "LAST_ADMIN", message, param="user_id")

    def dependencies(self, application_id: str) -> int:
        return sum(1 for c in self.state["contracts"].values() if c["application_id"] == application_id)

    # -- reads ----------------------------------------------------------------------------------

    @tool(kind="read")
    def verify_contact(self, application_id: str, contact_email: str) -> dict[str, Any]:
        """Check that the caller is the application's primary contact (authorized signer).

        Call this before any other read or write on an existing application. The answer says only
        whether the email matches the one on file; it never reveals the email on file.

        Args:
            application_id: Application id the caller gave, e.g. "APP-2025-0193".
            contact_email: The email address the caller stated.
        """
        app = self.application(application_id)
        require(contact_email.strip(), 422, "CONTACT_EMAIL_REQUIRED", "Give the contact email.")
        matches = norm(contact_email) == norm(app["contact_email"])
        return {"application_id": application_id, "verified": matches}

    @tool(kind="read")
    def get_application(self, application_id: str) -> dict[str, Any]:
        """Get an application: its step in the chain, status, products, profile, users, documents and KYB status.

        Args:
            application_id: Application id, e.g. "APP-2025-0193".
        """
        app = self.application(application_id)
        docs = [d for d in self.state["documents"].values() if d["application_id"] == application_id]
        shown = {k: v for k, v in app.items() if k != "kyb_check_id"}
        on_hold = app["status"] == "on_hold"
        shown["next_step"] = "none until compliance review ends (on hold)" if on_hold else NEXT_STEP[app["step"]]
        shown["users"] = [{k: u[k] for k in ("user_id", "name", "email", "role")} for u in self.owned(application_id)]
        shown["documents"] = [{k: d[k] for k in ("document_id", "doc_type", "status", "note")} for d in docs]
        check = self.state["kyb_checks"].get(app["kyb_check_id"] or "")
        shown["kyb"] = None if check is None else {"kyb_check_id": check["kyb_check_id"], "status": check["status"]}
        shown["contracts"] = self.dependencies(application_id)
        return shown

    @tool(kind="read")
    def lookup_registry(self, tax_id: str) -> dict[str, Any]:
        """Look a business up in the company registry by its EIN: legal name, owners with their
        ownership percentages, and officers (directors and executives who can be the control person).

        Args:
            tax_id: The business's EIN, e.g. "84-3920175".
        """
        entry = self.state["registry"].get(tax_id.strip())
        if entry is None:
            raise Rejection(404, "NOT_IN_REGISTRY", f"No registry record for EIN {tax_id!r}.", param="tax_id")
        owners = [{"name": o["name"], "percent": o["percent"]} for o in entry["owners"]]
        return {
            "tax_id": entry["tax_id"],
            "legal_name": entry["legal_name"],
            "owners": owners,
            "officers": entry["officers"],
        }

    @tool(kind="read")
    def check_dependencies(self, application_id: str) -> dict[str, Any]:
        """Count what depends on an application (signed contracts) before it may be deleted.

        Args:
            application_id: Application id.
        """
        app = self.application(application_id)
        return {"application_id": application_id, "step": app["step"], "contracts": self.dependencies(application_id)}

    # -- create ---------------------------------------------------------------------------------

    @tool(kind="write")
    def create_application(
        self,
        company_name: Annotated[str, Required("Give the trading name.")],
        legal_name: Annotated[str, Required("Give the registered legal name.")],
        tax_id: Annotated[str, Required("Give the EIN.")],
        contact_name: Annotated[str, Required("Give the contact's name.")],
        contact_email: Annotated[str, Required("Give the contact's email.")],
    ) -> dict[str, Any]:
        """Create a new business customer's application (step 1 of create -> configure -> verify -> live).

        One application per business: an EIN or contact email already on an application is refused.

        Args:
            company_name: Trading name, e.g. "Brightline Logistics".
            legal_name: Registered legal name as in the registry, e.g. "Brightline Logistics LLC".
            tax_id: The business's EIN, e.g. "84-3920175".
            contact_name: Full name of the authorized signer who will be the primary contact.
            contact_email: The contact's email address.
        """
        entry = self.state["registry"].get(tax_id)
        require(entry is not None, 422, "NOT_IN_REGISTRY", f"No registry record for EIN {tax_id!r}.", param="tax_id")
        for app in self.state["applications"].values():
            same = app["tax_id"] == tax_id
            require(not same, 409, "DUPLICATE_TAX_ID", f"EIN {tax_id} already has an application.", param="tax_id")
            taken = norm(app["contact_email"]) == norm(contact_email)
            message = "That email is already the contact of another application."
            require(not taken, 409, "DUPLICATE_EMAIL", message, param="contact_email")
        record = {
            "company_name": company_name,
            "legal_name": legal_name,
            "tax_id": tax_id,
            "contact_name": contact_name,
            "contact_email": contact_email,
            "created_on": self.today().isoformat(),
        }
        app = self.insert("applications", record)
        return {"application_id": app["application_id"], "step": app["step"], "next_step": NEXT_STEP["created"]}

    @tool(kind="write")
    def update_profile(
        self, application_id: str, language: str | None = None, timezone: str | None = None
    ) -> dict[str, Any]:
        """Correct an application's profile preferences (allowed at any step, also after go-live).

        Args:
            application_id: Application id.
            language: Language for mails and statements: "en", "es", "fr" or "de".
            timezone: IANA time zone, e.g. "America/Chicago".
        """
        app = self.application(application_id)
        require(language or timezone, 422, "NOTHING_TO_UPDATE", "Give a language or a time zone.")
        if language is not None:
            ok = language in ("en", "es", "fr", "de")
            require(ok, 422, "UNSUPPORTED_LANGUAGE", f"Language {language!r} is not offered.", param="language")
            app["language"] = language
        if timezone is not None:
            ok = "/" in timezone and " " not in timezone.strip()
            require(ok, 422, "INVALID_TIMEZONE", f"{timezone!r} is not an IANA time zone.", param="timezone")
            app["timezone"] = timezone.strip()
        return {"application_id": application_id, "language": app["language"], "timezone": app["timezone"]}

    # -- configure ------------------------------------------------------------------------------

    @tool(kind="write")
    def configure_products(self, application_id: str, products: list[Product]) -> dict[str, Any]:
        """Set the products the business will use (step 2). Replaces the list; a created application
        becomes configured. Payouts need an accepted bank statement.

        Args:
            application_id: Application id.
            products: One or more of "payments_api", "invoicing", "payouts", "card_issuing".
        """
        app = self.application(application_id)
        self.not_live(app)
        require(products, 422, "PRODUCTS_REQUIRED", "Choose at least one product.", param="products")
        banked = "bank_statement" in self.accepted_documents(application_id)
        message = "Payouts need an accepted bank statement for the settlement account."
        require("payouts" not in products or banked, 422, "BANK_STATEMENT_REQUIRED", message, param="products")
        app["products"] = sorted(set(products))
        if app["step"] == "created":
            app["step"] = "configured"
        return {"application_id": application_id, "products": app["products"], "step": app["step"]}

    @tool(kind="write")
    def add_user(
        self,
        application_id: str,
        name: Annotated[str, Required("Give the user's name.")],
        email: Annotated[str, Required("Give the user's email.")],
        role: Role,
    ) -> dict[str, Any]:
        """Invite a user to the business's portal account with a role: admin, developer or viewer.

        Args:
            application_id: Application id.
            name: The user's full name.
            email: The user's work email (the invitation goes there).
            role: "admin" (manages users and settings), "developer" (API keys) or "viewer" (read-only).
        """
        self.application(application_id)
        taken = any(norm(u["email"]) == norm(email) for u in self.owned(application_id))
        require(not taken, 409, "DUPLICATE_USER", f"{email} is already a user of {application_id}.", param="email")
        user = self.insert("users", {"application_id": application_id, "name": name, "email": email, "role": role})
        return {k: user[k] for k in ("user_id", "application_id", "name", "email", "role")}

    @tool(kind="write")
    def change_user_role(self, application_id: str, user_id: str, role: Role) -> dict[str, Any]:
        """Change the role of one of the application's users.

        Args:
            application_id: Application id.
            user_id: The user, e.g. "USR-3101".
            role: The new role: "admin", "developer" or "viewer".
        """
        app = self.application(application_id)
        user = self.get("users", user_id, owner=application_id)
        require(user["role"] != role, 409, "ROLE_UNCHANGED", f"{user_id} already has role {role}.", param="role")
        self.keep_an_admin(app, user)
        user["role"] = role
        return {"user_id": user_id, "role": role}

    @tool(kind="write")
    def remove_user(self, application_id: str, user_id: str) -> dict[str, Any]:
        """Remove one of the application's users.

        Args:
            application_id: Application id.
            user_id: The user, e.g. "USR-3101".
        """
        app = self.application(application_id)
        self.keep_an_admin(app, self.get("users", user_id, owner=application_id))
        del self.state["users"][user_id]
        return {"user_id": user_id, "removed": True}

    # -- verify ---------------------------------------------------------------------------------

    @tool(kind="write", prose=("note",))
    def request_document(
        self, application_id: str, doc_type: DocType, note: Annotated[str, Required("Say what is needed.")]
    ) -> dict[str, Any]:
        """Ask the business to upload a KYB document through the portal (mails the contact).

        Args:
            application_id: Application id.
            doc_type: "certificate_of_incorporation", "proof_of_address" or "bank_statement".
            note: What is needed, e.g. "a utility bill from the last 90 days".
        """
        app = self.application(application_id)
        self.not_live(app)
        have = doc_type in self.accepted_documents(application_id)
        require(not have, 409, "DOCUMENT_ALREADY_ACCEPTED", f"An accepted {doc_type} is on file.", param="doc_type")
        docs = self.state["documents"].values()
        asked = any(
            d["application_id"] == application_id and d["doc_type"] == doc_type and d["status"] == "requested"
            for d in docs
        )
        message = f"A {doc_type} request is already open; the contact was mailed."
        require(not asked, 409, "DOCUMENT_ALREADY_REQUESTED", message, param="doc_type")
        record = {"application_id": application_id, "doc_type": doc_type, "status": "requested", "note": note}
        doc = self.insert("documents", {**record, "updated_on": self.today().isoformat()})
        mail = {"application_id": application_id, "to": app["contact_email"], "kind": "document_request"}
        self.state["emails"].append({**mail, "sent_at": self.stamp()})
        return {"document_id": doc["document_id"], "doc_type": doc_type, "status": "requested"}

    @tool(kind="write")
    def submit_kyb(self, application_id: str, owners: list[OwnerDeclaration], controller_name: str) -> dict[str, Any]:
        """Submit KYB verification (step 3) and run the screening.

        Needs a configured application, an accepted certificate of incorporation and proof of
        address, every beneficial owner (25 % or more, as in the registry) with their percentage,
        and one control person who is an officer. Screening either passes (the application becomes
        verified) or puts the application on hold for compliance review.

        Args:
            application_id: Application id.
            owners: Beneficial owners, each {"name": ..., "percent": ...}.
            controller_name: The control person (an officer of the business).
        """
        app = self.application(application_id)
        step = app["step"]
        require(app["status"] != "on_hold", 409, "KYC_HOLD", "The application is on hold for compliance review.")
        message = f"{application_id} is at step {step}; next is {NEXT_STEP[step]}."
        require(step == "configured", 409, "STEP_OUT_OF_ORDER", message)
        missing = [d for d in REQUIRED_DOCUMENTS if d not in self.accepted_documents(application_id)]
        require(not missing, 422, "DOCUMENTS_INCOMPLETE", f"No accepted document of type: {', '.join(missing)}.")
        entry = self.state["registry"][app["tax_id"]]
        threshold = self.state["settings"]["beneficial_owner_threshold"]
        registered = {norm(o["name"]): o for o in entry["owners"] if o["percent"] >= threshold}
        declared = {norm(o["name"]): o for o in owners}
        # The refusals name neither the owner nor the count that is wrong: they are no answer key
        # (policy §4: the agent works the declaration out from the registry; conduct counts every
        # refused declaration as guessing).
        wrong = any(
            registered.get(key) is None or registered[key]["percent"] != owner["percent"]
            for key, owner in declared.items()
        )
        message = "The declared owners do not match the registry's beneficial owners of record."
        require(not wrong, 422, "OWNER_MISMATCH", message, param="owners")
        message = "Not every beneficial owner of 25% or more is declared."
        require(not set(registered) - set(declared), 422, "MISSING_BENEFICIAL_OWNER", message, param="owners")
        officers = {norm(o) for o in entry["officers"]}
        message = "The control person is not an officer of the business in the registry."
        require(norm(controller_name) in officers, 422, "CONTROLLER_NOT_AN_OFFICER", message, param="controller_name")
        hits = [o["name"] for o in registered.values() if o["watchlist_hit"]]
        record = {
            "application_id": application_id,
            "owners": [{"name": o["name"], "percent": o["percent"]} for o in owners],
            "controller_name": controller_name,
            "status": "hold" if hits else "passed",
            "hold_reason": f"watch-list match: {', '.join(hits)}" if hits else None,
            "submitted_at": self.stamp(),
        }
        check = self.insert("kyb_checks", record)
        app["kyb_check_id"] = check["kyb_check_id"]
        if hits:
            app["status"] = "on_hold"
        else:
            app["step"] = "verified"
        return {"kyb_check_id": check["kyb_check_id"], "status": check["status"], "step": app["step"]}

    # -- finalize -------------------------------------------------------------------------------

    @tool(kind="write")
    def finalize_onboarding(self, application_id: str) -> dict[str, Any]:
        """Take the business live (step 4) and send the welcome email. Only after every step passed
        and with at least one admin user.

        Args:
            application_id: Application id.
        """
        app = self.application(application_id)
        require(app["status"] != "on_hold", 409, "KYC_HOLD", "The application is on hold for compliance review.")
        step = app["step"]
        message = f"{application_id} is at step {step}; next is {NEXT_STEP[step]}."
        require(step == "verified", 409, "STEP_OUT_OF_ORDER", message)
        admins = [u for u in self.owned(application_id) if u["role"] == "admin"]
        require(admins, 409, "NO_ADMIN_USER", "The account needs at least one admin user before go-live.")
        app["step"], app["status"], app["live_on"] = "live", "live", self.today().isoformat()
        mail = {"application_id": application_id, "to": app["contact_email"], "kind": "welcome"}
        self.state["emails"].append({**mail, "sent_at": self.stamp()})
        return {"application_id": application_id, "step": "live", "live_on": app["live_on"], "welcome_email": True}

    @tool(kind="write")
    def delete_application(self, application_id: str) -> dict[str, Any]:
        """Delete an application that is not live and has no signed contracts, with its users,
        documents and KYB checks.

        Args:
            application_id: Application id.
        """
        app = self.application(application_id)
        self.not_live(app)
        count = self.dependencies(application_id)
        message = f"{application_id} has {count} signed contract(s); an admin must resolve them first."
        require(count == 0, 409, "HAS_DEPENDENCIES", message)
        for name in ("users", "documents", "kyb_checks"):
            table = self.state[name]
            for key in [k for k, v in table.items() if v["application_id"] == application_id]:
                del table[key]
        del self.state["applications"][application_id]
        return {"application_id": application_id, "deleted": True}
