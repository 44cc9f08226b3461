"""Request -> response: the one path shared by the daemon, the CLI fallback, replay and tests.

The engine owns a configuration, the catalog read from it and the index over that catalog.
It reads files only through `catalog`; clock and environment come from its callers.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from router import __version__
from router.catalog import claim, pattern, reader
from router.catalog.config import Config
from router.catalog.reader import Catalog
from router.core import deadline, text
from router.filters import intent, relevance, symbols
from router.ranking import breakdown
from router.ranking.index import Index
from router.route import admission, assembly, contract, fusion, render, whynot
from router.runtime.intake import ExplainAsk, FocusAsk, RouteAsk, WhyNotAsk

# how many neighbours by meaning a route takes (the meaning extra): those `fusion` fuses
NEIGHBOURS = fusion.DEPTH


@dataclass(frozen=True, slots=True)
class Routed:
    """A route answered: the route's records (what a hook's report is built from) and its
    JSON document (DESIGN 7)."""

    route: contract.Route
    document: dict[str, Any]


class Engine:
    """A loaded catalog with its index, answering route and explain requests."""

    def __init__(
        self, config: Config, cat: Catalog, version: str = __version__, index: Index | None = None
    ) -> None:
        self.config = config
        self.intent_defaults = strategy_defaults(config)
        self.catalog = cat
        self.version = version
        self.index = Index(cat.entries) if index is None else index
        # task, k -> what meaning says of it (its k nearest entries, every entry's
        # similarity), or None when the task's vector cannot be had in time (the daemon's
        # meaning process is busy, starting or gone); set once entry vectors are ready (the
        # meaning extra), None until then and without it
        self.nearby: Callable[[str, int], fusion.Nearness | None] | None = None

    @classmethod
    def of_parts(cls, config: Config, cat: Catalog, index: Index, version: str) -> Engine:
        """Return an engine over a catalog and the index already built from it (a snapshot's):
        nothing is read or indexed again."""
        return cls(config, cat, version, index)

    @classmethod
    def load(cls, config: Config, version: str = __version__) -> Engine:
        """Return an engine over the catalog the config names. Never raises for bad files."""
        return cls(config, reader.load(config), version)

    # -- requests --------------------------------------------------------------------------

    def route(self, ask: RouteAsk, stop: deadline.Stop | None = None) -> dict[str, Any]:
        """Return the route document (DESIGN 7) of a request (`routed`'s document)."""
        return self.routed(ask, stop).document

    def routed(self, ask: RouteAsk, stop: deadline.Stop | None = None) -> Routed:
        """Return the route of a request with its document. Raises RequestError for a
        focus that cannot be read as one.

        With `strategy: "auto"` the task is classified (DESIGN 9): the budget comes from the
        strategy unless the request gives one, and the intent is recorded in the answer.
        When `stop` says to stop (before the focus is read, or part way through the route),
        the answer is silence with reason `deadline`."""
        nearness: fusion.Nearness | None = None
        if stop is not None and stop():
            request, classified = ask.request, None
            answer = contract.abandoned(request)
        else:
            request, classified = self._prepare(ask)
            if ask.meaning != "off" and self.nearby is not None:
                nearness = self.nearby(request.task, NEIGHBOURS)
            if ask.meaning == "live":
                request = replace(request, meaning=nearness)
            answer = self.assemble(request, stop)
        extra: dict[str, Any] = {}
        if request.focus is not None or ask.focus is not None:
            extra["filtered_by_focus"] = answer.filtered_by_focus
        if ask.meaning != "off":
            # what the shadow log compares: the neighbours beside the lexical pointers
            extra["meaning"] = {
                "mode": ask.meaning,
                "ready": nearness is not None,
                "neighbours": [n.id for n in (nearness.nearest if nearness else ())][
                    : fusion.SHOWN
                ],
            }
        document = self.document(
            answer, intent=intent.as_dict(classified) if classified else None, **extra
        )
        return Routed(answer, document)

    def prepared(self, ask: RouteAsk) -> contract.Request:
        """Return the request `route` assembles for `ask`: its focus read, and with `strategy:
        "auto"` the strategy and (unless given) the budget the task's intent picks. Raises
        RequestError for a focus that cannot be read as one."""
        return self._prepare(ask)[0]

    def _prepare(self, ask: RouteAsk) -> tuple[contract.Request, intent.Intent | None]:
        request = ask.request
        if ask.focus is not None:
            request = replace(request, focus=self.focus(ask.focus))
        if not ask.auto:
            return request, None
        classified = intent.classify(request.task, self.intent_defaults)
        budget = request.budget
        if not ask.budget_given and classified.skip != "short":
            budget = classified.token_budget
        return replace(request, strategy=classified.strategy, budget=budget), classified

    def why_not(self, ask: WhyNotAsk) -> dict[str, Any]:
        """Return why the entry `ask` names was or was not offered (`whynot.WhyNot.as_dict`),
        with the engine version and catalog fingerprint. Raises whynot.UnknownEntryError for an
        entry the catalog lacks, RequestError for a bad request."""
        request = self.prepared(ask.route)
        answer = whynot.explain(self.index, self.config.taxonomy, request, ask.entry)
        return {
            **answer.as_dict(),
            "task": request.task,
            "engine": {"version": self.version},
            "catalog": {"fingerprint": self.catalog.fingerprint, "entries": len(self.index)},
        }

    def listing(self, kind: str | None = None) -> dict[str, Any]:
        """Return `{entries: [{id, path, kind, title, summary}]}` in path order (id on ties),
        only the entries of `kind` when given (compared as route filters compare it)."""
        wanted = text.normalize(kind) if kind else None
        chosen = [
            e
            for e in sorted(self.index.entries(), key=lambda e: (e.path, e.id))
            if wanted is None or text.normalize(e.kind) == wanted
        ]
        return {
            "entries": [
                {"id": e.id, "path": e.path, "kind": e.kind, "title": e.title, "summary": e.summary}
                for e in chosen
            ]
        }

    def orientation(self) -> dict[str, Any]:
        """Return what a session start shows: roots, entries by kind, always-apply entries."""
        kinds = Counter(e.kind for e in self.index.entries())
        return {
            "entries": len(self.index),
            "kinds": dict(sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0]))),
            "roots": [r for r in self.config.roots if (self.config.root / r).exists()],
            "always_apply": [
                {"path": e.path, "summary": e.summary}
                for e in self.index.entries()
                if e.always_apply
            ],
        }

    def focus(self, ask: FocusAsk) -> relevance.Focus:
        """Return the focus of a request. The file is read when the request does not hold
        its text, and only when it lies inside the repository (and under 1 MiB); elsewhere
        only its path counts."""
        path = ask.path
        content = ask.content if ask.content is not None else self._read_inside(path)
        relative = path
        absolute = Path(path)
        if absolute.is_absolute():
            try:
                relative = absolute.resolve().relative_to(self.config.root).as_posix()
            except (OSError, ValueError):
                relative = path
        found = symbols.classify(content, relative)
        return relevance.Focus(relative, content, found.defined, found.imported)

    def _read_inside(self, path: str) -> str:
        """Return the text of a focus file (undecodable bytes replaced), or "" when it lies
        outside the repository, is not a regular file (a FIFO would block the route, and
        every route after it), is over catalog.MAX_FILE_BYTES, is a symlink loop, or
        cannot be read. Never raises."""
        candidate = Path(path)
        if not candidate.is_absolute():
            candidate = self.config.root / candidate
        try:
            resolved = candidate.resolve()
            resolved.relative_to(self.config.root)
            raw = reader.read_regular(resolved)
        except (OSError, RuntimeError, ValueError):  # RuntimeError: a loop, before 3.13
            return ""
        return raw.decode("utf-8", errors="replace")

    def assemble(
        self, request: contract.Request, stop: deadline.Stop | None = None
    ) -> contract.Route:
        """Return the route of a validated request (silence, `deadline`, when `stop` stops it:
        see `assembly.assemble`)."""
        return assembly.assemble(self.index, self.config.taxonomy, request, stop)

    def document(
        self, answer: contract.Route, intent: Mapping[str, Any] | None = None, **extra: Any
    ) -> dict[str, Any]:
        """Return the JSON document of a route."""
        return render.route_json(
            answer,
            version=self.version,
            fingerprint=self.catalog.fingerprint,
            entries=len(self.index),
            stale=len(self.catalog.stale),
            intent=intent,
            extra=extra or None,
        )

    def explain(self, ask: ExplainAsk) -> dict[str, Any]:
        """Return seed 1's explain record of a request."""
        request, problem, limit = ask.request, ask.request.task, ask.limit
        q = breakdown.query(self.index, problem)
        admitted = admission.of(self.config.taxonomy, request)
        rows = [s for s in breakdown.reached(self.index, q) if admitted(s.indexed.entry)]
        return render.explain(
            rows,
            problem=problem,
            domain=request.domain,
            cluster=request.cluster,
            limit=limit,
            sources=sorted({s.indexed.entry.file for s in rows}),
            no_terms=not q.tokens,
        )

    # -- catalog changes ---------------------------------------------------------------------

    def update(self, changed: Iterable[str], fresh: Catalog | None = None) -> None:
        """Re-read the changed files (repository-relative) and bring the index in line, in
        place: see `updated`. The caller keeps routes out while this runs."""
        after = self.updated(changed, fresh)
        self.catalog, self.index = after.catalog, after.index

    def updated(self, changed: Iterable[str], fresh: Catalog | None = None) -> Engine:
        """Return an engine over this one's catalog with the changed files (repository-
        relative) re-read; this one is left as it is, so requests holding it answer from it
        whole meanwhile. Only the entries of the keys the changed files touch
        (`claim.affected`: their ids, the skills they are pages of) are replaced, as a fresh
        load would settle them; the index is a copy sharing the rest (`Index.revised`). A
        caller that has already read the files passes `fresh` (`catalog.refresh(config,
        self.catalog, changed)`, its `settled` read there too)."""
        changed = {pattern.clean(p) for p in changed}
        before = self.catalog
        after = fresh if fresh is not None else reader.refresh(self.config, before, changed)
        was, now = before.settled, after.settled
        keys = claim.affected(before.files, was, after.files, now, changed)
        held = [e for name in sorted(keys) for e in now.groups.get(name, ())]
        kept = {e.id for e in held}
        gone = {i.id for name in keys for i in was.groups.get(name, ()) if i.id not in kept}
        added = [item for item in held if self.index.get(item.id) != item]
        engine = Engine.of_parts(self.config, after, self.index.revised(gone, added), self.version)
        engine.nearby = self.nearby  # the vectors worker makes the new ones (`vectors`)
        return engine

    def reload(self) -> None:
        """Re-read the whole catalog and rebuild the index."""
        self.catalog = reader.load(self.config)
        self.index = Index(self.catalog.entries)


def strategy_defaults(config: Config) -> dict[str, intent.StrategyDefaults]:
    """Return the per-strategy defaults with the config's [intent.strategies] table laid
    over them. Raises ConfigError for a bad value."""
    table = config.intent.get("strategies", {})
    return intent.defaults_from_config(table if isinstance(table, Mapping) else {})
