"""``crmbench validate/audit/inventory``: the release commands' exit statuses."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_crmbench.cli.main import main
from pytest_crmbench.core.exitcodes import ExitCode


def test_inventory_without_a_tasks_directory_is_bad_input(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 32 item 2: it printed "no such tasks directory" among empty figures and exited 0."""
    monkeypatch.chdir(tmp_path)
    assert main(["inventory"]) == ExitCode.BAD_INPUT
    captured = capsys.readouterr()
    assert (
        captured.err == "crmbench: error: no such tasks directory: tasks (run it in a checkout, or give --tasks DIR)\n"
    )
    assert captured.out == ""


def test_validate_gold_without_hypothesis_is_a_usage_error_naming_the_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A missing test dependency was one of the release's problems (exit 1): the command line's
    problem (exit 4), as a missing litellm is for a model run."""
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "hypothesis" else real(name, *a))
    monkeypatch.chdir(tmp_path)
    assert main(["validate", "--gold"]) == ExitCode.USAGE_ERROR
    captured = capsys.readouterr()
    assert "the tool fuzz needs hypothesis: pip install 'crmbench[release]'" in captured.err
    assert captured.out == ""
