"""The travel domain environment (discovered by folder name): its world and its tools."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

from .data_model import TravelState
from .invariants import WorldInvariants
from .tools import FlightTools, HotelTools, InsuranceTools, SeatTools, ServiceTools, TravellerTools

SEED_PATH = Path(__file__).with_name("seed.json")


class TravelEnvironment(
    TravellerTools, FlightTools, ServiceTools, SeatTools, HotelTools, InsuranceTools, WorldInvariants
):
    """An airline service desk: bookings, flight changes, cancellations, bags, seats, hotel stays,
    insurance claims and disruptions."""

    domain = "travel"
    state_model = TravelState
    clock_start = "2026-05-11T10:00:00-04:00"

    def default_state(self) -> dict[str, Any]:
        return json.loads(SEED_PATH.read_text(encoding="utf-8"), parse_float=Decimal)  # type: ignore[no-any-return]


__all__ = ["TravelEnvironment"]
