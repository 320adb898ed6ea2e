"""--crm-html-every: report.html is rewritten while the run goes on, says whether it is final, and a
failed rewrite changes neither a score nor the exit status (issue 32, the report)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from pytest_crmbench.plugin.livereport import COST_SHARE, LiveReport
from tests.integration.helpers import CrmProject

# Before each item, the status line of the report as a reader opening it then would see.
SEEN_CONFTEST = """
import re
import shutil
from pathlib import Path

def pytest_runtest_logstart(nodeid):
    page = Path("run/report.html")
    if page.exists():
        status = re.search(r'<p id="status" class="status (\\w+)" role="status">(.*?)</p>', page.read_text())
        with open("seen.txt", "a") as out:
            out.write(f"{status.group(1)}: {status.group(2)}\\n")
"""


def status(run: Path) -> str:
    match = re.search(r'<p id="status" class="status (\w+)" role="status">(.*?)</p>', (run / "report.html").read_text())
    assert match is not None
    return f"{match.group(1)}: {match.group(2)}"


def test_the_report_is_rewritten_during_the_run_and_final_at_the_end(mini_project: CrmProject) -> None:
    mini_project.pytester.makeconftest(SEEN_CONFTEST)
    result = mini_project.run("--crm-agent=null", "--crm-run-dir=run", "--crm-html=yes", "--crm-html-every=0.001")
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # the null agent's failures, nothing else
    seen = (mini_project.path / "seen.txt").read_text().splitlines()
    # The first result is rewritten at once; the next rewrite waits COST_SHARE x its cost (seconds).
    assert seen[0].startswith("running: In progress: 1 of 6 results so far.")
    assert "<title>(in progress" not in (mini_project.path / "run" / "report.html").read_text()
    assert status(mini_project.path / "run") == "final: Final: the run finished with 6 results."
    assert not (mini_project.path / "run" / "report.html.tmp").exists()


def test_a_run_stopped_early_says_so(mini_project: CrmProject) -> None:
    result = mini_project.run("--crm-agent=null", "--crm-run-dir=run", "--crm-html=yes", "-x")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert status(mini_project.path / "run") == (
        "stopped: The run stopped before it finished: 1 of 6 results. --crm-resume completes it."
    )


def test_zero_means_only_at_the_end_and_the_default_waits_a_minute(mini_project: CrmProject) -> None:
    mini_project.pytester.makeconftest(SEEN_CONFTEST)
    mini_project.run("--crm-agent=null", "--crm-run-dir=run", "--crm-html=yes", "--crm-html-every=0")
    assert not (mini_project.path / "seen.txt").exists()
    shutil.rmtree(mini_project.path / "run")
    mini_project.run("--crm-agent=null", "--crm-run-dir=run", "--crm-html=yes")  # 60 s: a short run is not
    assert not (mini_project.path / "seen.txt").exists()
    result = mini_project.run("--crm-agent=null", "--crm-html-every=soon")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*argument --crm-html-every: 'soon' is not a number"])


FAILING_REWRITE = """
from pytest_crmbench.plugin import runreport

real = runreport.write_report

def failing(paths, output, sources, status=None, readers=None):
    if status is not None and status.state == "running":
        raise OSError("disk on fire")
    return real(paths, output, sources, status, readers)

runreport.write_report = failing

def pytest_unconfigure(config):
    runreport.write_report = real  # in-process runs share the module: later runs write normally
"""


def test_a_failed_rewrite_is_one_line_and_changes_nothing_else(mini_project: CrmProject) -> None:
    plain = mini_project.run("--crm-agent=null", "--crm-run-dir=plain", "--crm-html=yes", "--crm-html-every=0")
    mini_project.pytester.makeconftest(FAILING_REWRITE)
    result = mini_project.run("--crm-agent=null", "--crm-run-dir=run", "--crm-html=yes", "--crm-html-every=0.001")
    assert result.ret == plain.ret
    result.stdout.fnmatch_lines(
        ["report.html not rewritten during the run (OSError: disk on fire); crmbench report can retry"]
    )
    assert result.stdout.str().count("disk on fire") == 1
    assert status(mini_project.path / "run") == "final: Final: the run finished with 6 results."
    board = (mini_project.path / "run" / "leaderboard.md").read_text()
    assert board == (mini_project.path / "plain" / "leaderboard.md").read_text().replace("plain", "run")


def test_rewrites_wait_for_new_results_and_for_a_multiple_of_their_cost() -> None:
    now = [0.0]
    recorder: Any = SimpleNamespace(run_dir=object(), write_failure=None, records={}, previous={}, expected={})
    live = LiveReport(recorder, 10.0, clock=lambda: now[0])
    now[0] = 11.0
    assert not live.due()  # no result yet
    recorder.records = {("t", 0): None}
    assert live.due()
    live.last_at, live.last_count, live.cost_s = 11.0, 1, 2.0  # as after a rewrite that took 2 s
    recorder.records = {("t", 0): None, ("u", 0): None}
    now[0] = 11.0 + 10.0
    assert not live.due()  # 10 s passed, but a 2 s rewrite waits COST_SHARE x 2 s
    now[0] = 11.0 + COST_SHARE * 2.0
    assert live.due()


COUNTING_WRITES = """
from pathlib import Path

from pytest_crmbench.plugin import runreport

real = runreport.write_report

def counting(paths, output, sources, status=None, readers=None):
    with open(Path(str(output)).parent.parent / "writes.txt", "a") as out:
        out.write(f"{status.state if status else 'none'}\\n")
    return real(paths, output, sources, status, readers)

runreport.write_report = counting

def pytest_unconfigure(config):
    runreport.write_report = real  # in-process runs share the module: the next run counts afresh
"""


@pytest.mark.parametrize("every", ["0", "1000"])
@pytest.mark.parametrize("stop", [[], ["-x"]])
def test_the_session_end_writes_the_report_once_saying_whether_it_is_final(
    mini_project: CrmProject, stop: list[str], every: str
) -> None:
    """A stopped run's report was written as final, then (with --crm-html-every) rewritten as
    stopped; with --crm-html-every=0 it stayed "final" (issue 32)."""
    mini_project.pytester.makeconftest(COUNTING_WRITES)
    mini_project.run("--crm-agent=null", "--crm-run-dir=run", "--crm-html=yes", f"--crm-html-every={every}", *stop)
    writes = (mini_project.path / "writes.txt").read_text().splitlines()
    assert writes == (["stopped"] if stop else ["final"])
    expected = "stopped: The run stopped before it finished" if stop else "final: Final"
    assert status(mini_project.path / "run").startswith(expected)
