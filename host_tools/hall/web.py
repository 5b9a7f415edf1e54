"""The hall's two pages and their servers: the director's (every board, one board live, results, exports) and the spectators' (read-only, held back).

The director's page is guarded as the board's local page is (``host_tools.web.guard``): the
Host and Origin checks, and the per-run token in the address the hall prints; its actions
(the round, the seats, clearing a board's alerts, exporting a round) are POSTs of JSON. The
spectators' page has no token and no action: every request but a GET is refused, the Host
check stays (``--public NAME`` adds the name spectators use), and it shows only the station's
delayed views (made from verified lines), never the boards' live status. Both pages get their
updates as Server-Sent Events; the spectators' stream carries only the boards asked for.
"""

import json
import os
import queue
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from host_tools.web.guard import TOKEN_HEADER, TOKEN_PARAM, Denied, Guard, body_length
from host_tools.web.server import SECURITY_HEADERS, STATIC_TYPES

STATIC_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "static")
SHARED_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "web",
                          "static")
SHARED = ("layout.js",)         # the board's geometry, one home: the local page's
KEEPALIVE_S = 10
CLIENT_TIMEOUT_S = 10
MAX_CONNECTIONS = 64
MAX_STREAMS = 32
MAX_BOARDS_ASKED = 64


class HallServer(ThreadingHTTPServer):
    """One of the hall's pages on ``host``:``port`` for ``station``; ``director``: the guarded
    director's page (else the spectators')."""

    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128

    def __init__(self, station, director, host="127.0.0.1", port=0, token=None, public=None,
                 max_streams=MAX_STREAMS):
        self.station = station
        self.director = director
        self.stopping = threading.Event()
        self.address_family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self._slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
        self.streams = threading.BoundedSemaphore(max_streams)
        super().__init__((host, port), _Director if director else _Spectators)
        self.guard = Guard(public or host, self.server_address[1], token)

    @property
    def url(self):
        host, port = self.server_address[:2]
        if ":" in host:
            host = "[%s]" % host
        if host in ("0.0.0.0", "[::]"):
            host = "127.0.0.1"
        base = "http://%s:%d/" % (host, port)
        return base + ("?%s=%s" % (TOKEN_PARAM, self.guard.token) if self.director else "")

    def serve_in_thread(self):
        t = threading.Thread(target=self.serve_forever, args=(0.1,), daemon=True,
                             name="hall-page")
        t.start()
        return t

    def stop(self):
        self.stopping.set()
        self.shutdown()
        self.server_close()

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
        pass


class _Page(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "NardyHall/1"
    page = ""

    def setup(self):
        self.timeout = CLIENT_TIMEOUT_S
        super().setup()

    def log_message(self, fmt, *args):
        pass

    def _query(self):
        try:
            return parse_qs(urlsplit(self.path).query, max_num_fields=8)
        except ValueError:
            raise Denied(400, "too many query fields")

    def _arg(self, name, default=None):
        values = self._query().get(name)
        return values[0] if values else default

    def _json(self, obj, code=200):
        self._send(code, json.dumps(obj).encode("utf-8"), "application/json")

    def _deny(self, exc):
        self.close_connection = True
        self._json({"ok": False, "why": exc.why}, exc.code)

    def _send(self, code, body, ctype, extra=()):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        for name, value in SECURITY_HEADERS:
            self.send_header(name, value)
        for name, value in extra:
            self.send_header(name, value)
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)

    def _static(self, name):
        ext = os.path.splitext(name)[1]
        folder = SHARED_DIR if name in SHARED else STATIC_DIR
        full = os.path.join(folder, name)
        if "/" in name or "\\" in name or name.startswith(".") or ext not in STATIC_TYPES \
                or not os.path.isfile(full):
            return self._send(404, b"not found\n", "text/plain")
        with open(full, "rb") as f:
            self._send(200, f.read(), STATIC_TYPES[ext])

    def _stream(self, keep, kinds):
        """Server-Sent Events: the station's news of ``kinds`` that ``keep(msg)`` lets
        through."""
        if not self.server.streams.acquire(blocking=False):
            return self._deny(Denied(503, "too many pages are watching"))
        station = self.server.station
        q = None
        try:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Connection", "close")
            for name, value in SECURITY_HEADERS:
                self.send_header(name, value)
            self.end_headers()
            self.close_connection = True
            q = station.subscribe(kinds)
            while not self.server.stopping.is_set():
                try:
                    msg = q.get(timeout=KEEPALIVE_S if not q.dropped else 0.1)
                except queue.Empty:
                    if q.dropped:
                        break
                    self.wfile.write(b": keep-alive\n\n")
                    self.wfile.flush()
                    continue
                msg = keep(msg)
                if msg is None:
                    continue
                self.wfile.write(b"data: " + json.dumps(msg).encode("utf-8") + b"\n\n")
                self.wfile.flush()
        except OSError:
            pass
        finally:
            if q is not None:
                station.unsubscribe(q)
            self.server.streams.release()

    def _no_icon(self):
        self._send(204, b"", "image/x-icon")

    def _not_allowed(self):
        self.close_connection = True
        self._send(405, b"this page only reads\n", "text/plain", (("Allow", "GET"),))

    do_PUT = do_DELETE = do_PATCH = _not_allowed


class _Spectators(_Page):
    """Read-only: the delayed views of the boards asked for."""

    def do_GET(self):
        path = urlsplit(self.path).path
        if path == "/favicon.ico":
            return self._no_icon()
        try:
            self.server.guard.check_host(self.headers.get("Host"))
            boards = self._boards()
        except Denied as exc:
            return self._deny(exc)
        if path == "/":
            return self._static("spectators.html")
        if path.startswith("/static/"):
            return self._static(path[len("/static/"):])
        station = self.server.station
        if path == "/api/views":
            return self._json({"hall": station.room.name, "delay": station.delay,
                               "views": station.spectators(boards),
                               "boards": station.watchable()})
        if path == "/api/stream":
            return self._stream(lambda m: m if not boards or m["view"]["board"] in boards
                                else None, ("view",))
        self._send(404, b"not found\n", "text/plain")

    def _boards(self):
        text = self._arg("boards", "")
        boards = [b for b in text.split(",") if b]
        if len(boards) > MAX_BOARDS_ASKED:
            raise Denied(400, "at most %d boards at once" % MAX_BOARDS_ASKED)
        return set(boards)

    do_POST = _Page._not_allowed


class _Director(_Page):
    """The director's page: guarded, with actions."""

    def _admit(self, state_changing=False, token=True):
        guard = self.server.guard
        guard.check_host(self.headers.get("Host"))
        guard.check_origin(self.headers.get("Origin"), self.headers.get("Referer"), state_changing)
        if token:
            given = self.headers.get(TOKEN_HEADER) or self._arg(TOKEN_PARAM)
            guard.check_token(given)

    def do_GET(self):
        path = urlsplit(self.path).path
        if path == "/favicon.ico":
            return self._no_icon()
        try:
            if path.startswith("/static/"):
                self._admit(token=False)
                return self._static(path[len("/static/"):])
            self._admit()
        except Denied as exc:
            if path == "/":
                self.close_connection = True
                return self._send(exc.code, (exc.why + "\n").encode(), "text/plain; charset=utf-8")
            return self._deny(exc)
        station = self.server.station
        if path == "/":
            return self._static("director.html")
        if path == "/api/state":
            return self._json(station.snapshot())
        if path == "/api/board":
            view = station.board_view(self._arg("id", ""))
            return self._json(view) if view is not None else self._json({"ok": False}, 404)
        if path == "/api/results":
            return self._json(station.results())
        if path == "/api/results.csv":
            from host_tools.hall.exports import results_csv
            return self._send(200, results_csv(station.results()).encode("utf-8"),
                              "text/csv; charset=utf-8",
                              (("Content-Disposition", 'attachment; filename="results.csv"'),))
        if path == "/api/stream":
            return self._stream(lambda m: m, ("board", "report"))
        self._send(404, b"not found\n", "text/plain")

    def do_POST(self):
        if urlsplit(self.path).path != "/api/act":
            self.close_connection = True
            return self._send(404, b"not found\n", "text/plain")
        try:
            self._admit(state_changing=True)
            n = body_length(self.headers)
            ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
            if ctype != "application/json":
                raise Denied(415, "an action is sent as application/json")
            body = self.rfile.read(n)
            if len(body) < n:
                raise Denied(400, "the body ended before its Content-Length")
            try:
                act = json.loads(body.decode("utf-8"))
            except ValueError as exc:
                raise Denied(400, "the body is not a JSON action: %s" % str(exc)[:80])
            if not isinstance(act, dict):
                raise Denied(400, "an action is a JSON object")
            answer = act_on(self.server.station, act)
        except Denied as exc:
            return self._deny(exc)
        except OSError:
            self.close_connection = True
            return
        self._json(dict(answer, ok=True))


def act_on(station, act):
    """One of the director's actions; Denied(400) when it is not one."""
    what = act.get("do")
    if what == "round":
        n = act.get("n")
        if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= 999:
            raise Denied(400, "a round is a number from 1 to 999")
        station.set_round(n)
        return {"round": n}
    if what == "seat":
        r, board = act.get("round"), act.get("board")
        white, black = act.get("white", ""), act.get("black", "")
        if not isinstance(r, int) or isinstance(r, bool) or not 1 <= r <= 999:
            raise Denied(400, "a round is a number from 1 to 999")
        if board not in station.room.boards:
            raise Denied(400, "no such board in this hall")
        for name in (white, black):
            if not isinstance(name, str) or len(name) > 60 or any(c < " " for c in name):
                raise Denied(400, "a player's name is text of at most 60 characters")
        station.seat(r, board, white.strip(), black.strip())
        return {"seat": [r, board, white, black]}
    if what == "clear":
        if act.get("board") not in station.room.boards:
            raise Denied(400, "no such board in this hall")
        station.clear_alerts(act["board"])
        return {}
    if what == "export":
        r = act.get("round")
        if not isinstance(r, int) or isinstance(r, bool) or not 1 <= r <= 999:
            raise Denied(400, "a round is a number from 1 to 999")
        from host_tools.hall.exports import export_round
        folder = station.room.file("exports", "round-%d" % r)
        files = export_round(station, r, folder)
        return {"folder": folder, "files": [os.path.basename(f) for f in files]}
    raise Denied(400, "unknown action (round, seat, clear, export)")
