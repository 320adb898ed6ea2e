"""Content hashes: canonical JSON of validated models, so formatting changes never change a hash."""

from __future__ import annotations

import hashlib
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from pytest_crmbench.core.evidence import jsonable


def canonical_json(value: Any) -> str:
    """Sorted keys, no whitespace, decimals by value: the same data gives the same text.

    ``130.00`` and ``130.0`` are one number to every check, so they hash alike too. A model's
    fields left at their defaults are left out: a field the schema gains later (with a default
    that keeps today's meaning) must not change the hash of every task already locked, and a
    record that spells out a default is the same task as one that omits it.
    """
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="python", exclude_defaults=True)
    return json.dumps(jsonable(_normal_decimals(value)), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _normal_decimals(value: Any) -> Any:
    if isinstance(value, Decimal):
        return Decimal(format(value.normalize(), "f")) if value.is_finite() else value
    if isinstance(value, dict):
        return {k: _normal_decimals(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_normal_decimals(v) for v in value]
    return value


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
