"""Content hashes: canonical JSON of validated models, so formatting changes never change a hash."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from pytest_crmbench.evidence import jsonable


def canonical_json(value: Any) -> str:
    """Sorted keys, no whitespace, decimals as exact strings: the same data gives the same text."""
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="python")
    return json.dumps(jsonable(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def sha256_text(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def content_hash(value: Any) -> str:
    """Hash of a model or JSON-like value, independent of key order and YAML formatting."""
    return sha256_text(canonical_json(value))


def file_hash(path: Path) -> str:
    """Hash of a file's bytes (environment sources, graphs as written)."""
    return "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()


def combined_hash(hashes: dict[str, str]) -> str:
    """One hash over named hashes (e.g. every task's), independent of their order."""
    return content_hash(dict(sorted(hashes.items())))
