"""``crmbench audit``: the capability-exposure audit of spec §A.7.

Every ``forbidden.actions`` entry is a declaration; it is matched by exact name against the union
of the tools on its domain graph's nodes. A forbidden tool no node exposes would make the
prohibition vacuous for the reference agent (it could never be attempted), so every declaration
must match. The JSON evidence pins the source revision and the hashes of the input files.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_crmbench.core.display import shown
from pytest_crmbench.core.errors import SpecError
from pytest_crmbench.core.hashing import file_hash
from pytest_crmbench.release.taskset import TaskSet, load_task_set


def source_revision(directory: Path) -> str | None:
    """``git rev-parse HEAD`` of the repository holding ``directory``; None outside git."""
    try:
        done = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=directory, capture_output=True, text=True, check=False, timeout=10
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None if done.returncode == 0 else None


def exposure_report(task_set: TaskSet) -> dict[str, Any]:
    """The audit as JSON-ready data: per task, each declaration and the nodes exposing it."""
    tasks: list[dict[str, Any]] = []
    for record in task_set.records:
        graph = task_set.graphs.get(record.task.domain)
        declarations = [
            {"tool": tool, "matched_nodes": graph.nodes_exposing(tool) if graph else []}
            for tool in record.task.contract.forbidden.actions
        ]
        if declarations:
            tasks.append({"task_id": record.task.id, "domain": record.task.domain, "declarations": declarations})
    unmatched = [
        {"task_id": t["task_id"], "tool": d["tool"]} for t in tasks for d in t["declarations"] if not d["matched_nodes"]
    ]
    inputs = [*task_set.files, *task_set.graph_files.values()]
    return {
        "audit": "capability_exposure",
        "specification": "A.7: forbidden_actions matched by exact name against the union of graph node tools",
        "source_revision": source_revision(task_set.tasks_dir),
        "input_hashes": {shown(path): file_hash(path) for path in sorted(inputs)},
        "tasks": tasks,
        "unmatched": unmatched,
        "totals": {
            "task_set": len(task_set.records),
            "tasks": len(tasks),
            "declarations": sum(len(t["declarations"]) for t in tasks),
            "unmatched": len(unmatched),
        },
    }


@dataclass
class AuditResult:
    report: dict[str, Any]
    out: Path | None  # None: not written, the task set had problems
    problems: list[SpecError]

    @property
    def ok(self) -> bool:
        return not self.problems and self.report["totals"]["unmatched"] == 0

    def lines(self) -> list[str]:
        totals = self.report["totals"]
        lines = [p.render() for p in self.problems]
        lines += [
            f"unmatched: task {u['task_id']!r} forbids {u['tool']!r}, which no graph node exposes"
            for u in self.report["unmatched"]
        ]
        lines.append(
            f"crmbench audit: {totals['declarations']} forbidden-action declaration(s) on {totals['tasks']} task(s), "
            f"{totals['unmatched']} unmatched; " + (f"wrote {shown(self.out)}" if self.out else "nothing written")
        )
        return lines


def run_audit(tasks_dir: Path, agents_dir: Path, out: Path) -> AuditResult:
    """Audit the task set and write the JSON evidence to ``out``."""
    task_set = load_task_set(tasks_dir, None, agents_dir)
    report = exposure_report(task_set)
    if task_set.problems:
        # Evidence about a task set that did not load would be evidence about nothing: keep
        # whatever audit file exists rather than overwrite it with an empty one.
        return AuditResult(report, None, task_set.problems)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2, sort_keys=False) + "\n", encoding="utf-8")
    return AuditResult(report, out, task_set.problems)
