"""Ids and stamps come from the seed: the same seed gives the same world, another seed other ids."""

from __future__ import annotations

from typing import Any

from .helpers import make, ok


def run(seed: int) -> dict[str, Any]:
    env = make(seed=seed)
    ok(
        env,
        "cancel_booking",
        traveller_id="TRV-20417",
        locator="P8NW3C",
        refund_amount="237.40",
        refund_to="travel_credit",
    )
    ok(env, "issue_compensation", traveller_id="TRV-20417", locator="K7Q2ZD", amount="400.00")
    ok(env, "transfer_to_agent", traveller_id="TRV-20417", summary="lost bag claim")
    return env.state


def test_the_same_seed_gives_the_same_world() -> None:
    assert run(7) == run(7)


def test_another_seed_gives_other_generated_ids() -> None:
    first, second = run(1), run(2)
    assert set(first["credits"]) != set(second["credits"])
    assert first["bookings"] == second["bookings"]
