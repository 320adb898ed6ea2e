"""The CI gates' say in the exit status, at session end (the verdict itself is
:func:`pytest_crmbench.results.gates.evaluate`, shared with ``crmbench gate``)."""

from __future__ import annotations

import pytest

from pytest_crmbench.results.gates import Gates, GateVerdict, evaluate
from pytest_crmbench.results.records import ResultRecord

GATEABLE = (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED, pytest.ExitCode.NO_TESTS_COLLECTED)


def verdict(
    gates: Gates,
    records: list[ResultRecord],
    baseline: list[ResultRecord] | None,
    not_run: int,
    refusal: str | None = None,
) -> GateVerdict:
    """``records``: the run as saved and re-graded (``refusal``: why it could not be)."""
    result = evaluate(gates, records, baseline)
    extra = [f"the saved run does not hold up: {refusal}"] if refusal else []
    if not_run:
        # A partial run (-x, --maxfail, Ctrl-C) is never a pass, whatever it scored so far.
        extra.append(f"{not_run} item(s) not run (the run was interrupted)")
    if extra:
        result = GateVerdict([*result.failures, *extra], result.notes, result.comparison)
    return result


def apply(session: pytest.Session, verdict: GateVerdict, other_failures: int) -> None:
    """Like --max-warnings: the gate decides only when nothing else went wrong. A failing ordinary
    test, a collection error or an interruption keep their exit status."""
    if session.exitstatus in GATEABLE and not other_failures:
        session.exitstatus = pytest.ExitCode.OK if verdict.passed else pytest.ExitCode.TESTS_FAILED
    elif not verdict.passed and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
