"""The HTML report on a release-size run: generation time, file size, and opening it in Chromium.

Writes two synthetic run directories of N tasks x K trials (default 555 x 3, the release size)
made of real episodes: the payments tasks replicated under new ids and spread over nine domain
labels, played by agents that replay the gold path but stop early on a share of tasks (a
different share per system, difficulty and trial), graded by the real grader, with reply
criteria judged by a stand-in that quotes the reply (as an LLM judge must). Then measures:

* ``report``: ``crmbench report BASE NEW`` (both runs, paired comparison included), wall time;
* ``size``: the HTML file;
* ``open``: headless Chromium (Debian's, driven by Playwright) from navigation to the table drawn;
* ``task page``: a click on a task until its trajectory is shown (the task details are parsed then);
* ``live rewrite``: one run's own report, as ``--crm-html-every`` rewrites it during the run.

Usage: ``python benchmarks/bench_report.py [--tasks 555] [--trials 3] [--keep DIR]``.
See docs/performance.md for figures.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import yaml

from pytest_crmbench.core.loader import load_task_file
from pytest_crmbench.core.seeding import derive_seed
from pytest_crmbench.core.spec import Task
from pytest_crmbench.core.users import ScriptedUser
from pytest_crmbench.env.registry import discover
from pytest_crmbench.grading import CheckVerdict, grade
from pytest_crmbench.plugin.livereport import COST_SHARE
from pytest_crmbench.results.html import sources_for, write_report
from pytest_crmbench.results.records import build_record, encode_record, encode_trajectory, trajectory
from pytest_crmbench.results.reportstatus import running
from pytest_crmbench.results.rundir import FORMAT, RunDir
from pytest_crmbench.run.baselines import GoldAgent
from pytest_crmbench.run.episode import run_episode

REPO = Path(__file__).resolve().parents[1]
DOMAINS = [
    "retail",
    "customer_support",
    "field_service",
    "itsm",
    "payments",
    "travel",
    "onboarding",
    "sales",
    "marketing",
]
STOP_EARLY = {"easy": 0.08, "medium": 0.16, "hard": 0.26}
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def build_tasks(folder: Path, count: int) -> list[Task]:
    """``count`` payments tasks under new ids, in nine files (the release's nine domains)."""
    source = yaml.safe_load((REPO / "tasks" / "payments.yaml").read_text(encoding="utf-8"))
    folder.mkdir(parents=True)
    per_file = -(-count // len(DOMAINS))
    for n, domain in enumerate(DOMAINS):
        chunk = [
            {**source[i % len(source)], "id": f"{domain}_{source[i % len(source)]['id']}_{i:04d}"}
            for i in range(n * per_file, min(count, (n + 1) * per_file))
        ]
        (folder / f"{domain}.yaml").write_text(yaml.safe_dump(chunk, sort_keys=False, allow_unicode=True))
    return [r.task for f in sorted(folder.glob("*.yaml")) for r in load_task_file(f)]


def quoting_judge(task: Task, said: Sequence[str]) -> list[CheckVerdict]:
    quote = " ".join((said[-1] if said else "").split()[:6])
    status = "passed" if quote else "failed"
    return [
        CheckVerdict(family="reply", name=f"reply[{i}]", status=status, expected=c, actual=quote)
        for i, c in enumerate(task.contract.reply_criteria)
    ]


def write_run(path: Path, tasks: list[Task], system: str, trials: int, skill: float, created_at: str) -> None:
    environment = discover([REPO / "envs"])["payments"]
    run = RunDir(path)
    run.write_manifest(
        {"format": FORMAT, "system": system, "agent": "graph", "created_at": created_at, "task_set": {"hash": "0" * 64}}
    )
    for trial in range(trials):
        for task in tasks:
            rng = random.Random(f"{system}/{task.id}/{trial}")
            played = task
            if task.gold.path and rng.random() < STOP_EARLY[task.difficulty] * skill:
                # The agent stops before the last step of the reference path.
                stopped = {"path": task.gold.path[:-1], "reply": "Sorry, I could not finish that today."}
                played = task.model_copy(update={"gold": task.gold.model_copy(update=stopped)})
            seed = derive_seed(0, task.id, trial)
            evidence = run_episode(
                task,
                environment(task.initial_state, seed=seed),
                GoldAgent(played),
                ScriptedUser(task),
                agent_name=system,
                trial=trial,
            )
            verdict = grade(task, evidence, lambda t, e: quoting_judge(t, e.assistant_messages()))
            record = build_record(task, evidence, verdict, model=system, latency_s=rng.uniform(20, 90))
            record.domain = task.id.split("_payments_")[0]
            run.append_result(encode_record(record))
            entry = trajectory(evidence, verdict, record)
            text = encode_trajectory(entry)
            if text is not None:
                run.append_trace(record.domain, text)


def open_in_chromium(report: Path, rounds: int) -> tuple[list[float], list[float]]:
    from playwright.sync_api import sync_playwright

    opened, task_page = [], []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        for _ in range(rounds):
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            start = time.perf_counter()
            page.goto(report.as_uri(), wait_until="load")
            page.wait_for_selector("#task-table tbody tr")
            opened.append(time.perf_counter() - start)
            start = time.perf_counter()
            page.locator("#task-table tbody tr").nth(3).click()
            page.wait_for_selector("#task-page .turn")
            task_page.append(time.perf_counter() - start)
            page.close()
        browser.close()
    return opened, task_page


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", type=int, default=555)
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=3, help="Browser opens to take the median of.")
    parser.add_argument("--keep", type=Path, help="Write the runs and the report here instead of a temporary folder.")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        root = args.keep or Path(tmp)
        start = time.perf_counter()
        tasks = build_tasks(root / "tasks", args.tasks)
        write_run(root / "base", tasks, "model-a", args.trials, 1.0, "2026-11-30T10:00:00+00:00")
        write_run(root / "new", tasks, "model-b", args.trials, 1.3, "2026-11-30T11:00:00+00:00")
        made = time.perf_counter() - start
        traces = sum(f.stat().st_size for f in (root / "new" / "traces").glob("*.jsonl"))

        start = time.perf_counter()
        report = write_report([root / "base", root / "new"], root / "report.html", sources_for(root / "tasks", root))
        generated = time.perf_counter() - start
        opened, task_page = open_in_chromium(report, args.rounds)
        live = []
        for _ in range(args.rounds):
            start = time.perf_counter()
            results = args.tasks * args.trials
            status = running(results, results)
            write_report([root / "new"], root / "live.html", sources_for(root / "tasks", root), status)
            live.append(round(time.perf_counter() - start, 2))

    print(f"runs: 2 x {args.tasks} tasks x {args.trials} trials, written in {made:.1f} s")
    print(f"traces of one run: {traces / 2**20:.1f} MiB")
    print(f"report generation (both runs): {generated:.2f} s")
    print(f"report.html: {report.stat().st_size / 2**20:.2f} MiB" if args.keep else "")
    print(f"open in Chromium until the table is drawn: median {statistics.median(opened):.2f} s ({opened})")
    print(f"first task page: median {statistics.median(task_page):.2f} s ({task_page})")
    cost = statistics.median(live)
    print(
        f"live rewrite of one run's report: median {cost:.2f} s ({live}); with --crm-html-every=60 the rewrites"
        f" come every {max(60, COST_SHARE * cost):.0f} s, {cost / max(60, COST_SHARE * cost) * 100:.1f} % of the run"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
