"""The page's actions as protocol command lines: the simulated hands and buttons, the commands a page may send, and the director's signed ones on a real board."""

import re

from firmware.board.identity import MAC_HEX
from firmware.board.protocol import MAX_LINE
from firmware.board.zonemap import zone_name
from firmware.drivers.buttons import NAMES

# what the page may ask a board to do, besides the simulated hands (`sim ...`)
PAGE_COMMANDS = ("status", "new", "match", "mode", "dice", "roll", "choose", "cube", "condone",
                 "clock", "resign", "export", "help")
PRESS_MS = 200          # a finger's press (the page measures real ones)
MAX_PRESS_MS = 10000
_INT = re.compile(r"-?[0-9]{1,6}")
# what a locked board still takes from the bare host link: sent plainly, never signed
READS = ("status", "export", "help")
HANDS = ("lift", "place", "press", "setup", "power_cut")
LIVE_READ_ONLY = ("this is the live view of a real board: it is read-only. Only the tournament "
                  "director may change a game on it: start the page with "
                  "`python -m host_tools play --keys DIRECTOR_KEYFILE`")
REAL_HANDS = ("on a real board the players move the checkers and press its buttons: the page's "
              "hands and buttons are the virtual board's only")
SIGNED_OVERHEAD = len("dir ") + MAC_HEX + 1     # what ``dir <mac> `` adds to a signed command


class Refused(ValueError):
    """An action the page may not take; the message says why."""


def protocol_line(text):
    """One command line fit to send on the host link: printable ASCII (so no second command after
    a newline and no REPL control byte such as Ctrl-C), at most the protocol's line length, words
    separated by single spaces. Raises Refused."""
    if not isinstance(text, str):
        raise Refused("a command is a line of text")
    if len(text) > MAX_LINE:
        raise Refused("a command is at most %d characters" % MAX_LINE)
    for c in text:
        if not " " <= c <= "~":
            raise Refused("a command is one line of printable characters; %s is not one"
                          % ("U+%04X" % ord(c)))
    return " ".join(text.split())


def zone_word(zone):
    """Protocol name of a zone number 0..27 (triangles k 1..24, bar0, bar1, off0, off1)."""
    z = _small_int(zone, 0, 27, "zone")
    return zone_name(z)


def _small_int(value, lo, hi, what):
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise Refused("%s must be a whole number" % what)
    if isinstance(value, str):
        if not _INT.fullmatch(value):
            raise Refused("%s must be a whole number" % what)
        value = int(value)
    if not lo <= value <= hi:
        raise Refused("%s must be %d..%d" % (what, lo, hi))
    return value


def director_line(action, director=None, challenge=None):
    """The one door through which the page acts on a real board: the command line for ``action``
    as the tournament director sends it, or Refused. Without the director (``play`` started with
    no ``--keys``) every act is refused. With it, a read (``READS``) goes as it is; a command that
    changes the game is signed: ``challenge()`` asks the board for a fresh one (a dict with
    ``board`` and ``nonce``, or Refused), and the line is ``dir <mac> <command>`` with
    ``director.sign`` (host_tools/records/director.py), so that the board takes it while locked and
    records it as the director's. The simulated hands and buttons never reach a real board."""
    if director is None:
        raise Refused(LIVE_READ_ONLY)
    if isinstance(action, dict) and action.get("do") in HANDS:
        raise Refused(REAL_HANDS)
    line = page_command(action)
    if line.split()[0].lower() in READS:
        return line
    if len(line) > MAX_LINE - SIGNED_OVERHEAD:
        raise Refused("a command the director signs is at most %d characters"
                      % (MAX_LINE - SIGNED_OVERHEAD))
    got = challenge()
    return "dir %s %s" % (director.sign(got["board"], got["nonce"], line), line)


def page_command(action):
    """The protocol line of a ``{"do": "command", "line": ...}`` action whose first word is on the
    page's list (``PAGE_COMMANDS``); raises Refused."""
    if not isinstance(action, dict):
        raise Refused("an action is a JSON object with a 'do'")
    if action.get("do") != "command":
        raise Refused("unknown action %s" % ascii(action.get("do"))[:30])
    line = protocol_line(action.get("line", ""))
    word = line.split()[0].lower() if line else ""
    if word not in PAGE_COMMANDS:
        raise Refused("the page may not send %r" % word[:20])
    return line


def command_line(action, simulated, director=None, challenge=None):
    """The command line for one page action (a dict with ``do``); raises Refused.
    ``simulated``: the board is the virtual one (hands and buttons are the page's); on a real
    board every action goes through ``director_line`` (``director``, ``challenge``: see there)."""
    if not simulated:
        return director_line(action, director, challenge)
    if not isinstance(action, dict):
        raise Refused("an action is a JSON object with a 'do'")
    kind = action.get("do")
    if kind == "command":
        return page_command(action)
    if kind == "lift":
        return "sim lift %s" % zone_word(action.get("zone"))
    if kind == "place":
        return "sim place %s %d" % (zone_word(action.get("zone")),
                                    _small_int(action.get("side"), 0, 1, "side"))
    if kind == "press":
        button = action.get("button")
        if button not in NAMES:
            raise Refused("no button %s" % ascii(button)[:20])
        return "sim press %s %d" % (button, _small_int(action.get("ms", PRESS_MS), 1,
                                                        MAX_PRESS_MS, "ms"))
    if kind == "setup":
        return "sim setup"
    if kind == "power_cut":
        return "sim power_cut"
    raise Refused("unknown action %s" % ascii(kind)[:30])
