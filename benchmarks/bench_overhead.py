"""crmbench's own CPU per model request, side by side with bare ``litellm.completion`` (issue 33).

The same requests twice, against one fake OpenAI server in another process (its CPU is not
counted): first a crmbench model run of spec case A (``bench_models.py``'s project: graph agent,
LLM simulator, LLM judge, 12 requests a task) at ``--crm-concurrency=C``, the server keeping every
request body; then a process that replays exactly those bodies through bare ``litellm.completion``
from C threads, imported as crmbench imports it (offline, quiet). Each is run at two task counts,
N and 2N, and reported as its marginal CPU per request, ``(CPU(2N) - CPU(N)) / (requests(2N) -
requests(N))``, so that start-up (Python, pytest, litellm's import, collection) cancels out.

Reported: both marginals, crmbench's own share (the difference; the goal is at most 1 ms at
16-way) and what that share is of an episode's wall time at ``--latency-goal`` (1 s) provider
latency (the goal is under 1 %): an episode waits for each of its requests in turn.

Indented lines say where the CPU goes. The crmbench run's marginal split by thread
(``process_probe.py``): pytest's main loop (items, their checks, result records, traces, the
report), the episode threads outside litellm (agent, user, judge, tools, grading) and the episode
threads inside ``litellm.completion``; the first two are crmbench's own share measured within its
run, free of the second process's noise. And pytest's own floor:
the same number of items, each with the run's mean number of checks as passing subtests and
nothing else (``-p no:crmbench``), as its marginal CPU per item over the run's requests per task:
what one item per task and one sub-assertion per check cost before crmbench does anything.

Usage: ``python benchmarks/bench_overhead.py [--tasks 32] [--concurrency 16] [--latency 0.05]
[--rounds 3]``. See docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_models import REPO, build_project, crmbench_command, fake_server, timed
from process_probe import probe_env

QUIET_PLUGINS = ("-p", "no:hypothesispytest", "-p", "no:cacheprovider")

FORWARDED = ("messages", "tools", "tool_choice", "response_format", "temperature", "seed", "max_tokens")
"""The request body's fields a caller passes to ``litellm.completion`` (the rest litellm adds)."""


def serve(latency: float, dump: Path) -> None:
    """Child mode: the fake server until stdin closes; every request body is written to ``dump``."""
    sys.path.insert(0, str(REPO))
    from pytest_crmbench.models.fakellm import FakeLLM
    from tests.llm_script import PAYMENTS_SCENARIOS, Script

    with FakeLLM(Script(PAYMENTS_SCENARIOS), latency_s=latency, lifetime_s=3600) as server:
        server.max_recorded = 1_000_000
        print(server.base_url, flush=True)
        sys.stdin.read()
        bodies = [request.body for request in server.requests if request.role != "preflight"]
        dump.write_text("\n".join(json.dumps(body) for body in bodies), encoding="utf-8")
        print(json.dumps({"requests": sum(server.counts.values()), "max_in_flight": server.max_in_flight}), flush=True)


def replay(base_url: str, bodies: Path, concurrency: int) -> None:
    """Child mode: the recorded bodies through bare ``litellm.completion`` from ``concurrency`` threads."""
    sys.path.insert(0, str(REPO))
    from pytest_crmbench.models.llm import litellm_module

    litellm = litellm_module()
    requests = [json.loads(line) for line in bodies.read_text(encoding="utf-8").splitlines() if line]

    def call(body: dict[str, Any]) -> None:
        kwargs = {name: body[name] for name in FORWARDED if name in body}
        litellm.completion(
            model=f"openai/{body['model']}",
            api_base=base_url,
            api_key="not-needed",
            max_retries=0,
            timeout=600,
            drop_params=True,
            **kwargs,
        )

    call(requests[0])  # alone, as crmbench makes its first call per server: litellm builds its client then
    with ThreadPoolExecutor(concurrency) as pool:
        list(pool.map(call, requests[1:]))


FLOOR_TEST = """
import pytest


@pytest.mark.parametrize("item", range({items}))
def test_item(item, subtests, capsys):
    for check in range({checks}):
        with subtests.test(msg=f"check {{check}}"):
            pass
"""
"""pytest alone: an item per task and a passing subtest per check, holding capsys as a task item does."""


def measure(root: Path, latency: float, concurrency: int) -> dict[str, float]:
    """CPU and requests of one crmbench run and of its bare replay."""
    dump = root / "bodies.jsonl"
    entry = [sys.executable, __file__]
    probe = root / "probe.json"
    with _server(latency, dump) as (url, served):
        command = [*crmbench_command(url, concurrency, xdist=False), "-p", "process_probe"]
        crm = timed(command, root, env=probe_env(probe, litellm=True))
    assert crm["status"] in (0, 1), f"the crmbench run exited {crm['status']}"
    threads = json.loads(probe.read_text(encoding="utf-8"))
    with _server(latency, root / "replayed.jsonl") as (url, replayed):
        bare = timed([*entry, "--replay", url, str(dump), str(concurrency)], root)
    assert bare["status"] == 0, "the bare replay failed"
    return {
        "crm_cpu": crm["cpu"],
        "main_cpu": threads["main"],
        "episodes_cpu": threads["process"] - threads["main"] - threads["litellm"],
        "litellm_cpu": threads["litellm"],
        "crm_requests": served["requests"],
        "bare_cpu": bare["cpu"],
        "bare_requests": replayed["requests"],
    }


def _server(latency: float, dump: Path) -> Any:
    return fake_server(latency, entry=__file__, extra=["--dump", str(dump)])


def checks_per_task(root: Path) -> float:
    """The mean number of checks (sub-assertions) per result in the run directory under ``root``."""
    counts = [
        len(json.loads(line)["checks"])
        for results in root.glob("crm-runs/*/results.jsonl")
        for line in results.read_text(encoding="utf-8").splitlines()
    ]
    return statistics.fmean(counts)


def floor_cpu(root: Path, items: int, checks: int) -> float:
    """CPU of a pytest run of ``items`` items with ``checks`` passing subtests each (crmbench not loaded)."""
    root.mkdir(exist_ok=True)
    (root / "test_floor.py").write_text(FLOOR_TEST.format(items=items, checks=checks), encoding="utf-8")
    (root / "pyproject.toml").write_text("[tool.pytest]\n", encoding="utf-8")
    run = timed([sys.executable, "-m", "pytest", "-q", *QUIET_PLUGINS, "-p", "no:crmbench", "test_floor.py"], root)
    assert run["status"] == 0, f"the pytest floor run exited {run['status']}"
    return run["cpu"]


def marginal(small: dict[str, float], large: dict[str, float], kind: str) -> float:
    """CPU per request between the two sizes, in milliseconds (the bare replay counts its own
    requests; every part of the crmbench run shares the run's)."""
    counted = "bare" if kind == "bare" else "crm"
    requests = large[f"{counted}_requests"] - small[f"{counted}_requests"]
    return 1000 * (large[f"{kind}_cpu"] - small[f"{kind}_cpu"]) / requests


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--tasks", type=int, default=32, help="N: the runs play N and 2N tasks")
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--latency", type=float, default=0.05, help="the fake server's latency (s)")
    parser.add_argument("--latency-goal", type=float, default=1.0, help="provider latency for the share (s)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--serve", type=float, help=argparse.SUPPRESS)
    parser.add_argument("--dump", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--replay", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve is not None:
        serve(args.serve, args.dump)
        return 0
    if args.replay is not None:
        url, bodies, concurrency = args.replay
        replay(url, Path(bodies), int(concurrency))
        return 0
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        roots = {}
        for tasks in (args.tasks, 2 * args.tasks):
            roots[tasks] = Path(tmp) / f"suite{tasks}"
            roots[tasks].mkdir()
            build_project(roots[tasks], tasks)
        # One run thrown away first: the first run on a fresh machine state (page cache, the
        # projects' first bytecode) was often the slower, and the first round's marginal negative.
        measure(roots[args.tasks], args.latency, args.concurrency)
        checks = round(checks_per_task(roots[args.tasks]))
        for _ in range(args.rounds):  # interleaved, so load on the machine hits both sizes alike
            small, large = (measure(roots[n], args.latency, args.concurrency) for n in (args.tasks, 2 * args.tasks))
            per_task = (large["crm_requests"] - small["crm_requests"]) / args.tasks
            floor_small, floor_large = (
                floor_cpu(Path(tmp) / f"floor{n}", n, checks) for n in (args.tasks, 2 * args.tasks)
            )
            rows.append(
                {
                    "crm": marginal(small, large, "crm"),
                    "bare": marginal(small, large, "bare"),
                    "main": marginal(small, large, "main"),
                    "episodes": marginal(small, large, "episodes"),
                    "litellm": marginal(small, large, "litellm"),
                    "floor": 1000 * (floor_large - floor_small) / args.tasks / per_task,
                    "requests": large["crm_requests"],
                }
            )
    for row in rows:
        row["own"] = row["crm"] - row["bare"]
        row["beyond"] = row["own"] - row["floor"]
        row["direct"] = row["main"] + row["episodes"]
    print(
        f"{args.concurrency}-way, {args.tasks} and {2 * args.tasks} tasks ({rows[0]['requests']:g} requests at the"
        f" larger, {checks} checks a task):"
    )
    print("| marginal CPU per request | median | rounds |")
    print("|---|---|---|")
    for key, label in LINES:
        print(
            f"| {label} | {statistics.median(r[key] for r in rows):.2f} ms | {', '.join(f'{r[key]:.2f}' for r in rows)} |"
        )
    own = statistics.median(r["own"] for r in rows)
    crm = statistics.median(r["crm"] for r in rows)
    print(
        f"own share of an episode's wall at {args.latency_goal:g} s latency: {own / (10 * args.latency_goal):.3f} % "
        f"(goal: under 1 %); with litellm's own CPU: {crm / (10 * args.latency_goal):.3f} %"
    )
    return 0


LINES = (
    ("crm", "crmbench model run"),
    ("main", "  of it pytest's main loop (items, checks, records, traces, report)"),
    ("episodes", "  of it the episode threads outside litellm (agent, user, judge, tools, grading)"),
    ("litellm", "  of it inside litellm.completion (the episode threads)"),
    ("bare", "bare litellm.completion, same requests"),
    ("own", "crmbench's own share (goal: at most 1 ms)"),
    ("floor", "  of it pytest's floor (an item a task, a subtest a check)"),
    ("beyond", "  beyond pytest's floor"),
    ("direct", "crmbench's own, within its run (main loop + episode threads outside litellm)"),
)


if __name__ == "__main__":
    raise SystemExit(main())
