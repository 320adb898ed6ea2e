"""The family registry: every family once, the spec's precedence, and a new family is one module."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

from pytest_crmbench.core import families
from pytest_crmbench.core.families import FAMILIES, FIELDS, GRADING_ORDER, LABEL_PRIORITY, Contract, declared_at
from pytest_crmbench.core.spec import task_json_schema
from tests.core.families.helpers import evidence

PACKAGE = Path(families.__file__).resolve().parents[2]


def test_the_spec_precedence_and_the_families() -> None:
    # The spec's labels in its order; our conduct after them, so the spec's slices stay the spec's.
    spec = ("action", "forbidden", "state", "param", "reply", "order", "collateral")
    assert (*spec, "conduct", "execution") == LABEL_PRIORITY
    assert [f.label for f in GRADING_ORDER] == [
        "action",
        "param",
        "order",
        "state",
        "forbidden",
        "collateral",
        "conduct",
        "reply",
    ]
    assert [f.row for f in FIELDS] == [
        "expected_actions",
        "expected_params",
        "action_order",
        "reply_criteria",
        "expected_state",
        "forbidden_actions",
        "forbidden_params",
        "forbidden_state",
        "protected_state",
        "conduct_terms",
    ]


def test_every_field_is_a_contract_field_at_its_location() -> None:
    schema = task_json_schema()["$defs"]
    for field in FIELDS:
        model = "Contract" if len(field.location) == 1 else field.location[0].capitalize()
        assert field.location[-1] in schema[model]["properties"], field.location


def test_each_family_names_its_checks_by_its_kinds_and_finds_them_again() -> None:
    contract = Contract.model_validate(
        {
            "expected_actions": ["a"],
            "expected_params": [{"tool": "a", "args": {"x": 1}}],
            "action_order": {"tools": ["a", "a"]},
            "expected_state": {"s.t": 1},
            "forbidden": {"actions": ["b"], "params": [{"tool": "a", "args": {"x": 2}}], "state": {"s.u": 1}},
        }
    )
    contract = contract.model_copy(update={"forbidden": contract.forbidden.model_copy(update={"protected": ["s.v"]})})
    seen = set()
    for family in FAMILIES:
        kinds = {field.kind for field in family.fields}
        for verdict in family.check(contract, evidence()):
            field = next(f for f in family.fields if f.kind == verdict.name.split("[", 1)[0])
            assert verdict.family == (field.label or family.label)
            kind = verdict.name.split("[", 1)[0]
            assert kind in kinds, verdict.name
            assert declared_at(contract, verdict.name)[:2] == ("contract", family.fields[0].location[0]), verdict.name
            seen.add(kind)
    # Reply is judged; conduct checks come from the domain's rules (tests/core/families/test_conduct_checks.py).
    assert seen == {field.kind for field in FIELDS} - {"reply", "conduct"}


NEW_FAMILY = '''
"""A family added by a test: every tool the contract lists must be attempted at most once."""

from __future__ import annotations

from typing import Any

from pytest_crmbench.core.families.base import CheckFamily, ContractField, verdict

AT_MOST_ONCE: ContractField[list[str]] = ContractField(
    location=("at_most_once",), annotation=list[str], row="at_most_once", kind="once", title="at most once",
    negative=True,
)


class AtMostOnce(CheckFamily):
    label = "once"
    title = "once"
    position, precedence = 80, 15
    colour = "#123456"
    fields = (AT_MOST_ONCE,)

    def check(self, contract: Any, evidence: Any) -> list[Any]:
        out = []
        for index, tool in enumerate(AT_MOST_ONCE.of(contract)):
            n = sum(1 for c in evidence.tool_calls if c.name == tool)
            out.append(verdict(self.label, f"once[{index}] {tool}", n <= 1, 1, n, f"{tool} attempted {n} times"))
        return out


FAMILY = AtMostOnce()
'''

PROBE = """
import json
from pytest_crmbench.core.evidence import Evidence, Termination, ToolCall
from pytest_crmbench.core.families import LABEL_PRIORITY, NEGATIVE_KINDS, declarations, declared_at
from pytest_crmbench.core.spec import Task, task_json_schema
from pytest_crmbench.grading import grade
from pytest_crmbench.release.tablerows import present_rows
from pytest_crmbench.results.figures import LABEL_COLOURS
from pytest_crmbench.results.leaderboard import COMPONENT_COLUMNS
import pytest_crmbench

task = Task.model_validate({
    "id": "t_once_01", "domain": "t", "capabilities": ["c"], "difficulty": "easy",
    "user": {"persona": "p", "goal": "g", "stop": "s"},
    "contract": {"expected_actions": ["refund"], "at_most_once": ["refund"]},
    "gold": {"path": [{"tool": "refund"}], "reply": "done"},
})
call = lambda i: ToolCall(index=i, turn=0, node=None, name="refund", arguments={}, status="ok")
evidence = Evidence(task_id=task.id, agent="x", tool_calls=[call(0), call(1)], termination=Termination(reason="user_stop"))
verdict = grade(task, evidence)
print(json.dumps({
    "package": pytest_crmbench.__file__,
    "outcome": verdict.outcome, "label": verdict.primary_label,
    "checks": [(c.family, c.name, c.status) for c in verdict.checks],
    "priority": LABEL_PRIORITY, "declared": declarations(task.contract),
    "rows": sorted(present_rows(task)), "columns": COMPONENT_COLUMNS, "colour": LABEL_COLOURS["once"],
    "at": list(declared_at(task.contract, "once[0] refund")),
    "schema": "at_most_once" in task_json_schema()["$defs"]["Contract"]["properties"],
    "negative": "once" in NEGATIVE_KINDS,
}))
"""


def test_a_new_family_is_one_module_and_everything_else_follows(tmp_path: Path) -> None:
    copy = tmp_path / "pytest_crmbench"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__", "suite"))
    (copy / "core" / "families" / "once.py").write_text(textwrap.dedent(NEW_FAMILY), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=tmp_path, capture_output=True, text=True, env={"PYTHONPATH": str(tmp_path)}
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert Path(found["package"]).is_relative_to(tmp_path)  # the copy, not the installed package
    assert found["outcome"] == "failure"
    # Its precedence (15) puts it between action (10) and forbidden (20).
    assert found["priority"] == [
        "action",
        "once",
        "forbidden",
        "state",
        "param",
        "reply",
        "order",
        "collateral",
        "conduct",
        "execution",
    ]
    assert found["label"] == "once"
    assert ["once", "once[0] refund", "failed"] in found["checks"]
    assert found["declared"]["at_most_once"] == 1
    assert "at_most_once" in found["rows"]
    assert found["columns"][-2:] == ["once", "reply"]  # programmatic families in position, judged last
    assert found["colour"] == "#123456"
    assert found["at"] == ["contract", "at_most_once", 0]
    assert found["schema"] is True
    assert found["negative"] is True  # counted among the negative assertions of spec §B.8
