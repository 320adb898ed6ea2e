"""Run the contract mutation audit of one task: replay every derived trajectory and classify it.

A wrong-path mutant is *killed* when at least one programmatic check fails, *survives* when none
does, and is *equivalent* (skipped) when it leaves the end state and the successful writes of the
gold replay unchanged. A right-path variant is *spared* when every check passes and a *false
failure* otherwise. A waiver in the task turns a survivor (or a false failure) into *waived*,
which the report counts and the score leaves out; a waiver that matches nothing is a problem.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pytest_crmbench.core.errors import SpecError
from pytest_crmbench.core.evidence import Evidence, ToolCall
from pytest_crmbench.core.loader import TaskRecord
from pytest_crmbench.core.spec import Trajectory
from pytest_crmbench.env.environment import ToolEnvironment
from pytest_crmbench.release.mutation.conduct_operators import CONDUCT_OPERATORS, DISCLOSING, conduct_wrong_paths
from pytest_crmbench.release.mutation.hints import LoadedHints, MutationHints, Situation
from pytest_crmbench.release.mutation.operators import Gold, Mutant, derive
from pytest_crmbench.release.mutation.trajectory import Replay, replay, steps_of
from pytest_crmbench.release.taskset import problem

Outcome = Literal["killed", "survived", "equivalent", "spared", "false_failure", "waived"]
TrajectoryKind = Literal["alternatives", "counterexamples"]


@dataclass(frozen=True)
class Result:
    """The verdict on one derived trajectory."""

    mutant: Mutant
    outcome: Outcome
    failed_checks: tuple[str, ...] = ()
    waiver: str | None = None
    pending: bool = False
    """An audit-v2 mutant in a domain that declares no conduct rules yet: reported per operator,
    left out of the gated score until the domain's content sweep declares them."""


@dataclass(frozen=True)
class TrajectoryResult:
    """A hand-written alternative or counterexample and whether it behaved as declared."""

    kind: TrajectoryKind
    index: int
    reason: str
    failed_checks: tuple[str, ...]
    as_declared: bool


@dataclass
class TaskAudit:
    record: TaskRecord
    results: list[Result] = field(default_factory=list)
    trajectories: list[TrajectoryResult] = field(default_factory=list)
    problems: list[SpecError] = field(default_factory=list)
    """False failures, misbehaving alternatives or counterexamples, unused waivers: they fail the gate."""
    survivors: list[SpecError] = field(default_factory=list)
    """Surviving wrong paths: reported; they fail the gate only through the domain's score."""
    pending: list[SpecError] = field(default_factory=list)
    """Surviving audit-v2 wrong paths of a domain without conduct rules: the sweep's work list."""


def audit_task(
    record: TaskRecord,
    environment: type[ToolEnvironment],
    hints: MutationHints,
    gold_evidence: Evidence,
) -> TaskAudit:
    """Derive, replay and classify every trajectory of one task whose gold replay is clean.

    Which arguments are prose (never mutated into wrong values) the tools declare themselves
    (``@tool(prose=...)``): no caller decides it, so every audit of a task sees the same paths."""
    task = record.task
    gold = Gold(tuple(steps_of(task.gold.path)), tuple(gold_evidence.tool_calls))
    kinds = {name: spec.kind for name, spec in environment.tools.items()}
    prose = environment.prose_arguments()
    situation = Situation(task, gold.calls, gold_evidence.initial_state, gold_evidence.final_state, prose, kinds)
    audit = TaskAudit(record)
    writes = _ok_writes(environment, gold_evidence.tool_calls)
    waivers = {w.mutation: w.reason for w in task.mutation_waivers}
    pending = environment.conduct is None
    for mutant in [
        *derive(environment, hints, gold, situation),
        *conduct_wrong_paths(environment, hints, gold, situation),
    ]:
        played = replay(task, environment, mutant.steps)
        result = _classify(mutant, played, gold_evidence, writes, environment, waivers.get(mutant.id))
        if pending and mutant.operator in CONDUCT_OPERATORS:
            result = Result(result.mutant, result.outcome, result.failed_checks, result.waiver, pending=True)
        audit.results.append(result)
    for kind in ("alternatives", "counterexamples"):
        for index, trajectory in enumerate(getattr(task, kind)):
            _audit_trajectory(audit, environment, kind, index, trajectory)
    _report(audit, waivers)
    return audit


def audited(
    record: TaskRecord, environment: type[ToolEnvironment], loaded: LoadedHints, gold: Evidence
) -> tuple[TaskAudit | None, list[SpecError]]:
    """The task's audit, or why there is none: hints the domain got wrong would make every verdict
    meaningless, and a bug in them is reported where it happened."""
    if loaded.problems:
        return None, []
    try:
        return audit_task(record, environment, loaded.hints, gold), []
    except Exception as exc:
        where = f"{loaded.source.name} " if loaded.source else ""
        message = f"the mutation audit failed on this task: {where}raised {type(exc).__name__}: {exc}"
        return None, [problem(record, ("gold",), message)]


def _ok_writes(environment: type[ToolEnvironment], calls: Sequence[ToolCall]) -> list[tuple[str, Any]]:
    return [
        (c.name, c.graded_arguments())
        for c in calls
        if c.status == "ok" and (c.name not in environment.tools or environment.tools[c.name].kind == "write")
    ]


def _classify(
    mutant: Mutant,
    played: Replay,
    gold: Evidence,
    gold_writes: list[tuple[str, Any]],
    environment: type[ToolEnvironment],
    waiver: str | None,
) -> Result:
    failed = tuple(played.failed_checks())
    if mutant.kind == "right":
        if not failed:
            return Result(mutant, "spared")
        return Result(mutant, "waived" if waiver else "false_failure", failed, waiver)
    if _equivalent(mutant, played, gold, gold_writes, environment):
        return Result(mutant, "equivalent")
    if failed:
        return Result(mutant, "killed", failed)
    return Result(mutant, "waived" if waiver else "survived", (), waiver)


def _equivalent(
    mutant: Mutant,
    played: Replay,
    gold: Evidence,
    gold_writes: list[tuple[str, Any]],
    environment: type[ToolEnvironment],
) -> bool:
    calls = played.evidence.tool_calls
    if mutant.inserted:
        # A forbidden move the tools refused did nothing the policy has to stop.
        added = [calls[i] for i in mutant.inserted if i < len(calls)]
        if all(call.status != "ok" for call in added):
            return True
        # A read of "someone else's" record that disclosed nobody new (the tool filtered by the
        # customer anyway): nothing the conduct rules have to stop. Told only where calls are stamped.
        if mutant.operator in DISCLOSING and all(call.access is not None for call in added):
            seen = {owner for call in gold.tool_calls if call.access for owner in call.access.read}
            return all(set(call.access.read) <= seen for call in added if call.access is not None)
        return False
    if mutant.policy:
        return False
    return played.evidence.final_state == gold.final_state and _ok_writes(environment, calls) == gold_writes


def _audit_trajectory(
    audit: TaskAudit, environment: type[ToolEnvironment], kind: TrajectoryKind, index: int, trajectory: Trajectory
) -> None:
    record = audit.record
    played = replay(record.task, environment, steps_of(trajectory.path))
    failed = tuple(played.failed_checks())
    for step, written, call in played.status_mismatches():
        detail = (call.error or {}).get("message", "") if call.error else "it succeeded"
        audit.problems.append(
            problem(
                record,
                (kind, index, "path", step),
                f"{written.tool}: expected {written.expect}, got {call.status}: {detail}",
            )
        )
    as_declared = not failed if kind == "alternatives" else bool(failed)
    audit.trajectories.append(TrajectoryResult(kind, index, trajectory.reason, failed, as_declared))
    if not as_declared:
        message = (
            f"alternative fails the contract ({', '.join(failed)}): the contract rejects a right path"
            if kind == "alternatives"
            else "counterexample passes every programmatic check: the contract accepts a wrong path"
        )
        audit.problems.append(problem(record, (kind, index), message))


def _report(audit: TaskAudit, waivers: Mapping[str, str]) -> None:
    record = audit.record
    for result in audit.results:
        mutant = result.mutant
        where: tuple[int | str, ...] = ("gold", "path", mutant.step) if mutant.step is not None else ("contract",)
        if result.outcome == "survived":
            (audit.pending if result.pending else audit.survivors).append(
                problem(
                    record,
                    where,
                    f"mutant {mutant.id!r} survives: it passes every programmatic check ({mutant.description})",
                )
            )
        elif result.outcome == "false_failure":
            audit.problems.append(
                problem(
                    record,
                    where,
                    f"right path {mutant.id!r} fails {', '.join(result.failed_checks)} ({mutant.description}): "
                    "the contract is over-specified",
                )
            )
    outcomes = {r.mutant.id: r.outcome for r in audit.results}
    for index, (mutation, _) in enumerate(waivers.items()):
        outcome = outcomes.get(mutation)
        if outcome == "waived":
            continue
        why = "no such mutation" if outcome is None else f"the mutant is {outcome.replace('_', ' ')}"
        loc = ("mutation_waivers", index, "mutation")
        audit.problems.append(problem(record, loc, f"unused waiver {mutation!r}: {why}; remove it"))
