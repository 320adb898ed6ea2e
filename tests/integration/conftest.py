"""Fixtures of the pytester integration tests (helpers live in ``helpers.py``)."""

from __future__ import annotations

import sys

import matplotlib.backends.backend_svg  # see below
import matplotlib.figure
import matplotlib.ticker  # noqa: F401
import pytest

from tests.integration.helpers import CrmProject

# pytester takes the modules a run imported back out after every in-process run, and matplotlib
# (numpy under it) does not survive a second import in one process: the second in-process report
# of a worker lost its figures. Imported here, before any run, what the figures use stays in
# every snapshot. (The test that matplotlib stays out of start-up runs pytest in a subprocess.)


@pytest.fixture
def crm_project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> CrmProject:
    """An empty project (envs + config, no task files); call ``.add("mini.yaml")`` etc."""
    monkeypatch.setenv("COLUMNS", "80")
    for name in ("PY_COLORS", "NO_COLOR", "FORCE_COLOR"):
        monkeypatch.delenv(name, raising=False)
    # Domains are imported once per process as ``crmbench_envs.<domain>``; the unit tests load
    # tests/data/envs/mini that way, and the in-process runs here load <project>/envs/mini.
    # Hide the outer copy for the duration of the test (restored at teardown).
    for module in [m for m in sys.modules if m == "crmbench_envs" or m.startswith("crmbench_envs.")]:
        monkeypatch.delitem(sys.modules, module)
    return CrmProject(pytester)


@pytest.fixture
def mini_project(crm_project: CrmProject) -> CrmProject:
    """A project holding ``tasks/mini.yaml`` (6 tasks, all green on the gold agent)."""
    crm_project.add("mini.yaml")
    return crm_project
