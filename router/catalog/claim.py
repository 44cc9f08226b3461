"""Which entry holds which id, and what a skill folder holds (DESIGN 4.1).

Each file is read alone (`document`, `catalog`); what its entry is called and what it holds
can depend on the other files. An id taken from a path stem stays the stem where no other
entry claims it and is qualified by its path where it does; an id an author wrote that
repeats is a diagnostic, and the first by path order keeps it. A folder holding SKILL.md is
one entry: its other Markdown pages (nested skills' aside) are body sections of the skill's.
Entries compete for an id within their `key`, so a change to one file touches only the keys
its entries (and the skill folders it lies in) name: see `affected`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import PurePosixPath

from router.catalog import entry, walk
from router.catalog.diagnostic import WARNING, Diagnostic, FileResult
from router.catalog.entry import Entry, Section

SKILL_FILE = "SKILL.md"
# The pages of one skill folder together, as body characters: past it the remaining pages
# are left out with a warning, so that one folder cannot make an entry every route that
# reads its body pays for without bound.
MAX_FOLDED_CHARS = 1024 * 1024


@dataclass(frozen=True)
class Settled:
    """The entries of a catalog's files once ids and skill folders are settled, by key: what
    an update needs to settle again only the keys a change touches (`resettled`)."""

    groups: Mapping[str, tuple[Entry, ...]]  # key -> the entries that hold an id under it
    owners: Mapping[str, str]  # a skill folder's page -> that folder
    pages: Mapping[str, tuple[str, ...]]  # a skill folder -> its pages, path order
    skills: frozenset[str]  # the folders whose SKILL.md gives an entry
    claimants: Mapping[str, tuple[str, ...]]  # key -> the files (not pages) claiming it
    troubles: Mapping[str, tuple[Diagnostic, ...]]  # key -> its ids lost, pages left out

    @cached_property
    def entries(self) -> tuple[Entry, ...]:
        """Return every entry, path order, ids unique."""
        return tuple(sorted((e for held in self.groups.values() for e in held), key=_place))

    @cached_property
    def problems(self) -> tuple[Diagnostic, ...]:
        """Return the diagnostics of ids that repeat and pages left out of a skill."""
        return tuple(sorted((d for ds in self.troubles.values() for d in ds), key=_path))


def key(item: Entry) -> str:
    """Return the name an entry's id competes under: its stem when the id was taken from
    its path, else the id's last `/` part (so an author's `build/_index` meets the qualified
    ids of the `_index` stems)."""
    return item.stem or item.id.rsplit("/", 1)[-1]


def settled(files: Mapping[str, FileResult]) -> Settled:
    """Return the entries of per-file results with their ids settled (`ids`) and each skill
    folder's pages folded into its skill's entry (`folded`)."""
    paths = sorted(files)
    skills = frozenset(_folder(p) for p in paths if _is_skill(p) and files[p].entries)
    owners = _owners(files, paths, skills)
    pages: dict[str, list[str]] = {}
    for page, folder in owners.items():
        pages.setdefault(folder, []).append(page)
    claimants: dict[str, list[str]] = {}
    for path in paths:
        if path not in owners:
            for name in dict.fromkeys(key(item) for item in files[path].entries):
                claimants.setdefault(name, []).append(path)
    held = {name: tuple(found) for name, found in claimants.items()}
    return _settle(
        files,
        {},
        {},
        owners,
        {folder: tuple(found) for folder, found in pages.items()},
        skills,
        held,
        held,
    )


def resettled(
    was: Settled,
    before: Mapping[str, FileResult],
    after: Mapping[str, FileResult],
    changed: Iterable[str],
) -> Settled:
    """Return the settlement of the files `after`, from `was` (that of the files `before`)
    and the paths that `changed`; it equals `settled(after)`, but only the keys the change
    touches (`affected`) are settled again. A SKILL.md that starts or stops giving an entry
    moves the pages below it: the whole catalog is settled again."""
    changed = set(changed)
    if any(_is_skill(p) and _gives(before, p) != _gives(after, p) for p in changed):
        return settled(after)
    owners = dict(was.owners)
    folders: set[str] = set()
    for path in changed:
        if path in owners:
            folders.add(owners.pop(path))
        folder = _owner(after, path, was.skills)
        if folder is not None:
            owners[path] = folder
            folders.add(folder)
    pages = dict(was.pages)
    for folder in folders:
        found = sorted(p for p, f in owners.items() if f == folder)
        if found:
            pages[folder] = tuple(found)
        else:
            pages.pop(folder, None)
    # the claimants of every key a changed file's entries held or hold, with that file
    # taken out or put in (in path order)
    claimants = dict(was.claimants)
    for files, keep in ((before, False), (after, True)):
        for path in sorted(changed):
            if path not in files or (keep and path in owners) or (not keep and path in was.owners):
                continue
            for name in dict.fromkeys(key(item) for item in files[path].entries):
                held = [p for p in claimants.get(name, ()) if p != path]
                if keep:
                    held = sorted([*held, path])
                claimants[name] = tuple(held)
    partial = Settled(was.groups, owners, pages, was.skills, claimants, was.troubles)
    keys = affected(before, was, after, partial, changed)
    for name in [n for n in keys if not claimants.get(n)]:
        claimants.pop(name, None)
    return _settle(
        after,
        dict(was.groups),
        dict(was.troubles),
        owners,
        pages,
        was.skills,
        claimants,
        {name: claimants.get(name, ()) for name in keys},
    )


def _settle(
    files: Mapping[str, FileResult],
    groups: dict[str, tuple[Entry, ...]],
    troubles: dict[str, tuple[Diagnostic, ...]],
    owners: Mapping[str, str],
    pages: Mapping[str, tuple[str, ...]],
    skills: frozenset[str],
    claimants: Mapping[str, tuple[str, ...]],
    todo: Mapping[str, Iterable[str]],
) -> Settled:
    """Return the settlement with each key of `todo` (key -> its claimants, path order)
    settled again into `groups` and `troubles` (both updated in place)."""
    for name, paths in todo.items():
        claimed = [item for path in paths for item in files[path].entries if key(item) == name]
        groups.pop(name, None)
        troubles.pop(name, None)
        if not claimed:
            continue
        held, lost = ids(claimed) if len(claimed) > 1 else ((claimed[0],), ())
        notes = list(lost)
        out = []
        for item in held:
            folder = _folder(item.path)
            if _is_skill(item.path) and folder in pages:
                item, left = folded(item, folder, (files[p] for p in pages[folder]))
                notes.extend(left)
            out.append(item)
        groups[name] = tuple(out)
        if notes:
            troubles[name] = tuple(notes)
    return Settled(groups, owners, pages, skills, claimants, troubles)


def ids(claims: Iterable[Entry]) -> tuple[tuple[Entry, ...], tuple[Diagnostic, ...]]:
    """Return the entries of one key (in path order) with their ids settled, and a
    diagnostic per entry left out.

    An author's id goes to the first entry by path that writes it. A stem id stays the stem
    when it is the only claim on it; else each stem entry gets the shortest end of its path
    (without the extension) no other stem entry of the key shares and no author holds, or
    its whole path. A skill-rules.json rule joins the entry of its name (`entry.merged`)."""
    authored: dict[str, Entry] = {}
    stems: list[Entry] = []
    rules: dict[str, list[Entry]] = {}
    lost: list[Diagnostic] = []
    claims = list(claims)
    for item in claims:
        if entry.is_trigger(item):
            rules.setdefault(item.id, []).append(item)
        elif item.stem:
            stems.append(item)
        elif item.id in authored:
            lost.append(
                Diagnostic(
                    item.file,
                    f"id `{item.id}` is already used by {authored[item.id].path}; "
                    "this entry is skipped (give it a unique id)",
                )
            )
        else:
            authored[item.id] = item
    held = dict(authored)
    if len(stems) == 1 and stems[0].id not in held:
        held[stems[0].id] = stems[0]
    else:
        bases = [_base(item) for item in stems]
        ends: dict[tuple[str, ...], int] = Counter(
            base[-size:] for base in bases for size in range(2, len(base) + 1)
        )
        for item, base in zip(stems, bases, strict=True):
            ident = _qualified(item, base, ends, held)
            held[ident] = replace(item, id=ident)
    for name, merging in rules.items():
        skill = held.get(name)
        held[name] = entry.merged([skill, *merging] if skill is not None else merging)
    return tuple(sorted(held.values(), key=_place)), tuple(lost)


def folded(
    skill: Entry, folder: str, pages: Iterable[FileResult]
) -> tuple[Entry, tuple[Diagnostic, ...]]:
    """Return a skill's entry with the entries of its folder's pages as body sections (each
    section naming its page, the page's title heading its opening text), and a warning when
    pages past MAX_FOLDED_CHARS were left out."""
    body = list(skill.body)
    room = MAX_FOLDED_CHARS
    left: list[str] = []
    for page in pages:
        for item in page.entries:
            sections = _page_sections(item, item.path[len(folder) + 1 :] if folder else item.path)
            size = sum(len(s.heading) + len(s.text) for s in sections)
            if size > room:
                left.append(item.path)
                continue
            room -= size
            body.extend(sections)
    notes: tuple[Diagnostic, ...] = ()
    if left:
        notes = (
            Diagnostic(
                skill.file,
                f"{len(left)} pages of the skill folder left out of its entry, past "
                f"{MAX_FOLDED_CHARS} characters, such as {left[0]}",
                WARNING,
            ),
        )
    return replace(skill, body=tuple(body)), notes


def affected(
    before: Mapping[str, FileResult],
    was: Settled,
    after: Mapping[str, FileResult],
    now: Settled,
    changed: Iterable[str],
) -> set[str]:
    """Return the keys whose entries may differ between two settlements (`was` of the files
    `before`, `now` of those `after`) when the files `changed` (repository-relative): the
    keys of the files' entries and of the skills they are pages of, and for a SKILL.md also
    those of the pages it takes or gives back."""
    sides = ((before, was), (after, now))
    keys: set[str] = set()
    for path in changed:
        touched = [path]
        if _is_skill(path):
            touched.extend(p for _, side in sides for p in side.pages.get(_folder(path), ()))
        for files, side in sides:
            for one in touched:
                keys.update(_keys_of(files, side, one))
    return keys


def _keys_of(files: Mapping[str, FileResult], side: Settled, path: str) -> set[str]:
    """Return the keys a file's entries compete under, and that of the skill it is a page
    of, in one settlement."""
    found = {key(e) for e in files[path].entries} if path in files else set()
    folder = side.owners.get(path)
    if folder is not None:
        skill = f"{folder}/{SKILL_FILE}" if folder else SKILL_FILE
        found.update(key(e) for e in files[skill].entries)
    return found


def _owners(
    files: Mapping[str, FileResult], paths: list[str], skills: frozenset[str]
) -> dict[str, str]:
    """Return, for each Markdown page inside a skill folder, the deepest such folder above
    it. A skill folder is one whose SKILL.md gives an entry; a nested one is its own."""
    owners: dict[str, str] = {}
    if not skills:
        return owners
    for path in paths:
        folder = _owner(files, path, skills)
        if folder is not None:
            owners[path] = folder
    return owners


def _owner(files: Mapping[str, FileResult], path: str, skills: frozenset[str]) -> str | None:
    """Return the skill folder a file is a page of, None when it is none's."""
    if path not in files or walk.format_of(path) != "markdown" or not files[path].entries:
        return None
    folder = _folder(path)
    while folder not in skills and folder:
        folder = _folder(folder)
    return folder if folder in skills else None


def _gives(files: Mapping[str, FileResult], path: str) -> bool:
    return path in files and bool(files[path].entries)


def _page_sections(item: Entry, page: str) -> tuple[Section, ...]:
    """Return a page's sections as its skill holds them: named by `page`, the page's title
    heading the text before its first heading (or standing as a section of its own)."""
    sections = [replace(s, page=page) for s in item.body]
    if item.title:
        if sections and not sections[0].heading:
            sections[0] = replace(sections[0], heading=item.title)
        else:
            sections.insert(0, Section("", item.title, page))
    return tuple(sections)


def _base(item: Entry) -> tuple[str, ...]:
    """Return the parts of an entry's path up to the one its stem was taken from, that one
    as the stem: `a/b/intro.md` -> (a, b, intro); a skill's `a/pdf/SKILL.md` -> (a, pdf)."""
    parts = PurePosixPath(item.path).parts
    for at in range(len(parts) - 1, -1, -1):
        if parts[at] == item.stem or parts[at].startswith(item.stem + "."):
            return (*parts[:at], item.stem)
    return parts


def _qualified(
    item: Entry,
    base: tuple[str, ...],
    ends: Mapping[tuple[str, ...], int],
    held: Mapping[str, Entry],
) -> str:
    """Return the shortest end of `base` (two parts or more) that no other base of its key
    ends with (`ends` counts them) and no entry holds, else the entry's path."""
    for size in range(2, len(base) + 1):
        end = base[-size:]
        ident = "/".join(end)
        if ends[end] == 1 and ident not in held:
            return ident
    return item.path


def _is_skill(path: str) -> bool:
    return path.rsplit("/", 1)[-1] == SKILL_FILE


def _folder(path: str) -> str:
    return path.rpartition("/")[0]


def _place(item: Entry) -> str:
    return item.file


def _path(problem: Diagnostic) -> str:
    return problem.path
