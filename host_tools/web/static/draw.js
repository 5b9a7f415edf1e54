// Draws the board from the hardware description: points, bar, trays, LEDs, buttons, checkers.
"use strict";

// ---- drawing the board ----------------------------------------------------------------------
let layers = {};
function drawBoard() {
  const svg = $("board");
  svg.innerHTML = "";
  const defs = el("defs", {}, svg);
  const blur = el("filter", { id: "glow", x: "-100%", y: "-100%", width: "300%", height: "300%" }, defs);
  el("feGaussianBlur", { stdDeviation: "5" }, blur);
  el("rect", { class: "frame", x: 0, y: 0, width: 1200, height: 800, rx: 14 }, svg);
  el("rect", { class: "felt", x: Layout.LEFT_X, y: Layout.TOP, width: Layout.BAR_X - Layout.LEFT_X, height: Layout.BOTTOM - Layout.TOP }, svg);
  el("rect", { class: "felt", x: Layout.RIGHT_X, y: Layout.TOP, width: 480, height: Layout.BOTTOM - Layout.TOP }, svg);
  el("rect", { class: "bar-felt", x: Layout.BAR_X, y: Layout.TOP, width: Layout.RIGHT_X - Layout.BAR_X, height: Layout.BOTTOM - Layout.TOP }, svg);
  layers.points = el("g", {}, svg);
  layers.glow = el("g", {}, svg);
  layers.checkers = el("g", {}, svg);
  layers.leds = el("g", {}, svg);
  layers.hit = el("g", {}, svg);
  layers.ghost = el("g", {}, svg);
  for (let z = 0; z < Layout.ZONES; z++) {
    const g = Layout.zone(z);
    if (g.kind === "point") {
      const tip = g.base + g.dir * Layout.POINT_LEN;
      el("polygon", { class: "point " + (z % 2 ? "light" : "dark"), points: `${g.x},${g.base} ${g.x + g.w},${g.base} ${g.x + g.w / 2},${tip}` }, layers.points);
      el("text", { class: "label", x: g.x + g.w / 2, y: g.top ? 18 : 790 }, layers.points).textContent = g.k;
    } else if (g.kind === "tray") {
      const y = g.top ? Layout.TOP : Layout.MID + 30;
      el("rect", { class: "tray", x: g.x, y, width: g.w, height: Layout.TRAY_LEN, rx: 6 }, layers.points);
      el("text", { class: "label", x: g.x + g.w / 2, y: g.top ? 18 : 790 }, layers.points).textContent = z === 26 ? "White off" : "Black off";
    } else {
      el("text", { class: "label", x: g.x + g.w / 2, y: g.top ? 18 : 790 }, layers.points).textContent = "bar";
    }
    const len = g.kind === "tray" ? Layout.TRAY_LEN : 340;
    const y0 = g.top ? g.base : g.base - len;
    el("rect", { class: "glow", "data-glow": z, x: g.x + 4, y: y0, width: g.w - 8, height: len, rx: 10, fill: "none", filter: "url(#glow)" }, layers.glow);
    el("rect", { class: "zone-hit", "data-zone": z, x: g.x, y: y0, width: g.w, height: len }, layers.hit);
  }
  drawLeds();
  drawButtons(svg);
}

function drawLeds() {
  const cfg = state.board.leds;
  layers.ledEls = new Array(cfg.count);
  cfg.zones.forEach(([first, count], z) => {
    for (let j = 0; j < count; j++) {
      const p = Layout.led(z, j, count);
      layers.ledEls[first + j] = el("circle", { class: "led", cx: p.x, cy: p.y, r: 6, "data-led": first + j, "data-zone": z, fill: "#000" }, layers.leds);
    }
  });
  cfg.dice.forEach(([first, count], i) => {
    const c = Layout.DICE[i], s = Layout.DIE_SIZE;
    el("rect", { class: "die", x: c.x - s / 2, y: c.y - s / 2, width: s, height: s, rx: 9 }, layers.points);
    for (let p = 0; p < count; p++) {
      const [dx, dy] = Layout.PIPS[p];
      layers.ledEls[first + p] = el("circle", { class: "led", cx: c.x + dx * 17, cy: c.y + dy * 17, r: 6, "data-led": first + p, "data-die": i, fill: "#000" }, layers.leds);
    }
  });
  cfg.turn.forEach((index, side) => {
    const c = Layout.TURN_LEDS[side];
    layers.ledEls[index] = el("circle", { class: "led", cx: c.x, cy: c.y, r: 12, "data-led": index, "data-turn": side, fill: "#000" }, layers.leds);
  });
}

function drawButtons(svg) {
  for (const name of ["p0", "p1", "menu"]) {
    const b = Layout.BUTTONS[name];
    const c = el("circle", { class: "button " + name, cx: b.x, cy: b.y, r: 38, "data-button": name }, svg);
    el("text", { class: "button-label", x: b.x, y: b.y + 58 }, svg).textContent = b.label;
    let downAt = 0;
    c.addEventListener("pointerdown", (e) => { e.preventDefault(); downAt = performance.now(); c.classList.add("down"); });
    const release = () => {
      if (!downAt) return;
      c.classList.remove("down");
      const ms = Math.max(PRESS_MS, Math.min(5000, Math.round(performance.now() - downAt)));
      downAt = 0;
      act({ do: "press", button: name, ms });
    };
    c.addEventListener("pointerup", release);
    c.addEventListener("pointerleave", release);
  }
}

// ---- LEDs: the frame exactly as driven, shown as light ------------------------------------------
// The strip values already carry the firmware's gamma and brightness cap; the screen shows the
// light they make, scaled so that the cap is full brightness, sRGB-encoded.
function ledColour(hex6) {
  const cap = state.board.brightness_cap || 255;
  const out = [0, 2, 4].map((i) => {
    const v = parseInt(hex6.substr(i, 2), 16);
    return Math.round(255 * Math.pow(Math.min(1, v / cap), 1 / 2.2));
  });
  return `rgb(${out[0]},${out[1]},${out[2]})`;
}

function renderLeds() {
  const hex = state.leds;
  if (!hex || !layers.ledEls) return;
  const zoneLight = new Array(Layout.ZONES).fill(null);
  layers.ledEls.forEach((c, i) => {
    if (!c) return;
    const h = hex.substr(6 * i, 6) || "000000";
    c.setAttribute("data-rgb", h);
    const lit = h !== "000000";
    c.setAttribute("fill", lit ? ledColour(h) : "#000");
    const z = c.getAttribute("data-zone");
    if (lit && z !== null && !zoneLight[z]) zoneLight[z] = ledColour(h);
  });
  layers.glow.querySelectorAll("[data-glow]").forEach((r) => {
    const z = +r.getAttribute("data-glow");
    r.setAttribute("fill", zoneLight[z] || "none");
    r.setAttribute("opacity", zoneLight[z] ? "0.45" : "0");
    r.setAttribute("data-lit", zoneLight[z] ? "1" : "0");
  });
}

// ---- checkers ----------------------------------------------------------------------------------------
function drawChecker(parent, x, y, side, extra) {
  return el("circle", { class: "checker " + (side ? "black" : "white") + (extra || ""), cx: x, cy: y, r: Layout.RADIUS }, parent);
}

function renderCheckers() {
  const layer = layers.checkers;
  layer.innerHTML = "";
  const slotsOf = state.board.zones.slots;
  state.stacks.forEach((stack, z) => {
    const g = Layout.zone(z);
    if (g.kind === "tray") {
      stack.forEach((side, j) => {
        const s = Layout.slot(z, j);
        el("rect", { class: "checker " + (side ? "black" : "white"), x: s.x - 32, y: s.y - Layout.TRAY_CHECKER / 2 + 1, width: 64, height: Layout.TRAY_CHECKER - 2, rx: 4, "data-zone": z }, layer);
      });
      return;
    }
    const shown = Math.min(stack.length, slotsOf[z]);
    for (let j = 0; j < shown; j++) {
      const s = Layout.slot(z, j);
      drawChecker(layer, s.x, s.y, stack[j]).setAttribute("data-zone", z);
    }
    if (stack.length > shown) {
      const s = Layout.slot(z, shown - 1);
      const side = stack[shown - 1];
      el("text", { class: "count " + (side ? "on-black" : "on-white"), x: s.x, y: s.y }, layer).textContent = stack.length;
    }
  });
}
