"""The retail domain environment (discovered by folder name): its world and its tools."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

from .data_model import RetailState
from .invariants import WorldInvariants
from .tools import CustomerTools, ExchangeTools, ReturnTools, RewardTools, StoreTools

SEED_PATH = Path(__file__).with_name("seed.json")


class RetailEnvironment(CustomerTools, ReturnTools, ExchangeTools, RewardTools, StoreTools, WorldInvariants):
    """An online and in-store retailer's service and store-manager desk."""

    domain = "retail"
    state_model = RetailState
    clock_start = "2026-03-02T10:00:00-05:00"

    def default_state(self) -> dict[str, Any]:
        return json.loads(SEED_PATH.read_text(encoding="utf-8"), parse_float=Decimal)  # type: ignore[no-any-return]


__all__ = ["RetailEnvironment"]
