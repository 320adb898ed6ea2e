"""Adding a task to payments, and a new domain, breaks no project test (issue 25).

The repository is copied, grown as docs/authoring-tasks.md says ("Every step of adding a task or a
domain": the record, the manifest's totals, the README figures), and the tests that read counts
run in the copy. Once 18 project tests broke on one added payments task (hard-coded counts).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from pytest_crmbench.cli.main import main
from pytest_crmbench.core.loader import load_task_files
from pytest_crmbench.core.taskfiles import TaskFiles
from pytest_crmbench.release.inventory import README_BEGIN, README_END
from tests.integration.helpers import manifest_invariants

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "docs" / "example"
COUNTING_TESTS = [
    "tests/envs/test_domains.py",
    "tests/release/test_inventory.py",
    "tests/integration/test_models.py::test_case_a_recovers_after_a_business_rejection",
]


def _copy_of_the_repository(root: Path) -> None:
    tracked = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True).stdout
    for name in tracked.splitlines():
        source = REPO / name
        if source.is_file():
            target = root / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)


def _add_a_payments_task(root: Path) -> None:
    text = (root / "tasks" / "payments.yaml").read_text(encoding="utf-8")
    starts = [m.start() for m in re.finditer(r"(?m)^- id: ", text)]
    first = text[starts[0] : starts[1]]
    task_id = re.match(r"- id: (\S+)", first).group(1)  # type: ignore[union-attr]
    copy = first.replace(task_id, re.sub(r"_\d+$", "_99", task_id), 1)
    (root / "tasks" / "payments.yaml").write_text(text.rstrip("\n") + "\n\n" + copy, encoding="utf-8")


def _add_the_bank_domain(root: Path) -> None:
    shutil.copytree(EXAMPLE / "envs" / "bank", root / "envs" / "bank")
    shutil.copy(EXAMPLE / "agents" / "bank.yaml", root / "agents" / "bank.yaml")
    shutil.copy(EXAMPLE / "tasks" / "bank.yaml", root / "tasks" / "bank.yaml")


def _new_totals(root: Path) -> None:
    tasks_dir = root / "tasks"
    loaded = load_task_files(TaskFiles.folder().find(tasks_dir), lambda path: str(path))
    tasks = [record.task for record in loaded.records]
    manifest = yaml.safe_load((tasks_dir / "manifest.yaml").read_text(encoding="utf-8"))
    manifest["version"] = "9.9.9"
    manifest["invariants"] = manifest_invariants(tasks)
    text = yaml.safe_dump(manifest, default_flow_style=None, sort_keys=False)
    (tasks_dir / "manifest.yaml").write_text(text, encoding="utf-8")


def _readme_figures(root: Path, domain: str, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    args = ["inventory", "--readme", domain, "--tasks", str(root / "tasks"), "--agents", str(root / "agents")]
    assert main(args) == 0
    block = capsys.readouterr().out.strip()
    readme = root / "envs" / domain / "README.md"
    text = readme.read_text(encoding="utf-8")
    marker = README_BEGIN.format(domain=domain)
    if marker not in text:  # a new domain's README gets the block once
        readme.write_text(text.rstrip("\n") + "\n\n" + block + "\n", encoding="utf-8")
        return
    begin, end = text.index(marker), text.index(README_END) + len(README_END)
    readme.write_text(text[:begin] + block + text[end:], encoding="utf-8")


def test_adding_a_task_and_a_domain_breaks_no_project_test(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "repository"
    _copy_of_the_repository(root)
    _add_a_payments_task(root)
    _add_the_bank_domain(root)
    _new_totals(root)
    for domain in ("payments", "bank"):
        _readme_figures(root, domain, capsys)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider", *COUNTING_TESTS],
        cwd=root,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout[-4000:]
    assert " passed" in done.stdout.splitlines()[-1]
