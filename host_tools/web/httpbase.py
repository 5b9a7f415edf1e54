"""The pages' HTTP plumbing, one home for the board's page and the hall's: a server that serves a bounded number of connections and event streams, and a handler that admits a request (Host, Origin, the run's token), reads a JSON body and answers with the security headers.

What each page serves is its own (``host_tools.web.server``, ``host_tools.hall.web``); how a
request is admitted and answered is here, so a fix to either reaches both.
"""

import json
import os
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from host_tools import bounded
from host_tools.web.guard import TOKEN_HEADER, TOKEN_PARAM, Denied, Guard, body_length

STATIC_TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
                ".css": "text/css; charset=utf-8", ".svg": "image/svg+xml"}
SECURITY_HEADERS = (("X-Content-Type-Options", "nosniff"), ("X-Frame-Options", "DENY"),
                    ("Content-Security-Policy", "default-src 'self'; img-src 'self' data: blob:; "
                     "frame-ancestors 'none'; form-action 'none'; base-uri 'none'"),
                    # the token rides in the page's address: never hand it to another site
                    ("Referrer-Policy", "same-origin"))
CLIENT_TIMEOUT_S = 10   # a client that sends nothing (or reads nothing) for this long is dropped
HEAD_DEADLINE_S = 10    # a request's line and headers must be in by then, however they trickle
PER_CLIENT = 8          # the hall's pages: connections one address may hold at once
STREAMS_PER_CLIENT = 4  # the hall's pages: event streams one address may hold at once
MAX_QUERY_FIELDS = 8


class PageServer(ThreadingHTTPServer):
    """A threaded server on ``host``:``port`` that serves at most ``max_connections`` at once
    (more are closed at once: each holds a thread) and ``max_streams`` event streams, guarded by
    a ``Guard`` for ``guard_host`` (the name its pages are reached by) and ``token``."""

    daemon_threads = True
    allow_reuse_address = True
    thread_name = "page"

    def __init__(self, handler, host, port, token=None, guard_host=None, max_connections=48,
                 max_streams=12, client_timeout=CLIENT_TIMEOUT_S, per_client=None,
                 streams_per_client=None):
        self.stopping = threading.Event()
        self.limits = {"conn": per_client, "stream": streams_per_client}   # None: no share
        self.client_timeout = client_timeout
        self.address_family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self._slots = threading.BoundedSemaphore(max_connections)
        self.streams = threading.BoundedSemaphore(max_streams)
        self._held = {}              # (what, address) -> how many: per-client shares
        self._held_lock = threading.Lock()
        super().__init__((host, port), handler)
        self.guard = Guard(guard_host or host, self.server_address[1], token)

    def base_url(self):
        """``http://host:port/`` as a browser on this machine reaches the server."""
        host, port = self.server_address[:2]
        if host in ("0.0.0.0", "::"):
            host = "127.0.0.1"
        if ":" in host:
            host = "[%s]" % host
        return "http://%s:%d/" % (host, port)

    def token_url(self):
        """The address with the run's token: the one to open."""
        return "%s?%s=%s" % (self.base_url(), TOKEN_PARAM, self.guard.token)

    def serve_in_thread(self):
        t = threading.Thread(target=self.serve_forever, args=(0.1,), name=self.thread_name,
                             daemon=True)
        t.start()
        return t

    def stop(self):
        self.stopping.set()
        self.shutdown()
        self.server_close()

    @property
    def free_connections(self):
        """How many more connections would be served now."""
        return self._slots._value

    def share(self, what, address):
        """Take one of ``address``'s shares of ``what`` (``limits``); False when it holds them
        all. (The local page's clients are all this machine: it has no shares, only its head
        deadline and its totals.)"""
        limit = self.limits[what]
        if limit is None:
            return True
        with self._held_lock:
            k = (what, address)
            if self._held.get(k, 0) >= limit:
                return False
            self._held[k] = self._held.get(k, 0) + 1
            return True

    def unshare(self, what, address):
        if self.limits[what] is None:
            return
        with self._held_lock:
            k = (what, address)
            self._held[k] -= 1
            if not self._held[k]:
                del self._held[k]

    def take_stream(self, address):
        """A stream for ``address``: within its share and the server's; False otherwise."""
        if not self.share("stream", address):
            return False
        if not self.streams.acquire(blocking=False):
            self.unshare("stream", address)
            return False
        return True

    def give_stream(self, address):
        self.streams.release()
        self.unshare("stream", address)

    def process_request(self, request, client_address):
        if not self.share("conn", client_address[0]):
            self.shutdown_request(request)
            return
        if not self._slots.acquire(blocking=False):
            self.unshare("conn", client_address[0])
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._slots.release()
            self.unshare("conn", client_address[0])
            raise

    def process_request_thread(self, request, client_address):
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()
            self.unshare("conn", client_address[0])

    def handle_error(self, request, client_address):
        pass                  # a client that went away mid-request: nothing to report


class _HeadDeadline:
    """The request's input, with a deadline on its head: a client trickling a byte per
    timeout keeps no thread past ``HEAD_DEADLINE_S``."""

    def __init__(self, f):
        self.f = f
        self.until = None

    def start(self):
        self.until = time.monotonic() + HEAD_DEADLINE_S

    def done(self):
        self.until = None

    def _check(self):
        if self.until is not None and time.monotonic() > self.until:
            raise socket.timeout("the request's head took longer than %d s" % HEAD_DEADLINE_S)

    def readline(self, limit=-1):
        if self.until is None:
            return self.f.readline(limit)
        out = b""                      # a byte at a time while the head comes: the deadline holds
        while limit < 0 or len(out) < limit:
            self._check()
            c = self.f.read(1)
            out += c
            if not c or c == b"\n":
                break
        return out

    def read(self, n=-1):
        self._check()
        return self.f.read(n)

    def __getattr__(self, name):
        return getattr(self.f, name)


class PageHandler(BaseHTTPRequestHandler):
    """Admits and answers one page's requests; a page names its static folder (``static_dir``)
    and the files it takes from another (``shared``: name → folder)."""

    protocol_version = "HTTP/1.1"
    static_dir = ""
    shared = {}  # type: dict

    def setup(self):
        self.timeout = self.server.client_timeout      # the socket's timeout, for reads and writes
        super().setup()
        self.rfile = _HeadDeadline(self.rfile)

    def handle_one_request(self):
        self.rfile.start()                # each request's head: HEAD_DEADLINE_S from its first read
        super().handle_one_request()

    def parse_request(self):
        ok = super().parse_request()
        self.rfile.done()                 # the head is in: the body has the socket's timeout
        return ok

    def log_message(self, fmt, *args):      # quiet: the terminal belongs to the user
        pass

    # -- the request ------------------------------------------------------------------------------
    def _query(self):
        try:
            return parse_qs(urlsplit(self.path).query, max_num_fields=MAX_QUERY_FIELDS)
        except ValueError:
            raise Denied(400, "too many query fields")

    def _arg(self, name, default=None):
        values = self._query().get(name)
        return values[0] if values else default

    def _admit(self, state_changing=False, token=True):
        """Host, Origin/Referer and the token, as this request needs them; raises Denied."""
        guard = self.server.guard
        guard.check_host(self.headers.get("Host"))
        guard.check_origin(self.headers.get("Origin"), self.headers.get("Referer"), state_changing)
        if token:
            guard.check_token(self.headers.get(TOKEN_HEADER) or self._arg(TOKEN_PARAM))

    def _json_body(self):
        """The request's body, a JSON object sent as application/json with its length; raises
        Denied (OSError when the client is too slow or gone)."""
        n = body_length(self.headers)
        ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if ctype != "application/json":
            raise Denied(415, "an action is sent as application/json")
        body = self.rfile.read(n)
        if len(body) < n:
            raise Denied(400, "the body ended before its Content-Length")
        try:
            obj = bounded.loads(body)
        except ValueError as exc:       # not UTF-8, or not JSON
            raise Denied(400, "the body is not a JSON action: %s" % str(exc)[:80])
        if not isinstance(obj, dict):
            raise Denied(400, "an action is a JSON object")
        return obj

    # -- the answer -------------------------------------------------------------------------------
    def _denial(self, why):
        """The JSON a refused request gets."""
        return {"ok": False, "why": why}

    def _deny(self, exc):
        self.close_connection = True        # an unread body must not be taken for a request
        self._json(self._denial(exc.why), exc.code)

    def _deny_page(self, exc):
        """A refused page (not an API call): the reason as text."""
        self.close_connection = True
        self._send(exc.code, (exc.why + "\n").encode("utf-8"), "text/plain; charset=utf-8")

    def _json(self, obj, code=200):
        self._send(code, json.dumps(obj).encode("utf-8"), "application/json")

    def _send(self, code, body, ctype, extra=()):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        for name, value in SECURITY_HEADERS + tuple(extra):
            self.send_header(name, value)
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)

    def _not_found(self):
        self._send(404, b"not found\n", "text/plain")

    def _static(self, name):
        """A file of the page's own folder (or a shared one), by its bare name."""
        ext = os.path.splitext(name)[1]
        full = os.path.join(self.shared.get(name, self.static_dir), name)
        if "/" in name or "\\" in name or name.startswith(".") or ext not in STATIC_TYPES \
                or not os.path.isfile(full):
            return self._not_found()
        with open(full, "rb") as f:
            self._send(200, f.read(), STATIC_TYPES[ext])

    # -- Server-Sent Events -----------------------------------------------------------------------
    def _open_stream(self):
        """Start an event stream (the connection closes when it ends)."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        for name, value in SECURITY_HEADERS:
            self.send_header(name, value)
        self.end_headers()
        self.close_connection = True

    def _event(self, msg):
        """One event (``msg`` as JSON), or a keep-alive comment for ``None``."""
        self.wfile.write(b": keep-alive\n\n" if msg is None
                         else b"data: " + json.dumps(msg).encode("utf-8") + b"\n\n")
        self.wfile.flush()
