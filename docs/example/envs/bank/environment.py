"""The bank domain: what the registry imports (exactly one ToolEnvironment with domain = "bank")."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

from .data_model import BankState
from .tools import BankTools

SEED = Path(__file__).with_name("seed.json")


class BankEnvironment(BankTools):
    domain = "bank"
    state_model = BankState

    def default_state(self) -> dict[str, Any]:
        return json.loads(SEED.read_text(encoding="utf-8"), parse_float=Decimal)  # type: ignore[no-any-return]
