"""The customer-support domain environment (discovered by folder name): its world and its tools.

The tools live in ``tools/``, one mixin per area, over the shared rules of ``tools/base.py``;
``data_model.py`` is the state model every state passes; ``invariants.py`` the world rules.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

from .data_model import SupportState
from .invariants import WorldInvariants
from .tools import AccountTools, BillingTools, CaseTools, ServiceTools

SEED_PATH = Path(__file__).with_name("seed.json")


class CustomerSupportEnvironment(AccountTools, CaseTools, BillingTools, ServiceTools, WorldInvariants):
    """A telecom and internet provider's support desk: cases, SLAs, escalation, billing, outages."""

    domain = "customer_support"
    state_model = SupportState

    def default_state(self) -> dict[str, Any]:
        return json.loads(SEED_PATH.read_text(encoding="utf-8"), parse_float=Decimal)  # type: ignore[no-any-return]


__all__ = ["CustomerSupportEnvironment"]
