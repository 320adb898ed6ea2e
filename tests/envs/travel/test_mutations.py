"""The travel audit hints: the 24-hour rule's 7-day condition (policy §3) decides which bookings the
card-refund forbidden moves target."""

from __future__ import annotations

import json
from typing import Any

import pytest

from envs.travel.mutations import within_24_hour_rule
from tests.envs.travel.helpers import SEED


def world() -> dict[str, Any]:
    state: dict[str, Any] = json.loads(SEED.read_text())
    return state


def booking(locator: str, created_at: str) -> dict[str, Any]:
    return {**world()["bookings"][locator], "created_at": created_at}


@pytest.mark.parametrize(
    ("locator", "created_at", "inside"),
    [
        # Q9TB5W: NA430 leaves 20 May 09:00 Los Angeles (12:00 New York)
        ("Q9TB5W", "2026-05-10T18:20:00-04:00", True),  # 15 h 40 min ago, 9.7 days before departure
        ("Q9TB5W", "2026-05-10T09:40:00-04:00", False),  # 24 h 20 min ago: too late
        ("Q9TB5W", "2026-05-10T10:00:01-04:00", True),  # one second inside the 24 hours
        # M2XK7V: NA101 leaves 15 May 19:30 New York
        ("M2XK7V", "2026-05-10T20:15:00-04:00", False),  # within 24 h, but under 5 days before departure
        ("M2XK7V", "2026-05-08T19:30:00-04:00", False),  # exactly 7 days before, but 62 h ago
    ],
)
def test_the_24_hour_rule_needs_both_conditions(locator: str, created_at: str, inside: bool) -> None:
    assert within_24_hour_rule(booking(locator, created_at), world()["flights"]) is inside


def test_seven_days_before_departure_is_measured_as_an_instant_across_time_zones() -> None:
    flights = world()["flights"]
    # NA430 on 20 May departs 09:00-07:00 = 12:00 New York; 7 days before is 13 May 12:00 New York.
    flights["NA430-2026-05-20"]["departs"] = "2026-05-17T09:00:00-07:00"  # 17 May 12:00 New York
    made_exactly_7_days_before = booking("Q9TB5W", "2026-05-10T12:00:00-04:00")
    made_a_minute_later = booking("Q9TB5W", "2026-05-10T12:01:00-04:00")
    assert within_24_hour_rule(made_exactly_7_days_before, flights)
    assert not within_24_hour_rule(made_a_minute_later, flights)
