"""HTTP/1.1 over a Unix socket: the daemon's transport (DESIGN 10).

The standard library's `http.server` on a threading Unix-socket server: one thread per
connection, at most MAX_HANDLERS of them. A request's line, headers and body must all arrive
within REQUEST_TIMEOUT, else the connection is dropped; when every thread is taken, the
connection that has waited longest for its request is dropped to make room, so clients that
connect and trickle bytes (or send nothing) cannot keep others from being served. What a
request means is the service's business (`Dispatcher`); this module
owns bodies, caps, status lines, the version handshake, the peer check, and each request's
deadline: the client's timeout header and its connection, held as `grant.current` while the
request is answered.
"""

from __future__ import annotations

import contextlib
import io
import math
import os
import selectors
import socket
import socketserver
import struct
import threading
import time
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler
from typing import Any, Protocol

import orjson

from router.base import errors
from router.client.wire import SOURCE_HEADER, TIMEOUT_HEADER, VERSION_HEADER
from router.serve import grant

BODY_CAP = 1024 * 1024
RELEVANCE_BODY_CAP = 4 * 1024 * 1024
IDLE_TIMEOUT = 5.0  # seconds a connection may sit idle
# Seconds a request's line, headers and body may take to arrive, counted from when the
# connection starts waiting for it: a client trickling bytes is dropped once they pass.
REQUEST_TIMEOUT = 5.0
# Threads answering connections at once. A hook's route takes milliseconds, so this many are
# only ever all busy when clients hold connections without sending their requests.
MAX_HANDLERS = 64
SLOT_WAIT = 0.05  # seconds between two looks for a free thread while every one is busy
# An oversized body up to this size is read and dropped before the 413 goes out: a client
# still sending when the connection closes gets a reset instead of the answer.
DRAIN_LIMIT = 16 * 1024 * 1024
# The error code token of each HTTP framing error the standard library detects.
FRAMING_CODES = {414: "uri_too_long", 431: "headers_too_large", 501: "not_implemented"}


class Dispatcher(Protocol):
    """What the server serves: a version and one entry point per request."""

    version: str

    def dispatch(self, method: str, path: str, body: bytes, source: str = ...) -> tuple[int, Any]:
        """Return (status, document or text) for one request; never raise."""
        ...

    def after(self) -> None:
        """Finish what the last request of this thread left for once it is answered and
        before the answer goes out (the shadow log); never raise."""
        ...


# -- the server -----------------------------------------------------------------------------------


class Arrival(io.RawIOBase):
    """A connection's bytes as a handler reads its request: no later than `until` (on the
    monotonic clock), and none at all once the server has dropped it (`drop`)."""

    def __init__(self, connection: socket.socket) -> None:
        super().__init__()
        self.connection = connection
        self.until = math.inf
        self.dropped = False

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        """Return how many bytes were read into `buffer` (0 at the end of the stream).
        Raises TimeoutError past `until`, ConnectionAbortedError once dropped."""
        left = self.until - time.monotonic()
        if left <= 0:
            raise TimeoutError("the request did not arrive in time")
        self.connection.settimeout(min(left, IDLE_TIMEOUT))
        count = self.connection.recv_into(buffer)
        if self.dropped:
            raise ConnectionAbortedError("dropped to make room for another connection")
        return count

    def drop(self) -> None:
        """End the read under way (its handler then closes the connection). Never raises."""
        self.dropped = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = IDLE_TIMEOUT
    server: Server
    error_content_type = "application/json"

    def address_string(self) -> str:  # a Unix socket peer has no address
        return "unix"

    def setup(self) -> None:
        super().setup()
        self.arrival = Arrival(self.connection)
        self.rfile = io.BufferedReader(self.arrival)

    def handle_one_request(self) -> None:
        """Read one request within REQUEST_TIMEOUT and answer it; a request too slow to
        arrive, or dropped to make room, closes the connection without an answer."""
        self.arrival.until = time.monotonic() + REQUEST_TIMEOUT
        self.server.reading(self.arrival)
        try:
            super().handle_one_request()
        except OSError:  # too slow, dropped, or the client is gone: nothing to answer
            self.close_connection = True
        finally:
            self.server.answered(self.arrival)

    def log_message(self, format: str, *args: Any) -> None:
        pass  # one line per request would drown the log; errors are logged where they occur

    def _answer(self, status: int, document: Any, elapsed: float | None = None) -> None:
        if isinstance(document, str):  # a hook's output, printed as it is
            payload, kind = document.encode("utf-8"), "text/plain; charset=utf-8"
        else:
            payload, kind = orjson.dumps(document, option=orjson.OPT_SORT_KEYS), "application/json"
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(payload)))
        if elapsed is not None:  # time spent answering inside the daemon, for benchmarks
            self.send_header("Server-Timing", f"app;dur={elapsed * 1000:.3f}")
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(payload)

    def _drain(self, length: int) -> None:
        """Read and drop `length` bytes of body (less when the client stops sending)."""
        try:
            while length > 0:
                chunk = self.rfile.read(min(length, 65536))
                if not chunk:
                    return
                length -= len(chunk)
        except OSError:  # the idle timeout, or a client gone
            return

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """Answer an HTTP framing error (bad request line, URI or headers too long, unknown
        method) as JSON like every other error, and close: the stream cannot be trusted."""
        self.close_connection = True
        # a request line the standard library could not read counts as HTTP/0.9, which has
        # no status line: answer as 1.1 so that the client reads a status and a JSON body
        if self.request_version not in ("HTTP/1.0", "HTTP/1.1"):
            self.request_version = "HTTP/1.1"
        try:
            phrase = HTTPStatus(code).phrase
        except ValueError:
            phrase = "HTTP error"
        token = FRAMING_CODES.get(code, "bad_http")
        self._answer(code, errors.document(token, message or explain or phrase))

    def _handle(self) -> None:
        arrived = time.monotonic()  # the client's timeout counts from here
        service = self.server.service
        path = self.path
        stopping = path.partition("?")[0] == "/v1/shutdown"
        client_version = self.headers.get(VERSION_HEADER)
        if client_version and client_version != service.version and not stopping:
            self._answer(
                409,
                errors.document(
                    "restart", f"daemon version {service.version}, client {client_version}"
                ),
            )
            return
        cap = RELEVANCE_BODY_CAP if path.startswith("/v1/matrix/relevance") else BODY_CAP
        if self.headers.get("Transfer-Encoding"):
            self.close_connection = True
            self._answer(400, errors.document("bad_request", "send the body with a Content-Length"))
            return
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = -1
        if length < 0:
            self.close_connection = True
            self._answer(400, errors.document("bad_request", "Content-Length is not a number"))
            return
        if length > cap:
            self.close_connection = True  # the unread body must not be parsed as a request
            if length <= DRAIN_LIMIT:
                self._drain(length)
            self._answer(413, errors.document("too_large", f"body of {length} bytes is over {cap}"))
            return
        body = self.rfile.read(length) if length else b""
        if len(body) < length:  # the client stopped sending: no request to answer
            self.close_connection = True
            return
        self.server.answered(self.arrival)  # a request being answered is never dropped
        try:
            granted = grant.budget(self.headers.get(TIMEOUT_HEADER))
        except ValueError:
            self._answer(
                400, errors.document("bad_request", f"{TIMEOUT_HEADER} is not a number of seconds")
            )
            return
        began = time.perf_counter()
        source = self.headers.get(SOURCE_HEADER) or "socket"
        # The routing endpoints stop at the client's deadline, or once it hangs up.
        with grant.answering(grant.Watch(self.connection, arrived, granted)):
            status, document = service.dispatch(self.command, path, body, source[:40])
        elapsed = time.perf_counter() - began
        # Logged before it is answered: a daemon killed between the two must not leave a
        # route its client received out of the log (outside the dispatch, so no route
        # waits for another's line).
        service.after()
        self._answer(status, document, elapsed)
        if stopping and status == 200:
            threading.Thread(target=self.server.shutdown, daemon=True).start()

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _handle


class Server(socketserver.ThreadingUnixStreamServer):
    daemon_threads = True
    block_on_close = False
    request_queue_size = 256  # many hooks may connect at once; the default backlog is 5

    def __init__(self, address: str, service: Dispatcher) -> None:
        self.service = service
        self.slots = threading.BoundedSemaphore(MAX_HANDLERS)
        self.waiting: dict[Arrival, None] = {}  # connections reading a request, oldest first
        self.waiting_lock = threading.Lock()
        # `shutdown` wakes `serve_forever` through this pipe at once, not at its next poll:
        # `kroute stop` waits for the daemon's exit
        self.stopping = threading.Event()
        self.stopped = threading.Event()
        self.wake_read, self.wake_write = os.pipe()
        super().__init__(address, Handler)

    def serve_forever(self, poll_interval: float = 0.5) -> None:
        """Answer connections until `shutdown` is called (socketserver's loop, woken by
        `shutdown` at once)."""
        self.stopped.clear()
        try:
            with selectors.PollSelector() as selector:
                selector.register(self, selectors.EVENT_READ)
                selector.register(self.wake_read, selectors.EVENT_READ)
                while not self.stopping.is_set():
                    ready = selector.select(poll_interval)
                    if self.stopping.is_set():
                        break
                    if any(key.fileobj is self for key, _ in ready):
                        self._handle_request_noblock()  # type: ignore[attr-defined]
                    self.service_actions()
        finally:
            self.stopping.clear()
            self.stopped.set()

    def shutdown(self) -> None:
        """Stop `serve_forever` and wait until it has returned (call it from another
        thread)."""
        self.stopping.set()
        with contextlib.suppress(OSError):
            os.write(self.wake_write, b"x")
        self.stopped.wait()

    def server_close(self) -> None:
        super().server_close()
        for fd in (self.wake_read, self.wake_write):
            with contextlib.suppress(OSError):
                os.close(fd)

    def process_request(self, request: Any, client_address: Any) -> None:
        """Answer the connection on a thread of its own once one of MAX_HANDLERS is free,
        dropping the connection that has waited longest for its request to free one."""
        while not self.slots.acquire(blocking=False):
            with self.waiting_lock:
                oldest = next(iter(self.waiting), None)
                if oldest is not None:
                    del self.waiting[oldest]
            if oldest is not None:
                oldest.drop()
            # every thread is answering a request: they stop at their deadlines
            if self.slots.acquire(timeout=SLOT_WAIT):
                break
        try:
            super().process_request(request, client_address)
        except BaseException:
            self.slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.slots.release()

    def reading(self, arrival: Arrival) -> None:
        """Count `arrival` among the connections waiting for their request."""
        with self.waiting_lock:
            self.waiting[arrival] = None

    def answered(self, arrival: Arrival) -> None:
        """Count `arrival` out of the connections waiting for their request."""
        with self.waiting_lock:
            self.waiting.pop(arrival, None)

    def verify_request(self, request: Any, client_address: Any) -> bool:
        """Refuse connections from another user (SO_PEERCRED, where the platform has it)."""
        peercred = getattr(socket, "SO_PEERCRED", None)
        if peercred is None:
            return True
        creds = request.getsockopt(socket.SOL_SOCKET, peercred, struct.calcsize("3i"))
        _pid, uid, _gid = struct.unpack("3i", creds)
        return bool(uid == os.getuid())
