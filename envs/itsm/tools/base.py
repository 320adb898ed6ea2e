"""What every itsm tool shares: sequential record numbers, roles, priority, time windows."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pytest_crmbench import ToolEnvironment, require
from pytest_crmbench.env.state import Collection


def priority_of(impact: int, urgency: int) -> int:
    """ServiceNow's priority lookup: impact 1 x urgency 1 is P1, 3 x 3 is P5."""
    return impact + urgency - 1


def moment(value: str) -> datetime:
    return datetime.fromisoformat(value)


def overlaps(start: str, end: str, other_start: str, other_end: str) -> bool:
    return moment(start) < moment(other_end) and moment(other_start) < moment(end)


class ItsmTools(ToolEnvironment):
    """Base of the itsm tool mixins: shared rules, no tools of its own."""

    def _fresh_id(self, info: Collection) -> str:
        """The next number of a ServiceNow-style table from its counter (sys_number_counter): the
        counter holds the last number used, so INC0010043 follows a counter of 10042."""
        prefix = info.record.id_prefix
        counters = self.state["number_counters"]
        if prefix not in counters:
            return super()._fresh_id(info)
        counters[prefix] += 1
        return f"{prefix}{counters[prefix]:07d}"

    def active_user(self, user_id: str, param: str = "user_id") -> dict[str, Any]:
        user = self.get("users", user_id, param=param)
        require(user["active"], 409, "USER_INACTIVE", f"{user_id} is deactivated.", param=param)
        return user

    def require_role(self, acting_user_id: str, role: str) -> dict[str, Any]:
        """The acting user, provided the system grants them ``role`` (403 otherwise)."""
        user = self.active_user(acting_user_id, param="acting_user_id")
        message = f"{acting_user_id} lacks the {role} role this action needs."
        require(role in user["roles"], 403, "ROLE_REQUIRED", message, param="acting_user_id")
        return user

    def note(self, record_id: str, author: str, text: str) -> dict[str, Any]:
        entry = {"record_id": record_id, "author": author, "text": text, "created_at": self.stamp()}
        return self.insert("work_notes", entry)
