"""What a run is doing before its first result, one short line per stage (issue 32).

A model run spent its first minute silent: crmbench's set-up (settings, the task set's hash, a
resumed run re-graded), collection, the model preflight with litellm's import, and under xdist
the workers' start and collection. Each stage now says what it did and how long it took, on the
terminal pytest writes to, where pytest's own output leaves room for a line:

* ``crmbench: set-up ...`` in the session header (crmbench's ``pytest_configure`` ran before it);
* ``crmbench: collection ...`` after pytest's ``collected N items`` line;
* ``crmbench: model preflight ...`` when it finishes: written when the run waits for it, after
  the collection lines (single process), or before xdist starts its workers (under ``-n``); a
  preflight still running then is announced first and completed on the same line, as pytest's
  ``collecting ... collected`` is;
* ``crmbench: N xdist workers ...`` before the first result, after xdist's status line.

Nothing with ``-q`` (nor without pytest's terminal reporter, ``-p no:terminal``), and never inside
pytest's line of letters: every line is written where pytest itself has just ended a line.
Registered on the controller as ``crmbench-startup``.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

STARTUP = "crmbench-startup"


def seconds(value: float) -> str:
    return f"{value:.1f} s"


class StartupLines:
    def __init__(self, config: pytest.Config, clock: Callable[[], float] = time.monotonic) -> None:
        self.config = config
        self.clock = clock
        self.setup_s: float | None = None
        self.setup_what: list[str] = []
        self.session_started: float | None = None
        self.workers_started: float | None = None
        self.workers_collected = 0
        self.worker_items = 0
        self._workers_said = False
        self._open_line = False

    # -- where lines go -----------------------------------------------------------------------

    def reporter(self) -> pytest.TerminalReporter | None:
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is None or self.config.get_verbosity() < 0:
            return None
        return reporter  # type: ignore[no-any-return]

    def line(self, text: str) -> None:
        reporter = self.reporter()
        if reporter is not None:
            reporter.write_line(text)  # after a newline if pytest's current line is not ended

    def begin(self, text: str) -> None:
        """The first half of a line a blocking stage completes with :meth:`end`."""
        reporter = self.reporter()
        if reporter is not None:
            reporter.ensure_newline()
            reporter.write(text + " ... ", flush=True)
            self._open_line = True

    @property
    def is_open(self) -> bool:
        """Whether :meth:`begin` wrote a line that waits for its :meth:`end`."""
        return self._open_line

    def end(self, text: str) -> None:
        reporter = self.reporter()
        if reporter is None:
            return
        if self._open_line:
            reporter.write(text)
            reporter.line("")
            self._open_line = False
        else:
            reporter.write_line(text)

    # -- the stages -----------------------------------------------------------------------------

    def set_up(self, duration_s: float, what: list[str]) -> None:
        """From crmbench's ``pytest_configure``: how long its set-up took and what it did."""
        self.setup_s, self.setup_what = duration_s, what

    @pytest.hookimpl(tryfirst=True)  # pytest prints the header's lines last-called first: this one last
    def pytest_report_header(self) -> list[str]:
        if self.setup_s is None or not self.setup_what or self.config.get_verbosity() < 0:
            return []  # the gold self-test's set-up does nothing worth a line
        return [f"crmbench: set-up {seconds(self.setup_s)}: {'; '.join(self.setup_what)}"]

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionstart(self) -> None:
        self.session_started = self.clock()

    @pytest.hookimpl(trylast=True)  # after sample and run-ahead's lines
    def pytest_report_collectionfinish(self, config: pytest.Config, items: list[pytest.Item]) -> list[str]:
        if self.session_started is None or config.get_verbosity() < 0:
            return []
        tasks = sum(1 for item in items if getattr(item, "record", None) is not None)
        return [f"crmbench: collection {seconds(self.clock() - self.session_started)} ({tasks} task item(s) to run)"]

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_setupnodes(self) -> None:
        self.workers_started = self.clock()

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: object, ids: list[str]) -> None:
        self.workers_collected += 1
        self.worker_items = max(self.worker_items, len(ids))

    @pytest.hookimpl(tryfirst=True)  # before pytest writes the first result's letter
    def pytest_runtest_logstart(self) -> None:
        if self.workers_started is None or self._workers_said:
            return
        self._workers_said = True
        took = seconds(self.clock() - self.workers_started)
        self.line(
            f"crmbench: {self.workers_collected} xdist worker(s) started and collected {self.worker_items}"
            f" item(s) in {took}"
        )
