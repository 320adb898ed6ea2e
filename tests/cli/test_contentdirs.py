"""The runs ``pytest --crm-suite`` writes are re-gated where they were made, with no checkout
there: the CLI finds the packaged suite from the run's manifest (issue 32 item 2)."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from pytest_crmbench.cli.contentdirs import content_dirs
from pytest_crmbench.cli.main import main
from pytest_crmbench.core import shipped
from pytest_crmbench.core.exitcodes import ExitCode
from pytest_crmbench.core.shipped import PACKAGED, suite_root

DATA = Path(__file__).parents[1] / "data"


def run_dir(path: Path, suite: str | None) -> Path:
    path.mkdir()
    (path / "manifest.json").write_text(json.dumps({"suite": suite}), encoding="utf-8")
    return path


def test_runs_of_the_packaged_suite_are_checked_against_it(tmp_path: Path) -> None:
    packaged = run_dir(tmp_path / "packaged", PACKAGED)
    dirs = content_dirs(None, None, [packaged])
    assert (dirs.tasks, dirs.envs, dirs.root) == (suite_root() / "tasks", suite_root() / "envs", suite_root())
    given = content_dirs(tmp_path / "mine", None, [packaged])
    assert (given.tasks, given.envs) == (tmp_path / "mine", suite_root() / "envs")  # what is given wins


@pytest.mark.parametrize("other", ["rootdir run", "no manifest", "broken manifest", "trajectory file"])
def test_anything_else_is_checked_against_the_working_directory(tmp_path: Path, other: str) -> None:
    packaged = run_dir(tmp_path / "packaged", PACKAGED)
    if other == "rootdir run":
        path = run_dir(tmp_path / "other", None)
    elif other == "trajectory file":
        path = tmp_path / "trajectories.jsonl"
        path.write_text("{}\n", encoding="utf-8")
    else:
        path = tmp_path / "other"
        path.mkdir()
        if other == "broken manifest":
            (path / "manifest.json").write_text("{", encoding="utf-8")
    dirs = content_dirs(None, None, [packaged, path])
    assert (dirs.tasks, dirs.envs) == (Path("tasks"), Path("envs"))


@pytest.fixture
def installed_suite(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A wheel's packaged suite (the mini domain), far from any checkout or working directory."""
    package = tmp_path_factory.mktemp("site-packages") / "pytest_crmbench"
    suite = package / "suite"
    (suite / "tasks").mkdir(parents=True)
    (suite / "agents").mkdir()
    shutil.copyfile(DATA / "tasks" / "mini.yaml", suite / "tasks" / "mini.yaml")
    shutil.copytree(DATA / "envs", suite / "envs")
    monkeypatch.setattr(shipped, "PACKAGE_DIR", package)
    # The in-process run imports this suite's mini domain as crmbench_envs.mini: hide the copy
    # the unit tests imported (restored at teardown).
    for module in [m for m in sys.modules if m == "crmbench_envs" or m.startswith("crmbench_envs.")]:
        monkeypatch.delitem(sys.modules, module)
    return suite


def test_a_suite_run_is_gated_graded_ranked_and_reported_from_an_empty_directory(
    pytester: pytest.Pytester, installed_suite: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    result = pytester.runpytest(
        *("-p", "no:hypothesispytest", "-p", "no:cacheprovider"),
        *("--crm-suite", "--crm-agent=null", "--crm-run-dir=run", "--crm-html=no"),
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # the null agent fails the tasks it should
    manifest = json.loads((pytester.path / "run" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["suite"] == PACKAGED
    assert manifest["env_dirs"] == ["envs"]  # never where the suite happens to be installed
    assert str(installed_suite) not in json.dumps(manifest)
    assert sorted(p.name for p in pytester.path.iterdir()) == ["run"]  # no tasks/ or envs/ here
    capsys.readouterr()
    assert main(["gate", "run", "--max-infra=0"]) == ExitCode.OK
    assert "crmbench gate passed" in capsys.readouterr().out
    assert main(["grade", "run"]) == ExitCode.OK
    assert capsys.readouterr().out.startswith("re-graded trajectories: 6\n")
    assert main(["leaderboard", "run"]) == ExitCode.OK
    assert "| 1    | null" in capsys.readouterr().out
    assert main(["report", "run", "-o", "report.html"]) == ExitCode.OK
    assert "mini_transfer_retry_01" in (pytester.path / "report.html").read_text(encoding="utf-8")
