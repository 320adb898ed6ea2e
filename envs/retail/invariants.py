"""World rules every state of the retail world keeps (checked on the seed, on every task's initial
state and after every operation of the property tests)."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from typing import Any

from pytest_crmbench import ToolEnvironment, Violation, invariant


class WorldInvariants(ToolEnvironment):
    def _of_line(self, collection: str, order_id: str, line_id: str) -> list[dict[str, Any]]:
        return [r for r in self.state[collection].values() if r["order_id"] == order_id and r["line_id"] == line_id]

    @invariant
    def records_are_complete(self) -> Iterator[Violation]:
        """A delivered order has a delivery date, a store no negative stock, a disabled card no balance."""
        state = self.state
        for order_id, order in state["orders"].items():
            if order["status"] in ("delivered", "returned") and order["delivered_on"] is None:
                yield Violation(f"orders.{order_id}.delivered_on", "is missing on a delivered order")
        for store_id, store in state["stores"].items():
            for variant_id, units in store["inventory"].items():
                if int(units) < 0:
                    yield Violation(f"stores.{store_id}.inventory.{variant_id}", "is negative")
        for card_id, card in state["gift_cards"].items():
            if card["status"] == "disabled" and Decimal(card["balance"]) != 0:
                yield Violation(f"gift_cards.{card_id}.balance", "is not zero on a disabled card")

    @invariant
    def lines_match_their_records(self) -> Iterator[Violation]:
        """Returned and exchanged units on a line equal the units its refunds and exchanges took
        back, never more than were sold; each refund plus its fee is the units' price."""
        for order_id, order in self.state["orders"].items():
            for i, line in enumerate(order["line_items"]):
                where = f"orders.{order_id}.line_items.{i}"
                refunds = self._of_line("refunds", order_id, line["line_id"])
                exchanges = self._of_line("exchanges", order_id, line["line_id"])
                if sum(int(r["quantity"]) for r in refunds) != int(line["returned_quantity"]):
                    yield Violation(f"{where}.returned_quantity", "differs from its refunds")
                if sum(int(e["quantity"]) for e in exchanges) != int(line["exchanged_quantity"]):
                    yield Violation(f"{where}.exchanged_quantity", "differs from its exchanges")
                if int(line["returned_quantity"]) + int(line["exchanged_quantity"]) > int(line["quantity"]):
                    yield Violation(f"{where}.returned_quantity", "with the exchanged units exceeds the units sold")
                for r in refunds:
                    gross = Decimal(r["unit_price"]) * int(r["quantity"])
                    if Decimal(r["amount"]) + Decimal(r["restocking_fee"]) != gross:
                        yield Violation(f"refunds.{r['refund_id']}.amount", "plus its fee is not the units' price")
