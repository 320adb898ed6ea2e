"""Ids and stamps come from the seed: the same seed gives the same world, another seed other ids."""

from __future__ import annotations

from typing import Any

from .helpers import make, ok


def run(seed: int) -> dict[str, Any]:
    env = make(seed=seed)
    booked = ok(
        env,
        "book_appointment",
        account_id="ACC-5001",
        work_order_id="WO-00041207",
        technician_id="SR-101",
        start="2026-03-05T12:00:00-07:00",
    )
    ok(env, "notify_customer", account_id="ACC-5001", appointment_id=booked["appointment_id"])
    ok(env, "transfer_to_dispatcher", account_id="ACC-5001", summary="question about the bill")
    return env.state


def test_the_same_seed_gives_the_same_world() -> None:
    assert run(7) == run(7)


def test_another_seed_gives_other_generated_ids() -> None:
    first, second = run(1), run(2)
    assert set(first["appointments"]) != set(second["appointments"])
    assert first["settings"] == second["settings"]
