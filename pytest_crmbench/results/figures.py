"""The leaderboard's figures (spec §B, §C) drawn with matplotlib as inline SVG for the HTML report.

matplotlib is optional (the ``report`` extra) and imported only when a figure is drawn, so neither
pytest's start-up nor a run without a report pays for it. Figures are built on bare
:class:`~matplotlib.figure.Figure` objects (no pyplot, no global state) and saved with text kept
as text, a fixed hash salt and no date, so the same leaderboard gives the same SVG bytes.
"""

from __future__ import annotations

import io
import re
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from pytest_crmbench.core.families import FAMILIES
from pytest_crmbench.results.leaderboard import COMPONENT_COLUMNS, Leaderboard, SystemResult, label_columns

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure as MplFigure

PALETTE = ["#3b6ea8", "#e0893b", "#4f9d69", "#c4504f", "#8c6bb1", "#8c7a5b", "#d07cb1", "#7f7f7f", "#b5b53c", "#45a6b8"]
LABEL_COLOURS = {
    "execution": "#7f7f7f",
    **{family.label: family.colour for family in FAMILIES},
    "not_judged": "#c9c9c9",
}
"""Figure 13's sectors: each family's own colour, and the two labels that are not families."""
INK, MUTED, GRID = "#1f2937", "#6b7280", "#e5e7eb"
WIDTH = 7.0


@dataclass(frozen=True)
class Figure:
    key: str
    title: str
    caption: str
    svg: str
    wide: bool = False
    """Drawn for the page's full width (a heat map of many domains)."""


class MatplotlibMissing(RuntimeError):
    """The ``report`` extra is not installed: the report is written without figures."""


def _matplotlib() -> Any:
    try:
        import matplotlib
    except ImportError:
        raise MatplotlibMissing("figures need matplotlib: pip install 'crmbench[report]'") from None
    matplotlib.rcParams.update(
        {
            "svg.fonttype": "none",
            "font.family": "DejaVu Sans",
            "font.size": 10,
            "axes.edgecolor": GRID,
            "axes.labelcolor": INK,
            "axes.titlesize": 10,
            "xtick.color": MUTED,
            "ytick.color": MUTED,
            "axes.spines.top": False,
            "axes.spines.right": False,
        }
    )
    return matplotlib


def _new(height: float, *, wide: bool = False) -> MplFigure:
    from matplotlib.figure import Figure as MplFigure

    return MplFigure(figsize=(WIDTH * (WIDE if wide else 1), height), layout="constrained")


WIDE = 1.7
"""How much wider than the others a wide figure is drawn (it spans both columns of the page)."""


_ID = re.compile(r'(\bid="|url\(#|href="#)')


def _svg(figure: MplFigure, key: str) -> str:
    import matplotlib

    # Clip-path ids are hashes salted with this: fixed, so the same figure gives the same bytes.
    with matplotlib.rc_context({"svg.hashsalt": "crmbench"}):
        buffer = io.StringIO()
        figure.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None})
    text = re.sub(r"^.*?(?=<svg)", "", buffer.getvalue(), flags=re.S).strip()
    # Every figure names its groups figure_1, axes_1 ...: prefixed with the figure's key, ids
    # (and the references to them) stay unique when the figures share one page.
    return _ID.sub(lambda m: f"{m.group(1)}{key}-", text)


def _percent_axis(axis: Any) -> None:
    from matplotlib.ticker import PercentFormatter

    axis.set_major_formatter(PercentFormatter(1.0, decimals=0))


def _names(leaderboard: Leaderboard) -> list[str]:
    return [s.system for s in leaderboard.systems]


def _height(rows: int, per_row: float = 0.38, base: float = 1.2) -> float:
    return min(14.0, base + per_row * max(rows, 1))


def wrap(name: str, width: int = 26) -> str:
    """A system's label in lines of at most ``width`` characters, broken after a ``/``
    (``graph/openrouter/meta-llama/`` over ``llama-3.3-70b-instruct``): long names took half a
    figure's width for their tick labels. A part longer than ``width`` stays whole."""
    lines: list[str] = []
    for part in re.split(r"(?<=/)", name):
        if lines and len(lines[-1]) + len(part) <= width:
            lines[-1] += part
        else:
            lines.append(part)
    return "\n".join(line for line in lines if line)


def _lines(names: Sequence[str]) -> int:
    return sum(name.count("\n") + 1 for name in names)


def _legend(figure: MplFigure, handles: Sequence[Any], labels: Sequence[str]) -> None:
    """A legend below the axes, outside them: the layout makes room for it, so it covers neither the
    x-axis title nor the plot (an axes legend anchored below them once overlapped the title), in as
    many columns as fit the figure's width."""
    widest = max((len(line) for label in labels for line in label.split("\n")), default=1)
    columns = max(1, min(len(labels), int(WIDTH * 72 * 0.9 // ((widest + 4) * 8 * 0.62 + 14))))
    figure.legend(handles, labels, loc="outside lower center", ncols=columns, frameon=False, fontsize=8)


def _tick_labels(axes: Axes, positions: Sequence[float], labels: Sequence[str], *, rotate: bool) -> None:
    """x tick labels, turned 30 degrees (anchored at their end, under their tick) when they are many
    or long, else centred under their tick (a right-aligned unturned label sat left of it)."""
    if rotate:
        axes.set_xticks(positions, labels, rotation=30, ha="right", rotation_mode="anchor")
    else:
        axes.set_xticks(positions, labels)


def accuracy(leaderboard: Leaderboard) -> MplFigure:
    systems = leaderboard.systems[::-1]  # the best at the top
    figure = _new(_height(_lines([wrap(s.system) for s in systems])))
    axes = figure.add_subplot()
    for row, system in enumerate(systems):
        overall = system.first.overall
        colour = PALETTE[(len(systems) - 1 - row) % len(PALETTE)]
        if overall.rate is None or overall.interval is None:
            axes.text(0.0, row, "  nothing scored", va="center", color=MUTED)
            continue
        low, high, value = overall.interval.low, overall.interval.high, float(overall.rate)
        axes.plot([low, high], [row, row], color=colour, linewidth=2.5, solid_capstyle="butt")
        axes.plot([value], [row], "o", color=colour, markersize=7)
        axes.annotate(
            f"{value * 100:.1f} %  ({overall.successes}/{overall.total})",
            (high, row),
            xytext=(6, 0),
            textcoords="offset points",
            va="center",
            color=INK,
        )
    axes.set_yticks(range(len(systems)), [wrap(s.system) for s in systems])
    axes.set_xlim(0, 1.18)
    axes.set_xticks([0, 0.25, 0.5, 0.75, 1.0])
    _percent_axis(axes.xaxis)
    axes.set_xlabel("strict accuracy (dot) and its 95 % interval (bar)")
    axes.grid(axis="x", color=GRID)
    return figure


def _heatmap(
    axes: Axes, rows: Sequence[str], columns: Sequence[str], cell: Callable[[int, int], tuple[float | None, str]]
) -> Any:
    import numpy as np

    values = np.full((len(rows), len(columns)), np.nan)
    for r in range(len(rows)):
        for c in range(len(columns)):
            value, text = cell(r, c)
            if value is not None:
                values[r, c] = value
            colour = "white" if value is not None and value < 0.55 else INK  # viridis is dark below the middle
            axes.text(c, r, text, ha="center", va="center", fontsize=8, color=colour if value is not None else MUTED)
    image = axes.imshow(values, cmap="viridis", vmin=0, vmax=1, aspect="auto")
    _tick_labels(axes, range(len(columns)), columns, rotate=len(columns) > 5)
    axes.set_yticks(range(len(rows)), [wrap(row) for row in rows])
    axes.tick_params(length=0)
    for spine in axes.spines.values():
        spine.set_visible(False)
    return image


WIDE_COLUMNS = 6
"""A heat map of more domains than this takes the page's full width (its cells were too narrow)."""


def by_domain(leaderboard: Leaderboard) -> MplFigure:
    domains, systems = leaderboard.domains, leaderboard.systems
    figure = _new(_height(_lines([wrap(s.system) for s in systems]), 0.42, 1.8), wide=len(domains) > WIDE_COLUMNS)
    axes = figure.add_subplot()

    def cell(r: int, c: int) -> tuple[float | None, str]:
        count = systems[r].first.by_domain.get(domains[c]) if domains else None
        if count is None or count.rate is None:
            return None, "n/a"
        return float(count.rate), f"{float(count.rate) * 100:.0f} %\n{count.successes}/{count.total}"

    image = _heatmap(axes, _names(leaderboard), domains or ["(nothing scored)"], cell)
    bar = figure.colorbar(image, ax=axes, shrink=0.8)
    _percent_axis(bar.ax.yaxis)
    return figure


def components(leaderboard: Leaderboard) -> MplFigure:
    families = [f for f in COMPONENT_COLUMNS if any(f in s.first.components for s in leaderboard.systems)]
    systems = leaderboard.systems
    figure = _new(_height(_lines([wrap(s.system) for s in systems]), 0.42, 1.8))
    axes = figure.add_subplot()

    def cell(r: int, c: int) -> tuple[float | None, str]:
        count = systems[r].first.components.get(families[c]) if families else None
        if count is None or count.rate is None:
            return None, "not declared"
        return float(count.rate), f"{float(count.rate) * 100:.0f} %\n{count.successes}/{count.total}"

    image = _heatmap(axes, _names(leaderboard), families or ["(no checks)"], cell)
    bar = figure.colorbar(image, ax=axes, shrink=0.8)
    _percent_axis(bar.ax.yaxis)
    return figure


def _grouped_bars(
    figure: MplFigure,
    axes: Axes,
    groups: Sequence[str],
    series: Sequence[tuple[str, Sequence[tuple[float | None, float, float]]]],
) -> None:
    """Bars with 95 % interval whiskers: ``series`` is (name, per group (rate, low, high))."""
    width = 0.8 / max(len(series), 1)
    for index, (name, values) in enumerate(series):
        xs = [g + (index - (len(series) - 1) / 2) * width for g in range(len(groups))]
        heights = [v[0] or 0.0 for v in values]
        errors = [
            [max(0.0, (v[0] or 0) - v[1]) for v in values],
            [max(0.0, v[2] - (v[0] or 0)) for v in values],
        ]
        axes.bar(xs, heights, width * 0.92, label=name, color=PALETTE[index % len(PALETTE)])
        present = [i for i, v in enumerate(values) if v[0] is not None]
        axes.errorbar(
            [xs[i] for i in present],
            [heights[i] for i in present],
            yerr=[[errors[0][i] for i in present], [errors[1][i] for i in present]],
            fmt="none",
            ecolor=INK,
            elinewidth=0.8,
            capsize=2,
        )
    _tick_labels(axes, range(len(groups)), groups, rotate=False)
    axes.set_ylim(0, 1.05)
    _percent_axis(axes.yaxis)
    axes.grid(axis="y", color=GRID)
    axes.set_axisbelow(True)
    if len(series) > 1:
        handles, _ = axes.get_legend_handles_labels()
        _legend(figure, handles, [wrap(name, 40) for name, _ in series])


def _triple(count: Any) -> tuple[float | None, float, float]:
    if count is None or count.rate is None or count.interval is None:
        return (None, 0.0, 0.0)
    return (float(count.rate), count.interval.low, count.interval.high)


def _bars_height(leaderboard: Leaderboard) -> float:
    """Room for the bars and for the legend's rows under them."""
    return 3.0 + 0.16 * len(leaderboard.systems)


def by_difficulty(leaderboard: Leaderboard) -> MplFigure:
    figure = _new(_bars_height(leaderboard))
    axes = figure.add_subplot()
    series = [
        (s.system, [_triple(s.first.by_difficulty.get(d)) for d in leaderboard.difficulties])
        for s in leaderboard.systems
    ]
    _grouped_bars(figure, axes, leaderboard.difficulties or ["(none)"], series)
    axes.set_ylabel("strict success")
    return figure


def policy_split(leaderboard: Leaderboard) -> MplFigure:
    figure = _new(_bars_height(leaderboard))
    axes = figure.add_subplot()
    groups = ["no rules to break", "with rules to break", "rules kept\n(whatever else)"]
    series = [
        (s.system, [_triple(s.first.positive), _triple(s.first.constrained), _triple(s.first.compliance)])
        for s in leaderboard.systems
    ]
    _grouped_bars(figure, axes, groups, series)
    axes.set_ylabel("share of tasks")
    return figure


def failures(leaderboard: Leaderboard) -> MplFigure:
    from matplotlib.ticker import MaxNLocator

    labels = label_columns(leaderboard)
    systems = leaderboard.systems[::-1]
    names = [wrap(s.system) for s in systems]
    figure = _new(_height(_lines(names), 0.4, 2.0) + 0.2 * (len(labels) > 5))
    axes = figure.add_subplot()
    left = [0] * len(systems)
    segments = []
    for label in labels:
        counts = [s.first.labels.get(label, 0) for s in systems]
        bars = axes.barh(range(len(systems)), counts, left=left, color=LABEL_COLOURS.get(label, MUTED), label=label)
        segments.append((bars, counts))
        left = [a + b for a, b in zip(left, counts, strict=True)]
    axes.set_yticks(range(len(systems)), names)
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes.set_xlabel("unsuccessful tasks, by the first check family that failed")
    axes.grid(axis="x", color=GRID)
    axes.set_axisbelow(True)
    if labels:
        handles, shown = axes.get_legend_handles_labels()
        _legend(figure, handles, shown)
        _segment_counts(figure, axes, segments)
    else:
        axes.text(0.5, 0.5, "no unsuccessful task", transform=axes.transAxes, ha="center", color=MUTED)
    return figure


SEGMENT_FONT = 7


def _segment_counts(figure: MplFigure, axes: Axes, segments: Sequence[tuple[Any, list[int]]]) -> None:
    """Each segment's count in its middle, where it fits: the layout is computed first, so a narrow
    segment (one failure of fifty) gets no label rather than one over its neighbour's."""
    figure.draw_without_rendering()
    per_unit = abs(axes.transData.transform((1, 0))[0] - axes.transData.transform((0, 0))[0])
    char = SEGMENT_FONT * 0.62 * figure.dpi / 72  # a digit's width in DejaVu Sans, in pixels
    for bars, counts in segments:
        texts = [str(c) if c and c * per_unit >= len(str(c)) * char + 4 else "" for c in counts]
        axes.bar_label(bars, texts, label_type="center", fontsize=SEGMENT_FONT, color="white")


def cost(leaderboard: Leaderboard) -> MplFigure:
    figure = _new(3.6)
    axes = figure.add_subplot()
    priced = [(i, s) for i, s in enumerate(leaderboard.systems) if s.first.usage["agent"].cost_usd is not None]
    unpriced = [s.system for s in leaderboard.systems if s.first.usage["agent"].cost_usd is None]
    for index, system in priced:
        _cost_point(axes, system, PALETTE[index % len(PALETTE)])
    if priced:
        axes.set_xscale("log")
        axes.set_xlabel("agent cost per scored task, US$ (log scale; cache-neutral)")
    else:
        axes.set_xticks([])
        axes.text(0.5, 0.5, "no system has a known price", transform=axes.transAxes, ha="center", color=MUTED)
    axes.set_ylim(0, 1.05)
    _percent_axis(axes.yaxis)
    axes.set_ylabel("strict accuracy")
    axes.grid(color=GRID)
    axes.set_axisbelow(True)
    if unpriced:
        # A title, so the layout keeps room for it (a note at the figure's foot ran into the x-axis title).
        note = "not shown, no price: " + ", ".join(unpriced)
        axes.set_title(textwrap.fill(note, 110), loc="left", fontsize=7, color=MUTED)
    return figure


def _cost_point(axes: Axes, system: SystemResult, colour: str) -> None:
    first = system.first
    total = first.usage["agent"].cost_usd
    if total is None or not first.scored or first.accuracy is None:
        return
    per_task = float(total / Decimal(first.scored)) or 1e-9
    interval = first.overall.interval
    value = float(first.accuracy)
    low, high = (interval.low, interval.high) if interval else (value, value)
    axes.errorbar([per_task], [value], yerr=[[value - low], [high - value]], fmt="o", color=colour, capsize=3)
    axes.annotate(wrap(system.system), (per_task, value), xytext=(6, 4), textcoords="offset points", fontsize=8)


def ranks(leaderboard: Leaderboard) -> MplFigure:
    """Rank in each round (a bump chart); with one round per system, rank on each measure instead.
    A single system has no order to hold (its ranks were a flat line at 1): its value on each
    measure in each round instead."""
    if len(leaderboard.systems) == 1:
        return _one_system_measures(leaderboard.systems[0], leaderboard)
    names = [wrap(s.system, 22) for s in leaderboard.systems]
    figure = _new(max(3.0, _height(len(leaderboard.systems), 0.3, 2.4)))
    axes = figure.add_subplot()
    if leaderboard.max_rounds > 1:
        columns = [f"round {i + 1}" for i in range(leaderboard.max_rounds)]
        table = _round_ranks(leaderboard)
    else:
        metric_ranks = leaderboard.metric_ranks()
        columns = list(metric_ranks)
        table = [[metric_ranks[m][i] for m in columns] for i in range(len(leaderboard.systems))]
    for index, (name, row) in enumerate(zip(names, table, strict=True)):
        points = [(x, r) for x, r in enumerate(row) if r is not None]
        colour = PALETTE[index % len(PALETTE)]
        axes.plot([p[0] for p in points], [p[1] for p in points], "-o", color=colour, linewidth=1.8, markersize=5)
        if points:
            axes.annotate(name, points[-1], xytext=(8, 0), textcoords="offset points", va="center", fontsize=8)
    _tick_labels(axes, range(len(columns)), columns, rotate=len(columns) > 5)
    axes.set_xlim(-0.3, len(columns) - 0.3 + 0.25 * len(columns))
    axes.set_yticks(range(1, len(leaderboard.systems) + 1))
    axes.set_ylim(len(leaderboard.systems) + 0.5, 0.5)
    axes.set_ylabel("rank (1 = best)")  # the longer label was cut off on short figures
    axes.grid(axis="y", color=GRID)
    return figure


def _measures(leaderboard: Leaderboard, summary: Any) -> list[float | None]:
    """Figure 15's measures (the ones figure 16 ranks) of one round."""
    values = [summary.accuracy, summary.macro]
    values += [_rate_of(summary.by_difficulty, d) for d in leaderboard.difficulties]
    values += [_rate_of(summary.by_domain, d) for d in leaderboard.domains]
    return [None if v is None else float(v) for v in values]


def _rate_of(counts: dict[str, Any], key: str) -> Any:
    return counts[key].rate if key in counts else None


def _one_system_measures(system: SystemResult, leaderboard: Leaderboard) -> MplFigure:
    columns = list(leaderboard.metric_values())
    figure = _new(3.4)
    axes = figure.add_subplot()
    rounds = system.summaries
    for index, summary in enumerate(rounds):
        points = [(x, v) for x, v in enumerate(_measures(leaderboard, summary)) if v is not None]
        axes.plot(
            [p[0] for p in points],
            [p[1] for p in points],
            "o" if len(rounds) > 1 else "-o",
            color=PALETTE[index % len(PALETTE)],
            markersize=6 if index == 0 else 4,
            label=f"round {index + 1}",
            linewidth=1.2,
        )
    _tick_labels(axes, range(len(columns)), columns, rotate=len(columns) > 5)
    axes.set_xlim(-0.5, len(columns) - 0.5)
    axes.set_ylim(0, 1.05)
    _percent_axis(axes.yaxis)
    axes.set_ylabel("strict success")
    axes.grid(axis="y", color=GRID)
    axes.set_axisbelow(True)
    if len(rounds) > 1:
        handles, labels = axes.get_legend_handles_labels()
        _legend(figure, handles, labels)
    return figure


def _round_ranks(leaderboard: Leaderboard) -> list[list[int | None]]:
    from pytest_crmbench.results.stats import competition_ranks

    per_round = []
    for index in range(leaderboard.max_rounds):
        rates = [s.round_rates[index] if index < len(s.round_rates) else None for s in leaderboard.systems]
        per_round.append(competition_ranks(rates))
    return [[per_round[r][i] for r in range(leaderboard.max_rounds)] for i in range(len(leaderboard.systems))]


FIGURES: list[tuple[str, str, str, Callable[[Leaderboard], MplFigure]]] = [
    (
        "accuracy",
        "How often each system completes a task",
        "Strict accuracy: the share of scored tasks in which every declared check passed (first round; table 6). "
        "The bar is the 95 % interval: systems whose bars overlap are not separated by these tasks.",
        accuracy,
    ),
    (
        "domains",
        "Success by business domain",
        "Share of each domain's tasks completed in full (figure 5); each cell gives the rate and successes/scored.",
        by_domain,
    ),
    (
        "difficulty",
        "Success by task difficulty",
        "Strict success within the easy, medium and hard tasks (table 7), with 95 % intervals.",
        by_difficulty,
    ),
    (
        "failures",
        "Why tasks failed",
        "Every unsuccessful task counted once, under the first kind of check that failed, in the order action, "
        "forbidden, state, param, reply, order, collateral; execution (limit, abort, crash) when none failed (figure 13).",
        failures,
    ),
    (
        "components",
        "Which kinds of checks pass",
        "Pass rate of each check family over the tasks that declare it (figure 14); columns cover different tasks.",
        components,
    ),
    (
        "policy",
        "Tasks with rules the agent must not break",
        "Strict success on tasks without forbidden actions, parameters or protected state, on tasks with them, and "
        "the share of the latter whose rules all held whatever else happened (table 8).",
        policy_split,
    ),
    (
        "cost",
        "Accuracy against cost",
        "Strict accuracy (with its 95 % interval) against the agent model's cost per scored task; simulator and "
        "judge cost excluded. Systems without a known price are listed, not drawn.",
        cost,
    ),
    (
        "ranks",
        "Does the order hold?",
        "Each system's rank in every round (table 9): lines that cross mean the order changed between rounds. "
        "With one round, the rank on each measure instead (figure 16).",
        ranks,
    ),
]


ONE_SYSTEM_RANKS = (
    "How one system does on each measure",
    "With one system there is no order to hold, so no ranks (they would all be 1): its strict success on each "
    "measure figure 16 ranks (overall, domain macro, each difficulty, each domain; figure 15), one colour per "
    "round. Give crmbench report several runs to rank systems.",
)


def draw(leaderboard: Leaderboard) -> list[Figure]:
    """Every figure as SVG text; raises :class:`MatplotlibMissing` without the ``report`` extra."""
    _matplotlib()
    figures = []
    for key, title, caption, render in FIGURES:
        if key == "ranks" and len(leaderboard.systems) == 1:
            title, caption = ONE_SYSTEM_RANKS
        wide = key == "domains" and len(leaderboard.domains) > WIDE_COLUMNS
        figures.append(Figure(key, title, caption, _svg(render(leaderboard), key), wide))
    return figures
