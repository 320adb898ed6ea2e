"""The state model: records, the canonical tree, revalidation after a write, precise errors."""

from __future__ import annotations

import shutil
import subprocess
import sys
from decimal import Decimal
from pathlib import Path
from typing import Annotated, Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, Field

from pytest_crmbench import Record, Ref, StateError, Violation
from pytest_crmbench.cli.main import main
from pytest_crmbench.core.errors import EnvironmentDefinitionError
from pytest_crmbench.env.environment import clone
from pytest_crmbench.env.state import (
    canonical,
    collection,
    collections_of,
    identical,
    references_of,
    revalidated,
)
from tests.env.shop import SEED, Customer, Event, Note, Order, ShopEnvironment, ShopState


def test_records_know_their_id_field_noun_and_prefix() -> None:
    assert (Customer.id_field, Customer.noun, Customer.id_prefix) == ("customer_id", "customer", "CUS")
    assert (Event.id_field, Note.id_field) == ("event_id", None)  # declared; no id at all

    class PaymentMethod(Record):
        payment_method_id: str

    assert (PaymentMethod.id_field, PaymentMethod.noun) == ("payment_method_id", "payment method")


def test_the_state_model_lists_its_collections() -> None:
    found = {(c.name, c.record, c.keyed) for c in collections_of(ShopState)}
    assert found == {
        ("customers", Customer, True),
        ("orders", Order, True),
        ("events", Event, False),
        ("notes", Note, False),
    }
    with pytest.raises(EnvironmentDefinitionError, match="open_for_business is not a collection"):
        collection(ShopState, "open_for_business")


def test_refs_are_found_through_options_lists_dicts_and_nested_models() -> None:
    CustomerId = Annotated[str, Ref("customers")]

    class Tag(BaseModel):
        by: CustomerId | None = None

    class Ticket(Record):
        ticket_id: str
        opened_by: CustomerId
        cc: list[CustomerId] = Field(default_factory=list)
        seen: Annotated[list[str], Ref("customers")] = Field(default_factory=list)
        votes: dict[CustomerId, int] = Field(default_factory=dict)
        tags: dict[str, Tag] = Field(default_factory=dict)

    class Desk(BaseModel):
        customers: dict[str, Customer]
        tickets: dict[str, Ticket]
        log: list[Ticket]
        on_duty: CustomerId | None = None

    assert [str(ref) for ref in references_of(Desk)] == [
        "tickets.{value}.opened_by",
        "tickets.{value}.cc.[i]",
        "tickets.{value}.seen.[i]",
        "tickets.{value}.votes.{key}",
        "tickets.{value}.tags.{value}.by",
        "log.[i].opened_by",
        "log.[i].cc.[i]",
        "log.[i].seen.[i]",
        "log.[i].votes.{key}",
        "log.[i].tags.{value}.by",
        "on_duty",
    ]
    assert {ref.collection for ref in references_of(Desk)} == {"customers"}
    assert references_of(ShopState)[0].collection == "customers"


def test_a_ref_changes_neither_validation_nor_the_json_schema() -> None:
    class Plain(Record):
        order_id: str
        customer_id: str | None = None
        cc: list[str] = Field(default_factory=list)

    class Marked(Record):
        order_id: str
        customer_id: Annotated[str, Ref("customers")] | None = None
        cc: list[Annotated[str, Ref("customers")]] = Field(default_factory=list)

    schema = Marked.model_json_schema()
    schema["title"] = "Plain"
    assert schema == Plain.model_json_schema()
    assert Marked.model_validate({"order_id": "O", "cc": ["X"]}).cc == ["X"]


def test_a_misplaced_ref_is_a_definition_error() -> None:
    class Stray(Record):
        order_id: str
        customer_id: Annotated[str, Ref("clients")]
        amount: Annotated[int, Ref("customers")] = 0

    class ToNowhere(BaseModel):
        customers: dict[str, Customer]
        orders: dict[str, Stray]

    with pytest.raises(EnvironmentDefinitionError, match=r"orders\.\{value\}\.amount: Ref\('customers'\) is on"):
        references_of(ToNowhere)

    class Unknown(Record):
        order_id: str
        customer_id: Annotated[str, Ref("clients")]

    class ToUnknown(BaseModel):
        customers: dict[str, Customer]
        events: list[Event]
        orders: dict[str, Unknown]
        last: Annotated[str, Ref("events")] = ""

    with pytest.raises(
        EnvironmentDefinitionError, match=r"ToUnknown\.orders\.\{value\}\.customer_id: Ref\('clients'\)"
    ):
        references_of(ToUnknown)


def test_canonical_coerces_and_fills_every_field() -> None:
    state = canonical(ShopState, SEED)
    assert state["customers"]["CUS-2"]["credit"] == Decimal("0.50")
    assert state["orders"]["ORD-1"] == {
        "order_id": "ORD-1",
        "customer_id": "CUS-1",
        "total": Decimal("30.00"),
        "status": "open",
        "placed_at": "2026-02-20T10:00:00+00:00",
        "due_on": None,
    }
    assert state["open_for_business"] is True
    assert identical(canonical(ShopState, state), state)  # canonical is a fixed point


def test_every_refused_field_is_named_by_its_path() -> None:
    broken = clone(SEED)
    broken["customers"]["CUS-1"]["credit"] = "1.005"
    broken["orders"]["ORD-1"]["status"] = "lost"
    broken["orders"]["ORD-1"]["colour"] = "red"
    with pytest.raises(StateError) as caught:
        canonical(ShopState, broken, where="initial_state")
    paths = [path for path, _ in caught.value.problems]
    assert paths == ["customers.CUS-1.credit", "orders.ORD-1.status", "orders.ORD-1.colour"]
    assert "initial_state.customers.CUS-1.credit: Amount cannot have more than two decimal places" in str(caught.value)


def test_identical_tells_types_apart_where_equality_does_not() -> None:
    assert Decimal("0.00") == 0 and not identical(0, Decimal("0.00"))
    assert not identical(Decimal("1.0"), Decimal("1.00"))
    assert not identical(1, 1.0) and not identical(True, 1)
    assert identical({"a": [Decimal("1.00"), None]}, {"a": [Decimal("1.00"), None]})


def mutated(change: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    before = canonical(ShopState, SEED)
    after = clone(before)
    change(after)
    return before, after


@pytest.mark.parametrize(
    "change",
    [
        lambda s: s["customers"]["CUS-1"].update(credit=Decimal("70")),
        lambda s: s["customers"]["CUS-1"].update(credit=70),
        lambda s: s["orders"].update(
            {
                "ORD-2": {
                    "order_id": "ORD-2",
                    "customer_id": "CUS-2",
                    "total": "1.5",
                    "placed_at": "2026-03-01T00:00:00+00:00",
                }
            }
        ),
        lambda s: s["events"].append({"event_id": "EVT-1", "text": "x"}),
        lambda s: s.update(open_for_business=False),
        lambda s: s["orders"].pop("ORD-1"),
    ],
    ids=["unquantised", "int-for-money", "new-record-with-defaults", "appended", "scalar-field", "deleted"],
)
def test_revalidation_after_a_write_equals_a_full_canonical_dump(change: Any) -> None:
    before, after = mutated(change)
    expected = canonical(ShopState, clone(after))
    assert identical(revalidated(ShopState, after, before), expected)


def test_a_write_the_model_refuses_names_the_changed_record() -> None:
    before, after = mutated(lambda s: s["orders"]["ORD-1"].update(total=0))
    with pytest.raises(StateError, match=r"state\.orders\.ORD-1\.total"):
        revalidated(ShopState, after, before)
    before, after = mutated(lambda s: s.update(surprise=1))  # a key the model does not have
    with pytest.raises(StateError, match="surprise"):
        revalidated(ShopState, after, before)


def test_a_model_without_collections_is_still_a_state_model() -> None:
    class Flat(BaseModel):
        counter: int

    assert collections_of(Flat) == ()
    assert revalidated(Flat, {"counter": "3"}, {"counter": 2}) == {"counter": 3}


SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**15), 10**15),
    st.floats(allow_nan=True, allow_infinity=True),
    st.decimals(allow_nan=False, allow_infinity=False, places=3),
    st.sampled_from(
        ["", "CUS-1", "ORD-1", "open", "paid", "12.50", "1e308", "2026-02-30", "2026-03-01T00:00:00+00:00"]
    ),
)
KEYS = st.sampled_from(
    [
        "customers",
        "orders",
        "events",
        "notes",
        "CUS-1",
        "CUS-2",
        "ORD-1",
        "ORD-9",
        "credit",
        "total",
        "status",
        "customer_id",
        "order_id",
        "placed_at",
        "name",
        "text",
        "x",
    ]
)
TREES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(KEYS, inner, max_size=4)),
    max_leaves=12,
)


VALUES = {
    "credit": st.one_of(st.decimals(-5, 500, places=2), st.sampled_from(["12.5", "1e3", "0.001", 7])),
    "total": st.one_of(st.decimals(-5, 500, places=2), st.just("30")),
    "status": st.sampled_from(["open", "paid", "cancelled", "lost"]),
    "customer_id": st.sampled_from(["CUS-1", "CUS-2", "CUS-404"]),
    "name": st.text(max_size=5),
}
FIELD_OVERRIDES = st.one_of(
    st.builds(
        lambda cid, fields: {"customers": {cid: fields}},
        st.sampled_from(["CUS-1", "CUS-2"]),
        st.fixed_dictionaries({}, optional={k: VALUES[k] for k in ("credit", "name")}),
    ),
    st.builds(
        lambda fields: {"orders": {"ORD-1": fields}},
        st.fixed_dictionaries({}, optional={k: VALUES[k] for k in ("total", "status", "customer_id")}),
    ),
)


@settings(max_examples=300, deadline=None)
@given(override=st.one_of(st.dictionaries(KEYS, TREES, max_size=3), FIELD_OVERRIDES))
def test_any_override_resets_cleanly_or_is_refused_with_paths(override: dict[str, Any]) -> None:
    """Whatever a task author writes, a reset either builds a canonical world whose invariants can
    be checked, or raises StateError naming fields: never another exception."""
    try:
        env = ShopEnvironment(override)
    except StateError as exc:
        assert exc.problems and all(isinstance(path, str) and message for path, message in exc.problems)
        return
    assert identical(canonical(ShopState, env.state), env.state)
    assert all(isinstance(v, Violation) for v in env.violations())


def test_the_gate_and_pytest_agree_on_a_domain_with_an_unvalidated_default(tmp_path: Path) -> None:
    # Record validates defaults, so `Field(default=0)` on Money is stored as Decimal("0.00"): the
    # gate passes and so does pytest (whose filterwarnings=error once failed on the raw int 0).
    example = Path(__file__).parents[2] / "docs" / "example"
    shutil.copytree(example, tmp_path, dirs_exist_ok=True)
    model = tmp_path / "envs" / "bank" / "data_model.py"
    source = model.read_text(encoding="utf-8")
    field = "    balance: Money = Field(ge=0)\n"
    assert field in source
    model.write_text(source.replace(field, field + "    fees_due: Money = Field(default=0, ge=0)\n"), encoding="utf-8")
    dirs = ["--tasks", str(tmp_path / "tasks"), "--envs", str(tmp_path / "envs"), "--agents", str(tmp_path / "agents")]
    dirs += ["--cache-dir", str(tmp_path / ".crmbench-cache")]  # the copy's own, never the checkout's
    assert main(["validate", "--gold", "--write-lock", *dirs]) == 0
    assert main(["validate", "--gold", *dirs]) == 0
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "tasks/bank.yaml",
            "-W",
            "error",
            "-p",
            "no:randomly",
            "-p",
            "no:cacheprovider",
            "-q",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "4 passed" in run.stdout
