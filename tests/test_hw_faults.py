"""Hardware faults end in a clear fault state, never a hang: a dead random source, a silent or
shorted sensor front end, a stuck button, a failed LED output. Each is reported once on the host
link (``hw_fault``), listed in ``status``, shown on the LEDs (its code on die 0, the turn lights
blinking red in turn) and beeped; the board goes on with what still works, and the fault clears
when the part works again."""

import time

import pytest

from firmware.board.hwfaults import CODES, PARTS
from firmware.board.zonemap import ZONES
from host_tools.soak.soakboard import VirtualBoard


@pytest.fixture
def vb():
    board = VirtualBoard("backgammon")
    board.wait(200)
    yield board
    board.close()


def faults(vb, mark):
    return [(o["part"], o["fault"]) for o in vb.since(mark, ev="hw_fault")]


def die0_red(vb):
    """How many of die 0's LEDs show the fault red."""
    cfg = vb.hw.config
    rgb = vb.world.led_frame()
    first = cfg.dice_first[0]
    return sum(1 for i in range(first, first + 7)
               if rgb[3 * i] > 0 and rgb[3 * i + 1] == 0 and rgb[3 * i + 2] == 0)


def test_dead_dice_at_a_new_game_refuse_the_throw_and_manual_dice_still_play(vb):
    m = vb.mark()
    vb.world.stick_rosc((1,))                      # the random bit reads 1 for ever
    t0 = time.time()
    assert vb.cmd("new backgammon")["t"] == "ok"   # the game starts without a dice seed
    vb.setup()
    vb.press("p0")                                 # the opening throw: refused, no hang
    assert time.time() - t0 < 30
    refused = vb.since(m, ev="refused")
    assert refused and "hardware dice fault" in refused[-1]["reason"]
    assert faults(vb, m) == [("dice", True)]
    why = vb.since(m, ev="hw_fault")[0]["why"]
    assert "constantly" in why
    assert vb.status()["hw_faults"] == ["dice"] and vb.session.phase == "opening"
    vb.wait(300)
    assert vb.app.hwfaults.code() == CODES[PARTS.index("dice")] == 1
    assert die0_red(vb) == 1                       # a one on die 0, in red
    # the players go on with dice entered from the host
    assert vb.cmd("dice manual")["t"] == "ok"
    assert vb.cmd("roll 3 1")["t"] == "ok" and vb.session.phase == "move"


def test_dice_that_come_back_commit_a_seed_at_the_first_throw(vb):
    m = vb.mark()
    vb.world.stick_rosc((0, 1))                    # a short cycle: every pair whitens to 0
    vb.cmd("new backgammon")
    vb.setup()
    vb.press("p0")
    assert faults(vb, m) == [("dice", True)]
    vb.world.stick_rosc(None)
    vb.press("p0")
    assert vb.since(m, ev="opening")                # thrown from a seed committed now
    assert faults(vb, m) == [("dice", True), ("dice", False)]
    assert [e for e in vb.events() if e["k"] == "commit"]


@pytest.fixture(params=["digital", "analog"])
def either(request):
    """A board of each sensor front end, and the word its failed front end is reported in."""
    board = VirtualBoard("backgammon", front_end=request.param)
    board.wait(200)
    yield board, {"digital": "chain", "analog": "sensors"}[request.param]
    board.close()


@pytest.mark.parametrize("level", ["high", "low"])
def test_a_silent_or_shorted_sensor_chain_is_a_fault_and_the_board_keeps_its_last_reading(either,
                                                                                        level):
    # digital: the shift-register chain fails its check; analog (a failed mux or ADC): every
    # sensor at a rail reads far more checkers than a game has, and the fault holds while the
    # rail check distrusts them one by one (one a scan) and until all are believed again
    vb, why = either
    vb.cmd("sim setup")
    vb.wait(300)
    m = vb.mark()
    vb.world.fail_front_end(level)
    vb.wait(300)
    assert faults(vb, m) == [("sensors", True)]
    assert why in vb.since(m, ev="hw_fault")[0]["why"]
    vb.wait(1000)                                  # (every analog sensor distrusted meanwhile)
    assert not vb.since(m, ev="lift") and not vb.since(m, ev="place")   # no phantom moves
    assert vb.status()["hw_faults"] == ["sensors"] and vb.settled()
    assert vb.app.hwfaults.code() == 2 and die0_red(vb) == 2
    vb.world.fail_front_end(None)
    vb.wait(1500)                                  # every analog sensor believed again
    assert faults(vb, m) == [("sensors", True), ("sensors", False)]
    assert vb.settled() and not vb.since(m, ev="mismatch")


def test_more_checkers_than_a_game_has_is_a_sensor_fault(vb):
    m = vb.mark()
    assert vb.cmd("sim frame " + "05" * ZONES)["t"] == "ok"     # every zone read full
    vb.wait(300)
    assert faults(vb, m) == [("sensors", True)]
    assert "checkers" in vb.since(m, ev="hw_fault")[0]["why"]
    vb.cmd("sim setup")
    vb.wait(300)
    assert faults(vb, m) == [("sensors", True), ("sensors", False)]


def test_an_analog_front_end_whose_adc_reads_a_rail_is_a_fault():
    vb = VirtualBoard("backgammon", front_end="analog")
    try:
        vb.wait(300)
        m = vb.mark()
        vb.world.fail_front_end("low")
        vb.wait(3000)
        assert ("sensors", True) in faults(vb, m)
        vb.world.fail_front_end(None)
        vb.wait(3000)
        assert faults(vb, m)[-1] == ("sensors", False)
    finally:
        vb.close()


def test_a_button_held_half_a_minute_is_stuck_and_gives_nothing_more(vb):
    vb.cmd("dice manual")
    vb.setup()
    m = vb.mark()
    vb.world.press("menu", 40000)
    vb.wait(31000)
    assert faults(vb, m) == [("menu", True)]
    assert "menu" in vb.since(m, ev="hw_fault")[0]["why"]
    assert vb.app.hwfaults.code() == 3 and die0_red(vb) == 3
    vb.wait(10000)                                   # released
    assert faults(vb, m) == [("menu", True), ("menu", False)]
    assert vb.status()["hw_faults"] == []


def test_a_button_held_at_power_up_gives_no_event_until_released(vb):
    vb.cmd("dice manual")
    vb.setup()
    vb.world.press("p1", 3000)
    vb.power_cut()                                   # boots with P1 down
    m = vb.mark()
    before = vb.session.phase
    vb.wait(4000)
    assert vb.session.phase == before and not vb.since(m, ev="resign_offer")
    vb.press("p1")                                   # released since: it works again
    assert vb.app.hw.buttons.stuck == 0


@pytest.mark.parametrize("driver", ["neopixel", "pio"])
def test_a_failed_led_output_is_reported_and_the_game_goes_on(driver):
    vb = VirtualBoard("backgammon")
    try:
        if driver == "pio":
            from firmware.sim import world as simworld
            vb.reboot()
            vb._boot(simworld.build(world=vb.world, led_driver="pio"))
        vb.cmd("dice manual")
        vb.setup()
        m = vb.mark()
        vb.world.fail_leds(True)
        t0 = time.time()
        vb.cmd("roll 3 1")                           # new dice on the strip: a frame to send
        vb.wait(300)
        assert time.time() - t0 < 10                 # a stalled DMA is given up, not waited on
        assert faults(vb, m) == [("leds", True)]
        assert vb.session.phase == "move"
        vb.world.fail_leds(False)
        vb.wait(300)
        assert faults(vb, m) == [("leds", True), ("leds", False)]
    finally:
        vb.close()


class _Stall:
    """A world for the simulated DMA: the strip's output failed or not."""
    led_stall = False

    def led_written(self, data):
        pass


@pytest.mark.parametrize("stuck, raises", [(False, False), (True, True)])
def test_the_pio_strip_calls_a_stall_only_when_the_dma_is_still_busy(monkeypatch, stuck, raises):
    # the strip's wait may look late (a busy host, an interrupt on the board): a frame that went
    # out meanwhile is no stall, whatever the clock says; a DMA still busy past its time is one
    from firmware.drivers import ws2812_pio
    from firmware.sim import rp2
    looks = [1000]

    def clock():                                    # the time at each look
        return looks.pop(0) if len(looks) > 1 else looks[0]

    monkeypatch.setattr(ws2812_pio, "_ticks_us", clock)
    strip = ws2812_pio.PioStrip(rp2, 0, 8)
    strip.dma.world = world = _Stall()
    strip.write()                                   # the first frame: nothing to wait for
    world.led_stall = stuck
    done = strip._done_at
    looks[:] = [done - 10, done + 1000000]          # the frame's last microseconds, then the
                                                    # next look comes a second late
    if raises:
        with pytest.raises(OSError):
            strip.write()
    else:
        strip.write()
        assert not strip.stalled
