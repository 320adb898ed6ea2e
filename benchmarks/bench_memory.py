"""Peak memory against run length: the same suite run at two lengths, gold agent, run directory on.

Builds a synthetic suite of the 73 payments tasks replicated under new ids (real records, real
environment, real grading) and runs ``pytest --crm-agent=gold --crm-run-dir=...`` on it with
``--crm-trials`` so a run has N episodes; every episode's result record and trajectory go
through the same path as a model run's (worker-side record, controller-side recorder, run
directory, leaderboard, ``report.html``). Reported per length: wall, CPU, peak RSS of the pytest
process (``wait4``'s ``ru_maxrss``), and the ratio of the peak at the longer run to the shorter.
The gold agent keeps litellm out of the picture (a model run adds its import, ~100 MiB, flat in
run length; ``bench_models.py`` reports model runs' RSS).

By default both lengths have ``--trials`` trials per task, so the longer run also has ten times the
tasks. ``--tasks N`` keeps the task set fixed instead (a release's 555 tasks, more trials): both
runs play the same N tasks, ``episodes / N`` trials each, so the ratio counts only what grows
with episodes.

``--workers N`` runs under xdist (``-n N``) and reports, besides the whole tree's peak, the
controller's own peak and the largest worker's, each process's ``ru_maxrss`` as
``process_probe.py`` writes it: the goal counts what an episode keeps on the worker that played it,
and the controller keeps a summary of every result.

Usage: ``python benchmarks/bench_memory.py [--episodes 500 5000] [--trials 5 | --tasks 100]
[--rounds 3] [--no-html] [--workers N]``. See docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_models  # a sibling script, not a package
from process_probe import probe_env

REPO = bench_models.REPO


def build_project(root: Path, tasks: int) -> None:
    """``tasks`` payments records (replicated under new ids) in nine files, like the nine domains."""
    records = yaml.safe_load((REPO / "tasks" / "payments.yaml").read_text())
    (root / "tasks").mkdir()
    files = 9
    for f in range(files):
        chunk = [
            {**records[i % len(records)], "id": f"{records[i % len(records)]['id']}_r{i:05d}"}
            for i in range(f, tasks, files)
        ]
        (root / "tasks" / f"part{f}.yaml").write_text(yaml.safe_dump(chunk, sort_keys=False))
    (root / "envs").symlink_to(REPO / "envs", target_is_directory=True)
    (root / "agents").symlink_to(REPO / "agents", target_is_directory=True)
    (root / "pyproject.toml").write_text("[tool.pytest]\nstrict = true\n")


def run(root: Path, trials: int, html: bool, extra: list[str], workers: int = 0) -> dict[str, Any]:
    run_dir = root / "runs" / f"run{time.monotonic_ns()}"
    probe = run_dir.with_name(run_dir.name + ".probe")
    parallel = ["-n", str(workers), "-p", "process_probe"] if workers else []
    command = [
        sys.executable,
        "-m",
        "pytest",
        "tasks",
        "-q",
        "-p",
        "no:hypothesispytest",
        "-p",
        "no:cacheprovider",
        "--crm-agent=gold",
        f"--crm-trials={trials}",
        f"--crm-run-dir={run_dir}",
        f"--crm-html={'yes' if html else 'no'}",
        *parallel,
        *extra,
    ]
    figures = bench_models.timed(command, root, env=probe_env(probe) if workers else None)
    if figures["status"] != 0:
        raise SystemExit(f"pytest exited {figures['status']}: {' '.join(command)} in {root}")
    results = (run_dir / "results.jsonl").read_text().count("\n")
    figures["episodes"] = results
    if workers:
        peaks = {f.name: json.loads(f.read_text())["rss_kib"] / 1024 for f in probe.parent.glob(probe.name + "*")}
        figures["controller_mib"] = peaks.pop(probe.name)
        figures["worker_mib"] = max(peaks.values())
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--episodes", type=int, nargs=2, default=[500, 5000], metavar=("SHORT", "LONG"))
    parser.add_argument("--trials", type=int, default=5, help="trials per task (episodes = tasks x trials)")
    parser.add_argument("--tasks", type=int, help="a fixed task count for both lengths (trials = episodes / tasks)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-html", action="store_true", help="--crm-html=no: leave report.html out")
    parser.add_argument("--workers", type=int, default=0, help="run under xdist with N workers (-n N)")
    parser.add_argument("pytest_args", nargs="*", help="extra pytest arguments (after --)")
    args = parser.parse_args(argv)
    samples: dict[int, list[dict[str, Any]]] = {n: [] for n in args.episodes}
    with tempfile.TemporaryDirectory() as tmp:
        roots = {}
        trials = {n: n // args.tasks if args.tasks else args.trials for n in args.episodes}
        for episodes in args.episodes:
            roots[episodes] = Path(tmp) / f"suite{episodes}"
            roots[episodes].mkdir()
            build_project(roots[episodes], episodes // trials[episodes])
        for _ in range(args.rounds):  # interleaved, so load on the machine hits both lengths alike
            for episodes in args.episodes:
                samples[episodes].append(
                    run(roots[episodes], trials[episodes], not args.no_html, args.pytest_args, args.workers)
                )
    print("| episodes | wall s | CPU s | peak RSS MiB (median) | min-max |")
    print("|---|---|---|---|---|")
    peaks = {}
    for episodes, rows in samples.items():
        rss = [r["rss_mib"] for r in rows]
        peaks[episodes] = statistics.median(rss)
        print(
            f"| {rows[0]['episodes']} | {statistics.median(r['wall'] for r in rows):.1f}"
            f" | {statistics.median(r['cpu'] for r in rows):.1f} | {peaks[episodes]:.0f} | {min(rss):.0f}-{max(rss):.0f} |"
        )
    short, long = args.episodes
    print(f"peak at {long} / peak at {short}: {peaks[long] / peaks[short]:.3f}")
    # Issue 33's goal: what one finished episode keeps on a worker, at most 16 KiB (100,000 episodes
    # in under 2 GiB); the slope between the two lengths, so start-up and the task set cancel out.
    per_episode = (peaks[long] - peaks[short]) * 1024 / (long - short)
    print(f"retained per finished episode: {per_episode:.1f} KiB (goal: at most 16 KiB)")
    if args.workers:
        # Each worker plays its share of the episodes; the controller hears of all of them.
        for key, label, share in (
            ("worker_mib", "the largest worker", args.workers),
            ("controller_mib", "the controller", 1),
        ):
            low, high = (statistics.median(r[key] for r in samples[n]) for n in (short, long))
            kib = (high - low) * 1024 / ((long - short) / share)
            print(f"{label}: peak {low:.0f} -> {high:.0f} MiB, {kib:.1f} KiB per episode it played or recorded")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
