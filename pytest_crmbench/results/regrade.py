"""Re-grading saved trajectories against the current contracts, without calling any model.

For each trajectory the final state is rebuilt by replaying the recorded tool calls that reached
a tool (``ok``, ``rejected``, and ``error`` calls whose tool raised) on a fresh environment with
the recorded seed, and compared with the recorded final state: a difference means the domain is
not deterministic (or changed since the run), and is reported as such. The task is then graded
on the replayed evidence. Reply criteria keep the saved judge verdict when the criterion text is
unchanged; otherwise they are ``not_judged`` (re-judging would need a model).

Inputs: a run directory (its ``traces/*.jsonl``), or a trajectory file written outside pytest:
the public trajectory format is the Evidence JSON (``crmbench schema --kind trajectory``), one
object, a list of them, JSON Lines, or trace entries ``{"evidence": ..., "verdict": ...}``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from pytest_crmbench.core.errors import CrmbenchError
from pytest_crmbench.core.evidence import Evidence, ToolCall, jsonable
from pytest_crmbench.core.spec import Task
from pytest_crmbench.core.taskfiles import TaskFiles
from pytest_crmbench.env.environment import ToolEnvironment
from pytest_crmbench.env.registry import discover, environment_for
from pytest_crmbench.grading import grade, not_judged
from pytest_crmbench.grading.verdict import CheckVerdict
from pytest_crmbench.results.records import ResultRecord, build_record, error_record
from pytest_crmbench.results.rundir import MANIFEST, latest_traces
from pytest_crmbench.results.runtasks import load_run_tasks
from pytest_crmbench.run.settings import RunSettings

REPLAYED_STATUSES = frozenset({"ok", "rejected"})


@dataclass(frozen=True)
class Regraded:
    record: ResultRecord
    before: str | None
    """The saved outcome (None for a trajectory from outside pytest)."""
    nondeterminism: list[str] = field(default_factory=list)

    @property
    def label(self) -> str:
        return f"{self.record.task_id}[t{self.record.trial + 1}]"


def reached_tool(call: ToolCall) -> bool:
    """Whether the call ran the tool (and so may have used the clock, the id source or the state)."""
    return call.status in REPLAYED_STATUSES or (call.error or {}).get("type") == "internal_error"


def replay(task: Task, env_class: type[ToolEnvironment], evidence: Evidence) -> tuple[Evidence, list[str]]:
    """The evidence rebuilt on a fresh environment, and every way it differs from the recording."""
    env = env_class(task.initial_state, seed=evidence.seed)
    problems = []
    if jsonable(env.initial_state) != jsonable(evidence.initial_state):
        problems.append("initial state differs from the recording (task or domain changed since the run)")
    calls = []
    for recorded in evidence.tool_calls:
        if not reached_tool(recorded):
            # Refused before any tool ran: nothing to replay, and nothing it could have accessed.
            calls.append(recorded.model_copy(update={"access": None}))
            continue
        again = env.call(recorded.name, recorded.arguments, turn=recorded.turn, node=recorded.node)
        if again.status != recorded.status:
            problems.append(
                f"call #{recorded.index} {recorded.name}: recorded {recorded.status}, replayed {again.status}"
            )
        elif jsonable(again.result) != jsonable(recorded.result):
            where = ", ".join(state_differences(jsonable(recorded.result), jsonable(again.result)))
            problems.append(f"call #{recorded.index} {recorded.name}: result differs at {where}")
        calls.append(again.model_copy(update={"index": recorded.index}))
    differing = state_differences(jsonable(evidence.final_state), jsonable(env.state))
    if differing:
        problems.append("replayed final state differs at " + ", ".join(differing))
    rebuilt = evidence.model_copy(
        # The rules come from the world, never from the file: a trajectory cannot claim laxer ones.
        update={
            "tool_calls": calls,
            "initial_state": env.initial_state,
            "final_state": env.state,
            "conduct": env_class.conduct,
        }
    )
    return rebuilt, problems


def state_differences(recorded: Any, replayed: Any, path: str = "", limit: int = 5) -> list[str]:
    """Dotted paths where two JSON trees differ (at most ``limit``)."""
    if isinstance(recorded, dict) and isinstance(replayed, dict):
        found: list[str] = []
        for key in sorted(set(recorded) | set(replayed)):
            if len(found) >= limit:
                break
            found.extend(
                state_differences(recorded.get(key), replayed.get(key), f"{path}.{key}" if path else key, limit)
            )
        return found[:limit]
    return [] if recorded == replayed else [path or "(root)"]


def saved_judge(saved_checks: Sequence[Mapping[str, Any]]) -> Any:
    """A judge that repeats the saved verdict of each unchanged reply criterion."""
    by_criterion = {
        str(c.get("expected")): c
        for c in saved_checks
        if c.get("family") == "reply" and c.get("status") in ("passed", "failed")
    }

    contradiction = next((c for c in saved_checks if c.get("name") == "reply[contradiction]"), None)

    def judge(task: Task, evidence: Evidence) -> list[CheckVerdict]:
        verdicts = not_judged(task, evidence)
        if contradiction is not None:
            # The transcript-level flag was judged on this very transcript: it still holds.
            verdicts.append(
                CheckVerdict(
                    family="reply",
                    name="reply[contradiction]",
                    status=contradiction["status"],
                    expected=False,
                    actual=contradiction.get("actual"),
                    diff=str(contradiction.get("diff") or ""),
                )
            )
        for index, criterion in enumerate(task.contract.reply_criteria):
            saved = by_criterion.get(criterion)
            if saved is not None:
                verdicts[index] = CheckVerdict(
                    family="reply",
                    name=f"reply[{index}]",
                    status=saved["status"],
                    expected=criterion,
                    actual=saved.get("actual"),
                    diff=str(saved.get("diff") or ""),
                )
        return verdicts

    return judge


def regrade_entry(
    entry: Mapping[str, Any], tasks: Mapping[str, Task], environments: dict[str, type[ToolEnvironment]]
) -> Regraded:
    try:
        return _regrade_entry(entry, tasks, environments)
    except RecursionError:
        raise CrmbenchError("not a trajectory: nested too deeply") from None
    except ValueError as exc:  # a number too long to convert, say (ValidationError is handled below)
        raise CrmbenchError(f"not a trajectory: {str(exc).splitlines()[0][:200]}") from None


def _regrade_entry(
    entry: Mapping[str, Any], tasks: Mapping[str, Task], environments: dict[str, type[ToolEnvironment]]
) -> Regraded:
    try:
        evidence = Evidence.model_validate(entry.get("evidence", entry))
    except ValidationError as exc:
        raise CrmbenchError(f"not a trajectory: {exc.errors()[0]['loc']}: {exc.errors()[0]['msg']}") from None
    verdict = entry.get("verdict") if isinstance(entry.get("verdict"), Mapping) else None
    before = str(verdict["outcome"]) if verdict and "outcome" in verdict else None
    task = tasks.get(evidence.task_id)
    if task is None:
        message = f"task {evidence.task_id!r} is not in the current task set"
        return Regraded(error_record(evidence.task_id, evidence.trial, message), before, [])
    rebuilt, problems = replay(task, environment_for(task.domain, environments), evidence)
    graded = grade(task, rebuilt, saved_judge(verdict.get("checks", []) if verdict else []))
    record = build_record(task, rebuilt, graded, model=None, latency_s=None)
    return Regraded(record, before, problems)


def trajectories(path: Path) -> Iterator[dict[str, Any]]:
    """Trace entries of a run directory, or the trajectories of a file written elsewhere."""
    if path.is_dir():
        if not (path / MANIFEST).is_file():
            raise CrmbenchError(f"{path}: not a crmbench run directory (no {MANIFEST})")
        # Superseded attempts (a resumed run re-ran them) are not graded twice (issue 11 item 8).
        yield from latest_traces(path).values()
        return
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise CrmbenchError(f"cannot read {path}: {exc}") from None
    try:
        data = json.loads(text)
        items = data if isinstance(data, list) else [data]
    except RecursionError:
        raise CrmbenchError(f"{path}: not a trajectory: nested too deeply") from None
    except json.JSONDecodeError:
        try:
            items = [json.loads(line) for line in text.splitlines() if line.strip()]
        except (ValueError, RecursionError) as exc:
            reason = "nested too deeply" if isinstance(exc, RecursionError) else str(exc).splitlines()[0][:200]
            raise CrmbenchError(f"{path}: neither JSON nor JSON Lines: {reason}") from None
    except ValueError as exc:  # a 10,000-digit integer
        raise CrmbenchError(f"{path}: not a trajectory: {str(exc).splitlines()[0][:200]}") from None
    if not items:
        raise CrmbenchError(f"{path}: no trajectory in it")
    for item in items:
        if not isinstance(item, dict):
            raise CrmbenchError(f"{path}: expected trajectory objects, found {type(item).__name__}")
        yield item


def regrade(path: Path, tasks_dir: Path, envs_dir: Path) -> list[Regraded]:
    """Re-grade every trajectory at ``path`` against the tasks and environments given."""
    task_set = load_run_tasks(tasks_dir, RunSettings(task_files=TaskFiles.folder()))
    if not task_set.tasks:
        raise CrmbenchError(f"no task files in {tasks_dir}")
    environments = discover([envs_dir])
    results = []
    for entry in trajectories(path):
        try:
            result = regrade_entry(entry, task_set.tasks, environments)
        except CrmbenchError as exc:
            raise CrmbenchError(f"{path}: {exc}") from None
        if not path.is_dir() and result.record.outcome == "error":
            # A trajectory written outside pytest for a task this task set does not have: an error.
            raise CrmbenchError(f"{path}: {result.record.error}")
        results.append(result)
    return results


def summary_lines(results: Sequence[Regraded]) -> list[str]:
    lines = [f"re-graded trajectories: {len(results)}"]
    for result in results:
        if result.before is not None and result.before != result.record.outcome:
            lines.append(f"changed: {result.label}: {result.before} -> {result.record.outcome}")
        for problem in result.nondeterminism:
            lines.append(f"NON-DETERMINISM {result.label}: {problem}")
        if result.record.outcome == "error":
            lines.append(f"error {result.label}: {result.record.error}")
    return lines
