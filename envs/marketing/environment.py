"""The marketing domain environment (discovered by folder name): its world and its tools.

The tools live in ``tools/``, one mixin per area over ``tools/base.py``; ``data_model.py`` is the
state model every state passes; ``invariants.py`` the world rules.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

from .data_model import MarketingState
from .invariants import WorldInvariants
from .tools import AudienceTools, CampaignTools, SendTools

SEED_PATH = Path(__file__).with_name("seed.json")


class MarketingEnvironment(AudienceTools, CampaignTools, SendTools, WorldInvariants):
    """Email marketing operations: contacts and consent, segments, campaigns, budgets, sends and A/B results."""

    domain = "marketing"
    state_model = MarketingState

    def default_state(self) -> dict[str, Any]:
        return json.loads(SEED_PATH.read_text(encoding="utf-8"), parse_float=Decimal)  # type: ignore[no-any-return]


__all__ = ["MarketingEnvironment"]
