"""Saved runs checked against their own trajectories before they are ranked or gated (issue 11 item 9).

``results.jsonl`` is a summary anyone can edit: turning every outcome into ``success`` once showed
100 % and passed ``crmbench gate``. The trajectories are the evidence, so each record is re-graded
from its trajectory (a replay on a fresh environment costs milliseconds) against the current
contracts, which must be the ones the run was made with (the same task-set hash). A run whose
records disagree with their trajectories (outcome, termination, a check's status), whose results
or trajectories carry another run's id, or whose results are not the selection it finished with,
is refused, naming the first disagreements. How failures are labelled is the current grader's: a run is
ranked with the primary labels and check families its trajectories grade to now, so a grader that
learnt the spec's labelling relabels old runs instead of refusing them, and an edited label is
simply not read.

What cannot be checked offline is said, not assumed: reply criteria keep the judge's saved
verdicts (re-judging needs a model), and a judge that failed leaves an unscored result whose
re-grade is ``not_judged``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from pytest_crmbench.core.errors import CrmbenchError
from pytest_crmbench.core.hashing import content_hash
from pytest_crmbench.core.spec import Task
from pytest_crmbench.core.taskfiles import TaskFiles
from pytest_crmbench.env.environment import ToolEnvironment
from pytest_crmbench.env.registry import discover
from pytest_crmbench.results.records import UNSCORED, ResultRecord
from pytest_crmbench.results.regrade import regrade_entry
from pytest_crmbench.results.rundir import RunDirError, SavedRun, latest_traces
from pytest_crmbench.results.runtasks import load_run_tasks
from pytest_crmbench.run.settings import RunSettings

SHOWN_PROBLEMS = 5


@dataclass(frozen=True)
class Contracts:
    """The task set and environments saved runs are checked against."""

    tasks: Mapping[str, Task]
    environments: dict[str, type[ToolEnvironment]]
    hash: str

    @classmethod
    def load(cls, tasks_dir: Path, envs_dir: Path, extra: Iterable[type[ToolEnvironment]] = ()) -> Contracts:
        """The task files of ``tasks_dir`` (``manifest.yaml`` excluded) and the domains of ``envs_dir``."""
        settings = RunSettings(task_files=TaskFiles.folder(), env_dirs=(envs_dir,))
        task_set = load_run_tasks(tasks_dir, settings)
        if not task_set.tasks:
            raise CrmbenchError(f"no task files in {tasks_dir}")
        return cls(task_set.tasks, discover([envs_dir], extra), task_set.hash)


def disagreements(run: SavedRun, contracts: Contracts) -> list[str]:
    """Every way the run's records disagree with its trajectories (empty: the run is what it says)."""
    return _checked(run, contracts)[0]


def _checked(run: SavedRun, contracts: Contracts) -> tuple[list[str], list[ResultRecord]]:
    """The disagreements, and the records labelled as their trajectories grade now."""
    task_set = run.manifest.get("task_set")
    made_with = task_set.get("hash") if isinstance(task_set, Mapping) else None
    if made_with != contracts.hash:
        return [
            f"it was made with another task set ({made_with or 'unknown'}; the current one is {contracts.hash}):"
            " its results cannot be checked against these contracts (check out the revision it ran)"
        ], run.records
    problems: list[str] = []
    finished = run.manifest.get("finished")
    if isinstance(finished, Mapping) and finished.get("results") != len(run.records):
        problems.append(
            f"results.jsonl holds {len(run.records)} result(s), the run finished with {finished.get('results')}"
        )
    selection = finished.get("selection") if isinstance(finished, Mapping) else None
    if selection is not None and selection != selection_hash(record.key for record in run.records):
        problems.append("its results are not the selection the run finished with (results added, removed or swapped)")
    traces = latest_traces(run.path)
    problems.extend(_foreign(run, traces))
    records = {record.key: record for record in run.records}
    for key in traces.keys() - records.keys():
        problems.append(f"{_label(key)}: a trajectory without a result")
    labelled = []
    for key, record in records.items():
        problem, again = _disagreement(record, traces.get(key), contracts)
        if problem:
            problems.append(f"{_label(key)}: {problem}")
        labelled.append(_relabelled(record, again) if again is not None else record)
    return problems, labelled


def selection_hash(keys: Iterable[tuple[str, int]]) -> str:
    """The (task, trial) pairs of a run, as its manifest's ``finished.selection`` holds them."""
    return content_hash(sorted([task, trial] for task, trial in keys))


def _foreign(run: SavedRun, traces: Mapping[tuple[str, int], Mapping[str, Any]]) -> list[str]:
    """Results and trajectories that belong to another run than the manifest's (issue 30 part 2:
    another agent's results.jsonl and traces/ spliced into a null run passed a gate at 100 %)."""
    run_id = run.manifest.get("run_id")
    if run_id is None:
        return []  # written before runs had ids: nothing to bind them by
    problems = [
        f"{_label(r.key)}: the result belongs to run {r.run_id or 'unknown'}, not to this run ({run_id})"
        for r in run.records
        if r.run_id != run_id
    ]
    problems += [
        f"{_label(key)}: the trajectory belongs to run {trace.get('run_id') or 'unknown'}, not to this run ({run_id})"
        for key, trace in traces.items()
        if trace.get("run_id") != run_id
    ]
    return problems


def _relabelled(record: ResultRecord, again: ResultRecord) -> ResultRecord:
    families = {check.name: check.family for check in again.checks}
    checks = [check.model_copy(update={"family": families.get(check.name, check.family)}) for check in record.checks]
    return record.model_copy(update={"primary_label": again.primary_label, "checks": checks})


def verified(run: SavedRun, contracts: Contracts) -> SavedRun:
    """``run``, or RunDirError naming the first disagreements."""
    problems, labelled = _checked(run, contracts)
    if problems:
        shown = problems[:SHOWN_PROBLEMS] + (
            [f"... and {len(problems) - SHOWN_PROBLEMS} more"] if len(problems) > SHOWN_PROBLEMS else []
        )
        raise RunDirError(f"{run.path}: refused, its results do not match its trajectories:\n  " + "\n  ".join(shown))
    return replace(run, records=labelled)


def _disagreement(
    record: ResultRecord, trace: Mapping[str, Any] | None, contracts: Contracts
) -> tuple[str | None, ResultRecord | None]:
    """Why the record is not what its trajectory grades to (None: it is), and that re-grade."""
    if trace is None:
        # Only a result the harness could not produce (a worker that died) has no trajectory.
        missing = (
            None if record.outcome == "error" else f"results.jsonl says {record.outcome}, but there is no trajectory"
        )
        return missing, None
    try:
        regraded = regrade_entry(trace, contracts.tasks, contracts.environments)
    except CrmbenchError as exc:
        return f"its trajectory cannot be read: {exc}", None
    if regraded.nondeterminism:
        return f"its trajectory does not replay: {regraded.nondeterminism[0]}", None
    again = regraded.record
    if record.outcome in UNSCORED and again.outcome == "not_judged":
        return None, None  # the judge failed on it; only a judge could say more
    saved = (record.outcome, record.termination, _statuses(record))
    graded = (again.outcome, again.termination, _statuses(again))
    if saved != graded:
        return f"results.jsonl says {_shown(saved)}, its trajectory grades {_shown(graded)}", again
    return None, again


def _statuses(record: ResultRecord) -> tuple[tuple[str, str], ...]:
    return tuple(sorted((check.name, check.status) for check in record.checks))


def _shown(summary: tuple[Any, ...]) -> str:
    outcome, termination, checks = summary
    failed = [name for name, status in checks if status == "failed"]
    return f"{outcome} ({termination}" + (f"; failed {', '.join(failed)})" if failed else ")")


def _label(key: tuple[str, int]) -> str:
    return f"{key[0]}[t{key[1] + 1}]"
