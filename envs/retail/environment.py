"""The retail domain environment (discovered by folder name): its world and its tools."""

from __future__ import annotations

from .conduct import CONDUCT
from .data_model import RetailState
from .invariants import WorldInvariants
from .tools import CustomerTools, ExchangeTools, ReturnTools, RewardTools, StoreTools


class RetailEnvironment(CustomerTools, ReturnTools, ExchangeTools, RewardTools, StoreTools, WorldInvariants):
    """An online and in-store retailer's service and store-manager desk."""

    domain = "retail"
    state_model = RetailState
    clock_start = "2026-03-02T10:00:00-05:00"
    conduct = CONDUCT


__all__ = ["RetailEnvironment"]
