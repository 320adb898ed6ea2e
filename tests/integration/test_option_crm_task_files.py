"""``crm_task_files`` / ``crm_task_exclude``: the run manifest names the tasks the selection names.

The run's task set (its files, tasks, content hash and release lock) is loaded by the same rule as
collection, not from ``tasks/`` (issue 25).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.integration.helpers import CrmProject, mini_text, replace_once


def manifest_task_set(project: CrmProject, run: str) -> dict[str, Any]:
    result = project.run(f"--crm-run-dir={run}")
    assert result.ret == pytest.ExitCode.OK
    task_set: dict[str, Any] = json.loads((project.path / run / "manifest.json").read_text())["task_set"]
    return task_set


def test_the_manifest_records_the_selected_task_files(crm_project: CrmProject) -> None:
    crm_project.add("mini.yaml")
    default = manifest_task_set(crm_project, "default")
    assert (default["files"], default["tasks"]) == (["tasks/mini.yaml"], 6)

    suite = crm_project.path / "suite"
    suite.mkdir()
    (crm_project.tasks / "mini.yaml").rename(suite / "mini.yaml")
    (suite / "lock.json").write_text(json.dumps({"hash": "sha256:suite"}), encoding="utf-8")
    # tasks/ still holds a task file and a lock, neither of this run's.
    other = replace_once(mini_text(), "- id: mini_balance_only_01", "- id: other_balance_only_01")
    crm_project.write("other.yaml", other)
    (crm_project.tasks / "lock.json").write_text(json.dumps({"hash": "sha256:tasks"}), encoding="utf-8")
    crm_project.write_config('crm_task_files = ["suite/*.yaml"]\n')
    selected = manifest_task_set(crm_project, "selected")
    assert (selected["files"], selected["tasks"], selected["lock"]) == (["suite/mini.yaml"], 6, "sha256:suite")
    assert selected["hash"] == default["hash"]  # the same tasks and environments, wherever the file is


def test_a_selection_across_folders_records_no_release_lock(crm_project: CrmProject) -> None:
    crm_project.add("mini.yaml")
    (crm_project.tasks / "lock.json").write_text(json.dumps({"hash": "sha256:tasks"}), encoding="utf-8")
    extra = crm_project.path / "extra"
    extra.mkdir()
    other = replace_once(mini_text(), "- id: mini_balance_only_01", "- id: other_balance_only_01")
    # Only the renamed task: the other ids are mini.yaml's.
    (extra / "other.yaml").write_text("- id: " + other.split("\n- id: ")[3], encoding="utf-8")
    crm_project.write_config('crm_task_files = ["tasks/*.yaml", "extra/*.yaml"]\n')
    task_set = manifest_task_set(crm_project, "run")
    assert (task_set["files"], task_set["tasks"]) == (["extra/other.yaml", "tasks/mini.yaml"], 7)
    assert task_set["lock"] is None  # tasks/lock.json does not describe extra/
