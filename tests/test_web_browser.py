"""End to end in a real browser: the play command's page, Debian's chromium driven by Playwright, the real firmware."""

import os
import re
import shutil
import signal
import subprocess
import sys
import time

import pytest

from firmware.board.zonemap import ZoneMap
from firmware.rules import Position, Turn, get_rules
from rulesutil import reachable

pytestmark = pytest.mark.browser

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ARTIFACTS = os.path.join(REPO, "tests", "artifacts")
MAX_TURNS = 400


def start_play(tmp_path, *extra, seed=2026):
    """`python -m host_tools play --sim` in a child process, its dice seeded so that a failure
    can be played again; returns (process, page URL)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "host_tools", "play", "--sim", "--no-browser", "--http-port", "0",
         "--flash", str(tmp_path), "--seed", str(seed)] + list(extra),
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    first = proc.stdout.readline()
    match = re.search(r"http://\S+", first)
    if not match:
        proc.kill()
        raise AssertionError("play printed no address: %r" % (first + proc.stdout.read()))
    return proc, match.group(0)


def stop_play(proc):
    proc.send_signal(signal.SIGINT)
    try:
        assert proc.wait(timeout=10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()


@pytest.fixture(scope="module")
def browser():
    if not shutil.which(CHROMIUM):
        pytest.skip("Debian's chromium is not installed (scripts/system_deps.sh installs it)")
    from playwright.sync_api import sync_playwright
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def board_page(browser, tmp_path):
    proc, url = start_play(tmp_path)
    # the test's own scripts (wait_for_function) are evaluated strings, which the page's
    # Content-Security-Policy forbids to the page: test_web_browser_attacks checks the page under it
    page = browser.new_page(viewport={"width": 1500, "height": 950}, has_touch=True, bypass_csp=True)
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        page.goto(url)
        page.wait_for_function("window.nardy && nardy.ready && nardy.state.status !== null")
        yield page
        assert errors == [], errors
    finally:
        page.close()
        stop_play(proc)


def status(page):
    return page.evaluate("nardy.state.status")


def wait_for_phase(page, *phases):
    page.wait_for_function("(ph) => nardy.state.status && ph.includes(nardy.state.status.phase)",
                           arg=list(phases), timeout=15000)
    return status(page)


def zone_centre(page, zone):
    box = page.locator(".zone-hit[data-zone='%d']" % zone).bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def test_page_loads_and_a_mouse_drag_reaches_the_firmware(board_page):
    page = board_page
    assert page.locator("#board .point").count() == 24
    assert page.locator("#board .led").count() == page.evaluate("nardy.state.board.leds.count")
    page.evaluate("nardy.setup()")
    page.wait_for_function("nardy.state.stacks.flat().length === 30")
    page.evaluate("nardy.command('dice manual').then(() => nardy.command('roll 5 2'))")
    st = wait_for_phase(page, "move")
    rules = get_rules("short")
    pos = Position.parse(st["position"])
    side = st["turn"]
    zmap = ZoneMap(rules)
    turn = Turn(rules, pos, tuple(st["dice"]))
    src = next(p for p in range(24, 0, -1) if pos.board[side * 26 + p] and turn.targets(p))
    # the destinations light up, and the point the checker left (in the "lifted" colour)
    expected = sorted({zmap.zone(side, p) for p in reachable(turn, src)} | {zmap.zone(side, src)})
    dst = turn.targets(src)[0][0]

    x, y = zone_centre(page, zmap.zone(side, src))
    page.mouse.move(x, y)
    page.mouse.down()
    page.wait_for_function("(want) => JSON.stringify(nardy.litZones().sort((a, b) => a - b)) === JSON.stringify(want)",
                           arg=expected, timeout=10000)
    lit_leds = page.locator(".led[data-zone='%d']:not([data-rgb='000000'])" % zmap.zone(side, dst))
    assert lit_leds.count() == page.evaluate("(z) => nardy.state.board.leds.zones[z][1]", zmap.zone(side, dst))
    os.makedirs(ARTIFACTS, exist_ok=True)
    page.screenshot(path=os.path.join(ARTIFACTS, "virtual-board-lifted.png"))
    x2, y2 = zone_centre(page, zmap.zone(side, dst))
    page.mouse.move((x + x2) / 2, (y + y2) / 2, steps=4)
    page.mouse.move(x2, y2, steps=4)
    page.mouse.up()
    step_to = rules.k_of(side, dst)
    page.wait_for_function(
        "(k) => Array.from(document.querySelectorAll('#log li .raw')).some(r => {"
        " if (!r.textContent.startsWith('{')) return false;"
        " const m = JSON.parse(r.textContent); return m.ev === 'step' && m.to === k; })",
        arg=step_to, timeout=10000)
    # the same step in words, in the mover's own numbering
    said = "%s %d/%d" % (("White", "Black")[side], src, dst)
    assert said in page.locator("#log li .words").all_text_contents()
    assert page.evaluate("(z) => nardy.state.stacks[z].slice(-1)[0]", zmap.zone(side, dst)) == side
    os.makedirs(ARTIFACTS, exist_ok=True)
    page.screenshot(path=os.path.join(ARTIFACTS, "virtual-board.png"))


def touch_drag(page, start, end, steps=5):
    """A finger on the screen: touch start, moves, touch end (Chrome DevTools input events)."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": start[0], "y": start[1]}]})
    for i in range(1, steps + 1):
        x = start[0] + (end[0] - start[0]) * i / steps
        y = start[1] + (end[1] - start[1]) * i / steps
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": y}]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    cdp.detach()


def test_two_checkers_at_once_with_the_mouse_and_one_by_touch(board_page):
    page = board_page
    rules = get_rules("short")
    zmap = ZoneMap(rules)
    page.evaluate("nardy.command('dice manual').then(() => nardy.command('roll 4 2'))")
    st = wait_for_phase(page, "move")
    assert st["turn"] == 0                    # White threw the 4: White plays 4-2 first
    page.evaluate("([a, b, c]) => nardy.drag(a, b).then(() => nardy.drag(c, b))",
                  [zmap.zone(0, 8), zmap.zone(0, 4), zmap.zone(0, 6)])
    page.wait_for_function("nardy.state.status.dice_left.length === 0")
    page.evaluate("nardy.press('p0')")
    wait_for_phase(page, "roll")
    page.evaluate("nardy.command('roll 3 3')")
    wait_for_phase(page, "move")

    # Shift-drag: Black's two checkers from its 8-point to its 5-point in one hand
    src, dst = zmap.zone(1, 8), zmap.zone(1, 5)
    x, y = zone_centre(page, src)
    x2, y2 = zone_centre(page, dst)
    page.keyboard.down("Shift")
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x2, y2, steps=6)
    page.mouse.up()
    page.keyboard.up("Shift")
    page.wait_for_function("([z, n]) => nardy.state.stacks[z].length === n", arg=[dst, 2])
    page.wait_for_function("nardy.state.status.dice_left.length === 2")
    assert page.evaluate("(z) => nardy.state.stacks[z]", src) == [1]

    # a finger: one more checker from Black's 13-point to its 10-point
    src, dst = zmap.zone(1, 13), zmap.zone(1, 10)
    touch_drag(page, zone_centre(page, src), zone_centre(page, dst))
    page.wait_for_function("([z, n]) => nardy.state.stacks[z].length === n", arg=[dst, 1])
    page.wait_for_function("nardy.state.status.dice_left.length === 1")
    assert page.evaluate("(z) => nardy.state.stacks[z].length", src) == 4


def choose_play(turn):
    """A play that ends the game soon: bear off most, hit least (hits make games longer)."""
    def score(play):
        off = sum(1 for s in play if s[1] == 0)
        hits = sum(1 for s in play if s[3])
        return (-off, hits)
    plays = turn.plays()
    return min(plays, key=score) if plays else []


TURNS_RECORDED = "nardy.state.record ? nardy.state.record.events.filter(e => e.k === 'turn').length : 0"
EVENTS_RECORDED = "nardy.state.record ? nardy.state.record.events.length : 0"
SIDES_THAT_MOVED = ("nardy.state.record ? [...new Set(nardy.state.record.events"
                    ".filter(e => e.k === 'turn').map(e => e.side))].length : 0")


def play_turn(page, rules, zmap, st):
    """Play the side to move's turn with drags, then press its button; waits for the commit."""
    pos = Position.parse(st["position"])
    side = st["turn"]
    record = page.evaluate("nardy.state.record")
    first = not any(e["k"] == "turn" and e["side"] == side for e in record["events"])
    turn = Turn(rules, pos, tuple(st["dice"]), first_turn=first)
    play = choose_play(turn)
    for src, dst, die, hit in play:
        if hit:       # the blot goes to its owner's bar first, as a player's hand does it
            page.evaluate("([a, b]) => nardy.drag(a, b)", [zmap.zone(side, dst), 25 - side])
        page.evaluate("([a, b]) => nardy.drag(a, b)", [zmap.zone(side, src), zmap.zone(side, dst)])
        turn.push(src, die)
    turns = page.evaluate(TURNS_RECORDED)
    page.evaluate("(b) => nardy.press(b)", "p%d" % side)
    # committed: the record has one more turn, and the status is as new as the record (its seal
    # is the record's head: the next roll, or the end), whoever moves next (matador: same side)
    try:
        page.wait_for_function(
            "(n) => (%s) > n && nardy.state.status.seal === nardy.state.record.head"
            % TURNS_RECORDED, arg=turns, timeout=10000)
    except Exception:
        log = page.locator("#log li .raw").all_text_contents()[:12]
        raise AssertionError("the turn %s %s was not committed; board said:\n%s"
                             % (st["dice"], play, "\n".join(log)))


def press_and_wait_for_record(page, button):
    """A press that journals something (opening throw, roll, chosen doublet)."""
    n = page.evaluate(EVENTS_RECORDED)
    page.evaluate("(b) => nardy.press(b)", button)
    try:
        page.wait_for_function("(n) => (%s) > n" % EVENTS_RECORDED, arg=n, timeout=10000)
    except Exception:
        log = page.locator("#log li .raw").all_text_contents()[:15]
        raise AssertionError("pressing %s journaled nothing (status %s); board said:\n%s"
                             % (button, page.evaluate("nardy.state.status"), "\n".join(log)))


def play_game(page, variant, stop_after_turns=None):
    """A new game of ``variant`` set out and played through the page: to its end, or until
    ``stop_after_turns`` turns are committed and both sides have moved (in matador one side may
    roll the 4-3 again and again, so a count alone can leave the other side unplayed).
    Returns the record."""
    rules = get_rules(variant)
    zmap = ZoneMap(rules)
    page.evaluate("(v) => nardy.newGame(v)", variant)
    page.wait_for_function(
        "(v) => nardy.state.status.variant === v && nardy.state.status.phase !== 'setup'"
        " && nardy.state.stacks.flat().length === 30", arg=variant, timeout=10000)
    for _ in range(3 * MAX_TURNS):
        st = wait_for_phase(page, "opening", "roll", "doublet", "move", "over", "match_over")
        done = page.evaluate(TURNS_RECORDED)
        if st["phase"] in ("over", "match_over") or (
                stop_after_turns and done >= stop_after_turns and page.evaluate(SIDES_THAT_MOVED) == 2):
            return page.evaluate("nardy.state.record")
        if st["phase"] == "opening":
            press_and_wait_for_record(page, "p0")
        elif st["phase"] in ("roll", "doublet"):     # roll (the cube was on offer) / confirm the doublet
            press_and_wait_for_record(page, "p%d" % st["turn"])
        else:
            play_turn(page, rules, zmap, st)
    raise AssertionError("no winner after %d turns" % MAX_TURNS)


def test_a_whole_short_game_is_played_through_the_page(board_page):
    page = board_page
    record = play_game(page, "short")
    assert record["events"][0]["variant"] == "short"
    turns = [e for e in record["events"] if e["k"] == "turn"]
    assert len(turns) >= 14          # a short-nardy game needs at least 7 rolls a side
    page.wait_for_function("nardy.state.record.events.some(e => e.k === 'end')")
    page.wait_for_function("nardy.state.record.events.some(e => e.k === 'reveal')")
    listed = page.locator("#record li").all_text_contents()
    assert any(" wins " in text for text in listed)
    assert len(listed) >= len(turns)
    assert listed[0].startswith("game 1 of Short nardy") and "dice committed: " in listed[0]
    end = next(e for e in record["events"] if e["k"] == "end")
    result = page.locator("#result-line")
    result.wait_for(state="visible")
    assert result.text_content().startswith("%s wins %d point" % (("White", "Black")[end["winner"]], end["points"]))
    assert any(text.startswith("dice seed revealed: ") for text in listed)
    from host_tools.records.export import check_dice
    assert check_dice(page.evaluate("nardy.state.record.events")) is None    # every throw the seed's
    os.makedirs(ARTIFACTS, exist_ok=True)
    page.screenshot(path=os.path.join(ARTIFACTS, "virtual-board-game-over.png"))


def test_the_clock_is_set_from_the_page_and_runs_for_the_side_to_act(board_page):
    page = board_page
    assert page.locator("#clock-line").is_hidden()
    page.fill("#clock-min", "10")
    page.click("#set-clock")
    page.wait_for_function("nardy.state.status.clock && nardy.state.status.clock.reserve === 600000")
    line = page.locator("#clock-line")
    assert line.is_visible() and "White 10:00 · Black 10:00" in line.text_content()
    for _ in range(10):                                  # the opening throw (again on a tie)
        press_and_wait_for_record(page, "p0")
        page.wait_for_function("nardy.state.status.seal === nardy.state.record.head")
        if status(page)["phase"] != "opening":
            break
    page.wait_for_function("nardy.state.status.clock.running >= 0")   # a side must act
    side = ("White", "Black")[page.evaluate("nardy.state.status.clock.running")]
    page.wait_for_function("(s) => document.getElementById('clock-line').textContent"
                           ".includes(s + \"'s clock runs (delay\")", arg=side)
    page.fill("#clock-min", "0")
    page.click("#set-clock")
    page.wait_for_function("nardy.state.status.clock.reserve === 0")
    assert line.is_hidden()


@pytest.mark.parametrize("variant", ["long", "persian", "jacquet", "matador", "backgammon"])
def test_each_variant_is_chosen_set_out_and_played_from_the_page(board_page, variant):
    page = board_page
    record = play_game(page, variant, stop_after_turns=4)
    assert record["events"][0]["variant"] == variant
    assert page.locator("#variant").input_value() == variant
    turns = [e for e in record["events"] if e["k"] == "turn"]
    assert len(turns) >= 4 and {t["side"] for t in turns} == {0, 1}


@pytest.mark.micropython
def test_live_view_follows_a_board_on_a_serial_port(browser, fake_board, tmp_path):
    from test_web_hub import BOARD_MAIN      # a board that says hello, answers status and export
    with open(os.path.join(fake_board.root, "main.py"), "w") as f:
        f.write(BOARD_MAIN)
    mpremote = os.path.join(os.path.dirname(sys.executable), "mpremote")
    subprocess.run([mpremote, "connect", fake_board.port, "reset"], check=True, timeout=60)
    deadline = time.monotonic() + 10
    while fake_board.hard_resets < 1:
        assert time.monotonic() < deadline, "the board did not reset"
        time.sleep(0.05)
    proc = subprocess.Popen(
        [sys.executable, "-m", "host_tools", "play", "--port", fake_board.port, "--no-browser",
         "--http-port", "0"], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    first = proc.stdout.readline()
    page = browser.new_page(viewport={"width": 1500, "height": 950}, bypass_csp=True)
    try:
        assert "board on " + fake_board.port in first, first
        page.goto(re.search(r"http://\S+", first).group(0))
        page.wait_for_function("window.nardy && nardy.ready && nardy.state.status !== null")
        assert page.evaluate("document.body.classList.contains('live')")
        assert not page.locator("#setup").is_visible()
        page.wait_for_function("nardy.state.stacks.flat().length === 30")
        assert page.locator("#board text.count").all_text_contents() == ["15", "15"]
        page.wait_for_function("document.querySelectorAll('#record li').length === 3")
        assert page.locator("#status-line").text_content().startswith("Long nardy · White to play 6-5")
        assert page.locator("#readonly").is_visible() and page.locator("#new-game").is_disabled()
    finally:
        page.close()
        stop_play(proc)
