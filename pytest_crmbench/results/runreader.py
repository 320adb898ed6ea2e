"""A run directory read as it grows: what was read is kept, only new lines are read (issue 32).

``report.html`` is rewritten while a run goes on (:mod:`pytest_crmbench.plugin.livereport`); each
rewrite used to read the whole run again (``results.jsonl`` and every trajectory, tens of megabytes
for a release run), which cost seconds per rewrite. A :class:`RunReader` remembers how far it read
each file and, on :meth:`RunReader.update`, reads only the complete lines appended since (a line
still being written is left for the next update). It keeps what the report needs: each result's
summary (records without the checks' values) and its task page, zlib-compressed as it is made (a
few kilobytes each, so a long run stays within bounds in memory).

The same reader draws the report from scratch (``crmbench report``, the final report): one update
reads everything. Both therefore make the same page: a result's page is made from its latest
record and its latest trajectory, and pages are packed in the task table's order, (task, trial),
whatever order the lines were read in. A trajectory whose result line is not there yet waits for
it; a result line whose trajectory is not there yet gets a page without the trajectory until the
trajectory arrives (the recorder writes the result, then its trajectory, one after the other, so a
rewrite between items never sees that). Differences are left only where the recorder never writes
so: a trajectory appended for a result whose page was already made, with no new result line after
it, is not shown, and a re-run's result read without its trajectory shows none (a from-scratch
read would show the earlier attempt's there).

Reading rules are :func:`~pytest_crmbench.results.rundir.read_records`' and
:func:`~pytest_crmbench.results.rundir.read_traces`': a later result line for a (task, trial)
supersedes the earlier one and moves it to the end; a line cut by a kill is ignored; any other bad
line is a :class:`~pytest_crmbench.results.rundir.RunDirError` naming its file and line.
"""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from pydantic import ValidationError

from pytest_crmbench.results.records import ResultRecord, decode_record, summary_of
from pytest_crmbench.results.rundir import RESULTS, TRACES, RunDirError, SavedRun, read_manifest
from pytest_crmbench.results.sources import Sources
from pytest_crmbench.results.taskview import task_detail

Key = tuple[str, int]


@dataclass(frozen=True)
class ReportRun:
    """A run as the report reads it: the saved run (its records as summaries, without the checks'
    values, which only the pages show) and the number of each result's page in the report's
    packed pages."""

    saved: SavedRun
    pages: dict[tuple[str, int], int]

    @property
    def name(self) -> str:
        return self.saved.path.name


class Pages(Protocol):
    """Where a report's pages are packed (:class:`pytest_crmbench.results.html.TaskPages`)."""

    def add_encoded(self, page: bytes) -> int: ...


def encoded_page(page: dict[str, Any]) -> bytes:
    """A task page as the report packs it (compact JSON), zlib-compressed for keeping."""
    text = json.dumps(page, ensure_ascii=False, separators=(",", ":"), default=str).encode("utf-8")
    return zlib.compress(text, 1)


@dataclass
class _Tail:
    """How far one file was read: the offset after the last complete line, and its line number."""

    offset: int = 0
    lines: int = 0

    def new_lines(self, file: Path, *, to_the_end: bool) -> list[tuple[int, bytes]]:
        """The lines appended since the last call, with their line numbers: only complete ones
        during a run (a line without its newline is still being written), every one with
        ``to_the_end`` (a finished or killed run: a cut last line is then the reader's to judge)."""
        if not file.is_file():
            return []
        with file.open("rb") as handle:
            handle.seek(self.offset)
            data = handle.read()
        end = len(data) if to_the_end else data.rfind(b"\n") + 1
        found = []
        for raw in data[:end].split(b"\n"):
            if raw.strip():
                found.append((self.lines + 1, raw))
            self.lines += 1
        self.lines -= 1  # the split's last part is what follows the last newline (empty or cut)
        self.offset += end
        return found


@dataclass
class RunReader:
    path: Path
    sources: Sources
    manifest: dict[str, Any] = field(default_factory=dict)
    records: dict[Key, ResultRecord] = field(default_factory=dict)
    """Summaries, in the order results finished (a superseded one moved to the end)."""
    pages: dict[Key, bytes] = field(default_factory=dict)
    _full: dict[Key, ResultRecord] = field(default_factory=dict)
    """Results read but not yet paired with a trajectory (full records: their page needs the values)."""
    _waiting: dict[Key, bytes] = field(default_factory=dict)
    """Trajectories read before their result line, the latest per result."""
    _results: _Tail = field(default_factory=_Tail)
    _traces: dict[str, _Tail] = field(default_factory=dict)

    def update(self, *, to_the_end: bool = False) -> None:
        """Read what was appended since the last update; ``to_the_end``: the run is not being
        written any more (a from-scratch report), so a last line without its newline is read too."""
        self.manifest = read_manifest(self.path)
        arrived = self._read_results(to_the_end)
        paired: set[Key] = set()
        for key in arrived & self._waiting.keys():  # a trajectory that came before its result line
            entry = json.loads(self._waiting.pop(key))
            self.pages[key] = encoded_page(task_detail(self._full[key], entry, self.sources.tasks.get(key[0])))
            paired.add(key)
        folder = self.path / TRACES
        for file in sorted(folder.glob("*.jsonl")) if folder.is_dir() else []:
            tail = self._traces.setdefault(file.name, _Tail())
            lines = tail.new_lines(file, to_the_end=to_the_end)
            for index, (number, raw) in enumerate(lines):
                entry = _trace_entry(file, number, raw, last=index == len(lines) - 1 and _at_end(file, tail.offset))
                if entry is None or not isinstance(entry.get("task_id"), str):
                    continue
                key = (entry["task_id"], int(entry.get("trial") or 0))
                record = self._full.get(key)
                if record is not None:  # its latest result: a later trajectory of it replaces this page
                    self.pages[key] = encoded_page(task_detail(record, entry, self.sources.tasks.get(key[0])))
                    paired.add(key)
                else:  # its result line is not there yet (kept as read: a few kilobytes)
                    self._waiting[key] = raw
        for key in paired:
            del self._full[key]
        for key in arrived - paired:  # no trajectory yet (or none at all): a page without it
            record = self._full[key]
            self.pages[key] = encoded_page(task_detail(record, None, self.sources.tasks.get(key[0])))

    def _read_results(self, to_the_end: bool) -> set[Key]:
        file = self.path / RESULTS
        lines = self._results.new_lines(file, to_the_end=to_the_end)
        arrived: set[Key] = set()
        for index, (number, raw) in enumerate(lines):
            try:
                record = decode_record(raw.decode("utf-8"))
            except (ValidationError, UnicodeDecodeError) as exc:
                if index == len(lines) - 1 and _at_end(file, self._results.offset):
                    continue  # cut by a kill: nothing follows it
                reason = exc.errors()[0]["msg"] if isinstance(exc, ValidationError) else "not UTF-8"
                raise RunDirError(f"{file}:{number}: not a result record: {reason}") from None
            self.records.pop(record.key, None)  # re-inserted: the order results finished in
            self.records[record.key] = summary_of(record)
            self._full[record.key] = record
            arrived.add(record.key)
        return arrived

    def saved(self) -> SavedRun:
        return SavedRun(path=self.path, manifest=self.manifest, records=list(self.records.values()))

    def report_run(self, pages: Pages) -> ReportRun:
        """The run for :func:`~pytest_crmbench.results.html.render`, its pages added to ``pages``
        in the task table's order."""
        numbers = {key: pages.add_encoded(zlib.decompress(self.pages[key])) for key in sorted(self.records)}
        return ReportRun(self.saved(), numbers)


def _at_end(file: Path, offset: int) -> bool:
    """Whether nothing but blank space follows ``offset`` in ``file`` (the last line may be cut)."""
    with file.open("rb") as handle:
        handle.seek(offset)
        return not handle.read().strip()


def _trace_entry(file: Path, number: int, raw: bytes, *, last: bool) -> dict[str, Any] | None:
    try:
        entry = json.loads(raw.decode("utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError):
        if last:
            return None  # truncated by a kill: nothing follows it
        raise RunDirError(f"{file}:{number}: invalid JSON") from None
    except (ValueError, RecursionError) as exc:  # a 10,000-digit number, nesting 100,000 deep
        detail = "nested too deeply" if isinstance(exc, RecursionError) else str(exc).splitlines()[0][:200]
        raise RunDirError(f"{file}:{number}: unreadable trace entry: {detail}") from None
    return entry if isinstance(entry, dict) else None
