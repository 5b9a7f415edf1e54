"""The virtual board's HTTP server: the page, the hardware description, a Server-Sent Events stream, actions."""

import json
import os
import queue
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from host_tools.web.firmware_process import REPO_ROOT

STATIC_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "static")
STATIC_TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
                ".css": "text/css; charset=utf-8", ".svg": "image/svg+xml"}
DESCRIPTION = os.path.join(REPO_ROOT, "hardware", "board.json")
KEEPALIVE_S = 10
MAX_BODY = 4096
REPLY_TIMEOUT_S = 10


def board_view(path=DESCRIPTION):
    """What the page needs from the hardware description: zones, slots, the LED map, brightness."""
    with open(path) as f:
        desc = json.load(f)
    power = desc.get("power", {})
    return {"name": desc.get("name"), "zones": desc["zones"], "leds": desc["leds"],
            "brightness_cap": power.get("brightness_cap", 255), "gamma": power.get("gamma", 1.0)}


class BoardPageServer(ThreadingHTTPServer):
    """Serves one hub's board on localhost; ``url`` once bound."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, hub, host="127.0.0.1", port=0, description=DESCRIPTION):
        self.hub = hub
        self.board = board_view(description)
        self.stopping = threading.Event()
        super().__init__((host, port), _Handler)

    @property
    def url(self):
        host, port = self.server_address[:2]
        return "http://%s:%d/" % (host, port)

    def serve_in_thread(self):
        t = threading.Thread(target=self.serve_forever, name="board-page", daemon=True)
        t.start()
        return t

    def stop(self):
        self.stopping.set()
        self.shutdown()
        self.server_close()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "NardyBoard/1"

    def log_message(self, fmt, *args):      # quiet: the terminal belongs to the user
        pass

    # -- GET -------------------------------------------------------------------------------------
    def do_GET(self):
        path = self.path.split("?", 1)[0]
        if path == "/":
            return self._static("index.html")
        if path.startswith("/static/"):
            return self._static(path[len("/static/"):])
        if path == "/api/board":
            return self._json(self.server.board)
        if path == "/api/state":
            return self._json(self.server.hub.snapshot())
        if path == "/api/stream":
            return self._stream()
        self._send(404, b"not found\n", "text/plain")

    def _static(self, name):
        ext = os.path.splitext(name)[1]
        full = os.path.join(STATIC_DIR, name)
        if "/" in name or name.startswith(".") or ext not in STATIC_TYPES or not os.path.isfile(full):
            return self._send(404, b"not found\n", "text/plain")
        with open(full, "rb") as f:
            self._send(200, f.read(), STATIC_TYPES[ext])

    def _stream(self):
        hub = self.server.hub
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        q = hub.subscribe()
        try:
            while not self.server.stopping.is_set():
                try:
                    msg = q.get(timeout=KEEPALIVE_S)
                except queue.Empty:
                    self.wfile.write(b": keep-alive\n\n")
                    self.wfile.flush()
                    continue
                self.wfile.write(b"data: " + json.dumps(msg).encode("utf-8") + b"\n\n")
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass
        finally:
            hub.unsubscribe(q)

    # -- POST ------------------------------------------------------------------------------------
    def do_POST(self):
        if self.path != "/api/act":
            return self._send(404, b"not found\n", "text/plain")
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY:
            return self._json({"ok": False, "answer": {"t": "err", "msg": "too long"}}, 413)
        try:
            action = json.loads(self.rfile.read(length) or b"{}")
            reply = self.server.hub.page_action(action)
        except (ValueError, KeyError, TypeError) as exc:
            return self._json({"ok": False, "answer": {"t": "err", "msg": str(exc)}}, 400)
        answer = reply.wait(REPLY_TIMEOUT_S)
        ok = bool(answer) and answer.get("t") == "ok"
        self._json({"ok": ok, "answer": answer}, 200 if answer is not None else 504)

    # -- helpers ---------------------------------------------------------------------------------
    def _json(self, obj, code=200):
        self._send(code, json.dumps(obj).encode("utf-8"), "application/json")

    def _send(self, code, body, ctype):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)
