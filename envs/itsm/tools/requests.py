"""Service requests from the catalog (sc_request / sc_req_item) and their approvals."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any, Literal

from pydantic import Field

from pytest_crmbench import Rejection, Required, require, tool

from .base import ItsmTools


class RequestTools(ItsmTools):
    @tool(kind="read")
    def list_catalog(self) -> dict[str, Any]:
        """The service catalog: items, kind, unit price, whether the manager must approve, stock."""
        return {"items": list(self.state["catalog"].values())}

    @tool(kind="read")
    def list_request_items(self, requested_for: str) -> dict[str, Any]:
        """List the requested items (RITMs) for an employee with their item, state and total.

        Args:
            requested_for: Employee id the items are for.
        """
        self.get("users", requested_for, param="requested_for")
        fields = ("ritm_id", "request_id", "item_id", "quantity", "total", "state")
        items = self.state["request_items"].values()
        return {"request_items": [{k: r[k] for k in fields} for r in items if r["requested_for"] == requested_for]}

    @tool(kind="read")
    def get_request_item(self, ritm_id: str) -> dict[str, Any]:
        """Get a requested item (RITM) with its state and approvals.

        Args:
            ritm_id: e.g. "RITM0010007".
        """
        return self.get("request_items", ritm_id)

    @tool(kind="write", prose=("justification",))
    def submit_request(
        self,
        requested_by: str,
        requested_for: str,
        item_id: str,
        justification: Annotated[str, Required("Give the business justification.")],
        quantity: Annotated[int, Field(ge=1, le=20)] = 1,
    ) -> dict[str, Any]:
        """Order a catalog item. Creates a request (REQ) with one item (RITM) and asks for the
        approvals it needs: the manager of the person it is for, plus the data owner of a privileged
        access group. Items that need no approval are approved at once.

        Args:
            requested_by: The verified caller placing the order.
            requested_for: The employee who gets the item (the caller themself or someone they order for).
            item_id: Catalog item id, e.g. "CAT-LAPTOP14".
            justification: Why it is needed.
            quantity: Units (hardware only; access and software are one per request).
        """
        self.active_user(requested_by, param="requested_by")
        target = self.active_user(requested_for, param="requested_for")
        item = self.get("catalog", item_id, param="item_id")
        message = f"{item['name']} is one per request."
        require(item["kind"] == "hardware" or quantity == 1, 422, "QUANTITY_NOT_ALLOWED", message, param="quantity")
        stock = item["stock"]
        if stock is not None and quantity > stock:
            raise Rejection(409, "OUT_OF_STOCK", f"Only {stock} {item['name']} in stock.", param="quantity")
        approvals = self._approvals(item, target)
        request = self.insert("requests", {"requested_by": requested_by, "opened_at": self.stamp()})
        ritm = {"request_id": request["request_id"], "requested_for": requested_for, "item_id": item_id}
        ritm |= {"quantity": quantity, "total": item["price"] * Decimal(quantity), "justification": justification}
        ritm |= {"state": "pending_approval" if approvals else "approved", "approvals": approvals}
        created = self.insert("request_items", ritm)
        return {"request_id": request["request_id"], **created}

    def _approvals(self, item: dict[str, Any], target: dict[str, Any]) -> list[dict[str, Any]]:
        group = self.state["groups"].get(item["access_group"] or "")
        if group is not None:
            message = f"{target['user_id']} is already a member of {group['group_id']}."
            require(target["user_id"] not in group["members"], 409, "ALREADY_MEMBER", message, param="requested_for")
        approvals: list[dict[str, Any]] = []
        if item["needs_manager_approval"]:
            message = f"{target['user_id']} has no manager to approve it."
            require(target["manager_id"] is not None, 409, "NO_MANAGER", message, param="requested_for")
            approvals.append({"approver_id": target["manager_id"], "role": "manager", "state": "requested"})
        if group is not None and group["privileged"]:
            approvals.append({"approver_id": group["owner_id"], "role": "data_owner", "state": "requested"})
        return approvals

    @tool(kind="write")
    def decide_approval(
        self, ritm_id: str, approver_id: str, decision: Literal["approved", "rejected"]
    ) -> dict[str, Any]:
        """Record an approver's decision on a requested item. Only a pending approver may decide,
        and nobody approves a request for themselves.

        Args:
            ritm_id: The requested item.
            approver_id: The verified caller who decides (must be one of the item's approvers).
            decision: approved or rejected.
        """
        ritm = self.get("request_items", ritm_id)
        self.get("users", approver_id, param="approver_id")  # who decides: the conduct evidence
        message = f"{approver_id} cannot approve their own request."
        require(approver_id != ritm["requested_for"], 403, "SELF_APPROVAL", message, param="approver_id")
        pending = [a for a in ritm["approvals"] if a["approver_id"] == approver_id and a["state"] == "requested"]
        if not pending:
            raise Rejection(
                403, "NOT_AN_APPROVER", f"{approver_id} has no pending approval on {ritm_id}.", param="approver_id"
            )
        require(ritm["state"] == "pending_approval", 409, "NOT_PENDING", f"{ritm_id} is {ritm['state']}.")
        pending[0]["state"] = decision
        states = {a["state"] for a in ritm["approvals"]}
        if "rejected" in states:
            ritm["state"] = "rejected"
        elif states == {"approved"}:
            ritm["state"] = "approved"
        return {"ritm_id": ritm_id, "state": ritm["state"], "approvals": ritm["approvals"]}

    @tool(kind="write")
    def fulfill_request_item(self, ritm_id: str) -> dict[str, Any]:
        """Fulfil an approved item: grant the access group membership, or issue the hardware from stock.

        Args:
            ritm_id: The requested item.
        """
        ritm = self.get("request_items", ritm_id)
        message = f"{ritm_id} is {ritm['state']}; only an approved item can be fulfilled."
        require(ritm["state"] == "approved", 403, "NOT_APPROVED", message)
        item, user = self.state["catalog"][ritm["item_id"]], self.active_user(ritm["requested_for"], param="ritm_id")
        if item["stock"] is not None:
            require(item["stock"] >= ritm["quantity"], 409, "OUT_OF_STOCK", f"Only {item['stock']} in stock.")
            item["stock"] -= ritm["quantity"]
        if item["access_group"]:
            self.state["groups"][item["access_group"]]["members"].append(user["user_id"])
            user["groups"].append(item["access_group"])
        ritm["state"] = "fulfilled"
        return {"ritm_id": ritm_id, "state": "fulfilled"}

    @tool(kind="write")
    def cancel_request_item(self, ritm_id: str) -> dict[str, Any]:
        """Cancel a requested item that is not fulfilled yet.

        Args:
            ritm_id: The requested item.
        """
        ritm = self.get("request_items", ritm_id)
        message = f"{ritm_id} is {ritm['state']}."
        require(ritm["state"] in ("pending_approval", "approved"), 409, "NOT_CANCELABLE", message)
        ritm["state"] = "canceled"
        for approval in ritm["approvals"]:
            if approval["state"] == "requested":
                approval["state"] = "not_required"  # ServiceNow's "No Longer Required"
        return {"ritm_id": ritm_id, "state": "canceled"}
