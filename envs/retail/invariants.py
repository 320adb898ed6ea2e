"""World rules every state of the retail world keeps (checked on the seed, on every task's initial
state and after every operation of the property tests)."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal

from pytest_crmbench import ToolEnvironment, Violation, invariant


class WorldInvariants(ToolEnvironment):
    @invariant
    def references_resolve(self) -> Iterator[Violation]:
        state = self.state
        for order_id, order in state["orders"].items():
            if order["customer_id"] not in state["customers"]:
                yield Violation(f"orders.{order_id}.customer_id", "names no customer")
            for i, line in enumerate(order["line_items"]):
                if line["variant_id"] not in state["variants"]:
                    yield Violation(f"orders.{order_id}.line_items.{i}.variant_id", "names no variant")
        for store_id, store in state["stores"].items():
            for variant_id, units in store["inventory"].items():
                if variant_id not in state["variants"]:
                    yield Violation(f"stores.{store_id}.inventory.{variant_id}", "names no variant")
                if int(units) < 0:
                    yield Violation(f"stores.{store_id}.inventory.{variant_id}", "is negative")

    @invariant
    def refunds_match_returned_units(self) -> Iterator[Violation]:
        """Returned units on a line equal the units its refunds took back, and each refund gives
        back the units' price less its fee."""
        for order_id, order in self.state["orders"].items():
            for i, line in enumerate(order["line_items"]):
                refunds = [
                    r
                    for r in self.state["refunds"].values()
                    if r["order_id"] == order_id and r["line_id"] == line["line_id"]
                ]
                if sum(int(r["quantity"]) for r in refunds) != int(line["returned_quantity"]):
                    yield Violation(f"orders.{order_id}.line_items.{i}.returned_quantity", "differs from its refunds")
                if int(line["returned_quantity"]) > int(line["quantity"]):
                    yield Violation(f"orders.{order_id}.line_items.{i}.returned_quantity", "exceeds the units sold")
                for r in refunds:
                    gross = Decimal(line["unit_price"]) * int(r["quantity"])
                    if Decimal(r["amount"]) + Decimal(r["restocking_fee"]) != gross:
                        yield Violation(f"refunds.{r['refund_id']}.amount", "plus its fee is not the units' price")

    @invariant
    def transfers_balance(self) -> Iterator[Violation]:
        for tr_id, tr in self.state["transfers"].items():
            for field in ("from_store", "to_store"):
                if tr[field] not in self.state["stores"]:
                    yield Violation(f"transfers.{tr_id}.{field}", "names no store")
