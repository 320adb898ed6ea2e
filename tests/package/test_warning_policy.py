"""Warnings are errors in crmbench's own tests, and only there (issue 32 item 7).

pyproject.toml's pytest configuration applies to every run from the checkout, ``pytest tasks/``
too; tests/conftest.py marks the items under tests/ instead.
"""

from __future__ import annotations

import tomllib
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_the_checkouts_configuration_turns_no_warning_into_an_error() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"]
    assert not [f for f in config.get("filterwarnings", []) if f.split(":")[0].strip() == "error"]


def test_our_own_tests_are_strict(request: pytest.FixtureRequest) -> None:
    marks = [mark.args for mark in request.node.iter_markers("filterwarnings")]
    assert marks and marks[-1][0] == "error"  # the lowest-precedence mark: a test's own marks still win
    with pytest.raises(DeprecationWarning):
        warnings.warn("strict", DeprecationWarning, stacklevel=1)


@pytest.mark.filterwarnings("ignore:tolerated here")
def test_a_tests_own_mark_still_wins() -> None:
    warnings.warn("tolerated here", DeprecationWarning, stacklevel=1)
