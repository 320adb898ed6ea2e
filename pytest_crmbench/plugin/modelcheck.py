"""Runs the model preflight (:mod:`pytest_crmbench.models.preflight`) once, on the controller,
before the first task: a misconfigured run fails in seconds with one line per problem.

The preflight needs litellm, whose import costs seconds of CPU. In a single process it runs on a
thread of its own from session start, overlapping collection, and is waited for when collection
finishes, before any episode starts (``--crm-concurrency`` plays ahead from that same hook,
later). Under xdist the controller collects nothing, so it runs at session start as before,
ahead of the workers.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest

from pytest_crmbench.core.errors import CrmbenchError
from pytest_crmbench.models.preflight import Outcome, format_problems, preflight
from pytest_crmbench.run.settings import RunSettings

OUTPUT_MODES_INPUT = "crmbench_output_modes"
"""``workerinput`` key: the output modes the controller's preflight found (workers probe nothing)."""


class Preflight:
    """Registered as ``crmbench-preflight`` when a model plays a role and ``--crm-no-preflight`` is off."""

    def __init__(self, settings: RunSettings, *, distributed: bool) -> None:
        self.settings = settings
        self.distributed = distributed
        self._thread: threading.Thread | None = None
        self._outcome: Outcome | Exception | None = None

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        # Before xdist starts its workers and before --crm-concurrency plays ahead (both after
        # collection or later), so no episode has started yet.
        if session.config.option.collectonly:
            return
        if self.distributed:
            self._run()
            self._raise()
            return
        self._thread = threading.Thread(target=self._run, name="crmbench-preflight")
        self._thread.start()

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_finish(self) -> None:
        self._wait()

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self) -> None:
        self._wait()  # collection_finish is skipped when collection itself failed

    def pytest_sessionfinish(self) -> None:
        if self._thread is not None:
            self._thread.join()  # interrupted before collection finished: do not leave it running

    def _run(self) -> None:
        try:
            self._outcome = preflight(self.settings.models)
        except Exception as exc:  # re-raised on the main thread, as it was when this ran there
            self._outcome = exc

    def _wait(self) -> None:
        if self._thread is None:
            return
        self._thread.join()
        self._thread = None
        self._raise()

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        node.workerinput[OUTPUT_MODES_INPUT] = dict(self.settings.models.output_modes)

    def _raise(self) -> None:
        outcome, self._outcome = self._outcome, None
        if isinstance(outcome, CrmbenchError):
            raise pytest.UsageError(str(outcome))
        if isinstance(outcome, Exception):
            raise outcome
        if outcome is None:
            return
        if outcome.problems:
            raise pytest.UsageError(format_problems(outcome.problems))
        # In place, before any episode: every config the run builds from here on asks in these
        # forms, and the run's manifest records them (beside the resume fingerprint, not in it).
        self.settings.models.output_modes.update(outcome.modes)
