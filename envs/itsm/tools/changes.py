"""Change requests: type and risk, CAB approval, scheduling around blackouts and CI conflicts."""

from __future__ import annotations

from typing import Annotated, Any

from pytest_crmbench import Rejection, Required, Timestamp, dry_run, require, tool

from ..data_model import OPEN_CHANGE, ChangeType
from .base import ItsmTools, moment, overlaps

RISK = {"high": "high", "medium": "moderate", "low": "low"}
CAB_GROUP = "GRP-CAB"


class ChangeTools(ItsmTools):
    @tool(kind="read")
    def get_change(self, change_id: str) -> dict[str, Any]:
        """Get a change request: type, risk, state, CAB approval and planned window.

        Args:
            change_id: e.g. "CHG0030012".
        """
        return self.get("changes", change_id)

    @tool(kind="read")
    def list_changes(self, ci_id: str) -> dict[str, Any]:
        """List the change requests on a configuration item with their states and windows.

        Args:
            ci_id: The CI.
        """
        self.get("cis", ci_id)
        fields = ("change_id", "short_description", "change_type", "state", "planned_start", "planned_end")
        return {"changes": [{k: c[k] for k in fields} for c in self.state["changes"].values() if c["ci_id"] == ci_id]}

    @tool(kind="read")
    def list_blackouts(self) -> dict[str, Any]:
        """The change freeze (blackout) windows: no change may be scheduled to overlap one."""
        return {"blackouts": list(self.state["blackouts"].values())}

    @tool(kind="write", prose=("short_description",))
    def create_change(
        self,
        requested_by: str,
        change_type: ChangeType,
        short_description: Annotated[str, Required("Describe the change.")],
        ci_id: str,
        template_id: str | None = None,
    ) -> dict[str, Any]:
        """Raise a change request on a CI; its risk follows the CI's criticality. A standard change
        needs a pre-approved template and cannot touch a high-criticality CI.

        Args:
            requested_by: The verified caller raising it.
            change_type: standard (pre-approved template), normal (CAB approval) or emergency.
            short_description: What will be changed.
            ci_id: The configuration item changed.
            template_id: Standard change template id, e.g. "TPL-PATCH" (standard changes only).
        """
        self.active_user(requested_by, param="requested_by")
        ci = self.get("cis", ci_id, param="ci_id")
        templates = self.state["settings"]["standard_templates"]
        if change_type == "standard":
            require(
                template_id is not None,
                422,
                "TEMPLATE_REQUIRED",
                "A standard change needs a template.",
                param="template_id",
            )
            require(
                template_id in templates,
                404,
                "TEMPLATE_NOT_FOUND",
                f"No template {template_id!r}.",
                param="template_id",
            )
            message = f"{ci_id} is high criticality; raise a normal change for it."
            require(ci["criticality"] != "high", 422, "TEMPLATE_NOT_APPLICABLE", message, param="change_type")
        else:
            message = "Templates are for standard changes only."
            require(template_id is None, 422, "TEMPLATE_NOT_ALLOWED", message, param="template_id")
        change: dict[str, Any] = {"requested_by": requested_by, "change_type": change_type}
        change["short_description"] = short_description
        change |= {"ci_id": ci_id, "risk": RISK[ci["criticality"]], "template_id": template_id}
        created = self.insert("changes", change)
        return {k: created[k] for k in ("change_id", "change_type", "risk", "state", "cab_approval")}

    @tool(kind="write")
    def request_cab_approval(self, change_id: str) -> dict[str, Any]:
        """Send a normal or emergency change to the Change Advisory Board (state authorize).

        Args:
            change_id: The change.
        """
        change = self.get("changes", change_id)
        require(change["change_type"] != "standard", 422, "CAB_NOT_NEEDED", "Standard changes are pre-approved.")
        message = f"{change_id} is {change['state']} with CAB approval {change['cab_approval']}."
        ready = change["state"] in ("new", "assess") and change["cab_approval"] == "not_requested"
        require(ready, 409, "INVALID_STATE", message)
        change.update(state="authorize", cab_approval="requested")
        return {"change_id": change_id, "state": "authorize", "cab_approval": "requested"}

    @tool(kind="write")
    def approve_change(self, change_id: str, approver_id: str) -> dict[str, Any]:
        """Record a CAB member's approval of a change awaiting authorization.

        Args:
            change_id: The change.
            approver_id: The verified caller approving (a CAB member, not the change's requester).
        """
        change = self.get("changes", change_id)
        approver = self.active_user(approver_id, param="approver_id")
        message = f"{approver_id} raised {change_id} and cannot approve it."
        require(approver_id != change["requested_by"], 403, "SELF_APPROVAL", message, param="approver_id")
        message = f"{approver_id} is not a member of the CAB."
        require(CAB_GROUP in approver["groups"], 403, "NOT_CAB_MEMBER", message, param="approver_id")
        message = f"{change_id} is not awaiting CAB approval ({change['cab_approval']})."
        require(change["cab_approval"] == "requested", 409, "NOT_AWAITING_APPROVAL", message)
        change.update(cab_approval="approved", approved_by=approver_id)
        return {"change_id": change_id, "cab_approval": "approved", "state": change["state"]}

    @dry_run(
        "check_schedule",
        of="schedule_change",
        reasons={"BLACKOUT_WINDOW": "Blackout window", "CI_CONFLICT": "Conflicting change"},
    )
    def schedule_rules(self, change_id: str, planned_start: Timestamp, planned_end: Timestamp) -> dict[str, Any]:
        """Check whether a change could be scheduled in a window, without scheduling it.

        Args:
            change_id: The change.
            planned_start: Start, ISO 8601 with offset, e.g. "2026-03-10T22:00:00+00:00".
            planned_end: End, ISO 8601 with offset.
        """
        change = self.get("changes", change_id)
        message = f"{change_id} is {change['state']}."
        require(change["state"] in ("new", "assess", "authorize", "scheduled"), 409, "INVALID_STATE", message)
        same = (change["planned_start"], change["planned_end"]) == (planned_start, planned_end)
        message = f"{change_id} is already scheduled for that window."
        require(not (change["state"] == "scheduled" and same), 409, "ALREADY_SCHEDULED", message)
        approved = change["change_type"] == "standard" or change["cab_approval"] == "approved"
        message = f"{change_id} is a {change['change_type']} change without CAB approval ({change['cab_approval']})."
        require(approved, 403, "CAB_APPROVAL_REQUIRED", message)
        message = "The window must end after it starts and start in the future."
        valid = moment(planned_start) < moment(planned_end) and moment(planned_start) > self.now()
        require(valid, 422, "INVALID_WINDOW", message, param="planned_start")
        for blackout in self.state["blackouts"].values():
            if overlaps(planned_start, planned_end, blackout["start"], blackout["end"]):
                message = f"The window overlaps blackout {blackout['blackout_id']} ({blackout['name']})."
                raise Rejection(409, "BLACKOUT_WINDOW", message, param="planned_start")
        for other in self.state["changes"].values():
            if self._clashes(change, other, planned_start, planned_end):
                message = f"{other['change_id']} is planned on {change['ci_id']} in an overlapping window."
                raise Rejection(409, "CI_CONFLICT", message, param="planned_start")
        return {"change_id": change_id, "planned_start": planned_start, "planned_end": planned_end}

    @staticmethod
    def _clashes(change: dict[str, Any], other: dict[str, Any], start: str, end: str) -> bool:
        """Another open, planned change on the same CI whose window overlaps this one."""
        same_ci = other["change_id"] != change["change_id"] and other["ci_id"] == change["ci_id"]
        planned = other["state"] in OPEN_CHANGE and other["planned_start"] and other["planned_end"]
        return bool(same_ci and planned and overlaps(start, end, other["planned_start"], other["planned_end"]))

    @tool(kind="write")
    def schedule_change(self, change_id: str, planned_start: Timestamp, planned_end: Timestamp) -> dict[str, Any]:
        """Schedule an approved change (or a standard one) in a window: no blackout overlap and no
        overlapping change on the same CI. Run check_schedule first.

        Args:
            change_id: The change.
            planned_start: Start, ISO 8601 with offset, e.g. "2026-03-10T22:00:00+00:00".
            planned_end: End, ISO 8601 with offset.
        """
        self.schedule_rules(change_id, planned_start, planned_end)
        change = self.state["changes"][change_id]
        change.update(state="scheduled", planned_start=planned_start, planned_end=planned_end)
        return {
            "change_id": change_id,
            "state": "scheduled",
            "planned_start": planned_start,
            "planned_end": planned_end,
        }
