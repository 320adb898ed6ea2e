"""Release checks that passed, remembered by everything their verdict depends on.

A deterministic check (the tool fuzz of one domain: derandomised hypothesis over the domain's
code) gives the same verdict on the same inputs, so a pass need not be recomputed while none of
them changed. The key is a hash of every input: the check's name and settings, the domain
folder's files, crmbench's own source and the version of the library that drives it. Only
passes are kept; a failing check always runs again, so its message is always fresh.
"""

from __future__ import annotations

import functools
import json
import os
from pathlib import Path
from typing import Any

from pytest_crmbench.core.hashing import content_hash, file_hash

DEFAULT_DIR = Path(".crmbench-cache")
PACKAGE = Path(__file__).resolve().parents[1]


@functools.cache
def crmbench_source_hash() -> str:
    """One hash over every source file of the installed crmbench: any change to it forgets every pass."""
    files = sorted(p for p in PACKAGE.rglob("*") if p.is_file() and p.suffix in (".py", ".html", ".css", ".js"))
    return content_hash({p.relative_to(PACKAGE).as_posix(): file_hash(p) for p in files})


class Passes:
    """Passed checks under ``root`` (one small file each); ``root=None`` remembers nothing."""

    def __init__(self, root: Path | None) -> None:
        self.root = root
        self.reused: list[str] = []
        """The checks not run again because they had passed on the same inputs."""

    @staticmethod
    def key(check: str, **inputs: Any) -> str:
        return content_hash({"check": check, "crmbench": crmbench_source_hash(), **inputs}).removeprefix("sha256:")

    def known(self, key: str, check: str) -> bool:
        found = self.root is not None and self._file(key).is_file()
        if found:
            self.reused.append(check)
        return found

    def remember(self, key: str, check: str) -> None:
        if self.root is None:
            return
        path = self._file(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps({"check": check, "passed": True}) + "\n", encoding="utf-8")
        except OSError:
            pass  # a cache that cannot be written only costs time: the check ran and passed

    def recall(self, key: str, check: str) -> bytes | None:
        """The result remembered with a pass (see :meth:`store`), or None."""
        if self.root is None:
            return None
        try:
            data = self._file(key, "results").read_bytes()
        except OSError:
            return None
        self.reused.append(check)
        return data

    def store(self, key: str, data: bytes) -> None:
        """Remember a passed check with its result, for a check whose result is more than "passed"
        (a task's gold stage: its audit's figures and survivors)."""
        if self.root is None:
            return
        path = self._file(key, "results")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            partial = path.with_suffix(f".{os.getpid()}.part")
            partial.write_bytes(data)
            partial.replace(path)  # a reader never sees half an entry (parallel gates share the cache)
        except OSError:
            pass  # a cache that cannot be written only costs time: the check ran and passed

    def _file(self, key: str, kind: str = "passed") -> Path:
        assert self.root is not None
        return self.root / kind / key[:2] / key
