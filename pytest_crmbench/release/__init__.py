"""Release gates and audits (spec §A.5 to §A.7): validate, lock, capability-exposure audit, inventory."""

from __future__ import annotations

from pytest_crmbench.release.lock import lock_hash
from pytest_crmbench.release.validate import ValidationReport, validate

__all__ = ["ValidationReport", "lock_hash", "validate"]
