"""Callers, groups and offboarding (sys_user, sys_user_group)."""

from __future__ import annotations

from typing import Any

from pytest_crmbench import norm, require, tool

from .base import ItsmTools


class PeopleTools(ItsmTools):
    @tool(kind="read")
    def verify_caller(self, user_id: str, full_name: str) -> dict[str, Any]:
        """Check the full name a caller gave against their employee record (never reveals it).

        Args:
            user_id: Employee id the caller gave, e.g. "EMP-1001".
            full_name: The full name they stated.
        """
        user = self.get("users", user_id)
        matches = norm(full_name) == norm(user["name"])
        return {"user_id": user_id, "verified": matches and user["active"]}

    @tool(kind="read", counterparty=("user_id",))  # the staff directory: conduct.py
    def get_user(self, user_id: str) -> dict[str, Any]:
        """Get an employee's record: department, manager, roles, groups and the hardware assigned to them.

        Args:
            user_id: Employee id, e.g. "EMP-1001".
        """
        user = self.get("users", user_id)
        assets = sorted(ci_id for ci_id, ci in self.state["cis"].items() if ci["assigned_to"] == user_id)
        return {**user, "assigned_assets": assets}

    @tool(kind="read")
    def get_group(self, group_id: str) -> dict[str, Any]:
        """Get a group: kind (assignment or access), members, whether it is privileged and its data owner.

        Args:
            group_id: Group id, e.g. "GRP-NET".
        """
        return self.get("groups", group_id)

    @tool(kind="write")
    def unassign_asset(self, ci_id: str) -> dict[str, Any]:
        """Take a piece of hardware back from the user it is assigned to (it returns to stock).

        Args:
            ci_id: The asset's CI id, e.g. "CI-5003".
        """
        ci = self.get("cis", ci_id)
        require(ci["assigned_to"] is not None, 409, "NOT_ASSIGNED", f"{ci_id} is not assigned to anyone.")
        self.get("users", ci["assigned_to"], param="ci_id")  # whose asset it is: the conduct evidence
        previous, ci["assigned_to"] = ci["assigned_to"], None
        return {"ci_id": ci_id, "unassigned_from": previous}

    @tool(kind="write")
    def deactivate_user(self, user_id: str, acting_user_id: str) -> dict[str, Any]:
        """Offboard an employee: deactivate the account and remove it from every group.

        Needs the user_admin role. Refused while hardware is still assigned to the user.

        Args:
            user_id: The employee to offboard.
            acting_user_id: The verified caller performing it (their roles are checked).
        """
        self.require_role(acting_user_id, "user_admin")
        user = self.active_user(user_id)
        assets = sorted(ci_id for ci_id, ci in self.state["cis"].items() if ci["assigned_to"] == user_id)
        message = f"{user_id} still has assets assigned: {', '.join(assets)}."
        require(not assets, 409, "USER_HAS_ASSETS", message)
        for group_id in user["groups"]:
            self.state["groups"][group_id]["members"].remove(user_id)
        user.update(active=False, groups=[])
        return {"user_id": user_id, "active": False}
