"""Travel-insurance claims on an insured booking.

The insurer's system takes a claim only for an insured booking that has been cancelled, once per
booking, for at most what the trip cost and was not refunded. Which reasons are covered and what
amount to claim are the policy's (the agent works them out).
"""

from __future__ import annotations

from typing import Any, Literal

from pytest_crmbench import Amount, require, tool

from .base import Desk


class InsuranceTools(Desk):
    """Filing a travel-insurance claim."""

    @tool(kind="write")
    def file_insurance_claim(
        self,
        traveller_id: str,
        locator: str,
        reason: Literal["illness", "bereavement", "jury_duty", "other"],
        amount: Amount,
    ) -> dict[str, Any]:
        """Submit a claim to the travel insurer for a cancelled, insured booking, for the amount the
        policy says (the tool does not work it out). After the explicit yes.

        Args:
            traveller_id: The verified traveller, holder of the booking.
            locator: The record locator.
            reason: Why the trip was cancelled.
            amount: What is claimed.
        """
        booking = self.booking_of(traveller_id, locator)
        require(booking["insurance"], 422, "NOT_INSURED", f"{locator} has no travel insurance.", param="locator")
        require(
            booking["status"] == "cancelled",
            409,
            "BOOKING_NOT_CANCELLED",
            f"{locator} must be cancelled before a claim.",
            param="locator",
        )
        filed = [c for c in self.state["claims"].values() if c["locator"] == locator]
        require(not filed, 409, "CLAIM_EXISTS", f"A claim was already filed for {locator}.", param="locator")
        loss = self.money(booking["total_paid"]) - self.money(booking["refunded"])
        value = self.money(amount)
        require(
            value <= loss,
            422,
            "CLAIM_EXCEEDS_LOSS",
            "The claim exceeds what the trip cost and was not refunded.",
            param="amount",
        )
        claim = self.insert(
            "claims",
            {
                "traveller_id": traveller_id,
                "locator": locator,
                "reason": reason,
                "amount": value,
                "status": "submitted",
                "filed_at": self.stamp(),
            },
        )
        return {k: claim[k] for k in ("claim_id", "locator", "reason", "amount", "status")}
