"""Cancelling a booking, bags, compensation and hand-offs."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pytest_crmbench import Money, Rejection, Required, require, tool
from pytest_crmbench.env.values import ZERO

from .base import Desk


class ServiceTools(Desk):
    """Cancelling, bags, compensation and hand-offs."""

    @tool(kind="write")
    def cancel_booking(
        self,
        traveller_id: str,
        locator: str,
        refund_amount: Money,
        refund_to: Literal["original_payment", "travel_credit"],
    ) -> dict[str, Any]:
        """Cancel a whole booking and refund the amount the policy says, to the original payment or
        as a travel credit on the profile (the tool does not work it out). After the explicit yes.

        Args:
            traveller_id: The verified traveller, holder of the booking.
            locator: The record locator.
            refund_amount: What goes back, 0.00 when nothing.
            refund_to: "original_payment" or "travel_credit".
        """
        booking = self.booking_of(traveller_id, locator)
        self.confirmed(booking)
        amount = self.money(refund_amount)
        require(amount >= ZERO, 422, "NEGATIVE_AMOUNT", "refund_amount cannot be negative.", param="refund_amount")
        left = self.money(booking["total_paid"]) - self.money(booking["refunded"])
        require(
            amount <= left,
            422,
            "REFUND_EXCEEDS_PAID",
            f"At most {left} can be refunded on {locator}.",
            param="refund_amount",
        )
        for flight_id in booking["segments"]:
            self.release_seats(booking, flight_id)
            flight = self.state["flights"][flight_id]
            if flight["status"] != "cancelled":
                flight["seats_available"][booking["cabin"]] += len(booking["passengers"])
        booking["status"] = "cancelled"
        booking["refunded"] = self.money(booking["refunded"]) + amount
        result: dict[str, Any] = {"locator": locator, "status": "cancelled", "refunded": amount, "refund_to": refund_to}
        if refund_to == "travel_credit" and amount > ZERO:
            credit = self.insert(
                "credits",
                {
                    "traveller_id": traveller_id,
                    "locator": locator,
                    "kind": "refund_credit",
                    "amount": amount,
                    "issued_at": self.stamp(),
                },
            )
            result["credit_id"] = credit["credit_id"]
        return result

    @tool(kind="write")
    def add_checked_bags(self, traveller_id: str, locator: str, bags: int, amount_charged: Money) -> dict[str, Any]:
        """Add checked bags to a booking, charging the amount the policy says (the tool does not work
        out the allowance). After the explicit yes.

        Args:
            traveller_id: The verified traveller, holder of the booking.
            locator: The record locator.
            bags: How many bags to add (not the new total).
            amount_charged: What the traveller pays for them, 0.00 when they are free.
        """
        booking = self.booking_of(traveller_id, locator)
        self.confirmed(booking)
        require(bags > 0, 422, "INVALID_QUANTITY", "Add at least one bag.", param="bags")
        most = int(self.state["settings"]["max_bags_per_passenger"]) * len(booking["passengers"])
        require(
            booking["checked_bags"] + bags <= most,
            422,
            "TOO_MANY_BAGS",
            f"{locator} may check at most {most} bags; it has {booking['checked_bags']}.",
            param="bags",
        )
        charge = self.money(amount_charged)
        require(charge >= ZERO, 422, "NEGATIVE_AMOUNT", "amount_charged cannot be negative.", param="amount_charged")
        booking["checked_bags"] += bags
        booking["total_paid"] = self.money(booking["total_paid"]) + charge
        return {k: booking[k] for k in ("locator", "checked_bags", "total_paid")}

    @tool(kind="write")
    def issue_compensation(self, traveller_id: str, locator: str, amount: Money) -> dict[str, Any]:
        """Put a compensation voucher on the traveller's profile for a cancelled or delayed flight of
        the booking (once per booking; the amount is the policy's, the tool does not work it out).

        Args:
            traveller_id: The verified traveller, holder of the booking.
            locator: The record locator.
            amount: The voucher's value.
        """
        booking = self.booking_of(traveller_id, locator)
        flights = booking["segments"] + booking["rebooked_from"]
        disrupted = [f for f in flights if self.state["flights"][f]["status"] != "scheduled"]
        require(
            not booking["compensated"],
            409,
            "ALREADY_COMPENSATED",
            f"{locator} was already compensated.",
            param="locator",
        )
        require(
            bool(disrupted),
            422,
            "FLIGHT_NOT_DISRUPTED",
            f"No flight of {locator} is cancelled or delayed.",
            param="locator",
        )
        value = self.money(amount)
        require(value > ZERO, 422, "INVALID_AMOUNT", "amount must be positive.", param="amount")
        booking["compensated"] = True
        credit = self.insert(
            "credits",
            {
                "traveller_id": traveller_id,
                "locator": locator,
                "kind": "compensation",
                "amount": value,
                "issued_at": self.stamp(),
            },
        )
        return {"credit_id": credit["credit_id"], "amount": value}

    @tool(kind="write", prose=("summary",))
    def transfer_to_agent(
        self, traveller_id: str, summary: Annotated[str, Required("Summarise the request for the agent.")]
    ) -> dict[str, Any]:
        """Hand the conversation to a human agent, with a summary of what the traveller needs.

        Args:
            traveller_id: The traveller's loyalty number.
            summary: What they need and why the assistant could not do it.
        """
        self.get("travellers", traveller_id)
        queued = [e["escalation_id"] for e in self.state["escalations"].values() if e["traveller_id"] == traveller_id]
        if queued:
            raise Rejection(409, "ALREADY_ESCALATED", f"{queued[0]} is already queued.", param="traveller_id")
        case = self.insert(
            "escalations", {"traveller_id": traveller_id, "summary": summary, "created_at": self.stamp()}
        )
        return {"escalation_id": case["escalation_id"], "status": "queued"}
