"""The page server under abuse: every request checked (Host, Origin, token, body), bad requests answered, the command path never lost."""

import json
import queue
import random
import socket
import threading
import time

import pytest

from host_tools.web.actions import PAGE_COMMANDS
from host_tools.web.firmware_process import FirmwareProcess
from host_tools.web.hub import BoardHub
from host_tools.web.server import BoardPageServer

FUZZ_SEEDS = (1, 2, 3)
FUZZ_REQUESTS = 400


class EchoLink:
    """A link whose board answers every line with ``ok`` and keeps what it was sent (so a test
    sees every byte that would have reached a board)."""

    kind = "sim"

    def __init__(self):
        self.sent = []
        self.on_close = None
        self._lines = queue.Queue()

    def describe(self):
        return "echo board"

    def start(self, on_line):
        def answer():                         # the board's lines come from a reader thread
            for text in iter(self._lines.get, None):
                on_line(text)
        threading.Thread(target=answer, daemon=True).start()
        return self

    def send(self, text):
        self.sent.append(text)
        if text == "status":
            self._lines.put(json.dumps({"t": "status", "variant": "short", "phase": "setup",
                                        "turn": 0, "position": None}))
        self._lines.put(json.dumps({"t": "ok", "cmd": text.split()[0]}))

    def close(self):
        self._lines.put(None)


@pytest.fixture
def echo_server():
    link = EchoLink()
    hub = BoardHub(link).start()
    deadline = time.monotonic() + 5
    while len(link.sent) < 2:                     # the hub's own status and export went out
        assert time.monotonic() < deadline
        time.sleep(0.01)
    server = BoardPageServer(hub, port=0, client_timeout=0.5, max_connections=8, max_streams=2)
    server.serve_in_thread()
    yield server, link
    server.stop()
    hub.close()


class Client:
    """Raw HTTP/1.1 requests to a server, with full control of every header."""

    def __init__(self, server):
        self.port = server.server_address[1]
        self.token = server.guard.token
        self.host = "127.0.0.1:%d" % self.port
        self.origin = "http://" + self.host

    def raw(self, data, timeout=5.0):
        """Send bytes on a new connection; returns (status code or None, headers text, body)."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=timeout) as s:
            chunks = []
            try:
                s.sendall(data)
                s.shutdown(socket.SHUT_WR)
                while True:
                    chunk = s.recv(65536)
                    if not chunk:
                        break
                    chunks.append(chunk)
            except OSError:            # reset, or closed before we finished sending
                pass
        reply = b"".join(chunks)
        head, _, body = reply.partition(b"\r\n\r\n")
        first = head.split(b"\r\n", 1)[0].split()
        code = int(first[1]) if len(first) >= 2 and first[0].startswith(b"HTTP/") else None
        return code, head.decode("latin-1"), body

    def request(self, method, path, headers=(), body=b"", host=True):
        lines = ["%s %s HTTP/1.1" % (method, path)]
        if host:
            lines.append("Host: " + self.host)
        lines += ["%s: %s" % kv for kv in headers]
        data = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1", "replace") + body
        return self.raw(data)

    def act(self, action, extra=(), token=True, origin=True, raw_body=None):
        body = raw_body if raw_body is not None else json.dumps(action).encode()
        headers = [("Content-Type", "application/json"), ("Content-Length", str(len(body)))]
        if token:
            headers.append(("X-Nardy-Token", self.token))
        if origin:
            headers.append(("Origin", self.origin))
        return self.request("POST", "/api/act", headers + list(extra), body)


def answer(body):
    return json.loads(body)["answer"]


def test_a_good_request_passes_every_check(echo_server):
    server, link = echo_server
    c = Client(server)
    code, head, body = c.act({"do": "command", "line": "new long"})
    assert code == 200 and json.loads(body)["ok"] is True
    assert link.sent[-1] == "new long"
    assert "X-Frame-Options: DENY" in head and "Referrer-Policy: same-origin" in head
    code, _, body = c.request("GET", "/api/state", [("X-Nardy-Token", c.token)])
    assert code == 200 and json.loads(body)["t"] == "snapshot"
    code, _, body = c.request("GET", "/?t=" + c.token)
    assert code == 200 and b"<svg id=\"board\"" in body
    code, _, _ = c.request("GET", "/static/board.js")        # the page's scripts hold no secret
    assert code == 200


@pytest.mark.parametrize("case", [
    "no token", "wrong token", "foreign Host", "no Host", "foreign Origin", "null Origin",
    "no Origin", "foreign Referer", "other port Origin"])
def test_a_post_failing_one_check_changes_nothing(echo_server, case):
    server, link = echo_server
    c = Client(server)
    before = list(link.sent)
    token, origin, extra, host = True, True, [], True
    if case == "no token":
        token = False
    elif case == "wrong token":
        token = False
        extra = [("X-Nardy-Token", c.token[:-1] + ("A" if c.token[-1] != "A" else "B"))]
    elif case == "foreign Host":
        c.host = "attacker.example:%d" % c.port
    elif case == "no Host":
        host = False
    elif case == "foreign Origin":
        origin, extra = False, [("Origin", "http://attacker.example")]
    elif case == "null Origin":
        origin, extra = False, [("Origin", "null")]
    elif case == "no Origin":
        origin = False
    elif case == "foreign Referer":
        origin, extra = False, [("Referer", "http://attacker.example/page.html")]
    elif case == "other port Origin":
        origin, extra = False, [("Origin", "http://127.0.0.1:%d" % (c.port + 1))]
    body = json.dumps({"do": "command", "line": "new long"}).encode()
    headers = [("Content-Type", "application/json"), ("Content-Length", str(len(body)))] + extra
    if token:
        headers.append(("X-Nardy-Token", c.token))
    if origin:
        headers.append(("Origin", c.origin))
    code, _, reply = c.request("POST", "/api/act", headers, body, host=host)
    assert code == 403, (case, reply)
    assert answer(reply)["msg"]
    assert link.sent == before


@pytest.mark.parametrize("path, headers, code", [
    ("/", [], 403),                                             # the page needs its key
    ("/?t=nope", [], 403),
    ("/api/state", [], 403),
    ("/api/board", [("X-Nardy-Token", "nope")], 403),
    ("/api/stream", [], 403),
    ("/api/stream?t={t}", [("Origin", "http://attacker.example")], 403),
    ("/api/stream?t={t}", [("Host", "attacker.example:{p}")], 403),
    ("/static/board.js", [("Host", "attacker.example:{p}")], 403),
    ("/api/state?t={t}&a=1&b=2&c=3&d=4&e=5&f=6&g=7&h=8", [], 400),
    ("/api/nothing?t={t}", [], 404),
    ("/static/../server.py", [], 404),
    ("/static/%2e%2e/server.py", [], 404),
])
def test_reads_are_checked_too(echo_server, path, headers, code):
    server, _ = echo_server
    c = Client(server)
    fill = {"t": c.token, "p": c.port}
    headers = [(k, v.format(**fill)) for k, v in headers]
    own_host = not any(k == "Host" for k, v in headers)
    got, _, body = c.request("GET", path.format(**fill), headers, host=own_host)
    assert got == code, body


def test_the_stream_opens_with_the_token_in_its_address(echo_server):
    server, _ = echo_server
    c = Client(server)
    with socket.create_connection(("127.0.0.1", c.port), timeout=5) as s:
        s.sendall(("GET /api/stream?t=%s HTTP/1.1\r\nHost: %s\r\nOrigin: %s\r\n\r\n"
                   % (c.token, c.host, c.origin)).encode())
        got = b""
        while b"data: " not in got:
            got += s.recv(4096)
        assert got.startswith(b"HTTP/1.1 200") and b"text/event-stream" in got


@pytest.mark.parametrize("headers, body, code", [
    ([], b"", 411),                                                   # no Content-Length
    ([("Content-Length", "-1")], b"", 400),
    ([("Content-Length", "-99999")], b"", 400),
    ([("Content-Length", "twelve")], b"", 400),
    ([("Content-Length", "5"), ("Content-Length", "5")], b"{}{}{}", 400),
    ([("Content-Length", "100000000")], b"", 413),                    # answered without reading
    ([("Transfer-Encoding", "chunked")], b"2\r\n{}\r\n0\r\n\r\n", 411),
])
def test_bad_content_lengths_are_answered_without_reading(echo_server, headers, body, code):
    server, link = echo_server
    c = Client(server)
    before = list(link.sent)
    base = [("Content-Type", "application/json"), ("X-Nardy-Token", c.token), ("Origin", c.origin)]
    start = time.monotonic()
    got, head, reply = c.request("POST", "/api/act", base + headers, body)
    assert got == code and answer(reply)["t"] == "err"
    assert time.monotonic() - start < 0.4          # not waiting for a body that never comes
    assert "Connection: close" in head
    assert link.sent == before


@pytest.mark.parametrize("raw_body, ctype, code", [
    (b"{not json", "application/json", 400),
    (b"\xff\xfe{}", "application/json", 400),                       # not UTF-8
    (b'{"do": "command", "line": "st\xc3"}', "application/json", 400),
    (b"", "application/json", 400),
    (b'{"do": "command", "line": "new long"}', "text/plain", 415),   # what a form can send
    (b'{"do": "command", "line": "new long"}', "application/x-www-form-urlencoded", 415),
])
def test_malformed_bodies_are_refused(echo_server, raw_body, ctype, code):
    server, link = echo_server
    c = Client(server)
    before = list(link.sent)
    got, _, reply = c.request("POST", "/api/act", [
        ("Content-Type", ctype), ("Content-Length", str(len(raw_body))),
        ("X-Nardy-Token", c.token), ("Origin", c.origin)], raw_body)
    assert got == code and answer(reply)["t"] == "err"
    assert link.sent == before


@pytest.mark.parametrize("action", [
    {"do": "command", "line": "status\nnew long"},
    {"do": "command", "line": "status\rnew long"},
    {"do": "command", "line": "status\x03"},
    {"do": "command", "line": "\x01import os\x04"},
    {"do": "command", "line": "\x02"}, {"do": "command", "line": "\x05"},
    {"do": "command", "line": "new long " + "x" * 3000},
    {"do": "command", "line": "help\x00"},
    {"do": "lift", "zone": "1\n\x03"},
    {"do": "press", "button": "p0\n\x03"},
    [1, 2, 3], "status", None, {"do": {"nested": [1]}},
])
def test_smuggling_actions_are_refused_and_the_next_one_works(echo_server, action):
    server, link = echo_server
    c = Client(server)
    before = list(link.sent)
    body = json.dumps(action).encode()
    if len(body) > 4096:
        body = body[:4096]
    got, _, reply = c.act(None, raw_body=body)
    assert got in (200, 400) and answer(reply)["t"] == "err"
    assert link.sent == before
    got, _, reply = c.act({"do": "command", "line": "status"})
    assert got == 200 and answer(reply)["t"] == "ok"


def test_a_slow_client_is_dropped_and_others_are_served_meanwhile(echo_server):
    server, link = echo_server
    c = Client(server)
    slow = socket.create_connection(("127.0.0.1", c.port), timeout=5)
    try:
        slow.sendall(b"POST /api/act HTTP/1.1\r\nHost: " + c.host.encode())      # and nothing more
        got, _, reply = c.act({"do": "command", "line": "status"})
        assert got == 200
        start = time.monotonic()
        assert slow.recv(100) == b""                                  # closed by the server
        assert time.monotonic() - start < 3
    finally:
        slow.close()
    # a body that never arrives in full
    slow = socket.create_connection(("127.0.0.1", c.port), timeout=5)
    try:
        slow.sendall(("POST /api/act HTTP/1.1\r\nHost: %s\r\nOrigin: %s\r\nX-Nardy-Token: %s\r\n"
                      "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"
                      % (c.host, c.origin, c.token)).encode())
        assert slow.recv(100) == b""
    finally:
        slow.close()
    assert c.act({"do": "command", "line": "status"})[0] == 200


def test_connections_and_streams_are_bounded():
    hub = BoardHub(EchoLink()).start()
    server = BoardPageServer(hub, port=0, client_timeout=3, max_connections=4, max_streams=2)
    server.serve_in_thread()
    c = Client(server)
    streams, idle = [], []
    try:
        for _ in range(2):
            s = socket.create_connection(("127.0.0.1", c.port), timeout=5)
            s.sendall(("GET /api/stream?t=%s HTTP/1.1\r\nHost: %s\r\n\r\n" % (c.token, c.host)).encode())
            got = b""
            while len(got) < 12:
                chunk = s.recv(12 - len(got))
                assert chunk, got
                got += chunk
            assert got == b"HTTP/1.1 200"
            streams.append(s)
        code, _, body = c.request("GET", "/api/stream?t=" + c.token)
        assert code == 503 and "too many" in answer(body)["msg"]
        deadline = time.monotonic() + 3               # the refused stream's slot is free again
        while server.free_connections != 2:
            assert time.monotonic() < deadline, server.free_connections
            time.sleep(0.01)
        idle = [socket.create_connection(("127.0.0.1", c.port), timeout=5) for _ in range(2)]
        deadline = time.monotonic() + 3               # accepted: they hold the last two slots
        while server.free_connections:
            assert time.monotonic() < deadline, "the idle connections were not accepted"
            time.sleep(0.01)
        code, _, _ = c.request("GET", "/api/state?t=" + c.token)
        assert code is None                           # every slot taken: closed at once
        deadline = time.monotonic() + 8               # the idle ones time out, slots come back
        while c.request("GET", "/api/state?t=" + c.token)[0] != 200:
            assert time.monotonic() < deadline, "the server did not recover its connections"
            time.sleep(0.1)
    finally:
        for s in streams + idle:
            s.close()
        server.stop()
        hub.close()


# -- fuzz: random damage to good requests, a fixed seed each -------------------------------------
def fuzz_request(rng, c):
    """A request made from a good one by a few random changes; returns (bytes, is_intact)."""
    action = rng.choice([{"do": "command", "line": rng.choice(PAGE_COMMANDS + ("sim", "mix 00", ""))},
                         {"do": "lift", "zone": rng.randrange(-3, 31)},
                         {"do": "press", "button": rng.choice(["p0", "p1", "menu", "p9"])},
                         {"do": "command", "line": "status" + chr(rng.randrange(0, 32))}])
    body = json.dumps(action).encode()
    headers = {"Host": c.host, "Origin": c.origin, "X-Nardy-Token": c.token,
               "Content-Type": "application/json", "Content-Length": str(len(body))}
    method, path = "POST", "/api/act"
    intact = True
    for _ in range(rng.randrange(0, 4)):
        intact = False
        what = rng.randrange(10)
        if what == 0:
            headers.pop(rng.choice(sorted(headers)), None)
        elif what == 1:
            key = rng.choice(sorted(headers))
            headers[key] = "".join(chr(rng.randrange(0, 256)) for _ in range(rng.randrange(0, 40)))
        elif what == 2:
            headers["Content-Length"] = rng.choice(["-1", "-0", "0", "1", "4097", "9" * 30, "",
                                                    str(len(body) + rng.randrange(-5, 5)), "0x20"])
        elif what == 3:
            body = bytes(rng.randrange(256) for _ in range(rng.randrange(0, 300)))
        elif what == 4:
            pos = rng.randrange(len(body) + 1)
            body = body[:pos] + bytes([rng.choice([0, 1, 2, 3, 4, 5, 10, 13, 0x7f, 0xff])]) + body[pos:]
        elif what == 5:
            method = rng.choice(["GET", "PUT", "DELETE", "OPTIONS", "HEAD", "P\x00ST", "POST"])
        elif what == 6:
            path = rng.choice(["/api/act?x", "/api/act/../act", "/API/ACT", "*", "/api/act\x00",
                               "/" + "a" * 70000, "/api/stream"])
        elif what == 7:
            headers["Host"] = rng.choice(["attacker.example:%d" % c.port, "localhost:%d" % c.port,
                                          "127.0.0.1", "[::1]:%d" % c.port])
        elif what == 8:
            headers["Origin"] = rng.choice(["null", "http://attacker.example", "http://localhost:%d" % c.port])
        else:
            headers["X-Junk"] = "x" * rng.randrange(0, 70000)
    head = "%s %s HTTP/1.1\r\n" % (method, path) + "".join("%s: %s\r\n" % kv for kv in headers.items())
    return head.encode("latin-1", "replace") + b"\r\n" + body, intact


@pytest.mark.parametrize("seed", FUZZ_SEEDS)
def test_fuzzed_requests_never_pass_a_check_they_fail_nor_break_the_server(echo_server, seed):
    server, link = echo_server
    c = Client(server)
    rng = random.Random(seed)
    for n in range(FUZZ_REQUESTS):
        data, intact = fuzz_request(rng, c)
        code, head, body = c.raw(data)
        where = "seed %d request %d: %r -> %r" % (seed, n, data[:200], head[:200])
        assert code is None or 200 <= code < 600, where
        if code == 200 and not intact:
            # a changed request that still passed must have passed every check honestly
            sent = dict(line.partition(": ")[::2] for line in
                        data.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")[1:])
            assert sent.get("X-Nardy-Token") == c.token, where
            assert sent.get("Host", "").lower() in server.guard.hosts, where
            assert sent.get("Origin", "").lower() in server.guard.origins, where
        if n % 25 == 24:
            got, _, reply = c.act({"do": "command", "line": "status"})
            assert got == 200 and answer(reply)["t"] == "ok", where
    for line in link.sent:                 # nothing but whole, printable, whitelisted lines went out
        assert all(" " <= ch <= "~" for ch in line), (seed, line)
        assert line.split()[0] in PAGE_COMMANDS or line.startswith("sim "), (seed, line)
    got, _, reply = c.act({"do": "command", "line": "status"})
    assert got == 200 and answer(reply)["t"] == "ok"


# -- the real firmware behind it ----------------------------------------------------------------------
def test_after_every_abuse_the_real_firmware_still_answers(tmp_path):
    hub = BoardHub(FirmwareProcess(flash_dir=str(tmp_path), seed=7)).start()
    server = BoardPageServer(hub, port=0, client_timeout=0.5)
    server.serve_in_thread()
    c = Client(server)
    try:
        deadline = time.monotonic() + 10
        while hub.status is None:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        bad = [{"do": "command", "line": "status\nnew long"}, {"do": "command", "line": "\x03\x04"},
               {"do": "command", "line": "new " + "long " * 60}, {"do": "command", "line": "new nope"},
               {"do": "lift", "zone": 99}]
        for action in bad:
            c.act(action)
        c.act(None, raw_body=b"\xff{")
        threads = [threading.Thread(target=c.act, args=({"do": "command", "line": "status"},))
                   for _ in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        got, _, reply = c.act({"do": "command", "line": "new long"})
        assert got == 200 and answer(reply)["t"] == "ok", reply
        got, _, reply = c.act({"do": "command", "line": "status"})
        assert got == 200 and answer(reply)["t"] == "ok"
        deadline = time.monotonic() + 10
        while hub.status["variant"] != "long":
            assert time.monotonic() < deadline
            time.sleep(0.02)
        sent = [e["line"] for e in hub.log if e["dir"] == "out"]
        assert "new long" in sent and not any("\n" in s or "\x03" in s for s in sent)
    finally:
        server.stop()
        hub.close()
