"""Runs: the ``--crm-*`` options of issue 5 and the controller-side plugin that records a run.

:class:`RunRecorder` exists only on the controller (never on an xdist worker). It receives each
finished item's record on its test report, appends it to ``results.jsonl``, turns a collected
item without a result (a crashed worker, a fixture error) into an ``error`` row, writes the
leaderboard at session end and applies the CI gates to
the exit status (the terminal lines are :mod:`~pytest_crmbench.plugin.summary`'s). :class:`ResumeFilter`
runs wherever items are collected and deselects those a resumed run already has.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import pytest

from pytest_crmbench import __version__
from pytest_crmbench.core.display import shown
from pytest_crmbench.core.errors import CrmbenchError
from pytest_crmbench.core.evidence import jsonable
from pytest_crmbench.core.redaction import redact, redacted_text
from pytest_crmbench.plugin.optionvalue import option_value
from pytest_crmbench.plugin.stash import environments
from pytest_crmbench.results import leaderboard, paired, tables
from pytest_crmbench.results.gates import Gates, GateVerdict, evaluate
from pytest_crmbench.results.html import REPORT_HTML, write_report
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
from pytest_crmbench.results.rundir import (
    FORMAT,
    RunDir,
    RunDirError,
    SavedRun,
    default_run_dir,
    git_commit,
    load_run,
    resume_mismatches,
)
from pytest_crmbench.results.runset import finished
from pytest_crmbench.results.runtasks import RunTasks, load_run_tasks
from pytest_crmbench.results.sources import load_sources
from pytest_crmbench.results.verify import Contracts, verified
from pytest_crmbench.run.settings import RunSettings

DONE_INPUT = "crm_done"
"""``workerinput`` key: the (task id, trial) pairs a resumed run already has."""
_TRIAL_SUFFIX = re.compile(r"^(?P<task>.+)\[t(?P<trial>\d+)\]$")


@dataclass(frozen=True)
class RecordSettings:
    run_dir: Path | None
    """Where this run is written; None: not written (a gold run without ``--crm-run-dir``)."""
    resume: Path | None
    gates: Gates
    html: bool = True
    """Write ``report.html`` into the run directory at the end."""


record_settings_key = pytest.StashKey[RecordSettings]()
recorder_key = pytest.StashKey["RunRecorder"]()


def _cli_path(config: pytest.Config, value: str) -> Path:
    return (config.invocation_params.dir / value).resolve()


def resolve_record_settings(config: pytest.Config, settings: RunSettings) -> RecordSettings:
    """Command line over ini; decides whether this run is written, and where."""
    resume = config.getoption("crm_resume")
    resume_dir = _cli_path(config, resume) if resume else None
    given = config.getoption("crm_run_dir")
    ini = str(config.getini("crm_run_dir")).strip()
    run_dir = _cli_path(config, given) if given else (config.rootpath / ini).resolve() if ini else None
    if resume_dir is not None:
        if given and run_dir != resume_dir:
            raise pytest.UsageError("--crm-resume continues its own run directory; drop --crm-run-dir")
        run_dir = resume_dir
    elif run_dir is None and (settings.agent != "gold" or model_of(settings)):
        # Gold runs are the benchmark's self-test (plain `pytest` in this repository): they are
        # not results worth keeping unless asked. Every other agent or model writes its run.
        run_dir = default_run_dir(config.rootpath, system_name(settings))
    compare = config.getoption("crm_compare")
    compare_ini = str(config.getini("crm_compare")).strip()
    gates = Gates(
        fail_under=option_value(config, "crm_fail_under"),
        compare=_cli_path(config, compare) if compare else (config.rootpath / compare_ini) if compare_ini else None,
        max_drop=option_value(config, "crm_max_drop"),
        max_infra=option_value(config, "crm_max_infra"),
        significance=option_value(config, "crm_significance"),
    )
    if gates.max_drop is not None and gates.compare is None:
        raise pytest.UsageError("--crm-max-drop needs --crm-compare=BASELINE_RUN")
    if gates.significance is not None and gates.compare is None:
        raise pytest.UsageError("--crm-significance needs --crm-compare=BASELINE_RUN")
    return RecordSettings(run_dir=run_dir, resume=resume_dir, gates=gates, html=_yes(config, "crm_html"))


def _yes(config: pytest.Config, name: str) -> bool:
    return bool(option_value(config, name) != "no")


def system_name(settings: RunSettings) -> str:
    """A run's system in leaderboards: its model, else its agent."""
    return model_of(settings) or settings.agent


def models(settings: RunSettings) -> dict[str, Any]:
    """Model and provider ids per role (the provider is the litellm prefix, e.g. ``openai``)."""
    ids = {"agent": settings.models.agent, "user": settings.models.user, "judge": settings.models.judge}
    return {
        **ids,
        "providers": {role: model.split("/", 1)[0] if model and "/" in model else None for role, model in ids.items()},
    }


def sampling(settings: RunSettings) -> dict[str, Any]:
    """What shapes the model's answers (part of the resume check); the API base without credentials."""
    chosen = settings.models
    return {
        "temperature": chosen.temperature,
        "max_tokens": chosen.max_tokens,
        "api_base": redact(chosen.api_base),
        "prices": sorted(chosen.prices),
    }


def execution(settings: RunSettings) -> dict[str, Any]:
    """How calls are made, not what they answer: a resumed run may change these (say, lower the
    concurrency after rate limits killed it)."""
    chosen = settings.models
    return {"request_timeout_s": chosen.timeout_s, "retries": chosen.retries, "concurrency": settings.concurrency}


def build_manifest(
    config: pytest.Config, settings: RunSettings, task_set: RunTasks | None, problem: str | None
) -> dict[str, Any]:
    """What ran, without a secret: never the environment; arguments are scrubbed of credentials."""
    ids = models(settings)
    manifest = {
        "format": FORMAT,
        "benchmark_version": __version__,
        "created_at": utc_now(),
        "system": system_name(settings),
        "task_set": {
            "hash": task_set.hash if task_set else None,
            "files": task_set.files if task_set else [],
            "tasks": len(task_set.tasks) if task_set else 0,
            "environments": task_set.environments if task_set else {},
            "lock": task_set.lock if task_set else None,
            **({"error": problem} if problem else {}),
        },
        "agent": settings.agent,
        "models": ids,
        "sampling": jsonable(sampling(settings)),
        "execution": execution(settings),
        "settings": {"base_seed": settings.base_seed, "trials": settings.trials, "limits": asdict(settings.limits)},
        "simulator": {"kind": "model" if ids["user"] else "scripted", "model": ids["user"]},
        "judge": {"kind": "model" if ids["judge"] else "none", "model": ids["judge"]},
        "env_dirs": [shown(p, config.rootpath) for p in settings.env_dirs],
        "pytest": {
            "args": list(config.invocation_params.args),
            "xdist_workers": jsonable(config.getoption("numprocesses", None)),
            "dist": jsonable(config.getoption("dist", None)),
        },
        "git": git_commit(config.rootpath),
    }
    return redact(manifest)


def split_nodeid(nodeid: str) -> tuple[str, int]:
    """(task id, 0-based trial) of a task item's node id (``...::id`` or ``...::id[t2]``)."""
    name = nodeid.rsplit("::", 1)[-1]
    match = _TRIAL_SUFFIX.match(name)
    return (match["task"], int(match["trial"]) - 1) if match else (name, 0)


def is_task_nodeid(nodeid: str) -> bool:
    return nodeid.split("::", 1)[0].endswith((".yaml", ".yml")) and "::" in nodeid


def _last_line(report: pytest.TestReport) -> str:
    text = report.longreprtext.strip()
    return redacted_text(text.splitlines()[-1] if text else f"{report.when} {report.outcome}", 500)


class ResumeFilter:
    """Deselects items that already have a scored result (infra and error results are re-run)."""

    def __init__(self, done: set[tuple[str, int]]) -> None:
        self.done = done

    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        skipped = [item for item in items if self._done(item)]
        if skipped:
            items[:] = [item for item in items if not self._done(item)]
            config.hook.pytest_deselected(items=skipped)

    def _done(self, item: pytest.Item) -> bool:
        record = getattr(item, "record", None)
        return record is not None and (record.task.id, getattr(item, "trial", 0)) in self.done


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
        self.manifest = self._manifest() if self.run_dir else None
        self._manifest_written = False
        self.write_failure: str | None = None
        """Why the run directory could not be written (a full disk, say); later writes are skipped."""
        self.unsaved = 0
        self.baseline = self._baseline()
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

    def _manifest(self) -> dict[str, Any]:
        return build_manifest(self.config, self.settings, self.task_set(), self._task_set_problem)

    def _load(self, path: Path, option: str) -> SavedRun:
        try:
            return load_run(path)
        except RunDirError as exc:
            raise pytest.UsageError(f"{option}: {exc}") from None

    def _verify(self, saved: SavedRun, option: str) -> None:
        """Check a saved run against its trajectories with this session's contracts (issue 11 item 9)."""
        task_set = self.task_set()
        if task_set is None:
            return  # collection reports the broken task files
        try:
            verified(saved, Contracts(task_set.tasks, environments(self.config), task_set.hash))
        except CrmbenchError as exc:
            raise pytest.UsageError(f"{option}: {exc}") from None

    def _saved_run(self, path: Path, option: str) -> SavedRun:
        saved = self._load(path, option)
        self._verify(saved, option)
        return saved

    def _baseline(self) -> list[ResultRecord] | None:
        if self.options.gates.compare is None:
            return None
        saved = self._saved_run(self.options.gates.compare, "--crm-compare")
        if not finished(saved):
            raise pytest.UsageError(f"--crm-compare: {saved.path} did not finish; complete it with --crm-resume first")
        return saved.records

    def _resume(self, path: Path) -> None:
        saved = self._load(path, "--crm-resume")
        assert self.manifest is not None
        problems = resume_mismatches(saved.manifest, self.manifest)
        if problems:
            raise pytest.UsageError(
                f"--crm-resume: {path} was run with other settings; start a new run instead:\n  "
                + "\n  ".join(problems)
            )
        self._verify(saved, "--crm-resume")
        self.previous = {r.key: summary_of(r) for r in saved.records}
        self.manifest = {**saved.manifest, "resumed_at": [*saved.manifest.get("resumed_at", []), utc_now()]}
        self.config.pluginmanager.register(ResumeFilter(self.done()), "crmbench-resume")

    def done(self) -> set[tuple[str, int]]:
        return {key for key, record in self.previous.items() if record.scored}

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        # Workers collect; they deselect finished items with the controller's list, so every
        # worker collects the same items.
        node.workerinput[DONE_INPUT] = sorted(self.done())

    # -- collection: what should produce a result ---------------------------------------------

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        for item in session.items:
            record = getattr(item, "record", None)
            if record is not None:
                self.expected[item.nodeid] = (record.task.id, getattr(item, "trial", 0))

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        for nodeid in ids:
            if is_task_nodeid(nodeid):
                self.expected.setdefault(nodeid, split_nodeid(nodeid))

    # -- results -------------------------------------------------------------------------------

    def pytest_runtest_logstart(self, nodeid: str) -> None:
        if self.run_dir and self.manifest and not self._manifest_written:
            # No "finished" entry until the session ends: a run killed before it is incomplete.
            self.manifest = {**self.manifest, "finished": None}
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
        self.records[record.key] = summary_of(record)
        if self.run_dir is None:
            return
        self.pytest_runtest_logstart(nodeid)  # the manifest first, whatever the hook order
        if not self._write(lambda run_dir: run_dir.append_result(encode_record(record))):
            self.unsaved += 1
        elif isinstance(trace, str):
            self._write(lambda run_dir: run_dir.append_trace(record.domain or "unknown", trace))

    # -- session end -----------------------------------------------------------------------------

    def all_records(self) -> list[ResultRecord]:
        return list({**self.previous, **self.records}.values())

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
        records = self.all_records()
        if self.run_dir and (records or self._manifest_written):
            board = self.build_leaderboard(records)
            self._write(
                lambda run_dir: run_dir.write_leaderboard(
                    self._leaderboard_json(board, records), tables.markdown(board)
                )
            )
            if self.options.html and records and self.write_failure is None:
                self._write_html()
            if self.manifest is not None:
                complete = not interrupted and self.write_failure is None
                self.manifest = {
                    **self.manifest,
                    "finished": {"at": utc_now(), "complete": complete, "results": len(records)},
                }
                self._write(lambda run_dir: run_dir.write_manifest(self.manifest or {}))
        if self.write_failure is not None and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED  # a run that could not be saved did not succeed
        if self.options.gates.active:
            self.verdict = evaluate(self.options.gates, records, self.baseline)
            if self.not_run:
                # A partial run (-x, --maxfail, Ctrl-C) is never a pass, whatever it scored so far.
                failures = [*self.verdict.failures, f"{self.not_run} item(s) not run (the run was interrupted)"]
                self.verdict = GateVerdict(failures, self.verdict.notes, self.verdict.comparison)
            self._gate_exit_status(session, self.verdict)

    def _leaderboard_json(self, board: leaderboard.Leaderboard, records: list[ResultRecord]) -> dict[str, Any]:
        """The tables as data; with --crm-compare, the paired comparison and its flipped tasks too."""
        data = leaderboard.as_json(board)
        if self.baseline is not None:
            comparison = paired.compare(records, self.baseline)
            data["comparison"] = {
                "baseline": str(self.options.gates.compare),
                **(comparison.as_json() if comparison else {"paired_tasks": 0}),
            }
        return data

    def _write_html(self) -> None:
        """``report.html``, with the baseline first when there is one (then it shows the paired comparison)."""
        assert self.run_dir is not None
        runs = [p for p in (self.options.gates.compare, self.run_dir.path) if p is not None]
        task_set = self.task_set()
        root = self.settings.content_root
        files = [root / f for f in task_set.files] if task_set else []
        try:
            self.html_report = write_report(runs, self.run_dir.path / REPORT_HTML, load_sources(files, root))
        except Exception as exc:  # derived from files already written: a failure here must not fail the run
            self.html_problem = f"report.html not written ({type(exc).__name__}: {exc}); crmbench report can retry"

    def _gate_exit_status(self, session: pytest.Session, verdict: GateVerdict) -> None:
        # Like --max-warnings: the gate decides only when nothing else went wrong. A failing
        # ordinary test, a collection error or an interruption keep their exit status.
        gateable = (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED, pytest.ExitCode.NO_TESTS_COLLECTED)
        if session.exitstatus in gateable and not self.other_failures:
            session.exitstatus = pytest.ExitCode.OK if verdict.passed else pytest.ExitCode.TESTS_FAILED
        elif not verdict.passed and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.other_failures += 1

    def build_leaderboard(self, records: list[ResultRecord]) -> leaderboard.Leaderboard:
        name = self.run_dir.path.name if self.run_dir else "this run"
        created = str((self.manifest or {}).get("created_at", ""))
        run = leaderboard.RunInput(name, system_name(self.settings), created, records)
        return leaderboard.build([run], max_unscored=self.options.gates.max_infra or 0)

    def pytest_unconfigure(self) -> None:
        if self.run_dir is not None:
            self.run_dir.close()


def configure(config: pytest.Config, settings: RunSettings, is_worker: bool) -> None:
    """Called from ``pytest_configure``: the recorder on the controller, the resume filter on workers."""
    options = resolve_record_settings(config, settings)
    config.stash[record_settings_key] = options
    if is_worker:
        done = getattr(config, "workerinput", {}).get(DONE_INPUT)
        if done:
            config.pluginmanager.register(ResumeFilter({(t, int(n)) for t, n in done}), "crmbench-resume")
        return
    recorder = RunRecorder(config, settings, options)
    config.stash[recorder_key] = recorder
    config.pluginmanager.register(recorder, "crmbench-recorder")
