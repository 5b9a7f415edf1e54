"""One message never makes the hall deaf (issue 23): hostile payloads on a board's own topics over a
real Mosquitto (deep nesting, huge, wrong types, bad UTF-8, forged serials), seeded and replayable
from the printed seed, are refused and reported; the station's threads live on and it completes
the board's genuine game afterwards. And ``host_tools.bounded``, their one reader, table-driven."""

import json
import os
import random

import pytest

from firmware.board import hall_link
from host_tools import bounded
from host_tools.hall.room import Room
from tests.test_hall import _client, _played, _wait

SEED = int(os.environ.get("HALL_FUZZ_SEED", "23"))


@pytest.mark.parametrize("data, why", [
    ("[" * 30000 + "]" * 30000, "nested deeper"),
    ("[" * 100000 + "]" * 100000, "too large"),
    ('{"a": ' * 40 + "1" + "}" * 40, "nested deeper"),
    (b'{"l": "\xff\xfe"}', "not UTF-8"),
    ("x" * (bounded.MAX_BYTES + 1), "too large"),
    ('{"n": NaN}', "NaN"),
    ('{"n": Infinity}', "Infinity"),
    ('{"n": 1e999}', "out of range"),
    ('{"n": %s}' % ("9" * 5000), "digits"),
    ('{"n": 1', "not JSON"),
    ("", "not JSON"),
])
def test_bounded_refuses_with_a_reason(data, why):
    with pytest.raises(bounded.Refused, match=why):
        bounded.loads(data)


def test_a_record_file_nested_100000_levels_is_refused_by_the_scan_not_a_recursion(tmp_path):
    from host_tools.records import export as ex
    with pytest.raises(bounded.Refused, match="nested deeper"):
        bounded.loads("[" * 100000 + "]" * 100000, bounded.MAX_RECORD_BYTES)
    path = tmp_path / "deep.json"
    path.write_text("[" * 100000 + "]" * 100000)
    with pytest.raises(ex.ExportError, match="nested deeper"):
        ex.load_records(str(path))


@pytest.mark.parametrize("data, want", [
    ('{"s": 2, "l": "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["}', 2),
    ('{"a": [[1, 2, "x"]], "b": {"c": [true, null]}}', None),
    ('{"t": "9%s"}' % ("9" * 50), None),                   # digits in a string: no number
])
def test_bounded_reads_what_the_protocol_sends(data, want):
    got = bounded.obj(data)
    assert got.get("s") == want


@pytest.mark.parametrize("msg, ok", [
    ({"serial": 3, "lines": 10}, True),
    ({"serial": "3"}, False),
    ({"serial": True}, False),
    ({"lines": 10 ** 9}, False),
    ({"serial": None}, True),
])
def test_fields_checks_types_and_ranges(msg, ok):
    schema = {"serial": (bounded.INT, 1, 100), "lines": (bounded.INT, 0, 1000)}
    if ok:
        assert bounded.fields(msg, schema) is msg
    else:
        with pytest.raises(bounded.Refused):
            bounded.fields(msg, schema)


def hostile(rng, serial):
    """One hostile payload (bytes) for one of a board's own topics: (kind, payload)."""
    kind = rng.choice((hall_link.LINE, hall_link.TAG, hall_link.STATUS, hall_link.EV,
                       hall_link.CONN))
    junk = rng.choice((None, "x", 1, -1, 10 ** 9, 10 ** 40, 1.5, True, [], {}, [1, "a"], {"a": 1}))
    shape = rng.randrange(9)
    if shape == 0:
        depth = rng.choice((33, 1000, 100000))
        return kind, (rng.choice("[{") == "[" and "[" * depth + "]" * depth
                      or '{"a":' * depth + "1" + "}" * depth).encode()
    if shape == 1:
        return kind, b'{"t": "' + bytes(rng.randrange(128, 256) for _ in range(20)) + b'"}'
    if shape == 2:
        return kind, b'{"l": "' + b"y" * rng.choice((70000, 300000)) + b'"}'
    if shape == 3:
        return kind, json.dumps(junk).encode()
    if shape == 4:                                # every field of the kind, each of a wrong type
        names = bounded_names(kind)
        return kind, json.dumps({n: junk for n in names}).encode()
    if shape == 5:                                # serials far and strange
        s = rng.choice((0, -5, 10 ** 9, 2 ** 63, serial + 1000, "2", 2.0))
        return kind, json.dumps({"t": "rl", "s": s, "l": "a" * 40, "serial": s, "lines": s,
                                 "tag": "t"}).encode()
    if shape == 6:
        return kind, b'{"n": NaN, "serial": Infinity}'
    if shape == 7:
        return kind, bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200)))
    return kind, json.dumps({"t": "status", "serial": serial, "clock": [1, 2], "score": "x",
                             "turn": "white", "locked": "yes", "games": "all"}).encode()


def bounded_names(kind):
    from host_tools.hall.station import SCHEMA
    return sorted(SCHEMA[kind])


def test_hostile_messages_over_mosquitto_leave_the_station_serving(tmp_path, mosquitto):
    from host_tools.hall import mqtt
    from host_tools.hall.broker import Broker, free_port
    from host_tools.hall.station import Station
    from host_tools.hall.store import Store
    print("hall fuzz seed %d (HALL_FUZZ_SEED=%d replays it)" % (SEED, SEED))
    rng = random.Random(SEED)
    name = b"fz01"
    board = name.hex()
    room = Room.create(str(tmp_path / "room"), port=free_port(), boards=[board])
    broker = Broker(room).start()
    vb = _played(tmp_path, room, name)
    serial = vb.session.journal.serial
    station = Station(room, Store(str(tmp_path / "station.db"))).start()
    client, _, ready = _client(room, board)
    try:
        assert ready.wait(10) and _wait(lambda: station.connected)
        sent = 0
        for _ in range(150):
            kind, payload = hostile(rng, serial)
            client.publish(hall_link.topic(room.name, board, kind), payload,
                           qos=1).wait_for_publish(10)
            sent += 1
        # the genuine game, as the board's bridge publishes it
        for o in vb.lines:
            r = hall_link.route(o.get("t"), o.get("ev"))
            if r is not None:
                client.publish(hall_link.topic(room.name, board, r[0]), json.dumps(o),
                               qos=1).wait_for_publish(10)
        vb.cmd("export")
        for o in vb.lines:
            if o.get("t") == "record_end":
                last = o
        client.publish(hall_link.topic(room.name, board, hall_link.TAG), json.dumps(last),
                       qos=1).wait_for_publish(10)

        def complete():
            with station.lock:
                g = station.boards[board].games.get(serial)
                return g is not None and g.state == "complete"
        assert _wait(complete, 60), (station.counts, [r["why"] for r in station.store.reports()][-5:])
        assert station._client._thread.is_alive() and station._thread.is_alive()
        with station.lock:
            games = station.boards[board].games
            assert len(games) <= serial + 4 * 65      # bounded: no thousands of empty games
            snap = station.snapshot()
            views = station.spectators()
        json.dumps(snap) and json.dumps(views)                # the pages' data still serialises
        reports = station.store.reports()
        assert station.counts["rejected"] >= 50, station.counts
        assert not [r for r in reports if r["kind"] == "error"], \
            [r["why"] for r in reports if r["kind"] == "error"][:5]
    finally:
        mqtt.close(client)
        station.stop()
        broker.stop()
        vb.close()


def test_forged_tags_and_open_key_lines_do_not_stop_a_genuine_game(tmp_path):
    """A tag whose MAC is not the board's (claiming 10^9 lines, or fewer than there are), a
    line of the game sealed with the public open key sent first: refused and reported; the
    board's own lines and tag then complete the game."""
    from firmware.board.identity import OPEN_KEY, Mac
    from host_tools.hall.station import Station
    from host_tools.hall.store import Store
    name = b"fz02"
    board = name.hex()
    room = Room.create(str(tmp_path / "room"), boards=[board])
    vb = _played(tmp_path, room, name)
    serial = vb.session.journal.serial
    vb.cmd("export")
    tag = [o for o in vb.lines if o.get("t") == "record_end"][-1]
    rls = [o for o in vb.lines if o.get("t") == "rl" and o.get("s") == serial]
    st = Station(room, Store(str(tmp_path / "station.db")), client=False)

    def send(kind, obj):
        st._message(None, hall_link.topic(room.name, board, kind), json.dumps(obj).encode())

    first = rls[0]["l"]
    text = first[:-33]
    send("line", {"t": "rl", "s": serial,
                  "l": text + "|" + Mac(OPEN_KEY).hex("%s|%d|" % (board, serial), text)})
    for lines in (10 ** 9, 5, tag["lines"] + 7):
        send("tag", dict(tag, lines=lines))                    # the MAC is over other lines
    send("tag", dict(tag, tag="0" * 32))
    assert st.counts["rejected"] == 5, st.counts
    whys = [r["why"] for r in st.store.reports()]
    assert any("open key" in w for w in whys) and sum("MAC is not the board's" in w
                                                      for w in whys) == 3, whys
    for o in rls:
        send("line", o)
    send("tag", tag)
    game = st.boards[board].games[serial]
    assert game.state == "complete", game.notes
    vb.close()
