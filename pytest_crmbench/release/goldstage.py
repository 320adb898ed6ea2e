"""The gold stage of one task: what ``--gold`` adds to its structural checks, remembered by its inputs.

For a structurally sound task the gate replays the gold path, plays the null agent, audits the
information the gold path uses and runs the contract mutation audit (about 16 replays a task):
nine tenths of the gate's time. Each of these is deterministic and depends only on the task, its
domain's folder (tools, policy, hints, seed), its graph and crmbench itself, so a stage whose
inputs did not change is not run again (:func:`stage_key`), and stages run in parallel, a few
tasks at a time per process (:func:`gold_stages`).

What is remembered is the stage's own result, survivors included, but never a stage with a
problem (a failure is always recomputed, so its message is fresh). It is stored with pickle, the
one format that keeps an audit whole: the cache sits in the project beside the domain code the
gate imports and runs anyway, so whoever can write it can already change what the gate executes;
an unreadable or foreign entry is ignored and the stage recomputed.
"""

from __future__ import annotations

import math
import pickle
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pydantic

from pytest_crmbench.core.errors import SpecError
from pytest_crmbench.core.hashing import content_hash
from pytest_crmbench.core.loader import LineTree, TaskRecord
from pytest_crmbench.env.environment import ToolEnvironment
from pytest_crmbench.release.forked import forked_map
from pytest_crmbench.release.lock import environment_files
from pytest_crmbench.release.mutation.hints import LoadedHints
from pytest_crmbench.release.mutation.run import TaskAudit, audited
from pytest_crmbench.release.passed import Passes
from pytest_crmbench.release.replay import gold_problems, null_agent_problems
from pytest_crmbench.release.sufficiency import information_problems
from pytest_crmbench.release.taskset import TaskSet

CHECK = "gold stage"
CHUNK = 6
"""Tasks per parallel job at most: small enough that the processes finish together, large enough
that sending the results back costs little."""


@dataclass
class GoldStage:
    """What the gold stage found on one task."""

    line: int
    """The task's first line when the stage ran: remembered results are moved by the difference."""
    problems: list[SpecError] = field(default_factory=list)
    """The gold replay's, the null agent's and the information audit's problems."""
    audit: TaskAudit | None = None
    """The contract mutation audit; None when the gold path fails its contract or the domain's
    hints are broken (mutants of a broken gold path prove nothing)."""
    audit_problems: list[SpecError] = field(default_factory=list)
    """The mutation audit raised on this task (a bug in the domain's hints)."""

    @property
    def clean(self) -> bool:
        audit_clean = self.audit is None or not self.audit.problems
        return not self.problems and not self.audit_problems and audit_clean


def run_gold_stage(record: TaskRecord, environment: type[ToolEnvironment], hints: LoadedHints) -> GoldStage:
    """Replay the task's gold path and audit it; the audit only when the replay is clean."""
    evidence, replay = gold_problems(record, environment)
    stage = GoldStage(line=record.line)
    if not replay:  # mutants of a broken gold path prove nothing
        stage.audit, stage.audit_problems = audited(record, environment, hints, evidence)
    free_text = {f"{tool}.{arg}" for tool, args in environment.prose_arguments().items() for arg in args}
    stage.problems = [
        *replay,
        *null_agent_problems(record, environment),
        *information_problems(record, evidence, environment, free_text),
    ]
    return stage


# -- remembered stages -------------------------------------------------------------------------


def domain_inputs(task_set: TaskSet) -> dict[str, object]:
    """Per domain, what every one of its stages depends on besides the task: its folder's files and
    its graph. A domain defined in code (no folder) has no files to key it by: never remembered."""
    inputs: dict[str, object] = {}
    for domain, environment in task_set.environments.items():
        folder = _folder(environment)
        if folder is not None:
            graph = task_set.graphs.get(domain)
            inputs[domain] = {"files": environment_files(folder), "graph": content_hash(graph) if graph else None}
    return inputs


def _folder(environment: type[ToolEnvironment]) -> Path | None:
    module = sys.modules.get(environment.__module__)
    source = getattr(module, "__file__", None)
    folder = Path(source).parent if source else None
    return folder if folder is not None and (folder / "environment.py").is_file() else None


def stage_key(record: TaskRecord, domain: object) -> str:
    """The task's content, the layout of its lines (results name lines), its domain's inputs, and
    the libraries whose objects a remembered result holds."""
    return Passes.key(
        CHECK,
        task=content_hash(record.task),
        layout=_relative(record.lines, record.line),
        domain=domain,
        python=sys.version,
        pydantic=pydantic.VERSION,
    )


def remembered(
    passes: Passes, records: Sequence[TaskRecord], task_set: TaskSet
) -> tuple[list[str | None], list[GoldStage | None]]:
    """Each record's stage key (None: its domain has no folder to key it by) and its remembered
    stage, moved to where the task is now (None: not remembered)."""
    inputs = domain_inputs(task_set)
    keys = [stage_key(r, inputs[r.task.domain]) if r.task.domain in inputs else None for r in records]
    stages = [recall(passes, key, r) if key is not None else None for r, key in zip(records, keys, strict=True)]
    return keys, stages


def _relative(tree: LineTree | None, start: int) -> object:
    if tree is None:
        return None
    line, children = tree
    if isinstance(children, dict):
        return [line - start, {key: _relative(child, start) for key, child in children.items()}]
    if isinstance(children, list):
        return [line - start, [_relative(child, start) for child in children]]
    return [line - start, None]


def recall(passes: Passes, key: str, record: TaskRecord) -> GoldStage | None:
    """The remembered stage of an unchanged task, moved to where the task is now; None if unknown."""
    data = passes.recall(key, CHECK)
    try:
        stage = pickle.loads(data) if data is not None else None
    except Exception:  # written by another crmbench, or damaged: the stage simply runs again
        stage = None
    if not isinstance(stage, GoldStage):
        if data is not None:
            passes.reused.pop()  # not reused after all
        return None
    return _moved(stage, record)


def remember(passes: Passes, key: str, stage: GoldStage) -> None:
    if stage.clean:
        passes.store(key, pickle.dumps(stage, protocol=pickle.HIGHEST_PROTOCOL))


def _moved(stage: GoldStage, record: TaskRecord) -> GoldStage:
    """The stage with its messages pointing at the task's current file and lines."""
    shift, file = record.line - stage.line, record.shown_path or str(record.path)

    def move(errors: list[SpecError]) -> list[SpecError]:
        return [
            SpecError(
                e.message,
                file=file if e.task_id == record.task.id else e.file,
                line=e.line + shift if e.line is not None and e.task_id == record.task.id else e.line,
                task_id=e.task_id,
                field=e.field,
            )
            for e in errors
        ]

    stage.problems, stage.audit_problems = move(stage.problems), move(stage.audit_problems)
    if stage.audit is not None:
        audit = stage.audit
        audit.record = record
        audit.problems, audit.survivors, audit.pending = (
            move(audit.problems),
            move(audit.survivors),
            move(audit.pending),
        )
    stage.line = record.line
    return stage


# -- in parallel -------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Sound:
    """What a child needs to run stages: the records, their domains and the domains' hints."""

    records: Sequence[TaskRecord]
    environments: Mapping[str, type[ToolEnvironment]]
    hints: Mapping[str, LoadedHints]


def gold_stages(
    records: Sequence[TaskRecord],
    environments: Mapping[str, type[ToolEnvironment]],
    hints: Mapping[str, LoadedHints],
    jobs: int,
) -> Iterator[GoldStage]:
    """Each record's stage, in the records' order, in ``jobs`` processes."""
    size = max(1, min(CHUNK, math.ceil(len(records) / (4 * jobs))))  # a few jobs per process at least
    chunks = [range(start, min(start + size, len(records))) for start in range(0, len(records), size)]
    for stages in forked_map(_stages_of, _Sound(records, environments, hints), chunks, jobs):
        yield from stages


def _stages_of(sound: _Sound, chunk: range) -> list[GoldStage]:
    stages = []
    for record in (sound.records[i] for i in chunk):
        domain = record.task.domain
        stages.append(run_gold_stage(record, sound.environments[domain], sound.hints[domain]))
    return stages


__all__ = [
    "GoldStage",
    "domain_inputs",
    "gold_stages",
    "recall",
    "remember",
    "remembered",
    "run_gold_stage",
    "stage_key",
]
