"""The game as the page tells it beside the board: status line, notice, result, cube, pips, score, the record in words, the match's records."""

from firmware.board import record as rec
from host_tools.records.export import ExportError, replay_record
from host_tools.web import words


class GameView:
    """Follows the board's lines (``take``) and keeps what the page shows in words (``view``).
    Also keeps the records of the match's games, for the export and the dice self-test."""

    def __init__(self):
        self.status = None
        self.record = None
        self.records = {}             # games played before it in the match -> record
        self.notice = None            # the last refusal, flag or warning, while it applies
        self.offer = None             # (side, level) of a resignation on offer
        self.stuck = False            # the side to move cannot play its dice (no_move)
        self.result = None            # words of the last game's result
        self.live_cube = None         # (value, owner) from the last cube event of this game
        self._replayed = None         # (record head, cube, owner) from replaying the record
        self.view = {}

    # -- following the board --------------------------------------------------------------------
    def rules(self):
        """The rules of the game shown: the record's header (with its options), else the status."""
        events = (self.record or {}).get("events") or []
        if events and events[0].get("k") == rec.GAME:
            return words.rules_for(events[0].get("variant"), events[0].get("options"))
        if self.status:
            return words.rules_for(self.status.get("variant"))
        return None

    def cube_value(self):
        return (self.status or {}).get("cube") or 1

    def take(self, msg):
        """One line from the board; True when the view changed."""
        kind = msg.get("t")
        if kind == "status":
            self.status = msg
        elif kind == "record":
            self._keep_record(msg)
        elif kind == "ev":
            self._event(msg)
        else:
            return False
        return self._refresh()

    def _event(self, msg):
        ev = msg.get("ev")
        if ev in words.NOTICE_ENDS:
            self.notice = None
            self.stuck = False
        if ev == "no_move":
            self.stuck = True
        if ev == "hw_fault" and not msg.get("fault") and self.notice and self.notice["ev"] == "hw_fault":
            self.notice = None              # the part works again
        if ev == "lift" and self.notice and self.notice.get("placement"):
            if str(msg.get("zone")) in self.notice["zones"]:
                self.notice = None          # the misplaced checker is taken back
        text = words.notice_words(msg)
        if text is not None and ev != "no_move":
            self.notice = {"text": text, "ev": ev, "what": msg.get("what"),
                           "placement": msg.get("what") == "placement",
                           "zones": [str(z) for z in msg.get("zones") or []]}
        if ev == "resign_offer":
            self.offer = (msg.get("side"), msg.get("level", 1))
        elif ev in ("resign", "new_game", "game_over", "commit"):
            self.offer = None
        if ev == "new_game":
            self.result = None
            self.live_cube = None
        elif ev == "cube":
            self.live_cube = (msg.get("value"), msg.get("owner"))
        elif ev == "game_over":
            self.result = words.result_words(self.rules(), msg.get("winner"), msg.get("points", 0),
                                             msg.get("how"), self.cube_value())

    def _keep_record(self, record):
        """The current game's record; a record of game n means any kept game after n belonged to
        an earlier match (a match's games come in order)."""
        record = dict((k, v) for k, v in record.items() if k != "t")
        self.record = record
        events = record.get("events") or []
        if not events or events[0].get("k") != rec.GAME:
            return
        n = int(events[0].get("games", 0) or 0)
        self.records = {k: v for k, v in self.records.items() if k < n}
        self.records[n] = record
        for ev in events:
            if ev.get("k") == rec.END:
                self.result = words.result_words(self.rules(), ev.get("winner"), ev.get("points", 0),
                                                 ev.get("how"), self._cube_of_record()[0])

    def match_records(self):
        """The kept records of the current match, in game order."""
        return [self.records[k] for k in sorted(self.records)]

    # -- what the page shows ------------------------------------------------------------------------
    def _cube_of_record(self):
        """(value, owner) of the current game's cube, from replaying its record through the rules
        core; the live cube events when the record does not replay (e.g. a condoned play)."""
        head = (self.record or {}).get("head")
        if self._replayed is None or self._replayed[0] != head:
            cube = None
            if self.record is not None:
                try:
                    game = replay_record(self.record)["game"]
                    cube = (game.cube, game.cube_owner)
                except (ExportError, KeyError, TypeError, ValueError, IndexError):
                    cube = None
            self._replayed = (head, cube)
        if self._replayed[1] is not None:
            return self._replayed[1]
        if self.live_cube is not None:
            return self.live_cube
        return (self.cube_value(), -1)

    def _crawford(self):
        events = (self.record or {}).get("events") or []
        h = events[0] if events and events[0].get("k") == rec.GAME else {}
        rules = self.rules()
        if not rules or not rules.cube or (self.status or {}).get("match_to", 0) < 1:
            return None
        if h.get("crawford"):
            return "crawford"
        if h.get("crawford_done"):
            return "post"
        return None

    def _refresh(self):
        s = self.status
        view = {"line": None, "notice": self.notice["text"] if self.notice else None,
                "result": None, "score": None, "cube": None, "pips": None,
                "record": words.record_lines(self.record)}
        if s is not None:
            rules = self.rules()
            value, owner = self._cube_of_record()
            view["line"] = words.status_line(s, self.offer, rules, value, self.stuck)
            view["score"] = words.score_words(s, self._crawford())
            view["cube"] = words.cube_words(s.get("cube") or value, owner, bool(rules and rules.cube))
            view["pips"] = words.pip_counts(s.get("position"))
            if s.get("phase") in ("over", "match_over") and self.result:
                view["result"] = self.result + (", and the match" if s["phase"] == "match_over" else "")
        if view == self.view:
            return False
        self.view = view
        return True
