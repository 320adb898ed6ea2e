"""The business rules the onboarding tools enforce, each rejection with its code, and nothing changed
by a rejection."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_crmbench.env.environment import clone

from .helpers import code_of, make, ok

BRIGHTLINE = "APP-2025-0193"
OWNERS_193 = [
    {"name": "Nadia Rahman", "percent": 40},
    {"name": "Tomas Ruiz", "percent": 35},
    {"name": "Priya Shah", "percent": 25},
]
CONFIGURED_193 = {"applications": {BRIGHTLINE: {"step": "configured", "products": ["payments_api"]}}}


def kyb(
    app: str = BRIGHTLINE, owners: list[dict[str, Any]] | None = None, controller: str = "Nadia Rahman"
) -> dict[str, Any]:
    return {"application_id": app, "owners": OWNERS_193 if owners is None else owners, "controller_name": controller}


def test_verify_contact_says_only_whether_the_email_matches() -> None:
    env = make()
    assert ok(
        env, "verify_contact", application_id=BRIGHTLINE, contact_email=" Nadia.Rahman@Brightline-Logistics.com "
    )["verified"]
    answer = ok(env, "verify_contact", application_id=BRIGHTLINE, contact_email="nadia@gmail.com")
    assert answer == {"application_id": BRIGHTLINE, "verified": False}
    assert (
        code_of(env, "verify_contact", application_id="APP-2025-9999", contact_email="x@y.z") == "APPLICATION_NOT_FOUND"
    )


@pytest.mark.parametrize(
    ("tool", "args", "code"),
    [
        ("submit_kyb", kyb(), "STEP_OUT_OF_ORDER"),  # created: configure first
        ("finalize_onboarding", {"application_id": BRIGHTLINE}, "STEP_OUT_OF_ORDER"),
        ("finalize_onboarding", {"application_id": "APP-2025-0194"}, "STEP_OUT_OF_ORDER"),  # configured
        ("finalize_onboarding", {"application_id": "APP-2025-0200"}, "NO_ADMIN_USER"),
        ("finalize_onboarding", {"application_id": "APP-2025-0203"}, "KYC_HOLD"),
        ("finalize_onboarding", {"application_id": "APP-2025-0201"}, "STEP_OUT_OF_ORDER"),  # already live
        ("submit_kyb", kyb("APP-2025-0203", [{"name": "Marcus Webb", "percent": 100}], "Marcus Webb"), "KYC_HOLD"),
        ("submit_kyb", kyb("APP-2025-0195", [], "Hannah Becker"), "STEP_OUT_OF_ORDER"),  # verified already
        (
            "submit_kyb",
            kyb("APP-2025-0197", [{"name": "Grace Kim", "percent": 50}], "Grace Kim"),
            "DOCUMENTS_INCOMPLETE",
        ),
        ("configure_products", {"application_id": "APP-2025-0202", "products": ["payouts"]}, "BANK_STATEMENT_REQUIRED"),
        ("configure_products", {"application_id": "APP-2025-0201", "products": ["invoicing"]}, "APPLICATION_LIVE"),
        ("configure_products", {"application_id": BRIGHTLINE, "products": []}, "PRODUCTS_REQUIRED"),
        ("delete_application", {"application_id": "APP-2025-0198"}, "HAS_DEPENDENCIES"),
        ("delete_application", {"application_id": "APP-2025-0201"}, "APPLICATION_LIVE"),
        (
            "add_user",
            {"application_id": "APP-2025-0194", "name": "L", "email": "LUCIA@cedarandpine.com", "role": "viewer"},
            "DUPLICATE_USER",
        ),
        ("change_user_role", {"application_id": "APP-2025-0194", "user_id": "USR-3105", "role": "viewer"}, "NOT_OWNER"),
        ("remove_user", {"application_id": "APP-2025-0194", "user_id": "USR-3105"}, "NOT_OWNER"),
        (
            "change_user_role",
            {"application_id": "APP-2025-0194", "user_id": "USR-3103", "role": "viewer"},
            "ROLE_UNCHANGED",
        ),
        (
            "request_document",
            {"application_id": "APP-2025-0194", "doc_type": "proof_of_address", "note": "n"},
            "DOCUMENT_ALREADY_ACCEPTED",
        ),
        ("remove_user", {"application_id": "APP-2025-0201", "user_id": "USR-3110"}, "LAST_ADMIN"),
        (
            "change_user_role",
            {"application_id": "APP-2025-0201", "user_id": "USR-3110", "role": "viewer"},
            "LAST_ADMIN",
        ),
        ("update_profile", {"application_id": BRIGHTLINE}, "NOTHING_TO_UPDATE"),
        ("update_profile", {"application_id": BRIGHTLINE, "language": "it"}, "UNSUPPORTED_LANGUAGE"),
        ("update_profile", {"application_id": BRIGHTLINE, "timezone": "Eastern Time"}, "INVALID_TIMEZONE"),
        ("lookup_registry", {"tax_id": "00-0000000"}, "NOT_IN_REGISTRY"),
    ],
)
def test_each_rule_rejects_with_its_code_and_changes_nothing(tool: str, args: dict[str, Any], code: str) -> None:
    env = make()
    before = clone(env.state)
    assert code_of(env, tool, **args) == code
    assert env.state == before


def test_new_applications_are_unique_per_ein_and_email_and_known_to_the_registry() -> None:
    env = make()
    base = {"company_name": "X", "legal_name": "X LLC", "contact_name": "A B"}
    assert (
        code_of(env, "create_application", **base, tax_id="84-3920175", contact_email="new@x.com") == "DUPLICATE_TAX_ID"
    )
    email = "NADIA.rahman@brightline-logistics.com"
    assert code_of(env, "create_application", **base, tax_id="39-5521870", contact_email=email) == "DUPLICATE_EMAIL"
    assert (
        code_of(env, "create_application", **base, tax_id="11-1111111", contact_email="new@x.com") == "NOT_IN_REGISTRY"
    )
    created = ok(env, "create_application", **base, tax_id="39-5521870", contact_email="chloe@fernwoodflorals.com")
    app = env.state["applications"][created["application_id"]]
    assert (app["step"], app["status"], app["products"], app["created_on"]) == (
        "created",
        "in_progress",
        [],
        "2026-03-02",
    )
    assert (
        code_of(env, "create_application", **base, tax_id="39-5521870", contact_email="other@x.com")
        == "DUPLICATE_TAX_ID"
    )


@pytest.mark.parametrize(
    ("owners", "controller", "code"),
    [
        (OWNERS_193[:2], "Nadia Rahman", "MISSING_BENEFICIAL_OWNER"),  # the 25 % owner left out
        ([*OWNERS_193[:2], {"name": "Priya Shah", "percent": 20}], "Nadia Rahman", "OWNER_MISMATCH"),
        ([*OWNERS_193, {"name": "Leo Grant", "percent": 5}], "Nadia Rahman", "OWNER_MISMATCH"),
        (OWNERS_193, "Leo Grant", "CONTROLLER_NOT_AN_OFFICER"),
        (OWNERS_193, "Priya Shah", "CONTROLLER_NOT_AN_OFFICER"),  # an owner, not an officer
    ],
)
def test_kyb_needs_exactly_the_beneficial_owners_and_an_officer(
    owners: list[dict[str, Any]], controller: str, code: str
) -> None:
    env = make(CONFIGURED_193)
    assert code_of(env, "submit_kyb", **kyb(owners=owners, controller=controller)) == code
    assert env.state["kyb_checks"].keys() == make().state["kyb_checks"].keys()


def test_owners_under_the_threshold_are_not_declared() -> None:
    env = make()
    sunset = {"application_id": "APP-2025-0202", "controller_name": "Isabel Moreno"}
    all_four = [
        {"name": "Isabel Moreno", "percent": 45},
        {"name": "Kai Nakamura", "percent": 30},
        {"name": "Rosa Diaz", "percent": 15},
        {"name": "Ben Ortiz", "percent": 10},
    ]
    assert code_of(env, "submit_kyb", **sunset, owners=all_four) == "OWNER_MISMATCH"
    assert ok(env, "submit_kyb", **sunset, owners=all_four[:2])["status"] == "passed"


def test_the_whole_chain_in_order_goes_live_and_mails_the_contact() -> None:
    env = make()
    ok(env, "configure_products", application_id=BRIGHTLINE, products=["payments_api", "invoicing"])
    check = ok(env, "submit_kyb", **kyb())
    assert check["status"] == "passed" and check["step"] == "verified"
    done = ok(env, "finalize_onboarding", application_id=BRIGHTLINE)
    assert done == {"application_id": BRIGHTLINE, "step": "live", "live_on": "2026-03-02", "welcome_email": True}
    app = env.state["applications"][BRIGHTLINE]
    assert (app["status"], app["products"], app["kyb_check_id"]) == (
        "live",
        ["invoicing", "payments_api"],
        check["kyb_check_id"],
    )
    assert env.state["emails"][-1]["to"] == "nadia.rahman@brightline-logistics.com"
    assert env.state["emails"][-1]["kind"] == "welcome"
    assert env.violations() == []


def test_a_watch_list_owner_puts_the_application_on_hold_without_saying_why() -> None:
    env = make()
    owners = [{"name": "Samuel Osei", "percent": 70}, {"name": "Viktor Lang", "percent": 30}]
    result = ok(env, "submit_kyb", application_id="APP-2025-0196", owners=owners, controller_name="Samuel Osei")
    assert result["status"] == "hold" and result["step"] == "configured"
    assert "Viktor" not in str(result) and "watch" not in str(result)
    shown = ok(env, "get_application", application_id="APP-2025-0196")
    assert "watch" not in str(shown) and shown["status"] == "on_hold"
    assert env.state["kyb_checks"][result["kyb_check_id"]]["hold_reason"] == "watch-list match: Viktor Lang"
    assert "watchlist" not in str(ok(env, "lookup_registry", tax_id="91-1836620"))
    assert code_of(env, "finalize_onboarding", application_id="APP-2025-0196") == "KYC_HOLD"


def test_deleting_an_unused_application_removes_its_records_and_nothing_else() -> None:
    env = make()
    assert ok(env, "check_dependencies", application_id="APP-2025-0199")["contracts"] == 0
    assert ok(env, "check_dependencies", application_id="APP-2025-0198")["contracts"] == 2
    ok(env, "delete_application", application_id="APP-2025-0199")
    assert "APP-2025-0199" not in env.state["applications"]
    assert env.state["applications"]["APP-2025-0198"]["step"] == "configured"
    assert env.violations() == []


def test_document_requests_mail_the_contact_once() -> None:
    env = make()
    args = {"application_id": "APP-2025-0197", "doc_type": "proof_of_address", "note": "a recent utility bill"}
    doc = ok(env, "request_document", **args)
    assert env.state["documents"][doc["document_id"]]["status"] == "requested"
    assert env.state["emails"][-1] == {
        **env.state["emails"][-1],
        "to": "grace.kim@lumendental.com",
        "kind": "document_request",
    }
    assert code_of(env, "request_document", **args) == "DOCUMENT_ALREADY_REQUESTED"


def test_configuring_payouts_works_once_a_bank_statement_is_accepted() -> None:
    env = make()
    products = ["payments_api", "payouts"]
    assert ok(env, "configure_products", application_id="APP-2025-0196", products=products)["products"] == products
