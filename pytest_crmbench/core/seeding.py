"""Seeds derived from (base seed, task id, trial), so every random choice is reproducible."""

from __future__ import annotations

import hashlib


def derive_seed(base_seed: int, task_id: str, trial: int = 0, purpose: str = "") -> int:
    """A 32-bit seed that depends only on its inputs (not on PYTHONHASHSEED or run order)."""
    digest = hashlib.sha256(f"{base_seed}\x1f{task_id}\x1f{trial}\x1f{purpose}".encode()).digest()
    return int.from_bytes(digest[:4], "big")
