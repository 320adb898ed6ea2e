"""The run's leaderboard (``leaderboard.json`` / ``.md``, the terminal's score lines) and its
``report.html``, built from the records at session end (and, for the report, during the run:
:mod:`.livereport`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from pytest_crmbench.results import leaderboard, paired
from pytest_crmbench.results.html import REPORT_HTML, write_report
from pytest_crmbench.results.records import ResultRecord
from pytest_crmbench.results.reportstatus import FINAL, ReportStatus
from pytest_crmbench.results.runreader import RunReader
from pytest_crmbench.results.runtasks import RunTasks
from pytest_crmbench.results.sources import load_sources


def board(
    name: str, system: str, created: str, records: list[ResultRecord], max_unscored: int
) -> leaderboard.Leaderboard:
    run = leaderboard.RunInput(name, system, created, records)
    return leaderboard.build([run], max_unscored=max_unscored)


def board_json(
    table: leaderboard.Leaderboard,
    records: list[ResultRecord],
    baseline: list[ResultRecord] | None,
    compare: Path | None,
) -> dict[str, Any]:
    """The tables as data; with --crm-compare, the paired comparison and its flipped tasks too."""
    data = leaderboard.as_json(table)
    if baseline is not None:
        comparison = paired.compare(records, baseline)
        data["comparison"] = {
            "baseline": str(compare),
            **(comparison.as_json() if comparison else {"paired_tasks": 0}),
        }
    return data


def html(
    run_dir: Path,
    compare: Path | None,
    task_set: RunTasks | None,
    root: Path,
    status: ReportStatus = FINAL,
    readers: Callable[[], list[RunReader]] | None = None,
) -> tuple[Path | None, str | None]:
    """``report.html``, with the baseline first when there is one (then it shows the paired
    comparison): (its path, None), or (None, why not). ``status``: final when the session ends
    (the default); during the run, how many results of how many. ``readers``: the live report's,
    which read only what was appended since its last rewrite (None: read from scratch)."""
    runs = [p for p in (compare, run_dir) if p is not None]
    try:
        kept = readers() if readers is not None else None
        sources = (
            kept[0].sources if kept else load_sources([root / f for f in task_set.files] if task_set else [], root)
        )
        return write_report(runs, run_dir / REPORT_HTML, sources, status, readers=kept), None
    except Exception as exc:  # derived from files already written: a failure here must not fail the run
        return None, f"report.html not written ({type(exc).__name__}: {exc}); crmbench report can retry"
