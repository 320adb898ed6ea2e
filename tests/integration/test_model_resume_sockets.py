"""A model run and its resume leave no socket or event loop open (issue 32 item 3).

Both run in a subprocess with ``PYTHONWARNINGS=error::ResourceWarning``: what is still open when
the interpreter exits is then reported on stderr (``Exception ignored in: <socket.socket ...>``),
as it was at the end of every model run's resume before the session closed litellm's clients.
"""

from __future__ import annotations

import pytest

from pytest_crmbench.models.fakellm import FakeLLM
from tests.integration.helpers import CrmProject
from tests.integration.test_models import (  # noqa: F401  (fixtures)
    CASE_A_ID,
    CASE_C_ID,
    litellm_imported,
    model_options,
    payments,
    script,
    server,
)


def model_run(project: CrmProject, server: FakeLLM, *extra: str) -> pytest.RunResult:  # noqa: F811
    return project.run_subprocess(*model_options(server), *extra)


def test_a_model_run_and_its_resume_close_every_socket(
    payments: CrmProject,  # noqa: F811
    server: FakeLLM,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PYTHONWARNINGS", "error::ResourceWarning")
    first = model_run(payments, server, "--crm-run-dir=run", "-k", CASE_A_ID)
    first.assert_outcomes(passed=1)
    resumed = model_run(payments, server, "--crm-resume=run", "-k", f"{CASE_A_ID} or {CASE_C_ID}")
    resumed.stdout.fnmatch_lines(["resumed: 1 earlier result(s) merged, 1 new"])
    for result in (first, resumed):
        text = result.stdout.str() + result.stderr.str()
        assert "ResourceWarning" not in text, text[-3000:]
        assert "unclosed" not in text, text[-3000:]
