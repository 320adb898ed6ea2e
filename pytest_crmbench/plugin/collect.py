"""Task files as pytest collectors, task records as items.

Items are :class:`pytest.Function` subclasses whose ``callobj`` is :func:`run_crm_task`, so they
request fixtures like any test function (no private fixture API): ``--lf``, reruns, xdist and
``usefixtures`` work unchanged.
"""

from __future__ import annotations

import functools
from typing import Any

import pytest

from pytest_crmbench.core.display import shown
from pytest_crmbench.core.errors import CrmbenchError, SpecError, SpecErrors, UnknownDomainError
from pytest_crmbench.core.evidence import FAILED_TERMINATIONS, Evidence
from pytest_crmbench.core.families import declared_at
from pytest_crmbench.core.loader import TaskIds, TaskRecord, field_line, load_task_file
from pytest_crmbench.core.spec import DIFFICULTIES, Task
from pytest_crmbench.core.usage import UsageLedger
from pytest_crmbench.core.users import User
from pytest_crmbench.env.environment import ToolEnvironment
from pytest_crmbench.env.registry import environment_for
from pytest_crmbench.grading import ReplyJudge
from pytest_crmbench.grading.verdict import CheckVerdict, TaskVerdict
from pytest_crmbench.plugin.runoptions import record_settings_key
from pytest_crmbench.plugin.stash import (
    environments,
    evidence_key,
    played_key,
    registered_markers_key,
    settings_key,
    task_ids_key,
    verdict_key,
)
from pytest_crmbench.plugin.warnpolicy import mark_task_item
from pytest_crmbench.reference.catalog import agent_label
from pytest_crmbench.release.structure import structure_problems
from pytest_crmbench.results.records import finished_properties
from pytest_crmbench.results.render import transcript
from pytest_crmbench.run.baselines import GoldAgent
from pytest_crmbench.run.episode import Agent
from pytest_crmbench.run.play import play
from pytest_crmbench.run.settings import RunSettings

OUTCOME_PROPERTY = "crm_outcome"
"""``user_properties`` name of the task's outcome, read by the terminal status of its report."""


def unscored_outcome(report: pytest.TestReport) -> str | None:
    """``infra`` or ``error`` for the call report of a task whose result is not scored, else None."""
    if report.when != "call" or not report.failed or isinstance(report, pytest.SubtestReport):
        return None
    outcome = dict(report.user_properties).get(OUTCOME_PROPERTY)  # tuples arrive as lists under xdist
    return str(outcome) if outcome in ("infra", "error") else None


class CheckFailed(AssertionError):
    """A declared check failed; rendered as the verdict's diff, not a traceback."""

    def __init__(self, verdict: CheckVerdict) -> None:
        self.verdict = verdict
        super().__init__(verdict.render())


class EpisodeFailed(AssertionError):
    """The episode itself failed (limit reached, agent abort, infrastructure, broken gold path)."""


class TaskFile(pytest.File):
    """One ``tasks/<domain>.yaml``: a list of task records."""

    def collect(self) -> list[TaskItem]:
        settings = self.config.stash[settings_key]
        path = shown(self.path, settings.content_root)
        try:
            records = load_task_file(self.path, display_path=path)
            _check_domains(records, environments(self.config), path)
            _check_structure(records, environments(self.config))
            ids = self.config.stash.setdefault(task_ids_key, TaskIds())
            duplicates = ids.duplicates(records)
            if duplicates:
                raise SpecErrors(duplicates)
            ids.add(records)
        except CrmbenchError as exc:
            raise self.CollectError(str(exc)) from None
        trials = settings.trials
        items: list[TaskItem] = []
        shared: dict[str, Any] = {}
        for record in records:
            # One item per trial (pytest's parametrize does not reach these items); the trial is
            # 0-based like Evidence.trial and seeds, and shown 1-based: id[t1] ... id[tk].
            for trial in range(trials):
                name = record.task.id if trials == 1 else f"{record.task.id}[t{trial + 1}]"
                item = TaskItem.from_parent(self, name=name, callobj=run_crm_task, record=record, trial=trial, **shared)
                # Every item of a file runs one function under one parent: one fixture closure
                # serves them all, as pytest shares one among a parametrized function's items
                # (each item's own copy was about 1.9 KiB an episode kept to the end, issue 33).
                # pytest takes the closure as Function's public ``fixtureinfo`` argument but has
                # no public way to read one back; a pytest without ``_fixtureinfo`` only loses
                # the saving (each item computes its own, as before).
                closure = getattr(item, "_fixtureinfo", None)
                if closure is not None:
                    shared.setdefault("fixtureinfo", closure)
                items.append(item)
        return items


def _check_structure(records: list[TaskRecord], environments: dict[str, type[ToolEnvironment]]) -> None:
    """The gate's structural validation (``crmbench validate`` runs the same function)."""
    found = [p for record in records for p in structure_problems(record, environments[record.task.domain])]
    if found:
        raise SpecErrors(found)


def _check_domains(records: list[TaskRecord], environments: dict[str, type[ToolEnvironment]], shown: str) -> None:
    errors = []
    for record in records:
        try:
            environment_for(record.task.domain, environments)
        except UnknownDomainError as exc:
            errors.append(
                SpecError(
                    str(exc), file=shown, line=field_line(record, ("domain",)), task_id=record.task.id, field="domain"
                )
            )
    if errors:
        raise SpecErrors(errors)


class TaskItem(pytest.Function):
    """One task record: an episode, then one sub-assertion per declared check."""

    def __init__(self, *, record: TaskRecord, trial: int = 0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._parse_node_id()
        self.record = record
        self.trial = trial
        register_markers(self.config, record.task)
        for marker in record.task.markers():
            self.add_marker(_mark(marker))
        mark_task_item(self)  # a warning filter that raises does not decide a task (issue 32 item 7)

    def _parse_node_id(self) -> None:
        """pytest 9 keeps a parsed node id (``id``) beside the text. Built from the name, a trial's
        ``task[t1]`` is one name with brackets in it; parsed from the text — as every report
        rebuilt from text is, subtest reports and xdist's — it is the name ``task`` with the
        parameter ``t1``. pytest compares them (its progress counted every trial twice, up to
        [200%]), so the item's own is parsed from its text too. Older pytest has no parsed id."""
        node_id: Any = getattr(self, "_id", None)
        if "[" in self.name and hasattr(node_id, "parse"):
            self._id = node_id.parse(self.nodeid)

    @property
    def task(self) -> Any:
        return self.record.task

    def reportinfo(self) -> tuple[Any, int, str]:
        return self.path, self.record.line - 1, f"task {self.record.task.id}"

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException]) -> Any:  # type: ignore[override]
        if isinstance(excinfo.value, CheckFailed):
            # The check's own line in the YAML, not the task's first line (issue 12 item 9).
            loc = declared_at(self.record.task.contract, excinfo.value.verdict.name)
            return f"{self.record.location_of(loc)}: {excinfo.value}"
        if isinstance(excinfo.value, EpisodeFailed):
            return f"{self.record.location}: {excinfo.value}"
        return super().repr_failure(excinfo)


@functools.cache
def _mark(name: str) -> pytest.MarkDecorator:
    # One mark object per name for every item: marks are immutable, and a release run's items
    # would otherwise each keep their own copies of the same few (issue 33, memory per episode).
    return getattr(pytest.mark, name)  # type: ignore[no-any-return]


def register_markers(config: pytest.Config, task: Task) -> None:
    """Register a task's markers (before ``add_marker``, so ``--strict-markers`` accepts them)."""
    registered = config.stash[registered_markers_key]
    kinds = {task.domain: "domain", **dict.fromkeys(task.capabilities, "capability tag")}
    for marker in task.markers():
        if marker not in registered and marker not in DIFFICULTIES:
            kind = kinds.get(marker, "task mark")
            config.addinivalue_line("markers", f"{marker}: crmbench {kind}")
            registered.add(marker)


def run_crm_task(
    crm_task: Any,
    crm_env: ToolEnvironment,
    crm_agent: Agent,
    crm_user: User,
    crm_judge: ReplyJudge,
    crm_settings: RunSettings,
    crm_usage: UsageLedger,
    subtests: pytest.Subtests,
    request: pytest.FixtureRequest,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The body of every task item.

    ``capsys`` is held, not used: with it active, pytest's subtests do not start a capture of their
    own for every check (two temporary files and four dup2s with ``--capture=fd``, 3 ms an item of
    16 checks, ``benchmarks/bench_overhead.py``'s pytest floor). What the item prints still reaches
    its report, as pytest keeps a test's output.
    """
    item = request.node
    ahead = item.stash.get(played_key, None)
    if ahead is not None:
        # --crm-concurrency played this episode in the background with the same fixtures' builders.
        played = ahead.result()
        del item.stash[played_key]  # the agent fixture has its agent; the future holds the episode
    else:
        played = play(
            crm_task,
            crm_env,
            crm_agent,
            crm_user,
            crm_judge,
            crm_settings,
            crm_usage,
            agent_name=agent_label(crm_agent, crm_settings.agent),
            trial=getattr(item, "trial", 0),
        )
    evidence, verdict, crm_agent = played.evidence, played.verdict, played.agent
    item.stash[evidence_key] = evidence
    item.stash[verdict_key] = verdict
    # The result record travels to the controller on the report (before any check can fail).
    item.user_properties.append((OUTCOME_PROPERTY, verdict.outcome))
    item.user_properties.extend(
        finished_properties(
            crm_task,
            evidence,
            verdict,
            settings=crm_settings,
            latency_s=played.latency_s,
            nodeid=item.nodeid,
            with_trace=item.config.stash[record_settings_key].run_dir is not None,
            update=lambda record: item.ihook.pytest_crmbench_update_result_record(record=record, item=item),
        )
    )
    problem = _episode_problem(verdict, evidence, crm_agent)
    try:
        for check in verdict.checks:
            with subtests.test(msg=check.name):
                if check.status == "not_judged":
                    # Located at the task record, not at this line of the plugin.
                    raise pytest.skip.Exception(check.diff, _use_item_location=True)
                if check.status == "failed":
                    raise CheckFailed(check)
    finally:
        # Added after the checks (a section added before would be repeated in every subtest
        # report) but also when -x re-raises the first failed check. Only a failing item shows
        # it, so only a failing item keeps it: pytest holds every report until the run ends, and
        # a passing item's trajectory is in the run directory (memory flat in run length, issue 14).
        if problem or any(check.status == "failed" for check in verdict.checks):
            item.add_report_section("call", "crm transcript", transcript(evidence))
    if problem:
        raise EpisodeFailed(problem)


def _episode_problem(verdict: TaskVerdict, evidence: Evidence, agent: Agent) -> str | None:
    if verdict.outcome == "infra":
        # One line: it is what the short summary shows next to the ERROR (issue 12).
        detail = (verdict.detail or evidence.termination.detail or "").strip().splitlines()
        return f"infrastructure failure (excluded from the score): {(detail or ['no detail'])[0][:300]}"
    if verdict.outcome == "error":
        # The first line for the short summary, then the traceback: a bug to fix, not a result.
        return f"harness error (excluded from the score; a bug in crmbench or a domain): {evidence.termination.detail}"
    if evidence.termination.reason == "tampered":
        return f"TAMPERED: {evidence.termination.detail} (the episode fails)"
    if evidence.termination.reason in FAILED_TERMINATIONS:
        return f"episode ended by {evidence.termination.reason}: {evidence.termination.detail}"
    if isinstance(agent, GoldAgent) and agent.mismatches:
        return "gold path broken:\n" + "\n".join(
            f"  step {m.step} {m.call.tool}: expected {m.call.expect}, got {m.status}: {m.detail}"
            for m in agent.mismatches
        )
    return None
