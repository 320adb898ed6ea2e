"""A pytest plugin for the benchmarks: what each pytest process used, written at the end of its run.

``python -m pytest -p process_probe`` with this folder on ``PYTHONPATH`` and ``CRM_PROBE`` naming a
file. The process writes there ``{"main": s, "process": s, "litellm": s, "litellm_main": s,
"rss_kib": n}``: its main thread's CPU, its whole CPU, the CPU its other threads and its main
thread spent inside ``litellm.completion`` (with ``CRM_PROBE_LITELLM=1``; litellm imported as
crmbench imports it, offline) and its own peak RSS.
An xdist worker writes to that name plus ``.<worker id>``, so the controller and each worker are
told apart (``wait4`` reports only the largest of them).

pytest's loop and every hook run on the main thread; under ``--crm-concurrency`` the episodes run
on pool threads, so ``process - main`` is theirs, and ``litellm`` the part of it litellm spent
(the main thread calls litellm itself only for the preflight, once a run).
"""

from __future__ import annotations

import functools
import json
import os
import resource
import threading
import time
from pathlib import Path
from typing import Any

PROBE = "CRM_PROBE"
PROBE_LITELLM = "CRM_PROBE_LITELLM"

_inside_litellm = {"main": 0.0, "pool": 0.0}
_lock = threading.Lock()


def probe_env(target: Path, *, litellm: bool = False) -> dict[str, str]:
    """The environment for a pytest run to probe: this folder importable, ``target`` named, and no
    xdist worker id inherited from a process that is itself a worker (it would name the file)."""
    here = str(Path(__file__).resolve().parent)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [here, os.environ.get("PYTHONPATH")]))
    env[PROBE] = str(target)
    if litellm:
        env[PROBE_LITELLM] = "1"
    return env


def probe_file(target: Path, worker: str | None) -> Path:
    return target.with_name(f"{target.name}.{worker}") if worker else target


def pytest_configure() -> None:
    if os.environ.get(PROBE) and os.environ.get(PROBE_LITELLM):
        from pytest_crmbench.models.llm import litellm_module

        litellm = litellm_module()
        litellm.completion = _timed(litellm.completion)


def _timed(completion: Any) -> Any:
    @functools.wraps(completion)
    def timed_completion(*args: Any, **kwargs: Any) -> Any:
        started = time.thread_time()
        try:
            return completion(*args, **kwargs)
        finally:
            spent = time.thread_time() - started
            where = "main" if threading.current_thread() is threading.main_thread() else "pool"
            with _lock:
                _inside_litellm[where] += spent

    return timed_completion


def pytest_unconfigure() -> None:
    target = os.environ.get(PROBE)
    if target:
        used = {
            "main": time.thread_time(),
            "process": time.process_time(),
            "litellm": _inside_litellm["pool"],
            "litellm_main": _inside_litellm["main"],
            "rss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
        }
        probe_file(Path(target), os.environ.get("PYTEST_XDIST_WORKER")).write_text(json.dumps(used), encoding="utf-8")
