"""The journal: sealed lines in segments, atomic saves, corruption and tampering found on load."""

from firmware.board.journal import Journal, GENESIS, SEGMENT, seal, verify


class MemStorage:
    def __init__(self):
        self.files = {}
        self.writes = []

    def read(self, name):
        return self.files.get(name)

    def write_atomic(self, name, data):
        self.files[name] = bytes(data)
        self.writes.append(name)

    def remove(self, name):
        self.files.pop(name, None)


def filled(n=200):
    st = MemStorage()
    j = Journal(st)
    for i in range(n):
        j.append({"k": "turn", "n": i, "pad": "x" * 20})
        if i % 7 == 0:
            j.save()
    j.save()
    return st, j


def test_round_trip_over_several_segments_writing_only_what_changed():
    st, j = filled()
    assert j.nseg > 3 and all(len(v) <= SEGMENT for v in st.files.values())
    before = len(st.writes)
    j.append({"k": "turn", "n": 999})
    j.save()
    assert st.writes[before:] == ["game.%d" % j.nseg]     # only the last segment
    k = Journal(st)
    events = []
    dropped = k.load(lambda e: events.append(e) or True)
    assert dropped == 0 and len(events) == 201 and events[-1]["n"] == 999 and k.head == j.head
    assert k.rows() == j.rows()


def test_a_corrupted_line_ends_what_is_loaded_and_is_counted():
    st, j = filled()
    data = bytearray(st.files["game.1"])
    data[30] ^= 1
    st.files["game.1"] = bytes(data)
    k = Journal(st)
    events = []
    dropped = k.load(lambda e: events.append(e) or True)
    assert 0 < len(events) < 200 and dropped == 200 - len(events)
    assert k.head == k.rows()[-1][1] and verify(k.rows()) == -1


def test_a_new_game_removes_the_old_segments():
    st, j = filled()
    j.clear()
    j.append({"k": "game"})
    j.save()
    assert sorted(st.files) == ["game.0"]
    events = []
    dropped = Journal(st).load(lambda e: events.append(e) or True)
    assert [e["k"] for e in events] == ["game"] and dropped == 0


def test_a_refused_event_cuts_the_journal_there_and_the_rest_is_rewritten():
    st, j = filled(100)
    k = Journal(st)
    n = k.load(lambda e: e["n"] < 60)
    assert n == 40 and k.count == 60
    k.save()
    events = []
    assert Journal(st).load(lambda e: events.append(e) or True) == 0 and len(events) == 60


def test_the_seal_chain_shows_any_change_removal_or_reordering():
    st, j = filled(10)
    rows = j.rows()
    assert verify(rows) == -1 and rows[0][1] == seal(GENESIS, rows[0][0])
    assert verify(rows[:3] + rows[4:]) == 3
    assert verify([rows[1], rows[0]] + rows[2:]) == 0
    changed = list(rows)
    changed[5] = (changed[5][0].replace('"n": 5', '"n": 6'), changed[5][1])
    assert verify(changed) == 5
