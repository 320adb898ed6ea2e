"""Determinism: generated ids, timestamps and the whole state are reproducible from the seed."""

from __future__ import annotations

from pytest_crmbench.env.environment import ToolEnvironment

from .helpers import make, ok


def _script(env: ToolEnvironment) -> list[str]:
    app = ok(
        env,
        "create_application",
        company_name="Fernwood Florals",
        legal_name="Fernwood Florals LLC",
        tax_id="39-5521870",
        contact_name="Chloe Adams",
        contact_email="chloe@fernwoodflorals.com",
    )["application_id"]
    ok(env, "configure_products", application_id=app, products=["invoicing"])
    user = ok(env, "add_user", application_id=app, name="Chloe Adams", email="chloe@fernwoodflorals.com", role="admin")
    doc = ok(env, "request_document", application_id=app, doc_type="proof_of_address", note="recent utility bill")
    owners = [{"name": "Mateo Alvarez", "percent": 60}, {"name": "Lucia Alvarez", "percent": 40}]
    check = ok(env, "submit_kyb", application_id="APP-2025-0194", owners=owners, controller_name="Mateo Alvarez")
    return [app, user["user_id"], doc["document_id"], check["kyb_check_id"]]


def test_generated_ids_are_reproducible_from_the_seed() -> None:
    one, same, other = _script(make(seed=11)), _script(make(seed=11)), _script(make(seed=12))
    assert one == same
    assert one != other
    assert [i.split("-")[0] for i in one] == ["APP", "USR", "DOC", "KYC"]
    first, second = make(seed=11), make(seed=11)
    _script(first), _script(second)
    assert first.state == second.state  # timestamps come from the deterministic clock too
