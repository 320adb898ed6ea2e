"""UsageLedger: one episode's model usage per role, recorded from several threads at once."""

from __future__ import annotations

import threading
from decimal import Decimal

from pytest_crmbench.core.usage import UsageLedger


def test_concurrent_records_add_up_exactly() -> None:
    # An agent may call its model from threads; the judge and the simulator share the ledger.
    ledger = UsageLedger()
    start = threading.Barrier(8)

    def record(role: str) -> None:
        start.wait()
        for _ in range(2_000):
            ledger.record(role, prompt_tokens=3, completion_tokens=1, cost_usd=Decimal("0.001"), latency_s=0.5)  # type: ignore[arg-type]

    threads = [threading.Thread(target=record, args=(("agent", "user")[i % 2],)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for role in ("agent", "user"):
        usage = ledger.get(role)  # type: ignore[arg-type]
        assert usage is not None
        assert (usage.calls, usage.prompt_tokens, usage.completion_tokens) == (8_000, 24_000, 8_000)
        assert usage.cost_usd == Decimal("8.000")
        assert usage.latency_s == 4_000.0


def test_an_unknown_price_stays_unknown_whatever_the_order() -> None:
    ledger = UsageLedger()
    ledger.record("judge", prompt_tokens=1, completion_tokens=1, cost_usd=Decimal(1), latency_s=0)
    ledger.record("judge", prompt_tokens=1, completion_tokens=1, cost_usd=None, latency_s=0)
    ledger.record("judge", prompt_tokens=1, completion_tokens=1, cost_usd=Decimal(1), latency_s=0)
    usage = ledger.get("judge")
    assert usage is not None and usage.cost_usd is None and usage.calls == 3


def test_snapshots_are_copies() -> None:
    ledger = UsageLedger()
    ledger.record("agent", prompt_tokens=1, completion_tokens=1, cost_usd=None, latency_s=0)
    snapshot = ledger.snapshot()
    ledger.record("agent", prompt_tokens=1, completion_tokens=1, cost_usd=None, latency_s=0)
    assert snapshot["agent"].calls == 1
