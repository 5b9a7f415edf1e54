"""The piezo buzzer: a PWM tone that stops by itself after its duration (poll-driven)."""

from firmware.drivers.ticks import ticks_diff

# Electrical: a passive piezo straight from the GPIO (a few mA); 50 % duty is the loudest.


class Buzzer:
    def __init__(self, pwm):
        self.pwm = pwm
        self._until = None
        pwm.duty_u16(0)

    def beep(self, now, freq=2000, ms=80):
        self.pwm.freq(freq)
        self.pwm.duty_u16(32768)
        self._until = (now, ms)

    def poll(self, now):
        u = self._until
        if u is not None and ticks_diff(now, u[0]) >= u[1]:
            self.pwm.duty_u16(0)
            self._until = None
