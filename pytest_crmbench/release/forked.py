"""Work shared among forked processes: the gate's parallel stages.

A forked child inherits the loaded task set and the imported domains instead of importing them
again, and receives only the items of its work (positions, domain names); its results come back
pickled. A fork is safe only in a process that runs one thread (a child copies the locks other
threads hold, never their release): the ``crmbench`` command runs one (litellm, which starts
threads, is never imported by the gate); where another thread runs — inside an xdist worker, in
an embedding program — the work runs in this process instead, as it does outside Linux (a child
that had to import every domain again would gain little on a gate of about a minute).
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

S = TypeVar("S")
T = TypeVar("T")
R = TypeVar("R")


def parallel_jobs(requested: int | None) -> int:
    """How many processes: ``requested``, or one per core; 1 where processes are not forked."""
    if sys.platform != "linux" or "fork" not in multiprocessing.get_all_start_methods():
        return 1
    return max(1, requested if requested is not None else (os.cpu_count() or 1))


def forked_map(work: Callable[[S, T], R], shared: S, items: Sequence[T], jobs: int) -> Iterator[R]:
    """``work(shared, item)`` for every item, in the items' order; in ``jobs`` forked children
    when ``jobs`` > 1 (each child takes the next item when it is done: long items do not hold
    the others back)."""
    if jobs <= 1 or len(items) <= 1 or threading.active_count() > 1:
        for item in items:
            yield work(shared, item)
        return
    context = multiprocessing.get_context("fork")
    with context.Pool(min(jobs, len(items)), initializer=_inherit, initargs=(work, shared)) as pool:
        yield from pool.imap(_run, items)


_INHERITED: tuple[Callable[[Any, Any], Any], Any] | None = None
"""The work and its shared input, in a forked child only (set once by :func:`_inherit`)."""


def _inherit(work: Callable[[Any, Any], Any], shared: Any) -> None:
    global _INHERITED
    _INHERITED = (work, shared)


def _run(item: Any) -> Any:
    assert _INHERITED is not None, "forked_map's children only"
    work, shared = _INHERITED
    return work(shared, item)
