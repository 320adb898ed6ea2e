"""Numbers and stamps come from the counters and the clock: identical runs give identical worlds."""

from __future__ import annotations

from .helpers import make, ok


def run(seed: int) -> dict[str, object]:
    env = make(seed=seed)
    ok(env, "create_incident", caller_id="EMP-1001", short_description="x", impact=3, urgency=2)
    ok(env, "add_work_note", record_id="INC0010041", text="note")
    ok(
        env,
        "submit_request",
        requested_by="EMP-1008",
        requested_for="EMP-1008",
        item_id="CAT-HEADSET",
        justification="x",
    )
    return env.state


def test_same_seed_same_world() -> None:
    assert run(3) == run(3)


def test_record_numbers_do_not_depend_on_the_seed() -> None:
    """ServiceNow numbers are sequential: only the random suffixes of journal ids follow the seed."""
    one, two = run(1), run(2)
    assert set(one["incidents"]) == set(two["incidents"])  # type: ignore[call-overload]
    assert set(one["request_items"]) == set(two["request_items"])  # type: ignore[call-overload]
