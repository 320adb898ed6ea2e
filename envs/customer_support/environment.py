"""The customer-support domain environment (discovered by folder name): its world and its tools.

The tools live in ``tools/``, one mixin per area, over the shared rules of ``tools/base.py``;
``data_model.py`` is the state model every state passes; ``invariants.py`` the world rules.
"""

from __future__ import annotations

from .conduct import CONDUCT
from .data_model import SupportState
from .invariants import WorldInvariants
from .tools import AccountTools, BillingTools, CaseTools, ServiceTools


class CustomerSupportEnvironment(AccountTools, CaseTools, BillingTools, ServiceTools, WorldInvariants):
    """A telecom and internet provider's support desk: cases, SLAs, escalation, billing, outages."""

    domain = "customer_support"
    state_model = SupportState
    conduct = CONDUCT


__all__ = ["CustomerSupportEnvironment"]
