"""The field service domain environment (discovered by folder name): its world and its tools."""

from __future__ import annotations

from .conduct import CONDUCT
from .data_model import FieldServiceState
from .invariants import WorldInvariants
from .tools import ContactTools, CustomerTools, PartTools, ScheduleTools


class FieldServiceEnvironment(CustomerTools, ScheduleTools, PartTools, ContactTools, WorldInvariants):
    """A customer-facing field service desk: work orders, visits, technicians, parts on vans."""

    domain = "field_service"
    state_model = FieldServiceState
    clock_start = "2026-03-02T09:00:00-07:00"
    conduct = CONDUCT


__all__ = ["FieldServiceEnvironment"]
