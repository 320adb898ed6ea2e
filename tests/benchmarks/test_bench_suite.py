"""benchmarks/bench_suite.py's parts: a timed run counts what pytest counted and keeps what it printed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.benchmarks.scripts import load_script

bench = load_script("bench_suite")


def test_a_timed_run_reports_the_counts_and_keeps_the_whole_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in [n for n in os.environ if n.startswith("PYTEST_XDIST")]:
        monkeypatch.delenv(name)  # the timed pytest is not one of this run's workers
    (tmp_path / "test_two.py").write_text(
        "def test_passes():\n    pass\n\n\ndef test_fails():\n    assert 1 == 2, 'the reason it failed'\n",
        encoding="utf-8",
    )
    result = bench.timed_run(tmp_path, "pytest -q -p no:cacheprovider -p no:randomly -p no:xdist")
    assert (result["rc"], result["tests"]) == (1, 1)
    assert "1 failed, 1 passed" in str(result["summary"])
    assert "the reason it failed" in str(result["output"])  # the summary line alone would not say why
    path = bench.kept(tmp_path / "logs", "feature/x@HEAD~1", 2, str(result["output"]))
    assert path == tmp_path / "logs" / "feature_x_HEAD_1-2.log"
    assert path.read_text(encoding="utf-8") == result["output"]


def test_the_default_command_is_the_one_ci_runs() -> None:
    assert bench.ci_test_command() == "pytest -n auto --dist worksteal -q"
