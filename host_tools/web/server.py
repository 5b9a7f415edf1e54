"""The virtual board's HTTP server: the page, the hardware description, a Server-Sent Events stream, actions."""

import json
import os
import queue
from urllib.parse import urlsplit

from host_tools.records.export import ExportError, export
from host_tools.web.fairness import self_test
from host_tools.web.firmware_process import REPO_ROOT
from host_tools.web.guard import Denied
from host_tools.web.httpbase import CLIENT_TIMEOUT_S, PageHandler, PageServer

STATIC_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "static")
DESCRIPTION = os.path.join(REPO_ROOT, "hardware", "board.json")
KEEPALIVE_S = 10
REPLY_TIMEOUT_S = 10
MAX_CONNECTIONS = 48    # connections served at once; more are closed at once
MAX_STREAMS = 12        # event streams open at once


def board_view(path=DESCRIPTION):
    """What the page needs from the hardware description: zones, slots, the LED map, brightness."""
    with open(path) as f:
        desc = json.load(f)
    power = desc.get("power", {})
    return {"name": desc.get("name"), "zones": desc["zones"], "leds": desc["leds"],
            "brightness_cap": power.get("brightness_cap", 255), "gamma": power.get("gamma", 1.0)}


class BoardPageServer(PageServer):
    """Serves one hub's board on localhost; ``url`` (once bound) carries the run's token."""

    request_queue_size = 64
    thread_name = "board-page"

    def __init__(self, hub, host="127.0.0.1", port=0, description=DESCRIPTION, token=None,
                 client_timeout=CLIENT_TIMEOUT_S, max_connections=MAX_CONNECTIONS,
                 max_streams=MAX_STREAMS):
        self.hub = hub
        self.board = board_view(description)
        super().__init__(_Handler, host, port, token, max_connections=max_connections,
                         max_streams=max_streams, client_timeout=client_timeout)

    @property
    def url(self):
        return self.token_url()


class _Handler(PageHandler):
    server_version = "NardyBoard/1"
    static_dir = STATIC_DIR

    def _denial(self, why):
        return {"ok": False, "answer": {"t": "err", "cmd": "", "msg": why}}

    # -- GET -------------------------------------------------------------------------------------
    def do_GET(self):
        path = urlsplit(self.path).path
        try:
            if path.startswith("/static/"):
                self._admit(token=False)        # the page's own scripts: no secret in them
                return self._static(path[len("/static/"):])
            self._admit()
        except Denied as exc:
            return self._deny_page(exc) if path == "/" else self._deny(exc)
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
        self._not_found()

    def _stream(self):
        if not self.server.take_stream(self.client_address[0]):
            return self._deny(Denied(503, "too many pages are watching this board"))
        hub = self.server.hub
        q = None
        try:
            self._open_stream()
            q = hub.subscribe()
            while not self.server.stopping.is_set():
                try:
                    msg = q.get(timeout=KEEPALIVE_S)
                except queue.Empty:
                    msg = None
                self._event(msg)
        except OSError:                 # the page went away, or stopped reading
            pass
        finally:
            if q is not None:
                hub.unsubscribe(q)
            self.server.give_stream(self.client_address[0])

    def _export(self):
        """The match's records as gnubg's .mat or SGF (host_tools/records/export.py), or its reason why not."""
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
            return self._not_found()
        try:
            self._admit(state_changing=True)
            action = self._json_body()
        except Denied as exc:
            return self._deny(exc)
        except OSError:                 # too slow, or gone
            self.close_connection = True
            return
        try:
            reply = self.server.hub.page_action(action)
        except Exception as exc:        # never let one action take the server down
            return self._deny(Denied(500, "the action failed: %s" % str(exc)[:80]))
        answer = reply.wait(REPLY_TIMEOUT_S)
        ok = bool(answer) and answer.get("t") == "ok"
        self._json({"ok": ok, "answer": answer}, 200 if answer is not None else 504)
