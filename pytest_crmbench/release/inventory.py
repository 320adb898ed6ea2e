"""``crmbench inventory``: the task-set figures of spec table 2, table 5, figure 11 and §A.6.

The figures form a tree shaped like the manifest's ``targets`` (``tasks_with.expected_params``,
``graphs.nodes.payments`` ...), so each row is compared with the target at the same dotted key and
shows the remaining gap. Inventory reports; it never gates.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from pytest_crmbench.core.errors import SpecErrors
from pytest_crmbench.core.families import FIELDS, declarations
from pytest_crmbench.core.matchers import MISSING
from pytest_crmbench.core.paths import resolve
from pytest_crmbench.core.spec import DIFFICULTIES, Task
from pytest_crmbench.reference.graph import FALLBACK_NODE, CapabilityGraph
from pytest_crmbench.release.manifest import load_manifest
from pytest_crmbench.release.tablerows import COMBINED, present_rows, tasks_with
from pytest_crmbench.release.taskset import load_task_set


def _contract_figures(tasks: list[Task]) -> tuple[dict[str, int], dict[str, int]]:
    declared_total: Counter[str] = Counter()
    for task in tasks:
        declared_total.update(declarations(task.contract))
    return tasks_with(tasks), {field.row: declared_total[field.row] for field in FIELDS}


def _tag_figures(tasks: list[Task]) -> dict[str, int]:
    sizes = Counter(len(task.capabilities) for task in tasks)
    return {
        "assignments": sum(len(task.capabilities) for task in tasks),
        "single_tag_tasks": sizes[1],
        "multi_tag_tasks": sum(n for size, n in sizes.items() if size > 1),
        "two_tags": sizes[2],
        "three_tags": sizes[3],
        "four_tags": sizes[4],
        "unique_tags": len({tag for task in tasks for tag in task.capabilities}),
        "domain_capability_pairs": len({(task.domain, tag) for task in tasks for tag in task.capabilities}),
    }


def _graph_figures(graphs: Mapping[str, CapabilityGraph], tasks: list[Task]) -> dict[str, Any]:
    fallbacks = {domain: sum(1 for node in graph.nodes if not node.tools) for domain, graph in graphs.items()}
    forbidding = [task for task in tasks if task.contract.forbidden.actions]
    return {
        # Table 5: every domain has exactly one tool-free fallback; shown as the smallest count.
        "fallback_nodes_per_domain": min(fallbacks.values(), default=0),
        "nodes": {d: len(g.nodes) for d, g in graphs.items()},
        "specialists": {d: sum(1 for n in g.nodes if n.name != FALLBACK_NODE) for d, g in graphs.items()},
        "placements": {d: sum(len(n.tools) for n in g.nodes) for d, g in graphs.items()},
        "tools": {d: len(g.tools()) for d, g in graphs.items()},
        "tasks_with_forbidden_actions": dict(Counter(t.domain for t in forbidding)),
        "forbidden_action_declarations": dict(
            Counter(t.domain for t in forbidding for _ in t.contract.forbidden.actions)
        ),
    }


def composition(tasks: list[Task]) -> list[dict[str, Any]]:
    """Figure 11: domain -> first capability -> easy/medium/hard, with N = tasks with a negative assertion."""
    groups: dict[tuple[str, str], list[Task]] = {}
    for task in tasks:
        groups.setdefault((task.domain, task.capabilities[0]), []).append(task)
    rows: list[dict[str, Any]] = []
    for (domain, capability), members in sorted(groups.items()):
        difficulty: Counter[str] = Counter(task.difficulty for task in members)
        negative = sum(1 for task in members if "any_negative_assertion" in present_rows(task))
        rows.append(
            {
                "domain": domain,
                "capability": capability,
                "total": len(members),
                **{d: difficulty[d] for d in DIFFICULTIES},
                "negative": negative,
            }
        )
    return rows


def figures(tasks: list[Task], graphs: Mapping[str, CapabilityGraph], domains: list[str]) -> dict[str, Any]:
    """Every figure of the task set, keyed like the manifest targets."""
    rows, declared = _contract_figures(tasks)
    per_domain = Counter(task.domain for task in tasks)
    per_difficulty = Counter(task.difficulty for task in tasks)
    return {
        "tasks": len(tasks),
        "domains": {domain: per_domain[domain] for domain in dict.fromkeys([*domains, *sorted(per_domain)])},
        "difficulty": {d: per_difficulty[d] for d in DIFFICULTIES},
        "tasks_with": rows,
        "declarations": declared,
        "capability_tags": _tag_figures(tasks),
        "graphs": _graph_figures(graphs, tasks),
    }


def flatten(tree: Mapping[str, Any], prefix: str = "") -> Iterator[tuple[str, Any]]:
    for key, value in tree.items():
        if isinstance(value, Mapping):
            yield from flatten(value, f"{prefix}{key}.")
        else:
            yield f"{prefix}{key}", value


def compare(current: Mapping[str, Any], targets: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One row per figure and per target: current value, target and gap (target - current)."""
    rows = []
    seen = dict(flatten(current))
    keys: list[str] = [*seen, *(k for k, _ in flatten(targets))]
    for key in dict.fromkeys(keys):
        value, target = seen.get(key), resolve(targets, key)
        target = None if target is MISSING or isinstance(target, Mapping) else target
        gap = target - value if isinstance(target, int) and isinstance(value, int) else None
        rows.append({"figure": key, "current": value, "target": target, "gap": gap})
    return rows


def build_inventory(tasks_dir: Path, agents_dir: Path) -> dict[str, Any]:
    """Figures, their comparison with the manifest targets, and the figure-11 composition."""
    task_set = load_task_set(tasks_dir, None, agents_dir)
    try:
        targets = load_manifest(tasks_dir).targets
    except SpecErrors:
        targets = {}  # inventory reports what it can; validate is the gate for a broken manifest
    tasks = [record.task for record in task_set.records]
    domains = list(targets.get("domains", {}))
    current = figures(tasks, task_set.graphs, domains)
    return {
        "figures": current,
        "rows": compare(current, targets),
        "composition": composition(tasks),
        "problems": [p.render() for p in task_set.problems],
    }


def render_markdown(inventory: Mapping[str, Any]) -> str:
    lines = ["# Task-set inventory", "", "| figure | current | target | gap |", "|---|---:|---:|---:|"]
    for row in inventory["rows"]:
        cells = ["" if row[k] is None else str(row[k]) for k in ("current", "target", "gap")]
        lines.append(f"| {row['figure']} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "## Composition (figure 11: first capability)",
        "",
        "| domain | capability | total | easy | medium | hard | N |",
    ]
    lines.append("|---|---|---:|---:|---:|---:|---:|")
    for row in inventory["composition"]:
        lines.append(
            f"| {row['domain']} | {row['capability']} | {row['total']} | {row['easy']} | {row['medium']} | {row['hard']} | {row['negative']} |"
        )
    if inventory["problems"]:
        lines += ["", "## Problems (run `crmbench validate`)", "", *(f"- {p}" for p in inventory["problems"])]
    return "\n".join(lines)


def inventory_text(tasks_dir: Path, agents_dir: Path, *, as_json: bool = False) -> str:
    inventory = build_inventory(tasks_dir, agents_dir)
    return json.dumps(inventory, indent=2) if as_json else render_markdown(inventory)


README_BEGIN = "<!-- generated by `crmbench inventory --readme {domain}`: do not edit by hand -->"
README_END = "<!-- end of generated figures -->"

_README_COMBINED: tuple[tuple[str, str, str | None], ...] = (
    ("expected or forbidden state", "expected_or_forbidden_state", "leaf paths"),
    ("any negative assertion", "any_negative_assertion", None),
)
"""A README's rows over several families: table 2's overlapping rows, with what they count."""
_COVERED = {row for _, combined, _ in _README_COMBINED for row in COMBINED[combined]}
_FAMILY_ROWS = (
    *((f.title, f.row, f.unit) for f in FIELDS if not f.negative and f.row not in _COVERED),
    *_README_COMBINED,
)
_NEGATIVE_ROWS = tuple((f.title, f.row, f.unit) for f in FIELDS if f.negative)


def domain_figures_markdown(tasks: list[Task], domain: str, targets: Mapping[str, Any]) -> str:
    """A domain README's figures (difficulty, tags, first capability, check families), generated.

    The text between :data:`README_BEGIN` and :data:`README_END` in ``envs/<domain>/README.md`` is
    this output; a test keeps it equal, so the figures a reader sees are never typed by hand.
    """
    mine = [t for t in tasks if t.domain == domain]
    by_difficulty = Counter(t.difficulty for t in mine)
    tags = Counter(len(t.capabilities) for t in mine)
    words = {1: "one", 2: "two", 3: "three", 4: "four"}
    first, *rest = sorted(tags)
    noun = "tag" if first == 1 else "tags"
    tag_text = ", ".join(
        [f"{tags[first]} tasks have {words[first]} capability {noun}", *(f"{tags[n]} {words[n]}" for n in rest)]
    )
    lines = [
        README_BEGIN.format(domain=domain),
        f"{len(mine)} tasks: " + ", ".join(f"{by_difficulty[d]} {d}" for d in DIFFICULTIES) + f". {tag_text}.",
        "",
        "| first capability | easy | medium | hard | total | tasks with the tag |",
        "|---|---|---|---|---|---|",
    ]
    rows = composition(mine)
    rows.sort(key=lambda r: (-r["total"], r["capability"]))
    for row in rows:
        tagged = sum(1 for t in mine if row["capability"] in t.capabilities)
        lines.append(
            f"| {row['capability']} | {row['easy']} | {row['medium']} | {row['hard']} | {row['total']} | {tagged} |"
        )
    lines += _family_lines(mine, targets)
    lines.append(README_END)
    return "\n".join(lines)


def _family_lines(tasks: list[Task], targets: Mapping[str, Any]) -> list[str]:
    total = len(tasks) or 1
    spec_total = targets.get("tasks")
    spec_rows = targets.get("tasks_with", {})
    declared: Counter[str] = Counter()
    for task in tasks:
        declared.update(declarations(task.contract))
    for _, combined, _ in _README_COMBINED:
        declared[combined] = sum(declared[row] for row in COMBINED[combined])

    def with_row(row: str, difficulty: str | None = None) -> int:
        return sum(1 for t in tasks if row in present_rows(t) and difficulty in (None, t.difficulty))

    def spec(row: str) -> str:
        target = spec_rows.get(row)
        return f"{round(100 * target / spec_total)} %" if isinstance(target, int) and spec_total else ""

    lines = [
        "",
        f"Check families (tasks declaring the family; spec proportions from {spec_total} tasks):",
        "",
        "| family | tasks | easy / medium / hard | share | spec |",
        "|---|---|---|---|---|",
    ]
    for label, row, unit in _FAMILY_ROWS:
        count = f" ({declared[row]} {unit})" if unit else ""
        split = " / ".join(str(with_row(row, d)) for d in DIFFICULTIES)
        lines.append(
            f"| {label}{count} | {with_row(row)} | {split} | {round(100 * with_row(row) / total)} % | {spec(row)} |"
        )
    for label, row, unit in _NEGATIVE_ROWS:
        lines.append(f"| — {label} ({declared[row]} {unit}) | {with_row(row)} | | | |")
    several = "two_or_more_expected_actions"
    lines.append(
        f"| two or more expected-action entries | {with_row(several)} | | {round(100 * with_row(several) / total)} % | {spec(several)} |"
    )
    refusals = sum(1 for t in tasks if not t.contract.has_positive_check())
    lines.append(f"| pure refusals (negative checks + reply only) | {refusals} | | | |")
    return lines


def readme_figures_text(tasks_dir: Path, agents_dir: Path, domain: str) -> str:
    """``crmbench inventory --readme DOMAIN``: the generated block of the domain's README."""
    task_set = load_task_set(tasks_dir, None, agents_dir)
    try:
        targets = load_manifest(tasks_dir).targets
    except SpecErrors:
        targets = {}
    return domain_figures_markdown([r.task for r in task_set.records], domain, targets)
