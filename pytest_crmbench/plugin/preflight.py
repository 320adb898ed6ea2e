"""Runs the model preflight (:mod:`pytest_crmbench.models.preflight`) once, on the controller,
before the first task: a misconfigured run fails in seconds with one line per problem."""

from __future__ import annotations

import pytest

from pytest_crmbench.core.errors import CrmbenchError
from pytest_crmbench.models.preflight import format_problems, preflight
from pytest_crmbench.run.settings import RunSettings


class Preflight:
    """Registered as ``crmbench-preflight`` when a model plays a role and ``--crm-no-preflight`` is off."""

    def __init__(self, settings: RunSettings) -> None:
        self.settings = settings

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        # Before xdist starts its workers and before --crm-concurrency plays ahead (both after
        # collection or later), so no episode has started yet.
        if session.config.option.collectonly:
            return
        try:
            problems = preflight(self.settings.models)
        except CrmbenchError as exc:
            raise pytest.UsageError(str(exc)) from None
        if problems:
            raise pytest.UsageError(format_problems(problems))
