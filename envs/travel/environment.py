"""The travel domain environment (discovered by folder name): its world and its tools."""

from __future__ import annotations

from .conduct import CONDUCT
from .data_model import TravelState
from .invariants import WorldInvariants
from .tools import FlightTools, HotelTools, InsuranceTools, SeatTools, ServiceTools, TravellerTools


class TravelEnvironment(
    TravellerTools, FlightTools, ServiceTools, SeatTools, HotelTools, InsuranceTools, WorldInvariants
):
    """An airline service desk: bookings, flight changes, cancellations, bags, seats, hotel stays,
    insurance claims and disruptions."""

    domain = "travel"
    state_model = TravelState
    clock_start = "2026-05-11T10:00:00-04:00"
    conduct = CONDUCT


__all__ = ["TravelEnvironment"]
