"""report.html in a real browser: headless Debian Chromium driven by Playwright (issue 13).

A null-agent baseline and a model run (graph agent, simulator and judge played by the fake
OpenAI server through litellm) of spec cases A and B write their run directories; the model run
writes ``report.html`` comparing itself with the baseline. Chromium opens the file and we check
what a reader needs: the leaderboard, a figure, a filter that narrows the task table, a task's
trajectory with its tool calls and the judge's quotes marked in the reply, and no network request.
At 1400 x 2000 the layout is checked (issue 32): no text of a figure overlaps another or is cut by
the figure's edge, and every table fits its container; on that page and on hand-made pages with
long system names, nine domains, every failure label and several rounds, or one system alone.
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
from tests.report_runs import synthetic_report

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


LAYOUT = (1400, 2000)
LAYOUT_PROBLEMS = """() => {
  // Each SVG text as the quadrilateral it covers on screen: rotated tick labels are not boxes.
  const quad = (t) => {
    const b = t.getBBox(), m = t.getScreenCTM();
    return [[b.x, b.y], [b.x + b.width, b.y], [b.x + b.width, b.y + b.height], [b.x, b.y + b.height]].map(
      ([x, y]) => [m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f]);
  };
  // Separating axes: two convex quadrilaterals overlap when they do by more than `slack` px along
  // every edge's normal.
  const overlap = (p, q, slack) => {
    for (const poly of [p, q]) for (let i = 0; i < 4; i++) {
      const [x1, y1] = poly[i], [x2, y2] = poly[(i + 1) % 4];
      const len = Math.hypot(x2 - x1, y2 - y1) || 1, nx = (y1 - y2) / len, ny = (x2 - x1) / len;
      const a = p.map(([x, y]) => x * nx + y * ny), b = q.map(([x, y]) => x * nx + y * ny);
      if (Math.min(Math.max(...a), Math.max(...b)) - Math.max(Math.min(...a), Math.min(...b)) <= slack) return false;
    }
    return true;
  };
  const problems = [];
  for (const figure of document.querySelectorAll("figure")) {
    const svg = figure.querySelector("svg");
    if (!svg) continue;
    const frame = svg.getBoundingClientRect();
    const texts = [...svg.querySelectorAll("text")].filter((t) => t.textContent.trim())
      .map((t) => ({text: t.textContent.trim(), quad: quad(t)}));
    for (const t of texts) {
      const xs = t.quad.map((p) => p[0]), ys = t.quad.map((p) => p[1]);
      if (Math.min(...xs) < frame.left - 0.5 || Math.max(...xs) > frame.right + 0.5
          || Math.min(...ys) < frame.top - 0.5 || Math.max(...ys) > frame.bottom + 0.5)
        problems.push(`${figure.id}: "${t.text}" is cut by the figure's edge`);
    }
    for (let i = 0; i < texts.length; i++) for (let j = i + 1; j < texts.length; j++)
      if (overlap(texts[i].quad, texts[j].quad, 1))
        problems.push(`${figure.id}: "${texts[i].text}" overlaps "${texts[j].text}"`);
  }
  for (const table of document.querySelectorAll("table")) {
    if (table.offsetParent === null) continue;  // not shown
    const holder = table.parentElement;
    if (table.scrollWidth > holder.clientWidth + 1)
      problems.push(`table ${table.className || table.id}: ${table.scrollWidth} px wide in ${holder.clientWidth} px`);
  }
  return problems;
}"""


def layout_problems(page: Any) -> list[str]:
    """What a reader at 1400 x 2000 would see cut off or drawn over (an empty list: nothing)."""
    page.set_viewport_size({"width": LAYOUT[0], "height": LAYOUT[1]})
    return sorted(set(page.evaluate(LAYOUT_PROBLEMS)))


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

    page.goto(url + "#tasks")
    assert layout_problems(page) == []
    page.screenshot(path=str(ARTIFACTS / "report-1400.png"), full_page=True)

    assert errors == []
    assert requests and set(requests) == {url}, f"the page requested more than itself: {requests}"


@pytest.mark.parametrize(
    ("name", "systems", "rounds"),
    [
        ("long-names", None, 3),
        ("one-system", ["graph/openai/gpt-5-mini"], 1),
        ("one-system-three-rounds", ["graph/openai/gpt-5-mini"], 3),
    ],
)
def test_figures_and_tables_fit_at_1400(
    name: str, systems: list[str] | None, rounds: int, browser: Any, tmp_path: Path
) -> None:
    """Hand-made runs that fill every figure: five systems with long agent/model names, nine
    domains, every failure label in narrow segments, three rounds; or one system, whose rank
    figure would be a flat line at rank 1 and shows its measures instead."""
    kwargs: dict[str, Any] = {"rounds": rounds} | ({"systems": systems} if systems else {})
    path = synthetic_report(tmp_path / "report.html", **kwargs)
    page = browser.new_page(viewport={"width": LAYOUT[0], "height": LAYOUT[1]})
    page.goto(path.as_uri())
    problems = layout_problems(page)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"layout-{name}.png"), full_page=True)
    assert problems == []
    ranks = page.locator("#figure-ranks h3").inner_text()
    assert ranks == ("How one system does on each measure" if systems else "Does the order hold?")
