"""What the LEDs say: differing zones, legal destinations (lit ahead, in their own colour, for stacks
the sensors cannot see whole), a lifted checker that may not move, illegal placements, the board's
reading of a play the sensors cannot see whole, dice, whose turn."""

from firmware.board.tracker import HANDS, ILLEGAL, MISMATCH
from firmware.board.zonemap import ZONES

OFF = 0x000000
LIFTED = 0x606060      # where the lifted checker came from
TARGET = 0x00C040      # a legal destination
HIT = 0xFF8000         # a legal destination that hits
BACK = 0x0040FF        # put it back here (undo)
NOSTEP = 0x400000      # a lifted checker that may not move (no legal step from there)
AHEAD = 0x004040       # where the top checker of a stack the sensors cannot see may go
WRONG = 0xFF0000       # illegal placement (flashing), or too many checkers (mismatch)
SHORT = 0x0000FF       # fewer checkers than the game has there (mismatch / setup)
DIE_ON = 0xFFFFFF
DIE_USED = 0x202020
TURN = (0xFFFFFF, 0x8000FF)
WIN = 0xFFD000

CLOCK_LOW = 0xFF2000   # the turn light of a side whose reserve runs low
FAULT = 0xFF0000       # a hardware fault: its code on die 0, the turn lights blinking in turn

FLASH_MS = 125         # illegal placement: 4 Hz
BLINK_MS = 400         # differences: slow blink
CLOCK_FAST_MS = 125    # under CLOCK_LAST_MS of reserve the turn light blinks fast
CLOCK_LOW_MS = 30000   # reserve left when the running side's turn light starts to blink
CLOCK_LAST_MS = 10000


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
        if tr.ambiguous:
            # the sensors fit several plays: blink the board's reading for the player to confirm
            if (now // BLINK_MS) & 1 == 0:
                self._bits(tr.read_from, LIFTED)
                self._bits(tr.read_to, TARGET)
        elif st == MISMATCH or phase == "setup":
            if (now // BLINK_MS) & 1 == 0 or phase == "setup":
                self._bits(tr.missing, SHORT)
                self._bits(tr.extra, WRONG)
        elif st == HANDS or st == ILLEGAL:
            if guide:
                self._bits(tr.hint & ~tr.lit, AHEAD)
                self._bits(tr.lifted, LIFTED)
                self._bits(tr.stuck, NOSTEP)
                self._bits(tr.lit & ~tr.hitlit, TARGET)
                self._bits(tr.hitlit, HIT)
                self._bits(tr.back, BACK)
                if (now // FLASH_MS) & 1 == 0:
                    self._bits(tr.flash, WRONG)
        elif guide and tr.hint and phase == "move":
            # stacks the sensors cannot see whole: their top checker's destinations, lit ahead
            self._bits(tr.hint, AHEAD)
        game = session.game
        turn = game.turn
        if phase == "resign":             # the points on offer blink on the dice
            if (now // BLINK_MS) & 1 == 0:
                p = session.resign_offer[1] * game.cube
                leds.die(0, p if p < 6 else 6, WIN)
                if p > 6:
                    leds.die(1, p - 6 if p < 12 else 6, WIN)
        elif turn is not None and phase != "flagged":
            d1, d2 = game.dice
            rest = turn.dice_left()
            if d1 == d2:
                used = 4 - len(rest)
                leds.die(0, d1, DIE_USED if used >= 2 else DIE_ON)
                leds.die(1, d2, DIE_USED if used >= 4 else DIE_ON)
            else:
                leds.die(0, d1, DIE_ON if d1 in rest else DIE_USED)
                leds.die(1, d2, DIE_ON if d2 in rest else DIE_USED)
        elif phase == "flagged" and (now // FLASH_MS) & 1 == 0:
            leds.die(0, game.dice[0], WRONG)
            leds.die(1, game.dice[1], WRONG)
        if phase == "over" or phase == "match_over":
            if game.winner >= 0:
                leds.turn(game.winner, WIN)
                p = game.points            # the points won, on the dice (8 = 6 + 2)
                leds.die(0, p if p < 6 else 6, WIN)
                if p > 6:
                    leds.die(1, p - 6 if p < 12 else 6, WIN)
        else:
            leds.turn(game.pos.turn, TURN[game.pos.turn])
        low = self.clock_low(session, now)
        if low:                          # a reserve running low: its side's turn light blinks
            period = CLOCK_FAST_MS if low == 2 else BLINK_MS
            leds.turn(session.gclock.side, CLOCK_LOW if (now // period) & 1 == 0 else OFF)
        if fault:                        # a hardware fault: its code on die 0, turn lights
            leds.die(0, fault, FAULT)    # blinking red in turn (docs/hardware.md)
            leds.die(1, 0, OFF)
            on = (now // FLASH_MS) & 1
            leds.turn(on, FAULT)
            leds.turn(1 - on, OFF)
        return leds.write()

    @staticmethod
    def clock_low(session, now):
        """0, or 1 when the running side's reserve is under CLOCK_LOW_MS (its delay spent), 2
        under CLOCK_LAST_MS."""
        c = session.gclock
        side = c.side
        if side < 0 or c.reserve <= 0 or c.delay_left(now):
            return 0
        left = c.remaining(side, now)
        if left < CLOCK_LAST_MS:
            return 2
        return 1 if left < CLOCK_LOW_MS else 0

    def _bits(self, bits, rgb):
        if not bits:
            return
        leds = self.leds
        for z in range(ZONES):
            if (bits >> z) & 1:
                leds.zone(z, rgb)
