"""The run's own options (``--crm-run-dir``, ``--crm-resume``, ``--crm-html``, the gates), resolved
once in ``pytest_configure`` through :mod:`~pytest_crmbench.plugin.optionvalue` into
:class:`RecordSettings`, kept on ``config.stash``; nothing else reads these options."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from pytest_crmbench.plugin.optionvalue import on_command_line, option_value, path_value
from pytest_crmbench.plugin.runmanifest import system_name
from pytest_crmbench.results.gates import Gates
from pytest_crmbench.results.records import model_of
from pytest_crmbench.results.rundir import default_run_dir
from pytest_crmbench.results.selftest import is_selftest, score_gate_refusal
from pytest_crmbench.run.settings import RunSettings


@dataclass(frozen=True)
class RecordSettings:
    run_dir: Path | None
    """Where this run is written; None: not written (a gold run without ``--crm-run-dir``)."""
    resume: Path | None
    gates: Gates
    html: bool = True
    """Write ``report.html`` into the run directory at the end."""


record_settings_key = pytest.StashKey[RecordSettings]()


def resolve_record_settings(config: pytest.Config, settings: RunSettings) -> RecordSettings:
    """Decides whether this run is written, and where; refuses combinations that cannot work."""
    resume = path_value(config, "crm_resume")
    run_dir = path_value(config, "crm_run_dir")
    if resume is not None:
        if on_command_line(config, "crm_run_dir") and run_dir != resume:
            raise pytest.UsageError("--crm-resume continues its own run directory; drop --crm-run-dir")
        run_dir = resume
    elif run_dir is None and (settings.agent != "gold" or model_of(settings)):
        # Gold runs are the benchmark's self-test (plain `pytest` in this repository): they are
        # not results worth keeping unless asked. Every other agent or model writes its run.
        run_dir = default_run_dir(config.rootpath, system_name(settings))
    gates = Gates(
        fail_under=option_value(config, "crm_fail_under"),
        compare=path_value(config, "crm_compare"),
        max_drop=option_value(config, "crm_max_drop"),
        max_infra=option_value(config, "crm_max_infra"),
        significance=option_value(config, "crm_significance"),
    )
    if gates.max_drop is not None and gates.compare is None:
        raise pytest.UsageError("--crm-max-drop needs --crm-compare=BASELINE_RUN")
    if gates.significance is not None and gates.compare is None:
        raise pytest.UsageError("--crm-significance needs --crm-compare=BASELINE_RUN")
    # `pytest tasks/ --crm-fail-under=0.80` on the default agent failed at 27 % right after saying
    # every programmatic check held (issue 32 item 4): refused before anything runs instead.
    if is_selftest(settings) and gates.fail_under is not None:
        raise pytest.UsageError(score_gate_refusal("--crm-fail-under"))
    if is_selftest(settings) and gates.compare is not None:
        raise pytest.UsageError(score_gate_refusal("--crm-compare"))
    if gates.active and not settings.gate_worthy:
        flag = (
            "--crm-fail-under"
            if gates.fail_under is not None
            else "--crm-compare"
            if gates.compare
            else "--crm-max-infra"
        )
        raise pytest.UsageError(
            f"{flag}: an agent run in pytest's process (--crm-agent-inprocess) is not gate-worthy; drop"
            " --crm-agent-inprocess to gate the run"
        )
    return RecordSettings(run_dir=run_dir, resume=resume, gates=gates, html=option_value(config, "crm_html") != "no")
