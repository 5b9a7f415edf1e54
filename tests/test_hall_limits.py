"""Per-client shares of the spectators' page and a deadline on every request's head (issue 23): one
client cannot take all the live streams or connections, and a head trickled a byte at a time
keeps no thread past the deadline."""

import socket

import pytest

from host_tools.hall.room import Room
from host_tools.web import httpbase


@pytest.fixture
def spectators(tmp_path):
    from host_tools.hall.station import Station
    from host_tools.hall.store import Store
    from host_tools.hall.web import HallServer
    room = Room.create(str(tmp_path / "room"), boards=["b1"])
    st = Station(room, Store(str(tmp_path / "station.db")), client=False)
    server = HallServer(st, False)
    server.serve_in_thread()
    yield server
    server.stop()


def _connect(server, source):
    s = socket.socket()
    s.settimeout(10)
    s.bind((source, 0))
    s.connect(server.server_address[:2])
    return s


def _status(server, source, path="/api/stream"):
    """The status of a GET from ``source``, and the socket (kept open: a stream stays)."""
    s = _connect(server, source)
    host = "%s:%d" % server.server_address[:2]
    s.sendall(("GET %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (path, host)).encode())
    head = b""
    while b"\r\n" not in head:
        c = s.recv(1)
        if not c:
            return None, s
        head += c
    return int(head.split()[1]), s


def test_one_client_gets_its_share_of_streams_and_another_still_gets_one(spectators):
    held = []
    for _ in range(httpbase.STREAMS_PER_CLIENT):
        code, s = _status(spectators, "127.0.0.1")
        held.append(s)
        assert code == 200
    code, s = _status(spectators, "127.0.0.1")
    held.append(s)
    assert code == 503
    code, s = _status(spectators, "127.0.0.2")
    held.append(s)
    assert code == 200
    for s in held:
        s.close()


def test_one_client_gets_its_share_of_connections_and_another_is_served(spectators):
    idle = [_connect(spectators, "127.0.0.1") for _ in range(httpbase.PER_CLIENT)]
    extra = _connect(spectators, "127.0.0.1")
    assert extra.recv(1) == b""                   # closed at once: over its share
    code, s = _status(spectators, "127.0.0.2", "/api/views")
    assert code == 200
    for x in idle + [extra, s]:
        x.close()


def test_a_trickled_head_is_cut_at_the_deadline(spectators, monkeypatch):
    monkeypatch.setattr(httpbase, "HEAD_DEADLINE_S", 0.5)
    s = _connect(spectators, "127.0.0.1")
    sent = 0
    closed = False
    for c in b"GET /api/views HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 200:
        try:
            s.sendall(bytes([c]))
        except OSError:
            closed = True
            break
        sent += 1
        s.settimeout(0.05)
        try:
            if s.recv(1) == b"":
                closed = True
                break
        except socket.timeout:
            pass
    assert closed and sent < 200, sent
    s.close()
