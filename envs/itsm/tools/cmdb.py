"""Configuration items (cmdb_ci) and the gated deletion of a CI."""

from __future__ import annotations

from typing import Any

from pytest_crmbench import Rejection, tool

from .base import ItsmTools


class CmdbTools(ItsmTools):
    def dependents(self, ci_id: str) -> dict[str, list[str]]:
        """Every record that refers to a CI (it cannot be deleted while any exists)."""
        return {
            "cis": sorted(c for c, ci in self.state["cis"].items() if ci_id in ci["depends_on"]),
            "incidents": sorted(i for i, inc in self.state["incidents"].items() if inc["ci_id"] == ci_id),
            "problems": sorted(p for p, prb in self.state["problems"].items() if prb["ci_id"] == ci_id),
            "changes": sorted(c for c, chg in self.state["changes"].items() if chg["ci_id"] == ci_id),
        }

    @tool(kind="read")
    def search_cis(self, query: str) -> dict[str, Any]:
        """Find configuration items whose name contains the text (case-insensitive).

        Args:
            query: Part of the CI's name, e.g. "VPN", "srv-prod" or an asset tag like "LT-0417".
        """
        needle = query.strip().casefold()
        fields = ("ci_id", "name", "ci_class", "criticality", "status", "assigned_to")
        found = [
            {k: ci[k] for k in fields}
            for ci in self.state["cis"].values()
            if needle and needle in ci["name"].casefold()
        ]
        return {"cis": found}

    @tool(kind="read")
    def get_ci(self, ci_id: str) -> dict[str, Any]:
        """Get a configuration item with the records that depend on it (CIs, incidents, problems, changes).

        Args:
            ci_id: CI id, e.g. "CI-2001".
        """
        return {**self.get("cis", ci_id), "dependents": self.dependents(ci_id)}

    @tool(kind="write")
    def delete_ci(self, ci_id: str, acting_user_id: str) -> dict[str, Any]:
        """Delete a configuration item from the CMDB for good.

        Needs the cmdb_admin role. Refused while any record depends on it or hardware is assigned.

        Args:
            ci_id: The CI to delete.
            acting_user_id: The verified caller performing it (their roles are checked).
        """
        self.require_role(acting_user_id, "cmdb_admin")
        ci = self.get("cis", ci_id)
        refs = {kind: ids for kind, ids in self.dependents(ci_id).items() if ids}
        if refs or ci["assigned_to"]:
            listed = "; ".join(f"{kind}: {', '.join(ids)}" for kind, ids in refs.items())
            held = f"assigned to {ci['assigned_to']}" if ci["assigned_to"] else ""
            message = f"{ci_id} has dependents ({'; '.join(x for x in (listed, held) if x)})."
            raise Rejection(409, "CI_HAS_DEPENDENTS", message, param="ci_id")
        del self.state["cis"][ci_id]
        return {"ci_id": ci_id, "deleted": True}
