"""Each domain's hand-written known right and wrong paths (``tests/envs/<domain>/paths.yaml``).

The paths are written from the domain's ``policy.md``, not from the gold paths, a few per task
class: a second, independent witness of what the contracts and the conduct rules accept. The
generated mutation audit is checked against it: a path may name the audit ``operator`` whose class
of mistake (or of right variant) it is, and then the audit must derive that operator on the task
and classify it the same way (issue 26, §2).
"""

from __future__ import annotations

import functools
from collections import defaultdict
from pathlib import Path
from typing import Literal

import pytest
import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from pytest_crmbench.core.families import LABELS
from pytest_crmbench.core.loader import TaskRecord, load_task_file
from pytest_crmbench.core.spec import GoldCall, check_references
from pytest_crmbench.env.environment import ToolEnvironment
from pytest_crmbench.env.registry import discover
from pytest_crmbench.release.mutation.hints import load_hints
from pytest_crmbench.release.mutation.run import TaskAudit, audit_task
from pytest_crmbench.release.mutation.trajectory import replay, steps_of

ROOT = Path(__file__).resolve().parents[2]
ENVIRONMENTS: dict[str, type[ToolEnvironment]] = discover([ROOT / "envs"])


class KnownPath(BaseModel):
    """One hand-written path and what the policy says about it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    task: str
    kind: Literal["right", "wrong"]
    rule: str = Field(min_length=10, description="The policy line the path keeps (right) or breaks (wrong).")
    fails: tuple[str, ...] = Field(
        default=(),
        description="Wrong only: one must fail, a family label (state, conduct, ...) or a check name's start"
        " (conduct.identity, forbidden.param, action[0], ...).",
    )
    operator: str | None = Field(default=None, description="The mutation-audit operator of this path's class.")
    path: list[GoldCall]

    @model_validator(mode="after")
    def _fails_fit_the_kind(self) -> KnownPath:
        if self.kind == "wrong" and not self.fails:
            raise ValueError("a wrong path names the checks that must fail it (fails: [...])")
        if self.kind == "right" and self.fails:
            raise ValueError("a right path fails nothing: drop `fails`")
        unknown = [name for name in self.fails if not name.startswith(LABELS)]
        if unknown:
            raise ValueError(f"fails {unknown}: name a family ({', '.join(LABELS)}) or a check of one")
        check_references(self.path)
        return self


def paths_file(domain: str) -> Path:
    return ROOT / "tests" / "envs" / domain / "paths.yaml"


@functools.cache
def known_paths(domain: str) -> tuple[KnownPath, ...]:
    file = paths_file(domain)
    if not file.is_file():
        return ()
    loaded = yaml.safe_load(file.read_text(encoding="utf-8")) or []
    paths = []
    for index, entry in enumerate(loaded):
        try:
            paths.append(KnownPath.model_validate(entry))
        except ValidationError as error:
            raise ValueError(f"{file}[{index}] ({(entry or {}).get('task')}): {error}") from None
    return tuple(paths)


@functools.cache
def tasks(domain: str) -> dict[str, TaskRecord]:
    return {record.task.id: record for record in load_task_file(ROOT / "tasks" / f"{domain}.yaml")}


@functools.cache
def audit(domain: str, task_id: str) -> TaskAudit:
    record, environment = tasks(domain)[task_id], ENVIRONMENTS[domain]
    gold = replay(record.task, environment, steps_of(record.task.gold.path)).evidence
    return audit_task(record, environment, load_hints(environment).hints, gold)


CASES = [
    pytest.param(domain, index, id=f"{domain}:{index}:{entry.task}:{entry.kind}")
    for domain in sorted(ENVIRONMENTS)
    for index, entry in enumerate(known_paths(domain))
]


def misgraded(domain: str, entry: KnownPath) -> str | None:
    """Why the grader disagrees with what the policy says about ``entry``, or None."""
    if entry.task not in tasks(domain):
        return f"no task {entry.task} in tasks/{domain}.yaml"
    played = replay(tasks(domain)[entry.task].task, ENVIRONMENTS[domain], steps_of(entry.path))
    mismatches = [(step, written.tool, call.status) for step, written, call in played.status_mismatches()]
    if mismatches:
        return f"steps that did not get the status written (step, tool, got): {mismatches}"
    failed = [check for check in played.verdict.checks if check.status == "failed"]
    names = [check.name for check in failed]
    if entry.kind == "right" and failed:
        return f"a right path ({entry.rule}) fails {names}"
    if entry.kind == "wrong" and not any(c.family in entry.fails or c.name.startswith(entry.fails) for c in failed):
        return f"a wrong path ({entry.rule}) must fail one of {list(entry.fails)}; it failed {names or 'nothing'}"
    return None


@pytest.mark.parametrize(("domain", "index"), CASES)
def test_a_known_path_is_graded_as_the_policy_says(domain: str, index: int) -> None:
    problem = misgraded(domain, known_paths(domain)[index])
    assert problem is None, f"{paths_file(domain)}[{index}]: {problem}"


def test_a_mislabelled_path_is_caught() -> None:
    # The payments pilot's gold path of a balance read, written once as wrong (it is right) and
    # once, verifying last, as right (it is wrong): the runner must reject both labels.
    steps = [
        {"tool": "verify_identity", "args": {"account_id": "ACC-1001", "full_name": "Maria Delgado"}},
        {"tool": "get_account_balance", "args": {"account_id": "ACC-1001"}},
    ]
    common = {"task": "payments_balance_check_01", "rule": "a deliberately mislabelled path"}
    right_called_wrong = KnownPath.model_validate({**common, "kind": "wrong", "fails": ["state"], "path": steps})
    wrong_called_right = KnownPath.model_validate({**common, "kind": "right", "path": steps[::-1]})
    assert "it failed nothing" in (misgraded("payments", right_called_wrong) or "")
    assert "conduct.identity" in (misgraded("payments", wrong_called_right) or "")


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"kind": "wrong"}, "names the checks that must fail it"),
        ({"kind": "right", "fails": ["state"]}, "fails nothing"),
        ({"kind": "wrong", "fails": ["expected_state"]}, "name a family"),
    ],
)
def test_a_known_path_says_what_must_fail_in_the_grader_s_terms(entry: dict[str, object], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        KnownPath.model_validate({"task": "t", "rule": "a rule of the policy", "path": [], **entry})


WITH_OPERATOR = [
    pytest.param(domain, index, id=f"{domain}:{index}:{entry.task}:{entry.operator}")
    for domain in sorted(ENVIRONMENTS)
    for index, entry in enumerate(known_paths(domain))
    if entry.operator is not None
]


@pytest.mark.parametrize(("domain", "index"), WITH_OPERATOR)
def test_the_audit_classifies_a_known_paths_class_the_same_way(domain: str, index: int) -> None:
    entry = known_paths(domain)[index]
    results = [r for r in audit(domain, entry.task).results if r.mutant.operator == entry.operator]
    assert results, (
        f"the audit derives no {entry.operator!r} path on {entry.task}, but a known {entry.kind} path is one"
    )
    outcomes = {r.mutant.id: r.outcome for r in results}
    if entry.kind == "right":
        assert set(outcomes.values()) == {"spared"}, outcomes
    else:
        assert "killed" in outcomes.values() and set(outcomes.values()) <= {"killed", "equivalent"}, outcomes


@pytest.mark.parametrize("domain", sorted(ENVIRONMENTS))
def test_a_domain_with_conduct_rules_has_a_right_and_a_wrong_known_path_per_task_class(domain: str) -> None:
    if ENVIRONMENTS[domain].conduct is None:
        pytest.skip(f"{domain} declares no conduct rules yet (its content sweep adds them and its known paths)")
    covered: dict[str, set[str]] = defaultdict(set)
    for entry in known_paths(domain):
        if entry.task in tasks(domain):
            covered[tasks(domain)[entry.task].task.capabilities[0]].add(entry.kind)
    classes = {record.task.capabilities[0] for record in tasks(domain).values()}
    missing = {
        cls: sorted({"right", "wrong"} - covered[cls]) for cls in sorted(classes) if covered[cls] != {"right", "wrong"}
    }
    assert not missing, f"{paths_file(domain)}: task classes without a known path of each kind: {missing}"
