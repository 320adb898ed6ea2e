"""Where ``--crm-suite`` finds the shipped benchmark: a wheel's copy, else the checkout."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_crmbench.core import shipped
from pytest_crmbench.core.errors import CrmbenchError

REPO = Path(__file__).resolve().parents[2]


def test_a_checkout_is_its_own_suite() -> None:
    assert shipped.suite_root() == REPO


def test_a_wheels_copy_comes_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "site-packages" / "pytest_crmbench"
    for folder in shipped.SUITE_FOLDERS:
        (package / "suite" / folder).mkdir(parents=True)
    monkeypatch.setattr(shipped, "PACKAGE_DIR", package)
    assert shipped.suite_root() == package / "suite"


def test_an_install_without_the_suite_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shipped, "PACKAGE_DIR", tmp_path / "site-packages" / "pytest_crmbench")
    with pytest.raises(CrmbenchError, match="no benchmark suite found"):
        shipped.suite_root()
