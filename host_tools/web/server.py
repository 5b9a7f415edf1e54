"""The virtual board's HTTP server: the page, the hardware description, a Server-Sent Events stream, actions."""

import json
import os
import queue
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from host_tools.export import ExportError, export
from host_tools.web.fairness import self_test
from host_tools.web.firmware_process import REPO_ROOT
from host_tools.web.guard import TOKEN_HEADER, TOKEN_PARAM, Denied, Guard, body_length

STATIC_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "static")
STATIC_TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
                ".css": "text/css; charset=utf-8", ".svg": "image/svg+xml"}
DESCRIPTION = os.path.join(REPO_ROOT, "hardware", "board.json")
KEEPALIVE_S = 10
REPLY_TIMEOUT_S = 10
CLIENT_TIMEOUT_S = 10   # a client that sends nothing (or reads nothing) for this long is dropped
MAX_CONNECTIONS = 48    # connections served at once; more are closed at once
MAX_STREAMS = 12        # event streams open at once
SECURITY_HEADERS = (("X-Content-Type-Options", "nosniff"), ("X-Frame-Options", "DENY"),
                    ("Content-Security-Policy", "default-src 'self'; img-src 'self' data: blob:; "
                     "frame-ancestors 'none'; form-action 'none'; base-uri 'none'"),
                    # the token rides in the page's address: never hand it to another site
                    ("Referrer-Policy", "same-origin"))


def board_view(path=DESCRIPTION):
    """What the page needs from the hardware description: zones, slots, the LED map, brightness."""
    with open(path) as f:
        desc = json.load(f)
    power = desc.get("power", {})
    return {"name": desc.get("name"), "zones": desc["zones"], "leds": desc["leds"],
            "brightness_cap": power.get("brightness_cap", 255), "gamma": power.get("gamma", 1.0)}


class BoardPageServer(ThreadingHTTPServer):
    """Serves one hub's board on localhost; ``url`` (once bound) carries the run's token."""

    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 64

    def __init__(self, hub, host="127.0.0.1", port=0, description=DESCRIPTION, token=None,
                 client_timeout=CLIENT_TIMEOUT_S, max_connections=MAX_CONNECTIONS,
                 max_streams=MAX_STREAMS):
        self.hub = hub
        self.board = board_view(description)
        self.stopping = threading.Event()
        self.client_timeout = client_timeout
        self.address_family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self._slots = threading.BoundedSemaphore(max_connections)
        self.streams = threading.BoundedSemaphore(max_streams)
        super().__init__((host, port), _Handler)
        self.guard = Guard(host, self.server_address[1], token)

    @property
    def url(self):
        host, port = self.server_address[:2]
        if ":" in host:
            host = "[%s]" % host
        return "http://%s:%d/?%s=%s" % (host, port, TOKEN_PARAM, self.guard.token)

    def serve_in_thread(self):
        t = threading.Thread(target=self.serve_forever, args=(0.1,), name="board-page", daemon=True)
        t.start()
        return t

    def stop(self):
        self.stopping.set()
        self.shutdown()
        self.server_close()

    # a bounded number of connections at once (each holds a thread)
    @property
    def free_connections(self):
        """How many more connections would be served now."""
        return self._slots._value

    def process_request(self, request, client_address):
        if not self._slots.acquire(blocking=False):
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._slots.release()
            raise

    def process_request_thread(self, request, client_address):
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()

    def handle_error(self, request, client_address):
        pass                  # a client that went away mid-request: nothing to report


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "NardyBoard/1"

    def setup(self):
        self.timeout = self.server.client_timeout      # the socket's timeout, for reads and writes
        super().setup()

    def log_message(self, fmt, *args):      # quiet: the terminal belongs to the user
        pass

    # -- the checks -----------------------------------------------------------------------------
    def _query(self):
        try:
            return parse_qs(urlsplit(self.path).query, max_num_fields=8)
        except ValueError:
            raise Denied(400, "too many query fields")

    def _token_given(self):
        given = self.headers.get(TOKEN_HEADER)
        if given is None:
            values = self._query().get(TOKEN_PARAM)
            given = values[0] if values else None
        return given

    def _admit(self, state_changing=False, token=True):
        """Host, Origin/Referer and the token, as this request needs them; raises Denied."""
        guard = self.server.guard
        guard.check_host(self.headers.get("Host"))
        guard.check_origin(self.headers.get("Origin"), self.headers.get("Referer"), state_changing)
        if token:
            guard.check_token(self._token_given())

    def _deny(self, exc):
        self.close_connection = True        # an unread body must not be taken for a request
        self._json({"ok": False, "answer": {"t": "err", "cmd": "", "msg": exc.why}}, exc.code)

    # -- GET -------------------------------------------------------------------------------------
    def do_GET(self):
        path = urlsplit(self.path).path
        try:
            if path.startswith("/static/"):
                self._admit(token=False)        # the page's own scripts: no secret in them
                return self._static(path[len("/static/"):])
            self._admit()
        except Denied as exc:
            if path == "/":
                self.close_connection = True
                return self._send(exc.code, (exc.why + "\n").encode("utf-8"), "text/plain; charset=utf-8")
            return self._deny(exc)
        if path == "/":
            return self._static("index.html")
        if path == "/api/board":
            return self._json(self.server.board)
        if path == "/api/state":
            return self._json(self.server.hub.snapshot())
        if path == "/api/stream":
            return self._stream()
        if path == "/api/export":
            return self._export()
        if path == "/api/fairness":
            return self._json(self_test(self.server.hub.match_records()))
        self._send(404, b"not found\n", "text/plain")

    def _static(self, name):
        ext = os.path.splitext(name)[1]
        full = os.path.join(STATIC_DIR, name)
        if "/" in name or "\\" in name or name.startswith(".") or ext not in STATIC_TYPES \
                or not os.path.isfile(full):
            return self._send(404, b"not found\n", "text/plain")
        with open(full, "rb") as f:
            self._send(200, f.read(), STATIC_TYPES[ext])

    def _stream(self):
        if not self.server.streams.acquire(blocking=False):
            return self._deny(Denied(503, "too many pages are watching this board"))
        hub = self.server.hub
        q = None
        try:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Connection", "close")
            self._security_headers()
            self.end_headers()
            self.close_connection = True
            q = hub.subscribe()
            while not self.server.stopping.is_set():
                try:
                    msg = q.get(timeout=KEEPALIVE_S)
                except queue.Empty:
                    self.wfile.write(b": keep-alive\n\n")
                    self.wfile.flush()
                    continue
                self.wfile.write(b"data: " + json.dumps(msg).encode("utf-8") + b"\n\n")
                self.wfile.flush()
        except OSError:                 # the page went away, or stopped reading
            pass
        finally:
            if q is not None:
                hub.unsubscribe(q)
            self.server.streams.release()

    def _export(self):
        """The match's records as gnubg's .mat or SGF (host_tools/export.py), or its reason why not."""
        try:
            fmt = (self._query().get("format") or ["mat"])[0]
        except Denied as exc:
            return self._deny(exc)
        if fmt not in ("mat", "sgf"):
            return self._deny(Denied(400, "the export formats are mat and sgf"))
        records = self.server.hub.match_records()
        if not records:
            return self._json({"ok": False, "why": "no game has been recorded yet"}, 409)
        try:
            # the game in progress is written as it stands (the download is to look at, not
            # to certify: `python -m host_tools export` is strict)
            text, warnings = export(records, fmt, partial=True)
        except ExportError as exc:
            return self._json({"ok": False, "why": str(exc)}, 422)
        events = records[-1].get("events") or [{}]
        name = "nardy-%s-%d-game%s.%s" % (events[0].get("variant", "game"), len(records),
                                          "" if len(records) == 1 else "s", fmt)
        self._json({"ok": True, "filename": name, "text": text, "warnings": warnings})

    # -- POST ------------------------------------------------------------------------------------
    def do_POST(self):
        if urlsplit(self.path).path != "/api/act":
            self.close_connection = True
            return self._send(404, b"not found\n", "text/plain")
        try:
            self._admit(state_changing=True)
            length = body_length(self.headers)
            ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
            if ctype != "application/json":
                raise Denied(415, "an action is sent as application/json")
        except Denied as exc:
            return self._deny(exc)
        try:
            body = self.rfile.read(length)
        except OSError:                 # too slow, or gone
            self.close_connection = True
            return
        if len(body) < length:
            return self._deny(Denied(400, "the body ended before its Content-Length"))
        try:
            action = json.loads(body.decode("utf-8"))
        except ValueError as exc:       # not UTF-8, or not JSON
            return self._deny(Denied(400, "the body is not a JSON action: %s" % str(exc)[:80]))
        try:
            reply = self.server.hub.page_action(action)
        except Exception as exc:        # never let one action take the server down
            return self._deny(Denied(500, "the action failed: %s" % str(exc)[:80]))
        answer = reply.wait(REPLY_TIMEOUT_S)
        ok = bool(answer) and answer.get("t") == "ok"
        self._json({"ok": ok, "answer": answer}, 200 if answer is not None else 504)

    # -- helpers ---------------------------------------------------------------------------------
    def _json(self, obj, code=200):
        self._send(code, json.dumps(obj).encode("utf-8"), "application/json")

    def _security_headers(self):
        for name, value in SECURITY_HEADERS:
            self.send_header(name, value)

    def _send(self, code, body, ctype):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self._security_headers()
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)
