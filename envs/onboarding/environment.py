"""The onboarding domain environment (discovered by folder name): its world and its tools."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

from .data_model import OnboardingState
from .invariants import WorldInvariants

SEED_PATH = Path(__file__).with_name("seed.json")


class OnboardingEnvironment(WorldInvariants):
    """Onboarding of business customers: application, products and users, KYB, go-live."""

    domain = "onboarding"
    state_model = OnboardingState

    def default_state(self) -> dict[str, Any]:
        return json.loads(SEED_PATH.read_text(encoding="utf-8"), parse_float=Decimal)  # type: ignore[no-any-return]


__all__ = ["OnboardingEnvironment"]
