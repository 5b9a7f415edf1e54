"""The soak's scripted player: random legal turns played with realistic hands on a virtual board.

Hands do what people do: hit in either order, carry one checker over both dice (touching the
intermediate point or not), hold two checkers at once, slide across points, put a checker on a
wrong point and correct it, take a step back and replay it, knock a stack over and set it right,
brush sensors; at random moments the power goes (between actions, or in the middle of a flash
write). The player also tries illegal turn ends now and then. It counts what the board got
wrong: desyncs, legal turns it refused, illegal turns it accepted, committed turns it lost.
"""

from firmware.board.record import REVEAL
from firmware.board.tracker import SETTLED
from firmware.board.zonemap import ZONES

NOISE = {"none": 0.0, "low": 0.05, "high": 0.2}
LIFT_LED_MS = 100     # a lift's destinations must be lit this long after the hand's pace at most
FLAG_MS = 300         # an illegal placement must flash this long after the hand's pace at most


class Counters:
    FIELDS: tuple = ("games", "turns", "desyncs", "rejected_legal", "accepted_illegal", "lost_turns",
              "bad_records", "power_cuts", "illegal_tries", "mismatches", "sensor_blind",
              "fair_dice_games", "lifts", "unlit_lifts", "illegal_places", "unflagged_places")

    def __init__(self):
        for f in self.FIELDS:
            setattr(self, f, 0)

    def add(self, other):
        for f in self.FIELDS:
            setattr(self, f, getattr(self, f) + getattr(other, f))

    def as_dict(self):
        return {f: getattr(self, f) for f in self.FIELDS}

    def failures(self):
        return (self.desyncs + self.rejected_legal + self.accepted_illegal + self.lost_turns
                + self.bad_records + self.unlit_lifts + self.unflagged_places)


class Player:
    """Plays whole matches on a VirtualBoard with a seeded random generator."""

    def __init__(self, vb, rng, noise="high", counters=None, log=None):
        self.vb = vb
        self.rng = rng
        self.p = NOISE[noise]
        self.c = counters or Counters()
        self.log = log
        self.commits = 0          # commits this player saw in the current game

    # -- helpers ------------------------------------------------------------------------------
    def note(self, *msg):
        if self.log is not None:
            self.log(" ".join(str(m) for m in msg))

    def chance(self, scale=1.0):
        return self.rng.random() < self.p * scale

    def act(self, fn, *args):
        """One physical action; sometimes the power goes right after it."""
        vb = self.vb
        before = vb.session.turns
        vb.guarded(fn, *args)
        if self.chance(0.08):
            self.power_cut()
        self.check_lost(before)

    def lift_own(self, z, side):
        """The mover lifts a checker from zone z; counts a lift that lit nothing although the
        checker had a legal step (the board in guide mode, the hands free before it)."""
        vb = self.vb
        s = vb.session
        tr = s.tracker
        turn = s.game.turn
        pip = s.zmap.pip(side, z) if turn is not None else -1
        legal = (tr.state == SETTLED and s.mode == "guide" and s.phase == "move" and pip > 0
                 and turn.side == side and tr.turn is turn and turn.mine[pip]
                 and bool(turn.targets(pip)))
        if legal and not self.board_can_know(z):
            legal = False       # the lift is unseen and nothing told the board it could be
        vb.lift(z, side)
        if legal:
            self.c.lifts += 1
            seen = tr.lit if tr.state != SETTLED else tr.hint
            waited = 0
            while not seen and waited < LIFT_LED_MS:     # hurried hands: give the board its time
                vb.wait(10)
                waited += 10
                seen = tr.lit if tr.state != SETTLED else tr.hint
            if not seen:
                self.c.unlit_lifts += 1
                self.note("a lift from", z, "lit nothing; state", tr.state)

    def board_can_know(self, z):
        """Can the board light a lift from zone z? When the sensors see it (the zone is not full
        and its sensor believed), or when the board knows they cannot and lights it ahead (the
        game has the zone fuller than its slots, or its sensor distrusted). Not when the
        checkers there are more than the game has, both past the slots: a play through full
        points that the board read otherwise (sensor-blind) left one more than it knows."""
        tr = self.vb.session.tracker
        cap = tr.cap[z]
        blind = (tr.faults >> z) & 1
        return (self.vb.physical()[z] <= cap and not blind) or tr.exp[z] > cap or blind

    def power_cut(self):
        self.c.power_cuts += 1
        self.vb.power_cut(off_ms=self.rng.randrange(0, 500))

    def check_lost(self, before=None):
        have = self.vb.session.turns
        if have < self.commits:
            self.c.lost_turns += self.commits - have
            self.note("lost turns", self.commits, have)
            self.commits = have

    def roll(self):
        return self.rng.randint(1, 6), self.rng.randint(1, 6)

    def check_record(self, auto):
        """The finished game's record, as ``export`` reads it: every line sealed by the board, in
        order and complete, a replay through the rules, and with electronic dice every throw the
        committed seed's."""
        from host_tools.records.export import ExportError, check_dice, replay_record, verify
        try:
            rec = self.vb.record()
            v = verify(rec)
            note = check_dice(v.events)
            if note:
                raise ExportError(note)
            if auto:
                if not any(e.get("k") == REVEAL for e in v.events):
                    raise ExportError("electronic dice, but no seed revealed")
                self.c.fair_dice_games += 1
            if replay_record(rec, verified=v)["winner"] < 0:
                raise ExportError("the game does not end in its replay")
        except ExportError as exc:
            self.c.bad_records += 1
            self.note("bad record:", exc)

    # -- a match -------------------------------------------------------------------------------
    def play_match(self, variant, match_to=1, max_plies=600):
        vb = self.vb
        # half the matches throw the board's own (fair, committed) dice, half have them entered
        auto = self.rng.random() < 0.5
        vb.cmd("dice auto" if auto else "dice manual")
        vb.cmd("new %s" % variant)
        if match_to != 1:
            vb.cmd("match %d" % match_to)
        self.commits = 0
        vb.setup()
        plies = 0
        while plies < max_plies:
            s = vb.session
            ph = s.phase
            if ph == "match_over":
                self.c.games += 1
                self.check_record(auto)
                return True
            if ph == "over":
                self.c.games += 1
                self.check_record(auto)
                self.commits = 0
                vb.guarded(vb.press, "p0")
                vb.setup()
                continue
            if ph == "setup":
                vb.setup()
                if vb.session.phase == "setup":
                    self.c.desyncs += 1
                    self.note("setup never matched")
                    return False
            elif ph == "opening" and auto:
                vb.guarded(vb.press, "p0")
            elif ph == "roll" and auto:
                vb.guarded(vb.press, s.side)            # the cube may be turned first: roll
            elif ph == "roll" and s.game.closed_out():
                vb.guarded(vb.press, s.side)            # closed out (may double): no throw
            elif ph == "opening" or ph == "roll":
                a, b = self.roll()
                vb.guarded(vb.cmd, "roll %d %d" % (a, b))
            elif ph == "doublet":
                vb.guarded(vb.cmd, "choose %d" % self.rng.randint(1, 6))
            elif ph == "doubled":
                vb.guarded(vb.cmd, "cube take")
            elif ph == "move":
                plies += 1
                try:
                    if not self.play_turn():
                        return False
                except _Resync:
                    return False
            else:
                self.note("unexpected phase", ph)
                return False
            self.check_lost()
        self.note("no end after", max_plies, "plies")
        return False

    # -- a turn --------------------------------------------------------------------------------
    def play_turn(self):
        vb = self.vb
        turn = vb.session.game.turn
        side = turn.side
        plays = turn.plays()
        play = self.rng.choice(plays) if plays else []
        start = vb.session.game.pos.copy()
        self.turn_start = start
        if play and self.chance(0.3):
            self.try_illegal(turn, play, plays)
        if play and self.chance(1.0):
            self.illegal_place(side)
        chains = self.chains(play, side)
        i = 0
        while i < len(chains):
            if i + 1 < len(chains) and self.chance(1.5) and not chains[i][2] and not chains[i + 1][2]:
                self.two_at_once(chains[i], chains[i + 1], side)
                i += 2
                continue
            self.carry(chains[i], side)
            if self.chance(0.3):
                self.undo_redo(chains[i], side)
            i += 1
            if self.chance(0.5):
                self.noise()
        return self.end_turn(side, play)

    def chains(self, play, side):
        """Group a play's steps by checker: [(src zone, [intermediate zones], [hit zones], dst zone)]."""
        zone = self.vb.zone_of
        out = []
        open_ends = {}
        for src, dst, die, hit in play:
            idx = open_ends.pop(src, None) if src != 25 else None
            if idx is None:
                out.append([zone(side, src), [], [], zone(side, dst)])
                idx = len(out) - 1
            else:
                out[idx][1].append(out[idx][3])
                out[idx][3] = zone(side, dst)
            if hit:
                out[idx][2].append(zone(side, dst))
            if dst:
                open_ends[dst] = idx
        return [tuple(c) for c in out]

    def carry(self, chain, side):
        vb = self.vb
        src, via, hits, dst = chain
        opp = 1 - side
        bar = 24 + opp
        attacker_first = hits and hits[-1] == dst and self.rng.random() < 0.5
        for h in hits:
            if attacker_first and h == dst:
                continue
            self.act(vb.lift, h, opp)
            self.act(vb.place, bar, opp)
        if via and self.rng.random() < 0.4:
            self.act(self.lift_own, src, side)
            for z in via:
                self.act(vb.place, z, side)
                self.act(vb.lift, z, side)
            self.act(vb.place, dst, side)
        elif self.chance(1.0) and dst < 24 and src < 24:
            self.slide(src, dst, side)
        else:
            if self.chance(0.6):
                self.wrong_then_right(src, dst, side)
            else:
                self.act(self.lift_own, src, side)
                self.act(vb.place, dst, side)
        if attacker_first:
            self.act(vb.lift, dst, opp)
            self.act(vb.place, bar, opp)

    def slide(self, src, dst, side):
        """Drag the checker across the points between (each touched briefly, some long enough
        for the sensors to believe it)."""
        vb = self.vb
        lo, hi = (src, dst) if src < dst else (dst, src)
        path = list(range(lo + 1, hi))
        if src > dst:
            path.reverse()
        path = path[:4]
        self.act(self.lift_own, src, side)
        for z in path:
            vb.hands.place(z, side)
            vb.guarded(vb.wait, self.rng.choice((10, 15, 30, 45)))
            vb.hands.lift(z, side)
            vb.guarded(vb.wait, self.rng.choice((10, 15, 45)))
        self.act(vb.place, dst, side)

    def wrong_then_right(self, src, dst, side):
        vb = self.vb
        wrong = self.rng.randrange(24)
        self.act(self.lift_own, src, side)
        if wrong != dst:
            self.act(vb.place, wrong, side)
            self.act(vb.lift, wrong, side)
        self.act(vb.place, dst, side)

    def two_at_once(self, a, b, side):
        vb = self.vb
        self.act(self.lift_own, a[0], side)
        self.act(vb.lift, b[0], side)
        first, second = (a, b) if self.rng.random() < 0.5 else (b, a)
        self.act(vb.place, first[3], side)
        self.act(vb.place, second[3], side)

    def undo_redo(self, chain, side):
        vb = self.vb
        src, via, hits, dst = chain
        if hits or dst >= 24:
            return
        self.act(vb.lift, dst, side)
        self.act(vb.place, src, side)
        self.act(vb.lift, src, side)
        self.act(vb.place, dst, side)

    def noise(self):
        """A brushed sensor, a nudged checker, or a knocked stack set right again."""
        vb = self.vb
        stacks = vb.hands.stacks
        full = [z for z in range(24) if stacks[z]]
        if not full:
            return
        z = self.rng.choice(full)
        kind = self.rng.random()
        if kind < 0.5:                       # shorter than the debounce: never seen
            vb.hands.lift(z, stacks[z][-1])
            vb.guarded(vb.wait, 10)
            vb.hands.place(z)
            vb.guarded(vb.wait, 10)
        elif kind < 0.8:                     # lifted and put back
            side = stacks[z][-1]
            self.act(vb.lift, z, side)
            self.act(vb.place, z, side)
        else:                                # knocked: several off, a mismatch, then set right
            n = min(len(stacks[z]), self.rng.randint(3, 5))
            if n < 3 or len(stacks[z]) - n >= vb.session.capacity[z] \
                    or (vb.session.tracker.faults >> z) & 1:
                return          # still a full point, or a sensor distrusted: nothing to see
            sides = []
            for _ in range(n):
                sides.append(stacks[z][-1])
                vb.hands.lift(z, sides[-1])
            vb.guarded(vb.wait, 80)
            if vb.session.tracker.state == SETTLED:
                self.c.desyncs += 1
                self.note("knocked stack not noticed at", z)
            else:
                self.c.mismatches += 1
            for s in reversed(sides):
                vb.hands.place(z, s)
            vb.guarded(vb.wait, 80)

    def illegal_place(self, side):
        """Lift a checker and put it down where it may not go, at slot level: on a point the
        opponent holds (on top of its stack when the point is full), or into a tray no die
        reaches; count it when the board does not flash that zone at once; then put it back."""
        vb = self.vb
        s = vb.session
        tr = s.tracker
        stacks = vb.hands.stacks
        own = [z for z in range(24) if stacks[z] and stacks[z][-1] == side]
        if not own or tr.state != SETTLED or s.mode != "guide":
            return
        src = self.rng.choice(own)
        vb.guarded(vb.lift, src, side)
        waited = 0
        while (tr.state == SETTLED or not (tr.lit or tr.stuck)) and waited < LIFT_LED_MS:
            vb.guarded(vb.wait, 10)
            waited += 10
        allowed = tr.lit | tr.back | (1 << src)
        bad = [z for z in range(ZONES) if z < 24 and stacks[z] and stacks[z][0] != side
               or z >= 26]
        # on top of a stack only where the sensors could tell: Hall sensors at slot level (the
        # frame-level world has no slots; presence-only switches see a full zone as full)
        tops = not vb.fast and s.capacity[src] > 5
        bad = [z for z in bad if not (allowed >> z) & 1 and len(stacks[z]) < (15 if tops else 5)]
        # nor on a zone whose sensor the zone reader distrusts (brushed or chattering): its count
        # comes from the game there, so no sensor can see the checker (same_to_sensors)
        bad = [z for z in bad if not (tr.faults >> z) & 1]
        if bad and tr.state != SETTLED:
            deep = [z for z in bad if len(stacks[z]) >= 5]
            z = self.rng.choice(deep if deep and self.rng.random() < 0.7 else bad)
            self.c.illegal_places += 1
            vb.guarded(vb.place, z, side)
            waited = 0
            while not (tr.flash >> z) & 1 and waited < FLAG_MS:
                vb.guarded(vb.wait, 10)
                waited += 10
            if not (tr.flash >> z) & 1:
                self.c.unflagged_places += 1
                self.note("an illegal placement on", z, "not flagged; state", tr.state,
                          "stack", stacks[z])
            vb.guarded(vb.lift, z, side)
        vb.guarded(vb.place, src, side)
        vb.guarded(vb.wait, 100)

    def try_illegal(self, turn, play, plays):
        """Press with a wrong board: an incomplete play, or a checker on a point no die reaches."""
        vb = self.vb
        side = turn.side
        self.c.illegal_tries += 1
        chains = self.chains(play, side)
        first = chains[0]
        if len(play) > 1 and not first[2] and self.rng.random() < 0.5 and len(chains) > 1:
            self.carry(first, side)          # only part of the play
            self.expect_refusal(side, "incomplete", plays)
            self.act(vb.lift, first[3], side)
            self.act(vb.place, first[0], side)
            return
        src = first[0]
        if src >= 24:
            return
        legal = set(c[3] for c in chains)
        wrong = [z for z in range(24) if z != src and z not in legal and
                 (not vb.hands.stacks[z] or vb.hands.stacks[z][-1] == side)]
        if not wrong:
            return
        z = self.rng.choice(wrong)
        self.act(vb.lift, src, side)
        self.act(vb.place, z, side)
        self.expect_refusal(side, "wrong point", plays)
        self.act(vb.lift, z, side)
        self.act(vb.place, src, side)

    def looks_legal(self, plays, side):
        """Does the board show what some legal play leads to, as far as the sensors can see?
        (Not past a point's capacity, nor on a zone whose sensor the zone reader distrusts.)"""
        s = self.vb.session
        cap = s.capacity
        blind = s.tracker.faults
        phys = self.vb.physical()
        seen = bytearray(ZONES)
        for z in range(ZONES):
            seen[z] = min(phys[z], cap[z])
        exp = bytearray(ZONES)
        for play in plays:
            s.zmap.expected(self.final_of(play, side).board, exp)
            if all(min(exp[z], cap[z]) == seen[z] or (blind >> z) & 1 for z in range(ZONES)):
                return True
        return False

    def expect_refusal(self, side, what, plays):
        vb = self.vb
        if self.looks_legal(plays, side):
            return                           # a legal play looks the same to the sensors
        before = vb.session.turns
        vb.guarded(vb.press, side)
        if vb.session.turns > before or vb.session.game.turn is None:
            self.c.accepted_illegal += 1
            self.note("accepted an illegal turn:", what)
            self.commits = vb.session.turns
            raise _Resync()

    def end_turn(self, side, play):
        vb = self.vb
        s = vb.session
        before = s.turns
        intended = self.final_of(play, side)
        if self.chance(0.15):
            # the power goes in the middle of the commit's flash writes (journal, then dice)
            self.c.power_cuts += 1
            vb.power_cut(after_bytes=self.rng.randrange(1, 600))
        for attempt in range(4):
            vb.guarded(vb.press, side)
            if vb.session.turns > before:
                break
            if vb.session.phase == "move" and vb.session.game.turn is not None and \
                    vb.session.turns == before:
                continue
            break
        vb.world.fs.cut_after = None          # a cut armed for writes that did not come
        s = vb.session
        if s.turns <= before:
            self.c.rejected_legal += 1
            self.note("legal turn refused:", play, s.tracker.state, [o for o in vb.lines[-6:]])
            return False
        self.commits = s.turns
        self.c.turns += 1
        if s.game.pos.board != intended.board:
            if self.same_to_sensors(s.game.pos):
                # full points and a full tray hid the difference: no sensor can tell; the player
                # sets the checkers as the board has them (counted apart, not a firmware fault)
                self.c.sensor_blind += 1
                self.note("sensor-blind play", play)
                vb.hands.setup(s.game.pos.board, s.zmap)
                vb.guarded(vb.wait, 100)
                return True
            self.c.desyncs += 1
            self.note("board took another position than played", play)
            return False
        return True

    def same_to_sensors(self, pos):
        """Would the sensors show ``pos`` as the checkers stand? Not past a point's capacity, and
        not on a zone whose sensor the zone reader distrusts (brushed or chattering: its count
        comes from the game), so a play that differs only there is sensor-blind, not a desync."""
        s = self.vb.session
        cap = s.capacity
        blind = s.tracker.faults
        phys = self.vb.physical()
        exp = bytearray(ZONES)
        s.zmap.expected(pos.board, exp)
        return all(min(exp[z], cap[z]) == min(phys[z], cap[z]) or (blind >> z) & 1
                   for z in range(ZONES))

    def final_of(self, play, side):
        pos = self.turn_start.copy()
        b = pos.board
        opp = 1 - side
        x = self.vb.session.rules.xlat
        for src, dst, die, hit in play:
            b[side * 26 + src] -= 1
            b[side * 26 + dst] += 1
            if hit:
                b[opp * 26 + x[dst]] -= 1
                b[opp * 26 + 25] += 1
        return pos


class _Resync(Exception):
    """The board accepted something it should not have: the match is abandoned."""


def record_match(setup, match_to, seed, double=0.0, noise="none", mode="guide", games=99,
                 provision=None):
    """Play a match (or its first ``games`` games) on the frame-level simulated board with a
    scripted player (manual dice); the cube is turned with probability ``double`` when allowed.
    Returns the records exported at the end of each game (the board's ``export`` answer).
    ``provision``: a director's secret that provisions the board's key first."""
    import random
    from host_tools.soak.soakboard import VirtualBoard
    vb = VirtualBoard(setup.split()[0], fast=True)
    if provision is not None:                    # the board gets its key from this director
        from host_tools.records.director import BoardClient, Director

        def send(line):
            m = vb.mark()
            vb.cmd(line)
            return vb.lines[m:]
        BoardClient(send).provision(Director(provision))
    rng = random.Random(seed)
    player = Player(vb, random.Random(seed + 1), noise=noise)
    records = []
    try:
        for line in ("new " + setup, "match %d" % match_to, "dice manual", "mode " + mode):
            assert vb.cmd(line)["t"] == "ok", line
        vb.setup()
        for _ in range(3000):
            s = vb.session
            ph = s.phase
            if ph in ("over", "match_over"):
                records.append(vb.record())
                if ph == "match_over" or len(records) == games:
                    return records
                vb.press("p0")
                vb.setup()
            elif ph == "setup":
                vb.setup()
            elif ph == "opening":
                vb.guarded(vb.cmd, "roll %d %d" % player.roll())
            elif ph == "roll" and s.game.closed_out():
                vb.press(s.side)                # closed out: the button passes, no throw
            elif ph == "roll":
                if s.game.can_double(s.side) and rng.random() < double:
                    vb.guarded(vb.cmd, "cube double")
                else:
                    vb.guarded(vb.cmd, "roll %d %d" % player.roll())
            elif ph == "doubled":
                vb.guarded(vb.cmd, "cube " + ("take" if rng.random() < 0.75 else "drop"))
            elif ph == "move":
                assert player.play_turn(), player.c.as_dict()
            else:
                raise AssertionError("unexpected phase %s" % ph)
        raise AssertionError("the match did not end")
    finally:
        vb.close()
