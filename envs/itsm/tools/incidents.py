"""Incidents: logging with derived priority, assignment, hold, resolve, close, duplicates."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pytest_crmbench import Rejection, Required, require, tool

from ..data_model import OPEN_INCIDENT, CloseCode, HoldReason
from .base import ItsmTools, priority_of

Level = Literal[1, 2, 3]


class IncidentTools(ItsmTools):
    def open_incident(self, incident_id: str, param: str = "incident_id") -> dict[str, Any]:
        incident = self.get("incidents", incident_id, param=param)
        message = f"{incident_id} is {incident['state']}; only an open incident can change."
        require(incident["state"] in OPEN_INCIDENT, 409, "INCIDENT_NOT_OPEN", message, param=param)
        return incident

    @tool(kind="read")
    def search_incidents(self, caller_id: str | None = None, ci_id: str | None = None) -> dict[str, Any]:
        """List incidents by caller and/or configuration item (number, state, priority, description).

        Args:
            caller_id: Employee id of the caller.
            ci_id: CI id the incident is about.
        """
        found = [
            {k: inc[k] for k in ("incident_id", "short_description", "state", "priority", "ci_id", "opened_at")}
            for inc in self.state["incidents"].values()
            if (caller_id is None or inc["caller_id"] == caller_id) and (ci_id is None or inc["ci_id"] == ci_id)
        ]
        return {"incidents": found}

    @tool(kind="read")
    def get_incident(self, incident_id: str) -> dict[str, Any]:
        """Get an incident with its work notes.

        Args:
            incident_id: e.g. "INC0010042".
        """
        incident = self.get("incidents", incident_id)
        notes = [n["text"] for n in self.state["work_notes"] if n["record_id"] == incident_id]
        return {**incident, "work_notes": notes}

    @tool(kind="read")
    def get_sla_targets(self) -> dict[str, Any]:
        """Resolution targets in hours per priority (P1..P5), counted from when the incident was opened."""
        return {"resolution_sla_hours": self.state["settings"]["resolution_sla_hours"]}

    @tool(kind="write", prose=("short_description",))
    def create_incident(
        self,
        caller_id: str,
        short_description: Annotated[str, Required("Describe the incident.")],
        impact: Level,
        urgency: Level,
        ci_id: str | None = None,
    ) -> dict[str, Any]:
        """Log an incident for a caller. Priority is derived from impact x urgency; the affected CI's
        support group becomes the assignment group.

        Args:
            caller_id: The verified caller.
            short_description: One line describing the symptom.
            impact: 1 (many users or a whole service), 2 (a team or department), 3 (one user).
            urgency: 1 (work stopped, no workaround), 2 (degraded), 3 (can wait).
            ci_id: The affected configuration item, when known.
        """
        self.active_user(caller_id, param="caller_id")
        group = self.get("cis", ci_id, param="ci_id")["support_group"] if ci_id else None
        incident: dict[str, Any] = {"caller_id": caller_id, "short_description": short_description, "ci_id": ci_id}
        incident |= {"impact": impact, "urgency": urgency, "priority": priority_of(impact, urgency)}
        created = self.insert("incidents", {**incident, "assignment_group": group, "opened_at": self.stamp()})
        return {k: created[k] for k in ("incident_id", "priority", "state", "assignment_group", "opened_at")}

    @tool(kind="write")
    def update_incident(
        self,
        incident_id: str,
        impact: Level | None = None,
        urgency: Level | None = None,
        priority: int | None = None,
    ) -> dict[str, Any]:
        """Change an open incident's impact and/or urgency; its priority is recomputed.

        Args:
            incident_id: The incident.
            impact: New impact, 1-3.
            urgency: New urgency, 1-3.
            priority: Not settable: priority is always derived from impact x urgency.
        """
        message = "Priority is derived from impact and urgency; change those instead."
        require(priority is None, 422, "PRIORITY_DERIVED", message, param="priority")
        require(impact is not None or urgency is not None, 422, "NOTHING_TO_UPDATE", "Give impact or urgency.")
        incident = self.open_incident(incident_id)
        unchanged = impact in (None, incident["impact"]) and urgency in (None, incident["urgency"])
        require(not unchanged, 409, "NO_CHANGE", f"{incident_id} already has that impact and urgency.")
        incident["impact"] = impact or incident["impact"]
        incident["urgency"] = urgency or incident["urgency"]
        incident["priority"] = priority_of(incident["impact"], incident["urgency"])
        return {k: incident[k] for k in ("incident_id", "impact", "urgency", "priority")}

    @tool(kind="write")
    def assign_incident(self, incident_id: str, group_id: str, assigned_to: str | None = None) -> dict[str, Any]:
        """Assign an open incident to an assignment group (and optionally one of its members); a new
        incident moves to in_progress.

        Args:
            incident_id: The incident.
            group_id: An assignment group, e.g. "GRP-NET".
            assigned_to: Employee id of a member of that group.
        """
        incident = self.open_incident(incident_id)
        group = self.get("groups", group_id, param="group_id")
        message = f"{group_id} is an access group, not an assignment group."
        require(
            group["kind"] == "assignment" and group["active"], 422, "NOT_ASSIGNMENT_GROUP", message, param="group_id"
        )
        if assigned_to is not None and assigned_to not in group["members"]:
            raise Rejection(422, "NOT_GROUP_MEMBER", f"{assigned_to} is not in {group_id}.", param="assigned_to")
        same = (incident["assignment_group"], incident["assigned_to"]) == (group_id, assigned_to)
        require(not same, 409, "ALREADY_ASSIGNED", f"{incident_id} is already assigned that way.")
        incident.update(assignment_group=group_id, assigned_to=assigned_to)
        if incident["state"] == "new":
            incident["state"] = "in_progress"
        return {k: incident[k] for k in ("incident_id", "state", "assignment_group", "assigned_to")}

    @tool(kind="write", prose=("comment",))
    def hold_incident(self, incident_id: str, hold_reason: HoldReason, comment: str = "") -> dict[str, Any]:
        """Put an open incident on hold. awaiting_caller also needs a comment saying what is awaited.

        Args:
            incident_id: The incident.
            hold_reason: awaiting_caller, awaiting_change, awaiting_problem or awaiting_vendor.
            comment: What the desk is waiting for (required for awaiting_caller).
        """
        incident = self.open_incident(incident_id)
        require(incident["state"] != "on_hold", 409, "ALREADY_ON_HOLD", f"{incident_id} is already on hold.")
        message = "Say what the caller must provide."
        require(
            hold_reason != "awaiting_caller" or comment.strip() != "", 422, "COMMENT_REQUIRED", message, param="comment"
        )
        incident.update(state="on_hold", hold_reason=hold_reason)
        if comment.strip():
            self.note(incident_id, "service_desk", comment.strip())
        return {"incident_id": incident_id, "state": "on_hold", "hold_reason": hold_reason}

    @tool(kind="write", prose=("text",))
    def add_work_note(self, record_id: str, text: Annotated[str, Required("Write the note.")]) -> dict[str, Any]:
        """Add a work note to an incident, problem or change.

        Args:
            record_id: An incident, problem or change number.
            text: The note.
        """
        tables = ("incidents", "problems", "changes")
        table = next((t for t in tables if record_id in self.state[t]), None)
        require(table is not None, 404, "RECORD_NOT_FOUND", f"No record {record_id!r}.")
        self.get(str(table), record_id, param="record_id")  # whose record it is: the conduct evidence
        entry = self.note(record_id, "service_desk", text)
        return {"note_id": entry["note_id"], "record_id": record_id}

    @tool(kind="write", prose=("close_notes",))
    def resolve_incident(
        self,
        incident_id: str,
        close_code: CloseCode,
        close_notes: Annotated[str, Required("Say how it was resolved.")],
    ) -> dict[str, Any]:
        """Resolve an open incident with a resolution code and notes.

        Args:
            incident_id: The incident.
            close_code: solved_permanently, solved_workaround, not_solved, user_error or duplicate.
            close_notes: What fixed it.
        """
        incident = self.open_incident(incident_id)
        incident.update(state="resolved", close_code=close_code, close_notes=close_notes, hold_reason=None)
        incident["resolved_at"] = self.stamp()
        return {k: incident[k] for k in ("incident_id", "state", "close_code", "resolved_at")}

    @tool(kind="write")
    def close_incident(self, incident_id: str, acting_user_id: str) -> dict[str, Any]:
        """Close a resolved incident. Needs the itil_admin role.

        Args:
            incident_id: The incident.
            acting_user_id: The verified caller performing it (their roles are checked).
        """
        self.require_role(acting_user_id, "itil_admin")
        incident = self.get("incidents", incident_id)
        message = f"{incident_id} is {incident['state']}; only a resolved incident can be closed."
        require(incident["state"] == "resolved", 409, "NOT_RESOLVED", message)
        incident["state"] = "closed"
        return {"incident_id": incident_id, "state": "closed"}

    @tool(kind="write")
    def cancel_duplicate(self, incident_id: str, parent_id: str) -> dict[str, Any]:
        """Cancel an open incident as a duplicate of another one (the parent keeps the work).

        Args:
            incident_id: The duplicate.
            parent_id: The incident it duplicates.
        """
        require(
            incident_id != parent_id, 422, "SAME_INCIDENT", "An incident cannot duplicate itself.", param="parent_id"
        )
        incident = self.open_incident(incident_id)
        parent = self.get("incidents", parent_id, param="parent_id")
        message = f"{parent_id} is {parent['state']}; the parent must not be canceled."
        require(parent["state"] != "canceled", 409, "PARENT_CANCELED", message, param="parent_id")
        incident.update(state="canceled", parent_id=parent_id, close_code="duplicate", hold_reason=None)
        return {"incident_id": incident_id, "state": "canceled", "parent_id": parent_id}
