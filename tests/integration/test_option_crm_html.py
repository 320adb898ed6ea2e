"""--crm-html: a run directory gets report.html at the end; matplotlib stays out of start-up."""

from __future__ import annotations

import pytest

from tests.integration.helpers import CrmProject
from tests.results.test_html import embedded

IMPORTED_CONFTEST = """
import sys

def pytest_sessionfinish(session):
    with open("imported.txt", "w") as out:
        out.write(str(sorted(m for m in sys.modules if m.split(".")[0] in ("matplotlib", "numpy"))))
"""


def test_a_run_directory_gets_its_report(mini_project: CrmProject) -> None:
    result = mini_project.run("--crm-agent=null", "--crm-run-dir=run", "--crm-html=yes")
    result.stdout.fnmatch_lines(["run directory: run", "report: run/report.html"])
    text = (mini_project.path / "run" / "report.html").read_text(encoding="utf-8")
    assert "<h1>crmbench report</h1>" in text and text.count("<svg") == 8
    rows, details = embedded(text, "index")["rows"], embedded(text, "details")
    assert len(rows) == len(details) == 6
    assert {d["task"]["file"] for d in details} == {"tasks/mini.yaml"}  # briefs and YAML lines found


def test_the_report_of_a_compared_run_shows_the_comparison(mini_project: CrmProject) -> None:
    mini_project.run("--crm-run-dir=base")
    result = mini_project.run("--crm-agent=null", "--crm-run-dir=run", "--crm-compare=base", "--crm-html=yes")
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # the drop gate: two tasks lost
    text = (mini_project.path / "run" / "report.html").read_text(encoding="utf-8")
    assert '<section id="comparison"><h2>Comparison: run against base</h2>' in text


def test_no_report_when_asked_or_without_a_run_directory(mini_project: CrmProject) -> None:
    mini_project.run("--crm-agent=null", "--crm-run-dir=run", "--crm-html=no")
    assert not (mini_project.path / "run" / "report.html").exists()
    assert (mini_project.path / "run" / "leaderboard.md").exists()
    result = mini_project.run("--crm-html=yes")  # gold without --crm-run-dir writes no run at all
    assert "report:" not in result.stdout.str()


def test_ini_twin_and_bad_values(mini_project: CrmProject) -> None:
    mini_project.write_config('crm_html = "yes"\n')
    mini_project.run("--crm-agent=null", "--crm-run-dir=run")
    assert (mini_project.path / "run" / "report.html").exists()
    result = mini_project.run("--crm-agent=null", "--crm-html=maybe")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*argument --crm-html: 'maybe' is neither yes nor no"])
    mini_project.write_config('crm_html = "sometimes"\n')
    result = mini_project.run("--crm-agent=null")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: ini option crm_html = 'sometimes': 'sometimes' is neither yes nor no"])


@pytest.mark.parametrize("args", [["--collect-only", "-q"], [], ["--crm-agent=null", "--crm-html=no"]])
def test_matplotlib_is_not_imported_unless_a_report_is_drawn(mini_project: CrmProject, args: list[str]) -> None:
    mini_project.pytester.makeconftest(IMPORTED_CONFTEST)
    mini_project.run_subprocess(*args)
    assert (mini_project.path / "imported.txt").read_text() == "[]"
