"""The travel world as one typed state model (modelled on an airline PSS / NDC order as the
Amadeus and Duffel APIs expose it: an order with a record locator, passengers, flight segments and
a fare brand whose conditions say whether it is refundable or changeable and at what fee).

Times are ISO 8601 timestamps with the UTC offset of the airport they happen at
(``2026-05-14T19:30:00-04:00`` departs New York, ``2026-05-15T07:40:00+01:00`` lands in London);
tools compare them as instants. Money is a two-place ``Decimal``.

State layout::

    settings                     Settings     (fare brands, baggage allowance, bag fee)
    travellers.<TRV-…>           Traveller    (profile, loyalty tier; identity: date of birth)
    flights.<NA101-2026-05-14>   Flight       (route, local times, status, seats, fares, seat map)
    bookings.<locator>           Booking      (the order: passengers and their seats, segments, fare brand, money)
    hotels.<HTL-…>               Hotel        (rooms and nightly rates, check-in time, the hotel's cancellation terms)
    hotel_stays.<HS-…>           HotelStay    (a traveller's reservation at a hotel)
    claims.<CLM-…>               InsuranceClaim (a travel-insurance claim on an insured booking)
    credits.<CR-…>               TravelCredit (refund credits and compensation vouchers)
    escalations.<ESC-…>          Escalation   (hand-offs to a human agent)
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from pytest_crmbench import Money, Record, Ref, Timestamp

Cabin = Literal["economy", "business"]
Tier = Literal["member", "silver", "gold"]
FareBrandName = Literal["basic", "standard", "flex"]


# Ids of other records: the kit reports one naming no record ("names no flight").
TravellerId = Annotated[str, Ref("travellers")]
FlightId = Annotated[str, Ref("flights")]


class FareBrand(BaseModel):
    """The conditions of a fare brand (NDC fare conditions)."""

    model_config = ConfigDict(extra="forbid")

    refundable: bool = Field(description="Cancelling refunds the fare to the original payment.")
    changeable: bool = Field(description="The flights may be changed for a fee.")
    change_fee: Money = Field(ge=0, description="Per passenger, for a change or a cancellation to credit.")
    seat_selection: bool = Field(description="Seats may be chosen before check-in.")


class Settings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    fare_brands: dict[FareBrandName, FareBrand]
    free_bags: dict[Tier, dict[Cabin, int]] = Field(description="Free checked bags per passenger by tier and cabin.")
    extra_bag_fee: Money = Field(gt=0, description="Per checked bag beyond the free allowance.")
    max_bags_per_passenger: int = Field(gt=0)


class Traveller(Record):
    """A loyalty member; identity is checked with the date of birth."""

    owner_field = "traveller_id"  # the customer record: its own owner

    traveller_id: str = Field(description="e.g. TRV-20417.")
    name: str
    date_of_birth: str = Field(description="YYYY-MM-DD: the identity check.")
    email: str
    loyalty_tier: Tier


class Seat(BaseModel):
    """One seat of a flight's seat map (the seats the desk can sell; the rest of the cabin is held)."""

    model_config = ConfigDict(extra="forbid")

    cabin: Cabin
    kind: Literal["standard", "extra_legroom", "exit_row"]
    price: Money = Field(ge=0, description="Per passenger per flight, before any tier benefit.")
    occupied: bool


class Flight(Record):
    """One flight on one date; times are local to the airport (offset included)."""

    flight_id: str = Field(description="Flight number and date, e.g. NA101-2026-05-14.")
    flight_number: str
    origin: str
    destination: str
    departs: Timestamp
    arrives: Timestamp
    status: Literal["scheduled", "delayed", "cancelled"]
    delay_minutes: int = Field(ge=0)
    disruption_cause: Literal["weather", "crew", "technical"] | None
    seats_available: dict[Cabin, int]
    fares: dict[Cabin, Money] = Field(description="Current one-way fare per passenger, per cabin.")
    seat_map: dict[str, Seat] = Field(default_factory=dict, description="Seat (row and letter, e.g. 14C) -> seat.")


class Passenger(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    date_of_birth: str
    seats: dict[str, str] = Field(default_factory=dict, description="Flight id -> assigned seat, e.g. 21C.")


class Booking(Record):
    """An order (record locator) of one traveller: passengers, one-way segments, one cabin and fare brand."""

    id_field = "locator"
    owner_field = "traveller_id"

    locator: str = Field(description="Six-character record locator, e.g. H4LM8P.")
    traveller_id: TravellerId
    status: Literal["confirmed", "cancelled"]
    created_at: Timestamp
    cabin: Cabin
    fare_brand: FareBrandName
    passengers: list[Passenger] = Field(min_length=1)
    segments: list[FlightId] = Field(min_length=1, description="Flight ids, in travel order.")
    segment_fares: dict[str, Money] = Field(
        description="Flight id -> fare per passenger when booked or changed onto it."
    )
    checked_bags: int = Field(ge=0)
    insurance: bool
    total_paid: Money = Field(ge=0, description="Everything charged on this booking so far.")
    refunded: Money = Field(ge=0, description="Everything refunded to the original payment or as credit.")
    rebooked_from: list[FlightId] = Field(description="Cancelled flights the booking was moved off.")
    compensated: bool = Field(description="A compensation voucher was issued for this booking.")


class TravelCredit(Record):
    """A credit on the traveller's profile: a non-refundable fare's value, or a compensation voucher."""

    id_prefix = "CR"
    id_field = "credit_id"
    owner_field = "traveller_id"
    noun = "credit"

    credit_id: str
    traveller_id: str
    locator: str
    kind: Literal["refund_credit", "compensation"]
    amount: Money = Field(gt=0)
    issued_at: Timestamp


class RoomType(BaseModel):
    model_config = ConfigDict(extra="forbid")

    flexible_rate: Money = Field(gt=0, description="Per night; cancellable under the hotel's terms.")
    prepaid_rate: Money = Field(gt=0, description="Per night; paid now, never refunded or changed.")
    rooms_available: int = Field(ge=0)


class Hotel(Record):
    """A partner hotel; its own cancellation terms apply to flexible stays."""

    hotel_id: str = Field(description="e.g. HTL-LON-01.")
    name: str
    city: str
    utc_offset: str = Field(pattern=r"^[+-]\d{2}:\d{2}$", description="The hotel's local offset, e.g. +01:00.")
    check_in_time: str = Field(pattern=r"^\d{2}:\d{2}$", description="Local check-in time, HH:MM.")
    free_cancellation_hours: int = Field(
        gt=0, description="A flexible stay cancels free until this many hours before check-in."
    )
    late_cancellation_nights: int = Field(gt=0, description="Nights kept when a flexible stay is cancelled later.")
    rooms: dict[str, RoomType]


class HotelStay(Record):
    """A hotel reservation of one traveller (its confirmation number is the stay id)."""

    id_prefix = "HS"
    id_field = "stay_id"
    owner_field = "traveller_id"
    noun = "hotel stay"

    stay_id: str
    traveller_id: TravellerId
    hotel_id: str
    room_type: str
    rate_plan: Literal["flexible", "prepaid"]
    nightly_rate: Money = Field(gt=0)
    check_in: str = Field(description="YYYY-MM-DD, the hotel's local date.")
    check_out: str = Field(description="YYYY-MM-DD, after check_in.")
    status: Literal["confirmed", "cancelled"]
    created_at: Timestamp
    total_paid: Money = Field(ge=0)
    refunded: Money = Field(ge=0)


class InsuranceClaim(Record):
    """A claim against the travel insurance of a booking, for the part of the trip not refunded."""

    id_prefix = "CLM"
    id_field = "claim_id"
    owner_field = "traveller_id"
    noun = "claim"

    claim_id: str
    traveller_id: str
    locator: str
    reason: Literal["illness", "bereavement", "jury_duty", "other"]
    amount: Money = Field(gt=0)
    status: Literal["submitted"]
    filed_at: Timestamp


class Escalation(Record):
    """A hand-off to a human agent, on the traveller's behalf."""

    id_prefix = "ESC"
    owner_field = "traveller_id"

    escalation_id: str
    traveller_id: str
    summary: str
    created_at: Timestamp


class TravelState(BaseModel):
    model_config = ConfigDict(extra="forbid")

    settings: Settings
    travellers: dict[str, Traveller]
    flights: dict[str, Flight]
    bookings: dict[str, Booking]
    hotels: dict[str, Hotel]
    hotel_stays: dict[str, HotelStay]
    claims: dict[str, InsuranceClaim]
    credits: dict[str, TravelCredit]
    escalations: dict[str, Escalation]


__all__ = ["TravelState"]
