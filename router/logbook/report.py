"""The readable forms of the shadow log's reviews (DESIGN 12): fixed-width text for the CLI
and one self-contained HTML page.

Pure: it renders the dicts `router.logbook.shadow` computes (stats, diff, replay) and reads nothing.
The page holds inline CSS and hand-drawn inline SVG only: no script, no font, no image, no
link to anything outside itself, and every string that came from a log record is escaped.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from router.core import shown

LATEST_ROWS = 25  # routes listed at the foot of the page
STATS_HEAD = (
    *("engine", "records", "routes", "silence", "injected", "skipped", "ptr/route"),
    *("p50 us", "p90 us", "p99 us"),
)
PCTS = ("p50", "p90", "p99")
TASK_CHARS = 72  # a task is cut to this in text tables
LATENCY_STEPS = (1, 2, 5)  # histogram edges 1, 2, 5, 10, 20, 50 ... microseconds
CHART_W, CHART_H = 560, 240
CHART_LEFT, CHART_BOTTOM, CHART_TOP = 56, 40, 24
STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:70rem;color:#1d2430}
h1{font-size:1.5rem}h2{font-size:1.15rem;margin-top:2rem;border-bottom:1px solid #d7dce3}
table{border-collapse:collapse;margin:.5rem 0}
th,td{padding:.25rem .6rem;border-bottom:1px solid #e6e9ee;text-align:right}
th:first-child,td:first-child,td.text{text-align:left}
td.text{max-width:32rem;overflow-wrap:anywhere}
thead th{background:#f2f4f7}figure{display:inline-block;margin:.5rem 1.5rem .5rem 0}
figcaption{font-weight:600;margin-bottom:.25rem}
svg text{font:11px system-ui,sans-serif;fill:#1d2430}
.bar{fill:#4f7cac}.axis{stroke:#8a94a3;stroke-width:1}.muted{color:#6b7482}
"""
# The page may load nothing at all; a browser enforces what this says.
POLICY = "default-src 'none'; style-src 'unsafe-inline'"


# -- text ------------------------------------------------------------------------------------


MEANING_SHOWN = 20  # entries only meaning finds, listed in a report


def stats_text(stats: Mapping[str, Any]) -> str:
    """Return the stats of `shadow.stats` as a fixed-width table, then what each version
    offered by kind and purpose. Ends without a newline."""
    named = _named(stats)
    lines = _table([STATS_HEAD, *(_stat_cells(name, g) for name, g in named)])
    for name, g in named:
        lines.append("")
        lines.append(f"{name}: kinds offered   {_counts(g['kinds'])}")
        lines.append(f"{name}: purposes offered {_counts(g['purposes'])}")
        if g["skips"]:
            lines.append(f"{name}: skips by reason  {_counts(g['skips'])}")
        meaning = g.get("meaning") or {}
        if meaning.get("routes"):
            lines.append(
                f"{name}: by meaning       {meaning['routes']} routes, best neighbour among the "
                f"pointers in {_pct(meaning['agreement'])}; only meaning finds "
                f"{_counts(dict(list(meaning['only_meaning'].items())[:MEANING_SHOWN]))}"
            )
    return "\n".join(lines)


def diff_text(diff: Mapping[str, Any]) -> str:
    """Return the diff of `shadow.diff`: a summary line, then each changed task with its
    moved, appeared and vanished pointers. Ends without a newline."""
    s = diff["summary"]
    lines = [
        f"diff {diff['from']} -> {diff['to']}: {s['compared']} tasks under both, "
        f"{s['changed']} changed ({s['moved']} moved, {s['appeared']} appeared, "
        f"{s['vanished']} vanished); {s['only_from']} only under {diff['from']}, "
        f"{s['only_to']} only under {diff['to']}"
    ]
    for task in diff["tasks"]:
        if task["changed"]:
            lines.append("")
            lines.append(f"task  {_cut(task['task'])}")
            lines.extend(_change_lines(task))
    return "\n".join(lines)


def replay_text(report: Mapping[str, Any]) -> str:
    """Return the replay of `shadow.replay`: a summary line, then each mismatched or
    errored task with control against candidate. Ends without a newline."""
    s = report["summary"]
    lines = [
        f"replay: {s['tasks']} tasks, {s['matched']} matched, {s['mismatched']} mismatched, "
        f"{s['errored']} errored"
    ]
    for task in report["tasks"]:
        if task["match"]:
            continue
        lines.append("")
        if task["error"] is not None:
            lines.append(f"ERROR     {_cut(task['task'])}")
            lines.append(f"  {_flat(task['error'])}")
            continue
        lines.append(f"MISMATCH  {_cut(task['task'])}")
        lines.append(f"  control    {_side_text(task['control'])}")
        lines.append(f"  candidate  {_side_text(task['candidate'])}")
        lines.extend(_change_lines(task))
    return "\n".join(lines)


def _named(stats: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    """Return (name, group) per engine version in order, then the `all` group."""
    named = [(_flat(v), stats["by_version"][v]) for v in stats["versions"]]
    return [*named, ("all", stats["all"])]


def _stat_cells(name: str, g: Mapping[str, Any]) -> list[str]:
    """Return one row of the stats table (columns of STATS_HEAD)."""
    lat = g["latency_us"]
    rates = [_pct(g["silence_rate"]), _pct(g["injected_rate"])]
    counts = [str(g["records"]), str(g["routes"]), *rates, str(g["skipped"])]
    return [name, *counts, _num(g["pointers_per_route"]), *(_num(lat[p]) for p in PCTS)]


def _change_lines(change: Mapping[str, Any]) -> list[str]:
    lines = []
    if change["status"] is not None:
        st = change["status"]
        lines.append(f"  status    {_said(st['from'], st['from_silence'])} -> ")
        lines[-1] += _said(st["to"], st["to_silence"])
    lines += [f"  moved     {_flat(m['id'])}  {m['from']} -> {m['to']}" for m in change["moved"]]
    lines += [f"  appeared  {_flat(a['id'])}  at {a['to']}" for a in change["appeared"]]
    lines += [f"  vanished  {_flat(v['id'])}  was {v['from']}" for v in change["vanished"]]
    return lines


def _said(status: object, silence: object) -> str:
    return f"{_flat(status)} ({_flat(silence)})" if silence else _flat(status)


def _side_text(side: Mapping[str, Any]) -> str:
    ids = ", ".join(_flat(p) for p in side["pointers"]) or "no pointer"
    return f"{_said(side['status'], side['silence'])}: {ids}"


def _table(rows: Sequence[Sequence[str]]) -> list[str]:
    """Return rows as fixed-width lines: the first column left-aligned, the rest right."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    out = []
    for row in rows:
        cells = [row[0].ljust(widths[0])] + [
            c.rjust(w) for c, w in zip(row[1:], widths[1:], strict=True)
        ]
        out.append("  ".join(cells).rstrip())
    return out


def _pct(rate: float | None) -> str:
    return "-" if rate is None else f"{rate * 100:.1f}%"


def _num(value: float | None) -> str:
    if value is None:
        return "-"
    return str(value) if isinstance(value, int) else f"{value:.2f}"


def _counts(counts: Mapping[str, int]) -> str:
    return ", ".join(f"{_flat(k)} {n}" for k, n in counts.items()) or "none"


def _flat(value: object) -> str:
    return shown.flat(str(value))


def _cut(text: object, limit: int = TASK_CHARS) -> str:
    flat = _flat(text)
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


# -- HTML ------------------------------------------------------------------------------------


def html(
    *,
    title: str,
    stats: Mapping[str, Any],
    comparisons: Sequence[Mapping[str, Any]],
    latency_us: Sequence[int],
    latest: Sequence[Mapping[str, Any]],
) -> str:
    """Return the report page: stats table, version comparisons, bar charts of silence rate
    and pointers per route by version, a latency histogram, offers by kind and purpose,
    and the latest routes. Deterministic for the same input."""
    versions = list(stats["versions"])
    groups = [stats["by_version"][v] for v in versions]
    # a version whose hooks only skipped has no rate to draw: a zero bar would claim one
    drawn = [(v, g) for v, g in zip(versions, groups, strict=True) if g["routes"]]
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{POLICY}">',
        f"<title>{escape(title)}</title><style>{STYLE}</style></head><body>",
        f"<h1>{escape(title)}</h1>",
        f'<p class="muted">{stats["all"]["records"]} records, {len(versions)} engine '
        f"version{'s' if len(versions) != 1 else ''}.</p>",
        "<h2>Routes by engine version</h2>",
        _stats_table(stats),
        "<h2>Between consecutive versions</h2>",
        _comparison_table(comparisons),
        "<h2>Plots</h2>",
        _bars(
            "Silence rate by version (%)",
            [(v, 100 * g["silence_rate"]) for v, g in drawn],
            ceiling=100.0,
        ),
        _bars(
            "Pointers per route by version",
            [(v, float(g["pointers_per_route"])) for v, g in drawn],
        ),
        _bars(
            "Route latency (count per bucket, from its label up to the next)",
            [(_duration(lo), float(n)) for lo, n in latency_buckets(latency_us)],
        ),
        *_meaning_section(stats["all"].get("meaning") or {}),
        "<h2>Offered by kind and purpose</h2>",
        _offers_table("kind", "kinds", versions, groups),
        _offers_table("purpose", "purposes", versions, groups),
        f"<h2>Latest {len(latest)} records</h2>",
        _latest_table(latest),
        "</body></html>",
    ]
    # escaped, and cleaned: a control or bidi character in a logged string is not markup
    return shown.clean("\n".join(parts) + "\n", lines=True)


def _meaning_section(meaning: Mapping[str, Any]) -> list[str]:
    """Return the report's part on neighbours by meaning (nothing when none were logged):
    the agreement figure and the entries only meaning finds."""
    if not meaning.get("routes"):
        return []
    rows = [[escape(str(entry)), str(n)] for entry, n in meaning["only_meaning"].items()]
    return [
        "<h2>Neighbours by meaning</h2>",
        f"<p>{meaning['routes']} routes logged neighbours by meaning; in "
        f"{escape(_pct(meaning['agreement']))} of them the nearest was among the pointers.</p>",
        "<p>Entries among the first neighbours that no pointer offered (only meaning finds "
        "them):</p>",
        _html_table(["entry", "routes"], rows[:MEANING_SHOWN], text_columns=1),
    ]


def _html_table(head: Sequence[str], rows: Sequence[Sequence[str]], text_columns: int = 0) -> str:
    """Return a table; `head` is escaped here, cells must arrive escaped. The last
    `text_columns` columns hold prose: left-aligned and wrapped."""
    top = "".join(f"<th>{escape(h)}</th>" for h in head)
    first_text = len(head) - text_columns
    body = ""
    for row in rows:
        cells = [
            f'<td class="text">{c}</td>' if i >= first_text else f"<td>{c}</td>"
            for i, c in enumerate(row)
        ]
        body += "<tr>" + "".join(cells) + "</tr>"
    return f"<table><thead><tr>{top}</tr></thead><tbody>{body}</tbody></table>"


def _stats_table(stats: Mapping[str, Any]) -> str:
    rows = [[escape(c) for c in _stat_cells(name, g)] for name, g in _named(stats)]
    return _html_table(STATS_HEAD, rows)


def _comparison_table(comparisons: Sequence[Mapping[str, Any]]) -> str:
    if not comparisons:
        return '<p class="muted">Fewer than two engine versions routed: nothing to compare.</p>'
    head = ["from", "to", "tasks under both", "changed", "moved", "appeared", "vanished"]
    rows = []
    for c in comparisons:
        s = c["summary"]
        rows.append([escape(str(c["from"])), escape(str(c["to"])), str(s["compared"])])
        rows[-1] += [str(s[k]) for k in ("changed", "moved", "appeared", "vanished")]
    return _html_table(head, rows)


def _offers_table(
    label: str, key: str, versions: Sequence[str], groups: Sequence[Mapping[str, Any]]
) -> str:
    names = sorted({name for g in groups for name in g[key]})
    if not names:
        return f'<p class="muted">No {escape(label)} was offered.</p>'
    rows = [[escape(n)] + [str(g[key].get(n, 0)) for g in groups] for n in names]
    return _html_table([label, *versions], rows)


def _latest_table(latest: Sequence[Mapping[str, Any]]) -> str:
    head = ["at", "engine", "source", "mode", "status", "injected", "task", "pointers"]
    rows = []
    for r in reversed(latest):  # newest first
        ids = ", ".join(str(p.get("id")) for p in r.get("pointers") or [] if isinstance(p, dict))
        status = str(r.get("status")) + (f" ({r['skip']})" if r.get("skip") else "")
        cells = [r.get("at"), r.get("engine_version"), r.get("source"), r.get("mode"), status]
        cells += ["yes" if r.get("injected") else "no", _cut(r.get("task"), 160), ids]
        rows.append([escape(str(c)) for c in cells])
    return _html_table(head, rows, text_columns=len(head))


def _bars(caption: str, bars: Sequence[tuple[str, float]], ceiling: float | None = None) -> str:
    """Return a captioned SVG bar chart; labels are escaped, values printed over bars."""
    if not bars:
        empty = '<p class="muted">No data.</p>'
        return f"<figure><figcaption>{escape(caption)}</figcaption>{empty}</figure>"
    top = ceiling or max(value for _, value in bars) or 1.0
    plot_w, plot_h = CHART_W - CHART_LEFT - 8, CHART_H - CHART_BOTTOM - CHART_TOP
    base = CHART_TOP + plot_h
    slot = plot_w / len(bars)
    shapes = [
        f'<line class="axis" x1="{CHART_LEFT}" y1="{base}" x2="{CHART_W - 8}" y2="{base}"/>',
        f'<line class="axis" x1="{CHART_LEFT}" y1="{CHART_TOP}" x2="{CHART_LEFT}" y2="{base}"/>',
        f'<text x="{CHART_LEFT - 6}" y="{CHART_TOP + 4}" text-anchor="end">{_tick(top)}</text>',
        f'<text x="{CHART_LEFT - 6}" y="{base + 4}" text-anchor="end">0</text>',
    ]
    for i, (label, value) in enumerate(bars):
        height = plot_h * min(value, top) / top
        x = CHART_LEFT + i * slot + slot * 0.15
        middle = CHART_LEFT + (i + 0.5) * slot
        shapes.append(
            f'<rect class="bar" x="{x:.1f}" y="{base - height:.1f}" width="{slot * 0.7:.1f}" '
            f'height="{height:.1f}"><title>{escape(label)}: {_tick(value)}</title></rect>'
        )
        shapes.append(
            f'<text x="{middle:.1f}" y="{base - height - 4:.1f}" text-anchor="middle">'
            f"{_tick(value)}</text>"
        )
        shapes.append(
            f'<text x="{middle:.1f}" y="{base + 16}" text-anchor="middle">'
            f"{escape(_cut(label, 14))}</text>"
        )
    svg = (
        f'<svg width="{CHART_W}" height="{CHART_H}" viewBox="0 0 {CHART_W} {CHART_H}" '
        f'role="img" aria-label="{escape(caption)}">{"".join(shapes)}</svg>'
    )
    return f"<figure><figcaption>{escape(caption)}</figcaption>{svg}</figure>"


def _tick(value: float) -> str:
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


def _duration(us: int) -> str:
    if us >= 1_000_000:
        return f"{us // 1_000_000}s"
    if us >= 1_000:
        return f"{us // 1_000}ms"
    return f"{us}µs"
