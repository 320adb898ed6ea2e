"""Whether a report is final: what the top of ``report.html`` says about the run it shows (issue 32).

A run rewrites its ``report.html`` while it goes on (:mod:`pytest_crmbench.plugin.livereport`), so
a reader may open a page of 37 results of 73: the page says so, and a finished one says it is
final. ``crmbench report`` reads the same from each run's manifest (``finished``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

State = Literal["running", "final", "stopped", "unfinished"]


@dataclass(frozen=True)
class ReportStatus:
    state: State
    results: int | None = None
    """How many results the page shows (None: the report counts the last run's, the run it is of)."""
    expected: int | None = None
    """How many results the run will have when it finishes (None: unknown)."""

    def sentence(self) -> str:
        of = f"{self.results} of {self.expected}" if self.expected is not None else str(self.results)
        if self.state == "running":
            return (
                f"In progress: {of} results so far. This page is rewritten as the run goes on (reload it for the"
                " latest); every table and figure covers the results so far. The final report replaces it when"
                " the run ends."
            )
        if self.state == "stopped":
            return f"The run stopped before it finished: {of} results. --crm-resume completes it."
        if self.state == "unfinished":
            return (
                f"Not final: {of} results of a run that has not finished (still running, or killed; --crm-resume"
                " completes it)."
            )
        return f"Final: the run finished with {self.results} results."


def running(results: int, expected: int | None) -> ReportStatus:
    return ReportStatus("running", results, expected)


FINAL = ReportStatus("final")
"""A run's own report written when its session ended complete."""


def of_manifests(manifests: Sequence[Mapping[str, Any]], results: int) -> ReportStatus:
    """Saved runs: final when every run finished complete, else the least finished one's state."""
    entries = [manifest.get("finished") for manifest in manifests]
    if any(not isinstance(entry, Mapping) for entry in entries):
        return ReportStatus("unfinished", results)
    if any(isinstance(entry, Mapping) and entry.get("complete") is not True for entry in entries):
        return ReportStatus("stopped", results)
    return ReportStatus("final", results)
