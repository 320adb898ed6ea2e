"""The payments domain environment (discovered by folder name): its world and its tools.

The tools live in ``tools/``, one mixin per area, over the shared rules of ``tools/base.py``;
``data_model.py`` is the state model every state passes; ``invariants.py`` the world rules.
"""

from __future__ import annotations

from .conduct import CONDUCT
from .data_model import PaymentsState
from .invariants import WorldInvariants
from .tools import AccountTools, CheckoutTools, HistoryTools, MethodTools, RefundTools, TransferTools


class PaymentsEnvironment(
    AccountTools, TransferTools, MethodTools, CheckoutTools, HistoryTools, RefundTools, WorldInvariants
):
    """Payments operations for wallet customers: balances, transfers, checkout, refunds, disputes."""

    domain = "payments"
    state_model = PaymentsState
    conduct = CONDUCT


__all__ = ["PaymentsEnvironment"]
