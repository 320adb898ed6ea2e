"""The bank domain: what the registry imports (exactly one ToolEnvironment with domain = "bank")."""

from __future__ import annotations

from .data_model import BankState
from .tools import BankTools


class BankEnvironment(BankTools):
    domain = "bank"
    state_model = BankState
