"""``crmbench validate [--gold] [--write-lock]``: the release gate of spec §A.5.

Structural validation of the whole task set (schema, unique ids, tools, typed arguments, state
paths, contract consistency, graph exposure, manifest invariants) and, with ``--gold``, the gold
replay from a fresh world plus the null-agent, information-sufficiency and contract mutation
audits. Every problem is collected; the caller prints them together and exits non-zero if there
is any. With ``--gold``, every tool of the task set's domains is also fuzzed with schema-valid
arguments (:mod:`pytest_crmbench.release.fuzz`): no tool may crash on what its schema allows.

A :class:`Selection` (``--domain``, ``--task``) validates part of the set for an author's loop:
only the selected tasks, their domains' worlds, graphs and tools are checked, and only their
problems reported. What is about the whole set — the manifest's counts and invariants, the lock —
is checked only without a selection, and a lock is never written from one.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from fnmatch import fnmatchcase
from pathlib import Path

from pytest_crmbench.core.display import shown
from pytest_crmbench.core.errors import SpecError, SpecErrors
from pytest_crmbench.core.loader import TaskRecord
from pytest_crmbench.env.environment import ToolEnvironment
from pytest_crmbench.release.fuzz import EXAMPLES_PER_TOOL, fuzz_problems
from pytest_crmbench.release.goldstage import CHECK as GOLD_STAGE
from pytest_crmbench.release.goldstage import gold_stages, remember, remembered
from pytest_crmbench.release.lock import lock_problems, write_lock
from pytest_crmbench.release.manifest import Manifest, invariant_problems, load_manifest
from pytest_crmbench.release.mutation.sweep import MutationRun
from pytest_crmbench.release.passed import Passes
from pytest_crmbench.release.structure import exposure_problems, inspect_record
from pytest_crmbench.release.taskset import TaskSet, load_task_set, problem
from pytest_crmbench.release.world import seed_problems


@dataclass(frozen=True)
class Selection:
    """Part of a task set: tasks of these domains (none: any) whose ids match one of these globs (none: any)."""

    domains: tuple[str, ...] = ()
    tasks: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.domains or self.tasks)

    def picks(self, record: TaskRecord) -> bool:
        task = record.task
        in_domain = not self.domains or task.domain in self.domains
        return in_domain and (not self.tasks or any(fnmatchcase(task.id, glob) for glob in self.tasks))

    def text(self) -> str:
        parts = [*(f"domain {d}" for d in self.domains), *(f"task {t}" for t in self.tasks)]
        return ", ".join(parts)


@dataclass
class ValidationReport:
    tasks: int = 0
    gold: bool = False
    selection: Selection = field(default_factory=Selection)
    problems: list[SpecError] = field(default_factory=list)
    survivors: list[SpecError] = field(default_factory=list)
    """Surviving mutants of the contract mutation audit: shown, gated through the domain's score."""
    mutation_summary: list[str] = field(default_factory=list)
    notes: list[SpecError] = field(default_factory=list)
    """Reported, not failing: expected-state leaves that already hold on the untouched world."""
    lock_written: Path | None = None
    seconds: float = 0.0
    reused: list[str] = field(default_factory=list)
    """Checks not run again: they had passed on exactly the same inputs."""

    @property
    def ok(self) -> bool:
        return not self.problems

    def lines(self) -> list[str]:
        """Surviving mutants, one line per problem, then the summaries."""
        scope = (
            "structure, gold replay, null-agent, information-sufficiency and contract mutation audits, tool fuzz"
            if self.gold
            else "structure"
        )
        selected = (
            f" selected by {self.selection.text()} (manifest counts and lock not checked)" if self.selection else ""
        )
        summary = (
            f"crmbench validate: {self.tasks} task(s){selected}, {len(self.problems)} problem(s) ({scope})"
            f" in {self.seconds:.2f}s"
        )
        written = [f"wrote {shown(self.lock_written)}"] if self.lock_written else []
        if self.reused:
            stages = self.reused.count(GOLD_STAGE)
            named = [
                *([f"gold stage of {stages} task(s)"] if stages else []),
                *(r for r in self.reused if r != GOLD_STAGE),
            ]
            written.append("not run again, passed before on the same files and crmbench: " + ", ".join(named))
        survivors = [s.render() for s in self.survivors]
        notes = [f"note: {n.render()}" for n in self.notes]
        if self.notes:
            summary += f"; {len(self.notes)} note(s): expected-state leaves already true at reset"
        return survivors + notes + [p.render() for p in self.problems] + written + self.mutation_summary + [summary]


def validate(
    tasks_dir: Path,
    envs_dir: Path,
    agents_dir: Path,
    *,
    gold: bool = False,
    lock: bool = False,
    fuzz_examples: int = EXAMPLES_PER_TOOL,
    selection: Selection = Selection(),  # frozen: one shared empty default is safe
    passes: Passes | None = None,
    jobs: int = 1,
    progress: Callable[[str], None] = lambda line: None,
) -> ValidationReport:
    """Validate the task set; ``lock=True`` (which implies ``gold``) writes the lock if all is well.

    ``fuzz_examples``: schema-valid calls per tool with ``gold`` (0: no fuzz). ``selection``: only
    part of the set (never with ``lock``). ``passes``: where checks that passed are remembered
    by their inputs (each task's gold stage, each domain's tool fuzz), so nothing unchanged runs
    again. ``jobs``: processes for the gold stages and the fuzz (see :mod:`.forked`).
    ``progress``: told each stage and domain as it starts (the gate takes a minute or more).
    """
    started = time.perf_counter()
    gold = gold or lock  # never freeze a release whose gold paths were not replayed
    task_set = load_task_set(tasks_dir, envs_dir, agents_dir)
    if selection:
        task_set = _selected(task_set, selection)
    report = ValidationReport(
        tasks=len(task_set.records), gold=gold, problems=list(task_set.problems), selection=selection
    )
    if selection and lock:
        report.problems.append(
            SpecError("a lock covers the whole task set: not written from a selection", file=shown(tasks_dir))
        )
        lock = False
    if selection and not task_set.records:
        report.problems.append(SpecError(f"no task matches {selection.text()}", file=shown(tasks_dir)))
    manifest = _manifest(tasks_dir, report)
    report.problems.extend(_graph_problems(task_set))
    seeds = list(_seed_problems(task_set))
    report.problems.extend(problem for _, problem in seeds)
    broken = {domain for domain, _ in seeds}  # no episode can start in a broken world: replay nothing there
    mutations = MutationRun(task_set, manifest)
    remembered = passes or Passes(None)
    counts, current = Counter(record.task.domain for record in task_set.records), None
    checked: list[tuple[TaskRecord, list[SpecError]]] = []
    for record in task_set.records:
        if record.task.domain != current:
            current = record.task.domain
            progress(f"crmbench validate: {current}: {counts[current]} task(s), structure")
        problems, notes = _structure_problems(record, task_set)
        checked.append((record, problems))
        report.notes.extend(notes if record.task.domain not in broken else [])
    sound = [r for r, found in checked if gold and not found and r.task.domain not in broken]
    found_by_stage = _gold_stage_problems(sound, task_set, mutations, remembered, jobs, progress)
    for record, problems in checked:
        report.problems.extend(problems)
        report.problems.extend(found_by_stage.get(id(record), []))
    if gold:
        report.problems.extend(mutations.gate())
        report.survivors = mutations.audit.survivors()
        report.mutation_summary = mutations.audit.summary_lines()
    if gold and fuzz_examples > 0:
        domains = {record.task.domain for record in task_set.records}
        used = {d: env for d, env in task_set.environments.items() if d in domains and d not in broken}
        progress(f"crmbench validate: tool fuzz of {len(used)} domain(s), {fuzz_examples} example(s) per tool")
        report.problems.extend(fuzz_problems(used, fuzz_examples, remembered, jobs=jobs))
    report.reused = remembered.reused
    if manifest is not None and not selection:
        report.problems.extend(invariant_problems(manifest, task_set))
        _lock(task_set, manifest, report, write=lock)
    report.seconds = time.perf_counter() - started
    return report


def _selected(task_set: TaskSet, selection: Selection) -> TaskSet:
    """The selected records, their domains' environments and graphs, and only their problems."""
    records = [record for record in task_set.records if selection.picks(record)]
    ids = {record.task.id for record in records}
    files = {str(record.shown_path or record.path) for record in records}
    domains = {record.task.domain for record in records}
    problems = [
        p
        for p in task_set.problems
        if p.task_id in ids or (p.task_id is None and p.file is not None and str(p.file) in files)
    ]
    return replace(
        task_set,
        records=records,
        environments={d: env for d, env in task_set.environments.items() if d in domains},
        graphs={d: graph for d, graph in task_set.graphs.items() if d in domains},
        problems=problems,
    )


def _manifest(tasks_dir: Path, report: ValidationReport) -> Manifest | None:
    try:
        return load_manifest(tasks_dir)
    except SpecErrors as exc:
        report.problems.extend(exc.errors)
        return None


def _graph_problems(task_set: TaskSet) -> Iterator[SpecError]:
    for domain, graph in task_set.graphs.items():
        environment = task_set.environments.get(domain)
        for node, tools in graph.unknown_tools(environment.tools if environment else ()).items():
            yield SpecError(
                f"node {node!r} exposes unknown tool(s) {', '.join(tools)}",
                file=shown(task_set.graph_files[domain]),
                field="nodes",
            )


def _seed_problems(task_set: TaskSet) -> Iterator[tuple[str, SpecError]]:
    envs_dir = task_set.envs_dir or Path("envs")
    for domain in task_set.domains():
        environment = task_set.environments.get(domain)
        if environment is not None:
            for found in seed_problems(environment, envs_dir / domain):
                yield domain, found


def _structure_problems(record: TaskRecord, task_set: TaskSet) -> tuple[list[SpecError], list[SpecError]]:
    """The task's structural problems (with its graph's exposure) and notes."""
    environment: type[ToolEnvironment] | None = task_set.environments.get(record.task.domain)
    if environment is None:
        return [problem(record, ("domain",), f"no environment for domain {record.task.domain!r}")], []
    inspection = inspect_record(record, environment)
    graph = task_set.graphs.get(record.task.domain)
    return [*inspection.problems, *exposure_problems(record, graph, environment)], inspection.notes


def _gold_stage_problems(
    sound: list[TaskRecord],
    task_set: TaskSet,
    mutations: MutationRun,
    passes: Passes,
    jobs: int,
    progress: Callable[[str], None],
) -> dict[int, list[SpecError]]:
    """Run (or recall) the gold stage of every structurally sound task — a structurally broken one
    would only fail its replay for the same reason — and hand its audit to the mutation run.
    Returns each task's stage problems by the record's identity."""
    environments = task_set.environments
    hints = {d: mutations.hints_for(d, environments[d]) for d in dict.fromkeys(r.task.domain for r in sound)}
    keys, stages = remembered(passes, sound, task_set)
    missing = [i for i, stage in enumerate(stages) if stage is None]
    if sound:
        progress(
            f"crmbench validate: gold replay and audits of {len(missing)} task(s) in {jobs} process(es)"
            f", {len(sound) - len(missing)} unchanged since they passed"
        )
    for i, ran in zip(missing, gold_stages([sound[i] for i in missing], environments, hints, jobs), strict=True):
        stages[i] = ran
        key = keys[i]
        if key is not None:
            remember(passes, key, ran)
    found: dict[int, list[SpecError]] = {}
    for record, stage in zip(sound, stages, strict=True):
        assert stage is not None  # every missing stage was run above
        mutations.include(stage.audit, stage.audit_problems)
        found[id(record)] = stage.problems
    return found


def _lock(task_set: TaskSet, manifest: Manifest, report: ValidationReport, *, write: bool) -> None:
    if not write:
        report.problems.extend(lock_problems(task_set, manifest))
    elif report.problems:
        report.problems.append(
            SpecError("lock not written: fix the problems above first", file=shown(task_set.tasks_dir))
        )
    else:
        report.lock_written = write_lock(task_set, manifest)
