"""The content-addressed lock: drift is named, formatting is not drift."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import yaml

from pytest_crmbench.core.loader import parse_yaml
from pytest_crmbench.release import lock_hash
from pytest_crmbench.release.lock import drift, read_lock
from tests.release.conftest import MakeTasks, run_validate


@pytest.fixture
def locked(make_tasks: MakeTasks, capsys: pytest.CaptureFixture[str]) -> Path:
    tasks = make_tasks(mini=True)
    assert run_validate(tasks, "--write-lock") == 0
    capsys.readouterr()
    return tasks


def test_changing_one_task_text_breaks_the_lock_and_names_the_task(
    locked: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mini = locked / "mini.yaml"
    mini.write_text(
        mini.read_text().replace("goal: Know the balance of ACC-2. Nothing else.", "goal: Know ACC-2's balance.")
    )
    assert run_validate(locked) == 1
    out = capsys.readouterr().out
    assert "lock drift: task 'mini_balance_only_01' changed at " in out
    assert out.count("lock drift") == 1, out


def _block_style_dump(data: Any) -> str:
    class Dumper(yaml.SafeDumper):
        pass

    # Decimals back as YAML floats written exactly as loaded ("130.00" stays "130.00").
    Dumper.add_representer(Decimal, lambda d, v: d.represent_scalar("tag:yaml.org,2002:float", str(v)))
    return "# reformatted: block style, sorted keys, 4-space indent\n" + yaml.dump(
        data, Dumper=Dumper, default_flow_style=False, sort_keys=True, indent=4, width=60
    )


def test_reformatting_yaml_is_not_drift(locked: Path, capsys: pytest.CaptureFixture[str]) -> None:
    mini = locked / "mini.yaml"
    data, _ = parse_yaml(mini.read_text(), "mini.yaml")
    reformatted = _block_style_dump(data)
    assert reformatted != mini.read_text()
    mini.write_text(reformatted)
    assert run_validate(locked) == 0, capsys.readouterr().out


def test_added_and_removed_tasks_and_missing_lock(locked: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lock = read_lock(locked)
    assert lock is not None
    lock["tasks"]["mini_gone_01"] = lock["tasks"].pop("mini_override_01")
    (locked / "lock.json").write_text(json.dumps(lock))
    assert run_validate(locked) == 1
    out = capsys.readouterr().out
    assert "lock drift: task 'mini_gone_01' removed" in out
    assert "lock drift: task 'mini_override_01' added" in out
    (locked / "lock.json").unlink()
    assert run_validate(locked) == 1
    assert "no lock: freeze the release with `crmbench validate --gold --write-lock`" in capsys.readouterr().out


def test_drift_names_environment_files_graphs_and_the_manifest() -> None:
    before = {
        "manifest": "m1",
        "tasks": {},
        "environments": {"mini": {"tools.py": "a", "seed.json": "b"}},
        "graphs": {"mini": "g1"},
    }
    after = {
        "manifest": "m2",
        "tasks": {},
        "environments": {"mini": {"tools.py": "a", "seed.json": "c"}},
        "graphs": {"mini": "g2"},
    }
    assert drift(before, after) == [
        "manifest changed",
        "environment 'mini' changed (seed.json)",
        "graph 'mini' changed",
    ]


def test_lock_hash_is_the_overall_hash_of_the_committed_lock(locked: Path, tmp_path: Path) -> None:
    lock = read_lock(locked)
    assert lock is not None and lock_hash(locked) == lock["hash"]
    assert str(lock["hash"]).startswith("sha256:")
    assert lock["version"] == "0.0.1"
    assert sorted(lock["environments"]["mini"]) == ["environment.py", "mutations.py"]
    assert lock_hash(tmp_path) is None


def test_the_repository_lock_is_committed() -> None:
    root = Path(__file__).parents[2]
    assert lock_hash(root / "tasks") is not None


def test_every_file_of_a_domain_folder_is_locked_whatever_its_format(tmp_path: Path) -> None:
    from pytest_crmbench.release.lock import environment_files

    for name in ("environment.py", "seed.yaml", "policy.txt", "data/rates.csv", "__pycache__/x.pyc", ".DS_Store"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(name)
    assert sorted(environment_files(tmp_path)) == ["data/rates.csv", "environment.py", "policy.txt", "seed.yaml"]
