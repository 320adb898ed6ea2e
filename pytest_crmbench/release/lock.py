"""``tasks/lock.json``: the content-addressed lock of a release (spec §A.5 step 4).

One hash per task record (canonical JSON of the validated model, so reformatting YAML changes
nothing), one per file of each environment source, one per agent graph (its validated model), the
manifest, and one hash over all of them. ``crmbench validate --write-lock`` writes it; plain
``validate`` recomputes it and names every task, file or graph that drifted.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pytest_crmbench.core.display import shown
from pytest_crmbench.core.errors import SpecError
from pytest_crmbench.core.hashing import combined_hash, content_hash, file_hash
from pytest_crmbench.release.manifest import Manifest
from pytest_crmbench.release.taskset import TaskSet

LOCK = "lock.json"
DRIFT_HINT = "; if intended, bump the manifest version and run `crmbench validate --gold --write-lock`"
IGNORED_SUFFIXES = (".pyc", ".pyo")
"""Every other file of a domain folder is part of it: code, seed data (any format), policy."""


def lock_path(tasks_dir: Path) -> Path:
    return tasks_dir / LOCK


def environment_files(folder: Path) -> dict[str, str]:
    """Relative path -> hash of every source file of a domain folder, sorted, caches excluded."""
    files = sorted(
        p
        for p in folder.rglob("*")
        if p.is_file()
        and p.suffix not in IGNORED_SUFFIXES
        and "__pycache__" not in p.parts
        and not p.name.startswith(".")
    )
    return {p.relative_to(folder).as_posix(): file_hash(p) for p in files}


def compute_lock(task_set: TaskSet, manifest: Manifest) -> dict[str, Any]:
    """The lock of the task set as it is now (what --write-lock writes)."""
    tasks = {r.task.id: content_hash(r.task) for r in sorted(task_set.records, key=lambda r: r.task.id)}
    envs_dir = task_set.envs_dir or Path("envs")
    environments = {domain: environment_files(envs_dir / domain) for domain in task_set.domains()}
    graphs = {domain: content_hash(graph) for domain, graph in sorted(task_set.graphs.items())}
    parts = {
        "manifest": content_hash(manifest),
        **{f"task:{k}": v for k, v in tasks.items()},
        **{f"environment:{k}": combined_hash(v) for k, v in environments.items()},
        **{f"graph:{k}": v for k, v in graphs.items()},
    }
    return {
        "version": manifest.version,
        "hash": combined_hash(parts),
        "manifest": parts["manifest"],
        "tasks": tasks,
        "environments": environments,
        "graphs": graphs,
    }


def write_lock(task_set: TaskSet, manifest: Manifest) -> Path:
    path = lock_path(task_set.tasks_dir)
    path.write_text(json.dumps(compute_lock(task_set, manifest), indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return path


def read_lock(tasks_dir: Path) -> dict[str, Any] | None:
    path = lock_path(tasks_dir)
    if not path.is_file():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    return data if isinstance(data, dict) else None


def lock_hash(tasks_dir: Path = Path("tasks")) -> str | None:
    """The overall hash of the committed lock, for the run manifest (None without a lock).

    ``crmbench validate`` guarantees it matches the content; a run records it to say which
    release it evaluated.
    """
    lock = read_lock(tasks_dir)
    value = lock.get("hash") if lock else None
    return value if isinstance(value, str) else None


def drift(locked: dict[str, Any], current: dict[str, Any]) -> list[str]:
    """What changed between two locks, one line per task, environment file, graph or manifest."""
    lines = []
    if locked.get("manifest") != current["manifest"]:
        lines.append("manifest changed")
    for kind in ("tasks", "environments", "graphs"):
        before, now = locked.get(kind, {}), current[kind]
        for name in sorted(set(before) | set(now)):
            singular = kind[:-1]
            if name not in now:
                lines.append(f"{singular} {name!r} removed")
            elif name not in before:
                lines.append(f"{singular} {name!r} added")
            elif before[name] != now[name]:
                detail = _changed_files(before[name], now[name]) if kind == "environments" else ""
                lines.append(f"{singular} {name!r} changed{detail}")
    return lines


def _changed_files(before: Any, now: dict[str, str]) -> str:
    if not isinstance(before, dict):
        return ""
    names = sorted(n for n in set(before) | set(now) if before.get(n) != now.get(n))
    return f" ({', '.join(names)})"


def lock_problems(task_set: TaskSet, manifest: Manifest) -> list[SpecError]:
    """Drift between the committed lock and the content, one problem per change."""
    name = shown(lock_path(task_set.tasks_dir))
    locked = read_lock(task_set.tasks_dir)
    if locked is None:
        return [SpecError("no lock: freeze the release with `crmbench validate --gold --write-lock`", file=name)]
    where = {f"task {r.task.id!r}": r.location for r in task_set.records}
    problems = []
    for change in drift(locked, compute_lock(task_set, manifest)):
        subject = change.rsplit(" ", 1)[0]
        at = f" at {where[subject]}" if subject in where else ""
        problems.append(SpecError(f"lock drift: {change}{at}{DRIFT_HINT}", file=name))
    return problems
