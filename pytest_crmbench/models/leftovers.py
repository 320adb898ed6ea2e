"""What litellm leaves open behind a session, closed when the session ends (issue 32).

A model run ended with ``ResourceWarning: unclosed <socket ...>`` (shown at exit with
``-W error::ResourceWarning``, ``-X dev``, or whenever a later garbage collection found them, as
in the project's own tests): two things litellm opens and never closes.

* **The synchronous HTTP clients it caches** (``litellm.in_memory_llm_clients_cache``: an
  ``openai.OpenAI`` per model, key and server, each holding an httpx pool with a keep-alive
  connection to the server). litellm's own exit handler closes only its asynchronous clients.
* **An event loop on the calling thread**: after each successful call its service logger asks
  ``asyncio.get_event_loop()``, which on the main thread creates a loop (with its self-pipe, two
  sockets) and sets it as the thread's loop, for good. litellm's exit handler later replaces it
  with a loop of its own, and the dropped one warns "unclosed event loop".

:class:`Leftovers` notes each loop that appeared on a thread during a call made through the
session's :class:`~pytest_crmbench.models.llm.Transport`, and :meth:`Leftovers.close` (from
``Transport.close``, in ``pytest_unconfigure``) closes those loops and every cached synchronous
client, and drops the clients from litellm's cache, so a later session in the same process (the
project's in-process tests) builds fresh ones. Loops that existed before a call are not ours and
are left alone.
"""

from __future__ import annotations

import asyncio
import inspect
import threading
from types import ModuleType
from typing import Any


def thread_loop() -> asyncio.AbstractEventLoop | None:
    """The event loop set on this thread, without creating one (``asyncio.get_event_loop()``
    would create it on the main thread)."""
    local = getattr(asyncio.get_event_loop_policy(), "_local", None)
    loop = getattr(local, "_loop", None)
    return loop if isinstance(loop, asyncio.AbstractEventLoop) else None


class Leftovers:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loops: list[asyncio.AbstractEventLoop] = []

    def note_loop(self, before: asyncio.AbstractEventLoop | None) -> None:
        """After a call on this thread: the loop it left, if it was not there before."""
        after = thread_loop()
        if after is not None and after is not before:
            with self._lock:
                if after not in self._loops:
                    self._loops.append(after)

    def close(self, litellm: ModuleType | None) -> None:
        with self._lock:
            loops, self._loops = self._loops, []
        for loop in loops:
            if loop.is_running() or loop.is_closed():
                continue
            if thread_loop() is loop:
                asyncio.set_event_loop(None)
            loop.close()
        if litellm is not None:
            close_sync_clients(litellm)


def close_sync_clients(litellm: ModuleType) -> int:
    """Close the synchronous clients litellm cached (its asynchronous ones are closed by its own
    exit handler) and drop them from the cache; how many were closed."""
    cache: Any = getattr(litellm, "in_memory_llm_clients_cache", None)
    entries: dict[str, Any] = dict(getattr(cache, "cache_dict", {}) or {})
    closed = 0
    for key, client in entries.items():
        close = getattr(client, "close", None)
        if not callable(close) or inspect.iscoroutinefunction(close) or hasattr(client, "aclose"):
            continue
        try:
            close()
        except Exception:  # a client that cannot close is no reason to fail the session
            continue
        closed += 1
        cache.delete_cache(key)  # litellm's eviction: it may close the client again later, harmlessly
    return closed
