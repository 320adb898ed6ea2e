"""Hotel stays: searching partner hotels, booking, changing and cancelling a stay.

The hotel's system prices a new stay (nights times the nightly rate of the plan) and enforces its
own inventory and rate plans: a prepaid stay is never changed or refunded, a stay that has begun is
not changed or cancelled here. What a flexible stay's change or cancellation refunds under the
hotel's terms is the policy's (the agent computes it from the terms and the clock).
"""

from __future__ import annotations

from datetime import date
from typing import Any, Literal

from pytest_crmbench import IsoDate, Money, require, tool
from pytest_crmbench.env.values import ZERO

from .base import Desk

MAX_NIGHTS = 30


class HotelTools(Desk):
    """Partner hotels and the traveller's stays."""

    def check_dates(self, check_in: str, check_out: str) -> int:
        """The nights between two valid dates of a future stay."""
        first, last = date.fromisoformat(check_in), date.fromisoformat(check_out)
        require(first >= self.today(), 422, "DATE_IN_PAST", f"{check_in} has passed.", param="check_in")
        nights = (last - first).days
        require(nights > 0, 422, "INVALID_DATES", "check_out must be after check_in.", param="check_out")
        require(nights <= MAX_NIGHTS, 422, "STAY_TOO_LONG", f"At most {MAX_NIGHTS} nights.", param="check_out")
        return nights

    def not_started(self, stay: dict[str, Any]) -> None:
        require(
            stay["status"] == "confirmed",
            409,
            "STAY_NOT_ACTIVE",
            f"{stay['stay_id']} is {stay['status']}.",
            param="stay_id",
        )
        require(
            date.fromisoformat(stay["check_in"]) > self.today(),
            409,
            "STAY_STARTED",
            f"{stay['stay_id']} checks in on {stay['check_in']}; the hotel handles it from the day of arrival.",
            param="stay_id",
        )

    @tool(kind="read")
    def search_hotels(self, city: str, check_in: IsoDate, check_out: IsoDate) -> dict[str, Any]:
        """Partner hotels in a city: room types with the nightly flexible and prepaid rates and rooms
        left for those dates, the local check-in time and UTC offset, and the hotel's cancellation
        terms for flexible stays.

        Args:
            city: City name, e.g. "London".
            check_in: Arrival date, YYYY-MM-DD.
            check_out: Departure date, YYYY-MM-DD.
        """
        found = [h for h in self.state["hotels"].values() if h["city"].lower() == city.strip().lower()]
        return {"city": city.strip(), "check_in": str(check_in), "check_out": str(check_out), "hotels": found}

    @tool(kind="read")
    def get_hotel_stay(self, traveller_id: str, stay_id: str) -> dict[str, Any]:
        """One of the traveller's hotel stays with its hotel (check-in time, UTC offset, cancellation
        terms).

        Args:
            traveller_id: The verified traveller.
            stay_id: The stay's confirmation number, e.g. "HS-7TQ2LM".
        """
        stay = self.stay_of(traveller_id, stay_id)
        hotel = self.state["hotels"][stay["hotel_id"]]
        terms = ("name", "city", "utc_offset", "check_in_time", "free_cancellation_hours", "late_cancellation_nights")
        return {**stay, "hotel": {k: hotel[k] for k in terms}}

    @tool(kind="write")
    def book_hotel(
        self,
        traveller_id: str,
        hotel_id: str,
        room_type: str,
        check_in: IsoDate,
        check_out: IsoDate,
        rate_plan: Literal["flexible", "prepaid"],
    ) -> dict[str, Any]:
        """Book one room for the traveller; the hotel charges the nights times the plan's nightly
        rate. After the traveller's explicit yes to the hotel, dates, plan and price.

        Args:
            traveller_id: The verified traveller.
            hotel_id: From search_hotels, e.g. "HTL-LON-01".
            room_type: A room type of that hotel, e.g. "standard".
            check_in: Arrival date, YYYY-MM-DD.
            check_out: Departure date, YYYY-MM-DD.
            rate_plan: "flexible" (cancellable under the hotel's terms) or "prepaid" (never refunded).
        """
        self.get("travellers", traveller_id, param="traveller_id")
        hotel = self.get("hotels", hotel_id, param="hotel_id")
        room = hotel["rooms"].get(room_type)
        require(
            room is not None,
            404,
            "ROOM_TYPE_NOT_FOUND",
            f"{hotel['name']} has no {room_type} rooms.",
            param="room_type",
        )
        nights = self.check_dates(str(check_in), str(check_out))
        require(room["rooms_available"] > 0, 409, "NO_ROOMS", f"No {room_type} room is left.", param="room_type")
        rate = self.money(room[f"{rate_plan}_rate"])
        room["rooms_available"] -= 1
        stay = self.insert(
            "hotel_stays",
            {
                "traveller_id": traveller_id,
                "hotel_id": hotel_id,
                "room_type": room_type,
                "rate_plan": rate_plan,
                "nightly_rate": rate,
                "check_in": str(check_in),
                "check_out": str(check_out),
                "status": "confirmed",
                "created_at": self.stamp(),
                "total_paid": rate * nights,
                "refunded": ZERO,
            },
        )
        return {k: stay[k] for k in ("stay_id", "hotel_id", "check_in", "check_out", "rate_plan", "total_paid")}

    @tool(kind="write")
    def modify_hotel_stay(
        self,
        traveller_id: str,
        stay_id: str,
        check_in: IsoDate,
        check_out: IsoDate,
        amount_charged: Money,
        amount_refunded: Money,
    ) -> dict[str, Any]:
        """Move a flexible stay to new dates (same hotel and room), charging or refunding the amounts
        the policy says (the tool does not work them out). After the explicit yes.

        Args:
            traveller_id: The verified traveller, holder of the stay.
            stay_id: The stay's confirmation number.
            check_in: The new arrival date, YYYY-MM-DD.
            check_out: The new departure date, YYYY-MM-DD.
            amount_charged: What the traveller pays for added nights, 0.00 when nothing.
            amount_refunded: What goes back to the original payment for removed nights, 0.00 when nothing.
        """
        stay = self.stay_of(traveller_id, stay_id)
        self.not_started(stay)
        require(
            stay["rate_plan"] == "flexible",
            422,
            "RATE_NOT_CHANGEABLE",
            f"{stay_id} is a prepaid rate and cannot be changed.",
            param="stay_id",
        )
        self.check_dates(str(check_in), str(check_out))
        require(
            (str(check_in), str(check_out)) != (stay["check_in"], stay["check_out"]),
            409,
            "SAME_DATES",
            f"{stay_id} already has these dates.",
            param="check_in",
        )
        charge, refund = self.money(amount_charged), self.money(amount_refunded)
        require(charge >= ZERO, 422, "NEGATIVE_AMOUNT", "amount_charged cannot be negative.", param="amount_charged")
        require(refund >= ZERO, 422, "NEGATIVE_AMOUNT", "amount_refunded cannot be negative.", param="amount_refunded")
        left = self.money(stay["total_paid"]) - self.money(stay["refunded"])
        require(refund <= left, 422, "REFUND_EXCEEDS_PAID", f"At most {left} can be refunded.", param="amount_refunded")
        stay["check_in"], stay["check_out"] = str(check_in), str(check_out)
        stay["total_paid"] = self.money(stay["total_paid"]) + charge
        stay["refunded"] = self.money(stay["refunded"]) + refund
        return {k: stay[k] for k in ("stay_id", "check_in", "check_out", "total_paid", "refunded")}

    @tool(kind="write")
    def cancel_hotel_stay(self, traveller_id: str, stay_id: str, refund_amount: Money) -> dict[str, Any]:
        """Cancel a stay before its arrival day and refund the amount the hotel's terms give, to the
        original payment (the tool does not work it out; a prepaid stay refunds nothing). After the
        explicit yes.

        Args:
            traveller_id: The verified traveller, holder of the stay.
            stay_id: The stay's confirmation number.
            refund_amount: What goes back, 0.00 when nothing.
        """
        stay = self.stay_of(traveller_id, stay_id)
        self.not_started(stay)
        amount = self.money(refund_amount)
        require(amount >= ZERO, 422, "NEGATIVE_AMOUNT", "refund_amount cannot be negative.", param="refund_amount")
        require(
            stay["rate_plan"] == "flexible" or amount == ZERO,
            422,
            "REFUND_NOT_ALLOWED",
            f"{stay_id} is a prepaid rate: nothing is refunded.",
            param="refund_amount",
        )
        left = self.money(stay["total_paid"]) - self.money(stay["refunded"])
        require(amount <= left, 422, "REFUND_EXCEEDS_PAID", f"At most {left} can be refunded.", param="refund_amount")
        room = self.state["hotels"][stay["hotel_id"]]["rooms"][stay["room_type"]]
        room["rooms_available"] += 1
        stay["status"] = "cancelled"
        stay["refunded"] = self.money(stay["refunded"]) + amount
        return {"stay_id": stay_id, "status": "cancelled", "refunded": amount}
