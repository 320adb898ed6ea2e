"""The marketing tools, one mixin per area; ``environment.py`` combines them in this order."""

from .audiences import AudienceTools
from .campaigns import CampaignTools
from .sends import SendTools

__all__ = ["AudienceTools", "CampaignTools", "SendTools"]
