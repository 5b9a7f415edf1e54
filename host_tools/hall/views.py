"""What the hall's pages show, made from the station's state: every board at a glance, one board live, the spectators' delayed view, results and standings.

Pure functions of a ``station.BoardState`` (and the seats for results): no I/O. The director's
glance reads the board's latest status (live: the board's own word, shown as such) and the
connection; the spectators' view is made only from verified journal lines, held back by
``delay`` moves.
"""

import functools

from firmware.board.zonemap import ZONES, ZoneMap
from firmware.rules import Position, get_rules
from firmware.rules.notation import format_steps

STALE_S = 60            # a board not heard of for this long is shown as silent


@functools.lru_cache(maxsize=64)
def _zmap(variant):
    return ZoneMap(get_rules(variant))


@functools.lru_cache(maxsize=256)
def _rules(variant, options):
    return get_rules(variant, **dict(options))


def stacks(variant, position):
    """28 zones, each [checkers, side] (side -1 when empty), of a Position text or object."""
    try:
        pos = Position.parse(position) if isinstance(position, str) else position
        zmap = _zmap(variant)
    except (ValueError, KeyError, TypeError):
        return None
    out = [[0, -1] for _ in range(ZONES)]
    for side in (0, 1):
        for pip in range(26):
            c = pos.board[side * 26 + pip]
            if c:
                z = zmap.zone(side, pip)
                out[z] = [out[z][0] + c, side]
    return out


def current(st):
    """The board's latest game the station holds lines of (its highest serial), or None."""
    for serial in sorted(st.games, reverse=True):
        if st.games[serial].header is not None:
            return st.games[serial]
    return None


def glance(st, now):
    """One board at a glance (the director's grid)."""
    s = st.status or {}
    game = current(st)
    conn = st.conn or {}
    variant = s.get("variant") or (game.header or {}).get("variant") if game else s.get("variant")
    position = s.get("position")
    counts = {"complete": 0, "live": 0, "broken": 0, "abandoned": 0}
    for g in st.games.values():
        counts[g.state] = counts.get(g.state, 0) + 1
    clock = dict(s.get("clock") or {})
    if clock:
        clock["at"] = st.status_at
    silent = bool(st.seen) and now - st.seen > STALE_S
    needs = [a[1] for a in st.alerts[-3:]]
    if s.get("phase") == "flagged":
        needs.append("a flagged play awaits the director")
    if s.get("board") == "mismatch":
        needs.append("the checkers do not match the game")
    return {"id": st.id, "variant": variant, "phase": s.get("phase"), "turn": s.get("turn"),
            "dice": s.get("dice"), "position": position,
            "stacks": stacks(variant, position) if variant and position else None,
            "score": s.get("score"), "match_to": s.get("match_to"), "game": s.get("game"),
            "cube": s.get("cube"), "clock": clock, "sensors": s.get("board"),
            "locked": s.get("locked"), "conn": {"on": bool(conn.get("on")), "via": conn.get("via"),
                                                 "why": conn.get("why"), "at": conn.get("at")},
            "silent": silent, "seen": st.seen, "needs": needs, "rejected": st.rejected,
            "games": counts, "serial": game.serial if game else None,
            "lines": game.next if game else 0,
            "authenticated": game.authenticated if game else None, "rev": st.rev}


def move(ev):
    """A turn event as the pages show it: {"n", "side", "dice", "play", "clock"}."""
    steps = [tuple(st) for st in ev.get("s") or []]
    return {"n": ev.get("n"), "side": ev.get("side"), "dice": ev.get("dice"),
            "play": format_steps(steps) or "(no move)", "clock": ev.get("clock")}


def live(st, now):
    """One board's full live view: the glance, the current game's moves and result, its games,
    the last events and alerts."""
    g = glance(st, now)
    game = current(st)
    g["moves"] = list(game.moves) if game else []
    g["events"] = [[at, ev] for at, ev in st.events[-20:]]
    g["alerts"] = list(st.alerts)
    g["games_list"] = [{"serial": x.serial, "state": x.state, "lines": x.next,
                        "round": x.round, "result": x.result, "notes": x.notes}
                       for x in sorted(st.games.values(), key=lambda x: x.serial)]
    return g


def spectator(st, delay=0):
    """The spectators' view of a board: its current game from verified lines only, ``delay``
    moves behind. None before the station holds a game header."""
    game = current(st)
    if game is None:
        return None
    h = game.header
    # held back while the game goes on; all of it once the game is over
    shown = game.turns[:max(0, len(game.turns) - delay)] if delay and not game.done() \
        else game.turns
    variant = h.get("variant")
    try:
        rules = _rules(variant, tuple(sorted((h.get("options") or {}).items())))
    except (ValueError, KeyError, TypeError):
        return None
    if shown:
        pos = Position.decode(shown[-1]["pos"])
        pos.turn = 1 - shown[-1]["side"]
    else:
        pos = rules.start_position()
    over = game.state == "complete" and len(shown) == len(game.turns)
    score = list(h.get("score") or [0, 0])
    result = None
    if over and game.result:
        score = game.result.get("score") or score
        result = {"winner": game.result.get("winner"), "points": game.result.get("points"),
                  "how": game.result.get("how")}
    last = shown[-1] if shown else None
    return {"board": st.id, "serial": game.serial, "variant": variant,
            "title": rules.title, "match_to": h.get("match_to"), "game": h.get("game"),
            "score": score, "turns": len(shown), "behind": len(game.turns) - len(shown),
            "n": last.get("n") if last else 0, "position": str(pos),
            "stacks": stacks(variant, pos),
            "last": game.moves[len(shown) - 1] if shown else None,
            "moves": game.moves[max(0, len(shown) - 12):len(shown)],
            "clock": last.get("clock") if last else None,
            "result": result}


def results(boards, seats):
    """Every finished game with its players (the seats of its round and board), and the
    standings: per player games, wins and points, best first."""
    names = {}
    for s in seats:
        names[(s["round"], s["board"])] = (s["white"] or "", s["black"] or "")
    rows = []
    table = {}
    for st in boards.values():
        for game in st.games.values():
            if game.state != "complete" or not game.result:
                continue
            r = game.result
            white, black = names.get((game.round, st.id), ("", ""))
            who = (white or "White of %s" % st.id, black or "Black of %s" % st.id)
            winner = r.get("winner")
            rows.append({"round": game.round, "board": st.id, "serial": game.serial,
                         "variant": r.get("variant"), "white": who[0], "black": who[1],
                         "winner": who[winner] if winner in (0, 1) else "",
                         "points": r.get("points"), "how": r.get("how"), "score": r.get("score"),
                         "match": r.get("match"), "game": r.get("game"), "turns": r.get("turns")})
            for side in (0, 1):
                p = table.setdefault(who[side], {"player": who[side], "games": 0, "wins": 0,
                                                 "points": 0, "against": 0})
                p["games"] += 1
                if side == winner:
                    p["wins"] += 1
                    p["points"] += r.get("points") or 0
                else:
                    p["against"] += r.get("points") or 0
    rows.sort(key=lambda x: (x["round"], x["board"], x["serial"]))
    standings = sorted(table.values(), key=lambda p: (-p["wins"], -(p["points"] - p["against"]),
                                                      p["player"]))
    return {"games": rows, "standings": standings}
