"""What the LEDs say: differing zones, legal destinations (lit ahead, in their own colour, for stacks
the sensors cannot see whole), a lifted checker that may not move, illegal placements, the board's
reading of a play the sensors cannot see whole, dice, whose turn, and the moments a player must
see: a refusal, a flag, an opening throw or tie, a choice to make (matador doublet, parity call),
a cube or resignation on offer, a closed-out pass, points won (any number: digit by digit). The
README's light table says what each pattern means and what to do."""

from firmware.board.tracker import HANDS, ILLEGAL, MISMATCH
from firmware.board.zonemap import ZONES

try:
    from micropython import const
except ImportError:                 # CPython (host tools)
    def const(x):
        return x

# colours (0xRRGGBB) and times: const, so they cost the board no interned names
_OFF = const(0x000000)
_LIFTED = const(0x606060)      # where the lifted checker came from
_TARGET = const(0x00C040)      # a legal destination
_HIT = const(0xFF8000)         # a legal destination that hits; an opening tie (throw again)
_BACK = const(0x0040FF)        # put it back here (undo)
_NOSTEP = const(0x400000)      # a lifted checker that may not move (no legal step from there)
_AHEAD = const(0x004040)       # where the top checker of a stack the sensors cannot see may go
_WRONG = const(0xFF0000)       # illegal placement (flashing), too many checkers, a refusal
_SHORT = const(0x0000FF)       # fewer checkers than the game has there; lines lost on flash
_DIE_ON = const(0xFFFFFF)
_DIE_USED = const(0x202020)
_TURN0 = const(0xFFFFFF)       # White's turn light (and White's opening die)
_TURN1 = const(0x8000FF)       # Black's
_WIN = const(0xFFD000)         # points won or offered
_CHOOSE = const(0x00A0FF)      # a choice to make: the matador doublet, the parity call
_CUBE = const(0x00FF60)        # the cube's value on offer

_CLOCK_LOW = const(0xFF2000)   # the turn light of a side whose reserve runs low
_FAULT = const(0xFF0000)       # a hardware fault: its code on die 0, the turn lights blinking in turn

_FLASH_MS = const(125)         # illegal placement: 4 Hz
_BLINK_MS = const(400)         # differences: slow blink
_CLOCK_FAST_MS = const(125)    # under _CLOCK_LAST_MS of reserve the turn light blinks fast
_CLOCK_LOW_MS = const(30000)   # reserve left when the running side's turn light starts to blink
_CLOCK_LAST_MS = const(10000)
_DIGIT_MS = const(700)         # points over 12: each decimal digit 500 ms on, 200 ms off,
_DIGIT_ON_MS = const(500)      # then 1.4 s dark before the number again
_PAUSE_MS = const(1400)


class LedView:
    """Paints one frame from a Session's state; ``leds.write`` sends it only when it changed."""

    def __init__(self, leds):
        self.leds = leds

    def render(self, session, now, fault=0):
        """Paint the frame and write it; ``fault`` (HwFaults.code(), 0 none) overlays the
        hardware fault pattern."""
        leds = self.leds
        leds.clear()
        tr = session.tracker
        st = tr.state
        phase = session.phase
        guide = session.mode == "guide"
        blink = (now // _BLINK_MS) & 1 == 0
        flash = (now // _FLASH_MS) & 1 == 0
        if tr.ambiguous:
            # the sensors fit several plays: blink the board's reading for the player to confirm
            if blink:
                self._bits(tr.read_from, _LIFTED)
                self._bits(tr.read_to, _TARGET)
        elif st == MISMATCH or phase == "setup":
            if blink or phase == "setup":
                self._bits(tr.missing, _SHORT)
                self._bits(tr.extra, _WRONG)
        elif st == HANDS or st == ILLEGAL:
            if guide:
                self._bits(tr.hint & ~tr.lit, _AHEAD)
                self._bits(tr.lifted, _LIFTED)
                self._bits(tr.stuck, _NOSTEP)
                self._bits(tr.lit & ~tr.hitlit, _TARGET)
                self._bits(tr.hitlit, _HIT)
                self._bits(tr.back, _BACK)
                if flash:
                    self._bits(tr.flash, _WRONG)
        elif guide and tr.hint and phase == "move":
            # stacks the sensors cannot see whole: their top checker's destinations, lit ahead
            self._bits(tr.hint, _AHEAD)
        game = session.game
        turn = game.turn
        note = session.notice            # (kind, until[, who]) while it lasts
        kind = None
        who = -1
        if note is not None and now - note[1] < 0:
            kind = note[0]
            who = note[2] if len(note) > 2 else -1
        parity = phase == "opening" and session.rules.opening == "parity"
        if phase == "resign":             # the points on offer blink on the dice
            p = session.resign_offer[1] * game.cube
            if blink or p > 12:
                self.number(p, _WIN, now)
        elif phase == "doubled":          # the cube's new value blinks on the dice
            p = game.cube * 2
            if blink or p > 12:
                self.number(p, _CUBE, now)
        elif phase == "doublet":          # matador: the doublet MENU is choosing
            leds.die(0, session.choice, _CHOOSE)
            leds.die(1, session.choice, _CHOOSE)
        elif parity:                      # the call: two pips even, one pip odd
            leds.die(0, 2 if session.call[1] else 1, _CHOOSE)
        elif phase == "opening" and game.opening:
            if blink:                     # a tie: both throw again
                leds.die(0, game.opening[-1][0], _HIT)
                leds.die(1, game.opening[-1][1], _HIT)
        elif kind == "opening":           # the opening throw, a moment: White's die, Black's
            if who > 0:                   # (the parity die alone)
                leds.die(0, who, _DIE_ON)
            elif game.opening:
                leds.die(0, game.opening[-1][0], _TURN0)
                leds.die(1, game.opening[-1][1], _TURN1)
        elif turn is not None and phase != "flagged":
            # a turn end refused (guide mode): the dice still to play flash red
            on = _WRONG if kind == "illegal" and flash else _DIE_ON
            d1, d2 = game.dice
            rest = turn.dice_left()
            if d1 == d2:
                used = 4 - len(rest)
                leds.die(0, d1, _DIE_USED if used >= 2 else on)
                leds.die(1, d2, _DIE_USED if used >= 4 else on)
            else:
                leds.die(0, d1, on if d1 in rest else _DIE_USED)
                leds.die(1, d2, on if d2 in rest else _DIE_USED)
        elif phase == "flagged" and flash:
            leds.die(0, game.dice[0], _WRONG)
            leds.die(1, game.dice[1], _WRONG)
        if phase == "over" or phase == "match_over":
            if game.winner >= 0:
                leds.turn(game.winner, _WIN)
                self.number(game.points, _WIN, now)
        else:
            side = session.call[0] if parity else game.pos.turn
            leds.turn(side, _TURN1 if side else _TURN0)
            if kind == "pass":            # a closed-out side passed: its light flickers
                leds.turn(who, (_TURN1 if who else _TURN0) if flash else _OFF)
        if kind == "refused":             # a press refused: the presser's light flashes red
            for side in (0, 1):
                if who == side or who == 2:
                    leds.turn(side, _WRONG if flash else _OFF)
        elif kind == "journal":           # lines lost on flash: both lights blink blue
            leds.turn(0, _SHORT if blink else _OFF)
            leds.turn(1, _SHORT if blink else _OFF)
        low = self.clock_low(session, now)
        if low:                          # a reserve running low: its side's turn light blinks
            period = _CLOCK_FAST_MS if low == 2 else _BLINK_MS
            leds.turn(session.gclock.side, _CLOCK_LOW if (now // period) & 1 == 0 else _OFF)
        if fault:                        # a hardware fault: its code on die 0, turn lights
            leds.die(0, fault, _FAULT)   # blinking red in turn (docs/hardware.md)
            leds.die(1, 0, _OFF)
            on = (now // _FLASH_MS) & 1
            leds.turn(on, _FAULT)
            leds.turn(1 - on, _OFF)
        return leds.write()

    def number(self, p, rgb, now):
        """Show ``p`` points on the dice: up to 12 at once (8 = 6 on die 0, 2 on die 1); more
        as its decimal digits one after another (each 0.5 s, then 1.4 s dark): 1-6 on die 0,
        7-9 as 6 and the rest, 0 as the two centre pips."""
        leds = self.leds
        if p <= 12:
            leds.die(0, p if p < 6 else 6, rgb)
            if p > 6:
                leds.die(1, p - 6, rgb)
            return
        n = 1
        top = 10
        while top <= p:
            top *= 10
            n += 1
        t = now % (n * _DIGIT_MS + _PAUSE_MS)
        i = t // _DIGIT_MS
        if i >= n or t % _DIGIT_MS >= _DIGIT_ON_MS:
            return
        d = p // (top // 10 ** (i + 1)) % 10
        if d == 0:
            leds.die(0, 1, rgb)
            leds.die(1, 1, rgb)
        else:
            leds.die(0, d if d < 6 else 6, rgb)
            if d > 6:
                leds.die(1, d - 6, rgb)

    @staticmethod
    def animated(session, now):
        """True while the frame changes with time alone beyond what the app already watches:
        a notice, an opening tie, a cube on offer, points over 12 won."""
        note = session.notice
        if note is not None and now - note[1] < 0:
            return True
        ph = session.phase
        game = session.game
        if ph == "doubled" or (ph == "opening" and game.opening):
            return True
        return (ph == "over" or ph == "match_over") and game.points > 12

    @staticmethod
    def clock_low(session, now):
        """0, or 1 when the running side's reserve is under _CLOCK_LOW_MS (its delay spent), 2
        under _CLOCK_LAST_MS."""
        c = session.gclock
        side = c.side
        if side < 0 or c.reserve <= 0 or c.delay_left(now):
            return 0
        left = c.remaining(side, now)
        if left < _CLOCK_LAST_MS:
            return 2
        return 1 if left < _CLOCK_LOW_MS else 0

    def _bits(self, bits, rgb):
        if not bits:
            return
        leds = self.leds
        for z in range(ZONES):
            if (bits >> z) & 1:
                leds.zone(z, rgb)
