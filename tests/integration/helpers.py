"""Helpers for the pytester integration tests: an isolated crmbench project per test.

Each project is ``<pytester.path>/envs`` (a copy of ``tests/data/envs``, the ``mini`` domain),
``tasks/<name>.yaml`` task files and a ``pyproject.toml`` with ``strict = true``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

DATA = Path(__file__).parents[1] / "data"
MINI_IDS = [
    "mini_transfer_retry_01",
    "mini_checkout_chain_01",
    "mini_balance_only_01",
    "mini_transfer_frozen_01",
    "mini_refusal_close_01",
    "mini_override_01",
]


def mini_text() -> str:
    return (DATA / "tasks" / "mini.yaml").read_text(encoding="utf-8")


def replace_once(text: str, old: str, new: str) -> str:
    """``text`` with the single occurrence of ``old`` replaced (fails loudly if the data moved)."""
    assert text.count(old) == 1, f"expected exactly one {old!r} in the task text"
    return text.replace(old, new)


class CrmProject:
    """A crmbench project inside ``pytester.path``."""

    def __init__(self, pytester: pytest.Pytester) -> None:
        self.pytester = pytester
        self.path = pytester.path
        self.tasks = self.path / "tasks"
        self.tasks.mkdir()
        shutil.copytree(DATA / "envs", self.path / "envs")
        self.write_config("")

    def write_config(self, extra: str) -> None:
        """``pyproject.toml`` with ``strict = true`` plus ``extra`` lines under ``[tool.pytest]``.

        ``crm_html = "no"``: drawing report.html costs about a second per run; the tests of the
        report turn it back on with ``--crm-html=yes``.
        """
        html = "" if "crm_html" in extra else 'crm_html = "no"\n'
        text = f"[tool.pytest]\nstrict = true\n{html}{extra}"
        (self.path / "pyproject.toml").write_text(text, encoding="utf-8")

    def add(self, name: str, source: Path | None = None) -> Path:
        """Copy a data file (default ``tests/data/tasks/<name>``) to ``tasks/<name>``."""
        target = self.tasks / name
        shutil.copyfile(source or DATA / "tasks" / name, target)
        return target

    def add_bad(self, name: str) -> Path:
        return self.add(name, DATA / "bad" / name)

    def write(self, name: str, text: str) -> Path:
        target = self.tasks / name
        target.write_text(text, encoding="utf-8")
        return target

    def run(self, *args: str) -> pytest.RunResult:
        # In-process runs re-load the already imported plugin: silence pytest's note that it
        # cannot be assertion-rewritten a second time (it would show up in every summary).
        # hypothesis' plugin is irrelevant here and costs a second per run.
        return self.pytester.runpytest(
            "-p", "no:hypothesispytest", "-W", "ignore::pytest.PytestAssertRewriteWarning", *args
        )

    def run_subprocess(self, *args: str) -> pytest.RunResult:
        return self.pytester.runpytest_subprocess("-p", "no:hypothesispytest", *args)
