"""The bench's command line: `python scripts/bench.py [options]` (or `python -m bench` from
the checkout's root) runs the main suite over every --sizes catalog and prints one table, then
the spot timings; --hooks, --imports, --anchors and --meaning add to it; --churn, --cold,
--first-prompt and --onboarding each run only their own suite.

    python scripts/bench.py [--sizes 1000,10000,100000] [--queries 300] [--no-bodies]
        [--lengths 10,100,1000,5000] [--length-queries 100] [--crowd-seconds 10] [--workdir DIR]
        [--fresh] [--hooks] [--imports] [--anchors] [--meaning] [--json] [--churn]
    python scripts/bench.py --imports --sizes ''   # only what the CLI and the hook import
    python scripts/bench.py --first-prompt [--first-prompt-runs 3] [--turn 5] [--sizes 1000,5000]
    python scripts/bench.py --onboarding [--against OTHER_CHECKOUT] [--onboarding-runs 5]
    python scripts/bench.py --cold [--anchors] [--cold-rounds 2] [--real 5000] [--sizes ...]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

from bench import cache, paths, table, task
from bench.anchor import ANCHORS
from bench.anchor.beside import ANCHORS_VENV, anchors_python
from bench.probe import CROWD_SECONDS
from bench.suite import churn, cold, firstprompt, hooks, imports, onboarding, size, spot

DESCRIPTION = (
    "Benchmarks (DESIGN 13): synthetic catalogs of 1k / 10k / 100k entries written as real "
    "files, loaded and routed by a daemon beside tantivy and bm25s; prints one table."
)
DEFAULT_SIZES = "1000,10000,100000"
FIRST_PROMPT_SIZES = (1000, 5000)


def int_list(text: str) -> tuple[int, ...]:
    """Return the integers of a comma-separated list (`1_000` allowed, blanks skipped)."""
    return tuple(int(part.replace("_", "")) for part in text.split(",") if part.strip())


def parser() -> argparse.ArgumentParser:
    """Return the bench's argument parser."""
    out = argparse.ArgumentParser(prog="bench.py", description=DESCRIPTION)
    out.add_argument("--sizes", default=DEFAULT_SIZES)
    out.add_argument("--queries", type=int, default=300, help="Short tasks per size.")
    out.add_argument(
        "--lengths",
        default=",".join(map(str, task.LENGTHS)),
        help="Task lengths in words to time besides the short tasks ('' for none).",
    )
    out.add_argument("--length-queries", type=int, default=100, help="Tasks per length and size.")
    out.add_argument(
        "--crowd-seconds",
        type=float,
        default=CROWD_SECONDS,
        help="How long each count of clients at once routes (default %(default)s).",
    )
    out.add_argument(
        "--no-bodies",
        action="store_true",
        help="Write the old catalogs: front matter only, no bodies, no ADRs.",
    )
    out.add_argument(
        "--workdir",
        type=Path,
        default=Path(tempfile.gettempdir()) / f"kroute-bench-{os.getuid()}",
        help="Where catalogs are written and kept for the next run (default: %(default)s).",
    )
    out.add_argument("--keep", type=Path, help="The same as --workdir (catalogs are kept).")
    out.add_argument(
        "--fresh", action="store_true", help="Write the catalogs again even when kept ones match."
    )
    out.add_argument("--json", action="store_true", help="Print the figures as JSON too.")
    out.add_argument(
        "--hooks",
        action="store_true",
        help="Also time the hooks on the demo, beside a bare curl (a second table).",
    )
    out.add_argument(
        "--imports",
        action="store_true",
        help="Also say what the hook and `kroute route/status/stop` with a daemon up import "
        "(modules and milliseconds, python -X importtime), beside `python -c pass`.",
    )
    out.add_argument(
        "--anchors",
        action="store_true",
        help=f"Time {' and '.join(ANCHORS)} beside kroute (installed into {ANCHORS_VENV} "
        "under the workdir the first time).",
    )
    out.add_argument(
        "--meaning",
        action="store_true",
        help="Also embed every entry (the meaning extra) and time routes with meaning live.",
    )
    only_options(out)
    return out


def only_options(out: argparse.ArgumentParser) -> None:
    """Add the options of the suites that run alone: first prompt, churn, onboarding, cold."""
    out.add_argument(
        "--first-prompt",
        action="store_true",
        help="Only time the first prompts of a session on fresh clones of 1,000 and 5,000 "
        "real documents (the shared corpora; KROUTE_SHARED names them), under two busy "
        "processes (bench.suite.firstprompt).",
    )
    out.add_argument("--first-prompt-runs", type=int, default=3, help="Runs per size.")
    out.add_argument(
        "--turn",
        type=float,
        default=5.0,
        help="With --first-prompt: seconds between the first prompt and the second (the "
        "agent's answer; default %(default)s).",
    )
    out.add_argument(
        "--churn",
        action="store_true",
        help=f"Only the churn run: a git repository of {churn.CHURN_SIZE:,} entries taken "
        f"through {churn.CHURN_ROUNDS * 6} steps of checkouts, renames, deletions and config "
        "saves while requests keep coming.",
    )
    out.add_argument(
        "--onboarding",
        action="store_true",
        help="Only the first minutes: the README's first command in a fresh venv (time, size, "
        "packages) and kroute mcp's initialize (bench.suite.onboarding).",
    )
    out.add_argument(
        "--against", type=Path, help="With --onboarding: another checkout's MCP server, in turn."
    )
    out.add_argument("--onboarding-runs", type=int, default=5, help="initialize runs each.")
    out.add_argument(
        "--cold",
        action="store_true",
        help="Only time cold loads (CPU seconds) of the --sizes catalogs and of --real "
        "replicated real documents, beside tantivy's build with --anchors, and the RSS of a "
        "cold-loaded daemon beside one restored from its snapshot (bench.suite.cold).",
    )
    out.add_argument("--cold-rounds", type=int, default=2, help="Rounds per catalog.")
    out.add_argument(
        "--real",
        type=int,
        default=5000,
        help="With --cold: real documents (the shared corpora replicated; 0 for none).",
    )


def workdir_of(args: argparse.Namespace) -> Path:
    """Return the resolved --workdir (or --keep), made if missing."""
    workdir: Path = (args.keep or args.workdir).resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    return workdir


def first_prompt(args: argparse.Namespace) -> None:
    """Print the first prompts' table (`bench.suite.firstprompt`), or why it was skipped."""
    sizes = int_list(args.sizes) if args.sizes != DEFAULT_SIZES else FIRST_PROMPT_SIZES
    corpora = paths.shared() / "corpora"
    print(firstprompt.bench(workdir_of(args), corpora, sizes, args.first_prompt_runs, args.turn))


def first_minutes(args: argparse.Namespace) -> None:
    """Print the onboarding table (`bench.suite.onboarding`): the README's first command in a
    fresh venv, and `kroute mcp`'s initialize beside another checkout's."""
    print(onboarding.bench(workdir_of(args), args.against, args.onboarding_runs))


def cold_loads(args: argparse.Namespace, workdir: Path) -> None:
    """Print the cold loads' table (`bench.suite.cold`): the synthetic catalogs of --sizes
    and --real replicated real documents, beside tantivy's build with --anchors."""
    catalogs = [(f"bench {n:,}", cache.catalog(workdir, n, True, args.fresh)[0])
                for n in int_list(args.sizes)]  # fmt: skip
    corpora = paths.shared() / "corpora"
    if args.real and firstprompt.corpus_files(corpora):
        repo = firstprompt.template(workdir, corpora, args.real)
        catalogs.insert(0, (f"real {args.real:,} (corpora replicated)", repo))
    python, said = anchors_python(workdir) if args.anchors else (None, "")
    if said:
        print(said, file=sys.stderr, flush=True)
    print(cold.bench(workdir, catalogs, args.cold_rounds, python))


def own_state(workdir: Path) -> None:
    """Point the daemons the bench starts at state and runtime folders under `workdir`."""
    os.environ.setdefault("KROUTE_HOME", str(workdir / "home"))
    os.environ["XDG_RUNTIME_DIR"] = str(workdir / "run")


def main(argv: list[str] | None = None) -> None:
    """Run the suites the command line asks for and print their tables; exit 2 on a usage
    error (a --workdir inside the repository among them)."""
    options = parser()
    args = options.parse_args(argv)
    if args.cold:
        workdir = workdir_of(args)
        own_state(workdir)
        cold_loads(args, workdir)
    elif args.first_prompt:
        first_prompt(args)
    elif args.onboarding:
        first_minutes(args)
    else:
        workdir = (args.keep or args.workdir).resolve()
        if workdir == paths.REPOSITORY or paths.REPOSITORY in workdir.parents:
            options.error(
                f"--workdir {workdir} is inside the repository; choose a directory outside"
            )
        own_state(workdir_of(args))
        run(args, workdir)


def run(args: argparse.Namespace, workdir: Path) -> None:
    """Run the main suite (or only the churn) and the suites added to it; print their tables."""
    anchors, said = anchors_python(workdir) if args.anchors else (None, "")
    if said:
        print(said, file=sys.stderr, flush=True)
    if args.churn:
        print(churn.bench_churn(workdir))
        return
    lengths = int_list(args.lengths)
    results = []
    for n in int_list(args.sizes):
        print(f"benchmarking {n:,} entries in {workdir} ...", file=sys.stderr, flush=True)
        results.append(
            size.bench_size(
                n,
                args.queries,
                workdir,
                bodies=not args.no_bodies,
                fresh=args.fresh,
                lengths=lengths,
                length_queries=args.length_queries,
                crowd_seconds=args.crowd_seconds,
                anchors=anchors,
                meaning=args.meaning,
            )
        )
    if results:
        print(table.table(results, lengths))
    if args.anchors and anchors is None:
        print(said)  # the anchors could not be installed: the table has no rows of theirs
    if args.hooks:
        print()
        print("Hooks end to end on the demo catalog, beside a bare curl round trip:")
        print(hooks.bench_hooks(workdir))
    if args.imports:
        print()
        print(imports.bench_imports(workdir))
    print()
    print(spot.bench_intent())
    print(spot.bench_symbols())
    print(spot.bench_hostile())
    if args.json:
        print(json.dumps(results, indent=2))
