"""Harness overhead of model runs: N tasks against the fake OpenAI server with injected latency.

Runs ``pytest`` on N copies of spec case A (``payments_transfer_insufficient_then_retry_01``: router,
node agent, simulator and judge calls, 12 requests per task) with the graph agent, against a
:class:`~pytest_crmbench.models.fakellm.FakeLLM` in a *separate* process (its CPU is not counted), and
reports for each concurrency:

* requests served, wall time, process CPU (user + sys of pytest and its children) and peak RSS;
* CPU per model request, gross and net of start-up (a process importing litellm);
* wall time vs ideal = requests x latency / concurrency, and efficiency = ideal / wall.

Usage: ``python benchmarks/bench_models.py [--tasks 32] [--trials 1] [--latency 0.2] [--concurrency 1 4 16]
[--xdist]`` (``--xdist`` uses ``-n C`` instead of ``--crm-concurrency=C``). See docs/performance.md.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[1]
CASE_A = "payments_transfer_insufficient_then_retry_01"
MODELS = ("openai/agent-model", "openai/user-model", "openai/judge-model")
"""Ids litellm's cost map does not know: its per-call cost lookup takes its slowest path, as for a
private deployment (``bench_tau2.py`` uses a known id for both harnesses instead)."""


def serve(latency: float) -> None:
    """Child mode: run the fake server until stdin closes, then print the request counts."""
    sys.path.insert(0, str(REPO))
    from pytest_crmbench.models.fakellm import FakeLLM
    from tests.llm_script import PAYMENTS_SCENARIOS, Script

    with FakeLLM(Script(PAYMENTS_SCENARIOS), latency_s=latency, lifetime_s=3600) as server:
        print(server.base_url, flush=True)
        sys.stdin.read()
        print(json.dumps({"requests": sum(server.counts.values()), "max_in_flight": server.max_in_flight}), flush=True)


def build_project(root: Path, tasks: int) -> None:
    records = yaml.safe_load((REPO / "tasks" / "payments.yaml").read_text())
    case = next(r for r in records if r["id"] == CASE_A)
    (root / "tasks").mkdir()
    (root / "tasks" / "bench.yaml").write_text(
        # Each copy is its own object: copies sharing the record's fields would be dumped as YAML
        # aliases, which the loader's alias-bomb guard refuses at release size.
        yaml.safe_dump([{**copy.deepcopy(case), "id": f"{CASE_A}_{i:04d}"} for i in range(tasks)], sort_keys=False)
    )
    (root / "envs").symlink_to(REPO / "envs", target_is_directory=True)
    (root / "agents").symlink_to(REPO / "agents", target_is_directory=True)
    (root / "pyproject.toml").write_text('[tool.pytest]\nstrict = true\ncrm_retry_backoff = "0.01"\n')


def timed(command: list[str], cwd: Path, env: dict[str, str] | None = None) -> dict[str, float]:
    """Wall, CPU (user + sys, children included), peak RSS and exit code of one process."""
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait for it again
    # wait4 covers the process itself; xdist workers are its children and report via RUSAGE_CHILDREN
    # only after being waited for by it, which pytest-xdist does.
    cpu = usage.ru_utime + usage.ru_stime
    return {"wall": wall, "cpu": cpu, "rss_mib": usage.ru_maxrss / 1024, "status": process.returncode}


@contextmanager
def fake_server(
    latency: float, entry: str = __file__, extra: Sequence[str] = ()
) -> Iterator[tuple[str, dict[str, Any]]]:
    """The fake server in a child process (``entry --serve LATENCY [extra]``): yields its base URL and,
    once the block ends, fills the dict with what it served (``requests``, ``max_in_flight``)."""
    server = subprocess.Popen(
        [sys.executable, entry, "--serve", str(latency), *extra],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None and server.stdin is not None
    served: dict[str, Any] = {}
    try:
        yield server.stdout.readline().strip(), served
    finally:
        server.stdin.close()
        served.update(json.loads(server.stdout.readline() or "{}"))
        server.wait()


def crmbench_command(
    base_url: str, concurrency: int, xdist: bool, models: tuple[str, str, str] = MODELS, trials: int = 1
) -> list[str]:
    agent, user, judge = models
    parallel = ["-n", str(concurrency)] if xdist and concurrency > 1 else [f"--crm-concurrency={concurrency}"]
    return [
        sys.executable,
        "-m",
        "pytest",
        "tasks",
        "-q",
        "-p",
        "no:hypothesispytest",
        "-p",
        "no:cacheprovider",
        f"--crm-model={agent}",
        f"--crm-user-model={user}",
        f"--crm-judge-model={judge}",
        f"--crm-api-base={base_url}",
        f"--crm-user-api-base={base_url}",
        f"--crm-judge-api-base={base_url}",
        f"--crm-trials={trials}",
        *parallel,
    ]


def run(root: Path, latency: float, concurrency: int, xdist: bool, trials: int = 1) -> dict[str, Any]:
    with fake_server(latency) as (base_url, served):
        figures: dict[str, Any] = timed(crmbench_command(base_url, concurrency, xdist, trials=trials), root)
    return {**figures, **served}


def startup_cpu() -> float:
    code = "from pytest_crmbench.models.llm import litellm_module; litellm_module()"
    return timed([sys.executable, "-c", code], REPO)["cpu"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--tasks", type=int, default=32)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 4, 16])
    parser.add_argument("--trials", type=int, default=1, help="--crm-trials (a release gate runs 3)")
    parser.add_argument("--xdist", action="store_true", help="-n C instead of --crm-concurrency=C")
    parser.add_argument("--serve", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve is not None:
        serve(args.serve)
        return 0
    startup = startup_cpu()
    print(f"start-up (import litellm): {startup:.2f} s CPU")
    print(
        "| concurrency | requests | wall s | ideal s | efficiency | CPU s | CPU/request gross | net of start-up | peak RSS MiB | max in flight |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        build_project(root, args.tasks)
        for concurrency in args.concurrency:
            f = run(root, args.latency, concurrency, args.xdist, args.trials)
            requests = f["requests"]
            ideal = requests * args.latency / concurrency
            workers = concurrency if args.xdist and concurrency > 1 else 1
            print(
                f"| {concurrency} | {requests} | {f['wall']:.2f} | {ideal:.2f} | {ideal / f['wall']:.2f} | {f['cpu']:.2f} "
                f"| {1000 * f['cpu'] / requests:.1f} ms | {1000 * (f['cpu'] - workers * startup) / requests:.1f} ms "
                f"| {f['rss_mib']:.0f} | {f['max_in_flight']} |"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
