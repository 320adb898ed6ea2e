"""Typed stash keys: crmbench keeps its per-run and per-item data here, never on attributes."""

from __future__ import annotations

import pytest

from pytest_crmbench.environment import ToolEnvironment
from pytest_crmbench.evidence import Evidence
from pytest_crmbench.grading.verdict import TaskVerdict
from pytest_crmbench.settings import RunSettings

settings_key = pytest.StashKey[RunSettings]()
environments_key = pytest.StashKey[dict[str, type[ToolEnvironment]]]()
registered_markers_key = pytest.StashKey[set[str]]()
evidence_key = pytest.StashKey[Evidence]()  # on item.stash
verdict_key = pytest.StashKey[TaskVerdict]()  # on item.stash
