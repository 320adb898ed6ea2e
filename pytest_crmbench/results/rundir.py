"""The run directory (DESIGN §6): manifest, results.jsonl, traces, leaderboard files.

::

    crm-runs/20260101T120000Z-gold/
        manifest.json          what ran: versions, task-set hash, agent, models, settings, git
        results.jsonl          one ResultRecord per line, appended as each item finishes
        traces/<domain>.jsonl  one trajectory per line (Evidence JSON + verdict), appended too
        leaderboard.json/.md   written at session end

Traces are JSON *Lines*, not one JSON document per domain, for the same reason results are: a
killed run keeps every trajectory it finished, and ``--crm-resume`` appends to them.
Only the controller process writes here.
"""

from __future__ import annotations

import contextlib
import json
import re
import subprocess
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from pytest_crmbench.core.errors import CrmbenchError
from pytest_crmbench.core.redaction import redact
from pytest_crmbench.results.records import ResultRecord, decode_record

MANIFEST = "manifest.json"
RESULTS = "results.jsonl"
TRACES = "traces"
LEADERBOARD_JSON = "leaderboard.json"
LEADERBOARD_MD = "leaderboard.md"
FORMAT = "crmbench-run/1"

LOCK = ".lock"
"""Held (``flock``) while a run writes the directory; removed when it is done."""
FINGERPRINT_KEYS = ("task_set", "agent", "models", "sampling", "settings")
"""Manifest entries a resumed run must share with the original (``task_set`` by its hash)."""


class RunDirError(CrmbenchError):
    """A run directory is missing, incomplete or does not match the current run."""


def default_run_dir(root: Path, system: str, now: datetime | None = None) -> Path:
    """``<root>/crm-runs/<UTC timestamp>-<system>`` (``-2``... when taken), the system name made path-safe."""
    stamp = (now or datetime.now(UTC)).strftime("%Y%m%dT%H%M%SZ")
    safe = re.sub(r"[^A-Za-z0-9._-]+", "-", system).strip("-.") or "run"
    path = root / "crm-runs" / f"{stamp}-{safe}"
    # Two runs started in the same second get their own directories (a used one is refused).
    for suffix in range(2, 1000):
        if not path.exists():
            break
        path = root / "crm-runs" / f"{stamp}-{safe}-{suffix}"
    return path


def git_commit(root: Path) -> dict[str, Any] | None:
    """The checked-out commit of ``root`` and whether the tree is dirty; None outside git."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, timeout=5, check=True
        ).stdout.strip()
        status = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=5,
            check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return {"commit": head, "dirty": bool(status.strip())}


def fingerprint(manifest: Mapping[str, Any]) -> dict[str, Any]:
    entries = {key: manifest.get(key) for key in FINGERPRINT_KEYS}
    task_set = entries.get("task_set")
    entries["task_set"] = task_set.get("hash") if isinstance(task_set, Mapping) else task_set
    return entries


def resume_mismatches(saved: Mapping[str, Any], current: Mapping[str, Any]) -> list[str]:
    """What differs between a saved manifest and the current run (empty: safe to resume)."""
    old, new = fingerprint(saved), fingerprint(current)
    return [f"{key}: run has {old[key]!r}, now {new[key]!r}" for key in FINGERPRINT_KEYS if old[key] != new[key]]


class RunDir:
    """Writer of one run directory. Every append is flushed, so a killed run keeps its lines.

    A failed write (a full or read-only disk) raises :class:`RunDirError` with one line saying
    what happened; what was written before stays.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock: Any = None
        self._created: list[Path] = []
        """The folders :meth:`open_for_writing` created, innermost first (removed again if left empty)."""

    def open_for_writing(self, *, resume: bool) -> None:
        """Create the directory and lock it for this run.

        A directory that already holds something is refused unless the run resumes it: a second
        run appending to it would mix two runs (even of two agents) under one manifest. A second
        process writing it at the same time is refused as well, whatever it resumes.
        """
        if not resume and self.path.is_dir() and any(self.path.iterdir()):
            raise RunDirError(
                f"{self.path} is not empty (it holds an earlier run): continue that run with"
                f" --crm-resume={self.path}, or choose a new --crm-run-dir"
            )
        created = [folder for folder in (self.path, *self.path.parents) if not folder.exists()]
        with _writing(self.path):
            self.path.mkdir(parents=True, exist_ok=True)
            handle = (self.path / LOCK).open("a+", encoding="utf-8")
        self._created = created
        if not _try_lock(handle):
            handle.close()
            raise RunDirError(f"{self.path} is being written by another run right now; wait for it or choose another")
        self._lock = handle

    def close(self) -> None:
        """Release the lock (a killed run's lock is released by the operating system), and remove
        the folders this run created if it wrote nothing in them."""
        if self._lock is not None:
            (self.path / LOCK).unlink(missing_ok=True)
            self._lock.close()
            self._lock = None
        # A run refused at a usage error (an unknown agent, a missing API key) never started: an
        # empty directory left behind would only break `crmbench leaderboard crm-runs/*`.
        for folder in self._created:
            try:
                folder.rmdir()  # only an empty folder: whatever the run wrote stays
            except OSError:
                break
        self._created = []

    # Every write is redacted here, whatever its source: API keys never reach a file we write.

    def write_manifest(self, manifest: Mapping[str, Any]) -> None:
        with _writing(self.path / MANIFEST):
            self.path.mkdir(parents=True, exist_ok=True)
            _write_atomic(self.path / MANIFEST, json.dumps(redact(dict(manifest)), indent=2, sort_keys=True) + "\n")

    def append_result(self, line: str) -> None:
        _append(self.path / RESULTS, redact(line))

    def append_trace(self, domain: str, line: str) -> None:
        safe = re.sub(r"[^A-Za-z0-9_-]+", "_", domain) or "unknown"
        _append(self.path / TRACES / f"{safe}.jsonl", redact(line))

    def write_leaderboard(self, data: Mapping[str, Any], markdown: str) -> None:
        with _writing(self.path / LEADERBOARD_JSON):
            self.path.mkdir(parents=True, exist_ok=True)
            _write_atomic(self.path / LEADERBOARD_JSON, json.dumps(data, indent=2, sort_keys=True) + "\n")
            _write_atomic(self.path / LEADERBOARD_MD, markdown)


@contextlib.contextmanager
def _writing(path: Path) -> Iterator[None]:
    """OSError (no space left, read-only, permission denied) -> one RunDirError line naming the file."""
    try:
        yield
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise RunDirError(f"cannot write {path}: {reason} (errno {exc.errno})") from None


def _try_lock(handle: Any) -> bool:
    try:
        import fcntl
    except ImportError:  # Windows: msvcrt locks a byte range instead
        import msvcrt

        try:
            msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)  # type: ignore[attr-defined]
        except OSError:
            return False
        return True
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    return True


def _append(path: Path, line: str) -> None:
    with _writing(path):
        path.parent.mkdir(parents=True, exist_ok=True)
        _drop_partial_line(path)
        with path.open("a", encoding="utf-8") as handle:
            handle.write(line.rstrip("\n") + "\n")
            handle.flush()


def _drop_partial_line(path: Path) -> None:
    """Cut a line a killed process left half-written, so the next append starts a line of its own.

    Readers ignore such a last line; appending after it would glue a good record onto it and
    make the whole file unreadable (the resume case).
    """
    try:
        with path.open("rb+") as handle:
            if handle.seek(0, 2) == 0:
                return
            handle.seek(-1, 2)
            if handle.read(1) == b"\n":
                return
            handle.seek(0)
            data = handle.read()
            handle.truncate(data.rfind(b"\n") + 1)
    except FileNotFoundError:
        return


def _lines(file: Path) -> Iterator[tuple[int, str | None, bool]]:
    """``(number, text, last)`` for each line that is not blank, read one at a time (a release
    run's trace files are tens of megabytes each): ``text`` is None for a line that is not UTF-8
    (cut in a character), ``last`` tells the last line that is not blank (a kill may have cut it)."""
    pending: tuple[int, str | None] | None = None
    with file.open("rb") as handle:
        for number, raw in enumerate(handle, 1):
            try:
                text: str | None = raw.decode("utf-8")
            except UnicodeDecodeError:
                text = None
            if text is not None and not text.strip():
                continue
            if pending is not None:
                yield (*pending, False)
            pending = (number, text)
    if pending is not None:
        yield (*pending, True)


def _write_atomic(path: Path, text: str) -> None:
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(text, encoding="utf-8")
    temporary.replace(path)


@dataclass(frozen=True)
class SavedRun:
    """A run directory read back: its manifest and its records, the latest per (task, trial)."""

    path: Path
    manifest: dict[str, Any]
    records: list[ResultRecord]

    @property
    def system(self) -> str:
        return str(self.manifest.get("system") or self.manifest.get("agent") or self.path.name)

    @property
    def created_at(self) -> str:
        return str(self.manifest.get("created_at", ""))


def read_manifest(path: Path) -> dict[str, Any]:
    file = path / MANIFEST
    if not file.is_file():
        raise RunDirError(f"{path}: not a crmbench run directory (no {MANIFEST})")
    try:
        manifest = json.loads(file.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise RunDirError(f"{file}: invalid JSON: {exc}") from None
    if not isinstance(manifest, dict):
        raise RunDirError(f"{file}: expected a JSON object")
    return manifest


def read_records(path: Path) -> list[ResultRecord]:
    """Records of ``results.jsonl``, later lines superseding earlier ones for the same key.

    A truncated last line (the process was killed while writing it) is ignored; any other bad
    line is an error naming its line number.
    """
    file = path / RESULTS
    if not file.is_file():
        return []
    latest: dict[tuple[str, int], ResultRecord] = {}
    for number, line, last in _lines(file):
        try:
            if line is None:
                raise RunDirError(f"{file}:{number}: not UTF-8")
            record = decode_record(line)
        except (ValidationError, RunDirError) as exc:
            if last:
                break  # truncated by a kill
            reason = exc.errors()[0]["msg"] if isinstance(exc, ValidationError) else "not UTF-8"
            raise RunDirError(f"{file}:{number}: not a result record: {reason}") from None
        latest.pop(record.key, None)  # re-insert: the dict keeps the order results finished in
        latest[record.key] = record
    return list(latest.values())


def _too_much(exc: BaseException) -> str:
    if isinstance(exc, RecursionError):
        return "nested too deeply"
    return str(exc).splitlines()[0][:200]


def load_run(path: Path) -> SavedRun:
    return SavedRun(path=path, manifest=read_manifest(path), records=read_records(path))


def read_traces(path: Path) -> Iterator[dict[str, Any]]:
    """Every trace entry of a run directory (``traces/*.jsonl``), in file order."""
    folder = path / TRACES
    for file in sorted(folder.glob("*.jsonl")) if folder.is_dir() else []:
        for number, line, last in _lines(file):
            try:
                if line is None:
                    raise json.JSONDecodeError("not UTF-8", "", 0)
                entry = json.loads(line)
            except json.JSONDecodeError:
                if last:
                    break  # truncated by a kill
                raise RunDirError(f"{file}:{number}: invalid JSON") from None
            except (ValueError, RecursionError) as exc:  # a 10,000-digit number, nesting 100,000 deep
                raise RunDirError(f"{file}:{number}: unreadable trace entry: {_too_much(exc)}") from None
            yield entry


def latest_traces(path: Path) -> dict[tuple[str, int], dict[str, Any]]:
    """The last trace entry per (task, trial), in the order they finished: the same rule as the
    results (a resumed run re-runs its infra and error results, and the later attempt counts)."""
    latest: dict[tuple[str, int], dict[str, Any]] = {}
    for entry in read_traces(path):
        found = entry.get("evidence")
        evidence: dict[str, Any] = found if isinstance(found, dict) else {}
        key = (
            str(entry.get("task_id", evidence.get("task_id"))),
            int(entry.get("trial", evidence.get("trial", 0)) or 0),
        )
        latest.pop(key, None)
        latest[key] = entry
    return latest
