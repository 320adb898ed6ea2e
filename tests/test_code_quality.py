"""The engine stays fully typed and lint-clean: checked as part of the test suite, so CI enforces it."""

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=REPO, capture_output=True, text=True, check=False)


def test_mypy_strict() -> None:
    pytest.importorskip("mypy")
    done = run("mypy")
    assert done.returncode == 0, done.stdout + done.stderr


def test_ruff() -> None:
    pytest.importorskip("ruff")
    done = run("ruff", "check", "pytest_crmbench", "tests", "benchmarks", "envs")
    assert done.returncode == 0, done.stdout + done.stderr


def test_ruff_format() -> None:
    pytest.importorskip("ruff")
    done = run("ruff", "format", "--check", "pytest_crmbench", "tests", "benchmarks", "envs")
    assert done.returncode == 0, done.stdout + done.stderr
