"""Determinism: generated ids and timestamps are reproducible from the seed."""

from __future__ import annotations

from pytest_crmbench.env.environment import ToolEnvironment

from .helpers import make, ok


def _script(env: ToolEnvironment) -> list[str]:
    campaign = ok(env, "create_campaign", name="X", budget=10, start_date="2026-03-10", end_date="2026-03-11")[
        "campaign_id"
    ]
    segment = ok(env, "create_segment", name="Y", contact_ids=["CT-1004"])["segment_id"]
    email = ok(
        env,
        "create_email",
        campaign_id=campaign,
        name="Z",
        subject="S",
        kind="transactional",
        has_unsubscribe_link=False,
    )["email_id"]
    send = ok(
        env,
        "schedule_send",
        campaign_id=campaign,
        email_ids=[email],
        segment_id=segment,
        send_date="2026-03-10",
        send_time="10:00",
    )
    return [campaign, segment, email, send["send_id"]]


def test_generated_ids_are_reproducible_from_the_seed() -> None:
    one, same, other = _script(make(seed=3)), _script(make(seed=3)), _script(make(seed=4))
    assert one == same
    assert one != other
    assert [i.split("-")[0] for i in one] == ["CMP", "SEG", "EM", "SEND"]
    first, second = make(seed=3), make(seed=3)
    _script(first), _script(second)
    assert first.state == second.state
