"""Searching flights and changing a booking onto another one."""

from __future__ import annotations

from typing import Any

from pytest_crmbench import IsoDate, Money, Rejection, require, tool
from pytest_crmbench.env.values import ZERO

from .base import Desk, instant, without_seat_map


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
            without_seat_map(f)
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
        self.release_seats(booking, old_flight_id)  # seats are chosen again on the new flight
        if old["status"] == "cancelled":
            booking["rebooked_from"].append(old_flight_id)  # the disruption stays on record for compensation
        else:
            old["seats_available"][cabin] += seats
        booking["segments"] = [new_flight_id if f == old_flight_id else f for f in booking["segments"]]
        booking["segment_fares"].pop(old_flight_id)
        booking["segment_fares"][new_flight_id] = new["fares"][cabin]
        booking["total_paid"] = self.money(booking["total_paid"]) + charge
        return {k: booking[k] for k in ("locator", "segments", "total_paid")}
