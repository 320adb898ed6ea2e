"""Rules every onboarding world keeps: the seed, every task's initial state, and every state the
tools reach (``crmbench validate`` checks the first two; ``tests/envs/onboarding`` the third)."""

from __future__ import annotations

from collections.abc import Iterator

from pytest_crmbench import Violation, invariant

from .data_model import REQUIRED_DOCUMENTS, STEPS
from .tools import OnboardingTools


class WorldInvariants(OnboardingTools):
    @invariant
    def one_application_per_business(self) -> Iterator[Violation]:
        """EINs and contact emails are unique; every EIN is in the registry."""
        seen: dict[str, str] = {}
        for app_id, app in self.state["applications"].items():
            if app["tax_id"] not in self.state["registry"]:
                yield Violation(f"applications.{app_id}.tax_id", "is not in the registry")
            for key in (app["tax_id"], app["contact_email"].casefold()):
                if key in seen:
                    yield Violation(f"applications.{app_id}", f"shares {key} with {seen[key]}")
                seen[key] = app_id

    @invariant
    def chain_is_consistent(self) -> Iterator[Violation]:
        """A step implies every earlier step passed: configured has products; verified and live have
        a passed KYB check and the required documents; live has an admin; on hold has a held check."""
        checks = self.state["kyb_checks"]
        for app_id, app in self.state["applications"].items():
            path = f"applications.{app_id}"
            rank = STEPS.index(app["step"])
            check = checks.get(app["kyb_check_id"] or "")
            if app["kyb_check_id"] is not None and (check is None or check["application_id"] != app_id):
                yield Violation(f"{path}.kyb_check_id", "is not a KYB check of this application")
            if rank >= 1 and not app["products"]:
                yield Violation(f"{path}.products", f"is empty at step {app['step']}")
            if rank >= 2:
                if check is None or check["status"] != "passed":
                    yield Violation(f"{path}.kyb_check_id", f"has no passed KYB check at step {app['step']}")
                missing = [d for d in REQUIRED_DOCUMENTS if d not in self.accepted_documents(app_id)]
                if missing:
                    yield Violation(f"{path}.step", f"is {app['step']} without accepted {', '.join(missing)}")
            live = app["step"] == "live"
            if live != (app["status"] == "live") or live != (app["live_on"] is not None):
                yield Violation(f"{path}.status", "is live exactly when the step is live and live_on is set")
            if live and not any(u["role"] == "admin" for u in self.owned(app_id)):
                yield Violation(f"{path}.step", "is live without an admin user")
            if (app["status"] == "on_hold") != (check is not None and check["status"] == "hold"):
                yield Violation(f"{path}.status", "is on_hold exactly when its latest KYB check is on hold")
            if app["status"] == "on_hold" and app["step"] != "configured":
                yield Violation(f"{path}.step", "an application on hold stays configured")
