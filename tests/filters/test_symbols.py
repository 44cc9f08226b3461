"""Symbol extraction per language (router.filters.symbols)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from router.filters.symbols import MAX_SCAN_CHARS, Symbols, classify, defined, imported
from testing.paths import FIXTURES

# --- required cases ------------------------------------------------------------------


def test_rust_use_keeps_case() -> None:
    assert imported("use catalogd::Registry;\n", "src/lib.rs") == ("Registry",)


def test_rust_use_group_with_alias() -> None:
    assert imported("use a::{B, C as D};\n", "src/lib.rs") == ("B", "D")


def test_ts_named_import_alias() -> None:
    assert imported('import {E as F} from "x";\n', "src/a.ts") == ("F",)


def test_python_from_import_with_alias() -> None:
    assert imported("from m import a, b as c\n", "pkg/mod.py") == ("a", "c")


def test_defined_and_imported_counts_as_defined() -> None:
    content = "use other::Connector;\npub struct Connector;\nuse other::Pool;\n"
    found = classify(content, "src/lib.rs")
    assert found == Symbols(defined=("Connector",), imported=("Pool",))
    # The raw extractors still see both.
    assert "Connector" in imported(content, "src/lib.rs")


# --- Rust ----------------------------------------------------------------------------

RUST = """\
pub mod storage;
pub(crate) struct Connector {
    registry: Registry,
}
pub enum State { Open, Closed }
pub trait Source {}
type Alias = u32;
pub const LIMIT: usize = 4;
static mut COUNTER: u32 = 0;
impl Connector {
    pub async fn connect(&self) {}
    pub const unsafe fn raw() {}
    pub(super) fn helper() {}
}
// pub fn commented_out() {}
"""


def test_rust_definitions() -> None:
    assert defined(RUST, "src/lib.rs") == (
        "storage",
        "Connector",
        "State",
        "Source",
        "Alias",
        "LIMIT",
        "COUNTER",
        "connect",
        "raw",
        "helper",
    )


def test_rust_nested_groups_self_and_globs() -> None:
    content = (
        "use std::{\n    collections::{HashMap, BTreeMap as Tree},\n    io::{self, Read},\n"
        "    fmt::*,\n};\n"
        "pub use crate::model::Dataset;\n"
        "use super::helpers;\n"
        "use foo::Bar as _;\n"
        "extern crate serde as sd;\n"
    )
    assert imported(content, "src/lib.rs") == (
        "HashMap",
        "Tree",
        "io",
        "Read",
        "Dataset",
        "helpers",
        "sd",
    )


def test_rust_malformed_use_is_ignored() -> None:
    assert imported("use the force, Luke;\nuse a::B;\n", "x.rs") == ("B",)
    assert imported("use a::" + "{" * 900 + "B" + "}" * 900 + ";\n", "x.rs") == ()


def test_unterminated_statements_do_not_hang() -> None:
    content = "import " + " " * 50_000 + "\n" + "const (\n" * 5_000 + "from a import (\n" * 2_000
    for path in ("a.ts", "a.go", "a.py", "a.rs", "a"):
        assert classify(content, path) == Symbols((), ())


# --- TypeScript / JavaScript ---------------------------------------------------------


def test_ts_definitions_module_level_or_exported() -> None:
    content = (
        "export default class Router {}\n"
        "export interface Options { depth: number }\n"
        "export type Mode = 'a' | 'b';\n"
        "export const enum Color { Red }\n"
        "export abstract class Base {}\n"
        "export declare const VERSION: string;\n"
        "async function load() {\n"
        "  const local = 1;\n"
        "  let other = 2;\n"
        "}\n"
        "function* walk() {}\n"
        "enum Kind { A }\n"
        "let counter = 0;\n"
        "var $legacy = 1;\n"
        "export default function () {}\n"
    )
    assert defined(content, "src/router.ts") == (
        "Router",
        "Options",
        "Mode",
        "Color",
        "Base",
        "VERSION",
        "load",
        "walk",
        "Kind",
        "counter",
        "$legacy",
    )


def test_ts_default_plus_named_namespace_and_multiline() -> None:
    content = (
        'import React, { useState, useEffect as effect } from "react";\n'
        "import * as path from 'node:path';\n"
        'import type { Config } from "./config";\n'
        "import {\n  type Plugin,\n  load, // the loader\n  default as main,\n} from './plugins';\n"
        'import Def, * as NS from "y";\n'
        'import "./side-effect.css";\n'
        'import type Settings from "./settings";\n'
        'import type from "./odd";\n'
    )
    assert imported(content, "src/app.tsx") == (
        "React",
        "useState",
        "effect",
        "path",
        "Config",
        "Plugin",
        "load",
        "main",
        "Def",
        "NS",
        "Settings",
        "type",
    )


@pytest.mark.parametrize("ext", ["ts", "tsx", "js", "jsx", "mjs", "cjs"])
def test_ts_extensions(ext: str) -> None:
    assert imported('import X from "x";\n', f"a.{ext}") == ("X",)


# --- Go ------------------------------------------------------------------------------

GO = """\
package queryd

import (
\t"context"
\tsq "github.com/Masterminds/squirrel"
\t_ "github.com/lib/pq"
\t"github.com/jackc/pgx/v5"
)

import "fmt"

type Connector struct {
\tPool int
}

type (
\tMode int
\tOptions struct {
\t\tDepth int
\t}
)

const (
\tModeA Mode = iota
\tModeB
)

var DefaultLimit, MaxLimit = 10, 100

func NewConnector() *Connector { return nil }

func (c *Connector) Query(ctx context.Context) error { return nil }
"""


def test_go_definitions_including_methods_and_groups() -> None:
    assert defined(GO, "db.go") == (
        "Connector",
        "Mode",
        "Options",
        "ModeA",
        "ModeB",
        "DefaultLimit",
        "MaxLimit",
        "NewConnector",
        "Query",
    )


def test_go_grouped_and_single_imports() -> None:
    # `ctx context.Context` in the body: exported `pkg.Name` uses count as imported.
    assert imported(GO, "db.go") == ("context", "sq", "pgx", "fmt", "Context")


# --- Python --------------------------------------------------------------------------

PYTHON = """\
from __future__ import annotations

import os.path
import json, re as regex
from collections.abc import (
    Iterable,  # iteration
    Mapping as Map,
)
from . import sibling
from .pkg import *
from m import a, \\
    b

MAX_DEPTH = 3
TIMEOUT: float = 1.5
logger = None

type Pair = tuple[int, int]

class Index:
    def add(self) -> None: ...

async def serve() -> None: ...
"""


def test_python_definitions() -> None:
    assert defined(PYTHON, "pkg/mod.py") == (
        "MAX_DEPTH",
        "TIMEOUT",
        "logger",  # module-level names count whatever their case (flask's `current_app`)
        "Pair",
        "Index",
        "add",
        "serve",
    )


def test_python_imports_parenthesised_and_plain() -> None:
    assert imported(PYTHON, "pkg/mod.py") == (
        "os",
        "json",
        "regex",
        "Iterable",
        "Map",
        "sibling",
        "a",
        "b",
    )


def test_python_import_dotted_alias() -> None:
    assert imported("import m.n as k\nimport m\n", "x.py") == ("k", "m")


# --- language choice -----------------------------------------------------------------


def test_rust_content_under_go_extension_falls_back() -> None:
    content = "use catalogd::Registry;\npub struct Connector {\n    registry: Registry,\n}\n"
    assert classify(content, "crates/queryd/src/db.go") == Symbols(("Connector",), ("Registry",))


def test_unknown_extension_tries_every_language() -> None:
    content = "use a::B;\nimport {C} from 'c';\nfrom d import e\nfunc F() {}\n"
    assert imported(content, "notes.txt") == ("B", "C", "e")
    assert defined(content, "notes") == ("F",)


def test_known_language_that_finds_something_does_not_fall_back() -> None:
    # Python finds `x`; the Rust-looking line is not read as Rust.
    content = "import x\nuse a::B;\n"
    assert imported(content, "m.py") == ("x",)


def test_order_is_first_occurrence_deduplicated() -> None:
    content = "use a::Z;\nuse b::A;\nuse c::Z;\n"
    assert imported(content, "x.rs") == ("Z", "A")


@given(st.text(), st.sampled_from(["a.rs", "a.ts", "a.go", "a.py", "a.txt", ""]))
def test_extraction_never_raises(content: str, path: str) -> None:
    found = classify(content, path)
    assert not set(found.defined) & set(found.imported)


# --- real-code fixes (fixtures/relevance/realcode) -----------------------------------

RUST_TRAIT_IMPL = """\
use tower_service::Service;
use std::convert::Infallible;

pub struct IntoMakeService<S> {
    svc: S,
}

impl<S> IntoMakeService<S> {
    pub fn new(svc: S) -> Self {
        Self { svc }
    }
}

impl<S, T> Service<T> for IntoMakeService<S>
where
    S: Clone,
{
    type Response = S;
    type Error = Infallible;
    type Future = IntoMakeServiceFuture<S>;

    fn call(&mut self, _target: T) -> Self::Future {
        todo!()
    }
}

impl<T> From<T> for Json<T> {
    fn from(inner: T) -> Self {
        Self(inner)
    }
}

pub type IntoMakeServiceFuture<S> = std::future::Ready<S>;
"""


def test_rust_trait_impl_items_are_not_definitions() -> None:
    found = classify(RUST_TRAIT_IMPL, "axum/src/routing/into_make_service.rs")
    # `type Service/Error/Future/Response`, `fn call`, `fn from` belong to the traits.
    assert found.defined == ("IntoMakeService", "new", "IntoMakeServiceFuture")
    assert found.imported == ("Service", "Infallible")


def test_rust_one_line_trait_impl_ends_on_its_line() -> None:
    rust = "impl Send for Conn {}\nimpl Sync for Conn { fn x() {} }\n\npub fn open() {}\n}\n"
    assert defined(rust, "a.rs") == ("open",)


def test_commonjs_require_is_an_import_not_a_definition() -> None:
    js = (
        "var path = require('path')\n  , fs = require('fs')\n  , join = path.join;\n"
        "const { readFile, stat: fstat } = require('fs/promises');\n"
        "function View(name) {}\nmodule.exports = View;\n"
    )
    found = classify(js, "lib/view.js")
    assert found.defined == ("View",)
    assert found.imported == ("path", "fs", "join", "readFile", "fstat")


def test_python_dunders_no_and_module_level_lowercase_names_yes() -> None:
    py = (
        "import typing as t\n\n"
        'current_app: "Flask" = LocalProxy(_cv_app)\ng = LocalProxy(_cv_app, "g")\n'
        "__all__ = ['g']\ndefault_handler = logging.StreamHandler()\n\n"
        "class CaseInsensitiveDict:\n    def __setitem__(self, key, value):\n        pass\n"
        "    def lower_items(self):\n        pass\n"
    )
    found = classify(py, "src/flask/globals.py")
    assert found.defined == (
        "current_app",
        "g",
        "default_handler",
        "CaseInsensitiveDict",
        "lower_items",
    )
    assert found.imported == ("t",)


def test_go_alias_uses_are_imported_symbols() -> None:
    go = (
        "package v1\n\nimport (\n"
        '\tmetav1 "k8s.io/apimachinery/pkg/apis/meta/v1"\n'
        '\t"k8s.io/client-go/pkg/api/v1"\n'
        '\t"github.com/jackc/pgx/v5"\n)\n\n'
        "func (c *pods) Get(name string, opts metav1.GetOptions) (*v1.Pod, error) {\n"
        "\treturn nil, metav1.ErrNotFound\n}\n"
    )
    found = classify(go, "staging/src/k8s.io/client-go/kubernetes/typed/core/v1/pod.go")
    assert found.defined == ("Get",)
    # `.../api/v1` is used as `v1.`, so it is `v1`; `pgx/v5` is never written `v5.`.
    assert found.imported == ("metav1", "v1", "pgx", "GetOptions", "Pod", "ErrNotFound")


REALCODE_FILES = sorted((FIXTURES / "relevance" / "realcode" / "files").iterdir())


@pytest.mark.parametrize("path", REALCODE_FILES, ids=lambda p: p.name)
def test_crlf_and_bom_give_the_same_symbols(path: Path) -> None:
    lf = path.read_text(encoding="utf-8")
    expected = classify(lf, path.name)
    assert expected.defined
    assert expected.imported or path.name == "vscode_cache.ts"  # the one without imports
    for variant in (lf.replace("\n", "\r\n"), "\ufeff" + lf, "\ufeff" + lf.replace("\n", "\r")):
        assert classify(variant, path.name) == expected


# Inputs that once took seconds (a 4 MB Rust file: 0.51 s; 200k lines of `import {`: 4.5 s).
# How long they take now is a benchmark figure (scripts/bench.py, "symbol extraction"); what
# a test can hold for sure is that nothing past the scanned head is ever read.
SLOW_INPUTS = (
    ("axum_extension.rs", 4_000_000, "big.rs"),
    ("import {\n", 200_000, "a.ts"),
    ("from m import (\n", 200_000, "a.py"),
    ("use x\n", 400_000, "a.rs"),
)


TAILS = {
    "rs": "\npub struct Tail;\n",
    "ts": "\nexport class Tail {}\n",
    "py": "\nclass Tail:\n    pass\n",
}


def test_extraction_work_is_bounded_per_file() -> None:
    rust = (REALCODE_FILES[0].parent / "axum_extension.rs").read_text(encoding="utf-8")
    for unit, size, path in SLOW_INPUTS:
        content = (rust * (size // len(rust) + 1))[:size] if unit.endswith(".rs") else unit * size
        tail = TAILS[path.rsplit(".", 1)[1]]  # defined past the head: never read
        assert classify(content + tail, path) == classify(content[:MAX_SCAN_CHARS], path), path
    # The bound truncates, it does not drop what the scanned part holds.
    assert classify("pub struct Head;\n" + "//\n" * MAX_SCAN_CHARS, "a.rs").defined == ("Head",)
