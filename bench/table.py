"""The table of the main suite: one column per catalog size, one row per figure, with the
anchors' and the meaning extra's rows when a size has them."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from bench import task
from bench.anchor import ANCHORS, SHORT, TOP_K
from bench.probe import CROWDS

Cell = Callable[[dict[str, Any]], str]  # a result's figures -> the text of its cell


def number(fmt: str, key: str) -> Cell:
    """Return the cell of figure `key` written with `fmt`."""
    return lambda r: fmt.format(r[key])


def generated(r: dict[str, Any]) -> str:
    """Return the cell of the catalog's generation seconds, `reused` for a kept one."""
    return "reused" if r["generate_s"] is None else f"{r['generate_s']:.1f}"


def at_length(length: int, where: str) -> Cell:
    """Return the cell of one task length: `p50 / p99`, or `refused` when the daemon refused
    every task of that length (with the count when it refused only some)."""

    def cell(r: dict[str, Any]) -> str:
        figures = r["lengths"].get(str(length))
        if figures is None:
            return "-"
        if f"{where}_p50_ms" not in figures:
            return "refused"
        out = f"{figures[f'{where}_p50_ms']:.2f} / {figures[f'{where}_p99_ms']:.2f}"
        if figures["refused"]:
            out += f" ({figures['refused']}/{figures['tasks']} refused)"
        return out

    return cell


def task_chars(r: dict[str, Any]) -> str:
    """Return the cell of the median task characters of each length."""
    return " / ".join(f"{f['chars_p50']:,.0f}" for f in r["lengths"].values()) or "-"


def documents(r: dict[str, Any]) -> str:
    """Return the cell of the Markdown files (ADRs among them) and the annex rows."""
    return f"{r['markdown']:,} ({r['adrs']:,}) + {r['annex_rows']:,}"


def first_routes(figures: dict[str, Any]) -> str:
    """Return the p50 / p99 of the first routes a restarted daemon answered."""
    return (
        f"{figures['route_in_daemon_first_p50_ms']:.2f} / "
        f"{figures['route_in_daemon_first_p99_ms']:.2f}"
    )


ROWS: tuple[tuple[str, Cell], ...] = (
    ("Markdown files (ADRs without front matter) + annex rows", documents),
    ("entries indexed", number("{:,}", "indexed")),
    ("body words per Markdown file, mean", number("{:.0f}", "body_words_mean")),
    ("catalog on disk, apparent (MB)", number("{:.1f}", "disk_mb")),
    ("catalog on disk, allocated (MB)", number("{:.1f}", "disk_allocated_mb")),
    ("generate catalog (s)", generated),
    ("cold load from nothing, in process as a daemon loads (s)", number("{:.2f}", "cold_load_s")),
    (
        "snapshot written (MiB / s)",
        lambda r: f"{r['snapshot_mib']:.0f} / {r['snapshot_write_s']:.1f}",
    ),
    ("  then written out to disk (sync, s)", number("{:.1f}", "snapshot_writeback_s")),
    ("daemon ready from the snapshot, spawn to loaded (s)", number("{:.2f}", "daemon_ready_s")),
    (
        "  of which reading the snapshot, in the daemon (s)",
        lambda r: f"{r['daemon_load']['seconds']:.2f}",
    ),
    ("daemon stopped and started again, spawn to loaded (s)", number("{:.2f}", "daemon_restart_s")),
    (
        "  of which reading the snapshot, in the daemon (s)",
        lambda r: f"{r['daemon_restart_load']['seconds']:.2f}",
    ),
    ("route p50 / p99 in daemon, first routes after a restart (ms)", first_routes),
    ("route p50 in daemon (ms)", number("{:.2f}", "route_in_daemon_p50_ms")),
    ("route p99 in daemon (ms)", number("{:.2f}", "route_in_daemon_p99_ms")),
    ("route p50 in process (ms)", number("{:.2f}", "route_in_process_p50_ms")),
    ("socket round trip p50, raw (ms)", number("{:.2f}", "socket_raw_p50_ms")),
)
CLOSING_ROWS: tuple[tuple[str, Cell], ...] = (
    ("python client p50 (ms)", number("{:.2f}", "python_client_p50_ms")),
    ("bare curl /v1/status p50 (ms)", number("{:.2f}", "curl_status_p50_ms")),
    ("curl /v1/route p50 (ms)", number("{:.2f}", "curl_route_p50_ms")),
    ("cold `kroute route --no-daemon` (ms)", number("{:.0f}", "cli_no_daemon_median_ms")),
    ("daemon speed-up over cold CLI (x)", number("{:.0f}", "daemon_speedup_vs_cli")),
    ("update visible p50 (ms)", number("{:.1f}", "update_visible_p50_ms")),
    (
        f"{' / '.join(map(str, CROWDS))} clients at once: routes/s",
        lambda r: " / ".join(f"{r['crowds'][str(n)]['routes_per_s']:.0f}" for n in CROWDS),
    ),
    (
        f"{' / '.join(map(str, CROWDS))} clients at once: p50 / p99 (ms), failures",
        lambda r: "; ".join(
            "{p50_ms:.0f} / {p99_ms:.0f}, {failures}".format(**r["crowds"][str(n)]) for n in CROWDS
        ),
    ),
    (
        f"{' / '.join(map(str, CROWDS))} clients at once: cores the daemon kept busy",
        lambda r: " / ".join(f"{r['crowds'][str(n)].get('cores', math.nan):.2f}" for n in CROWDS),
    ),
    ("daemon RSS (MiB)", number("{:.0f}", "daemon_rss_mib")),
    ("bench wall time (s)", number("{:.1f}", "wall_s")),
)


def length_rows(lengths: tuple[int, ...]) -> list[tuple[str, Cell]]:
    """Return the rows of the tasks of each length: characters, in daemon and socket."""
    rows: list[tuple[str, Cell]] = []
    if lengths:
        words = " / ".join(f"{length:,}" for length in lengths)
        rows.append((f"task characters, median, for {words} words", task_chars))
    for length in lengths:
        rows.append(
            (f"{length:,}-word tasks, in daemon p50 / p99 (ms)", at_length(length, "daemon"))
        )
        rows.append((f"{length:,}-word tasks, socket p50 / p99 (ms)", at_length(length, "socket")))
    return rows


def anchored(r: dict[str, Any]) -> dict[str, Any] | None:
    """Return the anchors' figures of a result, None when they were not asked for or failed."""
    figures = r.get("anchors")
    return figures if figures and "error" not in figures else None


def anchor_about(r: dict[str, Any]) -> str:
    """Return the anchors' versions cell: `tantivy X, bm25s Y`, `failed` or `-`."""
    figures = anchored(r)
    if figures is None:
        return "failed" if r.get("anchors") else "-"
    return ", ".join(f"{name} {figures['versions'][name]}" for name in ANCHORS)


def anchor_build(r: dict[str, Any]) -> str:
    """Return the cell of the anchors' index build seconds: `tantivy / bm25s`."""
    figures = anchored(r)
    return " / ".join(f"{figures['build_s'][name]:.1f}" for name in ANCHORS) if figures else "-"


def anchor_rss(r: dict[str, Any]) -> str:
    """Return the cell of the anchors' process peak RSS (MiB)."""
    figures = anchored(r)
    return f"{figures['rss_mib']:.0f}" if figures else "-"


def anchor_times(name: str, engine: str) -> Cell:
    """Return the cell of one engine on query set `name`: `p50 / p99` (ms), `-` without."""

    def cell(r: dict[str, Any]) -> str:
        figures = (anchored(r) or {}).get("sets", {}).get(name, {})
        if f"{engine}_p50_ms" not in figures:
            return "-"
        return f"{figures[f'{engine}_p50_ms']:.2f} / {figures[f'{engine}_p99_ms']:.2f}"

    return cell


def per_set(names: list[str], figure: Cell) -> Cell:
    """Return a cell of `figure` of each query set in `names`, joined `a / b / ...`."""

    def cell(r: dict[str, Any]) -> str:
        sets = (anchored(r) or {}).get("sets")
        if not sets:
            return "-"
        return " / ".join(figure(sets[name]) if name in sets else "-" for name in names)

    return cell


def ratio(q: str, anchor: str = "tantivy") -> Cell:
    """Return kroute's `q` (p50, p99) over the anchor's, of one query set's figures."""

    def figure(f: dict[str, Any]) -> str:
        mine, theirs = f.get(f"kroute_{q}_ms"), f.get(f"{anchor}_{q}_ms")
        return f"{mine / theirs:.1f}" if mine is not None and theirs else "-"

    return figure


def held(engine: str) -> Cell:
    """Return the share of kroute's pointers that the engine's top 5 holds (%), of one set."""

    def figure(f: dict[str, Any]) -> str:
        return f"{100 * f['held'][engine] / f['pointers']:.0f}" if f["pointers"] else "-"

    return figure


def meaning_rows() -> list[tuple[str, Cell]]:
    """Return the meaning extra's rows (`bench.suite.meaning`)."""

    def cell(key: str, fmt: str) -> Cell:
        return lambda r: fmt.format(r["meaning"][key]) if r.get("meaning") else "-"

    def pair(prefix: str) -> Cell:
        def figure(r: dict[str, Any]) -> str:
            m = r.get("meaning")
            return f"{m[prefix + '_p50_ms']:.2f} / {m[prefix + '_p99_ms']:.2f}" if m else "-"

        return figure

    def early(r: dict[str, Any]) -> str:
        m = r.get("meaning")
        if not m:
            return "-"
        return (
            f"{m['early_words_only']} of {m['early_routes']} by words; "
            f"{m['early_p50_ms']:.1f} / {m['early_p99_ms']:.1f}"
        )

    def status(r: dict[str, Any]) -> str:
        m = r.get("meaning")
        return f"{m['status_p50_ms']:.1f} / {m['status_max_ms']:.1f}" if m else "-"

    return [
        ("meaning: every entry embedded in the daemon's background (s)", cell("embed_s", "{:.1f}")),
        ("meaning: ... per 1,000 entries (s)", cell("embed_per_1000_s", "{:.1f}")),
        ("meaning: routes while embedding, by words alone; p50 / p99 (ms)", early),
        ("meaning: status while the model loads and embeds, p50 / max (ms)", status),
        ("meaning: daemon RSS with the vectors in (MiB)", cell("rss_mib", "{:.0f}")),
        ("meaning: ... its meaning process's RSS (MiB)", cell("process_rss_mib", "{:.0f}")),
        ("meaning: one file added, until fused again (s)", cell("edit_s", "{:.2f}")),
        ("meaning: ... of which the vectors' rebuild (s)", cell("edit_build_s", "{:.2f}")),
        ("meaning off: route p50 / p99 through the socket (ms), in turn", pair("off")),
        ("meaning live: route p50 / p99 through the socket (ms), in turn", pair("live")),
        ("meaning live adds to a route, p50 / p99 (ms)", pair("added")),
    ]


def anchor_rows(lengths: tuple[int, ...]) -> list[tuple[str, Cell]]:
    """Return the anchors' rows: versions, build, RSS, then per query set kroute's, tantivy's
    and bm25s's p50 / p99 timed in turn, the kroute / tantivy ratios, and how far kroute's
    pointers are among the anchors' top 5."""
    names = [SHORT, *map(str, lengths)]
    labels = ["short tasks", *(f"{length:,}-word tasks" for length in lengths)]
    sets = " / ".join(["short", *(f"{length:,}" for length in lengths)]) + " words"
    rows: list[tuple[str, Cell]] = [
        ("anchors, in a venv of their own", anchor_about),
        ("anchors' index build, tantivy / bm25s (s)", anchor_build),
        ("anchors' process peak RSS, both indexes (MiB)", anchor_rss),
    ]
    for name, label in zip(names, labels, strict=True):
        rows.append(
            (f"{label}, kroute in daemon p50 / p99 (ms), in turn", anchor_times(name, "kroute"))
        )
        for engine in ANCHORS:
            rows.append((f"{label}, {engine} p50 / p99 (ms), in turn", anchor_times(name, engine)))
    rows += [
        (f"kroute / tantivy p50 (x), {sets}", per_set(names, ratio("p50"))),
        (f"kroute / tantivy p99 (x), {sets}", per_set(names, ratio("p99"))),
        (
            f"tasks kroute answered with pointers, {sets}",
            per_set(names, lambda f: f"{f['answered']}/{f['tasks']}"),
        ),
    ]
    for engine in ANCHORS:
        rows.append(
            (
                f"kroute's pointers in {engine}'s top {TOP_K} (%), {sets}",
                per_set(names, held(engine)),
            )
        )
    rows.append(
        (
            f"top-{TOP_K} ids tantivy and bm25s share, mean, {sets}",
            per_set(names, lambda f: f"{f['common']:.1f}"),
        )
    )
    crowds = " / ".join(map(str, CROWDS))
    rows += [
        (f"{crowds} clients, kroute routes/s, in turn with tantivy", served("kroute")),
        (f"{crowds} clients, tantivy behind the same server, routes/s", served("tantivy")),
        (f"{crowds} clients, kroute / tantivy routes/s (x)", served_ratio),
        (f"{crowds} clients, cores busy: kroute's daemon", served("kroute", "cores")),
        (f"{crowds} clients, cores busy: tantivy's server", served("tantivy", "cores")),
    ]
    return rows


def served(engine: str, figure: str = "routes_per_s") -> Cell:
    """Return the cell of `engine`'s routes/s (or another `concurrent` figure) at each count
    of clients, measured in turn (`bench.anchor.beside.served_crowds`), `-` without."""
    fmt = "{:.0f}" if figure == "routes_per_s" else "{:.2f}"

    def cell(r: dict[str, Any]) -> str:
        crowds = (anchored(r) or {}).get("crowds")
        if not crowds:
            return "-"
        return " / ".join(fmt.format(crowds[str(n)][engine][figure]) for n in CROWDS)

    return cell


def served_ratio(r: dict[str, Any]) -> str:
    """Return the cell of kroute's routes/s over tantivy's at each count of clients."""
    crowds = (anchored(r) or {}).get("crowds")
    if not crowds:
        return "-"
    pairs = [(crowds[str(n)]["kroute"], crowds[str(n)]["tantivy"]) for n in CROWDS]
    return " / ".join(f"{k['routes_per_s'] / t['routes_per_s']:.2f}" for k, t in pairs)


def table(results: list[dict[str, Any]], lengths: tuple[int, ...] = task.LENGTHS) -> str:
    """Return the one table of every size's figures, a column a size; with the anchors'
    rows when some size has them."""
    head = "| measure | " + " | ".join(f"{int(r['entries']):,}" for r in results) + " |"
    rule = "|---|" + "---:|" * len(results)
    lines = [head, rule]
    beside = anchor_rows(lengths) if any(r.get("anchors") for r in results) else []
    beside += meaning_rows() if any(r.get("meaning") for r in results) else []
    for label, cell in (*ROWS, *length_rows(lengths), *beside, *CLOSING_ROWS):
        lines.append(f"| {label} | " + " | ".join(cell(r) for r in results) + " |")
    return "\n".join(lines)
