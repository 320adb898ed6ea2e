"""Warnings issued by agent code are counted, never raised (issue 32 item 7).

A framework the agent uses may warn (a deprecation inside ``respond()``, say). Under a warning
filter that turns warnings into errors (``filterwarnings = error`` in the project's pytest
configuration, ``-W error``) that warning would raise inside the agent and end its episode as an
``agent_error``: the score would depend on the warning policy of whoever runs the benchmark. So
the agent factory and every ``respond()`` run under :func:`agent_code`, which shows every warning
to a recorder instead of to the filters' actions, and the episode's evidence counts them
(:attr:`Evidence.agent_warnings`); nothing is held against the agent.

``warnings.catch_warnings`` is process-wide state, not per thread (before Python 3.14), and
``--crm-concurrency`` runs agents in a pool's threads: the first agent call to start installs the
recorder and the last one to finish removes it, so overlapping calls never restore each other's
filters out of order. A warning from a thread that is not running agent code at that moment goes
on to whoever showed warnings before. While pytest's main thread enters an item's own warning
context, that context decides; the task items' own mark (plugin/collect.py) keeps it from turning
a warning into an error.
"""

from __future__ import annotations

import os
import threading
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO

from pytest_crmbench.core.usage import UsageLedger

__all__ = ["agent_code", "warning_line"]


def warning_line(message: Warning | str, category: type[Warning], filename: str, lineno: int) -> str:
    """One warning as the evidence keeps it: ``Category: message (file:line)``."""
    text = str(message).strip().splitlines()
    return f"{category.__name__}: {(text or [''])[0][:300]} ({os.path.basename(filename)}:{lineno})"


class _Recorder:
    """The one recorder of the process: ``warnings``' filters are process state, so whatever
    coordinates changes to them is one per process too. Idle (nothing installed, nothing kept)
    whenever no agent code runs, so no session leaves anything behind for the next."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.active = 0
        self.context: warnings.catch_warnings | None = None
        self.previous: Any = None
        self.local = threading.local()

    def enter(self, ledger: UsageLedger) -> UsageLedger | None:
        with self.lock:
            if self.active == 0:
                context = warnings.catch_warnings()
                context.__enter__()
                self.previous = warnings.showwarning
                warnings.simplefilter("always")  # every warning reaches the recorder, none is an error
                warnings.showwarning = self.show
                self.context = context
            self.active += 1
        outer: UsageLedger | None = getattr(self.local, "ledger", None)
        self.local.ledger = ledger
        return outer

    def exit(self, outer: UsageLedger | None) -> None:
        self.local.ledger = outer
        with self.lock:
            self.active -= 1
            if self.active == 0 and self.context is not None:
                self.context.__exit__(None, None, None)
                self.context, self.previous = None, None

    def show(
        self,
        message: Warning | str,
        category: type[Warning],
        filename: str,
        lineno: int,
        file: TextIO | None = None,
        line: str | None = None,
    ) -> None:
        ledger: UsageLedger | None = getattr(self.local, "ledger", None)
        if ledger is not None:
            ledger.warned(warning_line(message, category, filename, lineno))
        elif self.previous is not None:
            self.previous(message, category, filename, lineno, file, line)


RECORDER = _Recorder()


@contextmanager
def agent_code(ledger: UsageLedger) -> Iterator[None]:
    """Run agent code with every warning it issues counted in ``ledger`` instead of shown or raised."""
    outer = RECORDER.enter(ledger)
    try:
        yield
    finally:
        RECORDER.exit(outer)
