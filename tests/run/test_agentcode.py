"""run/agentcode.py: agent code's warnings are counted in its ledger, never raised, from any thread."""

from __future__ import annotations

import threading
import warnings

from pytest_crmbench.core.usage import UsageLedger
from pytest_crmbench.run.agentcode import agent_code


def test_a_warning_under_an_error_filter_is_counted_and_the_filters_are_restored() -> None:
    ledger = UsageLedger()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        before = list(warnings.filters)
        with agent_code(ledger):
            for _ in range(2):
                warnings.warn("soon gone", DeprecationWarning, stacklevel=1)
        assert warnings.filters == before
        try:
            warnings.warn("outside", UserWarning, stacklevel=1)
        except UserWarning:
            pass
        else:
            raise AssertionError("outside agent code the caller's error filter applies again")
    [(line, count)] = ledger.warnings().items()
    assert line.startswith("DeprecationWarning: soon gone (test_agentcode.py:") and count == 2


def test_overlapping_agent_calls_in_threads_each_count_their_own_and_restore_once() -> None:
    # --crm-concurrency: episodes in a pool's threads overlap; a per-call catch_warnings would
    # restore the filters out of order.
    ledgers = [UsageLedger() for _ in range(4)]
    inside = threading.Barrier(len(ledgers))
    errors: list[BaseException] = []

    def agent(ledger: UsageLedger, index: int) -> None:
        try:
            with agent_code(ledger):
                inside.wait(timeout=10)  # every thread inside at once
                for _ in range(index + 1):
                    warnings.warn(f"agent {index}", ResourceWarning, stacklevel=1)
                inside.wait(timeout=10)
        except BaseException as exc:
            errors.append(exc)

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        before = list(warnings.filters)
        threads = [threading.Thread(target=agent, args=(ledger, i)) for i, ledger in enumerate(ledgers)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert warnings.filters == before
    assert errors == []
    for index, ledger in enumerate(ledgers):
        assert [(line.split(" (")[0], n) for line, n in ledger.warnings().items()] == [
            (f"ResourceWarning: agent {index}", index + 1)
        ]
