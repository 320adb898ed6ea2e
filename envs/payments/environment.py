"""The payments domain environment (discovered by folder name)."""

from .tools import PaymentsEnvironment

__all__ = ["PaymentsEnvironment"]
