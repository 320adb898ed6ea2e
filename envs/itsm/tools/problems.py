"""Problems: the root cause behind incidents, and linking incidents to them."""

from __future__ import annotations

from typing import Annotated, Any

from pytest_crmbench import Required, require, tool

from ..data_model import OPEN_INCIDENT
from .base import ItsmTools


class ProblemTools(ItsmTools):
    @tool(kind="read")
    def get_problem(self, problem_id: str) -> dict[str, Any]:
        """Get a problem with the incidents linked to it.

        Args:
            problem_id: e.g. "PRB0040007".
        """
        problem = self.get("problems", problem_id)
        linked = sorted(i for i, inc in self.state["incidents"].items() if inc["problem_id"] == problem_id)
        return {**problem, "incidents": linked}

    @tool(kind="write", prose=("short_description",))
    def create_problem(
        self, short_description: Annotated[str, Required("Describe the problem.")], ci_id: str
    ) -> dict[str, Any]:
        """Open a problem record for a recurring fault on a configuration item.

        Args:
            short_description: One line naming the recurring fault.
            ci_id: The configuration item affected.
        """
        self.get("cis", ci_id, param="ci_id")
        problem = self.insert(
            "problems", {"short_description": short_description, "ci_id": ci_id, "opened_at": self.stamp()}
        )
        return {"problem_id": problem["problem_id"], "state": problem["state"]}

    @tool(kind="write")
    def link_problem(self, incident_id: str, problem_id: str) -> dict[str, Any]:
        """Link an open incident to a problem that is not yet resolved.

        Args:
            incident_id: The incident.
            problem_id: The problem.
        """
        incident = self.get("incidents", incident_id)
        message = f"{incident_id} is {incident['state']}."
        require(incident["state"] in OPEN_INCIDENT, 409, "INCIDENT_NOT_OPEN", message, param="incident_id")
        problem = self.get("problems", problem_id, param="problem_id")
        message = f"{problem_id} is {problem['state']}; link only to an open problem."
        require(problem["state"] not in ("resolved", "closed"), 409, "PROBLEM_CLOSED", message, param="problem_id")
        message = f"{incident_id} is already linked to {problem_id}."
        require(incident["problem_id"] != problem_id, 409, "ALREADY_LINKED", message, param="problem_id")
        incident["problem_id"] = problem_id
        return {"incident_id": incident_id, "problem_id": problem_id}
