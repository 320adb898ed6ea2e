"""Identity, the traveller's profile and bookings."""

from __future__ import annotations

from typing import Any

from pytest_crmbench import IsoDate, tool

from .base import Desk, without_seat_map


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
        """List the verified traveller's bookings (locator, status, flights) and hotel stays
        (stay id, hotel, dates, status).

        Args:
            traveller_id: The verified traveller.
        """
        self.get("travellers", traveller_id)
        mine = [
            {k: b[k] for k in ("locator", "status", "segments", "cabin", "fare_brand")}
            for b in self.state["bookings"].values()
            if b["traveller_id"] == traveller_id
        ]
        stays = [
            {k: s[k] for k in ("stay_id", "hotel_id", "check_in", "check_out", "status")}
            for s in self.state["hotel_stays"].values()
            if s["traveller_id"] == traveller_id
        ]
        return {"traveller_id": traveller_id, "bookings": mine, "hotel_stays": stays}

    @tool(kind="read")
    def get_booking(self, traveller_id: str, locator: str) -> dict[str, Any]:
        """One of the traveller's bookings with its passengers (and their seats), money, the fare
        brand's conditions, each flight (local times with offsets, status, delay and its cause) and
        any insurance claim.

        Args:
            traveller_id: The verified traveller.
            locator: The six-character record locator, e.g. "H4LM8P".
        """
        booking = self.booking_of(traveller_id, locator)
        flights = [without_seat_map(self.state["flights"][f]) for f in booking["segments"]]
        conditions = self.state["settings"]["fare_brands"][booking["fare_brand"]]
        claims = [c for c in self.state["claims"].values() if c["locator"] == locator]
        return {**booking, "fare_conditions": conditions, "flights": flights, "claims": claims}
