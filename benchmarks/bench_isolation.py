"""The isolated agent's cost (issue 30): per tool call and per episode, in-process vs isolated.

One mini-domain episode (``tests/data``) whose agent makes ``--calls`` read calls in one turn,
played back to back in-process and isolated (its own process per episode) with each start method,
as medians over ``--rounds`` rounds:

* ``episode``: wall time of one whole episode with 1 tool call (process start, factory, one turn, end);
* ``per call``: (episode with ``--calls`` calls - episode with 1 call) / (calls - 1): the pipe's
  round trip plus the real call.

Usage: ``python benchmarks/bench_isolation.py [--rounds 20] [--calls 200]``. Numbers compare on one
machine (medians and ratios); docs/performance.md records them with the machine's load.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pytest_crmbench.core.loader import load_task_file  # noqa: E402
from pytest_crmbench.core.usage import UsageLedger  # noqa: E402
from pytest_crmbench.env.registry import discover  # noqa: E402
from pytest_crmbench.reference.catalog import load_factory  # noqa: E402
from pytest_crmbench.run.episode import AgentContext, Limits, run_episode  # noqa: E402
from pytest_crmbench.run.isolation import IsolatedAgent  # noqa: E402
from tests.conftest import ListUser  # noqa: E402

FACTORY = "tests.data.agents.cheaters:reader"


def episode(mode: str, calls: int) -> float:
    env_class = discover([ROOT / "tests" / "data" / "envs"])["mini"]
    task = next(r.task for r in load_task_file(ROOT / "tests" / "data" / "tasks" / "mini.yaml"))
    os.environ["BENCH_ISOLATION_CALLS"] = str(calls)
    limits = Limits(max_tool_calls=calls + 1)
    context = AgentContext.for_domain(env_class, limits=limits, usage=UsageLedger())
    started = time.perf_counter()
    agent = (
        load_factory(FACTORY)(context) if mode == "in-process" else IsolatedAgent(FACTORY, context, start_method=mode)
    )
    evidence = run_episode(task, env_class(seed=1), agent, ListUser(["hi"]), agent_name="bench", limits=limits)
    if isinstance(agent, IsolatedAgent):
        agent.close()
    elapsed = time.perf_counter() - started
    assert evidence.termination.reason == "user_stop" and len(evidence.tool_calls) == calls, evidence.termination
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--calls", type=int, default=200)
    args = parser.parse_args()
    print(
        f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; {os.cpu_count()} cores; python {sys.version.split()[0]}"
    )
    base: dict[str, float] = {}
    for mode in ("in-process", "forkserver", "spawn"):
        episode(mode, 1)  # warm-up (starts the forkserver once)
        one, many = [], []
        for _ in range(args.rounds):  # back to back: the modes see the same load
            one.append(episode(mode, 1))
            many.append(episode(mode, args.calls))
        ep, per_call = statistics.median(one), (statistics.median(many) - statistics.median(one)) / (args.calls - 1)
        base.setdefault("episode", ep)
        base.setdefault("call", per_call)
        print(
            f"{mode:>11}: episode {ep * 1000:8.2f} ms ({ep / base['episode']:6.1f}x)"
            f"   per call {per_call * 1e6:8.1f} us ({per_call / base['call']:5.1f}x)"
        )


if __name__ == "__main__":
    main()
