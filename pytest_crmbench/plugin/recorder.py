"""The controller's record of a run, registered as ``crmbench-recorder`` (never on an xdist worker).

:class:`RunRecorder` receives each finished item's record on its test report (the worker side is
:func:`pytest_crmbench.plugin.collect.run_crm_task`, which puts it in ``user_properties``), appends
it to ``results.jsonl``, turns a collected item without a result (a crashed worker, a fixture error)
into an ``error`` row, and at session end writes the leaderboard and ``report.html`` and applies the
gates to the exit status. What it delegates: the options (:mod:`.runoptions`), the manifest
(:mod:`.runmanifest`), node ids (:mod:`.nodeids`), resuming (:mod:`.resume`), saved runs
(:mod:`.savedruns`), the leaderboard and report (:mod:`.runreport`), the exit status (:mod:`.gate`);
the terminal lines are :mod:`.summary`'s.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_crmbench.core.errors import CrmbenchError
from pytest_crmbench.core.redaction import redacted_text
from pytest_crmbench.env.environment import ToolEnvironment
from pytest_crmbench.plugin import gate, resume, runreport, savedruns
from pytest_crmbench.plugin.modelcheck import wait_for_preflight
from pytest_crmbench.plugin.nodeids import is_task_nodeid, split_nodeid
from pytest_crmbench.plugin.runmanifest import build_manifest, system_name
from pytest_crmbench.plugin.runoptions import RecordSettings
from pytest_crmbench.plugin.stash import environments
from pytest_crmbench.results import leaderboard, tables
from pytest_crmbench.results.gates import GateVerdict
from pytest_crmbench.results.records import (
    RESULT_PROPERTY,
    TRACE_PROPERTY,
    ResultRecord,
    decode_record,
    encode_record,
    error_record,
    model_of,
    summary_of,
    utc_now,
)
from pytest_crmbench.results.reportstatus import FINAL, ReportStatus
from pytest_crmbench.results.rundir import RunDir, RunDirError, bound_trace, load_run
from pytest_crmbench.results.runtasks import RunTasks, load_run_tasks
from pytest_crmbench.results.verify import Contracts, selection_hash, verified
from pytest_crmbench.run.settings import RunSettings

recorder_key = pytest.StashKey["RunRecorder"]()


def _last_line(report: pytest.TestReport) -> str:
    text = report.longreprtext.strip()
    return redacted_text(text.splitlines()[-1] if text else f"{report.when} {report.outcome}", 500)


class RunRecorder:
    """The controller's record of the run. Registered as ``crmbench-recorder``."""

    def __init__(self, config: pytest.Config, settings: RunSettings, options: RecordSettings) -> None:
        self.config = config
        self.settings = settings
        self.options = options
        self.records: dict[tuple[str, int], ResultRecord] = {}
        self.previous: dict[tuple[str, int], ResultRecord] = {}
        self.expected: dict[str, tuple[str, int]] = {}
        self.finished: set[str] = set()
        self.other_failures = 0
        self.verdict: GateVerdict | None = None
        self.not_run = 0
        self.html_report: Path | None = None
        self.html_problem: str | None = None
        self._task_set: RunTasks | None = None
        self._task_set_problem: str | None = None
        self.run_dir = RunDir(options.run_dir) if options.run_dir else None
        self.manifest = (
            build_manifest(config, settings, self.task_set(), self._task_set_problem) if self.run_dir else None
        )
        self._manifest_written = False
        self.write_failure: str | None = None
        """Why the run directory could not be written (a full disk, say); later writes are skipped."""
        self.unsaved = 0
        self.resume_filter: resume.ResumeFilter | None = None
        self.nothing_left = False
        self.worker_deselected = 0
        """Items the xdist workers deselected because the resumed run has them."""
        """A resumed run that had every selected item already: complete, not "collected nothing"."""
        compare = options.gates.compare
        self.baseline = savedruns.baseline(compare, self.task_set(), self._envs) if compare else None
        if options.resume is not None:
            self._resume(options.resume)
        if self.run_dir is not None and not config.option.collectonly:
            # Last: every check above may refuse the run, and then nothing must be created or locked.
            try:
                self.run_dir.open_for_writing(resume=options.resume is not None)
            except RunDirError as exc:
                raise pytest.UsageError(f"--crm-run-dir: {exc}") from None

    # -- set-up ----------------------------------------------------------------------------

    def task_set(self) -> RunTasks | None:
        if self._task_set is None and self._task_set_problem is None:
            try:
                self._task_set = load_run_tasks(self.settings.content_root, self.settings)
            except CrmbenchError as exc:
                # Collection reports the same problem with file and line; the manifest notes it.
                self._task_set_problem = str(exc).splitlines()[0]
        return self._task_set

    def _envs(self) -> dict[str, type[ToolEnvironment]]:
        return environments(self.config)

    def _resume(self, path: Path) -> None:
        saved = savedruns.load(path, "--crm-resume")
        assert self.manifest is not None
        manifest = resume.resumed_manifest(saved, self.manifest, utc_now())
        savedruns.verify(saved, "--crm-resume", self.task_set(), self._envs)
        self.previous = {r.key: summary_of(r) for r in saved.records}
        self.manifest = manifest
        self.resume_filter = resume.register(self.config, self.done())

    def add_to_manifest(self, entries: dict[str, Any]) -> None:
        """Entries other plugins hand the recorder for the run's manifest (``--crm-sample``'s
        sample), written with it; ignored for a resumed run, which keeps its own. The recorder owns
        the manifest: nobody else changes it."""
        if self.manifest is not None and self.options.resume is None:
            self.manifest = {**self.manifest, **entries}

    def expected_results(self) -> int:
        """Results the run will have: the earlier ones of a resumed run and every item collected."""
        return len({*self.previous, *self.expected.values()})

    def done(self) -> set[tuple[str, int]]:
        return {key for key, record in self.previous.items() if record.scored}

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        resume.send_to_worker(node, self.done())

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        # Every worker collects every item and deselects the same finished ones.
        self.worker_deselected = max(self.worker_deselected, resume.deselected_by_worker(node))

    # -- collection: what should produce a result ---------------------------------------------

    @pytest.hookimpl(trylast=True)  # after pytest's "collected" line: the preflight's line follows it
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        # A run the preflight stops never started: no item is expected, so none becomes an error row.
        wait_for_preflight(self.config)
        for item in session.items:
            record = getattr(item, "record", None)
            if record is not None:
                self.expected[item.nodeid] = (record.task.id, getattr(item, "trial", 0))

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        for nodeid in ids:
            if is_task_nodeid(nodeid):
                self.expected.setdefault(nodeid, split_nodeid(nodeid))

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.other_failures += 1

    # -- results -------------------------------------------------------------------------------

    def pytest_runtest_logstart(self, nodeid: str) -> None:
        if self.run_dir and self.manifest and not self._manifest_written:
            # No "finished" entry until the session ends: a run killed before it is incomplete.
            self.manifest = {**self.manifest, "finished": None}
            modes = self.settings.models.output_modes  # found by this session's preflight, before any item
            if modes:
                self.manifest["output_modes"] = dict(modes)
            self._write(lambda run_dir: run_dir.write_manifest(self.manifest or {}))
            self._manifest_written = True

    def _write(self, write: Callable[[RunDir], None]) -> bool:
        """Write to the run directory unless an earlier write failed; a failure is said once, in one
        line, and the results stay in memory (and in this session's summary)."""
        if self.run_dir is None or self.write_failure is not None:
            return False
        try:
            write(self.run_dir)
        except RunDirError as exc:
            self.write_failure = str(exc)
            return False
        return True

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if isinstance(report, pytest.SubtestReport) or report.outcome == "rerun":  # type: ignore[comparison-overlap]
            return
        nodeid = report.nodeid
        if nodeid not in self.expected and not is_task_nodeid(nodeid):
            if report.failed:
                self.other_failures += 1
            return
        if nodeid in self.finished:
            return
        properties = dict(report.user_properties)
        if report.when == "call" and RESULT_PROPERTY in properties:
            self._finish(nodeid, self._decode(nodeid, properties), properties.get(TRACE_PROPERTY))
        elif report.when == "???":  # type: ignore[comparison-overlap]  # xdist: the worker died while running this item
            self._finish(nodeid, self._error(nodeid, str(report.longrepr)), None)
        elif report.when == "setup" and report.skipped:
            self.finished.add(nodeid)  # skipped before it ran: no result, not an error
        elif report.when == "teardown" or (report.when == "setup" and report.failed):
            self._finish(
                nodeid, self._error(nodeid, f"no result: {report.when} {report.outcome}: {_last_line(report)}"), None
            )

    def _decode(self, nodeid: str, properties: dict[str, Any]) -> ResultRecord:
        try:
            return decode_record(str(properties[RESULT_PROPERTY]))
        except ValueError as exc:
            return self._error(nodeid, f"unreadable result record: {exc}")

    def _error(self, nodeid: str, message: str) -> ResultRecord:
        task_id, trial = self.expected.get(nodeid) or split_nodeid(nodeid)
        task_set = self.task_set()
        task = task_set.tasks.get(task_id) if task_set else None
        meta = (
            {"domain": task.domain, "difficulty": task.difficulty, "capabilities": list(task.capabilities)}
            if task
            else {}
        )
        return error_record(
            task_id,
            trial,
            message,
            nodeid=nodeid,
            meta={**meta, "agent": self.settings.agent, "model": model_of(self.settings)},
        )

    def _finish(self, nodeid: str, record: ResultRecord, trace: Any) -> None:
        self.finished.add(nodeid)
        run_id = (self.manifest or {}).get("run_id")
        record = record.model_copy(update={"run_id": run_id})
        self.records[record.key] = summary_of(record)
        if self.run_dir is None:
            return
        self.pytest_runtest_logstart(nodeid)  # the manifest first, whatever the hook order
        if not self._write(lambda run_dir: run_dir.append_result(encode_record(record))):
            self.unsaved += 1
        elif isinstance(trace, str):
            stamped = bound_trace(trace, run_id)
            self._write(lambda run_dir: run_dir.append_trace(record.domain or "unknown", stamped))

    # -- session end -----------------------------------------------------------------------------

    def all_records(self) -> list[ResultRecord]:
        return list({**self.previous, **self.records}.values())

    def build_leaderboard(self, records: list[ResultRecord]) -> leaderboard.Leaderboard:
        name = self.run_dir.path.name if self.run_dir else "this run"
        created = str((self.manifest or {}).get("created_at", ""))
        return runreport.board(name, system_name(self.settings), created, records, self.options.gates.max_infra or 0)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.config.option.collectonly:
            return
        missing = [nodeid for nodeid in self.expected if nodeid not in self.finished]
        interrupted = session.shouldstop or session.shouldfail or session.exitstatus == pytest.ExitCode.INTERRUPTED
        if interrupted:
            self.not_run = len(missing)  # never started: --crm-resume runs them, they are not errors
        else:
            for nodeid in missing:
                self._finish(nodeid, self._error(nodeid, "no result received (lost with its worker?)"), None)
        deselected = (self.resume_filter.deselected if self.resume_filter else 0) + self.worker_deselected
        if self.resume_filter is not None and deselected and not self.expected:
            # Resuming a finished run deselects everything: pytest's 5 ("collected nothing")
            # read as a failure in CI, though the run is simply complete.
            self.nothing_left = session.exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED
            if self.nothing_left:
                session.exitstatus = pytest.ExitCode.OK
        records = self.all_records()
        if self.run_dir and (records or self._manifest_written):
            self._write_results(records, complete=not interrupted)
        if self.write_failure is not None and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED  # a run that could not be saved did not succeed
        if self.options.gates.active:
            saved, refusal = self._saved_records(records)
            self.verdict = gate.verdict(self.options.gates, saved, self.baseline, self.not_run, refusal)
            gate.apply(session, self.verdict, self.other_failures)

    def _saved_records(self, records: list[ResultRecord]) -> tuple[list[ResultRecord], str | None]:
        """What the gate decides on: the run directory as ``crmbench gate`` reads it, re-graded from
        its trajectories (issue 30 part 2: no state of this process can change the verdict), and
        why it cannot be gated when it does not hold up. Without a run directory (the self-test),
        this session's own records."""
        if self.run_dir is None:
            return records, None
        if self.write_failure is not None:
            return [], f"the run could not be saved, so it cannot be checked: {self.write_failure}"
        task_set = self.task_set()
        if task_set is None:
            return [], f"the task set did not load: {self._task_set_problem}"
        contracts = Contracts(task_set.tasks, self._envs(), task_set.hash)
        try:
            saved = verified(load_run(self.run_dir.path), contracts)
        except CrmbenchError as exc:
            return [], str(exc)
        return saved.records, None

    def _write_results(self, records: list[ResultRecord], *, complete: bool) -> None:
        """The leaderboard, ``report.html``, and the manifest's ``finished`` entry, in that order."""
        assert self.run_dir is not None
        compare = self.options.gates.compare
        table = self.build_leaderboard(records)
        data = runreport.board_json(table, records, self.baseline, compare)
        self._write(lambda run_dir: run_dir.write_leaderboard(data, tables.markdown(table)))
        if self.options.html and records and self.write_failure is None:
            # Written once, saying whether the run finished (a stopped run's page says so).
            status = FINAL if complete else ReportStatus("stopped", len(records), self.expected_results())
            self.html_report, self.html_problem = runreport.html(
                self.run_dir.path, compare, self.task_set(), self.settings.content_root, status
            )
        if self.manifest is not None:
            done = complete and self.write_failure is None
            finished = {
                "at": utc_now(),
                "complete": done,
                "results": len(records),
                "selection": selection_hash(record.key for record in records),
            }
            self.manifest = {**self.manifest, "finished": finished}
            self._write(lambda run_dir: run_dir.write_manifest(self.manifest or {}))

    def pytest_unconfigure(self) -> None:
        if self.run_dir is not None:
            self.run_dir.close()


def configure(config: pytest.Config, settings: RunSettings, options: RecordSettings, is_worker: bool) -> None:
    """Called from ``pytest_configure``: the recorder on the controller, the resume filter on workers."""
    if is_worker:
        resume.register_on_worker(config)
        return
    recorder = RunRecorder(config, settings, options)
    config.stash[recorder_key] = recorder
    config.pluginmanager.register(recorder, "crmbench-recorder")
