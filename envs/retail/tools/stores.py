"""Store-manager operations: inventory levels, transfers between stores, cycle counts."""

from __future__ import annotations

from typing import Any

from pytest_crmbench import require, tool

from .base import RetailRules


class StoreTools(RetailRules):
    @tool(kind="read")
    def get_inventory(self, variant_id: str) -> dict[str, Any]:
        """Units of one variant available in every store (STR-WEB is the online fulfilment center).

        Args:
            variant_id: e.g. "VAR-JKT-L-NVY".
        """
        variant = self.get("variants", variant_id)
        levels = {s["store_id"]: int(s["inventory"].get(variant_id, 0)) for s in self.state["stores"].values()}
        return {"variant": variant, "available": levels}

    @tool(kind="write")
    def transfer_inventory(
        self, employee_id: str, from_store: str, to_store: str, variant_id: str, quantity: int
    ) -> dict[str, Any]:
        """Move units of a variant from one store to another (a store manager's request).

        Args:
            employee_id: The store manager asking, e.g. "EMP-301".
            from_store: The store that sends, e.g. "STR-BOS".
            to_store: The store that receives, e.g. "STR-CAM".
            variant_id: e.g. "VAR-JKT-L-NVY".
            quantity: Units to move.
        """
        self.manager(employee_id)
        source = self.get("stores", from_store, param="from_store")
        target = self.get("stores", to_store, param="to_store")
        self.get("variants", variant_id)
        require(from_store != to_store, 422, "SAME_STORE", "A transfer needs two different stores.", param="to_store")
        on_hand = int(source["inventory"].get(variant_id, 0))
        require(
            0 < quantity <= on_hand, 422, "INSUFFICIENT_STOCK", f"{from_store} has {on_hand} unit(s).", param="quantity"
        )
        source["inventory"][variant_id] = on_hand - quantity
        target["inventory"][variant_id] = int(target["inventory"].get(variant_id, 0)) + quantity
        record = self.insert(
            "transfers",
            {
                "employee_id": employee_id,
                "from_store": from_store,
                "to_store": to_store,
                "variant_id": variant_id,
                "quantity": quantity,
                "created_at": self.stamp(),
            },
        )
        return {
            "transfer_id": record["transfer_id"],
            "from_store": from_store,
            "to_store": to_store,
            "quantity": quantity,
        }

    @tool(kind="write")
    def record_inventory_count(self, employee_id: str, store_id: str, variant_id: str, counted: int) -> dict[str, Any]:
        """Record a cycle count: the units a store manager counted on the shelf replace the store's
        recorded level of that variant.

        Args:
            employee_id: The store manager reporting the count, e.g. "EMP-201".
            store_id: The store counted, e.g. "STR-BOS".
            variant_id: e.g. "VAR-BOOT-10".
            counted: Units counted.
        """
        self.manager(employee_id)
        store = self.get("stores", store_id)
        self.get("variants", variant_id)
        require(counted >= 0, 422, "INVALID_COUNT", "A count is zero or more units.", param="counted")
        previous = int(store["inventory"].get(variant_id, 0))
        store["inventory"][variant_id] = counted
        record = self.insert(
            "counts",
            {
                "employee_id": employee_id,
                "store_id": store_id,
                "variant_id": variant_id,
                "previous": previous,
                "counted": counted,
                "created_at": self.stamp(),
            },
        )
        return {"count_id": record["count_id"], "store_id": store_id, "variant_id": variant_id, "counted": counted}
