"""Relevance filter (router.filters.relevance, DESIGN 8)."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from router.base.errors import RequestError
from router.filters.relevance import (
    DEFAULT_THRESHOLD,
    STOPWORDS,
    Chunk,
    Focus,
    answer,
    jaccard,
    normalize_path,
    prefix,
    score,
    split,
    tokenize,
)
from router.runtime import intake


def parse_request(obj: object) -> tuple[Focus, list[Chunk], float]:
    ask = intake.relevance(obj)
    return ask.focus, list(ask.chunks), ask.threshold


HEADLINE_CONTENT = "use catalogd::Registry;\npub struct Connector {\n    registry: Registry,\n}"
HEADLINE: dict[str, Any] = {
    "focus": {"path": "crates/queryd/src/db.go", "content": HEADLINE_CONTENT},
    "chunks": [
        {
            "source": "lakehouse_symbols_v1",
            "doc_id": "sym:connector",
            "text": "the Connector holds a pool",
        },
        {
            "source": "lakehouse_symbols_v1",
            "doc_id": "sym:registry",
            "text": "Registry stores dataset manifests keyed by name with schema versions",
        },
        {
            "source": "lakehouse_arch_v1",
            "doc_id": "junk:1",
            "text": "weather forecast sunny tomorrow",
        },
    ],
}


def test_headline() -> None:
    focus, chunks, threshold = parse_request(HEADLINE)
    assert focus.defined == ("Connector",)
    assert focus.imported == ("Registry",)
    assert threshold == DEFAULT_THRESHOLD
    out = answer(focus, chunks, threshold)
    assert out["threshold"] == 0.3
    assert out["kept"] == [
        {
            **HEADLINE["chunks"][0],
            "relevance": 0.68,
            "reasons": ["defined_match:Connector", "token_overlap:0.2000"],
        }
    ]
    assert out["dropped"] == [
        {
            **HEADLINE["chunks"][1],
            "relevance": -0.46,
            "reasons": ["token_overlap:0.1000", "import_penalty:Registry"],
        },
        {**HEADLINE["chunks"][2], "relevance": 0.0, "reasons": []},
    ]


# --- tokens, Jaccard, paths ----------------------------------------------------------


def test_tokenize_lowercases_drops_short_and_stopwords() -> None:
    assert tokenize("The Connector_2 holds a pub fn x9 pool-size") == frozenset(
        {"connector_2", "holds", "x9", "pool", "size"}
    )


def test_required_stopwords() -> None:
    assert {"use", "pub", "fn", "struct", "the", "by", "with"} <= STOPWORDS
    # Content words the headline depends on must stay tokens.
    assert not {"name", "schema", "keyed", "registry", "connector", "holds"} & STOPWORDS


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        (frozenset(), frozenset(), 0.0),
        (frozenset({"x"}), frozenset(), 0.0),
        (frozenset({"x", "y"}), frozenset({"x", "y"}), 1.0),
        (frozenset({"x"}), frozenset({"y"}), 0.0),
        (frozenset({"x", "y"}), frozenset({"y", "z"}), 1 / 3),
    ],
)
def test_jaccard(a: frozenset[str], b: frozenset[str], expected: float) -> None:
    assert jaccard(a, b) == pytest.approx(expected)


def test_path_normalization_and_prefix() -> None:
    assert normalize_path(".\\crates\\queryd\\src\\db.go") == "crates/queryd/src/db.go"
    assert normalize_path("/./a/b") == "a/b"
    assert prefix("./crates/queryd/src/db.go") == "crates/queryd"
    assert prefix("main.go") == ""  # a top-level file has no package directory
    assert prefix("./") == ""


# --- one test per signal -------------------------------------------------------------


def _focus(**kw: Any) -> Focus:
    fields: dict[str, Any] = {"path": "crates/queryd/src/db.go", "content": ""}
    fields.update(kw)
    return Focus(**fields)


def test_path_match() -> None:
    scored = score(_focus(), Chunk("repo:crates/queryd/src/db.go#L1", "", "x"))
    assert scored.relevance == 1.0
    assert scored.reasons == ("path_match",)
    assert score(_focus(), Chunk("", "crates/queryd/src/db.go", "x")).reasons == ("path_match",)


def test_path_match_normalizes_focus_path() -> None:
    scored = score(
        _focus(path=".\\crates\\queryd\\src\\db.go"), Chunk("crates/queryd/src/db.go", "", "")
    )
    assert scored.reasons == ("path_match",)


def test_filename_match() -> None:
    scored = score(_focus(), Chunk("", "", "see db.go for details"))
    assert scored.relevance == pytest.approx(0.6)
    assert scored.reasons == ("filename_match:db.go",)


def test_filename_match_never_for_short_names() -> None:
    assert score(_focus(path="src/db"), Chunk("", "", "the db layer")).reasons == ()


def test_defined_match_whole_identifier_case_sensitive() -> None:
    focus = _focus(defined=("Connector",))
    assert score(focus, Chunk("", "", "a Connector.")).reasons == ("defined_match:Connector",)
    assert score(focus, Chunk("", "", "a Connector.")).relevance == pytest.approx(0.6)
    assert score(focus, Chunk("", "", "ConnectorPool")).reasons == ()
    assert score(focus, Chunk("", "", "connector")).reasons == ()


def test_token_overlap() -> None:
    focus = _focus(content="alpha beta")
    scored = score(focus, Chunk("", "", "beta gamma"))
    assert scored.relevance == pytest.approx(0.4 / 3)
    assert scored.reasons == ("token_overlap:0.3333",)
    assert score(focus, Chunk("", "", "delta")).reasons == ()


def test_prefix_match_only_without_path_match() -> None:
    scored = score(_focus(), Chunk("crates/queryd/README.md", "", ""))
    assert scored.relevance == pytest.approx(0.3)
    assert scored.reasons == ("prefix_match:crates/queryd",)
    assert score(_focus(), Chunk("", "crates/queryd/x", "")).reasons == (
        "prefix_match:crates/queryd",
    )
    both = score(_focus(), Chunk("crates/queryd/src/db.go", "", ""))
    assert both.reasons == ("path_match",)


def test_import_penalty_only_without_defined_symbol() -> None:
    focus = _focus(defined=("Connector",), imported=("Registry",))
    penalized = score(focus, Chunk("", "", "the Registry"))
    assert penalized.relevance == pytest.approx(-0.5)
    assert penalized.reasons == ("import_penalty:Registry",)
    mixed = score(focus, Chunk("", "", "Connector uses Registry"))
    assert mixed.reasons == ("defined_match:Connector",)
    assert score(focus, Chunk("", "", "RegistryStore")).reasons == ()


def test_signals_add() -> None:
    focus = _focus(defined=("Connector",))
    chunk = Chunk("crates/queryd/src/db.go", "", "db.go Connector")
    scored = score(focus, chunk)
    assert scored.reasons == ("path_match", "filename_match:db.go", "defined_match:Connector")
    assert scored.relevance == pytest.approx(2.2)


# --- split ---------------------------------------------------------------------------


def test_exactly_threshold_is_kept_and_just_below_dropped() -> None:
    at = Chunk("crates/queryd/notes", "", "")  # prefix_match alone: relevance exactly 0.3
    assert score(_focus(), at).relevance == 0.3
    kept, dropped = split(_focus(), [at])
    assert [s.chunk for s in kept] == [at] and not dropped
    # Relevance 0.3 against threshold 0.3001 is relevance 0.2999 against 0.3: dropped.
    kept, dropped = split(_focus(), [at], threshold=0.3001)
    assert not kept and [s.chunk for s in dropped] == [at]
    # Below the 6th decimal the two compare equal: kept.
    kept, dropped = split(_focus(), [at], threshold=0.3000004)
    assert kept and not dropped


def test_float_noise_below_six_decimals_still_kept() -> None:
    # 0.1 + 0.2 != 0.3 in floats; at 6 decimals it is.
    kept, _ = split(_focus(), [Chunk("crates/queryd/x", "", "")], threshold=0.1 + 0.2)
    assert kept


def test_explicit_threshold_changes_split() -> None:
    focus, chunks, _ = parse_request(HEADLINE)
    kept, dropped = split(focus, chunks, threshold=-1.0)
    assert len(kept) == 3 and not dropped
    kept, dropped = split(focus, chunks, threshold=0.7)
    assert not kept and len(dropped) == 3
    out = answer(*parse_request({**HEADLINE, "threshold": -0.5}))
    kept_out = out["kept"]
    assert isinstance(kept_out, list)
    assert [c["doc_id"] for c in kept_out] == [
        "sym:connector",
        "sym:registry",
        "junk:1",
    ]
    assert out["threshold"] == -0.5


def test_input_order_kept_in_both_lists() -> None:
    focus = _focus(defined=("Key",))
    chunks = [Chunk("", str(i), "Key" if i % 2 else "nothing") for i in range(6)]
    kept, dropped = split(focus, chunks)
    assert [s.chunk.doc_id for s in kept] == ["1", "3", "5"]
    assert [s.chunk.doc_id for s in dropped] == ["0", "2", "4"]


# --- requests ------------------------------------------------------------------------


def test_request_echoes_unknown_members_and_accepts_focus_file() -> None:
    request = {
        "focus_file": {"path": "a/b/c.py", "defined_symbols": ["Thing"], "imported_symbols": []},
        "chunks": [{"text": "Thing", "score": 0.9, "meta": {"k": 1}}],
        "threshold": 1,
    }
    out = answer(*parse_request(request))
    assert out["threshold"] == 1.0
    assert out["dropped"] == [
        {
            "text": "Thing",
            "score": 0.9,
            "meta": {"k": 1},
            "relevance": 0.6,
            "reasons": ["defined_match:Thing"],
        }
    ]


def test_given_symbols_override_extraction_and_defined_wins() -> None:
    focus, _, _ = parse_request(
        {
            "focus": {
                "path": "x.rs",
                "content": "use a::B;\nstruct C;",
                "defined_symbols": ["B"],
            },
            "chunks": [{"text": ""}],
        }
    )
    assert focus.defined == ("B",)
    assert focus.imported == ()


def test_programmatic_chunk_echoes_its_fields() -> None:
    out = answer(_focus(), [Chunk("s", "d", "t")], 0.3)
    assert out["dropped"] == [
        {"source": "s", "doc_id": "d", "text": "t", "relevance": 0.0, "reasons": []}
    ]


GOOD_FOCUS = {"path": "a/b.rs"}
GOOD_CHUNKS = [{"text": "x"}]


@pytest.mark.parametrize(
    ("request_obj", "message"),
    [
        ([], "the request must be a JSON object, not an array"),
        ("x", "the request must be a JSON object, not a string"),
        ({"focus": GOOD_FOCUS}, "the request has no chunks"),
        ({"focus": GOOD_FOCUS, "chunks": []}, "chunks is empty"),
        ({"focus": GOOD_FOCUS, "chunks": {"text": "x"}}, "chunks must be an array"),
        ({"chunks": GOOD_CHUNKS}, "the request has no focus"),
        ({"focus": "a.rs", "chunks": GOOD_CHUNKS}, "focus must be an object, not a string"),
        ({"focus": {}, "chunks": GOOD_CHUNKS}, "focus.path is missing"),
        ({"focus_file": {"content": ""}, "chunks": GOOD_CHUNKS}, "focus_file.path is missing"),
        ({"focus": {"path": " "}, "chunks": GOOD_CHUNKS}, "focus.path must be a non-empty"),
        ({"focus": {"path": 3}, "chunks": GOOD_CHUNKS}, "focus.path must be a non-empty"),
        (
            {"focus": {"path": "a", "content": 1}, "chunks": GOOD_CHUNKS},
            "focus.content must be a string",
        ),
        (
            {"focus": {"path": "a", "defined_symbols": "A"}, "chunks": GOOD_CHUNKS},
            "focus.defined_symbols must be an array of strings",
        ),
        (
            {"focus": {"path": "a", "imported_symbols": [1]}, "chunks": GOOD_CHUNKS},
            "focus.imported_symbols must be an array of strings",
        ),
        (
            {"focus": GOOD_FOCUS, "focus_file": {"path": "z"}, "chunks": GOOD_CHUNKS},
            "both focus and focus_file",
        ),
        ({"focus": GOOD_FOCUS, "chunks": ["x"]}, "chunks[0] must be an object"),
        ({"focus": GOOD_FOCUS, "chunks": [{"text": "a"}, {}]}, "chunks[1] has no string text"),
        ({"focus": GOOD_FOCUS, "chunks": [{"text": 5}]}, "chunks[0] has no string text"),
        (
            {"focus": GOOD_FOCUS, "chunks": [{"text": "a", "source": 5}]},
            "chunks[0].source must be a string",
        ),
        (
            {"focus": GOOD_FOCUS, "chunks": GOOD_CHUNKS, "threshold": "0.3"},
            "threshold must be a number, not a string",
        ),
        (
            {"focus": GOOD_FOCUS, "chunks": GOOD_CHUNKS, "threshold": True},
            "threshold must be a number, not a boolean",
        ),
        (
            {"focus": GOOD_FOCUS, "chunks": GOOD_CHUNKS, "threshold": None},
            "threshold must be a number, not null",
        ),
        (
            {"focus": GOOD_FOCUS, "chunks": GOOD_CHUNKS, "threshold": math.nan},
            "threshold must be a finite number",
        ),
        (
            {"focus": GOOD_FOCUS, "chunks": GOOD_CHUNKS, "threshold": -math.inf},
            "threshold must be a finite number",
        ),
        (
            {"focus": GOOD_FOCUS, "chunks": GOOD_CHUNKS, "threshold": 10**400},
            "threshold must be a finite number",
        ),
    ],
)
def test_parse_request_errors(request_obj: object, message: str) -> None:
    with pytest.raises(RequestError) as caught:
        parse_request(request_obj)
    assert message in str(caught.value)


def test_null_source_reads_as_absent() -> None:
    _, chunks, _ = parse_request({"focus": GOOD_FOCUS, "chunks": [{"text": "a", "source": None}]})
    assert chunks[0].source == ""


# --- properties ----------------------------------------------------------------------


@given(
    path=st.text(),
    content=st.text(),
    symbols=st.lists(st.text(), max_size=4),
    source=st.text(),
    doc_id=st.text(),
    text=st.text(),
)
def test_score_never_raises(
    path: str, content: str, symbols: list[str], source: str, doc_id: str, text: str
) -> None:
    focus = Focus(path, content, tuple(symbols[:2]), tuple(symbols[2:]))
    scored = score(focus, Chunk(source, doc_id, text))
    assert math.isfinite(scored.relevance)
    assert -0.5 <= scored.relevance <= 2.6


# --- real-code fixes -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("crates/queryd/src/db.go", "crates/queryd"),  # a crate's `src` is its source root
        ("axum/src/json.rs", "axum"),
        ("axum/src/routing/into_make_service.rs", "axum/src/routing"),
        ("src/vs/base/common/strings.ts", "src/vs/base/common"),
        ("packages/next/src/lib/is-error.ts", "packages/next/src/lib"),
        (
            "staging/src/k8s.io/client-go/kubernetes/typed/core/v1/pod.go",
            "staging/src/k8s.io/client-go/kubernetes/typed/core/v1",
        ),
        ("src/requests/sessions.py", "src/requests"),
        ("src/net/http/server.go", "src/net/http"),
        ("lib/view.js", ""),  # only generic roots: the whole project, no package
        ("src/main.rs", ""),
        ("pkg/internal/x.go", ""),
    ],
)
def test_prefix_is_the_package_directory(path: str, expected: str) -> None:
    assert prefix(path) == expected


def test_prefix_match_needs_the_same_package_not_the_same_project() -> None:
    focus = _focus(path="src/vs/base/common/cancellation.ts")
    assert score(focus, Chunk("src/vs/editor/common/model.ts", "", "piece tree")).reasons == ()
    sibling = score(focus, Chunk("src/vs/base/common/event.ts", "", ""))
    assert sibling.reasons == ("prefix_match:src/vs/base/common",)
    # A segment boundary is required: `src/vs/base/commonx` is another directory.
    assert score(focus, Chunk("src/vs/base/commonx/a.ts", "", "")).reasons == ()
    # Unrelated chunks from other packages of the project are dropped.
    _, dropped = split(_focus(path="axum/src/json.rs"), [Chunk("axum-extra/src/a.rs", "", "")])
    assert dropped


def test_word_like_symbols_need_code_marking() -> None:
    focus = _focus(defined=("new", "path"), imported=("t", "re", "context"))
    for prose in ("a new path is chosen", "Don't panic", "it re-reads the context"):
        assert score(focus, Chunk("", "", prose)).reasons == (), prose
    assert score(focus, Chunk("", "", "call `new` once")).reasons == ("defined_match:new",)
    assert score(focus, Chunk("", "", "path(x) joins")).reasons == ("defined_match:path",)
    assert score(focus, Chunk("", "", "self.path is set")).reasons == ("defined_match:path",)
    penalized = score(focus, Chunk("", "", "t.Any and re.compile"))
    assert penalized.reasons == ("import_penalty:t",)
    assert score(focus, Chunk("", "", "a context.Context")).reasons == ("import_penalty:context",)
    # Capitalized, longer names still match in prose (the headline's `Connector`).
    assert score(_focus(defined=("Connector",)), Chunk("", "", "the Connector")).reasons == (
        "defined_match:Connector",
    )


def test_imported_dot_name_is_an_import_mention() -> None:
    focus = _focus(defined=("Namespace",), imported=("metav1",))
    scored = score(focus, Chunk("", "", "metav1.Namespace is cluster scoped"))
    assert scored.reasons == ("import_penalty:metav1",)
    assert score(focus, Chunk("", "", "a Namespace here")).reasons == ("defined_match:Namespace",)
