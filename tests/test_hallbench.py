"""The hall benchmark's arithmetic (host_tools/cmd_hallbench.py): which view brings a turn to the
spectators' page, lost and never-sent turns, the percentiles, what counts as sustained."""

import http.server
import io
import json
import threading
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from host_tools.cmd_hallbench import figures, reached

_sleep = time.sleep         # the real one (the generator's test shortens time.sleep)

# (sent {turn: commit}, views [(board, serial, n, arrival)], reached {turn: arrival})
REACHED = [
    ({("a", 1, 5): 10.0}, [("a", 1, 5, 10.2)], {("a", 1, 5): 10.2}),
    # one view showing two new turns at once brings both
    ({("a", 1, 5): 10.0, ("a", 1, 8): 11.0}, [("a", 1, 8, 11.3)],
     {("a", 1, 5): 11.3, ("a", 1, 8): 11.3}),
    # the first view that shows it counts, not a later one
    ({("a", 1, 5): 10.0}, [("a", 1, 3, 9.0), ("a", 1, 5, 10.1), ("a", 1, 8, 12.0)],
     {("a", 1, 5): 10.1}),
    # a view of another board, or of another game of the board, does not
    ({("a", 1, 5): 10.0}, [("b", 1, 9, 10.1), ("a", 2, 9, 10.2)], {}),
    # a view of an earlier turn does not
    ({("a", 1, 5): 10.0}, [("a", 1, 4, 10.1)], {}),
    ({}, [("a", 1, 4, 10.1)], {}),
]


@pytest.mark.parametrize("sent,views,want", REACHED)
def test_a_turn_reaches_the_page_with_the_first_view_that_shows_it(sent, views, want):
    assert reached(sent, views) == want


def _sent(latencies, late=0.0):
    """Turns of board "a" committed a second apart, each ``late`` after its due time."""
    return {("a", 1, i): (100.0 + i, 100.0 + i - late) for i in range(len(latencies))}


def _views(latencies):
    return [("a", 1, i, 100.0 + i + lat) for i, lat in enumerate(latencies)]


# (latencies of the turns shown (None: never shown), keyword arguments, what the row says)
FIGURES = [
    ([0.1] * 100, {}, {"reached": 100, "lost": 0, "median_ms": 100.0, "p99_ms": 100.0,
                       "sustained": True}),
    # 99th percentile by nearest rank: of 100 the 99th smallest
    ([0.01 * i for i in range(1, 101)], {}, {"p99_ms": 990.0, "max_ms": 1000.0,
                                             "median_ms": 505.0, "sustained": True}),
    ([0.01 * i for i in range(1, 100)] + [1.2, 1.3], {},
     {"p99_ms": 1200.0, "sustained": False}),
    # one turn never on the page: not sustained, however quick the others
    ([0.1] * 99 + [None], {}, {"reached": 99, "lost": 1, "sustained": False}),
    ([None] * 3, {}, {"reached": 0, "lost": 3, "sustained": False}),
    # turns the generator never sent, or the page closing the stream: not sustained
    ([0.1] * 10, {"missed": 2}, {"missed": 2, "sustained": False}),
    ([0.1] * 10, {"stream_ended": True}, {"sustained": False}),
    ([0.1] * 10, {"bound_ms": 50}, {"sustained": False}),
]


@pytest.mark.parametrize("lat,kw,want", FIGURES)
def test_the_figures_of_a_count(lat, kw, want):
    sent = _sent(lat)
    views = [v for v, x in zip(_views([x or 0 for x in lat]), lat) if x is not None]
    args = dict(seconds=10, bound_ms=1000.0)
    args.update(kw)
    row = figures(1, sent, views, **args)
    assert row["turns"] == len(lat)
    for k, v in want.items():
        assert row[k] == v, (k, row)


def test_the_generators_lateness_is_reported():
    row = figures(1, _sent([0.1] * 10, late=0.25), _views([0.1] * 10), 10, 1000.0)
    assert row["gen_late_p99_ms"] == 250.0


@given(st.lists(st.floats(0.0, 3.0), min_size=1, max_size=60))
def test_median_p99_and_max_are_ordered_and_every_turn_shown_is_counted(lat):
    row = figures(1, _sent(lat), _views(lat), 10, 1000.0)
    assert row["reached"] == len(lat) and row["lost"] == 0
    assert row["median_ms"] <= row["max_ms"] + 1e-6 and row["p99_ms"] <= row["max_ms"] + 1e-6
    assert row["sustained"] == (row["p99_ms"] <= 1000.0)


# -- the generator ------------------------------------------------------------------------------------
class _Client:
    def __init__(self, on_connect):
        self.published = []
        on_connect(self)

    def publish(self, topic, payload, qos=0, retain=False):
        self.published.append(topic)


class _Room:
    name = "hall"

    def board_key(self, board):
        return bytes(32)


def _record(turns):
    events = [{"k": "game", "variant": "short", "n": 0}]
    for i in range(turns):
        events += [{"k": "roll", "dice": [3, 1], "n": len(events)},
                   {"k": "turn", "side": i % 2, "n": len(events) + 1}]
    events.append({"k": "end", "n": len(events)})
    return {"lines": [json.dumps(e) + "|" + "0" * 32 for e in events]}


class _SlowOut(io.StringIO):
    """An output that stalls on its 21st turn, as a pipe nobody reads stalls its writer."""

    def __init__(self, stall):
        super().__init__()
        self.stall = stall
        self.turns = 0

    def write(self, text):
        if text.startswith("["):
            self.turns += 1
            if self.stall and self.turns == 21:
                _sleep(self.stall)
        return super().write(text)


@pytest.mark.parametrize("stall,turns", [(0, 40), (0.6, 40), (0.09, 40), (0, 2)])
def test_the_generator_counts_the_turns_it_never_sent(monkeypatch, stall, turns):
    """Three boards, a turn every 0.1 s for 1 s: ten turns due each. A stall shorter than an
    interval makes turns late, a longer one near the end leaves turns never sent."""
    from host_tools.hall import bench, mqtt
    monkeypatch.setattr(mqtt, "connect", lambda room, user, on_connect=None, **kw:
                        _Client(on_connect))
    monkeypatch.setattr(mqtt, "close", lambda c: None)
    monkeypatch.setattr(bench.time, "sleep", lambda s: _sleep(min(s, 0.05)))
    out = _SlowOut(stall)
    bench.generate(_Room(), ["b0", "b1", "b2"], [_record(turns)], 0.1, 1.0, out)
    rows = [json.loads(x) for x in out.getvalue().splitlines()]
    sent, summary = [r for r in rows if isinstance(r, list)], rows[-1]
    assert isinstance(summary, dict) and all(len(r) == 5 and r[3] >= r[4] for r in sent)
    assert summary["unready"] == 0
    if turns == 2:                                   # the games end: nothing is missed
        assert len(sent) == 6 and summary["missed"] == 0
        return
    assert len(sent) + summary["missed"] == 30, summary
    if stall > 0.1:
        assert summary["missed"] >= 3
    elif stall:
        assert max(t - due for _b, _s, _n, t, due in sent) >= stall / 2


# -- the page's stream as the bench reads it -------------------------------------------------------------
VIEW = {"t": "view", "view": {"board": "a", "serial": 1, "n": 7}}
OPENING = {"t": "view", "view": {"board": "a", "serial": 1, "n": 0}}


class _Page(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        status, events, then = self.server.script
        self.send_response(status)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        for e in events:
            self.wfile.write(b": keep-alive\n\n" + b"data: " + json.dumps(e).encode() + b"\n\n")
            self.wfile.flush()
        if then == "quiet":
            self.server.release.wait(5)
        elif then == "stopped":
            self.server.stopped.wait(5)


# (status, events, then: "close" / "quiet" / "stopped", ended, error has, views kept)
STREAMS = [
    (200, [OPENING, VIEW], "close", True, "closed", 1),
    (200, [VIEW], "quiet", True, "timed out", 1),
    (503, [], "close", True, "503", 0),
    (200, [VIEW], "stopped", False, None, 1),
]


@pytest.mark.parametrize("status,events,then,ended,error,kept", STREAMS)
def test_the_bench_reads_the_spectators_stream_and_says_when_it_ended(
        monkeypatch, status, events, then, ended, error, kept):
    from host_tools import cmd_hallbench
    monkeypatch.setattr(cmd_hallbench, "READ_TIMEOUT_S", 0.5)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Page)
    server.script = (status, events, then)
    server.release = threading.Event()
    server.stopped = threading.Event()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    got, stop = [], threading.Event()
    state = {"ended": False, "open": threading.Event(), "error": None}
    t = threading.Thread(target=cmd_hallbench._listen, args=(
        "http://127.0.0.1:%d/" % server.server_address[1], got, stop, state))
    try:
        t.start()
        if then == "stopped":
            deadline = time.time() + 5
            while not got and time.time() < deadline:
                _sleep(0.02)
            stop.set()
            server.stopped.set()
        t.join(5)
        assert not t.is_alive()
        assert state["ended"] is ended and state["open"].is_set() is (status == 200)
        assert (state["error"] is None) if error is None else (error in state["error"]), state
        assert [x[:3] for x in got] == [("a", 1, 7)] * kept
    finally:
        server.release.set()
        server.stopped.set()
        server.shutdown()
        server.server_close()
