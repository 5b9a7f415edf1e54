// Where everything sits on the drawn board (SVG units): points, bar, trays, slots, LEDs, dice, buttons.
"use strict";

const Layout = (() => {
  const POINT_W = 80, TOP = 30, BOTTOM = 770, MID = 400;
  const LEFT_X = 40, BAR_X = 520, RIGHT_X = 600, TRAY_X = 1100, TRAY_W = 80;
  const SLOT_PITCH = 66, FIRST_SLOT = 34, RADIUS = 31, POINT_LEN = 330;
  const TRAY_LEN = 340, TRAY_CHECKER = 20;
  const ZONES = 28;   // firmware/board/zonemap.py ZONES: 24 points, two bars, two trays

  // Triangles k 1..24 (zones 0..23): White's home (k 1..6) bottom right, k 12 bottom left,
  // k 13 top left, k 24 top right; the bar between the halves; the trays on the right.
  function zone(z) {
    if (z < 24) {
      const k = z + 1;
      let x, top;
      if (k <= 6) { x = RIGHT_X + (6 - k) * POINT_W; top = false; }
      else if (k <= 12) { x = LEFT_X + (12 - k) * POINT_W; top = false; }
      else if (k <= 18) { x = LEFT_X + (k - 13) * POINT_W; top = true; }
      else { x = RIGHT_X + (k - 19) * POINT_W; top = true; }
      return { kind: "point", k, x, w: POINT_W, base: top ? TOP : BOTTOM, dir: top ? 1 : -1, top };
    }
    if (z < 26) {   // bar0 (White's) bottom half, bar1 (Black's) top half
      const top = z === 25;
      return { kind: "bar", x: BAR_X, w: RIGHT_X - BAR_X, base: top ? TOP : BOTTOM, dir: top ? 1 : -1, top };
    }
    const top = z === 27;   // off0 (White's tray) bottom, off1 top
    return { kind: "tray", x: TRAY_X, w: TRAY_W, base: top ? TOP : BOTTOM, dir: top ? 1 : -1, top };
  }

  // centre of the checker standing in slot j (0 = at the outer edge)
  function slot(z, j) {
    const g = zone(z);
    if (g.kind === "tray") return { x: g.x + g.w / 2, y: g.base + g.dir * (TRAY_CHECKER / 2 + 2 + j * TRAY_CHECKER) };
    return { x: g.x + g.w / 2, y: g.base + g.dir * (FIRST_SLOT + j * SLOT_PITCH) };
  }

  // LED j of a zone (the strip runs along the zone, LED j beside slot j)
  function led(z, j, count) {
    const g = zone(z);
    if (g.kind === "tray") return { x: g.x + 8, y: g.base + g.dir * (40 + j * (TRAY_LEN - 80) / Math.max(1, count - 1)) };
    const s = slot(z, j);
    return { x: g.x + 8, y: s.y };
  }

  // the zone under a point of the drawing, or -1
  function zoneAt(x, y) {
    const top = y < MID;
    if (y < TOP - 10 || y > BOTTOM + 10) return -1;
    if (x >= LEFT_X && x < BAR_X) {
      const col = Math.floor((x - LEFT_X) / POINT_W);
      return top ? 12 + col : 11 - col;
    }
    if (x >= BAR_X && x < RIGHT_X) return top ? 25 : 24;
    if (x >= RIGHT_X && x < RIGHT_X + 6 * POINT_W) {
      const col = Math.floor((x - RIGHT_X) / POINT_W);
      return top ? 18 + col : 5 - col;
    }
    if (x >= TRAY_X && x < TRAY_X + TRAY_W) return top ? 27 : 26;
    return -1;
  }

  const DICE = [{ x: 790, y: MID }, { x: 890, y: MID }];
  const DIE_SIZE = 58;
  // pips in board.json order: top-left, top-right, middle-left, centre, middle-right, bottom-left, bottom-right
  const PIPS = [[-1, -1], [1, -1], [-1, 0], [0, 0], [1, 0], [-1, 1], [1, 1]];
  const BUTTONS = { p0: { x: 1260, y: 690, label: "White" }, p1: { x: 1260, y: 110, label: "Black" }, menu: { x: 1260, y: 400, label: "Menu" } };
  const TURN_LEDS = [{ x: 1260, y: 610 }, { x: 1260, y: 190 }];

  return { zone, slot, led, zoneAt, DICE, DIE_SIZE, PIPS, BUTTONS, TURN_LEDS, RADIUS, POINT_LEN,
           TOP, BOTTOM, MID, LEFT_X, BAR_X, RIGHT_X, TRAY_X, TRAY_W, TRAY_LEN, TRAY_CHECKER, ZONES };
})();
