"""The onboarding domain environment (discovered by folder name): its world and its tools."""

from __future__ import annotations

from .conduct import CONDUCT
from .data_model import OnboardingState
from .invariants import WorldInvariants


class OnboardingEnvironment(WorldInvariants):
    """Onboarding of business customers: application, products and users, KYB, go-live."""

    domain = "onboarding"
    state_model = OnboardingState
    conduct = CONDUCT


__all__ = ["OnboardingEnvironment"]
