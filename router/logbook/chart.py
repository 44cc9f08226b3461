"""The report's plots (DESIGN 12): hand-drawn inline SVG bar charts, no script, no font.

Pure: it draws what it is given and reads nothing. Labels arrive as plain text and are
flattened and escaped here.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from router.core.shown import flat

LATENCY_STEPS = (1, 2, 5)  # histogram edges 1, 2, 5, 10, 20, 50 ... microseconds
CHART_W, CHART_H = 560, 240
CHART_LEFT, CHART_BOTTOM, CHART_TOP = 56, 40, 24
LABEL_CHARS = 14  # a bar's label is cut to this under the bar (its title holds it whole)


def bars(caption: str, values: Sequence[tuple[str, float]], ceiling: float | None = None) -> str:
    """Return a captioned SVG bar chart of `(label, value)`, values printed over the bars
    ("No data." for none)."""
    if not values:
        empty = '<p class="muted">No data.</p>'
        return f"<figure><figcaption>{escape(caption)}</figcaption>{empty}</figure>"
    top = ceiling or max(value for _, value in values) or 1.0
    plot_w, plot_h = CHART_W - CHART_LEFT - 8, CHART_H - CHART_BOTTOM - CHART_TOP
    base = CHART_TOP + plot_h
    slot = plot_w / len(values)
    shapes = [
        f'<line class="axis" x1="{CHART_LEFT}" y1="{base}" x2="{CHART_W - 8}" y2="{base}"/>',
        f'<line class="axis" x1="{CHART_LEFT}" y1="{CHART_TOP}" x2="{CHART_LEFT}" y2="{base}"/>',
        f'<text x="{CHART_LEFT - 6}" y="{CHART_TOP + 4}" text-anchor="end">{tick(top)}</text>',
        f'<text x="{CHART_LEFT - 6}" y="{base + 4}" text-anchor="end">0</text>',
    ]
    for i, (label, value) in enumerate(values):
        height = plot_h * min(value, top) / top
        x = CHART_LEFT + i * slot + slot * 0.15
        middle = CHART_LEFT + (i + 0.5) * slot
        shown = flat(label)
        short = shown if len(shown) <= LABEL_CHARS else shown[: LABEL_CHARS - 3] + "..."
        shapes.append(
            f'<rect class="bar" x="{x:.1f}" y="{base - height:.1f}" width="{slot * 0.7:.1f}" '
            f'height="{height:.1f}"><title>{escape(shown)}: {tick(value)}</title></rect>'
        )
        shapes.append(
            f'<text x="{middle:.1f}" y="{base - height - 4:.1f}" text-anchor="middle">'
            f"{tick(value)}</text>"
        )
        shapes.append(
            f'<text x="{middle:.1f}" y="{base + 16}" text-anchor="middle">{escape(short)}</text>'
        )
    svg = (
        f'<svg width="{CHART_W}" height="{CHART_H}" viewBox="0 0 {CHART_W} {CHART_H}" '
        f'role="img" aria-label="{escape(caption)}">{"".join(shapes)}</svg>'
    )
    return f"<figure><figcaption>{escape(caption)}</figcaption>{svg}</figure>"


def tick(value: float) -> str:
    """Return a value as an axis or bar label: an integer as such, else two decimals."""
    return str(int(value)) if float(value).is_integer() else f"{value:.2f}"


def latency_buckets(values: Sequence[int]) -> list[tuple[int, int]]:
    """Return `(lower edge, count)` per log-spaced bucket (edges 0, 1, 2, 5, 10, 20, 50 ...
    µs), from the first bucket holding a value to the last; empty for no values."""
    if not values:
        return []
    edges, scale = [0], 1
    while edges[-1] <= max(values):
        edges += [step * scale for step in LATENCY_STEPS]
        scale *= 10
    counts = [0] * len(edges)
    for value in values:
        counts[max(i for i, edge in enumerate(edges) if edge <= max(value, 0))] += 1
    used = [i for i, n in enumerate(counts) if n]
    return [(edges[i], counts[i]) for i in range(used[0], used[-1] + 1)]


def duration(us: int) -> str:
    """Return a bucket edge in microseconds as a short duration (5µs, 20ms, 1s)."""
    if us >= 1_000_000:
        return f"{us // 1_000_000}s"
    if us >= 1_000:
        return f"{us // 1_000}ms"
    return f"{us}µs"
