"""The sales tools, one mixin per area; ``environment.py`` combines them in this order."""

from .leads import LeadTools
from .meetings import MeetingTools
from .pipeline import PipelineTools

__all__ = ["LeadTools", "MeetingTools", "PipelineTools"]
