"""Which saved runs a leaderboard may compare, and why the others are left out (issue 11 item 10).

Only like with like: runs made with the same task set (its hash) and covering the same tasks. A
1-task run ranked next to a 73-task run, or two versions of a task set side by side, says nothing.
A run that did not finish (killed, interrupted, still running, or unable to write) is no round:
it is left out with a note, and ``--crm-resume`` completes it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from pytest_crmbench.results.rundir import RunDirError, SavedRun


@dataclass(frozen=True)
class RunSet:
    runs: list[SavedRun]
    notes: list[str] = field(default_factory=list)
    """Runs left out, and why."""


def finished(run: SavedRun) -> bool:
    entry = run.manifest.get("finished")
    return isinstance(entry, Mapping) and entry.get("complete") is True


def comparable(runs: Sequence[SavedRun]) -> RunSet:
    """The finished runs, if they can be ranked together; RunDirError saying why not otherwise."""
    notes = [
        f"{run.path.name}: left out, the run did not finish (killed, interrupted, still running, or written by an"
        " older crmbench); --crm-resume completes it"
        for run in runs
        if not finished(run)
    ]
    kept = [run for run in runs if finished(run)]
    if not kept:
        raise RunDirError("no finished run to compare:\n  " + "\n  ".join(notes))
    by_task_set: dict[str, list[str]] = defaultdict(list)
    for run in kept:
        task_set = run.manifest.get("task_set")
        by_task_set[str(task_set.get("hash") if isinstance(task_set, Mapping) else None)].append(run.path.name)
    if len(by_task_set) > 1:
        groups = "\n  ".join(f"{digest}: {', '.join(names)}" for digest, names in sorted(by_task_set.items()))
        raise RunDirError(f"these runs were made with different task sets and cannot be ranked together:\n  {groups}")
    by_selection: dict[frozenset[str], list[str]] = defaultdict(list)
    for run in kept:
        by_selection[frozenset(r.task_id for r in run.records)].append(run.path.name)
    if len(by_selection) > 1:
        groups = "\n  ".join(
            f"{len(tasks)} task(s): {', '.join(names)}" for tasks, names in sorted(by_selection.items(), key=_size)
        )
        raise RunDirError(
            "these runs cover different tasks and cannot be ranked together (select the same tasks with -k/-m):"
            f"\n  {groups}"
        )
    return RunSet(kept, notes)


def _size(item: tuple[frozenset[str], list[str]]) -> tuple[int, list[str]]:
    return len(item[0]), item[1]
