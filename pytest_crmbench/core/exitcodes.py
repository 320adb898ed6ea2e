"""The exit codes of ``crmbench`` and of a ``pytest`` run with the plugin: one table for both.

Named like coverage.py's (``OK``, ``ERR``, ``FAIL_UNDER``), valued like pytest's, so a CI job
reads the same number from either command: a failed gate is 1 (pytest's "tests failed"), a usage
error 4 (pytest's ``USAGE_ERROR``). ``BAD_INPUT`` is 2, which is also what pytest exits with when a
task file cannot be collected. ``docs/ci.md`` and the README list them.
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    """Everything passed (pytest: every item passed, or every gate passed)."""
    GATE_FAILED = 1
    """A gate or a check failed: tasks failed, ``--crm-fail-under`` / ``--crm-compare`` /
    ``--crm-max-infra`` not met, ``crmbench validate`` / ``audit`` / ``gate`` found a problem."""
    BAD_INPUT = 2
    """Input crmbench cannot read: a malformed task file, run directory or trajectory (pytest: a
    collection error, which interrupts the session)."""
    INTERNAL_ERROR = 3
    """A bug in crmbench (the traceback is printed)."""
    USAGE_ERROR = 4
    """A wrong command line or configuration: an unknown option, a bad value, a missing credential
    found by the preflight, litellm not installed."""
    NO_TESTS = 5
    """pytest only: nothing was collected (e.g. ``-k`` matched no task)."""
