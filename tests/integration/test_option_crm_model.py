"""--crm-model and its friends: gold/null keep working, ini twins, and no litellm without a model."""

from __future__ import annotations

import pytest

from tests.integration.helpers import CrmProject

NO_LITELLM_CONFTEST = """
import sys

def pytest_sessionfinish(session):
    with open("imported.txt", "w") as out:
        out.write(str(sorted(m for m in sys.modules if m.split(".")[0] in ("litellm", "openai"))))
"""


@pytest.mark.parametrize("args", [["--collect-only", "-q"], []], ids=["collection", "gold run"])
def test_no_litellm_import_without_a_model(mini_project: CrmProject, args: list[str]) -> None:
    mini_project.pytester.makeconftest(NO_LITELLM_CONFTEST)
    result = mini_project.run_subprocess(*args)
    assert result.ret == 0
    assert (mini_project.path / "imported.txt").read_text() == "[]"


def test_crm_model_gold_and_null_select_those_agents(mini_project: CrmProject) -> None:
    mini_project.run("--crm-model=gold").assert_outcomes(passed=6)
    mini_project.run("--crm-model=null").assert_outcomes(failed=27, passed=1)


def test_ini_twin(mini_project: CrmProject) -> None:
    mini_project.write_config('crm_model = "null"\n')
    mini_project.run().assert_outcomes(failed=27, passed=1)


def test_builtin_non_model_agent_with_a_model_is_a_usage_error(mini_project: CrmProject) -> None:
    result = mini_project.run("--crm-agent=gold", "--crm-model=openai/x")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--crm-agent=gold does not use a model*"])


def test_bad_price_table_is_a_usage_error(mini_project: CrmProject) -> None:
    (mini_project.path / "prices.yaml").write_text("openai/x: 3\n")
    result = mini_project.run("--crm-model=openai/x", "--crm-prices=prices.yaml")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--crm-prices: price table*openai/x*"])
