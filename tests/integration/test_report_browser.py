"""report.html in a real browser: headless Debian Chromium driven by Playwright (issue 13).

A null-agent baseline and a model run (graph agent, simulator and judge played by the fake
OpenAI server through litellm) of spec cases A and B write their run directories; the model run
writes ``report.html`` comparing itself with the baseline. Chromium opens the file and we check
what a reader needs: the leaderboard, a figure, a filter that narrows the task table, a task's
trajectory with its tool calls and the judge's quotes marked in the reply, and no network request.
Screenshots are kept in ``test-artifacts/report-browser/``.

Chromium is Debian's ``chromium`` package (``.ci/run`` installs it); Playwright only drives it
(``playwright install`` is never run). Without them the test skips outside CI and fails in CI.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_crmbench.models.fakellm import FakeLLM
from tests.integration.helpers import CrmProject
from tests.integration.test_models import (  # noqa: F401  (fixtures)
    CASE_A_ID,
    CASE_B_ID,
    litellm_imported,
    payments,
    run,
    script,
    server,
)

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "test-artifacts" / "report-browser"
CHROMIUM = Path("/usr/bin/chromium")
LAUNCH_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def unavailable(reason: str) -> None:
    """Skip loudly on a developer machine; in CI the browser test must run, so fail."""
    message = f"browser test NOT RUN: {reason} (apt-get install chromium; pip install -e '.[test]')"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not CHROMIUM.exists():
        unavailable(f"{CHROMIUM} does not exist")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("the playwright package is not installed")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS)
        yield launched
        launched.close()


@pytest.fixture
def report(payments: CrmProject, server: FakeLLM) -> Path:  # noqa: F811
    both = f"{CASE_A_ID} or {CASE_B_ID}"
    # A subprocess: a second in-process run in one test would find the first one's environment module.
    payments.run_subprocess("tasks/payments.yaml", "--crm-agent=null", "--crm-run-dir=base", "-k", both)
    result = run(payments, server, both, "--crm-run-dir=model", "--crm-compare=base", "--crm-html=yes")
    result.stdout.fnmatch_lines(["report: model/report.html"])
    return payments.path / "model" / "report.html"


def test_report_in_a_browser(report: Path, browser: Any) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(report, ARTIFACTS / "report.html")
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.route("**/*", lambda route: route.continue_() if route.request.url.startswith("file:") else route.abort())
    url = report.as_uri()
    page.goto(url)

    board = page.locator("#leaderboard table.board")
    assert board.is_visible()
    assert [name.strip() for name in board.locator("tbody th").all_inner_texts()] == [
        "graph/openai/agent-model",
        "null",
    ]
    assert page.locator("#figure-accuracy svg").is_visible()
    assert page.locator("#figure-domains svg").is_visible()
    assert "against base" in page.locator("#comparison h2").inner_text()
    page.screenshot(path=str(ARTIFACTS / "report.png"), full_page=True)

    rows = page.locator("#task-table tbody tr")
    assert rows.count() == 4  # 2 tasks x (baseline, model run)
    page.select_option("select[data-filter=outcome]", "success")
    assert rows.count() == 1
    assert page.locator("#task-count").inner_text() == "1 of 4 results"
    page.fill("input[data-filter=search]", "checkout")
    assert rows.count() == 0
    page.fill("input[data-filter=search]", "retry")
    assert rows.count() == 1

    rows.first.click()
    task = page.locator("#task-page")
    task.wait_for(state="visible")  # the details are unpacked asynchronously on first use
    assert CASE_A_ID in task.locator("h2").inner_text()
    assert task.locator(".route code").first.inner_text() == "transfer"
    tools = task.locator("details.tool summary code")
    assert tools.all_inner_texts()[:2] == ["verify_identity", "get_account_balance"]
    assert task.locator("details.tool").first.is_visible()
    quote = task.locator(".msg.assistant mark").first
    assert quote.is_visible() and quote.inner_text()  # the judge's evidence, marked in the reply
    assert task.locator("table.checks tr.passed").count() >= 5
    assert "tasks/payments.yaml:" in task.locator("table.checks td code").last.inner_text()
    page.screenshot(path=str(ARTIFACTS / "task.png"), full_page=True)

    assert errors == []
    assert requests and set(requests) == {url}, f"the page requested more than itself: {requests}"
