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

import json
import os
import re
import subprocess
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from pytest_crmbench.core.errors import CrmbenchError
from pytest_crmbench.results.records import ResultRecord, decode_record

MANIFEST = "manifest.json"
RESULTS = "results.jsonl"
TRACES = "traces"
LEADERBOARD_JSON = "leaderboard.json"
LEADERBOARD_MD = "leaderboard.md"
FORMAT = "crmbench-run/1"

FINGERPRINT_KEYS = ("task_set", "agent", "models", "sampling", "settings")
"""Manifest entries a resumed run must share with the original (``task_set`` by its hash)."""

_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL|AUTH", re.IGNORECASE)
REDACTED = "<redacted>"


class RunDirError(CrmbenchError):
    """A run directory is missing, incomplete or does not match the current run."""


def default_run_dir(root: Path, system: str, now: datetime | None = None) -> Path:
    """``<root>/crm-runs/<UTC timestamp>-<system>``, with the system name made path-safe."""
    stamp = (now or datetime.now(UTC)).strftime("%Y%m%dT%H%M%SZ")
    safe = re.sub(r"[^A-Za-z0-9._-]+", "-", system).strip("-.") or "run"
    return root / "crm-runs" / f"{stamp}-{safe}"


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


def secret_values(environ: Mapping[str, str] | None = None) -> list[str]:
    """Values of environment variables named like credentials (``*_API_KEY``, ``*TOKEN`` ...)."""
    environ = os.environ if environ is None else environ
    return sorted({v for k, v in environ.items() if _SECRET_NAME.search(k) and len(v) >= 8}, key=len, reverse=True)


_URL = re.compile(
    r"(?P<scheme>[a-zA-Z][a-zA-Z0-9+.-]*://)(?P<userinfo>[^/@\s]*@)?(?P<rest>[^\s?#]*)(?P<query>[?#]\S*)?"
)


def scrub_urls(text: str) -> str:
    """URLs without credentials: userinfo (``user:key@``) and query strings (``?api_key=``) go."""

    def clean(match: re.Match[str]) -> str:
        userinfo = REDACTED + "@" if match.group("userinfo") else ""
        query = "?" + REDACTED if match.group("query") else ""
        return f"{match.group('scheme')}{userinfo}{match.group('rest')}{query}"

    return _URL.sub(clean, text)


def redact(value: Any, secrets: list[str]) -> Any:
    """``value`` with every occurrence of a secret replaced, at any depth.

    The manifest never reads the environment, but it records pytest's arguments, and a user may
    have pasted a key into one (``--crm-api-base=https://key@host``): belt and braces.
    """
    if isinstance(value, str):
        for secret in secrets:
            value = value.replace(secret, REDACTED)
        return scrub_urls(value)
    if isinstance(value, Mapping):
        return {k: redact(v, secrets) for k, v in value.items()}
    if isinstance(value, list):
        return [redact(v, secrets) for v in value]
    return value


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
    """Writer of one run directory. Every append is flushed, so a killed run keeps its lines."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def write_manifest(self, manifest: Mapping[str, Any]) -> None:
        self.path.mkdir(parents=True, exist_ok=True)
        _write_atomic(self.path / MANIFEST, json.dumps(manifest, indent=2, sort_keys=True) + "\n")

    def append_result(self, line: str) -> None:
        _append(self.path / RESULTS, line)

    def append_trace(self, domain: str, line: str) -> None:
        safe = re.sub(r"[^A-Za-z0-9_-]+", "_", domain) or "unknown"
        _append(self.path / TRACES / f"{safe}.jsonl", line)

    def write_leaderboard(self, data: Mapping[str, Any], markdown: str) -> None:
        self.path.mkdir(parents=True, exist_ok=True)
        _write_atomic(self.path / LEADERBOARD_JSON, json.dumps(data, indent=2, sort_keys=True) + "\n")
        _write_atomic(self.path / LEADERBOARD_MD, markdown)


def _append(path: Path, line: str) -> None:
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


def _lines(file: Path) -> list[str | None]:
    """The file's lines, decoded one by one: None for a line that is not UTF-8 (cut in a character)."""
    lines: list[str | None] = []
    for raw in file.read_bytes().split(b"\n"):
        try:
            lines.append(raw.decode("utf-8"))
        except UnicodeDecodeError:
            lines.append(None)
    while lines and lines[-1] == "":
        lines.pop()
    return lines


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
    lines = _lines(file)
    latest: dict[tuple[str, int], ResultRecord] = {}
    for number, line in enumerate(lines, 1):
        if line is not None and not line.strip():
            continue
        try:
            if line is None:
                raise RunDirError(f"{file}:{number}: not UTF-8")
            record = decode_record(line)
        except (ValidationError, RunDirError) as exc:
            if number == len(lines):
                break  # truncated by a kill
            reason = exc.errors()[0]["msg"] if isinstance(exc, ValidationError) else "not UTF-8"
            raise RunDirError(f"{file}:{number}: not a result record: {reason}") from None
        latest.pop(record.key, None)  # re-insert: the dict keeps the order results finished in
        latest[record.key] = record
    return list(latest.values())


def load_run(path: Path) -> SavedRun:
    return SavedRun(path=path, manifest=read_manifest(path), records=read_records(path))


def read_traces(path: Path) -> Iterator[dict[str, Any]]:
    """Every trace entry of a run directory (``traces/*.jsonl``), in file order."""
    folder = path / TRACES
    for file in sorted(folder.glob("*.jsonl")) if folder.is_dir() else []:
        lines = _lines(file)
        for number, line in enumerate(lines, 1):
            if line is not None and not line.strip():
                continue
            try:
                if line is None:
                    raise json.JSONDecodeError("not UTF-8", "", 0)
                entry = json.loads(line)
            except json.JSONDecodeError:
                if number == len(lines):
                    break  # truncated by a kill
                raise RunDirError(f"{file}:{number}: invalid JSON") from None
            yield entry
