"""--crm-resume reads the run's own options from its manifest (issue 32 item 2): the rules alone."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_crmbench.plugin.resumeoptions import described, restored_values

MANIFEST: dict[str, Any] = {
    "agent": "graph",
    "models": {"agent": "openai/qwen3", "user": "openai/qwen3", "judge": None},
    "sampling": {"temperature": 0.0, "max_tokens": None, "api_base": "http://127.0.0.1:8000/v1", "prices": []},
    "settings": {
        "base_seed": 7,
        "trials": 3,
        "limits": {"max_user_turns": 30, "max_react_iterations": 10, "task_timeout_s": 1200.0, "max_tool_calls": 200},
    },
    "servers": {"user_api_base": None, "judge_api_base": None},
}


class Given:
    """A config whose command line gave ``options``."""

    def __init__(self, **options: Any) -> None:
        self.options = options

    def getoption(self, name: str, default: Any = None) -> Any:
        return self.options.get(name, default)


def test_every_fingerprint_option_is_read_back_and_the_defaults_are_not_shown() -> None:
    values = restored_values(Given(), MANIFEST)  # type: ignore[arg-type]
    assert values["crm_model"] == "openai/qwen3" and values["crm_judge_model"] == "none"
    assert values["crm_seed"] == 7 and values["crm_trials"] == 3 and values["crm_temperature"] == 0.0
    assert "crm_max_tokens" not in values and "crm_user_api_base" not in values
    assert described(values) == (
        "--crm-agent=graph --crm-model=openai/qwen3 --crm-user-model=openai/qwen3"
        " --crm-api-base=http://127.0.0.1:8000/v1 --crm-temperature=0.0 --crm-seed=7 --crm-trials=3"
    )


def test_a_given_value_must_match_and_the_same_value_is_no_conflict() -> None:
    same = restored_values(Given(crm_trials=3, crm_timeout=1200, crm_judge_model="none"), MANIFEST)  # type: ignore[arg-type]
    assert "crm_trials" not in same
    with pytest.raises(
        pytest.UsageError, match=r"--crm-trials=1 differs from the run's --crm-trials=3; drop --crm-trials"
    ):
        restored_values(Given(crm_trials=1), MANIFEST)  # type: ignore[arg-type]
    with pytest.raises(
        pytest.UsageError, match=r"--crm-max-tokens=50 differs from the run's --crm-max-tokens=\(none\)"
    ):
        restored_values(Given(crm_max_tokens=50), MANIFEST)  # type: ignore[arg-type]
    # A role's server may move: given anew, it is used.
    moved = {**MANIFEST, "servers": {"user_api_base": "http://old:1/v1", "judge_api_base": None}}
    assert "crm_user_api_base" not in restored_values(Given(crm_user_api_base="http://new:2/v1"), moved)  # type: ignore[arg-type]
    assert restored_values(Given(), moved)["crm_user_api_base"] == "http://old:1/v1"  # type: ignore[arg-type]


def test_what_the_manifest_cannot_hold_is_asked_for_in_one_line() -> None:
    secret = {**MANIFEST, "sampling": {**MANIFEST["sampling"], "api_base": "https://<redacted>@host/v1"}}
    with pytest.raises(pytest.UsageError, match=r"the run's --crm-api-base was recorded without its credentials"):
        restored_values(Given(), secret)  # type: ignore[arg-type]
    assert "crm_api_base" not in restored_values(Given(crm_api_base="https://key@host/v1"), secret)  # type: ignore[arg-type]
    priced = {**MANIFEST, "sampling": {**MANIFEST["sampling"], "prices": ["openai/qwen3"]}}
    with pytest.raises(
        pytest.UsageError, match=r"priced openai/qwen3 from a price table; give --crm-prices=FILE again"
    ):
        restored_values(Given(), priced)  # type: ignore[arg-type]
    assert restored_values(Given(crm_prices="prices.yaml"), priced)["crm_trials"] == 3  # type: ignore[arg-type]
