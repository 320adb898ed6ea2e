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


def measure(root: Path, latency: float, concurrency: int) -> dict[str, float]:
    """CPU and requests of one crmbench run and of its bare replay."""
    dump = root / "bodies.jsonl"
    entry = [sys.executable, __file__]
    with _server(latency, dump) as (url, served):
        crm = timed(crmbench_command(url, concurrency, xdist=False), root)
    assert crm["status"] in (0, 1), f"the crmbench run exited {crm['status']}"
    with _server(latency, root / "replayed.jsonl") as (url, replayed):
        bare = timed([*entry, "--replay", url, str(dump), str(concurrency)], root)
    assert bare["status"] == 0, "the bare replay failed"
    return {
        "crm_cpu": crm["cpu"],
        "crm_requests": served["requests"],
        "bare_cpu": bare["cpu"],
        "bare_requests": replayed["requests"],
    }


def _server(latency: float, dump: Path) -> Any:
    return fake_server(latency, entry=__file__, extra=["--dump", str(dump)])


def marginal(small: dict[str, float], large: dict[str, float], kind: str) -> float:
    """CPU per request between the two sizes, in milliseconds."""
    requests = large[f"{kind}_requests"] - small[f"{kind}_requests"]
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
        for _ in range(args.rounds):  # interleaved, so load on the machine hits both sizes alike
            small, large = (measure(roots[n], args.latency, args.concurrency) for n in (args.tasks, 2 * args.tasks))
            rows.append((marginal(small, large, "crm"), marginal(small, large, "bare"), large["crm_requests"]))
    crm = statistics.median(r[0] for r in rows)
    bare = statistics.median(r[1] for r in rows)
    own = statistics.median(r[0] - r[1] for r in rows)
    print(f"{args.concurrency}-way, {args.tasks} and {2 * args.tasks} tasks ({rows[0][2]} requests at the larger):")
    print("| marginal CPU per request | median | rounds |")
    print("|---|---|---|")
    print(f"| crmbench model run | {crm:.2f} ms | {', '.join(f'{r[0]:.2f}' for r in rows)} |")
    print(f"| bare litellm.completion, same requests | {bare:.2f} ms | {', '.join(f'{r[1]:.2f}' for r in rows)} |")
    print(
        f"| crmbench's own share (goal: at most 1 ms) | {own:.2f} ms | {', '.join(f'{r[0] - r[1]:.2f}' for r in rows)} |"
    )
    print(
        f"own share of an episode's wall at {args.latency_goal:g} s latency: {own / (10 * args.latency_goal):.3f} % "
        f"(goal: under 1 %); with litellm's own CPU: {crm / (10 * args.latency_goal):.3f} %"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
