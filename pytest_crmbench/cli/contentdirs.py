"""The task and environment folders ``crmbench gate/grade/leaderboard/report`` check saved runs against.

Given on the command line (``--tasks``, ``--envs``): those. Otherwise ``./tasks`` and ``./envs``,
unless every run was made on the packaged suite (``pytest --crm-suite``, its manifest's ``suite``):
then the suite's own folders, wherever this crmbench is installed, so the runs an installed wheel
writes can be re-gated in the same empty directory they were made in.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pytest_crmbench.core.shipped import PACKAGED, suite_root
from pytest_crmbench.results.rundir import MANIFEST, RunDirError, read_manifest


@dataclass(frozen=True)
class ContentDirs:
    tasks: Path
    envs: Path
    root: Path
    """What task files are shown relative to in reports."""


def content_dirs(tasks: Path | None, envs: Path | None, runs: Sequence[Path]) -> ContentDirs:
    root = suite_root() if made_on_the_packaged_suite(runs) else Path()  # Path(): relative to the cwd
    return ContentDirs(tasks or root / "tasks", envs or root / "envs", root)


def made_on_the_packaged_suite(runs: Sequence[Path]) -> bool:
    """Whether every one of ``runs`` is a run directory whose manifest names the packaged suite."""
    if not runs:
        return False
    for run in runs:
        if not (run / MANIFEST).is_file():
            return False  # a trajectory file, or not a run: the command says so when it reads it
        try:
            if read_manifest(run).get("suite") != PACKAGED:
                return False
        except RunDirError:
            return False  # reported, with its reason, when the command loads the run
    return True
