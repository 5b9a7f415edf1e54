"""The page's actions as protocol command lines: the simulated hands and buttons, and the commands a page may send."""

import re

from firmware.board.protocol import MAX_LINE
from firmware.board.zonemap import zone_name

# what the page may ask a board to do, besides the simulated hands (`sim ...`)
PAGE_COMMANDS = ("status", "new", "match", "mode", "dice", "roll", "choose", "cube", "condone",
                 "clock", "resign", "export", "help")
BUTTONS = ("p0", "p1", "menu")
PRESS_MS = 200          # a finger's press (the page measures real ones)
MAX_PRESS_MS = 10000
_INT = re.compile(r"-?[0-9]{1,6}")
LIVE_READ_ONLY = ("this is the live view of a real board: it is read-only. Only the tournament "
                  "director may change a game on it, and the director's unlock is not built yet")


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


def director_line(action):
    """The one door through which a page could change a game on a real board: a command the
    tournament director authorised (issue 13: a challenge/response HMAC over the host link, with
    the key of ``play --director-key FILE``). That authentication is not built yet, so every act
    is refused; when it is, this is where the authorised command line is made."""
    raise Refused(LIVE_READ_ONLY)


def command_line(action, simulated):
    """The command line for one page action (a dict with ``do``); raises Refused.
    ``simulated``: the board is the virtual one (hands and buttons are the page's); on a real
    board every action goes through ``director_line``."""
    if not simulated:
        return director_line(action)
    if not isinstance(action, dict):
        raise Refused("an action is a JSON object with a 'do'")
    kind = action.get("do")
    if kind == "command":
        line = protocol_line(action.get("line", ""))
        word = line.split()[0].lower() if line else ""
        if word not in PAGE_COMMANDS:
            raise Refused("the page may not send %r" % word[:20])
        return line
    if kind == "lift":
        return "sim lift %s" % zone_word(action.get("zone"))
    if kind == "place":
        return "sim place %s %d" % (zone_word(action.get("zone")),
                                    _small_int(action.get("side"), 0, 1, "side"))
    if kind == "press":
        button = action.get("button")
        if button not in BUTTONS:
            raise Refused("no button %s" % ascii(button)[:20])
        return "sim press %s %d" % (button, _small_int(action.get("ms", PRESS_MS), 1,
                                                        MAX_PRESS_MS, "ms"))
    if kind == "setup":
        return "sim setup"
    if kind == "power_cut":
        return "sim power_cut"
    raise Refused("unknown action %s" % ascii(kind)[:30])
