"""The journal: lines sealed one by one and appended, read back in chunks by the one walker that
keeps every line it can prove and names what it cannot; the flash budget and a full flash."""

import json

import pytest

from firmware.board.restore import Visitor, walk
from firmware.board.identity import Identity, Mac, OPEN_KEY, derive_key, key_id
from firmware.board.journal import Journal, CHUNK
from firmware.sim.memstore import MemStorage


class Collect(Visitor):
    def __init__(self):
        self.events = []
        self.gaps = []

    def event(self, ev):
        self.events.append(ev)
        return True

    def lost(self, first, last, why):
        self.gaps.append((first, last))
        return True


def journal(storage=None, key=None):
    st = storage or MemStorage()
    ident = Identity(st, "b0a4d")
    if key is not None:
        ident.provision(key)
    return st, Journal(st, ident)


def filled(n=120, serial=1):
    st, j = journal()
    j.start(serial)
    for i in range(n):
        j.append({"k": "turn", "i": i, "pad": "x" * 20})
        if i % 7 == 0:
            j.save()
    j.save()
    return st, j


def read_back(j, serial=1, files=None):
    """Walk a game the way the board does: the header copy (none here), then its file, in
    chunks (``files``: the flash's files to read instead of the journal's own)."""
    if files is not None:
        j.storage.files = files
    out = Collect()
    w = walk(j.chunks(serial), lambda t: j.seal(t, serial), out, json.loads)
    return w, out


def test_hmac_is_rfc_2104_sha256():
    import hashlib
    import hmac
    for key in (b"", b"k" * 20, b"x" * 64, b"long" * 40):
        for msg in (b"", b"abc", b"m" * 300):
            assert Mac(key).digest(msg) == hmac.new(key, msg, hashlib.sha256).digest()
    assert Mac(b"k").hex("a", b"b") == hmac.new(b"k", b"ab", hashlib.sha256).hexdigest()[:32]


def test_lines_are_appended_whole_and_read_back_in_chunks():
    st, j = filled()
    data = st.files[j.file(1)]
    assert data.endswith(b"\n") and len(data) > 4 * CHUNK      # read across chunk borders
    w, out = read_back(j)
    assert [e["i"] for e in out.events] == list(range(120)) and w.lost == [] and w.damaged == 0
    assert w.count == 120 and w.head == j.head


def test_a_save_only_appends_what_is_new():
    st, j = filled(10)
    before = dict(st.files)
    j.append({"k": "set", "mode": "referee"})
    j.save()
    changed = sorted(n for n in st.files if st.files[n] != before.get(n))
    assert changed == [j.file(1), j.file(1, "n")]           # the lines, and their count
    assert st.files[j.file(1)].startswith(before[j.file(1)])
    assert j.noted(1) == (j.count, j.head)


def test_each_line_proves_its_board_game_and_place():
    st, j = filled(5)
    text, seal = st.files[j.file(1)].split(b"\n")[2].decode().rsplit("|", 1)
    assert j.seal(text, 1) == seal
    assert j.seal(text, 2) != seal                           # another game
    other = Journal(st, Identity(MemStorage(), "another"))
    other.start(1)
    assert other.seal(text) != seal                          # another board


def test_a_provisioned_key_seals_differently_from_the_open_one():
    key = derive_key(b"director secret", "b0a4d")
    st, j = journal(key=key)
    assert j.identity.kid == key_id(key) != key_id(OPEN_KEY)
    again = Identity(st, "b0a4d")                            # read back from flash
    assert again.key == key and not again.open


@pytest.mark.parametrize("damage", ["first", "second", "both", "crc"])
def test_the_key_survives_one_damaged_copy_and_says_when_both_are_lost(damage):
    key = bytes(range(32))
    st, _ = journal(key=key)
    if damage in ("first", "both"):
        st.files["identity"] = b"\x00" + st.files["identity"][1:]
    if damage in ("second", "both"):
        del st.files["identity.b"]
    if damage == "crc":
        st.files["identity"] = st.files["identity"][:-1] + b"\x00"
    ident = Identity(st, "b0a4d")
    if damage == "both":
        assert ident.lost and ident.open
    else:
        assert ident.key == key and not ident.lost
        assert Identity(st, "b0a4d").key == key and st.files["identity"] == st.files["identity.b"]


def flip_cases(data):
    """One case per kind of damage a stored line can take: (name, damaged bytes)."""
    lines = data.split(b"\n")
    L = len(lines[3]) + 1
    at = sum(len(x) + 1 for x in lines[:3])             # line 3 starts here
    out = []
    for name, pos, fn in (("text byte", at + 5, lambda b: b ^ 0x55),
                          ("text bit", at + 9, lambda b: b ^ 0x04),
                          ("seal digit", at + L - 5, lambda b: ord("0") if b != ord("0") else ord("1")),
                          ("separator", at + L - 34, lambda b: ord("#")),
                          ("newline", at + L - 1, lambda b: ord("x")),
                          ("new newline", at + 12, lambda b: 10)):
        d = bytearray(data)
        d[pos] = fn(d[pos])
        out.append((name, bytes(d)))
    return out


@pytest.mark.parametrize("case", range(6))
def test_damage_to_one_line_never_costs_another(case):
    st, j = filled(12)
    name = j.file(1)
    kind, damaged = flip_cases(st.files[name])[case]
    files = dict(st.files)
    files[name] = damaged
    w, out = read_back(j, files=files)
    got = [e["i"] for e in out.events]
    if kind in ("text bit", "seal digit", "separator", "newline"):
        assert got == list(range(12)) and w.lost == [], kind      # repaired: nothing lost
    else:
        assert got == [i for i in range(12) if i != 3] and w.lost == [[3, 3, w.lost[0][2]]], kind
    assert w.count == 12


def test_missing_lines_and_a_torn_end_are_named_exactly():
    st, j = filled(120)
    data = st.files[j.file(1)]
    lines = data.split(b"\n")
    files = dict(st.files)
    # lines 40..59 gone (a block of flash lost), and the last write cut short
    files[j.file(1)] = b"\n".join(lines[:40] + lines[60:])[:-11]
    w, out = read_back(j, files=files)
    got = [e["i"] for e in out.events]
    assert got == list(range(40)) + list(range(60, 119))
    assert w.lost == [[40, 59, w.lost[0][2]]] and w.torn and w.count == 119


def test_a_whole_last_line_cut_before_its_newline_is_kept_and_ends_torn():
    # the write stopped one byte short: the line holds (its seal checks) and is kept, but the
    # file must get its newline back before anything is appended, or the next line is glued on
    st, j = filled(12)
    files = dict(st.files)
    files[j.file(1)] = st.files[j.file(1)][:-1]
    w, out = read_back(j, files=files)
    assert [e["i"] for e in out.events] == list(range(12)) and w.lost == [] and w.damaged == 0
    assert w.torn and w.count == 12


def test_a_copied_or_moved_line_is_not_taken_twice():
    st, j = filled(6)
    name = j.file(1)
    lines = st.files[name].split(b"\n")
    files = dict(st.files)
    files[name] = b"\n".join(lines[:4] + [lines[1]] + lines[4:])
    w, out = read_back(j, files=files)
    assert [e["i"] for e in out.events] == list(range(6)) and w.damaged == 1


def test_games_are_kept_within_the_budget_exported_ones_first_never_the_current():
    st, j = journal()
    for serial in range(1, 8):
        j.start(serial)
        for i in range(60):
            j.append({"k": "turn", "i": i, "pad": "y" * 40})
        j.save()
        if serial in (2, 4):
            j.mark_exported(serial)
    size = len(st.files[j.file(1)])
    assert j.prune(size * 4) == [2, 4, 1]
    assert j.games() == [3, 5, 6, 7]
    j.prune(0)
    assert j.games() == [7]                                  # the game in progress stays
    assert sorted(st.names()) == ["g7", "g7.n"]              # no marker left behind


def test_a_full_flash_prunes_old_games_then_keeps_lines_in_ram_until_there_is_room():
    st, j = journal(MemStorage(capacity=12000))
    j.start(1)
    for i in range(40):
        j.append({"k": "turn", "i": i, "pad": "z" * 40})
    assert j.save()
    j.mark_exported(1)
    j.start(2)
    for i in range(80):
        j.append({"k": "turn", "i": i, "pad": "z" * 40})
        j.save()
    assert 1 not in j.games() and not j.full                # the old game made room
    for i in range(80, 200):
        j.append({"k": "turn", "i": i, "pad": "z" * 40})
        ok = j.save()
    assert not ok and j.full and j.pending                  # play goes on; lines wait in RAM
    waiting = j.count
    st.capacity = None                                      # room again
    assert j.save() and not j.full
    w, out = read_back(j, 2)
    assert [e["i"] for e in out.events] == list(range(200)) and w.count == waiting
