"""tantivy behind kroute's own HTTP server (issue 33): the bench's anchor for throughput.

Run by the python of the anchors' venv (`bench.py --anchors` makes it, with orjson), with
the checkout on PYTHONPATH, never the project's venv:

    python -m bench.anchor.server CORPUS SOCKET

It builds the tantivy index of `bench.anchor.engine` over CORPUS and serves it on the Unix
socket SOCKET through `router.serve.server.Server`, the daemon's transport (its threads, its
caps, its peer check): POST /v1/route with `{"task": ...}` answers `{"pointers": [{"id"}]}`,
the top 5 tantivy finds for the task's words. It prints one line, `ready`, once it listens,
and serves until stdin closes. So the routes/s of kroute's daemon and of tantivy are
measured behind the same server, over the same entries, with the same clients.
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path
from typing import Any

import orjson

from bench.anchor.engine import build_tantivy, read_corpus
from router.base import errors
from router.serve.server import Server


class Tantivy:
    """The server's dispatcher over one tantivy search."""

    version = ""  # no version header is checked: the bench sends none

    def __init__(self, search: Any) -> None:
        self.search = search

    def dispatch(self, method: str, path: str, body: bytes, source: str = "") -> tuple[int, Any]:
        if (method, path) != ("POST", "/v1/route"):
            return 404, errors.document("not_found", path)
        try:
            task = orjson.loads(body)["task"]
        except (ValueError, KeyError, TypeError):
            return 400, errors.document("bad_json", "no task")
        return 200, {"pointers": [{"id": found} for found in self.search(str(task))]}

    def after(self) -> None:
        pass


def main() -> None:
    corpus, address = Path(sys.argv[1]), sys.argv[2]
    ids, texts = read_corpus(corpus)
    search = build_tantivy(ids, texts)
    del texts
    server = Server(address, Tantivy(search))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print("ready", flush=True)
    sys.stdin.read()  # the bench closes it when done
    server.shutdown()
    server.server_close()


if __name__ == "__main__":
    main()
