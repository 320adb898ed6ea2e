"""What every sales tool shares: rep and lead lookups, the activity log, text matching."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from pytest_crmbench import ToolEnvironment, require

from ..data_model import CLOSED_LEAD


class SalesTools(ToolEnvironment):
    """Base of the sales tool mixins: shared rules, no tools of its own."""

    clock_start = "2026-03-02T09:00:00-05:00"
    """Monday 2 March 2026, 9 am Eastern: the sales floor's time zone (before DST on 8 March)."""

    def rep(self, rep_id: str) -> dict[str, Any]:
        return self.get("reps", rep_id, param="rep_id")

    def open_lead(self, lead_id: str, param: str = "lead_id") -> dict[str, Any]:
        """The lead, provided it is still being worked (not converted, disqualified or merged)."""
        lead = self.get("leads", lead_id, param=param)
        status = lead["status"]
        message = f"Lead {lead_id} is closed ({status}); it can no longer be changed."
        code = "LEAD_ALREADY_CONVERTED" if status == "Closed - Converted" else "LEAD_CLOSED"
        require(status not in CLOSED_LEAD, 409, code, message, param=param)
        return lead

    def rep_name(self, rep_id: str | None) -> str | None:
        return None if rep_id is None else str(self.state["reps"][rep_id]["name"])

    def lead_summary(self, lead: dict[str, Any]) -> dict[str, Any]:
        keys = ("lead_id", "first_name", "last_name", "company", "email", "state", "status", "owner_id", "created_date")
        return {**{k: lead[k] for k in keys}, "owner_name": self.rep_name(lead["owner_id"])}

    def log_activity(self, kind: str, lead_id: str, rep_id: str, **fields: Any) -> dict[str, Any]:
        entry = {"kind": kind, "lead_id": lead_id, "rep_id": rep_id, **fields, "created_at": self.stamp()}
        return self.insert("activities", entry)

    def just_logged(self, lead_id: str, rep_id: str, outcome: str) -> bool:
        """Whether the same call was logged in the last 10 minutes (a double entry, not a new call)."""
        since = self.now() - timedelta(minutes=10)
        return any(
            a["kind"] == "call"
            and (a["lead_id"], a["rep_id"], a["outcome"]) == (lead_id, rep_id, outcome)
            and datetime.fromisoformat(a["created_at"]) >= since
            for a in self.state["activities"]
        )

    def mark_contacted(self, lead: dict[str, Any]) -> None:
        """First touch: an untouched lead becomes Working - Contacted."""
        if lead["status"] == "Open - Not Contacted":
            lead["status"] = "Working - Contacted"
