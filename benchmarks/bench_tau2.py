"""Same-run comparison with tau2-bench: harness CPU per model request, wall vs ideal, peak RSS.

tau2-bench is an optional comparison, installed separately and never a dependency: it needs
Python >= 3.12, so it lives in a virtual environment of its own, and none of its code is in this
repository. Point the script at that environment's interpreter and at tau2-bench's data folder:

    python benchmarks/bench_tau2.py --tau2-python /opt/tau2/venv/bin/python --tau2-data /opt/tau2/data \\
        [--tasks 20] [--latency 0.2] [--concurrency 1 4 16]

(or set ``TAU2_PYTHON`` and ``TAU2_DATA_DIR``). Without a usable tau2-bench the script says why
and exits 0 with nothing measured: it is a comparison, not a gate. The package called ``tau2`` on
PyPI is an unrelated chemistry project; it is recognised and refused.

Both harnesses run, one after the other at each concurrency, against the same fake
OpenAI-compatible server (``pytest_crmbench.models.fakellm`` in a child process, so its CPU is
not counted), with the same injected latency and the same model id (one litellm's cost map knows,
so neither pays its unknown-model lookup):

* tau2-bench: ``tau2 run --domain retail --num-tasks N`` with ``--max-concurrency C``; the server
  plays its user simulator (four canned lines, then ``###STOP###``), its agent (one read-tool call
  with real retail ids for each of the first three user turns, otherwise a short text) and its
  natural-language judge (no verdicts). That is about 12 requests per task, as in
  ``../shared/research/perf-tau2-baseline.md``.
* crmbench: ``pytest`` on N copies of spec case A (12 requests per task) with the graph agent,
  simulator and judge, ``--crm-concurrency=C`` (``bench_models.py``).

Reported per harness and concurrency: requests served, wall, ideal (requests x latency / C),
efficiency (ideal / wall), process CPU (user + sys, children included), CPU per request net of
the harness's start-up (``tau2 --help``, a process importing litellm), peak RSS and the most
requests the server saw at once; then tau2-bench / crmbench ratios. See docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_models  # a sibling script, not a package

REPO = bench_models.REPO
MODEL = "openai/gpt-4.1-2025-04-14"
"""tau2-bench's default model id, used by both harnesses so litellm prices it from its local map."""

USER_LINES = (
    "Hi, I would like to check on an order I placed.",
    "My user id is noah_brown_6181.",
    "The order number is #W2611340.",
    "Can you also tell me about the product in it?",
)
DONE_LINE = "Thanks, that is all I needed. ###STOP###"
READ_CALLS: tuple[tuple[str, dict[str, str]], ...] = (
    ("get_user_details", {"user_id": "noah_brown_6181"}),
    ("get_order_details", {"order_id": "#W2611340"}),
    ("get_product_details", {"product_id": "9523456873"}),
    ("list_all_product_types", {}),
)
"""Read tools of tau2-bench retail with ids of its seed database: they succeed and change nothing."""

IDENTIFY = """
import importlib.metadata as metadata, importlib.util as util, json
try:
    summary = metadata.metadata("tau2").get("Summary") or ""
    version = metadata.version("tau2")
    runner = util.find_spec("tau2.runner") is not None
except (metadata.PackageNotFoundError, ImportError):
    summary, version, runner = None, None, False
print(json.dumps({"summary": summary, "version": version, "runner": runner}))
"""


class Unavailable(Exception):
    """tau2-bench cannot run here; the message says why."""


def identify_tau2(python: str | None, data: str | None, env: dict[str, str] | None = None) -> str:
    """tau2-bench's version in ``python``, or :class:`Unavailable` naming what is missing."""
    if not python:
        raise Unavailable("no tau2-bench interpreter given (--tau2-python or TAU2_PYTHON)")
    if not Path(python).is_file():
        raise Unavailable(f"--tau2-python {python}: no such file")
    try:
        done = subprocess.run([python, "-c", IDENTIFY], capture_output=True, text=True, timeout=120, env=env)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise Unavailable(f"--tau2-python {python} could not be run: {error}") from error
    try:
        found = json.loads(done.stdout.strip().splitlines()[-1])
    except (json.JSONDecodeError, IndexError) as error:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise Unavailable(f"--tau2-python {python} could not be asked for tau2: {last}") from error
    if found["version"] is None:
        raise Unavailable(f"tau2-bench is not installed for {python}")
    if "tau" not in found["summary"].lower() or "bench" not in found["summary"].lower() or not found["runner"]:
        raise Unavailable(
            f"the 'tau2' installed for {python} is not tau2-bench ({found['summary']!r}; "
            "the PyPI package of that name is unrelated: install tau2-bench from its repository)"
        )
    if not data:
        raise Unavailable("no tau2-bench data folder given (--tau2-data or TAU2_DATA_DIR)")
    if not (Path(data) / "tau2" / "domains" / "retail" / "db.json").is_file():
        raise Unavailable(f"--tau2-data {data}: no tau2/domains/retail/db.json in it")
    if not (Path(data) / "tau2" / "user_simulator").is_dir():
        raise Unavailable(f"--tau2-data {data}: no tau2/user_simulator folder in it")
    return str(found["version"])


# -- the fake server's tau2-bench half ------------------------------------------------------------


def tau2_role(body: dict[str, Any]) -> str | None:
    """Which tau2-bench role sent a request (from its system prompt), or None for crmbench's."""
    messages = body.get("messages") or []
    system = " ".join(str(m.get("content") or "") for m in messages if m.get("role") == "system")
    if "metExpectation" in system or "expected outcomes" in system:
        return "judge"
    if "User Simulation Guidelines" in system or "role of a customer" in system:
        return "user"
    if "<policy>" in system and "customer service agent" in system:
        return "agent"
    return None


def tau2_reply(role: str, body: dict[str, Any]) -> dict[str, Any]:
    from pytest_crmbench.models.fakellm import completion, json_completion

    messages = body.get("messages") or []
    if role == "judge":
        return json_completion({"results": []})
    if role == "user":  # the simulator's own earlier turns are the assistant messages of its view
        turn = sum(1 for m in messages if m.get("role") == "assistant")
        return completion(USER_LINES[turn] if turn < len(USER_LINES) else DONE_LINE)
    user_turns = sum(1 for m in messages if m.get("role") == "user")
    offered = {tool.get("function", {}).get("name") for tool in body.get("tools") or []}
    if messages and messages[-1].get("role") == "user" and user_turns <= 3:
        name, arguments = READ_CALLS[(user_turns - 1) % len(READ_CALLS)]
        if name in offered:
            return completion(None, [(name, json.dumps(arguments))])
    return completion("Is there anything else I can help you with?")


def serve(latency: float) -> None:
    """Child mode: one server for both harnesses, until stdin closes; then print what it served."""
    sys.path.insert(0, str(REPO))
    from pytest_crmbench.models.fakellm import FakeLLM, FakeRequest, Reply
    from tests.llm_script import PAYMENTS_SCENARIOS, Script

    crmbench = Script(PAYMENTS_SCENARIOS)

    def respond(request: FakeRequest) -> Reply:
        role = tau2_role(request.body)
        return tau2_reply(role, request.body) if role else crmbench(request)

    with FakeLLM(respond, latency_s=latency, lifetime_s=3600) as server:
        print(server.base_url, flush=True)
        sys.stdin.read()
        print(json.dumps({"requests": sum(server.counts.values()), "max_in_flight": server.max_in_flight}), flush=True)


# -- the two harnesses ----------------------------------------------------------------------------


def tau2_environment(python: str, data: str, base_url: str) -> dict[str, str]:
    tau2_bin = str(Path(python).parent)
    keep = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_API_BASE"))}
    return {
        **keep,
        "PATH": f"{tau2_bin}{os.pathsep}{keep.get('PATH', '')}",
        "TAU2_DATA_DIR": data,
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        # tau2-bench's judge passes no api_base: the variable is what keeps it on the fake server.
        "OPENAI_API_BASE": base_url,
        "OPENAI_API_KEY": "fake-key",
    }


def tau2_command(python: str, base_url: str, tasks: int, concurrency: int, save_to: str) -> list[str]:
    llm_args = json.dumps({"temperature": 0.0, "api_base": base_url, "api_key": "fake-key"})
    return [
        str(Path(python).parent / "tau2"),
        "run",
        "--domain",
        "retail",
        "--num-tasks",
        str(tasks),
        "--agent-llm",
        MODEL,
        "--user-llm",
        MODEL,
        "--agent-llm-args",
        llm_args,
        "--user-llm-args",
        llm_args,
        "--max-concurrency",
        str(concurrency),
        "--save-to",
        save_to,
    ]


def run_tau2(python: str, data: str, latency: float, tasks: int, concurrency: int) -> dict[str, Any]:
    save_to = f"crmbench_compare_{uuid.uuid4().hex[:8]}"  # a fresh name: an existing one makes tau2 resume
    with bench_models.fake_server(latency, entry=__file__) as (base_url, served):
        env = tau2_environment(python, data, base_url)
        with tempfile.TemporaryDirectory() as scratch:
            figures = bench_models.timed(
                tau2_command(python, base_url, tasks, concurrency, save_to), Path(scratch), env
            )
    for leftover in (Path(data) / "simulations").glob(f"{save_to}*"):  # our results only, by their fresh name
        shutil.rmtree(leftover) if leftover.is_dir() else leftover.unlink()
    return {**figures, **served}


def run_crmbench(root: Path, latency: float, concurrency: int) -> dict[str, Any]:
    with bench_models.fake_server(latency, entry=__file__) as (base_url, served):
        command = bench_models.crmbench_command(base_url, concurrency, xdist=False, models=(MODEL, MODEL, MODEL))
        figures = bench_models.timed(command, root)
    return {**figures, **served}


# -- the report -----------------------------------------------------------------------------------


def row(name: str, f: dict[str, Any], latency: float, concurrency: int, startup: float) -> dict[str, Any]:
    requests = max(int(f.get("requests", 0)), 1)
    ideal = requests * latency / concurrency
    return {
        "harness": name,
        "concurrency": concurrency,
        "requests": requests,
        "wall": f["wall"],
        "ideal": ideal,
        "efficiency": ideal / f["wall"],
        "cpu": f["cpu"],
        "net_ms": 1000 * (f["cpu"] - startup) / requests,
        "rss": f["rss_mib"],
        "in_flight": f.get("max_in_flight", 0),
        "ok": f["status"] == 0,
    }


def print_rows(rows: list[dict[str, Any]]) -> None:
    print(
        "| harness | C | requests | wall s | ideal s | efficiency | CPU s | CPU/request net of start-up | peak RSS MiB | max in flight |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        failed = "" if r["ok"] else " (exit status not 0)"
        print(
            f"| {r['harness']}{failed} | {r['concurrency']} | {r['requests']} | {r['wall']:.1f} | {r['ideal']:.1f} "
            f"| {r['efficiency']:.2f} | {r['cpu']:.1f} | {r['net_ms']:.1f} ms | {r['rss']:.0f} | {r['in_flight']} |"
        )


def print_ratios(rows: list[dict[str, Any]]) -> None:
    print(
        "\n| C | CPU/request tau2-bench / crmbench | efficiency crmbench / tau2-bench | peak RSS tau2-bench / crmbench |"
    )
    print("|---|---|---|---|")
    by = {(r["harness"], r["concurrency"]): r for r in rows}
    for (harness, concurrency), tau2 in by.items():
        ours = by.get(("crmbench", concurrency))
        if harness != "tau2-bench" or ours is None:
            continue
        print(
            f"| {concurrency} | {tau2['net_ms'] / ours['net_ms']:.1f}x | {ours['efficiency'] / tau2['efficiency']:.1f}x "
            f"| {tau2['rss'] / ours['rss']:.1f}x |"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--tau2-python", default=os.environ.get("TAU2_PYTHON"))
    parser.add_argument("--tau2-data", default=os.environ.get("TAU2_DATA_DIR"))
    parser.add_argument("--tasks", type=int, default=20, help="tasks per run for each harness (default 20)")
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 4, 16])
    parser.add_argument("--serve", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve is not None:
        serve(args.serve)
        return 0
    try:
        version = identify_tau2(args.tau2_python, args.tau2_data)
    except Unavailable as reason:
        print(f"tau2-bench comparison skipped: {reason}. Nothing was measured.")
        return 0
    python, data = args.tau2_python, args.tau2_data
    help_env = tau2_environment(python, data, "http://127.0.0.1:9/v1")
    tau2_startup = bench_models.timed([str(Path(python).parent / "tau2"), "--help"], REPO, help_env)["cpu"]
    ours_startup = bench_models.startup_cpu()
    print(f"tau2-bench {version}; start-up CPU: tau2-bench {tau2_startup:.2f} s, crmbench {ours_startup:.2f} s")
    print(f"{args.tasks} tasks per run, {args.latency} s latency, model id {MODEL}\n")
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        bench_models.build_project(root, args.tasks)
        for concurrency in args.concurrency:  # interleaved, so machine load hits both alike
            tau2 = run_tau2(python, data, args.latency, args.tasks, concurrency)
            rows.append(row("tau2-bench", tau2, args.latency, concurrency, tau2_startup))
            ours = run_crmbench(root, args.latency, concurrency)
            rows.append(row("crmbench", ours, args.latency, concurrency, ours_startup))
    print_rows(rows)
    print_ratios(rows)
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
