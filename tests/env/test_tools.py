"""Tool calls on the kit: kinds, argument rules as rejections, dry runs, writes the model refuses."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_crmbench import Amount, ToolEnvironment, dry_run, tool
from pytest_crmbench.core.errors import EnvironmentDefinitionError
from pytest_crmbench.env.environment import clone
from tests.env.shop import ShopEnvironment


def test_every_tool_must_declare_its_kind() -> None:
    with pytest.raises(EnvironmentDefinitionError, match=r"@tool on .*\.ping: declare the kind"):

        class Bare(ToolEnvironment):
            @tool  # type: ignore[arg-type]
            def ping(self) -> None:
                """Ping."""

    with pytest.raises(EnvironmentDefinitionError, match="declare the kind"):
        tool(kind="maybe")  # type: ignore[arg-type]


def test_a_broken_value_rule_is_a_rejection_naming_the_argument_and_changes_nothing() -> None:
    env = ShopEnvironment()
    before = clone(env.state)
    for total, message in (("0", "greater than zero"), ("1e308", "plain decimal notation"), ("2.555", "two decimal")):
        call = env.call("place_order", {"customer_id": "CUS-1", "total": total})
        assert call.status == "rejected", call
        assert call.error is not None and (call.error["code"], call.error["param"]) == ("INVALID_AMOUNT", "total")
        assert message in call.error["message"] and call.effective_arguments is None
    blank = env.call("cancel_order", {"customer_id": "CUS-1", "order_id": "ORD-1", "reason": "  "})
    assert blank.error == {
        "status": 422,
        "code": "REASON_REQUIRED",
        "message": "Say why the order is cancelled.",
        "param": "reason",
    }
    assert env.state == before


def test_a_wrong_type_is_still_a_malformed_call() -> None:
    env = ShopEnvironment()
    call = env.call("place_order", {"customer_id": "CUS-1", "total": "lots"})
    assert call.status == "error" and call.error is not None and call.error["type"] == "invalid_arguments"


def test_the_dry_run_is_its_own_read_tool_with_its_own_schema() -> None:
    spec = ShopEnvironment.tools["check_order"]
    assert (spec.kind, spec.dry_run is not None, spec.dry_run and spec.dry_run.of) == ("read", True, "place_order")
    (schema,) = ShopEnvironment.tool_schemas(["check_order"])
    assert schema["function"]["description"].startswith("Say whether the customer may place an order")
    assert set(schema["function"]["parameters"]["properties"]) == {"customer_id", "total"}
    env = ShopEnvironment()
    before = clone(env.state)
    yes = env.call("check_order", {"customer_id": "CUS-1", "total": 40})
    no = env.call("check_order", {"customer_id": "CUS-2", "total": 40})
    bad = env.call("check_order", {"customer_id": "CUS-1", "total": -1})
    assert yes.status == no.status == bad.status == "ok"
    assert yes.result == {"valid": True, "credit_after": 60}
    assert no.result == {
        "valid": False,
        "reason": "Credit exceeded",
        "code": 422,
        "error_code": "CREDIT_EXCEEDED",
        "message": "CUS-2 has 0.50 of credit.",
        "param": "total",
    }
    assert bad.result is not None and bad.result["error_code"] == "INVALID_AMOUNT"
    assert env.state == before and [c.name for c in env.trace] == ["check_order"] * 3


@settings(max_examples=80, deadline=None)
@given(
    customer=st.sampled_from(["CUS-1", "CUS-2", "CUS-3"]),
    total=st.one_of(st.decimals(-5, 150, places=3).map(str), st.integers(-5, 150)),
)
def test_the_dry_run_agrees_with_the_write_it_mirrors(customer: str, total: Any) -> None:
    env = ShopEnvironment()
    answer = env.call("check_order", {"customer_id": customer, "total": total})
    placed = env.call("place_order", {"customer_id": customer, "total": total})
    assert answer.status == "ok" and answer.result is not None
    assert answer.result["valid"] == (placed.status == "ok")
    if placed.status == "rejected":
        assert placed.error is not None and placed.error["code"] == answer.result["error_code"]


def test_a_dry_run_must_mirror_a_write_tool_with_the_same_arguments() -> None:
    with pytest.raises(EnvironmentDefinitionError, match="mirrors 'nope', which is not a write tool"):

        class NoTarget(ToolEnvironment):
            domain = "kit_bad_dry_run"

            @dry_run("check_nope", of="nope")
            def check(self, n: int) -> None:
                """Check."""

    with pytest.raises(EnvironmentDefinitionError, match="argument 'total' must also be an argument of 'pay'"):

        class Mismatch(ToolEnvironment):
            domain = "kit_bad_dry_run"

            @dry_run("check_pay", of="pay")
            def check(self, total: int) -> None:
                """Check."""

            @tool(kind="write")
            def pay(self, total: Amount) -> None:
                """Pay."""


def test_a_write_that_leaves_a_state_the_model_refuses_is_an_error_and_rolled_back() -> None:
    env = ShopEnvironment()
    before = clone(env.state)
    call = env.call("corrupt", {"value": "a lot"})
    assert call.status == "error" and call.error is not None
    assert call.error["type"] == "internal_error" and "state.customers.CUS-1.credit" in call.error["message"]
    assert env.state == before


def test_writes_keep_the_state_canonical() -> None:
    env = ShopEnvironment(seed=3)
    env.call("place_order", {"customer_id": "CUS-1", "total": "20", "note": "gift"})
    env.call("rename", {"customer_id": "CUS-2", "name": "  Alan T. "})
    assert env.state["customers"]["CUS-1"]["credit"].as_tuple().exponent == -2
    assert env.state["customers"]["CUS-2"]["name"] == "Alan T."
    assert [e["text"] for e in env.state["events"]] == [
        f"placed {next(o for o in env.state['orders'] if o != 'ORD-1')}"
    ]
