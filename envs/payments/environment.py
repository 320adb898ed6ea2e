"""The payments domain environment (discovered by folder name): its world and its tools.

The tools live in ``tools/``, one mixin per area, over the shared rules of ``tools/base.py``;
``data_model.py`` is the state model every state passes; ``invariants.py`` the world rules.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

from .data_model import PaymentsState
from .invariants import WorldInvariants
from .tools import AccountTools, CheckoutTools, HistoryTools, MethodTools, RefundTools, TransferTools

SEED_PATH = Path(__file__).with_name("seed.json")


class PaymentsEnvironment(
    AccountTools, TransferTools, MethodTools, CheckoutTools, HistoryTools, RefundTools, WorldInvariants
):
    """Payments operations for wallet customers: balances, transfers, checkout, refunds, disputes."""

    domain = "payments"
    state_model = PaymentsState

    def default_state(self) -> dict[str, Any]:
        return json.loads(SEED_PATH.read_text(encoding="utf-8"), parse_float=Decimal)  # type: ignore[no-any-return]


__all__ = ["PaymentsEnvironment"]
