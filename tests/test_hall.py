"""The tournament hall: the topic layout, the room's credentials, Mosquitto's generated ACL on a real
broker, the board's streamed lines and ranged export, the line check the station uses, and a short
drill (simulated boards through bridges into the station while the broker restarts)."""

import json
import os
import threading
import time

import pytest

from firmware.board import hall_link
from firmware.board.identity import OPEN_KEY, Mac
from host_tools.records.export import ExportError, check_line
from host_tools.hall.room import Room, RoomError, check_id
from host_tools.soak.soakboard import VirtualBoard


# -- the layout -----------------------------------------------------------------------------------
ROUTES = [
    ("rl", None, ("line", 1, False)),
    ("record_end", None, ("tag", 1, False)),
    ("status", None, ("status", 1, True)),
    ("hello", None, ("ev", 1, False)),
    ("games", None, ("ev", 1, False)),
    ("ev", "power_restore", ("ev", 1, False)),
    ("ev", "game_over", ("ev", 1, False)),
    ("ev", "commit", ("ev", 0, False)),
    ("ev", "mismatch", ("ev", 0, False)),
    ("ev", "lift", None),
    ("ev", "place", None),
    ("ev", "step", None),
    ("record", None, None),
    ("ok", None, None),
    ("err", None, None),
    ("leds", None, None),
]


@pytest.mark.parametrize("kind,ev,want", ROUTES)
def test_each_protocol_line_has_its_topic(kind, ev, want):
    assert hall_link.route(kind, ev) == want


WANTS = [
    (b'{"s": 3, "n": 5}', (3, 5, -1)),
    (b'{"s": 3, "n": 5, "m": 9}', (3, 5, 9)),
    (b'{"s": 0, "n": 5}', None),
    (b'{"s": 1, "n": -1}', None),
    (b'{"s": "1", "n": 0}', None),
    (b'{"s": 1}', None),
    (b'[1, 2]', None),
    (b'not json', None),
    (b'\xff\xfe', None),
]


@pytest.mark.parametrize("payload,want", WANTS)
def test_a_want_is_read_or_refused(payload, want):
    assert hall_link.want_of(payload) == want


def test_topics_are_hall_board_kind():
    assert hall_link.topic("club", "e6614c31", "line") == "club/e6614c31/line"


# -- the room ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("board", ["", "a/b", "+", "#", "station", "spectator", "x" * 65,
                                   "with space", None])
def test_a_board_id_that_cannot_be_a_topic_level_is_refused(board):
    with pytest.raises(RoomError):
        check_id(board)


def test_the_room_derives_one_password_per_user_and_keeps_its_boards(tmp_path):
    room = Room.create(str(tmp_path / "r"), name="club", boards=["b1", "b2"])
    again = Room(str(tmp_path / "r"))
    assert again.boards == ["b1", "b2"] and again.name == "club"
    pw = {u: room.password(u) for u in ("b1", "b2", "station", "spectator")}
    assert len(set(pw.values())) == 4
    assert again.password("b1") == pw["b1"]
    assert room.add(["b2", "b3"]) == ["b3"]
    assert Room(str(tmp_path / "r")).boards == ["b1", "b2", "b3"]
    assert os.stat(tmp_path / "r" / "keys.json").st_mode & 0o077 == 0


def test_a_folder_that_is_no_room_is_refused(tmp_path):
    with pytest.raises(RoomError):
        Room(str(tmp_path))


# -- the line check ---------------------------------------------------------------------------------
KEY = bytes(range(32))


def _sealed(text, board="b1", serial=2, key=KEY):
    return text + "|" + Mac(key).hex("%s|%d|" % (board, serial), text)


GOOD = '{"k": "roll", "dice": [3, 1], "by": "board", "n": 4}'
LINES = [
    (_sealed(GOOD), None),
    (_sealed(GOOD)[:-1] + "0" if _sealed(GOOD)[-1] != "0" else _sealed(GOOD)[:-1] + "1", "seal"),
    (_sealed(GOOD, board="b2"), "seal"),
    (_sealed(GOOD, serial=3), "seal"),
    (_sealed(GOOD, key=OPEN_KEY), "seal"),
    (_sealed(GOOD.replace('"n": 4', '"n": 5')).replace('"n": 5', '"n": 4'), "seal"),
    (_sealed("not json"), "not JSON"),
    (_sealed('{"k": "roll", "by": "board"}'), "index n"),
    (_sealed('{"k": "roll", "n": true}'), "index n"),
    (_sealed('{"k": "party", "n": 1}'), "unknown event kind"),
    ("short|0123", "not a sealed line"),
    (None, "not a sealed line"),
    ("x" * 9000 + "|" + "0" * 32, "not a sealed line"),
]


@pytest.mark.parametrize("line,why", LINES)
def test_each_line_is_checked_on_its_own(line, why):
    mac = Mac(KEY)
    if why is None:
        assert check_line(mac, "b1|2|", line)["n"] == 4
    else:
        with pytest.raises(ExportError) as info:
            check_line(mac, "b1|2|", line)
        assert why in str(info.value)


# -- the host's clients ------------------------------------------------------------------------------
class InstantClient:
    """paho's client as it behaves beside a broker on the same machine at its quickest: the
    connection is made, and ``on_connect`` runs, the moment its network loop starts."""

    made = []

    def __init__(self, *args, **kw):
        self.published = []
        self.subscribed = []
        InstantClient.made.append(self)

    def __getattr__(self, name):              # the settings calls (password, queue, will, ...)
        return lambda *a, **kw: None

    def connect_async(self, *a, **kw):
        pass

    def loop_start(self):
        class Ok:
            is_failure = False
        self.on_connect(self, None, None, Ok(), None)

    def publish(self, topic, payload, qos=0, retain=False):
        self.published.append((topic, payload))

    def subscribe(self, topic, qos=0):
        self.subscribed.extend(t for t, _q in topic) if isinstance(topic, list) \
            else self.subscribed.append(topic)
        return 0, len(self.subscribed)            # (result, message id), as paho answers

    def acknowledge(self, mid):
        """The broker's SUBACK for the subscription sent with message id ``mid``."""
        class Granted:
            is_failure = False
        self.on_subscribe(self, None, mid, [Granted()], None)


def test_a_bridge_announces_its_board_even_when_the_broker_answers_at_once(tmp_path,
                                                                           monkeypatch):
    """The board's `conn` (on, via usb) is published from the connect callback; it must reach
    the broker however quickly that callback runs (it once ran before the bridge had kept its
    client, and the station showed a connected board as never connected)."""
    from host_tools.hall import mqtt
    from host_tools.hall.bridge import Relay
    monkeypatch.setattr(mqtt.paho, "Client", InstantClient)
    InstantClient.made = []
    room = Room.create(str(tmp_path / "room"), boards=["b1"])
    relay = Relay(room, make_link=lambda: None)
    relay._line('{"t": "identity", "board": "b1"}')
    (client,) = InstantClient.made
    conn = [json.loads(p) for t, p in client.published if t == hall_link.topic("hall", "b1", "conn")]
    assert conn and conn[0]["on"] is True and conn[0]["via"] == "usb"
    assert hall_link.topic("hall", "b1", "want") in client.subscribed


def test_the_station_counts_itself_connected_only_once_its_subscriptions_are_granted(
        tmp_path, monkeypatch):
    """Between CONNACK and SUBACK the broker does not yet route the boards' lines to the
    station: a station (or a drill) that took the CONNACK as ready could miss a board's line
    (it once did, on a loaded CI machine)."""
    from host_tools.hall import mqtt
    from host_tools.hall.station import SUBSCRIBED, Station
    from host_tools.hall.store import Store
    monkeypatch.setattr(mqtt.paho, "Client", InstantClient)
    InstantClient.made = []
    room = Room.create(str(tmp_path / "room"), boards=["b1"])
    st = Station(room, Store(str(tmp_path / "station.db"))).start()
    try:
        (client,) = InstantClient.made
        assert len(client.subscribed) == len(SUBSCRIBED) and not st.connected
        client.acknowledge(99)                    # another subscription's SUBACK
        assert not st.connected
        client.acknowledge(len(SUBSCRIBED))
        assert st.connected
    finally:
        st.stop()


def test_a_refused_message_delivered_twice_is_reported_once(tmp_path):
    """QoS 1 is at least once: after a broker restart the station may get a forged line again
    (and the broker may log a resent refused publish again, flagged DUP). One forgery is one
    report; the repeat counts with the duplicates. A different forgery is a new report."""
    from host_tools.hall.broker import Broker
    from host_tools.hall.station import Station
    from host_tools.hall.store import Store
    room = Room.create(str(tmp_path / "room"), boards=["b1"])
    st = Station(room, Store(str(tmp_path / "station.db")), client=False)
    forged = json.dumps({"t": "rl", "s": 1, "l": _sealed(GOOD, serial=1, key=bytes(32))}).encode()
    other = json.dumps({"t": "rl", "s": 1, "l": _sealed(GOOD, serial=1, key=bytes(31) + b"x")})
    for payload in (forged, forged, other.encode()):
        st._message(None, hall_link.topic(room.name, "b1", "line"), payload)
    rejected = [r for r in st.store.reports(100) if r["kind"] == "rejected"]
    assert len(rejected) == 2 and st.counts["rejected"] == 2 and st.counts["duplicates"] == 1

    class Log:
        stdout = ["Denied PUBLISH from forger (d0, q1, r0, m3, 'hall/b1/line', ... (60 bytes))\n",
                  "Denied PUBLISH from forger (d1, q1, r0, m3, 'hall/b1/line', ... (60 bytes))\n",
                  "Denied PUBLISH from forger (d0, q1, r0, m4, 'hall/b1/tag', ... (9 bytes))\n",
                  # the DUP flag is the client's to set: on a publish never refused before it
                  # hides nothing
                  "Denied PUBLISH from forger (d1, q1, r0, m5, 'hall/b1/line', ... (60 bytes))\n",
                  "Denied PUBLISH from forger (d1, q1, r0, m3, 'hall/b1/ev', ... (60 bytes))\n"]
    broker = Broker(room)
    broker._read(Log)
    assert broker.reports == [("denied", "forger", "hall/b1/line"),
                              ("denied", "forger", "hall/b1/tag"),
                              ("denied", "forger", "hall/b1/line"),
                              ("denied", "forger", "hall/b1/ev")]


# -- the board's side ---------------------------------------------------------------------------------
def test_every_line_on_flash_goes_out_on_the_link_and_export_gives_a_range():
    vb = VirtualBoard("short", fast=True, seed=3)
    try:
        vb.cmd("dice manual")
        vb.cmd("new backgammon")
        vb.setup()
        vb.cmd("roll 3 1")
        vb.cmd("condone on")
        vb.cmd("condone off")
        serial = vb.session.journal.serial
        live = [m for m in vb.lines if m.get("t") == "rl" and m.get("s") == serial]
        ns = [json.loads(m["l"][:-33])["n"] for m in live]
        assert ns == list(range(vb.session.journal.count))      # each once, in order
        m = vb.mark()
        assert vb.cmd("export %d 1 3" % serial)["t"] == "ok"
        out = vb.lines[m:]
        got = [json.loads(x["l"][:-33])["n"] for x in out if x.get("t") == "rl"]
        assert got == [1, 2]
        end = [x for x in out if x.get("t") == "record_end"][0]
        assert end["lines"] == vb.session.journal.count and end["serial"] == serial
        assert [x["l"] for x in out if x.get("t") == "rl"] == [m["l"] for m in live[1:3]]
        for bad in ("export %d x" % serial, "export %d 1 2 3" % serial, "export 99 0"):
            assert vb.cmd(bad)["t"] == "err"
    finally:
        vb.close()


# -- the broker ---------------------------------------------------------------------------------------
def test_the_acl_gives_every_board_its_own_topics_only():
    from host_tools.hall.broker import acl_text
    text = acl_text("club")
    assert "user station\ntopic readwrite club/#" in text
    assert "user spectator\ntopic read club/+/view" in text
    for kind in ("line", "tag", "status", "ev", "conn"):
        assert "pattern write club/%%u/%s" % kind in text
    assert "pattern read club/%u/want" in text
    assert "write club/%u/want" not in text and "view" not in text.split("spectator")[0]


@pytest.fixture
def hall(tmp_path, mosquitto):
    from host_tools.hall.broker import Broker, free_port
    room = Room.create(str(tmp_path / "room"), port=free_port(), boards=["b1", "b2"])
    reports = []
    broker = Broker(room, on_report=lambda *r: reports.append(r)).start()
    yield room, broker, reports
    broker.stop()


def _client(room, user, topics=()):
    from host_tools.hall import mqtt
    got = []
    ready = threading.Event()

    def connected(c):
        for t in topics:
            c.subscribe(t, qos=1)
        ready.set()

    c = mqtt.connect(room, user, on_connect=connected,
                     on_message=lambda c, t, p: got.append((t, p)))
    return c, got, ready


def test_mosquitto_lets_a_board_write_only_its_topics_and_spectators_only_read(hall):
    from host_tools.hall import mqtt
    room, broker, reports = hall
    station, seen, ready = _client(room, "station", topics=["hall/#"])
    assert ready.wait(10)
    b1, _, ok1 = _client(room, "b1")
    spect, _, ok2 = _client(room, "spectator")
    assert ok1.wait(10) and ok2.wait(10)
    b1.publish("hall/b1/line", b"mine", qos=1).wait_for_publish(5)
    b1.publish("hall/b2/line", b"forged", qos=1).wait_for_publish(5)
    b1.publish("hall/b1/want", b"not for boards", qos=1).wait_for_publish(5)
    spect.publish("hall/b1/view", b"spectators write nothing", qos=1).wait_for_publish(5)
    b1.publish("hall/b1/ev", b"last", qos=1).wait_for_publish(5)
    deadline = time.time() + 10
    while time.time() < deadline and ("hall/b1/ev", b"last") not in seen:
        time.sleep(0.05)
    assert [t for t, p in seen] == ["hall/b1/line", "hall/b1/ev"]
    while time.time() < deadline and len(reports) < 3:
        time.sleep(0.05)
    denied = sorted((who, what) for kind, who, what in reports if kind == "denied")
    assert denied == [("b1", "hall/b1/want"), ("b1", "hall/b2/line"),
                      ("spectator", "hall/b1/view")]
    import paho.mqtt.client as paho
    bad = paho.Client(paho.CallbackAPIVersion.VERSION2, client_id="b2")
    bad.username_pw_set("b2", "wrong")
    answer = []
    bad.on_connect = lambda c, u, flags, reason, props: answer.append(reason)
    try:
        bad.connect(room.host, room.port)
        for _ in range(50):
            bad.loop(0.1)
            if answer:
                break
    except OSError:              # the broker closed the connection: refused as well
        pass
    assert not bad.is_connected() and all(r.is_failure for r in answer)
    for c in (station, b1, spect):
        mqtt.close(c)
    while time.time() < deadline and not any(k == "refused" for k, w, x in reports):
        time.sleep(0.05)
    assert any(kind == "refused" and what == "login" for kind, who, what in reports)


def _wait(cond, seconds=10):
    deadline = time.time() + seconds
    while time.time() < deadline and not cond():
        time.sleep(0.05)
    return cond()


def _held(station, board, serial):
    """The line numbers the station holds of a game (none yet: empty)."""
    with station.lock:
        st = station.boards.get(board)
        game = st.games.get(serial) if st else None
        return set(game.lines) if game else set()


def test_the_stations_session_keeps_what_boards_publish_while_it_is_away(hall, tmp_path):
    """The station's MQTT session is persistent: lines a board publishes while the station is
    stopped reach the next station (nobody answers its wants here), each kept once; the
    board's retained status arrives after the queued lines, so the latest stands."""
    from host_tools.hall import mqtt
    from host_tools.hall.station import Station
    from host_tools.hall.store import Store
    room, broker, _reports = hall
    key = room.board_key("b1")
    lines = [_sealed('{"k": "roll", "dice": [%d, 1], "by": "board", "n": %d}' % (n + 1, n),
                     serial=1, key=key) for n in range(4)]
    db = str(tmp_path / "station.db")
    st = Station(room, Store(db)).start()
    b1, _, ok = _client(room, "b1")
    assert ok.wait(10) and _wait(lambda: st.connected)

    def send(n):
        b1.publish(hall_link.topic(room.name, "b1", "line"),
                   json.dumps({"t": "rl", "s": 1, "l": lines[n]}), qos=1).wait_for_publish(5)
        b1.publish(hall_link.topic(room.name, "b1", "status"),
                   json.dumps({"t": "status", "serial": 1, "seal": lines[n][-32:]}),
                   qos=1, retain=True).wait_for_publish(5)

    send(0)
    assert _wait(lambda: 0 in _held(st, "b1", 1))
    st.stop()
    for n in (1, 2, 3):
        send(n)
    send(2)                                       # a line repeated: kept once
    again = Station(room, Store(db))
    game = again.boards["b1"].games[1]             # the game going on, read back from the database
    assert game.lines == {0: lines[0]} and not game.done()
    again.start()
    try:
        assert _wait(lambda: game.next == 4 and again.counts["duplicates"] >= 1), \
            (sorted(game.lines), again.counts)
        assert [game.lines[n] for n in range(4)] == lines
        assert again.counts["rejected"] == 0 and again.counts["conflicts"] == 0
        assert _wait(lambda: (again.boards["b1"].status or {}).get("seal") == lines[2][-32:])
        rows = again.store.query("SELECT COUNT(*) FROM lines WHERE board = 'b1'")
        assert rows[0][0] == 4
    finally:
        again.stop()
        mqtt.close(b1)


def test_a_short_drill_loses_nothing_and_rejects_every_forgery(tmp_path, mosquitto):
    """Six simulated boards (every variant) through two bridges into one station while the
    broker restarts, a bridge dies and a compromised board forges lines (the long drill with 50
    boards is in test_hall_soak.py)."""
    from host_tools.hall import drill
    r = drill.run(boards=6, seed=2026, speed=10, bridges=2, timeout=240, folder=str(tmp_path))
    d = r.as_dict()
    assert r.ok, d
    assert d["games"] >= 12 and d["forged"] == d["forged_rejected"] >= 3
    assert d["broker_restarts"] + d["bridge_kills"] >= 1


# -- the station, fed by hand ------------------------------------------------------------------------
class _Wire:
    """Stands for the broker between one virtual board and the station: carries the board's
    lines (losing and repeating some on purpose) and the station's wants back to the board."""

    def __init__(self, station, vb, room):
        self.station = station
        self.vb = vb
        self.room = room
        self.board = vb.session.identity.board_id
        self.wants = []
        self.sent = 0

    def publish(self, topic, payload, qos=0, retain=False):
        kind = topic.rsplit("/", 1)[1]
        if kind == "want":
            self.wants.append(json.loads(payload))

    def carry(self, objs, lose=(), repeat=()):
        for i, obj in enumerate(objs):
            r = hall_link.route(obj.get("t"), obj.get("ev"))
            if r is None or i in lose:
                continue
            topic = hall_link.topic(self.room.name, self.board, r[0])
            for _ in range(2 if i in repeat else 1):
                self.station._message(None, topic, json.dumps(obj).encode())
                self.sent += 1

    def answer(self):
        while self.wants:
            w = self.wants.pop(0)
            m = self.vb.mark()
            self.vb.cmd("export %d %d %d" % (w["s"], w["n"], w.get("m", -1)))
            self.carry(self.vb.lines[m:])


def _played(tmp_path, room, name=b"st01", variant="backgammon", seed=11):
    import random

    from host_tools.hall.simboard import provision
    from host_tools.soak.soakplayer import Player
    board = name.hex()
    flash = str(tmp_path / ("flash-" + board))
    provision(flash, board, room.board_key(board))
    vb = VirtualBoard(variant, flash_dir=flash, fast=True, seed=seed, unique_id=name)
    vb.pace = 50
    Player(vb, random.Random(seed), "none").play_match(variant)
    return vb


def test_the_station_keeps_each_line_once_asks_again_for_what_was_lost_and_rejects_forgeries(
        tmp_path):
    from host_tools.hall.station import Station
    from host_tools.hall.store import Store
    name = b"st01"
    room = Room.create(str(tmp_path / "room"), boards=[name.hex(), "b2"])
    vb = _played(tmp_path, room, name)
    st = Station(room, Store(str(tmp_path / "station.db")), client=False)
    wire = _Wire(st, vb, room)
    st._client = wire
    lines = list(vb.lines)
    rl = [i for i, o in enumerate(lines) if o.get("t") == "rl"]
    lose = set(rl[5::9]) | {rl[-1]}                  # some lines lost, the last (the end) too
    repeat = set(rl[3::11])
    wire.carry(lines, lose=lose, repeat=repeat)
    assert wire.wants, "a gap must be asked for"
    for _ in range(20):
        wire.answer()
        with st.lock:
            game = st.boards[name.hex()].games[vb.session.journal.serial]
        if game.done():
            break
        for g in st.boards[name.hex()].games.values():
            if not g.done():
                st._want(st.boards[name.hex()], g, force=True)
    record = vb.record()
    assert game.state == "complete", game.notes
    assert [game.lines[n] for n in range(game.next)] == record["lines"]
    assert st.counts["duplicates"] >= len(repeat) and st.counts["rejected"] == 0
    assert game.result["winner"] in (0, 1) and game.result["turns"] == len(game.turns)
    view = st.spectators()[0]
    assert view["result"] is not None and view["board"] == name.hex()
    # forgeries: the board's line under another board's topic, a broken seal, nonsense
    good = record["lines"][3]
    bad = good[:-1] + ("0" if good[-1] != "0" else "1")
    before = st.counts["rejected"]
    for board, line in (("b2", good), (name.hex(), bad), (name.hex(), "x" * 40)):
        st._message(None, hall_link.topic(room.name, board, "line"),
                    json.dumps({"t": "rl", "s": 2, "l": line}).encode())
    st._message(None, hall_link.topic(room.name, "intruder", "line"), b"{}")
    assert st.counts["rejected"] == before + 3
    kinds = sorted(r["kind"] for r in st.store.reports())
    assert kinds.count("rejected") == 3 and "unknown" in kinds
    # the station restarted: the games come back from its database, checked again
    st.store.flush()
    again = Station(room, Store(str(tmp_path / "station.db")), client=False)
    g2 = again.boards[name.hex()].games[vb.session.journal.serial]
    assert g2.state == "complete" and g2.next == game.next
    vb.close()


def test_the_directors_page_is_guarded_and_the_spectators_page_only_reads(tmp_path):
    import urllib.error
    import urllib.request

    from host_tools.hall.station import Station
    from host_tools.hall.store import Store
    from host_tools.hall.web import HallServer
    room = Room.create(str(tmp_path / "room"), boards=["b1"])
    st = Station(room, Store(str(tmp_path / "db")), client=False)
    director = HallServer(st, True)
    spectators = HallServer(st, False)
    director.serve_in_thread()
    spectators.serve_in_thread()

    def call(url, method="GET", headers=None, body=None):
        req = urllib.request.Request(url, method=method, headers=headers or {}, data=body)
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return r.status, r.read()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read()

    try:
        d = director.url
        base = d.split("?")[0]
        token = d.split("t=")[1]
        js = {"Content-Type": "application/json", "Origin": base.rstrip("/")}
        assert call(d)[0] == 200
        assert call(base)[0] == 403
        assert call(base + "api/state?t=nope")[0] == 403
        assert call(base + "api/state?t=" + token, headers={"Host": "evil.example:80"})[0] == 403
        assert json.loads(call(base + "api/state?t=" + token)[1])["boards"][0]["id"] == "b1"
        act = base + "api/act?t=" + token
        cases = [({"do": "round", "n": 3}, 200), ({"do": "round", "n": 0}, 400),
                 ({"do": "seat", "round": 3, "board": "b1", "white": "Ada", "black": "Bo"}, 200),
                 ({"do": "seat", "round": 3, "board": "zz", "white": "", "black": ""}, 400),
                 ({"do": "seat", "round": 3, "board": "b1", "white": "x\n", "black": ""}, 400),
                 ({"do": "launch"}, 400), ([1], 400)]
        for body, code in cases:
            assert call(act, "POST", js, json.dumps(body).encode())[0] == code, body
        assert st.round == 3 and st.store.seats()[0]["white"] == "Ada"
        assert call(act, "POST", dict(js, Origin="http://evil.example"), b"{}")[0] == 403
        assert call(act, "POST", {"Content-Type": "application/json"}, b"{}")[0] == 403
        assert call(act, "POST", dict(js, **{"Content-Type": "text/plain"}), b"{}")[0] == 415
        s = spectators.url
        assert call(s)[0] == 200 and call(s + "api/views")[0] == 200
        for method in ("POST", "PUT", "DELETE"):
            assert call(s + "api/views", method, body=b"{}")[0] == 405
        assert call(s + "api/state")[0] == 404
        assert call(s + "api/views?boards=" + ",".join("b%d" % i for i in range(100)))[0] == 400
        assert call(s + "static/../keys.json")[0] == 404
    finally:
        director.stop()
        spectators.stop()
