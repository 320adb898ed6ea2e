"""The field service domain environment (discovered by folder name): its world and its tools."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

from .data_model import FieldServiceState
from .invariants import WorldInvariants
from .tools import ContactTools, CustomerTools, PartTools, ScheduleTools

SEED_PATH = Path(__file__).with_name("seed.json")


class FieldServiceEnvironment(CustomerTools, ScheduleTools, PartTools, ContactTools, WorldInvariants):
    """A customer-facing field service desk: work orders, visits, technicians, parts on vans."""

    domain = "field_service"
    state_model = FieldServiceState
    clock_start = "2026-03-02T09:00:00-07:00"

    def default_state(self) -> dict[str, Any]:
        return json.loads(SEED_PATH.read_text(encoding="utf-8"), parse_float=Decimal)  # type: ignore[no-any-return]


__all__ = ["FieldServiceEnvironment"]
