"""``--crm-resume=RUN_DIR`` continues the run with the run's own settings (issue 32).

Every option that decides the run's fingerprint (the manifest entries a resumed run must share
with the original: agent, the three roles' models, sampling, seed, trials, limits) is read from
the saved manifest, so ``pytest tasks/ --crm-resume=crm-runs/mine`` alone continues a run started
with ``--crm-model=... --crm-trials=3``. An option given on the command line is checked against the
run instead: a different value is one line naming the option and both values, never a run
continued with a mix of settings. The ini file's values are defaults; the run's own win over them.
The servers the user simulator and the judge were sent to (``--crm-user-api-base``,
``--crm-judge-api-base``) are read too when not given, but may be given anew (a server that moved
answers the same model); everything else (concurrency, timeouts, retries, gates, report options)
is this session's. Two values cannot be restored, and are asked for by a one-line error: an API
base recorded with its credentials redacted, and a price table (the manifest records which models
it priced, not the file).

On the controller the values are put on ``config.option`` before the settings are resolved
(``pytest_configure``); xdist workers receive them in ``workerinput``. The sample
(``--crm-sample``) is kept by :mod:`.sample`, from the same manifest.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import pytest

from pytest_crmbench.core.redaction import REDACTED, redact
from pytest_crmbench.plugin.optiontable import BY_NAME, NO_JUDGE, SCRIPTED_USER
from pytest_crmbench.plugin.optionvalue import path_value
from pytest_crmbench.results.rundir import MANIFEST

RESUMED_INPUT = "crm_resumed_options"
"""``workerinput`` key: the option values the controller read from the resumed run's manifest."""
resumed_key = pytest.StashKey[dict[str, Any]]()
"""The values read from the manifest and not given on the command line (for the start-up line)."""


def _get(manifest: Mapping[str, Any], *path: str) -> Any:
    value: Any = manifest
    for key in path:
        value = value.get(key) if isinstance(value, Mapping) else None
    return value


@dataclass(frozen=True)
class Restored:
    """One option, read from the manifest."""

    name: str
    saved: Callable[[Mapping[str, Any]], Any]
    """The run's value (as the option's type gives it), None when the run had none."""
    normal: Callable[[Any], Any] = lambda value: value
    """A given value as the manifest records it (``scripted`` is no user model)."""
    fingerprint: bool = True
    """False: restored when not given, but a different given value is allowed."""


def _role_model(off: str) -> Callable[[Any], Any]:
    return lambda value: None if value == off else value


RESTORED: tuple[Restored, ...] = (
    Restored("crm_agent", lambda m: _get(m, "agent")),
    Restored("crm_model", lambda m: _get(m, "models", "agent")),
    Restored("crm_user_model", lambda m: _get(m, "models", "user") or SCRIPTED_USER, _role_model(SCRIPTED_USER)),
    Restored("crm_judge_model", lambda m: _get(m, "models", "judge") or NO_JUDGE, _role_model(NO_JUDGE)),
    Restored("crm_api_base", lambda m: _get(m, "sampling", "api_base"), redact),
    Restored("crm_temperature", lambda m: _get(m, "sampling", "temperature")),
    Restored("crm_max_tokens", lambda m: _get(m, "sampling", "max_tokens")),
    Restored("crm_seed", lambda m: _get(m, "settings", "base_seed")),
    Restored("crm_trials", lambda m: _get(m, "settings", "trials")),
    Restored("crm_max_turns", lambda m: _get(m, "settings", "limits", "max_user_turns")),
    Restored("crm_max_iterations", lambda m: _get(m, "settings", "limits", "max_react_iterations")),
    Restored("crm_timeout", lambda m: _get(m, "settings", "limits", "task_timeout_s")),
    Restored("crm_max_tool_calls", lambda m: _get(m, "settings", "limits", "max_tool_calls")),
    Restored("crm_user_api_base", lambda m: _get(m, "servers", "user_api_base"), redact, fingerprint=False),
    Restored("crm_judge_api_base", lambda m: _get(m, "servers", "judge_api_base"), redact, fingerprint=False),
)


def shown_value(value: Any) -> str:
    return "(none)" if value is None else str(value)


def read_manifest(config: pytest.Config) -> Mapping[str, Any] | None:
    """The resumed run's manifest; None when there is none to read (the recorder says why)."""
    path = path_value(config, "crm_resume")
    if path is None:
        return None
    try:
        manifest = json.loads((path / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return manifest if isinstance(manifest, Mapping) else None


def restored_values(config: pytest.Config, manifest: Mapping[str, Any]) -> dict[str, Any]:
    """The values to put on ``config.option``; a UsageError for a given value the run did not have."""
    values: dict[str, Any] = {}
    for option in RESTORED:
        flag = BY_NAME[option.name].flag_name
        saved = option.saved(manifest)
        given = config.getoption(option.name, None)
        if given is not None:
            if option.fingerprint and option.normal(given) != option.normal(saved) and not _same_number(given, saved):
                raise pytest.UsageError(
                    f"--crm-resume: {flag}={shown_value(given)} differs from the run's {flag}={shown_value(saved)};"
                    f" drop {flag} (a resumed run keeps its own settings) or start a new run"
                )
            continue
        if isinstance(saved, str) and REDACTED in saved:
            raise pytest.UsageError(
                f"--crm-resume: the run's {flag} was recorded without its credentials ({saved}); give {flag} again"
            )
        if saved is not None:
            values[option.name] = saved
    prices = _get(manifest, "sampling", "prices")
    if prices and config.getoption("crm_prices", None) is None:
        raise pytest.UsageError(
            f"--crm-resume: the run priced {', '.join(map(str, prices))} from a price table; give --crm-prices=FILE again"
        )
    return values


def _same_number(given: Any, saved: Any) -> bool:
    numbers = (int, float)
    return isinstance(given, numbers) and isinstance(saved, numbers) and float(given) == float(saved)


def configure(config: pytest.Config, is_worker: bool) -> None:
    """From ``pytest_configure``, before the settings are resolved."""
    if is_worker:
        values = dict(getattr(config, "workerinput", {}).get(RESUMED_INPUT) or {})
    else:
        manifest = read_manifest(config)
        if manifest is None:
            return
        values = restored_values(config, manifest)
        config.pluginmanager.register(SendToWorkers(values), "crmbench-resumed-options")
    for name, value in values.items():
        setattr(config.option, name, value)
    config.stash[resumed_key] = values


class SendToWorkers:
    def __init__(self, values: dict[str, Any]) -> None:
        self.values = values

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        node.workerinput[RESUMED_INPUT] = dict(self.values)


def described(values: Mapping[str, Any]) -> str:
    """``--crm-model=openai/x --crm-trials=3``: what a resumed session took from its run, leaving out
    the values it would have had anyway (the defaults)."""
    shown = []
    for name, value in values.items():
        option = BY_NAME[name]
        default = option.type(option.default) if isinstance(option.default, str) and option.default else None
        if value in (default, SCRIPTED_USER, NO_JUDGE):
            continue
        shown.append(f"{option.flag_name}={value}")
    return " ".join(shown)
