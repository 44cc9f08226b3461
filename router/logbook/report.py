"""The readable forms of the shadow log's reviews (DESIGN 12): fixed-width text for the
CLI.

Pure: it renders the dicts `router.logbook.review` computes (stats, diff, replay) and reads
nothing. The HTML page is `router.logbook.page`'s.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from router.core import shown

STATS_HEAD = (
    *("engine", "records", "routes", "silence", "injected", "skipped", "ptr/route"),
    *("p50 us", "p90 us", "p99 us"),
)
PCTS = ("p50", "p90", "p99")
TASK_CHARS = 72  # a task is cut to this in text tables
MEANING_SHOWN = 20  # entries only meaning finds, listed in a report


def stats_text(stats: Mapping[str, Any]) -> str:
    """Return the stats of `review.stats` as fixed-width tables, by engine version and by
    catalog version (fingerprint), then what each engine version offered by kind and
    purpose. Ends without a newline."""
    groups = named(stats)
    lines = table([STATS_HEAD, *(stat_cells(name, g) for name, g in groups)])
    by_catalog = stats.get("by_fingerprint") or {}
    lines.append("")
    lines += table(
        [("catalog", *STATS_HEAD[1:]), *(stat_cells(_flat(f), g) for f, g in by_catalog.items())]
    )
    for name, g in groups:
        lines.append("")
        lines.append(f"{name}: kinds offered   {_counts(g['kinds'])}")
        lines.append(f"{name}: purposes offered {_counts(g['purposes'])}")
        if g["skips"]:
            lines.append(f"{name}: skips by reason  {_counts(g['skips'])}")
        meaning = g.get("meaning") or {}
        if meaning.get("routes"):
            lines.append(
                f"{name}: by meaning       {meaning['routes']} routes, best neighbour among the "
                f"pointers in {percent(meaning['agreement'])}; only meaning finds "
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
            lines.append(f"task  {cut(task['task'])}")
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
            lines.append(f"ERROR     {cut(task['task'])}")
            lines.append(f"  {_flat(task['error'])}")
            continue
        lines.append(f"MISMATCH  {cut(task['task'])}")
        lines.append(f"  control    {_side_text(task['control'])}")
        lines.append(f"  candidate  {_side_text(task['candidate'])}")
        lines.extend(_change_lines(task))
    return "\n".join(lines)


def named(stats: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    """Return (name, group) per engine version in order, then the `all` group."""
    named = [(_flat(v), stats["by_version"][v]) for v in stats["versions"]]
    return [*named, ("all", stats["all"])]


def stat_cells(name: str, g: Mapping[str, Any]) -> list[str]:
    """Return one row of the stats table (columns of STATS_HEAD)."""
    lat = g["latency_us"]
    rates = [percent(g["silence_rate"]), percent(g["injected_rate"])]
    counts = [str(g["records"]), str(g["routes"]), *rates, str(g["skipped"])]
    return [name, *counts, number(g["pointers_per_route"]), *(number(lat[p]) for p in PCTS)]


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


def table(rows: Sequence[Sequence[str]]) -> list[str]:
    """Return rows as fixed-width lines: the first column left-aligned, the rest right."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    out = []
    for row in rows:
        cells = [row[0].ljust(widths[0])] + [
            c.rjust(w) for c, w in zip(row[1:], widths[1:], strict=True)
        ]
        out.append("  ".join(cells).rstrip())
    return out


def percent(rate: float | None) -> str:
    return "-" if rate is None else f"{rate * 100:.1f}%"


def number(value: float | None) -> str:
    if value is None:
        return "-"
    return str(value) if isinstance(value, int) else f"{value:.2f}"


def _counts(counts: Mapping[str, int]) -> str:
    return ", ".join(f"{_flat(k)} {n}" for k, n in counts.items()) or "none"


def _flat(value: object) -> str:
    return shown.flat(str(value))


def cut(text: object, limit: int = TASK_CHARS) -> str:
    flat = _flat(text)
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."
