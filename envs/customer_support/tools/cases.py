"""The case lifecycle: new -> in progress -> waiting on customer -> escalated -> resolved -> closed,
with comments (a public one completes the First Response milestone), priority, escalation to a
tier-2 queue, merging duplicates, reopening, satisfaction and hand-off to a human."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Annotated, Any, Literal

from pytest_crmbench import Rejection, Required, require, tool

from ..data_model import OPEN_STATUSES, Case, CaseType, Priority, Queue
from .base import SupportTools

MOVES = {
    "new": ("in_progress", "waiting_on_customer"),
    "in_progress": ("waiting_on_customer",),
    "waiting_on_customer": ("in_progress",),
}


class CaseTools(SupportTools):
    def recent_case(self, account_id: str, case_type: str) -> str | None:
        """An open case of the same type the account opened within the last hour (Salesforce-style
        duplicate rule): a second one in the same conversation is almost always a duplicate."""
        since = (datetime.fromisoformat(self.clock_start) - timedelta(hours=1)).isoformat()
        for case in self.state["cases"].values():
            same = case["account_id"] == account_id and case["case_type"] == case_type
            if same and case["status"] in OPEN_STATUSES and case["created_at"] >= since:
                return str(case["case_id"])
        return None

    @tool(kind="read")
    def get_case(self, account_id: str, case_id: str) -> dict[str, Any]:
        """Get one of the customer's cases: its fields, its comments and its milestones (First
        Response and Resolution with their completion times; targets follow from the SLA hours of
        get_entitlements).

        Args:
            account_id: The verified customer's account id.
            case_id: Case id, e.g. "CS-004101".
        """
        case = self.case_of(account_id, case_id)
        comments = [
            {k: c[k] for k in ("comment_id", "body", "public", "created_at")}
            for c in self.state["case_comments"]
            if c["case_id"] == case_id
        ]
        milestones = [
            {"name": "first_response", "completed_at": case["first_response_at"]},
            {"name": "resolution", "completed_at": case["resolved_at"]},
        ]
        return {**case, "comments": comments, "milestones": milestones}

    @tool(kind="write", prose=("subject", "description"))
    def create_case(
        self,
        account_id: str,
        subject: Annotated[str, Required("Give a subject.")],
        description: Annotated[str, Required("Describe the issue.")],
        case_type: CaseType,
        priority: Priority,
        entitlement_id: str | None = None,
        parent_case_id: str | None = None,
    ) -> dict[str, Any]:
        """Open a new case for the customer in the tier-1 queue; case ids are sequential (CS-004126, ...).

        With an entitlement, the entitlement must be the account's and active today; a
        per-incident entitlement must have cases left (one is used). An open case of the same type
        opened in the last hour is a possible duplicate and is refused. Without one, the standard
        SLA applies. A follow-up of a closed case names it as parent.

        Args:
            account_id: The verified customer's account id.
            subject: One-line subject.
            description: What the customer reports.
            case_type: billing, technical, account or outage.
            priority: low, medium, high or urgent (policy: impact x urgency).
            entitlement_id: The active entitlement that covers the case, e.g. "ENT-0042".
            parent_case_id: The closed case this one follows up, if any.
        """
        account = self.account(account_id)
        require(account["status"] != "closed", 409, "ACCOUNT_CLOSED", f"{account_id} is closed.", param="account_id")
        if entitlement_id is not None:
            ent = self.get("entitlements", entitlement_id, param="entitlement_id", owner=account_id)
            today = self.today().isoformat()
            message = f"{entitlement_id} ended on {ent['end_date']}."
            require(ent["end_date"] >= today, 422, "ENTITLEMENT_EXPIRED", message, param="entitlement_id")
            message = f"{entitlement_id} starts on {ent['start_date']}."
            require(ent["start_date"] <= today, 422, "ENTITLEMENT_NOT_STARTED", message, param="entitlement_id")
            used_up = ent["per_incident"] and not ent["cases_remaining"]
            message = f"{entitlement_id} has no cases left."
            require(not used_up, 422, "NO_CASES_REMAINING", message, param="entitlement_id")
            if ent["per_incident"]:
                ent["cases_remaining"] -= 1
        if parent_case_id is not None:
            self.case_of(account_id, parent_case_id, "parent_case_id")
        recent = self.recent_case(account_id, case_type)
        if recent is not None:
            message = f"{recent} ({case_type}) was opened less than an hour ago; add to it instead."
            raise Rejection(409, "POSSIBLE_DUPLICATE", message, param="case_type")
        record = {
            "account_id": account_id,
            "subject": subject,
            "description": description,
            "case_type": case_type,
            "priority": priority,
            "entitlement_id": entitlement_id,
            "parent_case_id": parent_case_id,
            "created_at": self.stamp(),
        }
        number = self.state["last_case_number"] + 1
        case = Case.model_validate({**record, "case_id": f"CS-{number:06d}"}).model_dump(mode="python")
        self.state["cases"][case["case_id"]] = case
        self.state["last_case_number"] = number
        keys = ("case_id", "status", "priority", "queue", "entitlement_id", "created_at")
        return {k: case[k] for k in keys}

    @tool(kind="write", prose=("body",))
    def add_comment(
        self,
        account_id: str,
        case_id: str,
        body: Annotated[str, Required("Write the comment.")],
        public: bool = True,
    ) -> dict[str, Any]:
        """Add a comment to a case: public (the customer sees it; the first public one completes
        the First Response milestone) or an internal note.

        Args:
            account_id: The verified customer's account id.
            case_id: Case id.
            body: The comment text.
            public: True for a reply to the customer, False for an internal note.
        """
        case = self.case_of(account_id, case_id)
        require(case["status"] != "closed", 409, "CASE_CLOSED", f"{case_id} is closed.", param="case_id")
        stamp = self.stamp()
        comment = {"case_id": case_id, "account_id": account_id, "body": body, "public": public}
        stored = self.insert("case_comments", {**comment, "created_at": stamp})
        if public and case["first_response_at"] is None:
            case["first_response_at"] = stamp
        return {"comment_id": stored["comment_id"], "case_id": case_id, "public": public}

    @tool(kind="write")
    def update_case_status(
        self, account_id: str, case_id: str, status: Literal["in_progress", "waiting_on_customer"]
    ) -> dict[str, Any]:
        """Move a case between working states: new -> in_progress or waiting_on_customer,
        in_progress <-> waiting_on_customer. Escalation, resolution and closure have their own tools.

        Args:
            account_id: The verified customer's account id.
            case_id: Case id.
            status: in_progress or waiting_on_customer.
        """
        case = self.open_case(account_id, case_id)
        message = f"{case_id} cannot go from {case['status']} to {status}."
        require(status in MOVES.get(case["status"], ()), 409, "INVALID_TRANSITION", message, param="status")
        case["status"] = status
        return {"case_id": case_id, "status": status}

    @tool(kind="write", prose=("reason",))
    def set_priority(
        self, account_id: str, case_id: str, priority: Priority, reason: Annotated[str, Required("Say why.")]
    ) -> dict[str, Any]:
        """Change an open case's priority.

        Args:
            account_id: The verified customer's account id.
            case_id: Case id.
            priority: low, medium, high or urgent.
            reason: Why the priority changes (the facts behind it).
        """
        case = self.open_case(account_id, case_id)
        message = f"{case_id} is already {priority}."
        require(case["priority"] != priority, 409, "PRIORITY_UNCHANGED", message, param="priority")
        case["priority"] = priority
        self.insert(
            "case_comments",
            {
                "case_id": case_id,
                "account_id": account_id,
                "body": f"Priority set to {priority}: {reason}",
                "public": False,
                "created_at": self.stamp(),
            },
        )
        return {"case_id": case_id, "priority": priority}

    @tool(kind="write", prose=("reason",))
    def escalate_case(
        self, account_id: str, case_id: str, queue: Queue, reason: Annotated[str, Required("Say why.")]
    ) -> dict[str, Any]:
        """Escalate an open case to a tier-2 queue: billing_tier2, technical_tier2, network_ops or
        customer_relations. Only high and urgent cases can be escalated.

        Args:
            account_id: The verified customer's account id.
            case_id: Case id.
            queue: The tier-2 queue that owns the case from now on.
            reason: Why it is escalated (what was found, what is needed).
        """
        case = self.open_case(account_id, case_id)
        require(case["status"] != "escalated", 409, "ALREADY_ESCALATED", f"{case_id} is already escalated.")
        require(queue != "tier1", 422, "INVALID_QUEUE", "Escalate to a tier-2 queue.", param="queue")
        message = f"{case_id} is {case['priority']} priority; only high or urgent cases can be escalated."
        require(case["priority"] in ("high", "urgent"), 409, "PRIORITY_TOO_LOW", message, param="case_id")
        case["status"], case["queue"] = "escalated", queue
        case["escalated_at"], case["escalation_reason"] = self.stamp(), reason
        return {"case_id": case_id, "status": "escalated", "queue": queue, "priority": case["priority"]}

    @tool(kind="write", prose=("resolution",))
    def resolve_case(
        self, account_id: str, case_id: str, resolution: Annotated[str, Required("Describe the resolution.")]
    ) -> dict[str, Any]:
        """Mark a case resolved (completes the Resolution milestone). An escalated case belongs to
        its tier-2 queue and cannot be resolved here.

        Args:
            account_id: The verified customer's account id.
            case_id: Case id.
            resolution: What solved the issue.
        """
        case = self.open_case(account_id, case_id)
        message = f"{case_id} is escalated to {case['queue']}; that queue resolves it."
        require(case["status"] != "escalated", 409, "CASE_ESCALATED", message, param="case_id")
        case["status"], case["resolved_at"], case["resolution"] = "resolved", self.stamp(), resolution
        return {"case_id": case_id, "status": "resolved"}

    @tool(kind="write")
    def close_case(self, account_id: str, case_id: str) -> dict[str, Any]:
        """Close a resolved case (final; a closed case cannot be reopened).

        Args:
            account_id: The verified customer's account id.
            case_id: Case id.
        """
        case = self.case_of(account_id, case_id)
        message = f"{case_id} is {case['status']}; only a resolved case can be closed."
        require(case["status"] == "resolved", 409, "NOT_RESOLVED", message, param="case_id")
        case["status"], case["closed_at"] = "closed", self.stamp()
        return {"case_id": case_id, "status": "closed"}

    @tool(kind="write")
    def reopen_case(self, account_id: str, case_id: str) -> dict[str, Any]:
        """Reopen a resolved case (back to in_progress) within the reopen window after its
        resolution. A closed case cannot be reopened: open a follow-up case naming it as parent.

        Args:
            account_id: The verified customer's account id.
            case_id: Case id.
        """
        case = self.case_of(account_id, case_id)
        message = f"{case_id} is closed; open a follow-up case with parent_case_id {case_id}."
        require(case["status"] != "closed", 409, "CASE_CLOSED", message, param="case_id")
        message = f"{case_id} is {case['status']}; only a resolved case can be reopened."
        require(case["status"] == "resolved", 409, "NOT_RESOLVED", message, param="case_id")
        window = self.settings["reopen_window_days"]
        if self.age_days(case["resolved_at"]) > window:
            message = f"{case_id} was resolved more than {window} days ago; open a follow-up case."
            raise Rejection(422, "REOPEN_WINDOW_EXPIRED", message, param="case_id")
        case["status"], case["resolved_at"], case["resolution"] = "in_progress", None, None
        return {"case_id": case_id, "status": "in_progress"}

    @tool(kind="write")
    def merge_cases(self, account_id: str, master_case_id: str, duplicate_case_id: str) -> dict[str, Any]:
        """Merge a duplicate case into a master case of the same customer: the duplicate is closed
        with a pointer to the master. Both must be open.

        Args:
            account_id: The verified customer's account id.
            master_case_id: The case that stays open.
            duplicate_case_id: The case merged into it and closed.
        """
        same = master_case_id == duplicate_case_id
        require(not same, 422, "SAME_CASE", "A case cannot be merged into itself.", param="duplicate_case_id")
        self.open_case(account_id, master_case_id, "master_case_id")
        duplicate = self.open_case(account_id, duplicate_case_id, "duplicate_case_id")
        message = f"{duplicate_case_id} is escalated; its queue must release it first."
        require(duplicate["status"] != "escalated", 409, "CASE_ESCALATED", message, param="duplicate_case_id")
        stamp = self.stamp()
        duplicate.update(
            status="closed", merged_into=master_case_id, closed_at=stamp, resolution=f"Merged into {master_case_id}"
        )
        return {"master_case_id": master_case_id, "duplicate_case_id": duplicate_case_id, "duplicate_status": "closed"}

    @tool(kind="write", prose=("comment",))
    def record_satisfaction(self, account_id: str, case_id: str, score: int, comment: str = "") -> dict[str, Any]:
        """Record the customer's satisfaction score (1-5) for a resolved or closed case, once.

        Args:
            account_id: The verified customer's account id.
            case_id: Case id.
            score: 1 (very unhappy) to 5 (very happy), as the customer gave it.
            comment: The customer's own words, if any.
        """
        case = self.case_of(account_id, case_id)
        require(1 <= score <= 5, 422, "INVALID_SCORE", "The score is 1 to 5.", param="score")
        message = f"{case_id} is {case['status']}; surveys are for resolved or closed cases."
        require(case["status"] in ("resolved", "closed"), 409, "CASE_NOT_RESOLVED", message, param="case_id")
        require(case["csat_score"] is None, 409, "ALREADY_RATED", f"{case_id} already has a score.", param="case_id")
        case["csat_score"], case["csat_comment"] = score, comment or None
        return {"case_id": case_id, "csat_score": score}

    @tool(kind="write", prose=("summary",))
    def handoff_to_human(
        self, account_id: str, case_id: str, summary: Annotated[str, Required("Summarise the case.")]
    ) -> dict[str, Any]:
        """Transfer the conversation to a human agent with a summary (once per case); the case stays as it is.

        Args:
            account_id: The verified customer's account id.
            case_id: The open case the human picks up.
            summary: What the customer needs and what was done so far.
        """
        self.open_case(account_id, case_id)
        queued = any(h["case_id"] == case_id for h in self.state["handoffs"])
        require(
            not queued, 409, "ALREADY_HANDED_OFF", f"{case_id} is already queued for a human agent.", param="case_id"
        )
        entry = {"case_id": case_id, "account_id": account_id, "summary": summary, "created_at": self.stamp()}
        stored = self.insert("handoffs", entry)
        return {"handoff_id": stored["handoff_id"], "case_id": case_id, "transferred": True}
