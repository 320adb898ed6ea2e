"""The sales domain environment (discovered by folder name): its world and its tools.

The tools live in ``tools/``, one mixin per area over ``tools/base.py``; ``data_model.py`` is the
state model every state passes; ``invariants.py`` the world rules.
"""

from __future__ import annotations

from .conduct import CONDUCT
from .data_model import SalesState
from .invariants import WorldInvariants
from .tools import LeadTools, MeetingTools, PipelineTools


class SalesEnvironment(LeadTools, MeetingTools, PipelineTools, WorldInvariants):
    """A sales development desk: leads, duplicates, qualification, conversion, meetings, stages."""

    domain = "sales"
    state_model = SalesState
    conduct = CONDUCT


__all__ = ["SalesEnvironment"]
