"""WS2812 LED output: zone/dice/turn painting, gamma and brightness cap, frame current limiter."""

# Electrical: the strip takes 5 V from VBUS on its own wires, with 1000 uF across it; its data
# line comes from the Pico through a 74AHCT125 (WS2812 wants a high of 0.7 x 5 V = 3.5 V, the
# RP2040 gives 3.3 V) and a 330 ohm series resistor at the first LED. Current model: each colour
# channel draws ``ma_per_channel`` x value / 255 mA (WS2812B: about 20 mA at 255), plus an idle
# current per LED that the budget subtracts beforehand (board_config.led_budget_ma).

# pips lit for each die value, in the board.json pip order:
# top-left, top-right, middle-left, centre, middle-right, bottom-left, bottom-right
_PIPS = b"\x00\x08\x41\x49\x63\x6b\x77"


class Leds:
    """The frame being built (``buf``: wire order GRB, gamma and cap applied) and its output.

    Colours are 0xRRGGBB ints or (r, g, b) sequences of 0..255 in linear light. ``write()``
    sends the frame only when it differs from the last one sent, scaling the whole frame down
    when its estimated current exceeds ``limit_ma``.
    """

    def __init__(self, cfg, strip, limit_ma, brightness_cap=80, gamma=2.6, ma_per_channel=20):
        self.strip = strip                   # object with .buf (bytearray) and .write()
        self.n = cfg.n_leds
        self.first = cfg.led_first
        self.count = cfg.led_count
        self.dice_first = cfg.dice_first
        self.turn_led = cfg.turn_led
        self.buf = bytearray(3 * self.n)
        self._sent = bytearray(3 * self.n)   # last frame sent, before the limiter
        self._out = bytearray(3 * self.n)    # last frame sent, after the limiter
        self._zero = bytes(3 * self.n)
        self._never = True
        self.ma_per_channel = ma_per_channel
        self.limit_ma = limit_ma
        self.scale = 256                     # limiter scale of the last frame (256 = none)
        self.frames = 0
        self._lut = bytearray(256)
        self.set_brightness(brightness_cap, gamma)
        self._g = 0
        self._r = 0
        self._b = 0

    def set_brightness(self, cap, gamma=2.6):
        """Rebuild the gamma table so that 255 maps to ``cap``; a lit channel never rounds to 0."""
        lut = self._lut
        for v in range(256):
            x = int(((v / 255) ** gamma) * cap + 0.5)
            lut[v] = 1 if (v and not x) else x
        self.cap = cap

    def limit_units(self):
        """Largest channel-value sum the limiter lets through."""
        return self.limit_ma * 255 // self.ma_per_channel

    def frame_ma(self, frame=None):
        """Estimated drive current of a frame (default: the last one sent), idle excluded."""
        return sum(self._out if frame is None else frame) * self.ma_per_channel // 255

    def _colour(self, rgb):
        lut = self._lut
        if isinstance(rgb, int):
            self._r = lut[(rgb >> 16) & 255]
            self._g = lut[(rgb >> 8) & 255]
            self._b = lut[rgb & 255]
        else:
            self._r = lut[rgb[0]]
            self._g = lut[rgb[1]]
            self._b = lut[rgb[2]]

    def _paint(self, first, count):
        buf = self.buf
        g = self._g
        r = self._r
        b = self._b
        i = first * 3
        end = i + count * 3
        while i < end:
            buf[i] = g
            buf[i + 1] = r
            buf[i + 2] = b
            i += 3

    def clear(self):
        self.buf[:] = self._zero

    def pixel(self, i, rgb):
        self._colour(rgb)
        self._paint(i, 1)

    def zone(self, z, rgb, slot=None):
        """Light zone z (0..27): every LED of it, or only the one above ``slot``."""
        self._colour(rgb)
        if slot is None:
            self._paint(self.first[z], self.count[z])
        elif slot < self.count[z]:
            self._paint(self.first[z] + slot, 1)

    def die(self, i, value, rgb):
        """Show ``value`` (1..6; 0 = blank) on die i (0 or 1)."""
        first = self.dice_first[i]
        self._colour(0)
        self._paint(first, 7)
        if value:
            self._colour(rgb)
            pips = _PIPS[value]
            for p in range(7):
                if (pips >> (6 - p)) & 1:
                    self._paint(first + p, 1)

    def turn(self, side, rgb):
        self._colour(rgb)
        self._paint(self.turn_led[side], 1)

    def write(self):
        """Send the frame if it changed; True when something was sent."""
        buf = self.buf
        if not self._never and buf == self._sent:
            return False
        self._never = False
        self._sent[:] = buf
        out = self._out
        total = sum(buf)
        limit = self.limit_units()
        if total > limit:
            scale = (limit << 8) // total
            for i in range(len(buf)):
                out[i] = (buf[i] * scale) >> 8
        else:
            scale = 256
            out[:] = buf
        self.scale = scale
        strip = self.strip
        strip.buf[:] = out
        strip.write()
        self.frames += 1
        return True
