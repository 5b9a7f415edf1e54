"""The page server's checks one by one: Host, Origin/Referer, the token, body lengths, and the command lines a page may send."""

from email.message import Message

import pytest
from hypothesis import given, settings, strategies as st

from firmware.board.protocol import MAX_LINE
from host_tools.web.actions import (LIVE_READ_ONLY, PAGE_COMMANDS, REAL_HANDS, Refused,
                                    command_line, director_line, protocol_line)
from host_tools.web.guard import Denied, Guard, body_length

PORT = 8421
GUARD = Guard("127.0.0.1", PORT, token="s3cret-token_0123456789abcdef")


def denied_code(fn, *args):
    try:
        fn(*args)
    except Denied as exc:
        return exc.code
    return None


@pytest.mark.parametrize("host, ok", [
    ("127.0.0.1:8421", True), ("localhost:8421", True), ("LOCALHOST:8421", True),
    ("[::1]:8421", True), (" 127.0.0.1:8421 ", True),
    ("127.0.0.1", False), ("127.0.0.1:8422", False), ("localhost", False),
    ("attacker.example:8421", False), ("127.0.0.1.nip.io:8421", False), ("0.0.0.0:8421", False),
    ("127.0.0.1:8421@evil", False), ("", False), (None, False), ("::1:8421", False),
])
def test_host_names_only_this_server(host, ok):
    assert denied_code(GUARD.check_host, host) == (None if ok else 403)


def test_the_host_given_is_allowed_beside_the_loopback_names():
    guard = Guard("192.168.1.20", 9000)
    assert denied_code(guard.check_host, "192.168.1.20:9000") is None
    assert denied_code(guard.check_host, "localhost:9000") is None
    assert denied_code(guard.check_host, "192.168.1.21:9000") == 403
    six = Guard("::1", 9000)
    assert "[::1]:9000" in six.hosts and "http://[::1]:9000" in six.origins
    default_port = Guard("127.0.0.1", 80)
    assert denied_code(default_port.check_host, "localhost") is None     # a browser omits :80


@pytest.mark.parametrize("origin, referer, required, ok", [
    ("http://127.0.0.1:8421", None, True, True),
    ("http://localhost:8421", None, True, True),
    ("HTTP://LOCALHOST:8421", None, True, True),
    ("http://[::1]:8421", None, True, True),
    (None, "http://127.0.0.1:8421/?t=x", True, True),
    (None, None, False, True),                          # a GET from a script: the token decides
    (None, None, True, False),                          # a POST must say where it comes from
    ("null", None, True, False),                        # a sandboxed frame, a file:// page
    ("null", None, False, False),
    ("http://127.0.0.1:8422", None, True, False),        # another port is another origin
    ("https://127.0.0.1:8421", None, True, False),
    ("http://attacker.example:8421", None, False, False),
    ("http://127.0.0.1:8421", "http://attacker.example/", True, True),   # Origin decides
    ("http://attacker.example", "http://127.0.0.1:8421/", True, False),
    (None, "http://attacker.example:8421/x", True, False),
    (None, "https://127.0.0.1:8421/", True, False),
    (None, "not a url", True, False),
    (None, "http://[::1", True, False),                 # urlsplit's ValueError
])
def test_origin_or_referer_must_be_the_page(origin, referer, required, ok):
    assert denied_code(GUARD.check_origin, origin, referer, required) == (None if ok else 403)


@pytest.mark.parametrize("given_token, ok", [
    ("s3cret-token_0123456789abcdef", True),
    ("s3cret-token_0123456789abcde", False), ("s3cret-token_0123456789abcdefX", False),
    ("S3CRET-TOKEN_0123456789ABCDEF", False), ("", False), (None, False),
    ("s3cret-token_0123456789abcdé", False), ("\udcff", False),
])
def test_the_token_must_match(given_token, ok):
    assert denied_code(GUARD.check_token, given_token) == (None if ok else 403)


def test_every_run_draws_its_own_token():
    tokens = {Guard("127.0.0.1", PORT).token for _ in range(20)}
    assert len(tokens) == 20 and all(len(t) >= 32 for t in tokens)


def headers(*pairs):
    m = Message()
    for k, v in pairs:
        m[k] = v
    return m


@pytest.mark.parametrize("pairs, want", [
    ((("Content-Length", "17"),), 17),
    ((("Content-Length", "0"),), 0),
    ((("Content-Length", " 42 "),), 42),
    ((("Content-Length", "4096"),), 4096),
    ((), 411),
    ((("Content-Length", "-1"),), 400),
    ((("Content-Length", "-0"),), 400),
    ((("Content-Length", "+5"),), 400),
    ((("Content-Length", "abc"),), 400),
    ((("Content-Length", "1e3"),), 400),
    ((("Content-Length", "0x10"),), 400),
    ((("Content-Length", ""),), 400),
    ((("Content-Length", "４２"),), 400),                 # full-width digits: int() takes them
    ((("Content-Length", "1_0"),), 400),                 # and these
    ((("Content-Length", "99999999999999999999"),), 400),
    ((("Content-Length", "4097"),), 413),
    ((("Content-Length", "999999999"),), 413),
    ((("Content-Length", "5"), ("Content-Length", "5")), 400),
    ((("Content-Length", "5"), ("Transfer-Encoding", "chunked")), 411),
    ((("Transfer-Encoding", "chunked"),), 411),
])
def test_body_length_is_checked_before_reading(pairs, want):
    try:
        got = body_length(headers(*pairs))
    except Denied as exc:
        got = exc.code
    assert got == want


@pytest.mark.parametrize("text", [
    "status\nnew long", "status\rnew long", "status\r\n", "\x01", "\x02", "\x03", "\x04", "\x05",
    "status \x03", "roll 6 6\x04", "new\x00long", "help\x7f", "new\tlong", "status\x1b[A",
    "new lông", "status\u2028new long", "status\x85", "x" * (MAX_LINE + 1),
])
def test_a_command_line_is_one_printable_line(text):
    with pytest.raises(Refused):
        protocol_line(text)
    with pytest.raises(Refused):
        command_line({"do": "command", "line": text}, simulated=True)


@pytest.mark.parametrize("action, line", [
    ({"do": "command", "line": "  new   long  "}, "new long"),
    ({"do": "command", "line": "roll 6 6"}, "roll 6 6"),
    ({"do": "lift", "zone": 0}, "sim lift 1"),
    ({"do": "lift", "zone": "27"}, "sim lift off1"),
    ({"do": "place", "zone": 24, "side": 1}, "sim place bar0 1"),
    ({"do": "press", "button": "menu"}, "sim press menu 200"),
    ({"do": "press", "button": "p1", "ms": 1200}, "sim press p1 1200"),
    ({"do": "setup"}, "sim setup"),
    ({"do": "power_cut"}, "sim power_cut"),
])
def test_page_actions_on_the_virtual_board(action, line):
    assert command_line(action, simulated=True) == line


@pytest.mark.parametrize("action", [
    {"do": "command", "line": "sim power_cut"}, {"do": "command", "line": "mix 00"},
    {"do": "command", "line": "import os"}, {"do": "command", "line": ""},
    {"do": "command", "line": ["status"]}, {"do": "command"},
    {"do": "lift", "zone": 28}, {"do": "lift", "zone": -1}, {"do": "lift", "zone": True},
    {"do": "lift", "zone": 1.5}, {"do": "lift", "zone": "1\n"}, {"do": "lift"},
    {"do": "place", "zone": 3, "side": 2}, {"do": "place", "zone": 3},
    {"do": "press", "button": "p2"}, {"do": "press", "button": "p0", "ms": -5},
    {"do": "press", "button": "p0", "ms": 10 ** 9}, {"do": "press", "button": ["p0"]},
    {"do": "reboot"}, {}, [], "status", None, 7,
])
def test_page_actions_refused(action):
    with pytest.raises(Refused):
        command_line(action, simulated=True)


@pytest.mark.parametrize("action", [
    {"do": "command", "line": "status"}, {"do": "command", "line": "new short"},
    {"do": "command", "line": "roll 6 6"}, {"do": "command", "line": "export"},
    {"do": "lift", "zone": 3}, {"do": "press", "button": "p0"}, {"do": "setup"}, [],
])
def test_the_live_view_of_a_real_board_refuses_every_act(action):
    with pytest.raises(Refused) as exc:
        command_line(action, simulated=False)
    assert str(exc.value) == LIVE_READ_ONLY
    with pytest.raises(Refused):
        director_line(action)


class StubDirector:
    """Signs as ``mac(board, nonce, command)`` so that a test sees what was signed."""

    def sign(self, board, nonce, command):
        return "%s.%s.%s" % (board, nonce, command.replace(" ", "_"))


def challenges():
    """A challenge source that counts its calls: a fresh nonce each time."""
    asked = []

    def challenge():
        asked.append(1)
        return {"board": "b1", "nonce": "n%d" % len(asked)}
    return challenge, asked


@pytest.mark.parametrize("line, sent", [
    ("status", "status"), ("export", "export"), ("help", "help"),         # reads: as they are
    ("clock 600 12", "dir b1.n1.clock_600_12 clock 600 12"),
    ("roll  6   1", "dir b1.n1.roll_6_1 roll 6 1"), ("new long", "dir b1.n1.new_long new long"),
    ("resign accept", "dir b1.n1.resign_accept resign accept"),
])
def test_the_directors_page_signs_what_changes_the_game(line, sent):
    challenge, asked = challenges()
    assert director_line({"do": "command", "line": line}, StubDirector(), challenge) == sent
    assert len(asked) == (1 if sent.startswith("dir ") else 0)     # no challenge for a read


@pytest.mark.parametrize("action, why", [
    ({"do": "lift", "zone": 3}, REAL_HANDS), ({"do": "press", "button": "p0"}, REAL_HANDS),
    ({"do": "setup"}, REAL_HANDS), ({"do": "power_cut"}, REAL_HANDS),
    ({"do": "command", "line": "mix 00ff"}, "may not send"),
    ({"do": "command", "line": "unlock"}, "may not send"),
    ({"do": "command", "line": "dir 00 clock 1"}, "may not send"),
    ({"do": "command", "line": "sim setup"}, "may not send"),
    ({"do": "command", "line": "clock 600 12\nunlock"}, "printable"),
    ({"do": "command", "line": "new long " + "x" * (MAX_LINE - 30)}, "the director signs is at most"),
    ({"do": "reboot"}, "unknown action"), ([], "JSON object"), ("status", "JSON object"),
])
def test_the_directors_page_refuses_before_asking_a_challenge(action, why):
    challenge, asked = challenges()
    with pytest.raises(Refused, match=why):
        director_line(action, StubDirector(), challenge)
    assert asked == []


@settings(max_examples=400, deadline=None, derandomize=True)
@given(st.text(max_size=MAX_LINE + 20))
def test_no_line_that_passes_carries_a_control_byte_or_a_second_command(text):
    try:
        line = protocol_line(text)
    except Refused:
        return
    assert all(" " <= c <= "~" for c in line) and len(line) <= MAX_LINE
    assert "  " not in line and line == line.strip()


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
                    | st.text(max_size=30),
                    lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(st.text(max_size=8), inner, max_size=3), max_leaves=8)


@settings(max_examples=400, deadline=None, derandomize=True)
@given(st.fixed_dictionaries({"do": st.sampled_from(["command", "lift", "place", "press", "setup",
                                                     "power_cut", "x"]) | JSON},
                             optional={"line": JSON | st.text(max_size=40), "zone": JSON,
                                       "side": JSON, "button": JSON, "ms": JSON}) | JSON)
def test_any_json_action_is_a_whitelisted_line_or_refused(action):
    try:
        line = command_line(action, simulated=True)
    except Refused:
        return
    assert protocol_line(line) == line
    word = line.split()[0]
    assert word in PAGE_COMMANDS or line.split()[:2] in (
        ["sim", "lift"], ["sim", "place"], ["sim", "press"], ["sim", "setup"], ["sim", "power_cut"])
