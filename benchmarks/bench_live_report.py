"""The live report's rewrite, before and after it became incremental (issue 32).

Writes a synthetic release-size run (``bench_report.py``'s: 555 tasks x 3 trials of real episodes,
graded by the real grader) and replays its growth: the run's files are copied over in ``--steps``
slices, as a run appends them, and after each slice ``report.html`` is rewritten twice:

* ``scratch``: as every live rewrite did before, reading the whole run again;
* ``incremental``: with a :class:`~pytest_crmbench.results.runreader.RunReader` kept between
  rewrites (what ``--crm-html-every`` now does), reading only the lines appended since.

Both pages are compared (the same page, the stamp aside). Figures in docs/performance.md.

Usage: ``python benchmarks/bench_live_report.py [--tasks 555] [--trials 3] [--steps 10] [--run DIR]``
(``--run``: an existing run directory with its ``tasks`` folder beside it, instead of a new one).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_report

from pytest_crmbench.results.html import sources_for, write_report
from pytest_crmbench.results.reportstatus import running
from pytest_crmbench.results.rundir import RESULTS, TRACES
from pytest_crmbench.results.runreader import RunReader

STAMP = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC")


def grow(lines: dict[Path, list[bytes]], growing: Path, results: int) -> None:
    """``growing`` as the run was when it had ``results`` results: each result line, then its
    trajectory in its domain's file (the order the recorder appends them)."""
    per_domain = Counter(json.loads(line)["domain"] for line in lines[Path(RESULTS)][:results])
    for file, all_lines in lines.items():
        count = results if file == Path(RESULTS) else per_domain[file.stem]
        (growing / file).write_bytes(b"".join(all_lines[:count]))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", type=int, default=555)
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--run", type=Path, help="An existing run directory (its tasks/ folder beside it).")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        if args.run is None:
            started = time.perf_counter()
            tasks = bench_report.build_tasks(root / "tasks", args.tasks)
            bench_report.write_run(
                root / "run", tasks, "graph/openai/new", args.trials, 1.0, "2026-12-01T12:00:00+00:00"
            )
            print(f"run written in {time.perf_counter() - started:.1f} s")
            source, task_folder = root / "run", root / "tasks"
        else:
            source, task_folder = args.run, args.run.parent / "tasks"
        sources = sources_for(task_folder, task_folder.parent)
        files = [Path(RESULTS), *(Path(TRACES) / f.name for f in sorted((source / TRACES).iterdir()))]
        lines = {f: (source / f).read_bytes().splitlines(keepends=True) for f in files}
        total = len(lines[Path(RESULTS)])
        growing = root / "growing"
        (growing / TRACES).mkdir(parents=True)
        shutil.copyfile(source / "manifest.json", growing / "manifest.json")
        reader = RunReader(growing, sources)
        scratch_s, incremental_s = [], []
        for step in range(1, args.steps + 1):
            results = total * step // args.steps
            grow(lines, growing, results)
            status = running(results, total)
            started = time.perf_counter()
            write_report([growing], root / "scratch.html", sources, status)
            scratch_s.append(time.perf_counter() - started)
            started = time.perf_counter()
            write_report([growing], root / "live.html", sources, status, readers=[reader])
            incremental_s.append(time.perf_counter() - started)
            same = STAMP.sub("", (root / "scratch.html").read_text()) == STAMP.sub("", (root / "live.html").read_text())
            print(
                f"{results:5d} of {total} results: scratch {scratch_s[-1]:.2f} s, incremental {incremental_s[-1]:.2f} s,"
                f" same page: {same}"
            )
            if not same:
                return 1
        print(
            f"median rewrite: scratch {statistics.median(scratch_s):.2f} s, incremental"
            f" {statistics.median(incremental_s):.2f} s; last (whole run): {scratch_s[-1]:.2f} s against"
            f" {incremental_s[-1]:.2f} s"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
