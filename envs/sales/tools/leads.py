"""Lead desk: search, create, merge duplicates, qualify (BANT), disqualify, assign, log calls, email."""

from __future__ import annotations

import re
from typing import Annotated, Any

from pytest_crmbench import NonBlank, Rejection, Required, require, tool
from pytest_crmbench.env.values import norm

from ..data_model import CallOutcome, LeadSource
from .base import SalesTools

DUPLICATE_CALL = "This call is already logged (same lead, rep and outcome in the last 10 minutes)."
EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[a-z]{2,}$", re.IGNORECASE)


class LeadTools(SalesTools):
    @tool(kind="read")
    def list_reps(self, state: str | None = None) -> dict[str, Any]:
        """List the sales reps with their role and territory (US state codes).

        Args:
            state: Optional US state code, e.g. "TX": only reps whose territory covers it.
        """
        reps = [r for r in self.state["reps"].values() if state is None or state.upper() in r["territory"]]
        return {"reps": [{k: r[k] for k in ("rep_id", "name", "role", "territory")} for r in reps]}

    @tool(kind="read")
    def search_leads(
        self, query: Annotated[str, Required("Give a name, company or email to search for.")]
    ) -> dict[str, Any]:
        """Find leads whose name, company or email contains the query (case-insensitive).

        Args:
            query: A person's name, a company name or an email address.
        """
        wanted = norm(query)
        found = []
        for lead in self.state["leads"].values():
            full_name = f"{lead['first_name']} {lead['last_name']}"
            if any(wanted in norm(text) for text in (full_name, lead["company"], lead["email"])):
                found.append(self.lead_summary(lead))
        return {"leads": found}

    @tool(kind="read")
    def get_lead(self, lead_id: str) -> dict[str, Any]:
        """Get a lead in full: status, owner, source, BANT facts recorded so far, email opt-out.

        Args:
            lead_id: e.g. "LEAD-30012".
        """
        lead = self.get("leads", lead_id)
        return {**lead, "owner_name": self.rep_name(lead["owner_id"])}

    @tool(kind="write")
    def create_lead(
        self,
        rep_id: str,
        first_name: NonBlank,
        last_name: NonBlank,
        company: NonBlank,
        email: NonBlank,
        state: NonBlank,
        source: LeadSource,
        title: str = "",
    ) -> dict[str, Any]:
        """Create a new lead owned by the rep.

        Args:
            rep_id: The rep the lead is for (its owner).
            first_name: Prospect's first name.
            last_name: Prospect's last name.
            company: Prospect's company.
            email: Prospect's business email.
            state: US state code of the company, e.g. "NJ".
            source: Where the lead came from.
            title: Prospect's job title, if known.
        """
        rep = self.rep(rep_id)
        require(bool(EMAIL.match(email)), 422, "INVALID_EMAIL", f"{email!r} is not an email address.", param="email")
        code = state.upper()
        require(
            len(code) == 2 and code.isalpha(), 422, "INVALID_STATE", "Give a two-letter US state code.", param="state"
        )
        fields = {"first_name": first_name, "last_name": last_name, "company": company, "email": email.lower()}
        lead = self.insert(
            "leads",
            {
                **fields,
                "title": title,
                "state": code,
                "source": source,
                "owner_id": rep["rep_id"],
                "created_date": self.today().isoformat(),
            },
        )
        return {"lead_id": lead["lead_id"], "status": lead["status"], "owner_id": rep_id}

    @tool(kind="write")
    def merge_leads(self, master_lead_id: str, duplicate_lead_id: str) -> dict[str, Any]:
        """Merge a duplicate lead into the master record: the master keeps its own values and takes
        the duplicate's where it has none; the duplicate is closed as Merged.

        Args:
            master_lead_id: The lead that survives.
            duplicate_lead_id: The lead merged into it.
        """
        same = master_lead_id == duplicate_lead_id
        require(not same, 422, "SAME_LEAD", "A lead cannot be merged into itself.", param="duplicate_lead_id")
        master = self.open_lead(master_lead_id, param="master_lead_id")
        duplicate = self.open_lead(duplicate_lead_id, param="duplicate_lead_id")
        for field in ("title", "phone"):
            master[field] = master[field] or duplicate[field]
        for fact, value in duplicate["bant"].items():
            master["bant"][fact] = master["bant"][fact] or value
        master["email_opt_out"] = master["email_opt_out"] or duplicate["email_opt_out"]  # an opt-out survives a merge
        duplicate.update(status="Merged", merged_into=master_lead_id)
        return {"master_lead_id": master_lead_id, "merged": duplicate_lead_id, "status": master["status"]}

    @tool(kind="write", prose=("budget", "authority", "need", "timeline"))
    def qualify_lead(
        self, lead_id: str, budget: NonBlank, authority: NonBlank, need: NonBlank, timeline: NonBlank
    ) -> dict[str, Any]:
        """Record the lead's BANT facts and mark it Qualified (all four are required).

        Args:
            lead_id: The lead.
            budget: What the prospect said about budget.
            authority: Who decides and signs, as the prospect said.
            need: The problem the prospect needs solved.
            timeline: When the prospect wants to buy or go live.
        """
        lead = self.open_lead(lead_id)
        require(lead["status"] != "Qualified", 409, "ALREADY_QUALIFIED", f"Lead {lead_id} is already Qualified.")
        lead["bant"] = {"budget": budget, "authority": authority, "need": need, "timeline": timeline}
        lead["status"] = "Qualified"
        return {"lead_id": lead_id, "status": "Qualified"}

    @tool(kind="write", prose=("reason",))
    def disqualify_lead(
        self, lead_id: str, reason: Annotated[str, Required("Say why the lead is disqualified.")]
    ) -> dict[str, Any]:
        """Close a lead as Closed - Not Converted, with the reason.

        Args:
            lead_id: The lead.
            reason: Why it will not be converted.
        """
        lead = self.open_lead(lead_id)
        lead.update(status="Closed - Not Converted", disqualified_reason=reason)
        return {"lead_id": lead_id, "status": lead["status"]}

    @tool(kind="write")
    def assign_lead(self, lead_id: str, rep_id: str) -> dict[str, Any]:
        """Make a rep the owner of a lead. The rep's territory must cover the lead's state.

        Args:
            lead_id: The lead.
            rep_id: The new owner.
        """
        lead = self.open_lead(lead_id)
        rep = self.rep(rep_id)
        if lead["state"] not in rep["territory"]:
            covers = ", ".join(rep["territory"])
            message = f"{rep['name']} covers {covers}; lead {lead_id} is in {lead['state']}."
            raise Rejection(422, "OUT_OF_TERRITORY", message, param="rep_id")
        require(
            lead["owner_id"] != rep_id, 409, "ALREADY_OWNER", f"{rep['name']} already owns {lead_id}.", param="rep_id"
        )
        lead["owner_id"] = rep_id
        return {"lead_id": lead_id, "owner_id": rep_id, "owner_name": rep["name"]}

    @tool(kind="write", prose=("notes",))
    def log_call(self, lead_id: str, rep_id: str, outcome: CallOutcome, notes: str = "") -> dict[str, Any]:
        """Log a call made to a lead; a first call moves an untouched lead to Working - Contacted.

        Args:
            lead_id: The lead called.
            rep_id: The rep who made the call.
            outcome: What happened on the call.
            notes: What was said, briefly.
        """
        lead = self.open_lead(lead_id)
        self.rep(rep_id)
        require(not self.just_logged(lead_id, rep_id, outcome), 409, "CALL_ALREADY_LOGGED", DUPLICATE_CALL)
        activity = self.log_activity("call", lead_id, rep_id, outcome=outcome, notes=notes)
        self.mark_contacted(lead)
        return {"activity_id": activity["activity_id"], "lead_status": lead["status"]}

    @tool(kind="write", prose=("subject", "body"))
    def send_email(self, lead_id: str, rep_id: str, subject: NonBlank, body: NonBlank) -> dict[str, Any]:
        """Send a one-to-one sales email to a lead from the rep's mailbox and log it.

        Args:
            lead_id: The lead emailed.
            rep_id: The sending rep.
            subject: Subject line.
            body: Message body.
        """
        lead = self.open_lead(lead_id)
        self.rep(rep_id)
        activity = self.log_activity("email", lead_id, rep_id, subject=subject, notes=body)
        self.mark_contacted(lead)
        return {"activity_id": activity["activity_id"], "to": lead["email"]}
