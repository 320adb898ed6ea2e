"""Properties over random operation sequences (hypothesis): every world invariant keeps holding,
rejections change nothing, the chain never skips a step, and a hold never leaks its reason."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_crmbench.env.environment import clone
from pytest_crmbench.env.state import identical

from .helpers import make

APPS = [f"APP-2025-0{n}" for n in range(193, 204)] + ["APP-2025-0999"]
STEPS = ["created", "configured", "verified", "live"]
PRODUCTS = ["payments_api", "invoicing", "payouts", "card_issuing"]
PEOPLE = [
    "Nadia Rahman",
    "Tomas Ruiz",
    "Priya Shah",
    "Mateo Alvarez",
    "Lucia Alvarez",
    "Samuel Osei",
    "Viktor Lang",
    "Isabel Moreno",
    "Kai Nakamura",
    "Rosa Diaz",
    "Marcus Webb",
    "Grace Kim",
    "Aaron Patel",
    "Leo Grant",
]
OWNER = st.fixed_dictionaries(
    {"name": st.sampled_from(PEOPLE), "percent": st.sampled_from([10, 15, 25, 30, 35, 40, 45, 50, 60, 70])}
)


@st.composite
def calls(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    app = draw(st.sampled_from(APPS))
    tool = draw(
        st.sampled_from(
            [
                "configure_products",
                "submit_kyb",
                "finalize_onboarding",
                "add_user",
                "change_user_role",
                "remove_user",
                "request_document",
                "delete_application",
                "update_profile",
                "get_application",
            ]
        )
    )
    args: dict[str, Any] = {"application_id": app}
    if tool == "configure_products":
        args["products"] = draw(st.lists(st.sampled_from(PRODUCTS), max_size=3))
    elif tool == "submit_kyb":
        args["owners"] = draw(st.lists(OWNER, max_size=4))
        args["controller_name"] = draw(st.sampled_from(PEOPLE))
    elif tool == "add_user":
        name = draw(st.sampled_from(PEOPLE))
        args |= {
            "name": name,
            "email": f"{name.split()[0].lower()}@x.com",
            "role": draw(st.sampled_from(["admin", "viewer"])),
        }
    elif tool in ("change_user_role", "remove_user"):
        args["user_id"] = f"USR-{draw(st.integers(3101, 3113))}"
        if tool == "change_user_role":
            args["role"] = draw(st.sampled_from(["admin", "developer", "viewer"]))
    elif tool == "request_document":
        args |= {"doc_type": draw(st.sampled_from(["proof_of_address", "bank_statement"])), "note": "please upload"}
    elif tool == "update_profile":
        args["language"] = draw(st.sampled_from(["es", "fr", "it"]))
    return tool, args


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(calls(), min_size=1, max_size=25))
def test_random_sequences_keep_the_world_consistent(sequence: list[tuple[str, dict[str, Any]]]) -> None:
    env = make()
    for tool, args in sequence:
        before = clone(env.state)
        steps_before = {a: r["step"] for a, r in before["applications"].items()}
        call = env.call(tool, args)
        if call.status != "ok":
            assert identical(env.state, before), (tool, args, call.error)  # a refusal changes nothing
            continue
        assert env.violations() == [], (tool, args)
        for app_id, app in env.state["applications"].items():
            # one call moves an application at most one step forward, never back
            gained = STEPS.index(app["step"]) - STEPS.index(steps_before[app_id])
            assert gained in (0, 1), (tool, args, steps_before[app_id], app["step"])
        shown = str(call.result)
        assert "watch" not in shown and "hold_reason" not in shown
