"""The travel tools: what an airline service desk can read and change.

Rules the airline's systems enforce (ownership, seats, routes, fare conditions that forbid a
change, money that cannot go negative or be refunded twice, the bag limit, compensation only for a
disrupted flight and only once) raise rejections. Conduct rules (identity first, an explicit yes,
which refund a fare earns, what a disruption is owed, the 24-hour rule) live in ``policy.md``: the
tools take the amounts the agent computed, so an agent can break them and a task can see it.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Annotated, Any, Literal

from pytest_crmbench import IsoDate, Money, Rejection, Required, ToolEnvironment, require, tool

from .data_model import ZERO


def instant(value: str) -> datetime:
    """An ISO timestamp with its offset, as an aware datetime (compares across offsets)."""
    return datetime.fromisoformat(value)


class Desk(ToolEnvironment):
    """Shared lookups: a traveller's own booking, and money as Decimal."""

    def booking_of(self, traveller_id: str, locator: str) -> dict[str, Any]:
        self.get("travellers", traveller_id, param="traveller_id")
        return self.get("bookings", locator, owner=traveller_id, param="locator")

    def confirmed(self, booking: dict[str, Any]) -> None:
        require(
            booking["status"] == "confirmed",
            409,
            "BOOKING_NOT_ACTIVE",
            f"{booking['locator']} is {booking['status']}.",
            param="locator",
        )

    @staticmethod
    def money(value: Any) -> Decimal:
        return Decimal(str(value)).quantize(Decimal("0.01"))


class TravellerTools(Desk):
    """Identity, profile and bookings."""

    @tool(kind="read")
    def verify_traveller(self, traveller_id: str, date_of_birth: IsoDate) -> dict[str, Any]:
        """Check the date of birth a caller stated against the traveller's profile (never reveals it).

        Args:
            traveller_id: The loyalty number, e.g. "TRV-20417".
            date_of_birth: The date of birth they stated, YYYY-MM-DD.
        """
        traveller = self.get("travellers", traveller_id)
        verified = str(date_of_birth) == traveller["date_of_birth"]
        return {"traveller_id": traveller_id, "verified": verified, "name": traveller["name"] if verified else None}

    @tool(kind="read")
    def get_traveller(self, traveller_id: str) -> dict[str, Any]:
        """The verified traveller's profile: name, email, loyalty tier and credits on file.

        Args:
            traveller_id: The verified traveller.
        """
        traveller = self.get("travellers", traveller_id)
        credits = [c for c in self.state["credits"].values() if c["traveller_id"] == traveller_id]
        profile = {k: traveller[k] for k in ("traveller_id", "name", "email", "loyalty_tier")}
        return {**profile, "credits": credits}

    @tool(kind="read")
    def list_bookings(self, traveller_id: str) -> dict[str, Any]:
        """List the verified traveller's bookings (locator, status, flights).

        Args:
            traveller_id: The verified traveller.
        """
        self.get("travellers", traveller_id)
        mine = [
            {k: b[k] for k in ("locator", "status", "segments", "cabin", "fare_brand")}
            for b in self.state["bookings"].values()
            if b["traveller_id"] == traveller_id
        ]
        return {"traveller_id": traveller_id, "bookings": mine}

    @tool(kind="read")
    def get_booking(self, traveller_id: str, locator: str) -> dict[str, Any]:
        """One of the traveller's bookings with its passengers, money, the fare brand's conditions
        and each flight (local times with offsets, status, delay and its cause).

        Args:
            traveller_id: The verified traveller.
            locator: The six-character record locator, e.g. "H4LM8P".
        """
        booking = self.booking_of(traveller_id, locator)
        flights = [self.state["flights"][f] for f in booking["segments"]]
        conditions = self.state["settings"]["fare_brands"][booking["fare_brand"]]
        return {**booking, "fare_conditions": conditions, "flights": flights}


class FlightTools(Desk):
    """Searching flights and changing a booking onto another one."""

    @tool(kind="read")
    def search_flights(self, origin: str, destination: str, date: IsoDate) -> dict[str, Any]:
        """Flights between two airports departing on a local date, with status, seats left and the
        current one-way fare per passenger in each cabin.

        Args:
            origin: IATA code, e.g. "JFK".
            destination: IATA code, e.g. "LAX".
            date: Local departure date, YYYY-MM-DD.
        """
        found = [
            f
            for f in self.state["flights"].values()
            if f["origin"] == origin.upper()
            and f["destination"] == destination.upper()
            and f["departs"][:10] == str(date)
        ]
        return {"origin": origin.upper(), "destination": destination.upper(), "date": str(date), "flights": found}

    @tool(kind="read")
    def get_baggage_rules(self) -> dict[str, Any]:
        """The free checked-bag allowance per passenger by loyalty tier and cabin, the fee per extra
        bag and the most bags a passenger may check."""
        settings = self.state["settings"]
        return {k: settings[k] for k in ("free_bags", "extra_bag_fee", "max_bags_per_passenger")}

    @tool(kind="write")
    def change_flight(
        self, traveller_id: str, locator: str, old_flight_id: str, new_flight_id: str, amount_charged: Money
    ) -> dict[str, Any]:
        """Move every passenger of a booking from one flight to another on the same route, in the same
        cabin, charging the amount the policy says (the tool does not work it out). After the
        traveller's explicit yes.

        Args:
            traveller_id: The verified traveller, holder of the booking.
            locator: The record locator.
            old_flight_id: The booked flight being replaced, e.g. "NA220-2026-05-12".
            new_flight_id: The flight to move to, from search_flights.
            amount_charged: What the traveller pays for the change, 0.00 when nothing.
        """
        booking = self.booking_of(traveller_id, locator)
        self.confirmed(booking)
        require(
            old_flight_id in booking["segments"],
            422,
            "FLIGHT_NOT_ON_BOOKING",
            f"{old_flight_id} is not on {locator}.",
            param="old_flight_id",
        )
        old = self.state["flights"][old_flight_id]
        new = self.get("flights", new_flight_id, param="new_flight_id")
        require(
            new_flight_id not in booking["segments"],
            409,
            "SAME_FLIGHT",
            f"{locator} is already on {new_flight_id}.",
            param="new_flight_id",
        )
        require(
            (new["origin"], new["destination"]) == (old["origin"], old["destination"]),
            422,
            "ROUTE_MISMATCH",
            f"{new_flight_id} flies {new['origin']}-{new['destination']}, not {old['origin']}-{old['destination']}.",
            param="new_flight_id",
        )
        require(
            new["status"] != "cancelled",
            409,
            "FLIGHT_CANCELLED",
            f"{new_flight_id} is cancelled.",
            param="new_flight_id",
        )
        require(
            instant(new["departs"]) > self.now(),
            422,
            "FLIGHT_DEPARTED",
            f"{new_flight_id} has left.",
            param="new_flight_id",
        )
        brand = self.state["settings"]["fare_brands"][booking["fare_brand"]]
        require(
            brand["changeable"] or old["status"] == "cancelled",
            422,
            "FARE_NOT_CHANGEABLE",
            f"A {booking['fare_brand']} fare cannot be changed.",
            param="locator",
        )
        cabin, seats = booking["cabin"], len(booking["passengers"])
        if new["seats_available"][cabin] < seats:
            raise Rejection(
                409,
                "NOT_ENOUGH_SEATS",
                f"{new_flight_id} has {new['seats_available'][cabin]} {cabin} seats left; {seats} needed.",
                param="new_flight_id",
            )
        charge = self.money(amount_charged)
        require(charge >= ZERO, 422, "NEGATIVE_AMOUNT", "amount_charged cannot be negative.", param="amount_charged")
        new["seats_available"][cabin] -= seats
        if old["status"] == "cancelled":
            booking["rebooked_from"].append(old_flight_id)  # the disruption stays on record for compensation
        else:
            old["seats_available"][cabin] += seats
        booking["segments"] = [new_flight_id if f == old_flight_id else f for f in booking["segments"]]
        booking["segment_fares"].pop(old_flight_id)
        booking["segment_fares"][new_flight_id] = new["fares"][cabin]
        booking["total_paid"] = self.money(booking["total_paid"]) + charge
        return {k: booking[k] for k in ("locator", "segments", "total_paid")}


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

    @tool(kind="write")
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
