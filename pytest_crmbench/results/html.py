"""``crmbench report``: one self-contained HTML file for one or more runs (issue 13).

The page needs no network when it is opened: CSS, script and figures (SVG) are inline. What a
reader sees first is rendered here, as HTML that works without a script: the runs, the
leaderboard with 95 % intervals, the figures and, for two runs, the paired comparison. The task
table and the per-task pages are drawn by the page's script from embedded JSON: the table index
is parsed on load, the task details only when a task is first opened, so a release-size run
(555 tasks x 3 trials) opens fast.
"""

from __future__ import annotations

import base64
import dataclasses
import gzip
import html
import io
import json
import re
from collections.abc import Sequence
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any

from pytest_crmbench import __version__
from pytest_crmbench.results import figures, paired, stats, tables
from pytest_crmbench.results.leaderboard import Count, Leaderboard, RunInput, build, by_round_mean
from pytest_crmbench.results.reportstatus import ReportStatus, of_manifests
from pytest_crmbench.results.runreader import ReportRun, RunReader
from pytest_crmbench.results.sources import Sources, load_sources, task_files_in
from pytest_crmbench.results.taskview import index_row

REPORT_HTML = "report.html"
WIDE_CLASS = ' class="wide"'
_PLACEHOLDER = re.compile(r"\{\{(\w+)\}\}")


class TaskPages:
    """The task pages' data of one report, gzipped as each page is made.

    Held as Python objects, a release run's pages were the report's largest cost in memory (about
    10 KiB per result, on top of the records); packed as they come they take a few hundred bytes
    each, so drawing the report of a long run stays within bounds. Pages are numbered in the order
    they are added; the task table's rows point at their page by number. ``mtime=0`` keeps the
    bytes the same for the same runs.
    """

    def __init__(self) -> None:
        self._buffer = io.BytesIO()
        self._gzip = gzip.GzipFile(fileobj=self._buffer, mode="wb", compresslevel=6, mtime=0)
        self._gzip.write(b"[")
        self.count = 0

    def add(self, page: dict[str, Any]) -> int:
        return self.add_encoded(
            json.dumps(page, ensure_ascii=False, separators=(",", ":"), default=str).encode("utf-8")
        )

    def add_encoded(self, page: bytes) -> int:
        """A page already encoded as compact JSON (:func:`~pytest_crmbench.results.runreader.encoded_page`)."""
        if self.count:
            self._gzip.write(b",")
        self._gzip.write(page)
        self.count += 1
        return self.count - 1

    def packed(self) -> str:
        """The JSON array of every page, gzipped and base64-encoded (the page unpacks it on first use)."""
        if not self._gzip.closed:
            self._gzip.write(b"]")
            self._gzip.close()
        return base64.b64encode(self._buffer.getvalue()).decode("ascii")


def read_report_run(path: Path, sources: Sources, pages: TaskPages) -> ReportRun:
    """The run at ``path`` read from scratch (:class:`~pytest_crmbench.results.runreader.RunReader`,
    which also keeps a growing run's report up to date): each trajectory is turned into its page as
    it is read and dropped (a release run's traces are hundreds of megabytes, mostly full CRM
    states). A resumed run's later entry for a result replaces the earlier one, like its record."""
    reader = RunReader(path, sources)
    reader.update(to_the_end=True)
    return reader.report_run(pages)


def sources_for(tasks: Path | None, root: Path | None = None) -> Sources:
    """The task files of ``tasks`` (a folder or one file); none when it does not exist."""
    if tasks is None or not tasks.exists():
        return Sources({}, [f"{tasks}: no task files found (user briefs and YAML lines not shown)"] if tasks else [])
    files = task_files_in(tasks) if tasks.is_dir() else [tasks]
    return load_sources(files, root)


def write_report(
    paths: Sequence[Path],
    output: Path,
    sources: Sources,
    status: ReportStatus | None = None,
    readers: Sequence[RunReader] | None = None,
) -> Path:
    """Read the runs at ``paths`` and write their report to ``output`` atomically: a reader (or a
    browser reloading the page of a run in progress) sees the old file or the new one, never half.
    ``status``: what the page says about the run (default: read from the runs' manifests).
    ``readers``: one per path, kept by the caller between rewrites of a growing run (only the lines
    appended since are read); the page is the one a from-scratch read draws."""
    pages = TaskPages()
    if readers is None:
        runs = [read_report_run(path, sources, pages) for path in paths]
    else:
        for reader in readers:
            reader.update()
        runs = [reader.report_run(pages) for reader in readers]
    text = render(runs, sources, pages, status=status)
    output.parent.mkdir(parents=True, exist_ok=True)
    temporary = output.with_name(output.name + ".tmp")
    try:
        temporary.write_text(text, encoding="utf-8")
        temporary.replace(output)
    finally:
        temporary.unlink(missing_ok=True)  # a failed or interrupted write leaves no stray file
    return output


def render(
    runs: Sequence[ReportRun],
    sources: Sources,
    pages: TaskPages,
    generated: datetime | None = None,
    status: ReportStatus | None = None,
) -> str:
    board = build([RunInput(r.name, r.saved.system, r.saved.created_at, r.saved.records) for r in runs])
    index = _task_index(runs)
    stamp = (generated or datetime.now(UTC)).strftime("%Y-%m-%d %H:%M UTC")
    if status is None:
        status = of_manifests([r.saved.manifest for r in runs], len(runs[-1].saved.records) if runs else 0)
    elif status.results is None:
        status = dataclasses.replace(status, results=len(runs[-1].saved.records) if runs else 0)
    body = [
        _header(runs, sources, stamp, status),
        _leaderboard(board),
        _figures(board),
        _comparison(runs) if len(runs) == 2 else "",
        _tasks_section(),
    ]
    values = {
        "title": html.escape(_title_prefix(status) + "crmbench report: " + ", ".join(r.name for r in runs)),
        "css": _asset("report.css"),
        "js": _asset("report.js"),
        "body": "\n".join(part for part in body if part),
        "index": _script_json(index),
        "details": pages.packed(),
    }
    return _PLACEHOLDER.sub(lambda m: values[m.group(1)], _asset("report.html"))


def _title_prefix(status: ReportStatus) -> str:
    if status.state == "running":
        return f"(in progress {status.results}/{status.expected or '?'}) "
    return "" if status.state == "final" else "(not final) "


def _asset(name: str) -> str:
    return resources.files("pytest_crmbench.results").joinpath("templates", name).read_text(encoding="utf-8")


def _script_json(value: Any) -> str:
    """JSON safe inside ``<script>``: ``</script>`` or ``<!--`` in an agent's text cannot end it."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    return text.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def _task_index(runs: Sequence[ReportRun]) -> dict[str, Any]:
    rows = [
        index_row(record, number, run.pages[record.key])
        for number, run in enumerate(runs)
        for record in sorted(run.saved.records, key=lambda r: (r.task_id, r.trial))
    ]
    return {
        "runs": [{"name": r.name, "system": r.saved.system} for r in runs],
        "columns": [
            "run",
            "task",
            "trial",
            "domain",
            "difficulty",
            "capabilities",
            "outcome",
            "label",
            "failed",
            "checks",
            "turns",
            "tools",
            "detail",
        ],
        "rows": rows,
    }


# -- server-rendered sections -------------------------------------------------------------------


def _e(value: Any) -> str:
    return html.escape(str(value))


def _pct(value: Any) -> str:
    return tables.pct(value)


def _ci_bar(interval: stats.Interval | None, value: Any) -> str:
    """The interval drawn as a bar on a 0-100 % track, the estimate as a tick."""
    if interval is None or value is None:
        return ""
    low, width, tick = interval.low * 100, (interval.high - interval.low) * 100, float(value) * 100
    title = f"95 % interval {interval.low * 100:.1f}-{interval.high * 100:.1f} % ({interval.method})"
    return (
        f'<span class="ci" title="{_e(title)}"><span style="left:{low:.2f}%;width:{width:.2f}%"></span>'
        f'<i style="left:{tick:.2f}%"></i></span>'
    )


def _rate_cell(count: Count) -> str:
    if not count.total:
        return '<td class="num muted">n/a</td>'
    span = tables.span(count.interval)
    return (
        f'<td class="num">{_pct(count.rate)} <small>({count.successes}/{count.total})</small> '
        f'<small class="muted">{_e(span)}</small></td>'
    )


def _breakable(text: str) -> str:
    """Escaped, with a line-break opportunity after each ``_`` and ``/`` (a header such as
    ``customer_support`` may wrap where a browser would not break it)."""
    return re.sub(r"([_/])", r"\1<wbr>", _e(text))


def _table(header: Sequence[str], rows: Sequence[str], cls: str = "") -> str:
    head = "".join(f"<th>{_breakable(h)}</th>" for h in header)
    return f'<div class="scroll"><table class="{cls}"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table></div>'


def _header(runs: Sequence[ReportRun], sources: Sources, stamp: str, status: ReportStatus) -> str:
    rows = []
    for run in runs:
        manifest = run.saved.manifest
        models = manifest.get("models") or {}
        task_set = manifest.get("task_set") or {}
        judge = (manifest.get("judge") or {}).get("model") or "none"
        rows.append(
            "<tr>"
            f"<td><code>{_e(run.name)}</code></td><td>{_e(run.saved.system)}</td>"
            f"<td>{_e(manifest.get('agent', ''))}</td><td>{_e(models.get('user') or 'scripted')}</td>"
            f"<td>{_e(judge)}</td><td>{_e(run.saved.created_at)}</td><td class='num'>{len(run.saved.records)}</td>"
            f"<td><code>{_e(str(task_set.get('hash') or '')[:12])}</code></td>"
            "</tr>"
        )
    notes = "".join(f'<p class="note">{_e(p)}</p>' for p in [*sources.problems, *_sample_notes(runs)])
    return (
        '<header class="top"><h1>crmbench report</h1>'
        f'<p class="muted">Generated {_e(stamp)} by crmbench {_e(__version__)}. '
        "Every rate carries its 95 % interval in brackets. Strict success: every declared check of a task "
        "passed; infra and error results are not scored and are counted apart.</p>"
        f'<p id="status" class="status {status.state}" role="status">{_e(status.sentence())}</p>'
        '<nav><a href="#leaderboard">Leaderboard</a><a href="#figures">Figures</a>'
        + ('<a href="#comparison">Comparison</a>' if len(runs) == 2 else "")
        + '<a href="#tasks">Tasks</a></nav>'
        + _table(["Run", "System", "Agent", "User simulator", "Judge", "Started", "Results", "Task set"], rows, "runs")
        + notes
        + "</header>"
    )


def _sample_notes(runs: Sequence[ReportRun]) -> list[str]:
    """A run of ``--crm-sample`` says so: its figures describe a subset of the selected tasks."""
    notes = []
    for run in runs:
        sample = run.saved.manifest.get("sample")
        if isinstance(sample, dict):
            notes.append(
                f"{run.name} is a sample: {len(sample.get('tasks') or [])} task(s) drawn with --crm-sample="
                f"{sample.get('n')} (seed {sample.get('seed')}), stratified by domain and difficulty."
            )
    return notes


def _leaderboard(board: Leaderboard) -> str:
    if not board.systems:
        return '<section id="leaderboard"><h2>Leaderboard</h2><p>No results.</p></section>'
    shared = stats.tied(board.ranks)
    rows = []
    for index, system in enumerate(board.systems):
        first = system.first
        usage = first.usage["agent"]
        rows.append(
            "<tr>"
            f"<td>{_e(tables.rank_label(board.ranks[index], shared[index]))}</td>"
            f"<th scope='row'>{_e(system.system)}</th>"
            f"<td class='num strong'>{_pct(first.accuracy)}</td>"
            f"<td class='num'>{_e(tables.span(first.overall.interval) or 'n/a')}</td>"
            f"<td>{_ci_bar(first.overall.interval, first.accuracy)}</td>"
            f"<td class='num'>{first.successes}/{first.scored}</td>"
            f"<td class='num'>{_pct(first.macro)}</td>"
            f"<td class='num'>{first.not_judged}</td><td class='num'>{first.infra}</td>"
            f"<td class='num'>{first.errors}</td>"
            f"<td class='num'>{_e(tables.usd(usage.cost_usd))}</td>"
            f"<td class='num'>{_e(tables.usd(first.cost_per_success))}</td>"
            "</tr>"
        )
    header = ["Rank", "System", "Strict acc.", "95% CI", "", "Passes/N", "Domain macro", "Not judged", "Infra"]
    parts = [
        '<section id="leaderboard"><h2>Leaderboard</h2>',
        "<p>Systems ranked by strict accuracy on their first round (ties share a rank, shown <code>2=</code>).</p>",
        _table([*header, "Errors", "Agent cost", "Cost/success"], rows, "board"),
        _separations(board),
        _rounds(board),
        _usage(board),
        "</section>",
    ]
    return "".join(parts)


def _separations(board: Leaderboard) -> str:
    pairs = board.separations()
    if not pairs:
        return ""
    items = "".join(f"<li class='{'overlap' if p.overlap else 'apart'}'>{_e(p.sentence())}</li>" for p in pairs)
    return f'<h3>Are the differences real?</h3><ul class="separations">{items}</ul>'


def _rounds(board: Leaderboard) -> str:
    """Table 9 as the spec defines it: systems ordered by the mean of their rounds (not by the first
    round), each round's count, the mean with its interval, std, pass^k and the flip rate; then the
    pairwise Spearman correlations between rounds and figure 16's ranks on each measure."""
    repeated = by_round_mean(s for s in board.systems if len(s.rounds) > 1)
    if not repeated:
        return ""
    width = max(len(s.rounds) for s in repeated)
    rows = []
    for system in repeated:
        cells = [_rate_cell(s.overall) for s in system.summaries]
        cells += ['<td class="num muted">-</td>'] * (width - len(cells))
        std = "n/a" if system.std is None else f"{system.std * 100:.2f}"
        rows.append(
            f"<tr><th scope='row'>{_e(system.system)}</th>{''.join(cells)}"
            f"<td class='num'>{_pct(system.mean)} <small class='muted'>{_e(tables.span(system.mean_interval))}</small></td>"
            f"<td>{_ci_bar(system.mean_interval, system.mean)}</td><td class='num'>{std}</td>"
            f"<td class='num'>{_pct(system.pass_k)} <small>(k={len(system.rounds)})</small></td>"
            f"<td class='num'>{_pct(system.flip_rate)}</td></tr>"
        )
    domain_rows = []
    for system in repeated:
        for domain in board.domains:
            figures_ = system.reliability(domain)
            if figures_.mean is None:
                continue
            domain_rows.append(
                f"<tr><th scope='row'>{_e(system.system)}</th><td>{_e(domain)}</td>"
                f"<td class='num'>{_pct(figures_.mean)} <small class='muted'>{_e(tables.span(figures_.interval))}</small></td>"
                f"<td class='num'>{_pct(figures_.pass_k)}</td><td class='num'>{_pct(figures_.flip_rate)}</td></tr>"
            )
    spearman = "".join(f"<li>{_e(line)}</li>" for line in tables.spearman_sentences(board))
    header = ["System", *(f"Round {i + 1}" for i in range(width)), "Mean [95% CI]", "", "Std (pp)", "pass^k"]
    return (
        "<h3 id='rounds'>Repeated rounds (table 9)</h3><p>Ordered by the mean of the round rates (the equal-weight "
        "mean, not pooled attempts), with a 95 % interval from a bootstrap over tasks (a task's trials are not "
        "independent); std: sample standard deviation of the round rates, in points; pass^k: share of tasks that "
        "succeed in every round; flip rate: share of tasks whose outcome differs between rounds.</p>"
        + _table([*header, "Flip rate"], rows, "rounds")
        + (f"<ul class='spearman'>{spearman}</ul>" if spearman else "")
        + _metric_ranks(board)
        + "<h3>Repeated rounds by domain</h3>"
        + _table(["System", "Domain", "Mean [95% CI]", "pass^k", "Flip rate"], domain_rows)
    )


def _metric_ranks(board: Leaderboard) -> str:
    """Figure 16 as a table: each system's rank on every higher-is-better measure (first round,
    competition ranking), shown with table 9 since the rank figure then shows the rounds."""
    if len(board.systems) < 2:
        return ""
    ranks = board.metric_ranks()
    shared = {metric: stats.tied(values) for metric, values in ranks.items()}
    rows = [
        f"<tr><th scope='row'>{_e(system.system)}</th>"
        + "".join(f"<td class='num'>{_e(tables.rank_label(ranks[m][i], shared[m][i]))}</td>" for m in ranks)
        + "</tr>"
        for i, system in enumerate(board.systems)
    ]
    return (
        "<h3 id='measure-ranks'>Rank on each measure (figure 16)</h3><p>Competition ranking (1 = best; ties share "
        "a rank, shown <code>2=</code>) on strict accuracy, domain macro, each difficulty and each domain, from the "
        "first round.</p>" + _table(["System", *ranks], rows, "measure-ranks")
    )


def _usage(board: Leaderboard) -> str:
    rows = []
    for system in board.systems:
        for role, used in system.first.usage.items():
            if used.calls:
                rows.append(
                    f"<tr><th scope='row'>{_e(system.system)}</th><td>{_e(role)}</td><td class='num'>{used.calls}</td>"
                    f"<td class='num'>{used.prompt_tokens:,}</td><td class='num'>{used.completion_tokens:,}</td>"
                    f"<td class='num'>{_e(tables.usd(used.cost_usd))}</td></tr>"
                )
    if not rows:
        return (
            "<h3>Model usage by role</h3><p class='muted'>No model usage recorded (gold, null or scripted agents).</p>"
        )
    return "<h3>Model usage by role</h3>" + _table(
        ["System", "Role", "Calls", "Prompt tokens", "Completion tokens", "Cost (cache-neutral)"], rows
    )


def _figures(board: Leaderboard) -> str:
    if not board.systems:
        return ""
    try:
        drawn = figures.draw(board)
    except figures.MatplotlibMissing as exc:
        return f'<section id="figures"><h2>Figures</h2><p class="note">{_e(exc)}</p></section>'
    items = "".join(
        f'<figure id="figure-{_e(f.key)}"{WIDE_CLASS if f.wide else ""}><h3>{_e(f.title)}</h3>{f.svg}'
        f"<figcaption>{_e(f.caption)}</figcaption></figure>"
        for f in drawn
    )
    return f'<section id="figures"><h2>Figures</h2><div class="figures">{items}</div></section>'


def _comparison(runs: Sequence[ReportRun]) -> str:
    before, now = runs
    comparison = paired.compare(now.saved.records, before.saved.records)
    title = f"{_e(now.name)} against {_e(before.name)}"
    if comparison is None:
        return f'<section id="comparison"><h2>Comparison: {title}</h2><p>No task was scored in both runs.</p></section>'
    rows = []
    for name, group in [("overall", comparison), *paired.by_domain(comparison).items()]:
        (s1, n1), (s0, n0) = group.now, group.before
        rows.append(
            f"<tr><th scope='row'>{_e(name)}</th><td class='num'>{s0}/{n0}</td><td class='num'>{s1}/{n1}</td>"
            f"<td class='num'>{group.difference * 100:+.2f} pp</td>"
            f"<td class='num'>[{group.interval.low * 100:+.1f}, {group.interval.high * 100:+.1f}]</td>"
            f"<td>{_e(group.test)}</td><td class='num'>{_e(paired.format_p(group.p_value))}</td>"
            f"<td class='num'>{len(group.worse)}</td><td class='num'>{len(group.better)}</td></tr>"
        )
    verdict = (
        "The difference is significant at the 5 % level."
        if comparison.significant(0.05)
        else "The difference is not significant at the 5 % level: it is within what chance alone produces on "
        "these tasks."
    )
    flips = "".join(
        f"<h3>{_e(word)} ({len(pairs_)})</h3>" + _flip_list(pairs_, word)
        for word, pairs_ in (("Worse now", comparison.worse), ("Better now", comparison.better))
    )
    return (
        f'<section id="comparison"><h2>Comparison: {title}</h2>'
        f"<p>Paired over the {len(comparison.pairs)} task(s) scored in both runs (the first run given is the "
        f"baseline). {_e(verdict)}</p>"
        + _table(["", "Baseline", "Now", "Difference", "95% CI", "Test", "p", "Worse", "Better"], rows, "comparison")
        + flips
        + "</section>"
    )


def _flip_list(pairs_: Sequence[paired.TaskPair], word: str) -> str:
    if not pairs_:
        return "<p class='muted'>none</p>"
    items = "".join(
        f"<li><a href='#task={_e(p.task_id)}' data-task='{_e(p.task_id)}'><code>{_e(p.task_id)}</code></a> "
        f"<span class='muted'>{_e(p.domain)}</span> {p.before[0]}/{p.before[1]} → {p.now[0]}/{p.now[1]}</li>"
        for p in pairs_
    )
    return f'<ul class="flips {"worse" if word.startswith("Worse") else "better"}">{items}</ul>'


def _tasks_section() -> str:
    return (
        '<section id="tasks"><h2>Tasks</h2>'
        '<div id="filters" class="filters" role="search"></div>'
        '<p id="task-count" class="muted" aria-live="polite"></p>'
        '<div class="scroll"><table id="task-table" class="tasks"><thead></thead><tbody></tbody></table></div>'
        '<p><button id="show-all" type="button" hidden>Show all</button></p>'
        '<noscript><p class="note">The task table and task pages need JavaScript.</p></noscript>'
        '</section><section id="task-view" hidden aria-live="polite"></section>'
    )
