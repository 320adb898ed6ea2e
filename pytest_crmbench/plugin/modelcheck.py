"""Runs the model preflight (:mod:`pytest_crmbench.models.preflight`) once, on the controller,
before the first task: a misconfigured run fails in seconds with one line per problem.

The preflight needs litellm, whose import costs seconds of CPU. In a single process it runs on a
thread of its own from session start, overlapping collection, and is waited for when collection
finishes, after pytest's ``collected`` line and before any episode starts (``--crm-concurrency``
waits for it before it plays ahead). Under xdist the controller collects nothing, so it runs
when xdist sets up its nodes: after the session header, before any worker starts. Either way it
says what it did in one line (:mod:`.startup`).
"""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from pytest_crmbench.core.errors import CrmbenchError
from pytest_crmbench.models.preflight import Outcome, format_problems, preflight, targets
from pytest_crmbench.plugin.startup import StartupLines, seconds
from pytest_crmbench.run.settings import RunSettings

PREFLIGHT = "crmbench-preflight"
OUTPUT_MODES_INPUT = "crmbench_output_modes"
"""``workerinput`` key: the output modes the controller's preflight found (workers probe nothing)."""


def wait_for_preflight(config: pytest.Config) -> None:
    """Before anything counts on the run going ahead (items expected, episodes played ahead): the
    preflight has passed, or its UsageError is raised here."""
    preflight = config.pluginmanager.get_plugin(PREFLIGHT)
    if isinstance(preflight, Preflight):
        preflight.wait()


class Preflight:
    """Registered as ``crmbench-preflight`` when a model plays a role and ``--crm-no-preflight`` is off."""

    def __init__(self, settings: RunSettings, *, distributed: bool, lines: StartupLines | None = None) -> None:
        self.settings = settings
        self.distributed = distributed
        self.lines = lines
        self._thread: threading.Thread | None = None
        self._outcome: Outcome | Exception | None = None
        self._took_s = 0.0

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        # Before --crm-concurrency plays ahead (after collection), so no episode has started yet.
        if session.config.option.collectonly or self.distributed:
            return
        self._thread = threading.Thread(target=self._run, name="crmbench-preflight")
        self._thread.start()

    @pytest.hookimpl(optionalhook=True, tryfirst=True)
    def pytest_xdist_setupnodes(self, config: pytest.Config) -> None:
        # Under xdist: after the session header, before the first worker starts.
        if not self.distributed or config.option.collectonly:
            return
        self._begin()
        self._run()
        self._raise()

    @pytest.hookimpl(trylast=True)  # after pytest's "collected N items" and the collection lines
    def pytest_collection_finish(self) -> None:
        self.wait()

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self) -> None:
        self.wait()  # collection_finish is skipped when collection itself failed

    def pytest_sessionfinish(self) -> None:
        if self._thread is not None:
            self._thread.join()  # interrupted before collection finished: do not leave it running

    def _run(self) -> None:
        started = time.monotonic()
        try:
            self._outcome = preflight(self.settings.models)
        except Exception as exc:  # re-raised on the main thread, as it was when this ran there
            self._outcome = exc
        self._took_s = time.monotonic() - started

    def _begin(self) -> None:
        if self.lines is not None:
            self.lines.begin(self._title())

    def wait(self) -> None:
        """Block until the preflight has finished; raise its problems (a UsageError) if any.

        Before the first episode: ``--crm-concurrency`` calls it before it plays ahead."""
        if self._thread is None:
            return
        if self._thread.is_alive():
            self._begin()
        self._thread.join()
        self._thread = None
        self._raise()

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        node.workerinput[OUTPUT_MODES_INPUT] = dict(self.settings.models.output_modes)

    def _raise(self) -> None:
        outcome, self._outcome = self._outcome, None
        self._say(outcome)
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

    def _say(self, outcome: Outcome | Exception | None) -> None:
        if self.lines is None or outcome is None:
            return
        failed = isinstance(outcome, Exception) or bool(outcome.problems)
        imported = self.settings.models.transport.import_s
        litellm = f" (litellm import {seconds(imported)})" if imported is not None else ""
        verdict = "found a problem" if failed else "ok"
        result = f"{verdict} in {seconds(self._took_s)}{litellm}"
        self.lines.end(result if self.lines.is_open else f"{self._title()} {result}")

    def _title(self) -> str:
        found = targets(self.settings.models)
        roles = ", ".join(role for target in found for role in target.roles)
        servers = {target.api_base for target in found}
        return f"crmbench: model preflight of {roles} ({len(found)} model(s), {len(servers)} server(s))"
