"""The page explains itself, in Debian's chromium: flags and refusals with their reasons, result lines, the export download into gnubg, the dice self-test plot."""

import json
import os
import re

import pytest

from firmware.board.zonemap import ZoneMap
from firmware.rules import Position, Turn, get_rules
from host_tools.records import export as ex
from host_tools.web import fairness, words
from test_export import GNUBG, _gnubg
from test_web_browser import (ARTIFACTS, board_page, browser, play_game,  # noqa: F401 (fixtures)
                              press_and_wait_for_record, status, wait_for_phase)

pytestmark = pytest.mark.browser


def shot(page, name, locator=None):
    os.makedirs(ARTIFACTS, exist_ok=True)
    path = os.path.join(ARTIFACTS, name)
    if locator is None:
        page.screenshot(path=path)
    else:
        locator.scroll_into_view_if_needed()
        locator.screenshot(path=path)


def command(page, line):
    return page.evaluate("(l) => nardy.command(l)", line)


def new_game(page, variant):
    page.evaluate("(v) => nardy.newGame(v)", variant)
    page.wait_for_function(
        "(v) => nardy.state.status.variant === v && nardy.state.status.phase !== 'setup'"
        " && nardy.state.stacks.flat().length === 30", arg=variant, timeout=10000)


def flag_an_unfinished_play(page):
    """Referee mode, manual dice, White throws 5-2 and plays only the 5, then presses: flagged."""
    for line in ("mode referee", "dice manual", "roll 5 2"):
        assert command(page, line)["ok"], line
    st = wait_for_phase(page, "move")
    assert st["turn"] == 0
    rules = get_rules("short")
    zmap = ZoneMap(rules)
    turn = Turn(rules, Position.parse(st["position"]), (5, 2))
    src, dst = next((p, t) for p in range(24, 0, -1) for t, die in turn.targets(p) if die == 5)
    page.evaluate("([a, b]) => nardy.drag(a, b)", [zmap.zone(0, src), zmap.zone(0, dst)])
    page.wait_for_function("nardy.state.status.dice_left.length === 1")
    page.evaluate("nardy.press('p0')")
    return wait_for_phase(page, "flagged")


def test_a_referee_flag_shows_its_reason_next_to_the_board(board_page):
    page = board_page
    flag_an_unfinished_play(page)
    notice = page.locator("#notice")
    notice.wait_for(state="visible")
    flag = next(m for m in (json.loads(r) for r in page.locator("#log li .raw").all_text_contents()
                            if r.startswith("{")) if m.get("ev") == "illegal")
    assert flag["reason"].startswith("it plays 1 die, but 2 can be played")
    assert notice.text_content() == "illegal: %s. White must correct the play" % flag["reason"]
    # the status line followed the flag (it used to go on saying "White to play")
    page.wait_for_function("document.getElementById('status-line').textContent.includes('is illegal')")
    assert page.locator("#status-line").text_content() == \
        "Short nardy (tric-trac) · White's play 5-2 is illegal: correct it"
    listed = page.locator("#log li .words").all_text_contents()
    assert any(t.startswith("illegal: " + flag["reason"]) for t in listed)
    shot(page, "explain-referee-flag.png")
    # the raw protocol behind the toggle
    assert not page.locator("#log li .raw").first.is_visible()
    page.check("#raw")
    raw = page.locator("#log li .raw").all_text_contents()
    assert any('"ev":"illegal"' in r and '"what":"incomplete"' in r for r in raw)
    assert not page.locator("#log li .words").first.is_visible()
    page.uncheck("#raw")


def test_a_refused_press_shows_its_reason(board_page):
    page = board_page
    flag_an_unfinished_play(page)
    page.evaluate("nardy.press('p1')")         # Black tries to let the play stand
    page.wait_for_function("document.getElementById('notice').textContent.startsWith('refused')")
    assert page.locator("#notice").text_content() == \
        "refused, condoning the play: illegal plays must be corrected (condone off)"
    assert status(page)["phase"] == "flagged"   # nothing changed
    shot(page, "explain-refused-press.png")


def largest_resignation(page, rules):
    """Offer the largest resignation the board takes in this variant; returns its level."""
    for level in sorted(words.level_names(rules), reverse=True):
        if command(page, "resign %d" % level)["ok"]:
            return level
    raise AssertionError("no resignation was taken")


@pytest.mark.parametrize("variant", ["backgammon", "short", "long", "persian", "jacquet", "matador"])
def test_a_result_line_names_the_winner_the_points_and_why(board_page, variant):
    page = board_page
    rules = get_rules(variant)
    new_game(page, variant)
    assert command(page, "dice manual")["ok"]
    assert command(page, "roll 6 1")["ok"]
    st = wait_for_phase(page, "move", "roll")        # long nardy throws again after the opening
    loser = st["turn"]
    level = largest_resignation(page, rules)
    wait_for_phase(page, "resign")
    page.wait_for_function("document.getElementById('status-line').textContent.includes('offers to resign')")
    offer = page.locator("#status-line").text_content()
    assert "%s offers to resign %s" % (words.SIDES[loser], words.resign_words(rules, level)) in offer
    assert command(page, "resign accept")["ok"]
    wait_for_phase(page, "over", "match_over")
    result = page.locator("#result-line")
    result.wait_for(state="visible")
    want = words.result_words(rules, 1 - loser, level, "resign")
    assert result.text_content().startswith(want)
    assert "resigned" in want and ("%d point" % level) in want
    if variant == "backgammon":
        shot(page, "explain-result-resign.png")


def test_a_time_out_result(board_page):
    page = board_page
    assert command(page, "clock 1 0")["ok"]
    press_and_wait_for_record(page, "p0")                 # the opening throw: a clock runs
    result = page.locator("#result-line")
    result.wait_for(state="visible", timeout=15000)
    st = status(page)
    assert st["phase"] in ("over", "match_over")
    assert re.fullmatch(r"(White|Black) wins \d+ points?: (White|Black)'s time ran out "
                        r"\(the points still needed for the match\)(, and the match)?", result.text_content())
    shot(page, "explain-result-time.png")


def test_the_export_download_imports_into_gnubg(board_page, tmp_path):
    page = board_page
    play_game(page, "backgammon", stop_after_turns=2)
    assert command(page, "resign 1")["ok"]
    assert command(page, "resign accept")["ok"]
    wait_for_phase(page, "over", "match_over")
    page.wait_for_function("nardy.state.record.events.some(e => e.k === 'end')")
    record = page.evaluate("nardy.state.record")
    saved = {}
    for fmt in ("mat", "sgf"):
        with page.expect_download() as dl:
            page.click("#export-" + fmt)
        path = tmp_path / dl.value.suggested_filename
        dl.value.save_as(path)
        assert path.suffix == "." + fmt
        assert path.read_text() == ex.export([record], fmt)[0]
        saved[fmt] = str(path)
    page.wait_for_function("document.getElementById('export-answer').textContent.startsWith('saved ')")
    shot(page, "explain-export.png")
    if not os.path.exists(GNUBG):
        pytest.skip("Debian's gnubg is not installed (%s): sudo scripts/system_deps.sh" % GNUBG)
    end = next(e for e in record["events"] if e["k"] == "end")
    for cmd in ("import mat " + saved["mat"], "load match " + saved["sgf"]):
        said = _gnubg([cmd, "show score"])
        assert "Invalid move" not in said, said
        score = re.findall(r"The score \(after (\d+) games?\) is: White (\d+), Black (\d+)", said)
        assert score and [int(x) for x in score[-1][1:]] == end["score"], said
    # a variant gnubg cannot hold: the exporter's reason, no download
    new_game(page, "long")
    page.click("#export-mat")
    page.wait_for_function("document.getElementById('export-answer').textContent.startsWith('cannot export')")
    said = page.locator("#export-answer").text_content()
    assert "Long nardy" in said and "cannot be written for GNU Backgammon" in said
    shot(page, "explain-export-refused.png", page.locator("#export-answer").locator(".."))


def test_the_dice_self_test_plots_the_faces_thrown(board_page):
    page = board_page
    play_game(page, "short", stop_after_turns=6)
    record = page.evaluate("nardy.state.record")
    want = fairness.self_test([record])
    assert want["n"] >= 12
    page.click("#fairness")
    page.wait_for_function("document.querySelectorAll('#fairness-plot rect.bar').length === 6")
    counts = page.evaluate("Array.from(document.querySelectorAll('#fairness-plot rect.bar'))"
                           ".map(r => +r.getAttribute('data-count'))")
    assert counts == want["counts"] == [fairness.thrown_dice([record]).count(f) for f in range(1, 7)]
    heights = page.evaluate("Array.from(document.querySelectorAll('#fairness-plot rect.bar'))"
                            ".map(r => +r.getAttribute('height'))")
    assert [h > 0 for h in heights] == [c > 0 for c in counts]
    assert page.locator("#fairness-plot line.expected").count() == 1
    text = page.locator("#fairness-text").text_content()
    assert text.startswith("%d dice · expected %.1f per face" % (want["n"], want["expected"]))
    assert "p = %.3f" % want["p"] in text
    shot(page, "explain-dice-test.png", page.locator("#fairness").locator(".."))
