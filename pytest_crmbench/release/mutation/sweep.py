"""The mutation audit over a whole task set: hints per domain, then every task with a clean gold replay."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pytest_crmbench.core.display import shown
from pytest_crmbench.core.errors import SpecError, SpecErrors
from pytest_crmbench.core.evidence import Evidence
from pytest_crmbench.core.hashing import file_hash
from pytest_crmbench.core.loader import TaskRecord
from pytest_crmbench.env.environment import ToolEnvironment
from pytest_crmbench.release.audit import source_revision
from pytest_crmbench.release.forked import forked_map
from pytest_crmbench.release.goldstage import remembered
from pytest_crmbench.release.manifest import Manifest, load_manifest
from pytest_crmbench.release.mutation.hints import LoadedHints, load_hints
from pytest_crmbench.release.mutation.run import TaskAudit, audited
from pytest_crmbench.release.mutation.scoring import MutationAudit
from pytest_crmbench.release.passed import Passes
from pytest_crmbench.release.replay import gold_problems
from pytest_crmbench.release.structure import check_record
from pytest_crmbench.release.taskset import TaskSet, load_task_set, problem


@dataclass
class MutationRun:
    """Hints loaded once per domain; tasks audited one by one as their gold replay comes in."""

    task_set: TaskSet
    manifest: Manifest | None
    audit: MutationAudit = field(default_factory=MutationAudit)
    hints: dict[str, LoadedHints] = field(default_factory=dict)

    def hints_for(self, domain: str, environment: type[ToolEnvironment]) -> LoadedHints:
        """The domain's hints, loaded (and their problems reported) once."""
        if domain not in self.hints:
            self.hints[domain] = load_hints(environment)
            self.audit.problems.extend(self.hints[domain].problems)
            self.audit.identity_tools[domain] = self.hints[domain].hints.identity_tool
        return self.hints[domain]

    def add(self, record: TaskRecord, environment: type[ToolEnvironment], gold: Evidence) -> None:
        """Audit one task whose gold replay passed its own contract."""
        loaded = self.hints_for(record.task.domain, environment)
        self.include(*audited(record, environment, loaded, gold))

    def include(self, audit: TaskAudit | None, problems: list[SpecError]) -> None:
        """A task's audit (None: not audited) and the problems of auditing it."""
        if audit is not None:
            self.audit.tasks.append(audit)
        self.audit.problems.extend(problems)

    def gate(self) -> list[SpecError]:
        files = {r.task.domain: r.shown_path or str(r.path) for r in reversed(self.task_set.records)}
        return self.audit.gate(files)

    def input_hashes(self) -> dict[str, str]:
        inputs = [*self.task_set.files, *(h.source for h in self.hints.values() if h.source is not None)]
        return {shown(path): file_hash(path) for path in sorted(inputs)}


@dataclass
class MutationAuditResult:
    """What ``crmbench audit --mutations`` prints and where it wrote the JSON evidence."""

    run: MutationRun
    skipped: list[SpecError]
    problems: list[SpecError]
    out: Path | None

    @property
    def ok(self) -> bool:
        return not self.problems and not self.skipped

    def lines(self, *, verbose: bool = False) -> list[str]:
        audit = self.run.audit
        lines = [*(audit.task_lines() if verbose else [])]
        lines += [s.render() for s in audit.survivors()]
        lines += [s.render() for s in audit.pending()] if verbose else []
        lines += [p.render() for p in [*self.skipped, *self.problems]]
        lines += audit.operator_lines()
        lines += audit.blind_spot_lines()
        lines += audit.summary_lines()
        lines.append(
            f"crmbench audit --mutations: {len(audit.tasks)} task(s) audited, {len(self.skipped)} not audited, "
            f"{len(self.problems)} problem(s); " + (f"wrote {shown(self.out)}" if self.out else "nothing written")
        )
        return lines


def run_mutation_audit(
    tasks_dir: Path, envs_dir: Path, agents_dir: Path, out: Path, *, jobs: int = 1, passes: Passes | None = None
) -> MutationAuditResult:
    """Audit the task set and write the JSON evidence (not when the task set does not load).

    With ``passes``, a task whose gold stage ``crmbench validate --gold`` remembered there, on the
    same inputs, keeps that stage's audit instead of being audited again.
    """
    run, skipped = audit_task_set(tasks_dir, envs_dir, agents_dir, jobs=jobs, passes=passes)
    problems = run.gate()
    if run.task_set.problems or not run.task_set.records:
        return MutationAuditResult(run, skipped, problems, None)
    write_report(run, out, skipped)
    return MutationAuditResult(run, skipped, problems, out)


CHUNK = 6
"""Tasks per job of a child process (see :mod:`pytest_crmbench.release.forked`)."""


def audit_task_set(
    tasks_dir: Path, envs_dir: Path, agents_dir: Path, *, jobs: int = 1, passes: Passes | None = None
) -> tuple[MutationRun, list[SpecError]]:
    """Audit every task that is structurally sound and whose gold path passes its contract, in
    ``jobs`` processes.

    The second value lists why tasks were left out (run ``crmbench validate --gold`` for detail).
    """
    task_set = load_task_set(tasks_dir, envs_dir, agents_dir)
    try:
        manifest: Manifest | None = load_manifest(tasks_dir)
    except SpecErrors:
        manifest = None  # validate reports a broken manifest; without it no argument is free text
    run = MutationRun(task_set, manifest)
    skipped = list(task_set.problems)
    records = []
    for record in task_set.records:
        environment = task_set.environments.get(record.task.domain)
        if environment is None:
            skipped.append(problem(record, ("domain",), f"no environment for domain {record.task.domain!r}"))
        else:
            run.hints_for(record.task.domain, environment)
            records.append(record)
    outcomes = _remembered_audits(records, task_set, passes)
    missing = [i for i in range(len(records)) if i not in outcomes]
    chunks = [[records[i] for i in missing[start : start + CHUNK]] for start in range(0, len(missing), CHUNK)]
    ran = (outcome for chunk in forked_map(_audited_chunk, (task_set, run.hints), chunks, jobs) for _, outcome in chunk)
    outcomes.update(zip(missing, ran, strict=True))  # chunks come back in order, as copies from a child
    for i, record in enumerate(records):  # in the task set's order, remembered or not
        outcome = outcomes[i]
        if outcome is None:
            skipped.append(problem(record, ("gold",), "not audited: run `crmbench validate --gold` for its problems"))
        else:
            run.include(*outcome)
    return run, skipped


def _remembered_audits(
    records: list[TaskRecord], task_set: TaskSet, passes: Passes | None
) -> dict[int, tuple[TaskAudit | None, list[SpecError]] | None]:
    """By position in ``records``, the audit of each task whose clean gold stage the gate remembered
    on the same inputs (the task, its domain's files and graph, crmbench itself): the gate ran this
    very audit then (:func:`audited`), so it is not run a second time."""
    if passes is None or passes.root is None:
        return {}
    _, stages = remembered(passes, records, task_set)
    return {
        i: (stage.audit, stage.audit_problems)
        for i, stage in enumerate(stages)
        if stage is not None and stage.audit is not None
    }


def _audited_chunk(
    shared: tuple[TaskSet, Mapping[str, LoadedHints]], chunk: list[TaskRecord]
) -> list[tuple[TaskRecord, tuple[TaskAudit | None, list[SpecError]] | None]]:
    """Each record's audit, or None where its structure or its gold replay is broken."""
    task_set, hints = shared
    outcomes: list[tuple[TaskRecord, tuple[TaskAudit | None, list[SpecError]] | None]] = []
    for record in chunk:
        environment = task_set.environments[record.task.domain]
        found = check_record(record, environment, task_set.graphs.get(record.task.domain))
        evidence, replay = (None, []) if found else gold_problems(record, environment)
        if found or replay or evidence is None:
            outcomes.append((record, None))
        else:
            outcomes.append((record, audited(record, environment, hints[record.task.domain], evidence)))
    return outcomes


def write_report(run: MutationRun, out: Path, not_audited: list[SpecError]) -> None:
    report = run.audit.as_json(
        problems=run.gate(),
        not_audited=not_audited,
        source_revision=source_revision(run.task_set.tasks_dir),
        input_hashes=run.input_hashes(),
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
