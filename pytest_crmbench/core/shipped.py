"""Where the benchmark shipped with crmbench lives: its tasks, environments and graphs.

The repository keeps them at its top level (``tasks/``, ``envs/``, ``agents/``); a wheel carries
copies inside the package as ``pytest_crmbench/suite/`` (``setup.py`` copies them at build time).
``pytest --crm-suite`` runs them from any directory, so a model team can gate a release in its
own CI with ``pip install crmbench`` and no checkout.
"""

from __future__ import annotations

from pathlib import Path

from pytest_crmbench.core.errors import CrmbenchError

SUITE_FOLDERS = ("tasks", "envs", "agents")
PACKAGE_DIR = Path(__file__).resolve().parents[1]
PACKAGED = "packaged"
"""The run manifest's ``suite`` of a ``--crm-suite`` run: the run names the suite, not where it was
installed (one machine's site-packages), and readers find it with :func:`suite_root`."""


def suite_root() -> Path:
    """The folder holding ``tasks/``, ``envs/`` and ``agents/``: inside an installed wheel, or the
    checkout of an editable install."""
    for candidate in (PACKAGE_DIR / "suite", PACKAGE_DIR.parent):
        if all((candidate / folder).is_dir() for folder in SUITE_FOLDERS):
            return candidate
    raise CrmbenchError(
        f"no benchmark suite found in {PACKAGE_DIR / 'suite'} (this crmbench was installed without its tasks;"
        " reinstall it from a wheel or a checkout)"
    )
