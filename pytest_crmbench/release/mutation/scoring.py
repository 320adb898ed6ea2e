"""The mutation audit's figures per task and per domain, its gate and its JSON evidence.

Mutation score = killed / (generated wrong paths - equivalent - waived). The release gate:
every domain scores at least :data:`THRESHOLD`, no right path fails, every hand-written
alternative and counterexample behaves as declared, every waiver matches a mutant it waives.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pytest_crmbench.core.errors import SpecError
from pytest_crmbench.core.families import PROGRAMMATIC, declarations, field_of_check
from pytest_crmbench.release.mutation.run import TaskAudit

THRESHOLD = 0.90
"""Minimum share of (non-equivalent, non-waived) wrong-path mutants a domain's contracts must kill."""


def wrong_counts(audits: Iterable[TaskAudit]) -> dict[str, int]:
    counts: Counter[str] = Counter()
    for audit in audits:
        for result in audit.results:
            if result.mutant.kind == "wrong" and not result.pending:
                counts[result.outcome] += 1
    return {
        "generated": counts["killed"] + counts["survived"],
        "killed": counts["killed"],
        "survived": counts["survived"],
        "equivalent": counts["equivalent"],
        "waived": counts["waived"],
    }


def right_counts(audits: Iterable[TaskAudit]) -> dict[str, int]:
    counts: Counter[str] = Counter()
    for audit in audits:
        for result in audit.results:
            if result.mutant.kind == "right":
                counts[result.outcome] += 1
    return {
        "generated": counts["spared"] + counts["false_failure"],
        "spared": counts["spared"],
        "false_failures": counts["false_failure"],
        "waived": counts["waived"],
    }


def trajectory_counts(audits: Iterable[TaskAudit]) -> dict[str, dict[str, int]]:
    counts: dict[str, dict[str, int]] = {
        kind: {"declared": 0, "as_declared": 0} for kind in ("alternatives", "counterexamples")
    }
    for audit in audits:
        for trajectory in audit.trajectories:
            counts[trajectory.kind]["declared"] += 1
            counts[trajectory.kind]["as_declared"] += int(trajectory.as_declared)
    return counts


def score(wrong: Mapping[str, int]) -> float | None:
    """Killed / generated; None when a task set generates no wrong path (nothing to score)."""
    return wrong["killed"] / wrong["generated"] if wrong["generated"] else None


def operator_counts(audits: Iterable[TaskAudit]) -> dict[str, dict[str, int]]:
    """Operator -> outcome -> count; an audit-v2 result of a domain without conduct rules is
    counted as ``pending_killed`` / ``pending_survived`` (outside the gated score)."""
    table: dict[str, Counter[str]] = {}
    for audit in audits:
        for result in audit.results:
            outcome = f"pending_{result.outcome}" if result.pending else result.outcome
            table.setdefault(result.mutant.operator, Counter())[outcome] += 1
    return {operator: dict(sorted(counts.items())) for operator, counts in sorted(table.items())}


def operator_lines(audits_by_domain: Mapping[str, list[TaskAudit]]) -> list[str]:
    """The per-operator table of each domain: generated, killed, spared (and pending), one row each."""
    lines = [f"{'domain':<18}{'operator':<34}{'scored':>10}{'killed':>8}{'spared':>8}{'survived':>10}{'pending':>9}"]
    for domain, audits in audits_by_domain.items():
        for operator, counts in operator_counts(audits).items():
            killed = counts.get("killed", 0) + counts.get("pending_killed", 0)
            survived = counts.get("survived", 0) + counts.get("pending_survived", 0)
            spared, failed = counts.get("spared", 0), counts.get("false_failure", 0)
            generated = killed + survived + spared + failed  # equivalent and waived ones aside
            pending = counts.get("pending_killed", 0) + counts.get("pending_survived", 0)
            lines.append(f"{domain:<18}{operator:<34}{generated:>10}{killed:>8}{spared:>8}{survived:>10}{pending:>9}")
    return lines


_PROGRAMMATIC_ROWS = frozenset(field.row for family in PROGRAMMATIC for field in family.fields)


def lone_catches(audit: TaskAudit) -> dict[str, int]:
    """Per check family the task declares (reply criteria aside: the audit has no judge), the wrong
    paths it catches that no other family catches: killed mutants and failing counterexamples.

    0 means every wrong path the family catches, another family catches too: a hint that the
    contract says the same thing twice (which moves the table-2 figures and adds no grading), not
    a proof — a family may guard a wrong path the audit does not derive, such as a forbidden tool
    a domain's hints never insert.
    """
    contract = audit.record.task.contract
    lone = {row: 0 for row, n in declarations(contract).items() if n and row in _PROGRAMMATIC_ROWS}
    # Pending audit-v2 paths aside: a domain's figures stay its v1 ones until it declares conduct rules.
    caught = [r.failed_checks for r in audit.results if r.outcome == "killed" and not r.pending]
    caught += [t.failed_checks for t in audit.trajectories if t.kind == "counterexamples" and t.failed_checks]
    for checks in caught:
        families = {found.row if (found := field_of_check(name)) else None for name in checks}
        if len(families) == 1 and (only := families.pop()) in lone:
            lone[only] += 1
    return lone


def _derived_wrong(audit: TaskAudit) -> bool:
    return any(r.mutant.kind == "wrong" and r.outcome != "equivalent" for r in audit.results)


def untripped_forbidden(audit: TaskAudit) -> list[str]:
    """The task's forbidden-action and forbidden-parameter checks that no killed mutant and no
    failing counterexample trips: a declaration the audit never shows to matter."""
    contract = audit.record.task.contract
    declared = [
        *(f"forbidden.action[{i}] {tool}" for i, tool in enumerate(contract.forbidden.actions)),
        *(f"forbidden.param[{i}] {spec.tool}" for i, spec in enumerate(contract.forbidden.params)),
    ]
    tripped = {name for r in audit.results if r.outcome == "killed" for name in r.failed_checks}
    tripped |= {name for t in audit.trajectories if t.kind == "counterexamples" for name in t.failed_checks}
    return [name for name in declared if name not in tripped]


def _pending_note(audits: list[TaskAudit]) -> str:
    pending = [r for a in audits for r in a.results if r.pending]
    if not pending:
        return ""
    survived = sum(r.outcome == "survived" for r in pending)
    return f"; audit v2 pending (no conduct rules): {survived} of {len(pending)} wrong paths survive"


@dataclass
class MutationAudit:
    """Every task's audit, grouped by domain, with problems that are not any one task's."""

    tasks: list[TaskAudit] = field(default_factory=list)
    problems: list[SpecError] = field(default_factory=list)
    """Domain-level problems: unloadable hints, a domain below the threshold."""
    threshold: float = THRESHOLD
    identity_tools: dict[str, str | None] = field(default_factory=dict)
    """Domain -> the tool that verifies a customer (its conduct rules' or its hints'), or None."""

    def domains(self) -> dict[str, list[TaskAudit]]:
        grouped: dict[str, list[TaskAudit]] = {}
        for audit in self.tasks:
            grouped.setdefault(audit.record.task.domain, []).append(audit)
        return dict(sorted(grouped.items()))

    def gate(self, tasks_file: Mapping[str, str]) -> list[SpecError]:
        """Every problem that fails the release: per task, then each domain below the threshold."""
        found = [*self.problems, *(p for audit in self.tasks for p in audit.problems)]
        for domain, audits in self.domains().items():
            value = score(wrong_counts(audits))
            if value is not None and value < self.threshold:
                counts = wrong_counts(audits)
                found.append(
                    SpecError(
                        f"domain {domain!r}: mutation score {value:.3f} is below {self.threshold:.2f} "
                        f"({counts['killed']} of {counts['generated']} wrong paths killed; the survivors are listed above)",
                        file=tasks_file.get(domain),
                    )
                )
        return found

    def survivors(self) -> list[SpecError]:
        return [s for audit in self.tasks for s in audit.survivors]

    def pending(self) -> list[SpecError]:
        """Audit-v2 survivors of domains without conduct rules (not gated yet)."""
        return [s for audit in self.tasks for s in audit.pending]

    def operator_lines(self) -> list[str]:
        return operator_lines(self.domains())

    def blind_spots(self) -> dict[str, dict[str, Any]]:
        """Per domain, what the audit cannot see (reported, not gated): no identity tool declared,
        tasks from which no wrong path is derived, forbidden checks no wrong path ever trips."""
        found: dict[str, dict[str, Any]] = {}
        for domain, audits in self.domains().items():
            found[domain] = {
                "identity_tool": self.identity_tools.get(domain),
                "tasks_without_wrong_paths": [a.record.task.id for a in audits if not _derived_wrong(a)],
                "untripped_forbidden_checks": [
                    f"{a.record.task.id}: {name}" for a in audits for name in untripped_forbidden(a)
                ],
            }
        return found

    def blind_spot_lines(self) -> list[str]:
        lines = []
        for domain, spots in self.blind_spots().items():
            if spots["identity_tool"] is None:
                lines.append(
                    f"mutation audit {domain}: declares no identity tool (conduct.py or mutations.py):"
                    " no identity wrong path is derived, whatever the policy says"
                )
            if spots["tasks_without_wrong_paths"]:
                ids = spots["tasks_without_wrong_paths"]
                lines.append(
                    f"mutation audit {domain}: {len(ids)} task(s) with no derived wrong path"
                    f" (only hand-written counterexamples test them): {', '.join(ids)}"
                )
            if spots["untripped_forbidden_checks"]:
                checks = spots["untripped_forbidden_checks"]
                lines.append(
                    f"mutation audit {domain}: {len(checks)} forbidden check(s) no derived wrong path trips: "
                    + "; ".join(checks)
                )
        return lines

    def summary_lines(self) -> list[str]:
        """One line per domain: the figures the gate reads."""
        lines = []
        for domain, audits in self.domains().items():
            wrong, right, paths = wrong_counts(audits), right_counts(audits), trajectory_counts(audits)
            value = score(wrong)
            shown = "n/a" if value is None else f"{value:.3f}"
            declared = paths["alternatives"]["declared"] + paths["counterexamples"]["declared"]
            as_declared = paths["alternatives"]["as_declared"] + paths["counterexamples"]["as_declared"]
            lines.append(
                f"mutation audit {domain}: {wrong['killed']}/{wrong['generated']} wrong paths killed "
                f"(score {shown}, gate {self.threshold:.2f}), {right['spared']}/{right['generated']} right paths spared, "
                f"{wrong['equivalent']} equivalent skipped, {wrong['waived']} survivor(s) and "
                f"{right['waived']} right path(s) waived, "
                f"{as_declared}/{declared} hand-written paths as declared" + _pending_note(audits)
            )
        return lines

    def task_lines(self) -> list[str]:
        """One line per task: location, id and its figures."""
        lines = []
        for audit in self.tasks:
            wrong, right = wrong_counts([audit]), right_counts([audit])
            value = score(wrong)
            shown = "  n/a" if value is None else f"{value:5.3f}"
            lines.append(
                f"{audit.record.location}: {audit.record.task.id}: killed {wrong['killed']}/{wrong['generated']} "
                f"({shown}), spared {right['spared']}/{right['generated']}, "
                f"equivalent {wrong['equivalent']}, waived {wrong['waived'] + right['waived']}"
            )
        return lines

    def as_json(
        self,
        *,
        problems: Iterable[SpecError],
        not_audited: Iterable[SpecError] = (),
        source_revision: str | None,
        input_hashes: Mapping[str, str],
    ) -> dict[str, Any]:
        domains = {}
        for domain, audits in self.domains().items():
            wrong = wrong_counts(audits)
            value = score(wrong)
            domains[domain] = {
                "tasks": len(audits),
                "score": value,
                "passes_gate": (value is None or value >= self.threshold) and not any(a.problems for a in audits),
                "wrong_paths": wrong,
                "right_paths": right_counts(audits),
                "hand_written": trajectory_counts(audits),
                "operators": operator_counts(audits),
                "blind_spots": self.blind_spots()[domain],
            }
        return {
            "audit": "contract_mutation",
            "threshold": self.threshold,
            "source_revision": source_revision,
            "input_hashes": dict(input_hashes),
            "domains": domains,
            "tasks": [_task_json(audit) for audit in self.tasks],
            "survivors": [s.render() for s in self.survivors()],
            "pending": [s.render() for s in self.pending()],
            "problems": [p.render() for p in problems],
            "not_audited": [p.render() for p in not_audited],
        }


def _task_json(audit: TaskAudit) -> dict[str, Any]:
    wrong = wrong_counts([audit])
    return {
        "task_id": audit.record.task.id,
        "domain": audit.record.task.domain,
        "location": audit.record.location,
        "score": score(wrong),
        "wrong_paths": wrong,
        "right_paths": right_counts([audit]),
        "lone_catches": lone_catches(audit),
        "mutants": [
            {
                "id": r.mutant.id,
                "operator": r.mutant.operator,
                "kind": r.mutant.kind,
                "outcome": r.outcome,
                **({"pending": True} if r.pending else {}),
                "description": r.mutant.description,
                "failed_checks": list(r.failed_checks),
                **({"waiver": r.waiver} if r.waiver else {}),
            }
            for r in audit.results
        ],
        "hand_written": [
            {
                "kind": t.kind,
                "index": t.index,
                "reason": t.reason,
                "as_declared": t.as_declared,
                "failed_checks": list(t.failed_checks),
            }
            for t in audit.trajectories
        ],
    }
