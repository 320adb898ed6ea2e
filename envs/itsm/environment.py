"""The itsm domain environment (discovered by folder name): an IT service desk on ServiceNow's model.

The tools live in ``tools/``, one mixin per area, over the shared rules of ``tools/base.py``;
``data_model.py`` is the state model every state passes; ``invariants.py`` the world rules.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

from .data_model import ItsmState
from .invariants import WorldInvariants
from .tools import ChangeTools, CmdbTools, IncidentTools, PeopleTools, ProblemTools, RequestTools

SEED_PATH = Path(__file__).with_name("seed.json")


class ItsmEnvironment(PeopleTools, IncidentTools, ProblemTools, RequestTools, ChangeTools, CmdbTools, WorldInvariants):
    """An IT service desk: incidents, problems, catalog and access requests, changes, the CMDB."""

    domain = "itsm"
    state_model = ItsmState

    def default_state(self) -> dict[str, Any]:
        return json.loads(SEED_PATH.read_text(encoding="utf-8"), parse_float=Decimal)  # type: ignore[no-any-return]


__all__ = ["ItsmEnvironment"]
