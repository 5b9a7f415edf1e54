"""The hall's two pages and their servers: the director's (every board, one board live, results, exports) and the spectators' (read-only, held back).

The director's page is guarded as the board's local page is (``host_tools.web.guard``): the
Host and Origin checks, and the per-run token in the address the hall prints; its actions
(the round, the seats, clearing a board's alerts, exporting a round) are POSTs of JSON. The
spectators' page has no token and no action: every request but a GET is refused, the Host
check stays (``--public NAME`` adds the name spectators use), and it shows only the station's
delayed views (made from verified lines), never the boards' live status. Both pages get their
updates as Server-Sent Events; the spectators' stream carries only the boards asked for.
"""

import os
import queue
from urllib.parse import urlsplit

from host_tools.web.guard import Denied
from host_tools.web.httpbase import PER_CLIENT, STREAMS_PER_CLIENT, PageHandler, PageServer

STATIC_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "static")
SHARED_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "web",
                          "static")
KEEPALIVE_S = 10
MAX_CONNECTIONS = 64
MAX_STREAMS = 32
MAX_BOARDS_ASKED = 64


class HallServer(PageServer):
    """One of the hall's pages on ``host``:``port`` for ``station``; ``director``: the guarded
    director's page (else the spectators')."""

    request_queue_size = 128
    thread_name = "hall-page"

    def __init__(self, station, director, host="127.0.0.1", port=0, token=None, public=None,
                 max_streams=MAX_STREAMS):
        self.station = station
        self.director = director
        super().__init__(_Director if director else _Spectators, host, port, token,
                         guard_host=public, max_connections=MAX_CONNECTIONS,
                         max_streams=max_streams, per_client=None if director else PER_CLIENT,
                         streams_per_client=None if director else STREAMS_PER_CLIENT)

    @property
    def url(self):
        return self.token_url() if self.director else self.base_url()


class _Page(PageHandler):
    server_version = "NardyHall/1"
    static_dir = STATIC_DIR
    shared = {"layout.js": SHARED_DIR}      # the board's geometry, one home: the local page's

    def _stream(self, keep, kinds):
        """Server-Sent Events: the station's news of ``kinds`` that ``keep(msg)`` lets
        through."""
        if not self.server.take_stream(self.client_address[0]):
            return self._deny(Denied(503, "too many pages are watching"))
        station = self.server.station
        q = None
        try:
            self._open_stream()
            q = station.subscribe(kinds)
            while not self.server.stopping.is_set():
                try:
                    msg = q.get(timeout=KEEPALIVE_S if not q.dropped else 0.1)
                except queue.Empty:
                    if q.dropped:
                        break
                    self._event(None)
                    continue
                msg = keep(msg)
                if msg is not None:
                    self._event(msg)
        except OSError:
            pass
        finally:
            if q is not None:
                station.unsubscribe(q)
            self.server.give_stream(self.client_address[0])

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
        self._not_found()

    def _boards(self):
        text = self._arg("boards", "")
        boards = [b for b in text.split(",") if b]
        if len(boards) > MAX_BOARDS_ASKED:
            raise Denied(400, "at most %d boards at once" % MAX_BOARDS_ASKED)
        return set(boards)

    do_POST = _Page._not_allowed


class _Director(_Page):
    """The director's page: guarded, with actions."""

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
            return self._deny_page(exc) if path == "/" else self._deny(exc)
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
        self._not_found()

    def do_POST(self):
        if urlsplit(self.path).path != "/api/act":
            self.close_connection = True
            return self._not_found()
        try:
            self._admit(state_changing=True)
            answer = act_on(self.server.station, self._json_body())
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
