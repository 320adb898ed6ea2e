"""docs/authoring-tasks.md stays true: its worked example validates, and a newcomer adding that
domain to this repository meets exactly the three failures the guide documents, in its order."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import yaml

from pytest_crmbench.cli.main import main
from pytest_crmbench.core.loader import load_task_file
from pytest_crmbench.release.tablerows import tasks_with
from tests.integration.helpers import manifest_invariants

REPO = Path(__file__).parents[2]
EXAMPLE = REPO / "docs" / "example"


def validate(root: Path, *flags: str, cache: Path | None = None) -> int:
    """``cache``: the gate's cache folder (default: the copy's own; never the checkout's, where a
    pass remembered from an earlier run would stand in for this one)."""
    return main(
        [
            "validate",
            "--gold",
            *flags,
            "--cache-dir",
            str(cache or root / ".crmbench-cache"),
            "--tasks",
            str(root / "tasks"),
            "--envs",
            str(root / "envs"),
            "--agents",
            str(root / "agents"),
        ]
    )


def _add_bank(totals: str) -> str:
    extra = {"easy": 2, "medium": 1, "hard": 1}
    return re.sub(
        r"(easy|medium|hard): (\d+)", lambda m: f"{m.group(1)}: {int(m.group(2)) + extra[m.group(1)]}", totals
    )


def test_the_worked_example_passes_the_release_gate(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert validate(EXAMPLE, cache=tmp_path / ".crmbench-cache") == 0, capsys.readouterr().out
    assert "crmbench validate: 4 task(s), 0 problem(s)" in capsys.readouterr().out


BASE_DOMAIN = "sales"
"""The repository a newcomer adds the bank to, cut down to its smallest domain: the guide's steps
and messages are the same for one domain as for nine, and the gate costs seconds, not minutes (the
full gate runs once, in .ci/run)."""


def _small_repository(root: Path) -> None:
    """``root`` as the repository holding only the base domain, its manifest narrowed and its lock written."""
    (root / "tasks").mkdir()
    (root / "envs").mkdir()
    (root / "agents").mkdir()
    shutil.copy(REPO / "tasks" / f"{BASE_DOMAIN}.yaml", root / "tasks")
    shutil.copytree(
        REPO / "envs" / BASE_DOMAIN, root / "envs" / BASE_DOMAIN, ignore=shutil.ignore_patterns("__pycache__")
    )
    shutil.copy(REPO / "agents" / f"{BASE_DOMAIN}.yaml", root / "agents")
    tasks = [record.task for record in load_task_file(root / "tasks" / f"{BASE_DOMAIN}.yaml")]
    manifest = yaml.safe_load((REPO / "tasks" / "manifest.yaml").read_text(encoding="utf-8"))
    manifest["invariants"] = manifest_invariants(tasks)
    text = yaml.safe_dump(manifest, default_flow_style=None, sort_keys=False)
    (root / "tasks" / "manifest.yaml").write_text(text, encoding="utf-8")
    assert validate(root, "--write-lock") == 0


def test_a_newcomer_meets_the_three_documented_failures(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _small_repository(tmp_path)
    capsys.readouterr()
    shutil.copytree(EXAMPLE / "envs" / "bank", tmp_path / "envs" / "bank")
    shutil.copy(EXAMPLE / "tasks" / "bank.yaml", tmp_path / "tasks" / "bank.yaml")
    guide = (REPO / "docs" / "authoring-tasks.md").read_text(encoding="utf-8")

    assert validate(tmp_path) == 1
    out = capsys.readouterr().out
    missing_graph = "field 'domain': no agent graph for domain 'bank' (agents/<domain>.yaml)"
    count = "field 'invariants.tasks_per_domain.bank': the manifest declares 0 task(s), the task files have 4"
    drift = "lock drift: environment 'bank' added"
    for message in (missing_graph, count, drift):
        assert message in out and message in guide, message

    shutil.copy(EXAMPLE / "agents" / "bank.yaml", tmp_path / "agents" / "bank.yaml")
    manifest = tmp_path / "tasks" / "manifest.yaml"
    text = manifest.read_text(encoding="utf-8")
    # whatever domains the repository already has: add the bank's 4 tasks (2 easy, 1 medium, 1 hard)
    text = re.sub(r"(tasks_per_domain: \{[^}]*)\}", r"\1, bank: 4}", text, count=1)
    text = re.sub(r"(tasks_per_difficulty: \{[^}]*\})", lambda m: _add_bank(m.group(1)), text, count=1)
    # ... and its tags (3 tasks with one, 1 with two); it declares no forbidden actions
    text = re.sub(r"one: (\d+)", lambda m: f"one: {int(m.group(1)) + 3}", text, count=1)
    text = re.sub(r"two: (\d+)", lambda m: f"two: {int(m.group(1)) + 1}", text, count=1)
    # ... and the table-2 rows, as `crmbench inventory` prints them for the grown task set
    grown = yaml.safe_load(text)
    every_task = [r.task for name in ("bank", BASE_DOMAIN) for r in load_task_file(tmp_path / "tasks" / f"{name}.yaml")]
    grown["invariants"]["tasks_with"] = tasks_with(every_task)
    text = yaml.safe_dump(grown, default_flow_style=None, sort_keys=False)
    manifest.write_text(re.sub(r"(?m)^version: .*$", "version: 9.9.9", text, count=1), encoding="utf-8")
    assert validate(tmp_path) == 1
    problems = [
        line
        for line in capsys.readouterr().out.splitlines()[:-1]
        if not line.startswith(("mutation audit ", "not run again"))
    ]
    assert problems and all("lock drift" in line for line in problems), problems

    assert validate(tmp_path, "--write-lock") == 0
    assert validate(tmp_path) == 0
