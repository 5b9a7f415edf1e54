"""WS2812 LED output: zone/dice/turn painting, gamma and brightness cap, frame current limiter."""

# Electrical: the strip takes 5 V from VBUS on its own wires, with 1000 uF across it; its data
# line comes from the Pico through a 74AHCT125 (WS2812 wants a high of 0.7 x 5 V = 3.5 V, the
# RP2040 gives 3.3 V) and a 330 ohm series resistor at the first LED. Current model: each colour
# channel draws ``ma_per_channel`` x value / 255 mA (WS2812B: about 20 mA at 255), plus an idle
# current per LED that the budget subtracts beforehand (board_config.led_budget_ma).

# The pips lit for each die value as runs of neighbouring LEDs (first pip, count), in the
# board.json pip order: 0 top-left, 1 top-right, 2 middle-left, 3 centre, 4 middle-right,
# 5 bottom-left, 6 bottom-right.
_PIP_RUNS = ((), ((3, 1),), ((0, 1), (6, 1)), ((0, 1), (3, 1), (6, 1)), ((0, 2), (5, 2)),
             ((0, 2), (3, 1), (5, 2)), ((0, 3), (4, 3)))


class Leds:
    """The frame being built (``buf``: wire order GRB, gamma and cap applied) and its output.

    Colours are 0xRRGGBB ints or (r, g, b) sequences of 0..255 in linear light. ``write()``
    sends the frame only when it differs from the last one sent, scaling the whole frame down
    when its current exceeds ``limit_ma``. Painting is slice copies of a one-colour pattern
    (no per-byte loop, no allocation); the current is estimated from what was painted since
    ``clear()`` (an upper bound: overpainting counts twice) and counted exactly only when that
    bound exceeds the limit. Paint through the methods, not into ``buf`` directly.
    """

    def __init__(self, cfg, strip, limit_ma, brightness_cap=80, gamma=2.6, ma_per_channel=20):
        self.strip = strip                   # object with .buf (bytearray) and .write()
        self.n = cfg.n_leds
        self.first = cfg.led_first
        self.count = cfg.led_count
        self.dice_first = cfg.dice_first
        self.turn_led = cfg.turn_led
        nbytes = 3 * self.n
        self.buf = bytearray(nbytes)
        self._sent = bytearray(nbytes)       # last frame sent, before the limiter
        self._zero = bytes(nbytes)
        run = max(7, max(self.count))
        self._pat = bytearray(3 * run)       # the current colour, repeated
        mv = memoryview(self._pat)
        self._views = [mv[:3 * c] for c in range(run + 1)]
        self._blank7 = memoryview(self._zero)[:21]
        self._rgb = None
        self._unit = 0                       # g + r + b of the current colour
        self._est = 0                        # upper bound of sum(buf) since clear()
        self._never = True
        self.ma_per_channel = ma_per_channel
        self.limit_ma = limit_ma
        self.scale = 256                     # limiter scale of the last frame (256 = none)
        self.frames = 0
        self.fault = None            # why the last write failed, until one succeeds
        self._lut = bytearray(256)
        self.set_brightness(brightness_cap, gamma)

    def set_brightness(self, cap, gamma=2.6):
        """Rebuild the gamma table so that 255 maps to ``cap``; a lit channel never rounds to 0."""
        lut = self._lut
        for v in range(256):
            x = int(((v / 255) ** gamma) * cap + 0.5)
            lut[v] = 1 if (v and not x) else x
        self.cap = cap
        self._rgb = None

    def limit_units(self):
        """Largest channel-value sum the limiter lets through."""
        return self.limit_ma * 255 // self.ma_per_channel

    def frame_ma(self, frame=None):
        """Drive current of a frame (default: the last one sent, after the limiter), idle excluded."""
        return sum(self.strip.buf if frame is None else frame) * self.ma_per_channel // 255

    def _colour(self, rgb):
        if rgb == self._rgb:
            return
        self._rgb = rgb
        lut = self._lut
        if isinstance(rgb, int):
            r = lut[(rgb >> 16) & 255]
            g = lut[(rgb >> 8) & 255]
            b = lut[rgb & 255]
        else:
            r = lut[rgb[0]]
            g = lut[rgb[1]]
            b = lut[rgb[2]]
        pat = self._pat
        pat[0] = g
        pat[1] = r
        pat[2] = b
        views = self._views
        n = 3
        end = len(pat)
        while n < end:                       # double the filled part: 1, 2, 4, 8 LEDs
            m = n if 2 * n <= end else end - n
            pat[n:n + m] = views[m // 3]
            n += m
        self._unit = g + r + b

    def _paint(self, first, count):
        i = 3 * first
        self.buf[i:i + 3 * count] = self._views[count]
        self._est += self._unit * count

    def clear(self):
        self.buf[:] = self._zero
        self._est = 0

    def pixel(self, i, rgb):
        self._colour(rgb)
        self._paint(i, 1)

    def zone(self, z, rgb, slot=None):
        """Light zone z (0..27): every LED of it, or only the one above ``slot``."""
        if rgb != self._rgb:
            self._colour(rgb)
        if slot is None:
            count = self.count[z]
            i = 3 * self.first[z]
        elif slot < self.count[z]:
            count = 1
            i = 3 * (self.first[z] + slot)
        else:
            return
        self.buf[i:i + 3 * count] = self._views[count]     # _paint, inlined: the hot call
        self._est += self._unit * count

    def die(self, i, value, rgb):
        """Show ``value`` (1..6; 0 = blank) on die i (0 or 1)."""
        at = 3 * self.dice_first[i]
        buf = self.buf
        buf[at:at + 21] = self._blank7
        if value:
            if rgb != self._rgb:
                self._colour(rgb)
            views = self._views
            for pip, count in _PIP_RUNS[value]:
                i = at + 3 * pip
                buf[i:i + 3 * count] = views[count]
            self._est += self._unit * value

    def turn(self, side, rgb):
        if rgb != self._rgb:
            self._colour(rgb)
        self._paint(self.turn_led[side], 1)

    def write(self):
        """Send the frame if it changed; True when something was sent."""
        buf = self.buf
        if not self._never and buf == self._sent:
            return False
        self._never = False
        self._sent[:] = buf
        limit = self.limit_ma * 255 // self.ma_per_channel
        scale = 256
        if self._est > limit:
            total = sum(buf)                 # the bound says maybe: count exactly
            self._est = total
            if total > limit:
                scale = (limit << 8) // total
        strip = self.strip
        out = strip.buf          # the strip's own buffer: a DMA may still read it after write()
        if scale < 256:
            for i in range(len(buf)):
                out[i] = (buf[i] * scale) >> 8
        else:
            out[:] = buf
        self.scale = scale
        try:
            strip.write()
        except OSError as exc:       # the output failed (a DMA that never finished): report it
            self._never = True       # and send this frame again next time
            if self.fault is None:
                self.fault = "the LED output failed: %s" % (exc,)
            return False
        self.fault = None
        self.frames += 1
        return True
