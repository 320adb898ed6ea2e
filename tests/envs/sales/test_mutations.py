"""The sales audit hints: the second-meeting forbidden move picks an hour the host has free."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from envs.sales.mutations import _free_hour

SEED = Path(__file__).parents[3] / "envs" / "sales" / "seed.json"


def marcus_on(day: str) -> list[dict[str, Any]]:
    events = json.loads(SEED.read_text())["events"].values()
    return [e for e in events if e["rep_id"] == "REP-103" and e["start"].startswith(f"{day}T")]


def test_free_hour_skips_every_hour_an_event_touches() -> None:
    # Thursday: QBR prep 09:00-11:00, so the first free full hour is 11:00
    assert _free_hour(marcus_on("2026-03-05")) == "11:00"
    # a 30-minute event blocks its whole hour
    half = [{"start": "2026-03-06T09:00:00-05:00", "duration_minutes": 30}]
    assert _free_hour(half) == "10:00"


def test_free_hour_is_none_when_the_day_is_full() -> None:
    full = [{"start": "2026-03-06T09:00:00-05:00", "duration_minutes": 480}]
    assert _free_hour(full) is None
