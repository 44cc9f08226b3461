"""The shadow log's HTML report (DESIGN 12): one self-contained page for a reviewer.

Pure: `report` takes the route records and the reads (`router.logbook.opened`) and returns
the page; it reads nothing else and is the same for the same records. The page holds inline
CSS and SVG only: no script, font, image or link out (its policy forbids loading anything).
Every string that came from the log (a task, an id, a path, a version) is flattened by the
one sanitizer (`shown.flat`) and escaped, and the whole page is cleaned once more.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from html import escape
from typing import Any

from router.core import shown
from router.logbook import chart, follow, review
from router.logbook.report import MEANING_SHOWN, STATS_HEAD, named, number, percent, stat_cells
from router.logbook.shadow import SKIPPED, Record, tail

LATEST_ROWS = 25  # records listed at the foot of the page
SILENT_ROWS = 50  # silent prompts listed, most recent first
DOCUMENT_ROWS = 100  # documents listed, most offered first
TASK_CELL = 160  # characters of a task shown in a table cell
CATALOG_LABEL = 8  # hex digits of a fingerprint under a bar
STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:72rem;padding:0 1rem;
color:#1d2430}
h1{font-size:1.5rem}h2{font-size:1.15rem;margin-top:2rem;border-bottom:1px solid #d7dce3}
.wide{overflow-x:auto}table{border-collapse:collapse;margin:.5rem 0}
th,td{padding:.25rem .6rem;border-bottom:1px solid #e6e9ee;vertical-align:top}
.n{text-align:right;white-space:nowrap}.l{text-align:left;white-space:nowrap}
.t{text-align:left;white-space:normal;min-width:8rem;max-width:24rem;overflow-wrap:break-word}
thead th{background:#f2f4f7}figure{display:inline-block;margin:.5rem 1.5rem .5rem 0}
figcaption{font-weight:600;margin-bottom:.25rem}
svg text{font:11px system-ui,sans-serif;fill:#1d2430}
.bar{fill:#4f7cac}.axis{stroke:#8a94a3;stroke-width:1}.muted{color:#6b7482}
"""
POLICY = "default-src 'none'; style-src 'unsafe-inline'"
AXIS_NAMES = {"version": "engine", "fingerprint": "catalog"}


def report(records: Iterable[Record], opens: Iterable[Record], title: str) -> str:
    """Return the page: routes by engine version and by catalog version, the comparisons
    between consecutive versions of each, which pointers were followed, a table per
    document, the documents read without a pointer, the silent prompts, plots, offers by
    kind and purpose, and the latest records."""
    kept, reads = list(records), list(opens)
    stats = review.stats(kept)
    followed = follow.summary(kept, reads)
    latency = [int(r.get("elapsed_us") or 0) for r in kept if r.get("status") != SKIPPED]
    versions = list(stats["versions"])
    groups = [stats["by_version"][v] for v in versions]
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{POLICY}">',
        f"<title>{_cell(title)}</title><style>{STYLE}</style></head><body>",
        f"<h1>{_cell(title)}</h1>",
        f'<p class="muted">{stats["all"]["records"]} records; '
        f"{_count(len(versions), 'engine version')}, "
        f"{_count(len(stats['fingerprints']), 'catalog version')}; "
        f"{_count(len(reads), 'read')} of catalog documents logged.</p>",
        "<h2>Routes by engine version</h2>",
        _stats_table(named(stats), STATS_HEAD),
        "<h2>Routes by catalog version</h2>",
        _stats_table(
            list(stats["by_fingerprint"].items()), ("catalog (fingerprint)", *STATS_HEAD[1:])
        ),
        "<h2>Between consecutive versions</h2>",
        _comparison_table(_comparisons(kept)),
        "<h2>Pointers followed</h2>",
        *_followed(followed),
        "<h2>Documents</h2>",
        _documents(follow.documents(kept, reads)),
        *_misses(follow.misses(kept, reads), followed),
        "<h2>Silent prompts</h2>",
        _silent(kept),
        "<h2>Plots</h2>",
        *_plots(stats, followed),
        chart.bars(
            "Route latency (count per bucket, from its label up to the next)",
            [(chart.duration(lo), float(n)) for lo, n in chart.latency_buckets(latency)],
        ),
        *_meaning_section(stats["all"].get("meaning") or {}),
        "<h2>Offered by kind and purpose</h2>",
        _offers_table("kind", "kinds", versions, groups),
        _offers_table("purpose", "purposes", versions, groups),
        f"<h2>Latest {min(len(kept), LATEST_ROWS)} records</h2>",
        _latest_table(tail(kept, LATEST_ROWS)),
        "</body></html>",
    ]
    # escaped, and cleaned: a control or bidi character in a logged string is not markup
    return shown.clean("\n".join(parts) + "\n", lines=True)


def _comparisons(records: list[Record]) -> list[tuple[str, Mapping[str, Any]]]:
    """Return `(axis, diff)` between consecutive engine versions (in natural order) and
    consecutive catalog fingerprints (in the order first logged) that both logged routes."""
    out: list[tuple[str, Mapping[str, Any]]] = []
    for axis in ("version", "fingerprint"):
        routed = {v["value"] for v in review.versions(records, axis)}
        order = (
            sorted(routed, key=review.version_key)
            if axis == "version"
            else [f for f in review.catalog_order(records) if f in routed]
        )
        out += [(axis, review.diff(records, a, b, axis)) for a, b in itertools.pairwise(order)]
    return out


def _html_table(head: Sequence[str], rows: Sequence[Sequence[str]], columns: str = "") -> str:
    """Return a table in a scrolling box; `head` is escaped here, cells must arrive escaped.
    `columns` says how each column is laid out, one letter per column: `l` a name (left,
    one line), `t` prose (left, wrapped between words), `n` a number or a time (right, one
    line: a time never wraps in its middle). Unsaid: a name, then numbers."""
    kinds = (columns or "l").ljust(len(head), "n")
    top = "".join(f'<th class="{kinds[i]}">{escape(h)}</th>' for i, h in enumerate(head))
    body = ""
    for row in rows:
        cells = [f'<td class="{kinds[i]}">{c}</td>' for i, c in enumerate(row)]
        body += "<tr>" + "".join(cells) + "</tr>"
    return (
        f'<div class="wide"><table><thead><tr>{top}</tr></thead><tbody>{body}</tbody></table></div>'
    )


def _stats_table(groups: Sequence[tuple[str, Mapping[str, Any]]], head: Sequence[str]) -> str:
    return _html_table(head, [[escape(c) for c in stat_cells(shown.flat(n), g)] for n, g in groups])


def _comparison_table(comparisons: Sequence[tuple[str, Mapping[str, Any]]]) -> str:
    if not comparisons:
        return (
            '<p class="muted">Fewer than two engine versions and fewer than two catalog '
            "versions routed: nothing to compare.</p>"
        )
    head = ["of", "from", "to", "tasks under both", "changed", "moved", "appeared", "vanished"]
    rows = []
    for axis, c in comparisons:
        s = c["summary"]
        rows.append([AXIS_NAMES[axis], _cell(c["from"]), _cell(c["to"]), str(s["compared"])])
        rows[-1] += [str(s[k]) for k in ("changed", "moved", "appeared", "vanished")]
    return _html_table(head, rows, "lll")


def _followed(view: Mapping[str, Any]) -> list[str]:
    """Return the followed pointers: a sentence, then a table per axis."""
    s, every = view["sessions"], view["all"]
    if not s["read"]:
        return [
            f"<p>{_count(every['offered'], 'pointer')} offered in "
            f"{_count(s['offered'], 'session')}; no read was "
            "logged, so none can be told followed. Install the hooks again (<code>kroute "
            "install &lt;harness&gt;</code>) to log which documents agents open.</p>"
        ]
    parts = [
        f"<p>{every['followed']} of {_count(every['offered'], 'pointer')} offered in "
        f"{_count(s['offered'], 'session')} followed "
        f"({escape(percent(every['followed_rate']))}); reads logged in "
        f"{_count(s['read'], 'session')}; {_count(every['unpointed'], 'document')} read "
        "without a pointer to it in its session.</p>"
    ]
    for label, plural in (("engine", "version"), ("catalog (fingerprint)", "fingerprint")):
        rows = [
            [_cell(c) for c in follow.cells(v, view[f"by_{plural}"][v])] for v in view[f"{plural}s"]
        ]
        parts.append(
            _html_table([label, "offered", "followed", "rate", "read without a pointer"], rows)
        )
    if view["shadow"]:
        parts.append(
            f'<p class="muted">{view["shadow"]} of these were offered in shadow mode and never '
            "shown: the agent opened those documents on its own.</p>"
        )
    return parts


def _documents(rows: Sequence[Mapping[str, Any]]) -> str:
    if not rows:
        return '<p class="muted">No document was offered or read.</p>'
    head = ["document", "path", "offered", "first", "sessions", "followed", "read, no pointer"]
    cells = [
        [_cell(r["id"]), _cell(r["path"])]
        + [str(r[k]) for k in ("offered", "first", "sessions", "followed", "unpointed")]
        for r in rows[:DOCUMENT_ROWS]
    ]
    more = len(rows) - DOCUMENT_ROWS
    note = f'<p class="muted">{more} more documents not listed.</p>' if more > 0 else ""
    return (
        '<p class="muted">Offered: routes that offered it (first: at the top). Sessions: '
        "sessions it was offered in; followed: of those, the ones whose agent opened it after "
        "the pointer. Read, no pointer: sessions whose agent opened it with no pointer to it."
        "</p>" + _html_table(head, cells, "ll") + note
    )


def _misses(view: Mapping[str, Any], followed: Mapping[str, Any]) -> list[str]:
    """Return the documents read without a pointer, with the prompts before them (candidates
    for their routing fields), and the pointers never followed."""
    if not followed["sessions"]["read"]:
        return []
    rows = [
        [
            *(_cell(r[k]) for k in ("id", "path", "kind")),
            str(r["sessions"]),
            "<br>".join(_cell(t, TASK_CELL) for t in r["tasks"]) or "(no prompt routed before)",
        ]
        for r in view["unpointed"]
    ]
    never = [
        [_cell(r["id"]), _cell(r["path"]), str(r["sessions"]), str(r["first"])]
        for r in view["unfollowed"]
    ]
    return [
        "<h2>Read without a pointer</h2>",
        '<p class="muted">Documents agents opened that no route of their session had offered '
        "before: the prompts before them are candidates for their routing fields.</p>",
        _html_table(
            ["document", "path", "kind", "sessions", "prompt before the read"], rows, "lllnt"
        )
        if rows
        else '<p class="muted">None.</p>',
        "<h2>Pointers never followed</h2>",
        _html_table(["document", "path", "sessions offered", "first"], never, "ll")
        if never
        else '<p class="muted">None: every document offered was opened at least once.</p>',
    ]


def _silent(records: Sequence[Record]) -> str:
    """Return the silent prompts, one row per task (its last silent route), most recent
    first, with why and the words no entry held."""
    last: dict[str, tuple[int, Record]] = {}
    for record in records:
        if record.get("status") != SKIPPED and isinstance(record.get("silence"), Mapping):
            task = str(record.get("task"))
            last[task] = (last.get(task, (0, record))[0] + 1, record)
    if not last:
        return '<p class="muted">No prompt was left silent.</p>'
    newest = sorted(last.values(), key=lambda tr: str(tr[1].get("at")), reverse=True)
    rows = []
    for times, r in newest[:SILENT_ROWS]:
        silence = r["silence"]
        lacking = ", ".join(shown.flat(str(w)) for w in silence.get("lacking") or [])
        cells = [r.get("at"), times, r.get("engine_version"), r.get("task"), silence.get("reason")]
        rows.append([_cell(c, TASK_CELL) for c in cells] + [escape(lacking)])
    head = ["last", "times", "engine", "prompt", "why", "words no entry held"]
    return _html_table(head, rows, "nnltlt")


def _plots(stats: Mapping[str, Any], followed: Mapping[str, Any]) -> list[str]:
    """Return the bar charts across engine versions and across catalog versions, each only
    when there are two versions or more to set side by side (one version is a figure in a
    sentence, not a chart of a single bar)."""
    parts = []
    for label, plural in (("engine version", "version"), ("catalog version", "fingerprint")):
        drawn = [(v, g) for v, g in stats[f"by_{plural}"].items() if g["routes"]]
        names = [_label(v, plural) for v, _ in drawn]
        if len(drawn) < 2:
            parts += [
                f"<p>One {label} routed ({_cell(v)}): silence rate "
                f"{escape(percent(g['silence_rate']))}, {escape(number(g['pointers_per_route']))}"
                " pointers per route.</p>"
                for v, g in drawn
            ]
            continue
        parts.append(
            chart.bars(
                f"Silence rate by {label} (%)",
                [(n, 100 * g["silence_rate"]) for n, (_, g) in zip(names, drawn, strict=True)],
                ceiling=100.0,
            )
        )
        parts.append(
            chart.bars(
                f"Pointers per route by {label}",
                [(n, g["pointers_per_route"]) for n, (_, g) in zip(names, drawn, strict=True)],
            )
        )
        rated = [(v, g) for v, g in followed[f"by_{plural}"].items() if g["offered"]]
        if followed["sessions"]["read"] and len(rated) >= 2:
            parts.append(
                chart.bars(
                    f"Pointers followed by {label} (%)",
                    [(_label(v, plural), 100 * g["followed_rate"]) for v, g in rated],
                    ceiling=100.0,
                )
            )
    return parts


def _meaning_section(meaning: Mapping[str, Any]) -> list[str]:
    """Return the report's part on neighbours by meaning (nothing when none were logged):
    the agreement figure and the entries only meaning finds."""
    if not meaning.get("routes"):
        return []
    rows = [[_cell(entry), str(n)] for entry, n in meaning["only_meaning"].items()]
    return [
        "<h2>Neighbours by meaning</h2>",
        f"<p>{meaning['routes']} routes logged neighbours by meaning; in "
        f"{escape(percent(meaning['agreement']))} of them the nearest was among the pointers.</p>",
        "<p>Entries among the first neighbours that no pointer offered (only meaning finds "
        "them):</p>",
        _html_table(["entry", "routes"], rows[:MEANING_SHOWN]),
    ]


def _offers_table(
    label: str, key: str, versions: Sequence[str], groups: Sequence[Mapping[str, Any]]
) -> str:
    names = sorted({name for g in groups for name in g[key]})
    if not names:
        return f'<p class="muted">No {escape(label)} was offered.</p>'
    rows = [[_cell(n)] + [str(g[key].get(n, 0)) for g in groups] for n in names]
    return _html_table([label, *(shown.flat(v) for v in versions)], rows)


def _latest_table(latest: Sequence[Mapping[str, Any]]) -> str:
    head = ["at", "engine", "catalog", "source", "mode", "status", "injected", "task", "pointers"]
    rows = []
    for r in reversed(latest):  # newest first
        ids = ", ".join(str(p.get("id")) for p in r.get("pointers") or [] if isinstance(p, dict))
        status = str(r.get("status")) + (f" ({r['skip']})" if r.get("skip") else "")
        cells = [r.get("at"), r.get("engine_version"), r.get("catalog_fingerprint")]
        cells += [r.get("source"), r.get("mode"), status, "yes" if r.get("injected") else "no"]
        rows.append([_cell(c) for c in cells] + [_cell(r.get("task"), TASK_CELL), _cell(ids)])
    return _html_table(head, rows, "nlllllltt")


def _label(value: str, plural: str) -> str:
    """Return a version as a bar's label: a fingerprint by its first hex digits."""
    return value[:CATALOG_LABEL] if plural == "fingerprint" else value


def _cell(value: object, limit: int | None = None) -> str:
    """Return a logged value as a table cell: flattened, cut to `limit`, escaped."""
    cell = shown.flat(str(value))
    if limit is not None and len(cell) > limit:
        cell = cell[: limit - 3] + "..."
    return escape(cell)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"
