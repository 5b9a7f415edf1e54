"""The page's actions as protocol command lines: the simulated hands and buttons, and the commands a page may send."""

from firmware.board.zonemap import zone_name

# what the page may ask a board to do, besides the simulated hands (`sim ...`)
PAGE_COMMANDS = ("status", "new", "match", "mode", "dice", "roll", "choose", "cube", "condone",
                 "clock", "resign", "export", "help")
BUTTONS = ("p0", "p1", "menu")
PRESS_MS = 200          # a finger's press (the page measures real ones)


class Refused(ValueError):
    """An action the page may not take; the message says why."""


def zone_word(zone):
    """Protocol name of a zone number 0..27 (triangles k 1..24, bar0, bar1, off0, off1)."""
    z = int(zone)
    if not 0 <= z < 28:
        raise Refused("no zone %r" % zone)
    return zone_name(z)


def command_line(action, simulated):
    """The command line for one page action (a dict with ``do``); raises Refused.
    ``simulated``: the board is the virtual one (hands and buttons are the page's)."""
    kind = action.get("do")
    if kind == "command":
        line = " ".join(str(action.get("line", "")).split())
        word = line.split()[0].lower() if line else ""
        if word not in PAGE_COMMANDS:
            raise Refused("the page may not send %r" % word)
        return line
    if not simulated:
        raise Refused("a real board is moved by hand: this page only watches it")
    if kind == "lift":
        return "sim lift %s" % zone_word(action["zone"])
    if kind == "place":
        return "sim place %s %d" % (zone_word(action["zone"]), int(action["side"]))
    if kind == "press":
        button = str(action.get("button"))
        if button not in BUTTONS:
            raise Refused("no button %r" % button)
        return "sim press %s %d" % (button, int(action.get("ms", PRESS_MS)))
    if kind == "setup":
        return "sim setup"
    if kind == "power_cut":
        return "sim power_cut"
    raise Refused("unknown action %r" % kind)
