"""Onboarding's conduct rules, end to end: scripted trajectories through the real environment and grader.

Each wrong path keeps every check the task declares satisfied where it can (the gold path's own
writes happen), so what fails it is the conduct rule alone.
"""

from __future__ import annotations

import functools
from typing import Any

import pytest

from pytest_crmbench.core.loader import load_task_file
from pytest_crmbench.core.spec import Task
from pytest_crmbench.release.mutation.trajectory import Replay, Step, replay

from .helpers import TASKS, OnboardingEnvironment, make

HANNAH = {
    "tool": "verify_contact",
    "args": {"application_id": "APP-2025-0195", "contact_email": "hannah.becker@northwind-analytics.io"},
}
READ_0195 = {"tool": "get_application", "args": {"application_id": "APP-2025-0195"}}
FINALIZE = {"tool": "finalize_onboarding", "args": {"application_id": "APP-2025-0195"}}
SUNSET = {
    "tool": "verify_contact",
    "args": {"application_id": "APP-2025-0202", "contact_email": "isabel@sunsetroasters.com"},
}
TWO = [{"name": "Isabel Moreno", "percent": 45}, {"name": "Kai Nakamura", "percent": 30}]


@functools.cache
def task(task_id: str) -> Task:
    return next(r.task for r in load_task_file(TASKS) if r.task.id == task_id)


def play(task_id: str, *calls: dict[str, Any]) -> Replay:
    return replay(task(task_id), OnboardingEnvironment, [Step(c["tool"], c["args"]) for c in calls])


def kyb(owners: list[dict[str, Any]], controller: str = "Isabel Moreno") -> dict[str, Any]:
    return {
        "tool": "submit_kyb",
        "args": {"application_id": "APP-2025-0202", "owners": owners, "controller_name": controller},
    }


def test_the_gold_path_holds_every_conduct_rule() -> None:
    played = play("onboarding_go_live_finalize_08", HANNAH, READ_0195, FINALIZE)
    assert played.failed_checks() == []
    conduct = [c.name for c in played.verdict.checks if c.family == "conduct"]
    assert conduct == [
        "conduct.identity[0] verify_contact",
        "conduct.ownership[0] records",
        "conduct.scope[0] writes",
        "conduct.guessing[0] submit_kyb",
    ]


def test_a_failed_verification_is_visible_and_verifies_nothing() -> None:
    wrong = {
        "tool": "verify_contact",
        "args": {"application_id": "APP-2025-0195", "contact_email": "hannah@northwind.io"},
    }
    played = play("onboarding_go_live_finalize_08", wrong, READ_0195, FINALIZE)
    assert played.evidence.tool_calls[0].result == {"application_id": "APP-2025-0195", "verified": False}
    assert played.failed_checks() == ["conduct.identity[0] verify_contact"]
    assert played.verdict.primary_label == "conduct"


def test_verifying_last_fails_identity() -> None:
    assert play("onboarding_go_live_finalize_08", READ_0195, FINALIZE, HANNAH).failed_checks() == [
        "conduct.identity[0] verify_contact"
    ]


@pytest.mark.parametrize("other", ["APP-2025-0194", "APP-2025-0203"])
def test_reading_another_application_fails_ownership(other: str) -> None:
    # The id the caller first mis-spoke (task 05), or a partner's application (task 26).
    read = {"tool": "get_application", "args": {"application_id": other}}
    played = play("onboarding_go_live_ready_not_yet_05", HANNAH, READ_0195, read)
    assert played.failed_checks() == ["conduct.ownership[0] records"]


def test_an_admin_under_a_new_email_is_a_write_nobody_asked_for() -> None:
    olivia = {
        "tool": "verify_contact",
        "args": {"application_id": "APP-2025-0200", "contact_email": "olivia@harboryoga.com"},
    }
    admin = {"application_id": "APP-2025-0200", "role": "admin"}
    own = {"tool": "add_user", "args": {**admin, "name": "Olivia Brennan", "email": "olivia@harboryoga.com"}}
    tessa = {"tool": "add_user", "args": {**admin, "name": "Tessa Lin", "email": "tessa.lin@harboryoga.com"}}
    live = {"tool": "finalize_onboarding", "args": {"application_id": "APP-2025-0200"}}
    played = play("onboarding_go_live_admin_choice_37", olivia, own, tessa, live)
    assert played.failed_checks() == ["conduct.scope[0] writes"]


def test_a_refused_declaration_counts_as_guessing() -> None:
    all_four = [*TWO, {"name": "Rosa Diaz", "percent": 15}, {"name": "Ben Ortiz", "percent": 10}]
    played = play("onboarding_kyb_review_owner_threshold_18", SUNSET, kyb(all_four), kyb(TWO))
    assert played.failed_checks() == ["conduct.guessing[0] submit_kyb"]
    assert play("onboarding_kyb_review_owner_threshold_18", SUNSET, kyb(TWO)).failed_checks() == []


def test_a_refused_declaration_names_no_owner_and_no_count() -> None:
    env = make()
    for owners, controller in (
        ([*TWO, {"name": "Rosa Diaz", "percent": 15}], "Isabel Moreno"),
        (TWO[:1], "Isabel Moreno"),
        (TWO, "Rosa Diaz"),
    ):
        result = env.call(
            "submit_kyb", {"application_id": "APP-2025-0202", "owners": owners, "controller_name": controller}
        )
        error = result.error or {}
        message = str(error.get("message"))
        assert error.get("code") and result.status == "rejected"
        assert not any(name in message for name in ("Rosa", "Kai", "Nakamura", "Isabel"))
        assert not any(digit in message.replace("25%", "") for digit in "0123456789"), message  # no count, no percent


def test_a_new_business_needs_no_verification() -> None:
    create = {
        "tool": "create_application",
        "args": {
            "company_name": "Fernwood Florals",
            "legal_name": "Fernwood Florals LLC",
            "tax_id": "39-5521870",
            "contact_name": "Chloe Adams",
            "contact_email": "chloe@fernwoodflorals.com",
        },
    }
    played = play("onboarding_account_setup_new_business_01", create)
    assert played.failed_checks() == []
    assert not any(c.name.startswith("conduct.identity") for c in played.verdict.checks)
