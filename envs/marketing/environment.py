"""The marketing domain environment (discovered by folder name): its world and its tools.

The tools live in ``tools/``, one mixin per area over ``tools/base.py``; ``data_model.py`` is the
state model every state passes; ``invariants.py`` the world rules.
"""

from __future__ import annotations

from .conduct import CONDUCT
from .data_model import MarketingState
from .invariants import WorldInvariants
from .tools import AudienceTools, CampaignTools, SendTools


class MarketingEnvironment(AudienceTools, CampaignTools, SendTools, WorldInvariants):
    """Email marketing operations: contacts and consent, segments, campaigns, budgets, sends and A/B results."""

    domain = "marketing"
    state_model = MarketingState
    conduct = CONDUCT


__all__ = ["MarketingEnvironment"]
