"""Rules every itsm world keeps: the seed, every task's initial state and every state the tools
reach (``crmbench validate`` checks the first two; ``tests/envs/itsm`` the third, with hypothesis)."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal

from pytest_crmbench import Violation, invariant

from .tools.base import ItsmTools, priority_of


class WorldInvariants(ItsmTools):
    @invariant
    def priority_is_derived(self) -> Iterator[Violation]:
        """An incident's priority is always its impact x urgency lookup."""
        for incident_id, inc in self.state["incidents"].items():
            if inc["priority"] != priority_of(inc["impact"], inc["urgency"]):
                yield Violation(f"incidents.{incident_id}.priority", "does not follow from impact and urgency")

    @invariant
    def closed_incidents_have_codes(self) -> Iterator[Violation]:
        """Resolved and closed incidents carry a code and notes; canceled ones name their parent."""
        for incident_id, inc in self.state["incidents"].items():
            if inc["state"] in ("resolved", "closed") and not (inc["close_code"] and inc["close_notes"]):
                yield Violation(f"incidents.{incident_id}.close_code", "is missing on a resolved incident")
            if inc["state"] == "canceled" and inc["parent_id"] is None:
                yield Violation(f"incidents.{incident_id}.parent_id", "is missing on a canceled duplicate")
            if (inc["state"] == "on_hold") != (inc["hold_reason"] is not None):
                yield Violation(f"incidents.{incident_id}.hold_reason", "is set exactly while on hold")

    @invariant
    def numbers_come_from_counters(self) -> Iterator[Violation]:
        """No numbered record is above its table's counter (the next number is always free)."""
        tables = {"INC": "incidents", "PRB": "problems", "CHG": "changes", "REQ": "requests", "RITM": "request_items"}
        for prefix, table in tables.items():
            last = self.state["number_counters"].get(prefix)
            if last is None:
                yield Violation(f"number_counters.{prefix}", "is missing")
                continue
            for key in self.state[table]:
                if not key.startswith(prefix) or not key[len(prefix) :].isdigit() or int(key[len(prefix) :]) > last:
                    yield Violation(f"{table}.{key}", f"is not a {prefix} number at or below the counter {last}")

    @invariant
    def memberships_agree(self) -> Iterator[Violation]:
        """A user lists a group exactly when the group lists the user."""
        users, groups = self.state["users"], self.state["groups"]
        for user_id, user in users.items():
            for group_id in user["groups"]:
                if group_id not in groups or user_id not in groups[group_id]["members"]:
                    yield Violation(f"users.{user_id}.groups", f"lists {group_id}, which does not list the user")
        for group_id, group in groups.items():
            for member in group["members"]:
                if member not in users or group_id not in users[member]["groups"]:
                    yield Violation(f"groups.{group_id}.members", f"lists {member}, who does not list the group")

    @invariant
    def request_items_add_up(self) -> Iterator[Violation]:
        """A requested item costs unit price x quantity, and its state follows its approvals."""
        for ritm_id, ritm in self.state["request_items"].items():
            item = self.state["catalog"].get(ritm["item_id"])
            if item is None:  # reported by its Ref
                continue
            if ritm["total"] != item["price"] * Decimal(ritm["quantity"]):
                yield Violation(f"request_items.{ritm_id}.total", "is not unit price x quantity")
            states = {a["state"] for a in ritm["approvals"]}
            pending = "requested" in states and "rejected" not in states
            if (ritm["state"] == "pending_approval") != pending:
                yield Violation(f"request_items.{ritm_id}.state", "does not follow from its approvals")

    @invariant
    def scheduled_changes_are_authorized(self) -> Iterator[Violation]:
        """A scheduled change has a window, and CAB approval unless it is standard."""
        for change_id, change in self.state["changes"].items():
            if change["state"] != "scheduled":
                continue
            if not (change["planned_start"] and change["planned_end"]):
                yield Violation(f"changes.{change_id}.planned_start", "a scheduled change has no window")
            if change["change_type"] != "standard" and change["cab_approval"] != "approved":
                yield Violation(f"changes.{change_id}.cab_approval", "a scheduled change lacks CAB approval")
