"""Which files are task files: the one rule that pytest collection, run hashing and ``crmbench`` share.

A task file is a file whose path, relative to a root, matches one of the include globs and none
of the exclude globs. ``*`` and ``?`` stay within one folder, ``**`` crosses folders. The
defaults: every ``*.yaml`` of ``tasks/`` except the release manifest ``tasks/manifest.yaml``.
pytest reads them relative to the rootdir (ini ``crm_task_files`` / ``crm_task_exclude``);
``crmbench validate|grade|audit --tasks DIR`` apply the same rule with ``DIR`` as the tasks folder.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

TASKS_FOLDER = "tasks"
TASK_GLOB = "*.yaml"
MANIFEST_NAME = "manifest.yaml"
"""``tasks/manifest.yaml``: the release manifest, a YAML file next to the task files but not one."""


@functools.lru_cache(maxsize=64)
def _glob_regex(pattern: str) -> re.Pattern[str]:
    parts = re.split(r"(\*\*/|\*\*|\*|\?)", pattern)
    wildcards = {"**/": "(?:.*/)?", "**": ".*", "*": "[^/]*", "?": "[^/]"}
    return re.compile("".join(wildcards.get(part, re.escape(part)) for part in parts) + r"\Z")


def glob_match(path: str, pattern: str) -> bool:
    """Glob match on a relative posix path: ``*`` and ``?`` stay within one folder, ``**`` crosses folders."""
    return _glob_regex(pattern).match(path) is not None


@dataclass(frozen=True)
class TaskFiles:
    """Include and exclude globs, relative to the root they are applied to."""

    include: tuple[str, ...] = (f"{TASKS_FOLDER}/{TASK_GLOB}",)
    exclude: tuple[str, ...] = (f"{TASKS_FOLDER}/{MANIFEST_NAME}",)

    @classmethod
    def folder(cls) -> TaskFiles:
        """The default rule applied inside the tasks folder itself (``crmbench --tasks DIR``)."""
        return cls(include=(TASK_GLOB,), exclude=(MANIFEST_NAME,))

    def matches(self, relative: str) -> bool:
        """Whether the posix path ``relative`` (to the root) names a task file."""
        return any(glob_match(relative, g) for g in self.include) and not any(
            glob_match(relative, g) for g in self.exclude
        )

    def is_task_file(self, path: Path, root: Path) -> bool:
        return path.is_relative_to(root) and self.matches(path.relative_to(root).as_posix())

    def find(self, root: Path) -> list[Path]:
        """Every task file under ``root``, sorted."""
        found = {path for pattern in self.include for path in root.glob(pattern) if path.is_file()}
        return sorted(path for path in found if self.is_task_file(path, root))
