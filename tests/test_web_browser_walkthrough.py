"""The README's "Your first game" walk-through, played in Debian's chromium on the virtual board:
each step checked as a person sees it and kept as a screenshot (tests/artifacts/first-game-*.png;
with NARDY_DOCS_SHOTS=1 also docs/walkthrough/, where the README shows them)."""

import os
import shutil

import pytest

from firmware.board.zonemap import ZoneMap
from firmware.rules import Position, Turn, get_rules
from test_web_browser import (ARTIFACTS, REPO, board_page, browser,  # noqa: F401 (fixtures)
                              status, wait_for_phase)

pytestmark = pytest.mark.browser
DOCS = os.path.join(REPO, "docs", "walkthrough")


def shot(page, name):
    os.makedirs(ARTIFACTS, exist_ok=True)
    path = os.path.join(ARTIFACTS, name)
    page.screenshot(path=path)
    if os.environ.get("NARDY_DOCS_SHOTS"):
        os.makedirs(DOCS, exist_ok=True)
        shutil.copy(path, os.path.join(DOCS, name))


def line(page):
    return page.locator("#status-line").text_content()


def test_your_first_game(board_page):
    page = board_page
    rules = get_rules("backgammon")
    zmap = ZoneMap(rules)
    # 1. a new game: the checkers are set out, the board waits for the opening throw
    page.evaluate("(v) => nardy.newGame(v)", "backgammon")
    page.wait_for_function("nardy.state.status.variant === 'backgammon' && "
                           "nardy.state.status.phase === 'opening'", timeout=10000)
    page.wait_for_function("document.getElementById('status-line').textContent.includes('opening')")
    assert "press a player's button for the opening throw" in line(page)
    shot(page, "first-game-1-opening.png")
    # 2. a player's button throws one die each (electronic dice: seeded, so always the same)
    page.evaluate("nardy.press('p0')")
    st = wait_for_phase(page, "move")
    side = st["turn"]
    page.wait_for_function("document.getElementById('status-line').textContent.includes('to play')")
    assert line(page).endswith("%s to play %d-%d (dice left: %s)" % (
        ("White", "Black")[side], st["dice"][0], st["dice"][1], " ".join(map(str, st["dice_left"]))))
    words = page.locator("#log li .words").all_text_contents()
    assert any(w.startswith("opening throw: White ") for w in words)
    shot(page, "first-game-2-throw.png")
    # 3. lift a checker: its legal destinations light up
    turn = Turn(rules, Position.parse(st["position"]), tuple(st["dice"]), first_turn=True)
    board = Position.parse(st["position"]).board
    src, dst, die = next((p, t, d) for p in range(25, 0, -1) for t, d in turn.targets(p)
                         if board[side * 26 + t] < 3)
    page.evaluate("(z) => nardy.lift(z)", zmap.zone(side, src))
    page.wait_for_function("[...document.querySelectorAll('#log li .words')].some("
                           "e => e.textContent.startsWith('a checker lifted from point'))",
                           timeout=5000)
    page.wait_for_timeout(300)                # the lit points' frame
    shot(page, "first-game-3-lift.png")
    # 4. put it down on a lit point, then press your button too early: the page says why
    page.evaluate("([z, s]) => nardy.place(z, s)", [zmap.zone(side, dst), side])
    page.wait_for_function("nardy.state.status.dice_left.length === 1", timeout=5000)
    turn.push(src, die)
    page.evaluate("(b) => nardy.press(b)", "p%d" % side)
    notice = page.locator("#notice")
    notice.wait_for(state="visible")
    assert "not complete" in notice.text_content() or "plays 1 die" in notice.text_content()
    shot(page, "first-game-4-too-early.png")
    # 5. finish the play and press: the turn is committed and read in words
    here = turn.position().board         # a point the sensors see whole (not a full stack)
    src2, dst2 = next((p, t) for p in range(25, 0, -1) for t, _ in turn.targets(p)
                      if here[side * 26 + t] < 3)
    page.evaluate("([a, b]) => nardy.drag(a, b)", [zmap.zone(side, src2), zmap.zone(side, dst2)])
    try:
        page.wait_for_function("nardy.state.status.dice_left.length === 0", timeout=5000)
    except Exception:
        raise AssertionError("%s/%s: %s %s" % (src2, dst2, status(page),
                                               page.locator("#log li .words").all_text_contents()[:8]))
    page.evaluate("(b) => nardy.press(b)", "p%d" % side)
    page.wait_for_function("(s) => nardy.state.status.turn !== s && "
                           "nardy.state.status.phase === 'roll'", arg=side, timeout=10000)
    words = page.locator("#log li .words").all_text_contents()
    mover = ("White", "Black")[side]
    assert any(w.startswith(mover + " ") and "/" in w and "takes back" not in w for w in words)
    assert status(page)["turn"] == 1 - side
    page.wait_for_function("document.getElementById('status-line').textContent.includes('to roll')")
    shot(page, "first-game-5-next-turn.png")      # backgammon: the cube first, then the roll
