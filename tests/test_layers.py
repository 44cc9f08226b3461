"""The layers of DESIGN 3, as the tree shows them: packages import only downward, no module
imports itself back through others, the hook's and client's modules stay light, and of the engine
only the catalog reads the disk (ranking and route compute on what it read)."""

from __future__ import annotations

import ast
from pathlib import Path

from testing.paths import REPO

ROUTER = REPO / "router"
# Lowest first: a package may import its own modules and those of the packages before it.
LAYERS = (
    "base",
    "client",
    "filters",
    "core",
    "catalog",
    "ranking",
    "route",
    "harnesses",
    "meaning",
    "runtime",
    "evaluation",
    "logbook",
    "serve",
    "integrations",
    "cli",
)
# What importing a module a hook process loads pulls in: the standard library and these only
# (the hook's slow path imports the service when it runs, and only then).
LIGHT = {
    "router.client": {
        "router",
        "router.base.errors",
        "router.client.locate",
        "router.client.presence",
        "router.client.trust",
        "router.client.wire",
    },
    "router.serve.launcher": {
        "router",
        "router.base.errors",
        "router.client",
        "router.client.locate",
        "router.client.presence",
        "router.client.trust",
        "router.client.wire",
    },
    # the fast path: the package's version, the client's locate, trust and wire (see test_hook)
    "router.integrations.hook": {
        "router",
        "router.base.errors",
        "router.client.locate",
        "router.client.wire",
    },
    "router.core.shown": set(),
    "router.core.text": set(),
    "router.client.locate": set(),
    "router.client.trust": {"router.base.errors"},
    "router.client.wire": {"router.client.trust"},
    "router.client.presence": {"router.client.locate", "router.client.trust"},
    "router.client.payload": set(),
    "router.harnesses.events": {"router.client.payload", "router.core.text"},
    "router.harnesses.opening": {"router.client.payload", "router.core.text"},
    "router.base.errors": set(),
}


# The packages that only compute: what they read comes to them from the catalog's reader.
PURE = ("ranking", "route")
# What reads or walks the disk: these modules and names, and calls of these attributes.
DISK_MODULES = {"os", "pathlib", "io", "shutil", "glob", "tempfile", "mmap"}
DISK_CALLS = {"open", "read_text", "read_bytes", "write_text", "write_bytes", "stat", "scandir"}


def modules() -> dict[str, Path]:
    found = {}
    for path in sorted(ROUTER.rglob("*.py")):
        parts = path.relative_to(REPO).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def imports(path: Path, name: str, *, lazy: bool = True) -> set[str]:
    """Return the router modules a module imports: anywhere in it, or (`lazy=False`) only
    when it is imported (a function's own imports run when it is called)."""
    out: set[str] = set()
    known = modules()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree) if lazy else tree.body:
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("router"))
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("router"):
            for alias in node.names:
                child = f"{node.module}.{alias.name}"
                out.add(child if child in known else node.module)
    out.discard(name)
    return out


def layer(module: str) -> int | None:
    parts = module.split(".")
    return LAYERS.index(parts[1]) if len(parts) > 1 and parts[1] in LAYERS else None


def test_the_top_level_holds_only_packages() -> None:
    loose = sorted(
        p.name for p in ROUTER.glob("*.py") if p.name not in ("__init__.py", "__main__.py")
    )
    assert loose == []
    assert {p.name for p in ROUTER.iterdir() if p.is_dir() and (p / "__init__.py").exists()} >= set(
        LAYERS
    )


def test_packages_import_only_downward() -> None:
    against = []
    for name, path in modules().items():
        own = layer(name)
        if own is None:
            continue
        for target in imports(path, name):
            theirs = layer(target)
            if theirs is not None and theirs > own:
                against.append(f"{name} imports {target}")
    assert against == []


def test_no_import_cycle() -> None:
    known = modules()
    graph = {name: {t for t in imports(path, name) if t in known} for name, path in known.items()}
    # a package's __init__ that imports nothing of its own is not a cycle through it
    cycles = []
    state: dict[str, int] = {}

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        for target in sorted(graph[node]):
            if target.count(".") < 2 and not graph.get(target):  # a bare package
                continue
            if state.get(target) == 1:
                cycles.append(" -> ".join([*stack[stack.index(target) :], target]))
            elif target not in state:
                visit(target, [*stack, target])
        state[node] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])
    assert cycles == []


def test_the_light_modules_import_only_what_a_hook_may() -> None:
    known = modules()
    for name, allowed in LIGHT.items():
        assert imports(known[name], name, lazy=False) <= allowed, name


def test_only_the_catalog_reads_the_disk() -> None:
    readers: list[str] = []
    for name, path in modules().items():
        parts = name.split(".")
        if len(parts) < 2 or parts[1] not in PURE:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found = {a.name.split(".")[0] for a in node.names} & DISK_MODULES
            elif isinstance(node, ast.ImportFrom):
                found = {(node.module or "").split(".")[0]} & DISK_MODULES
            elif isinstance(node, ast.Call):
                func = node.func
                called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
                found = {called} & DISK_CALLS
            else:
                continue
            readers.extend(f"{name}: {f}" for f in sorted(found))
    assert readers == []
