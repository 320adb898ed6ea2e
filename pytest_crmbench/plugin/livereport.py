"""``report.html`` rewritten while a run goes on, registered as ``crmbench-live-report`` (issue 32).

A model run of the release takes hours; its report was written only at the end. On the controller,
after the recorder has appended a result, the report is rewritten from the run directory when
``--crm-html-every`` seconds have passed since the last rewrite and a result came in since; the
page says "in progress: 37 of 73 results". It is written atomically (a temporary file renamed
over the old one), so a reader reloading it sees a whole page. A rewrite costs what ``crmbench
report`` of the run so far costs (seconds for a release-size run), so the interval also stretches
to ``COST_SHARE`` times the last rewrite's duration: the rewrites never take more than about 2 % of
the run. Each rewrite reads only what was appended since the last one
(:class:`~pytest_crmbench.results.runreader.RunReader`, kept here between rewrites) and draws the
page a from-scratch read draws; docs/performance.md has the before/after cost. A rewrite that fails
changes no score and no exit status: it is said in one line of the summary and not tried again.

At session end the recorder writes the final report once (:func:`.runreport.html`), "final" or,
for a run that stopped early (Ctrl-C, ``-x``), "stopped".
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from pytest_crmbench.plugin import runreport
from pytest_crmbench.plugin.recorder import RunRecorder
from pytest_crmbench.results.reportstatus import ReportStatus, running
from pytest_crmbench.results.runreader import RunReader
from pytest_crmbench.results.sources import load_sources

LIVE_REPORT = "crmbench-live-report"
COST_SHARE = 50
"""The next rewrite waits at least this many times the last one's duration (at most ~2 % of the run)."""


class LiveReport:
    def __init__(self, recorder: RunRecorder, every_s: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.recorder = recorder
        self.every_s = every_s
        self.clock = clock
        self.last_at = clock()
        """The first rewrite comes ``every_s`` after start-up: a short run gets its final report only."""
        self.last_count = 0
        self.cost_s = 0.0
        self.writes = 0
        self.problem: str | None = None
        self._readers: list[RunReader] | None = None
        """The baseline's and the run's, kept between rewrites: each reads only what is new."""

    def expected(self) -> int:
        return self.recorder.expected_results()

    def readers(self) -> list[RunReader]:
        if self._readers is None:
            recorder = self.recorder
            assert recorder.run_dir is not None
            task_set = recorder.task_set()
            root = recorder.settings.content_root
            sources = load_sources([root / f for f in task_set.files] if task_set else [], root)
            paths = [p for p in (recorder.options.gates.compare, recorder.run_dir.path) if p is not None]
            self._readers = [RunReader(path, sources) for path in paths]
        return self._readers

    def due(self) -> bool:
        recorder = self.recorder
        if not self.every_s or self.problem is not None or recorder.run_dir is None:
            return False
        if recorder.write_failure is not None or len(recorder.records) == self.last_count:
            return False
        return self.clock() - self.last_at >= max(self.every_s, COST_SHARE * self.cost_s)

    @pytest.hookimpl(trylast=True)  # after the recorder appended the result
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if self.due():
            self.rewrite(running(len(self.recorder.all_records()), self.expected()))

    def rewrite(self, status: ReportStatus) -> None:
        recorder = self.recorder
        assert recorder.run_dir is not None
        started = self.clock()
        _, problem = runreport.html(
            recorder.run_dir.path,
            recorder.options.gates.compare,
            recorder.task_set(),
            recorder.settings.content_root,
            status,
            readers=self.readers,
        )
        self.last_at = self.clock()
        self.cost_s = self.last_at - started
        self.last_count = len(recorder.records)
        if problem is not None:
            self.problem = problem.replace("report.html not written", "report.html not rewritten during the run", 1)
        else:
            self.writes += 1
