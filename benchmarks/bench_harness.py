"""Harness overhead: collection time and gold-replay time per task (no model involved).

Builds a synthetic suite of N tasks (default 555, the release size) by replicating the real task
records under new ids, then measures, as medians over several rounds:

* ``collect``: wall time of ``pytest --collect-only -q`` on the suite in a fresh process, and
  whether litellm got imported (it must not be);
* ``load``: parsing + validating the YAML in-process, per task;
* ``replay``: reset + gold episode + grading per task, in-process (the harness cost of one item);
* ``pytest``: wall time of a full ``pytest -q`` gold run over the suite, per item.

Usage: ``python benchmarks/bench_harness.py [--tasks 555] [--rounds 5] [--source tasks]``.
Numbers are for comparison on the same machine (medians and ratios); see docs/performance.md.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from pytest_crmbench.core.loader import load_task_file
from pytest_crmbench.core.seeding import derive_seed
from pytest_crmbench.core.users import ScriptedUser
from pytest_crmbench.env.registry import discover
from pytest_crmbench.grading import grade
from pytest_crmbench.run.baselines import GoldAgent
from pytest_crmbench.run.episode import run_episode

REPO = Path(__file__).resolve().parents[1]
MINI = REPO / "tests" / "data"


def source_records(source: Path) -> tuple[list[dict], Path]:
    """Raw task mappings from the source task files, and the env dir they need."""
    files = sorted(p for p in source.glob("*.yaml") if p.name != "manifest.yaml")
    records = [r for f in files for r in (yaml.safe_load(f.read_text()) or [])]
    if records:
        return records, REPO / "envs"
    return yaml.safe_load((MINI / "tasks" / "mini.yaml").read_text()), MINI / "envs"


def build_suite(root: Path, records: list[dict], count: int, env_dir: Path) -> None:
    """``count`` tasks spread over 9 files, like the release's nine domains."""
    (root / "tasks").mkdir()
    (root / "envs").symlink_to(env_dir, target_is_directory=True)
    (root / "pyproject.toml").write_text("[tool.pytest]\nstrict = true\n")
    tasks = [
        {**records[i % len(records)], "id": f"{records[i % len(records)]['id']}_copy{i:04d}"} for i in range(count)
    ]
    per_file = -(-count // 9)
    for n in range(9):
        chunk = tasks[n * per_file : (n + 1) * per_file]
        if chunk:
            (root / "tasks" / f"part{n}.yaml").write_text(yaml.safe_dump(chunk, sort_keys=False, allow_unicode=True))


def timed_subprocess(args: list[str], cwd: Path) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run(args, cwd=cwd, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(args)} failed ({done.returncode}):\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return elapsed, done.stdout


def median_ms(samples: list[float]) -> str:
    return f"{statistics.median(samples) * 1000:.3f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", type=int, default=555)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--source", type=Path, default=REPO / "tasks")
    args = parser.parse_args()

    records, env_dir = source_records(args.source)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        build_suite(root, records, args.tasks, env_dir)
        files = sorted((root / "tasks").glob("*.yaml"))
        environments = discover([root / "envs"])

        load_s, replay_s = [], []
        for _ in range(args.rounds):
            start = time.perf_counter()
            loaded = [r for f in files for r in load_task_file(f)]
            load_s.append((time.perf_counter() - start) / len(loaded))
            start = time.perf_counter()
            for record in loaded:
                task = record.task
                env = environments[task.domain](task.initial_state, seed=derive_seed(0, task.id))
                grade(task, run_episode(task, env, GoldAgent(task), ScriptedUser(task), agent_name="gold"))
            replay_s.append((time.perf_counter() - start) / len(loaded))

        # hypothesis (a test extra, not a dependency) registers a pytest plugin that imports all of
        # hypothesis (~1 s) at session end; users evaluating models do not have it, so leave it out.
        quiet = "'-p', 'no:cacheprovider', '-p', 'no:hypothesispytest'"
        probe = f"import sys, pytest; code = pytest.main(['--collect-only', '-q', {quiet}]); print('LITELLM_IMPORTED', 'litellm' in sys.modules)"
        collect = [timed_subprocess([sys.executable, "-c", probe], root) for _ in range(args.rounds)]
        litellm_imported = any("LITELLM_IMPORTED True" in out for _, out in collect)
        empty = f"import pytest; pytest.main(['--collect-only', '-q', 'tasks/none', {quiet}])"
        bare = [timed_subprocess([sys.executable, "-c", empty], root)[0] for _ in range(args.rounds)]
        full = [
            timed_subprocess(
                [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:hypothesispytest"], root
            )[0]
            for _ in range(max(1, args.rounds // 2))
        ]

    collect_s = [t for t, _ in collect]
    print(
        f"suite: {args.tasks} tasks replicated from {len(records)} records ({args.source if env_dir != MINI / 'envs' else 'tests/data mini domain'})"
    )
    print(f"rounds: {args.rounds} (medians)")
    print("| figure | median |")
    print("|---|---|")
    print(f"| pytest --collect-only, whole suite (s) | {statistics.median(collect_s):.3f} |")
    print(f"| pytest start-up, nothing to collect (s) | {statistics.median(bare):.3f} |")
    print(f"| collection net of start-up (s) | {statistics.median(collect_s) - statistics.median(bare):.3f} |")
    print(f"| litellm imported during collection | {'yes' if litellm_imported else 'no'} |")
    print(f"| load + validate per task (ms) | {median_ms(load_s)} |")
    print(f"| reset + gold episode + grade per task (ms) | {median_ms(replay_s)} |")
    print(f"| full pytest gold run, per item (ms) | {statistics.median(full) / args.tasks * 1000:.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
