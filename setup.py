"""Ship the benchmark inside the wheel: tasks/, envs/ and agents/ become pytest_crmbench/suite/.

Everything else is declared in pyproject.toml. The three folders stay at the top of the
repository (the layout is fixed by the design); a wheel carries copies so that
``pip install crmbench`` alone can run them with ``pytest --crm-suite`` (issue 12 item 13).
An editable install finds them in the checkout instead (pytest_crmbench/core/shipped.py).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

SUITE = ("tasks", "envs", "agents")
IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache")


class BuildWithSuite(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        target = Path(self.build_lib) / "pytest_crmbench" / "suite"
        # setuptools reuses build/lib between builds: a task file or domain deleted since the last
        # one would still ship (copytree only adds). The suite is copied whole, every time.
        shutil.rmtree(target, ignore_errors=True)
        for name in SUITE:
            shutil.copytree(name, target / name, ignore=IGNORED, dirs_exist_ok=True)


setup(cmdclass={"build_py": BuildWithSuite})
