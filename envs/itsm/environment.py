"""The itsm domain environment (discovered by folder name): an IT service desk on ServiceNow's model.

The tools live in ``tools/``, one mixin per area, over the shared rules of ``tools/base.py``;
``data_model.py`` is the state model every state passes; ``invariants.py`` the world rules.
"""

from __future__ import annotations

from .conduct import CONDUCT
from .data_model import ItsmState
from .invariants import WorldInvariants
from .tools import ChangeTools, CmdbTools, IncidentTools, PeopleTools, ProblemTools, RequestTools


class ItsmEnvironment(PeopleTools, IncidentTools, ProblemTools, RequestTools, ChangeTools, CmdbTools, WorldInvariants):
    """An IT service desk: incidents, problems, catalog and access requests, changes, the CMDB."""

    domain = "itsm"
    state_model = ItsmState
    conduct = CONDUCT


__all__ = ["ItsmEnvironment"]
