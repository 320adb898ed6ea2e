"""Gift cards, store credit and loyalty points."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any

from pytest_crmbench import Required, require, tool

from .base import RetailRules


class RewardTools(RetailRules):
    def card_of(self, customer_id: str, gift_card_id: str) -> dict[str, Any]:
        self.customer(customer_id)
        return self.get("gift_cards", gift_card_id, owner=customer_id)

    @tool(kind="read")
    def get_gift_card(self, customer_id: str, gift_card_id: str) -> dict[str, Any]:
        """One of the customer's gift cards: last four digits, balance, status and, for a disabled
        card, why and which card replaced it.

        Args:
            customer_id: The verified customer, the card's registered owner.
            gift_card_id: e.g. "GC-6180".
        """
        return dict(self.card_of(customer_id, gift_card_id))

    @tool(kind="write", prose=("reason",))
    def replace_gift_card(
        self,
        customer_id: str,
        gift_card_id: str,
        reason: Annotated[str, Required("Say why the card is replaced.")],
    ) -> dict[str, Any]:
        """Disable one of the customer's gift cards and issue a new card holding its whole
        balance, after the customer's explicit yes.

        Args:
            customer_id: The verified customer, the card's registered owner.
            gift_card_id: The card to disable, e.g. "GC-6180".
            reason: Why, e.g. "reported lost".
        """
        card = self.card_of(customer_id, gift_card_id)
        require(card["status"] == "active", 409, "GIFT_CARD_DISABLED", f"{gift_card_id} is already disabled.")
        fresh = self.insert(
            "gift_cards",
            {"customer_id": customer_id, "last4": "0000", "balance": card["balance"], "status": "active"},
        )
        fresh["last4"] = fresh["gift_card_id"][-4:]
        card.update(
            balance=Decimal("0.00"), status="disabled", disabled_reason=reason, replaced_by=fresh["gift_card_id"]
        )
        return {"disabled": gift_card_id, "new_gift_card_id": fresh["gift_card_id"], "balance": fresh["balance"]}

    @tool(kind="write")
    def redeem_loyalty_points(self, customer_id: str, points: int) -> dict[str, Any]:
        """Turn loyalty points into store credit, in whole blocks of points at the rate in policy,
        after the customer's explicit yes.

        Args:
            customer_id: The verified customer.
            points: Points to redeem, a whole number of blocks (e.g. 300).
        """
        customer = self.customer(customer_id)
        settings = self.state["settings"]
        block = int(settings["points_block"])
        require(
            points > 0 and points % block == 0,
            422,
            "POINTS_NOT_IN_BLOCKS",
            f"Points are redeemed in blocks of {block}.",
            param="points",
        )
        held = int(customer["loyalty_points"])
        require(points <= held, 422, "INSUFFICIENT_POINTS", f"{customer_id} holds {held} points.", param="points")
        customer["loyalty_points"] = held - points
        customer["store_credit"] = Decimal(customer["store_credit"]) + Decimal(settings["block_value"]) * (
            points // block
        )
        self.state["points_ledger"].append(
            {
                "customer_id": customer_id,
                "points": -points,
                "kind": "redemption",
                "reason": "redeemed for store credit",
                "created_at": self.stamp(),
            }
        )
        return {"loyalty_points": customer["loyalty_points"], "store_credit": customer["store_credit"]}

    @tool(kind="write", prose=("reason",))
    def award_loyalty_points(
        self,
        customer_id: str,
        points: int,
        reason: Annotated[str, Required("Say why the points are awarded.")],
    ) -> dict[str, Any]:
        """Award goodwill loyalty points (policy says when and how many), after the customer's
        explicit yes.

        Args:
            customer_id: The verified customer.
            points: Points to award.
            reason: Why, in a few words.
        """
        customer = self.customer(customer_id)
        cap = int(self.state["settings"]["max_goodwill_points"])
        require(0 < points <= cap, 422, "GOODWILL_LIMIT", f"One award gives 1 to {cap} points.", param="points")
        customer["loyalty_points"] = int(customer["loyalty_points"]) + points
        self.state["points_ledger"].append(
            {
                "customer_id": customer_id,
                "points": points,
                "kind": "goodwill",
                "reason": reason,
                "created_at": self.stamp(),
            }
        )
        return {"loyalty_points": customer["loyalty_points"]}
