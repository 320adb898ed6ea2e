"""Remembered passes: reused only on exactly the same inputs, never for a failure."""

from __future__ import annotations

import shutil
from pathlib import Path

from pytest_crmbench.env.registry import discover
from pytest_crmbench.release.fuzz import fuzz_problems
from pytest_crmbench.release.passed import Passes
from tests.release.conftest import ENVS

REPO = Path(__file__).resolve().parents[2]


def _payments(tmp_path: Path, name: str) -> Path:
    envs = tmp_path / name
    shutil.copytree(REPO / "envs" / "payments", envs / "payments", ignore=shutil.ignore_patterns("__pycache__"))
    return envs


def test_a_passed_fuzz_is_reused_until_a_file_of_the_domain_changes(tmp_path: Path) -> None:
    envs = _payments(tmp_path, "envs")
    passes = Passes(tmp_path / "cache")
    assert fuzz_problems(discover([envs]), examples=2, passes=passes) == []
    assert passes.reused == []
    again = Passes(tmp_path / "cache")
    assert fuzz_problems(discover([envs]), examples=2, passes=again) == []
    assert again.reused == ["fuzz payments"]
    # Other settings are other inputs.
    more = Passes(tmp_path / "cache")
    fuzz_problems(discover([envs]), examples=3, passes=more)
    assert more.reused == []
    # Any file of the folder, not only Python: the policy text is the domain too.
    (envs / "payments" / "policy.md").write_text("changed\n", encoding="utf-8")
    changed = Passes(tmp_path / "cache")
    fuzz_problems(discover([envs]), examples=2, passes=changed)
    assert changed.reused == []


def test_a_failing_fuzz_is_never_remembered(tmp_path: Path) -> None:
    # The mini domain's broken_tool crashes on purpose.
    mini = {"mini": discover([ENVS])["mini"]}
    passes = Passes(tmp_path / "cache")
    first = fuzz_problems(mini, examples=5, passes=passes)
    assert any(p.field == "broken_tool" for p in first)
    again = Passes(tmp_path / "cache")
    assert [p.render() for p in fuzz_problems(mini, examples=5, passes=again)] == [p.render() for p in first]
    assert again.reused == []


def test_no_root_remembers_nothing(tmp_path: Path) -> None:
    envs = _payments(tmp_path, "envs")
    for _ in range(2):
        passes = Passes(None)
        fuzz_problems(discover([envs]), examples=1, passes=passes)
        assert passes.reused == []
