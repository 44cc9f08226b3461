"""The route ranker (router.ranking.rank): BM25F scores, the MaxScore top-k, what reached an entry."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from router.catalog.entry import Entry, Section
from router.core import deadline
from router.ranking import rank, term, wordlist
from router.ranking.index import Index
from router.ranking.posting import IMPACT_STEP


def doc(ident: str, **fields: Any) -> Entry:
    return Entry(id=ident, kind="doc", path=f"docs/{ident}.md", file=f"docs/{ident}.md", **fields)


def ranked(index: Index, task: str, keep: int | None = None) -> list[tuple[float, str]]:
    scoring = rank.scoring(rank.weigh(index, term.of_task(task)), index.size)
    scores, _ = rank.scores(index, scoring, keep)
    return sorted((-s, index.slot(slot).entry.path) for slot, s in scores.items())


def test_title_beats_body_and_more_terms_beat_fewer() -> None:
    index = Index(
        [
            doc("title", title="secret rotation"),
            doc("body", body=(Section("Decision", "we do a secret rotation monthly"),)),
            doc("one", title="rotation of tyres"),
            *[doc(f"f{i}", summary=f"filler {i}") for i in range(5)],
        ]
    )
    order = [path for _, path in ranked(index, "secret rotation")]
    assert order[:3] == ["docs/title.md", "docs/body.md", "docs/one.md"]


def test_one_word_in_a_title_outranks_two_as_rare_said_once_in_passing_in_a_body() -> None:
    # A title says what a record is about; a body of a few hundred words mentions much in
    # passing. ReaderStateContext's review belongs to the record titled "React Context API",
    # not to the one whose long body once says "wrapped" and "updates".
    prose = " ".join(f"filler{i % 97}" for i in range(300))
    index = Index(
        [
            doc("context", title="React Context API"),
            doc(
                "hydration",
                title="Partial hydration",
                body=(Section("Before", f"{prose} wrapped updates"),),
            ),
            # each word held by one more entry, so that the three are equally rare
            doc("x", summary="context menus"),
            doc("y", summary="wrapped lines"),
            doc("z", summary="updates feed"),
            *[doc(f"f{i}", summary=f"filler {i}") for i in range(8)],
        ]
    )
    order = [path for _, path in ranked(index, "I wrapped it in a context and it updates")]
    assert order.index("docs/context.md") < order.index("docs/hydration.md")


def test_the_head_of_a_new_type_name_counts_twice_its_qualifiers_once() -> None:
    # A new `ReaderStateContext` is a context: the record about contexts comes before one
    # about readers, though "reader" is the rarer word here.
    index = Index(
        [
            doc("context", title="React Context API"),
            doc("readers", title="Reader comments"),
            doc("menus", summary="context menus"),
            *[doc(f"f{i}", summary=f"filler {i}") for i in range(8)],
        ]
    )
    task = "I wrapped the page in a new ReaderStateContext"
    weighted = {w.term.word: w for w in rank.weigh(index, term.of_task(task))}
    assert weighted["context"].head and not weighted["reader"].head
    assert weighted["context"].weight == rank.HEAD_WEIGHT * weighted["context"].idf
    assert weighted["reader"].idf > weighted["context"].idf
    order = [path for _, path in ranked(index, task)]
    assert order[0] == "docs/context.md"
    assert order.index("docs/context.md") < order.index("docs/readers.md")


def test_a_type_name_the_catalog_holds_reaches_its_entries_itself() -> None:
    index = Index(
        [
            doc("context", title="React Context API"),
            doc("state", summary="the ReaderStateContext of the article page"),
            *[doc(f"f{i}", summary=f"filler {i}") for i in range(8)],
        ]
    )
    task = "I wrapped the page in a new ReaderStateContext"
    weighted = {w.term.word: w for w in rank.weigh(index, term.of_task(task))}
    assert not weighted["context"].head
    assert weighted["context"].weight == weighted["context"].idf
    assert ranked(index, task)[0][1] == "docs/state.md"


def test_an_action_ranks_what_the_subject_reaches_but_brings_nothing_in() -> None:
    index = Index(
        [
            doc("adding", title="Add a language"),
            doc("llms", title="Create an llms.txt", summary="add one for the site"),
            doc("other", title="llms.txt and robots.txt"),
            *[doc(f"f{i}", summary=f"filler {i}") for i in range(5)],
        ]
    )
    # "add" lifts the llms entry that holds it above the one that does not ...
    assert [path for _, path in ranked(index, "add an llms.txt")] == [
        "docs/llms.md",
        "docs/other.md",
    ]
    # ... and ranks on its own when the task holds nothing else
    assert [path for _, path in ranked(index, "add")] == ["docs/adding.md", "docs/llms.md"]


def test_reach_names_each_term_and_the_field_or_section_it_reached() -> None:
    index = Index(
        [
            doc(
                "a",
                title="Use external secrets",
                body=(Section("Decision", "Pods read the database password after each rotation."),),
            ),
            *[doc(f"f{i}", summary=f"filler {i}") for i in range(5)],
        ]
    )
    weighted = rank.weigh(index, term.of_task("pods keep the old database password after rotation"))
    reached = rank.reach(index, index.slot_of("a"), rank.scoring(weighted, index.size))
    assert reached.fields == (("body (Decision)", ("pods", "database", "password", "rotation")),)
    assert dict(reached.tiers)["pods"] == 4  # the body tier
    quick = rank.reach(index, index.slot_of("a"), rank.scoring(weighted, index.size), False)
    assert quick.words == reached.words and quick.fields[0][0] == "body"


def test_reach_finds_the_first_section_holding_each_form_of_a_word() -> None:
    # sections are skipped unread when their letters lack a term's probe: a British or
    # inflected form, an identifier's part or a non-ASCII section must still be found
    index = Index(
        [
            doc(
                "a",
                title="Distribution",
                body=(
                    Section("Scope", "Nothing here about the matter at hand."),
                    Section("Licences", "Every bundle ships its licences."),
                    Section("Colours", "The banner's colours follow the terminal."),
                    Section("Ελληνικά", "Η ΟΔΟΣ: HTTPServer retried the catalogue twice."),
                    Section("Later", "More licenses and more colors."),
                ),
            ),
            *[doc(f"f{i}", summary=f"filler {i}") for i in range(5)],
        ]
    )
    weighted = rank.weigh(index, term.of_task("license color retry catalog server"))
    reached = rank.reach(index, index.slot_of("a"), rank.scoring(weighted, index.size))
    assert dict(reached.fields) == {
        "body (Licences)": ("license",),
        "body (Colours)": ("color",),
        "body (Ελληνικά)": ("retry", "catalog", "server"),
    }


def test_the_words_inside_a_documents_code_identifiers_reach_it() -> None:
    index = Index(
        [
            doc("hooks", title="Data loading", summary="Fetch in a useEffect with a cleanup."),
            doc(
                "body",
                title="Client state",
                body=(Section("Decision", "Wrap it in a ReaderStateContext."),),
            ),
            *[doc(f"f{i}", summary=f"filler {i}") for i in range(5)],
        ]
    )
    assert ranked(index, "which effect runs the fetch")[0][1] == "docs/hooks.md"
    weighted = rank.scoring(rank.weigh(index, term.of_task("the fetch effect")), index.size)
    reached = rank.reach(index, index.slot_of("hooks"), weighted)
    assert reached.fields == (("summary", ("fetch", "effect")),)
    # held only inside `useEffect`: silence weighs it as a body mention, `fetch` as a summary's
    assert dict(reached.tiers) == {"fetch": 1, "effect": 4}
    in_body = rank.reach(
        index, index.slot_of("body"), rank.weigh(index, term.of_task("reader context"))
    )
    assert in_body.fields == (("body (Decision)", ("reader", "context")),)


def test_a_template_heading_is_structure_not_a_word_of_the_record() -> None:
    # every record has a `## Context` section; only one is about a React context
    records = [
        doc(f"r{i}", title=f"Choice {i}", body=(Section("Context", f"We weighed option {i}."),))
        for i in range(8)
    ]
    react = doc("react", title="React context API", body=(Section("Context", "Props drill."),))
    index = Index([*records, react])
    assert index.stem_df("context") == 1
    assert [path for _, path in ranked(index, "a new ReaderStateContext")] == ["docs/react.md"]
    # a heading a record chose itself still reads as its words
    own = doc("own", body=(Section("Pagination cursors", "Opaque tokens."),))
    index = Index([*records, own])
    reached = rank.reach(index, index.slot_of("own"), rank.weigh(index, term.of_task("cursors")))
    assert reached.fields == (("body (Pagination cursors)", ("cursors",)),)


words = st.sampled_from("alpha beta gamma delta epsilon zeta eta theta iota kappa".split())


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.lists(words, min_size=1, max_size=8), min_size=2, max_size=30),
    st.lists(words, min_size=1, max_size=5),
    st.integers(min_value=1, max_value=6),
)
def test_the_top_k_is_the_full_scorings_top_k(
    docs: list[list[str]], task: list[str], keep: int
) -> None:
    index = Index([doc(f"d{i:02}", summary=" ".join(ws)) for i, ws in enumerate(docs)])
    full = ranked(index, " ".join(task))
    pruned = ranked(index, " ".join(task), keep)
    # the entries MaxScore keeps score exactly as in the full run, and the best `keep` agree
    assert [p for _, p in pruned[:keep]] == [p for _, p in full[:keep]]
    assert dict((p, s) for s, p in pruned[:keep]) == dict((p, s) for s, p in full[:keep])


def reference_scores(index: Index, scoring: tuple[rank.Weighted, ...]) -> dict[int, float]:
    """The scores as a plain loop over dicts adds them: rarer terms first, actions last and
    only onto entries other terms reached (unless the task has no other)."""
    ordered = sorted(scoring, key=lambda w: (w.term.word in wordlist.ACTION_WORDS, -w.idf))
    subject = [w for w in ordered if w.term.word not in wordlist.ACTION_WORDS]
    out: dict[int, float] = {}
    for w in ordered:
        lifts = bool(subject) and w.term.word in wordlist.ACTION_WORDS
        slots, impacts = index.postings(w.term.stem)
        for slot, impact in zip(slots, impacts, strict=True):
            if not lifts or slot in out:
                out[slot] = out.get(slot, 0.0) + w.weight * IMPACT_STEP * impact
    return out


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.lists(words | st.sampled_from(["add", "fix"]), min_size=1, max_size=8),
        min_size=2,
        max_size=30,
    ),
    st.lists(words | st.sampled_from(["add", "fix"]), min_size=1, max_size=5),
    st.sets(st.integers(min_value=0, max_value=29), max_size=5),
)
def test_scores_are_the_sums_a_plain_loop_takes_in_the_same_order(
    docs: list[list[str]], task: list[str], gone: set[int]
) -> None:
    index = Index([doc(f"d{i:02}", summary=" ".join(ws)) for i, ws in enumerate(docs)])
    for i in gone & set(range(len(docs) - 1)):  # removals leave slots no entry holds
        index.remove(f"d{i:02}")
    scoring = rank.scoring(rank.weigh(index, term.of_task(" ".join(task))), index.size)
    got, reached = rank.scores(index, scoring)
    want = reference_scores(index, scoring)
    assert got == want  # the same floats, not nearly
    assert reached == len(want)
    # the scores of chosen entries alone (what fusion asks of meaning's neighbours) are the
    # same floats, and an entry no subject term reaches has none
    chosen = range(0, index.slots_end, 2)
    assert rank.totals_of(index, scoring, chosen) == {s: got[s] for s in chosen if s in got}


def test_a_long_task_scores_only_its_most_specific_terms() -> None:
    index = Index([doc(f"d{i}", summary=f"word{i} common") for i in range(40)])
    task = " ".join(f"word{i}" for i in range(40))
    scoring = rank.scoring(rank.weigh(index, term.of_task(task)), index.size)
    assert len(scoring) == rank.MAX_TERMS


def test_a_slug_id_and_file_name_do_not_count_the_title_three_times() -> None:
    # A catalog mixing slug-named documents with numbered records: the record whose title
    # and summary both hold the task's words outranks the slug whose id and file name only
    # repeat its title's.
    slug = doc("secret-rotation", title="Secret rotation")
    numbered = doc("DR-0007", title="Secret rotation", summary="Rotation of every secret, monthly.")
    index = Index([slug, numbered, *[doc(f"f{i}", summary=f"filler {i}") for i in range(5)]])
    order = [path for _, path in ranked(index, "secret rotation")]
    assert order[:2] == ["docs/DR-0007.md", "docs/secret-rotation.md"]


def test_a_long_task_is_read_on_its_most_specific_terms_in_task_order() -> None:
    # word{i} is held by i + 1 entries: the lower i, the rarer; unknown words come last
    entries = [doc(f"d{j}", summary=" ".join(f"word{i}" for i in range(j, 80))) for j in range(80)]
    index = Index(entries)
    task = " ".join(["unheard", *(f"word{i}" for i in reversed(range(80)))])
    kept = rank.of_task(index, task)
    assert len(kept) == rank.MAX_QUERY_TERMS
    assert {w.term.word for w in kept} == {f"word{i}" for i in range(rank.MAX_QUERY_TERMS)}
    words = [w.term.word for w in kept]
    assert words == sorted(words, key=task.split().index)  # task order
    # a task within the limit keeps every term, as weighed
    short = " ".join(f"word{i}" for i in range(10)) + " unheard"
    assert rank.of_task(index, short) == rank.weigh(index, term.of_task(short))


def test_scoring_asks_its_stop_before_each_term_and_stops_when_told() -> None:
    index = Index([doc(f"d{i}", summary=f"alpha beta gamma word{i}") for i in range(8)])
    scoring = rank.scoring(rank.of_task(index, "alpha beta gamma"), index.size)
    asked: list[int] = []

    def stop_at_third() -> bool:
        asked.append(1)
        return len(asked) >= 3

    with pytest.raises(deadline.AbandonedError):
        rank.scores(index, scoring, None, (), stop_at_third)
    assert len(asked) == 3
    scores, _ = rank.scores(index, scoring, None, (), lambda: False)
    assert scores == rank.scores(index, scoring)[0]


def test_a_function_word_is_a_term_where_the_catalog_writes_it_as_code() -> None:
    index = Index(
        [
            doc("generics", title="Type parameters", body=(Section("The `any` constraint", "x"),)),
            doc("prose", title="Pick any mirror"),
            *[doc(f"f{i}", summary=f"filler {i}") for i in range(5)],
        ]
    )
    order = [path for _, path in ranked(index, "can any be compared")]
    assert order == ["docs/generics.md"]
    # a catalog that never writes it as code drops it as before
    plain = Index([doc("prose", title="Pick any mirror"), doc("f", summary="filler")])
    assert ranked(plain, "can any be compared") == []


def test_a_form_no_entry_holds_is_no_term() -> None:
    index = Index([doc("one", title="go build flags"), doc("f", summary="filler")])
    weighed = rank.weigh(index, term.of_task("go build -Xfoo"))
    assert [w.term.stem for w in weighed] == ["go", "build", "xfoo"]


@pytest.mark.parametrize(
    ("written", "plain", "asked"),
    [
        ("link with -X main.version", "link with main version", "-Xmain.version"),
        ("link with -Xmain.version", "link with xmain version", "-X main.version"),
        ("escape analysis with -gcflags=-m", "escape analysis with gcflags m", "-gcflags -m"),
        ("expand it with println!(...)", "expand it with println(...)", "println!"),
        ("timers fire after 10 ms", "timers fire after ms", "10ms"),
    ],
)
def test_a_code_shaped_word_reaches_the_entry_writing_it_either_way(
    written: str, plain: str, asked: str
) -> None:
    # "alt" holds the same words without the code's form, and sorts first on a tie
    index = Index(
        [
            doc("code", summary=written),
            doc("alt", summary=plain),
            *[doc(f"f{i}", summary=f"filler {i}") for i in range(5)],
        ]
    )
    assert ranked(index, asked)[0][1] == "docs/code.md"
    slot = index.slot_of("code")
    assert rank.reach(index, slot, rank.of_task(index, asked)).words
