"""What a run says on the terminal: infra as errors, progress while it runs, and a last word.

pytest counts every check of a task as a sub-result (``SUBFAILED``), crmbench counts tasks, and
the gate's verdict decides the exit status: so the last lines of a run are the crmbench summary,
one line relating pytest's counts to the task counts, and the gate verdict, after pytest's own
counts line and also under ``-q`` (issue 12). Registered on the controller as ``crmbench-summary``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Generator

import pytest

from pytest_crmbench.core.display import shown
from pytest_crmbench.plugin.collect import unscored_outcome
from pytest_crmbench.plugin.livereport import LIVE_REPORT, LiveReport
from pytest_crmbench.plugin.nodeids import is_task_nodeid
from pytest_crmbench.plugin.recorder import RunRecorder
from pytest_crmbench.results import tables
from pytest_crmbench.results.paired import flip_lines
from pytest_crmbench.results.progress import Progress
from pytest_crmbench.results.records import ResultRecord
from pytest_crmbench.results.selftest import is_selftest, selftest_lines


class RunSummary:
    def __init__(self, config: pytest.Config, recorder: RunRecorder, progress_s: float) -> None:
        self.config = config
        self.recorder = recorder
        self.progress_s = progress_s
        self.progress: Progress | None = None
        self.pending: str | None = None
        """A progress line waiting for the end of pytest's current line of letters."""
        self.items: Counter[str] = Counter()
        self.checks: Counter[str] = Counter()

    @pytest.hookimpl(tryfirst=True)
    def pytest_report_teststatus(self, report: pytest.TestReport) -> tuple[str, str, str] | None:
        # An infrastructure failure is not the model's failure (it is excluded from the score):
        # shown as an error, with its one-line reason in the short summary.
        # Likewise a harness error (a tool or crmbench's own code crashed): a bug, not a result.
        unscored = unscored_outcome(report) if isinstance(report, pytest.TestReport) else None
        if unscored is not None:
            return "error", "E", "INFRA" if unscored == "infra" else "HARNESS ERROR"
        return None

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self._start_progress(sum(1 for item in session.items if getattr(item, "record", None) is not None))

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: object, ids: list[str]) -> None:
        self._start_progress(sum(1 for nodeid in ids if is_task_nodeid(nodeid)))

    def _start_progress(self, total: int) -> None:
        # Not for the gold self-test: it takes seconds, and a running "success rate" of gold
        # replays without a judge would only alarm (issue 12 item 10).
        if self.progress is None and total and not self.is_selftest():
            self.progress = Progress(total, self.progress_s)

    def is_selftest(self) -> bool:
        return is_selftest(self.recorder.settings)

    @pytest.hookimpl(trylast=True)  # after the recorder has the record
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if not is_task_nodeid(report.nodeid):
            return
        if isinstance(report, pytest.SubtestReport):
            self.checks["skipped (not judged)" if report.skipped else report.outcome] += 1
            return
        if report.when == "call":
            unscored = unscored_outcome(report)
            self.items[f"{'infra' if unscored == 'infra' else 'harness'} error" if unscored else report.outcome] += 1
            line = self.progress.update(list(self.recorder.records.values())) if self.progress else None
            if line:
                self.pending = line
        self._show_progress()

    @pytest.hookimpl(trylast=True)  # after pytest wrote the item's letter (and maybe ended its line)
    def pytest_runtest_logfinish(self) -> None:
        self._show_progress()

    def _show_progress(self) -> None:
        """The progress line, on a line of its own (issue 32: it broke pytest's line of letters).

        With ``-v`` pytest gives each item its line, so the progress line follows the item's. At the
        default verbosity it waits until pytest itself ends a line of letters (where the line
        reaches the terminal's width and pytest wrote ``[ 40%]``): it is written there, between two
        lines of letters, and the letters go on below it as after any of pytest's own line ends.
        A line still waiting when the run ends is dropped: the crmbench section follows.
        """
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        if self.pending is None or reporter is None:
            return
        writer = self.config.get_terminal_writer()
        if self.config.get_verbosity(pytest.Config.VERBOSITY_TEST_CASES) > 0:
            reporter.write_line(self.pending)
        elif writer.width_of_current_line == 0:
            writer.line(self.pending)
        else:
            return
        self.pending = None

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_sessionfinish(self) -> Generator[None]:
        # The outermost wrapper: its code after the yield runs after pytest's own counts line.
        result = yield
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None and not self.config.option.collectonly:
            self.write(reporter)
        return result

    def write(self, reporter: pytest.TerminalReporter) -> None:
        verbosity = self.config.get_verbosity()
        lines = self.lines() if verbosity >= -1 else []
        verdict = self.recorder.verdict
        failure = self.recorder.write_failure
        if failure is not None:
            # Shown even with -qq: the run directory is incomplete (a full or read-only disk).
            unsaved = self.recorder.unsaved
            reporter.write_line(
                f"crmbench: {failure}" + (f"; {unsaved} result(s) were not saved" if unsaved else ""),
                red=True,
                bold=True,
            )
        if not lines and verdict is None:
            return
        if lines:
            reporter.write_sep("-", "crmbench")
            for line in lines:
                reporter.write_line(line)
        if verdict is not None:
            # Last, and shown even with -qq: it explains the exit status.
            for failure in verdict.failures:
                reporter.write_line(f"crmbench gate FAILED: {failure}", red=True, bold=True)
            if verdict.passed:
                reporter.write_line(f"crmbench gate passed: {'; '.join(verdict.notes)}", green=True)

    def lines(self) -> list[str]:
        recorder = self.recorder
        records = recorder.all_records()
        if not records:
            return []
        lines = selftest_lines(records) if self.is_selftest() else self._score_lines(records)
        if recorder.previous:
            # An infra or error result run again is counted once, as new (it was 12 merged + 6 new of 12).
            rerun = len(recorder.previous.keys() & recorder.records.keys())
            again = f" ({rerun} of them earlier infra or error results run again)" if rerun else ""
            kept = len(recorder.previous) - rerun
            lines.append(f"resumed: {kept} earlier result(s) merged, {len(recorder.records)} new{again}")
        if recorder.nothing_left:
            lines.append("resumed: nothing left to run, the run is complete")
        if recorder.not_run:
            lines.append(f"{recorder.not_run} item(s) not run (interrupted); --crm-resume continues the run")
        counts = self.counts_line()
        if counts:
            lines.append(counts)
        warned = [record for record in records if record.agent_warnings]
        if warned:
            total = sum(record.agent_warnings for record in warned)
            lines.append(
                f"the agent's code issued {total} warning(s) in {len(warned)} of {len(records)} result(s):"
                " recorded in the trajectories, never raised, and held against nothing"
            )
        if recorder.run_dir is not None:
            lines.append(f"run directory: {shown(recorder.run_dir.path, self.config.invocation_params.dir)}")
        if recorder.html_report is not None:
            lines.append(f"report: {shown(recorder.html_report, self.config.invocation_params.dir)}")
        if recorder.html_problem is not None:
            lines.append(recorder.html_problem)
        live = self.config.pluginmanager.get_plugin(LIVE_REPORT)
        if isinstance(live, LiveReport) and live.problem is not None:
            lines.append(live.problem)  # one line; the score and the exit status are untouched
        comparison = recorder.verdict.comparison if recorder.verdict is not None else None
        if comparison is not None:
            lines.append(f"compared with the baseline: {comparison.summary()}")
            lines.extend(f"  {line}" for line in flip_lines(comparison))
        return lines

    def _score_lines(self, records: list[ResultRecord]) -> list[str]:
        leaderboard = self.recorder.build_leaderboard(records)
        system = leaderboard.systems[0]
        first = system.first
        trials = len(system.rounds)
        unit = "task(s)" if trials == 1 else f"task(s) in trial 1 of {trials}"
        lines = [tables.outcome_line(first, unit)]
        explained = tables.not_judged_line(first)
        if explained:
            lines.append(explained)
        lines.extend(tables.headline(leaderboard))
        if trials > 1:
            lines.append(tables.trials_line(system))
        return lines

    def counts_line(self) -> str | None:
        """How pytest's counts above relate to the task counts (they differ by the checks)."""
        if not self.items:
            return None
        items = ", ".join(f"{n} {outcome}" for outcome, n in sorted(self.items.items()))
        text = f"pytest's counts: {sum(self.items.values())} task item(s) ({items})"
        if self.checks:
            checks = ", ".join(f"{n} {outcome}" for outcome, n in sorted(self.checks.items()))
            text += f" and {sum(self.checks.values())} check(s), one sub-result each ({checks})"
        return text + "; crmbench counts each task result once, above"
