"""The HTTP transport (router.serve.server) on a real Unix socket, with a stub service."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from router.serve import server


class Stub:
    version = "0.0.0-test"

    def dispatch(
        self, method: str, path: str, body: bytes, source: str = "socket"
    ) -> tuple[int, Any]:
        return 200, {"method": method, "path": path}

    def after(self) -> None:
        pass


@pytest.fixture
def address(tmp_path: Path) -> Iterator[str]:
    path = str(tmp_path / "s.sock")
    httpd = server.Server(path, Stub())
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    yield path
    httpd.shutdown()
    httpd.server_close()
    thread.join()


def exchange(address: str, raw: bytes) -> tuple[int, dict[str, str], bytes]:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(10)
        sock.connect(address)
        sock.sendall(raw)
        reply = b""
        while chunk := sock.recv(65536):
            reply += chunk
    head, _, body = reply.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), headers, body


@pytest.mark.parametrize(
    ("raw", "status", "code"),
    [
        (b"GET / HTTP/one.one\r\n\r\n", 400, "bad_http"),
        (b"GET /" + b"x" * 70_000 + b" HTTP/1.1\r\n\r\n", 414, "uri_too_long"),
        (b"GET / HTTP/1.1\r\nX-Big: " + b"y" * 70_000 + b"\r\n\r\n", 431, "headers_too_large"),
        (b"BREW /v1/route HTTP/1.1\r\nHost: k\r\n\r\n", 501, "not_implemented"),
    ],
)
def test_framing_errors_are_json_like_every_other_error(
    address: str, raw: bytes, status: int, code: str
) -> None:
    got, headers, body = exchange(address, raw)
    assert got == status
    assert headers["Content-Type"] == "application/json"
    assert json.loads(body)["error"]["code"] == code


def test_a_request_reaches_the_service(address: str) -> None:
    got, _, body = exchange(address, b"GET /v1/status HTTP/1.1\r\nConnection: close\r\n\r\n")
    assert got == 200 and json.loads(body) == {"method": "GET", "path": "/v1/status"}
