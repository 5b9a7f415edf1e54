// The virtual board page: draws the board, follows the board's stream, turns drags and clicks into actions.
"use strict";

const SVG_NS = "http://www.w3.org/2000/svg";
const SIDE_NAME = ["White", "Black"];
const ZONE_NAMES = [];
for (let k = 1; k <= 24; k++) ZONE_NAMES.push(String(k));
ZONE_NAMES.push("bar0", "bar1", "off0", "off1");

const state = {
  board: null,          // from /api/board (hardware description)
  mode: "sim",
  status: null,
  stacks: [],           // per zone, bottom first: 0 White, 1 Black
  hand: [],
  leds: null,           // hex string, 6 digits per LED (strip order)
  record: null,
  actions: 0,           // actions answered
  lines: 0,             // stream messages seen
  dragging: null,
};

const $ = (id) => document.getElementById(id);
function el(tag, attrs, parent) {
  const e = document.createElementNS(SVG_NS, tag);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (parent) parent.appendChild(e);
  return e;
}

// ---- actions: one at a time, in order ------------------------------------------------------
let queue = Promise.resolve();
function act(action) {
  const run = () => fetch("/api/act", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(action) })
    .then((r) => r.json())
    .then((res) => {
      state.actions++;
      const a = res.answer;
      $("answer").textContent = a && a.t === "err" ? a.cmd + ": " + a.msg : "";
      return res;
    });
  queue = queue.then(run, run);
  return queue;
}

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
  for (let z = 0; z < 28; z++) {
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
      const ms = Math.max(40, Math.min(5000, Math.round(performance.now() - downAt)));
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
  const zoneLight = new Array(28).fill(null);
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

// ---- status, log, record ----------------------------------------------------------------------------
function renderStatus() {
  const s = state.status;
  if (!s) return;
  const who = SIDE_NAME[s.turn];
  let line = `${s.variant} · ${s.phase.replace("_", " ")}`;
  if (s.phase === "move") line += ` · ${who} to play ${s.dice.join("-")} (left: ${s.dice_left.join(" ") || "none"})`;
  else if (s.phase === "roll") line += ` · ${who} to roll`;
  else if (s.phase === "setup") line += " · set out the checkers";
  else if (s.phase === "opening") line += s.dice_mode === "manual" ? " · enter the opening throw" : " · press a player's button for the opening throw";
  else if (s.phase === "doublet") line += ` · ${who}: choose the doublet (Menu changes it, your button confirms)`;
  else if (s.phase === "doubled") line += ` · ${SIDE_NAME[1 - s.turn]}: take (your button) or drop (Menu)`;
  else if (s.phase === "flagged") line += ` · ${who}'s turn is illegal: correct it`;
  else if (s.phase === "over") line += " · press a player's button for the next game";
  $("status-line").textContent = line;
  $("score-line").textContent = `score ${s.score[0]}–${s.score[1]}` + (s.match_to > 1 ? ` (match to ${s.match_to})` : "") + ` · game ${s.game} · ${s.mode}, dice ${s.dice_mode}`;
  $("variant").value = s.variant;
  $("mode").value = s.mode;
  $("dice-mode").value = s.dice_mode;
  $("manual-roll").hidden = s.dice_mode !== "manual";
}

function describe(entry) {
  const m = entry.line;
  if (entry.dir === "out") return "> " + m;
  if (m.t === "ev") {
    const rest = Object.keys(m).filter((k) => k !== "t" && k !== "ev").map((k) => `${k}=${JSON.stringify(m[k])}`).join(" ");
    return `${m.ev} ${rest}`;
  }
  if (m.t === "err") return `refused: ${m.cmd}: ${m.msg}`;
  if (m.t === "text") return m.text;
  return JSON.stringify(m);
}

function addLog(entry) {
  const li = document.createElement("li");
  li.textContent = describe(entry);
  if (entry.dir === "out") li.className = "out";
  else if (entry.line && entry.line.t === "err") li.className = "err";
  const log = $("log");
  log.insertBefore(li, log.firstChild);
  while (log.children.length > 300) log.removeChild(log.lastChild);
}

function renderRecord() {
  const ol = $("record");
  ol.innerHTML = "";
  const r = state.record;
  if (!r) return;
  for (const ev of r.events || []) {
    let text = null;
    if (ev.k === "turn") {
      const steps = (ev.steps || []).map((s) => `${s[0]}/${s[1]}${s[3] ? "*" : ""}`).join(" ");
      text = `${SIDE_NAME[ev.side]} ${ev.dice.join("")}: ${steps || "(no move)"}` + (ev.condoned ? " (condoned)" : "");
    } else if (ev.k === "open") text = `opening roll ${ev.dice.join("-")}`;
    else if (ev.k === "choose") text = `doublet chosen: ${ev.value}`;
    else if (ev.k === "cube") text = `cube: ${ev.act}`;
    else if (ev.k === "end") text = `${SIDE_NAME[ev.winner]} wins ${ev.points} (${ev.how}); score ${ev.score.join("–")}`;
    if (text) {
      const li = document.createElement("li");
      li.textContent = text;
      ol.appendChild(li);
    }
  }
  ol.scrollTop = ol.scrollHeight;
  $("seal").textContent = r.head ? "seal " + r.head : "";
}

// ---- the stream ------------------------------------------------------------------------------------------
function take(msg) {
  state.lines++;
  switch (msg.t) {
    case "snapshot":
      state.mode = msg.mode;
      document.body.classList.toggle("live", msg.mode === "live");
      $("link").textContent = msg.link + (msg.link_up ? "" : " (not connected)");
      $("link").classList.toggle("down", !msg.link_up);
      state.status = msg.status; state.leds = msg.leds; state.record = msg.record;
      if (msg.checkers) { state.stacks = msg.checkers.stacks; state.hand = msg.checkers.hand; }
      $("log").innerHTML = "";
      msg.log.forEach(addLog);
      renderStatus(); renderLeds(); renderCheckers(); renderRecord();
      break;
    case "leds": state.leds = msg.rgb; renderLeds(); break;
    case "status": state.status = msg; renderStatus(); break;
    case "checkers": state.stacks = msg.stacks; state.hand = msg.hand; renderCheckers(); break;
    case "record": state.record = msg; renderRecord(); break;
    case "link":
      $("link").textContent = msg.what + " (disconnected)";
      $("link").classList.add("down");
      break;
    case "ok": break;
    case "ev":
      noteSensed(msg);
      addLog({ dir: "in", line: msg });
      break;
    default:
      addLog({ dir: "in", line: msg });
  }
}

function connect() {
  const es = new EventSource("/api/stream");
  es.onmessage = (e) => take(JSON.parse(e.data));
  es.onerror = () => { $("link").classList.add("down"); };
}

// ---- hands: drag a checker (or two) ----------------------------------------------------------------------
function svgPoint(evt) {
  const svg = $("board");
  const pt = svg.createSVGPoint();
  pt.x = evt.clientX; pt.y = evt.clientY;
  return pt.matrixTransform(svg.getScreenCTM().inverse());
}

function lift(zone, n) {
  const stack = state.stacks[zone] || [];
  const sides = stack.slice(-n).reverse();
  const done = sides.map(() => act({ do: "lift", zone }));
  return Promise.all(done).then((res) => ({ sides, ok: res.every((r) => r.ok) }));
}

function place(zone, sides) {
  return Promise.all(sides.map((side) => act({ do: "place", zone, side })));
}

function startDrag(evt) {
  if (state.mode !== "sim" || state.dragging) return;
  const p = svgPoint(evt);
  const zone = Layout.zoneAt(p.x, p.y);
  if (zone < 0 || !(state.stacks[zone] || []).length) return;
  evt.preventDefault();
  const n = (evt.shiftKey || $("two").checked) && state.stacks[zone].length > 1 ? 2 : 1;
  const sides = state.stacks[zone].slice(-n).reverse();
  const drag = { from: zone, sides, ghosts: [], lifted: lift(zone, n) };
  sides.forEach((side, i) => drag.ghosts.push(drawChecker(layers.ghost, p.x + i * 12, p.y + i * 12, side, " ghost")));
  state.dragging = drag;
  $("board").setPointerCapture(evt.pointerId);
}

function moveDrag(evt) {
  const drag = state.dragging;
  if (!drag) return;
  const p = svgPoint(evt);
  drag.ghosts.forEach((g, i) => { g.setAttribute("cx", p.x + i * 12); g.setAttribute("cy", p.y + i * 12); });
}

function endDrag(evt) {
  const drag = state.dragging;
  if (!drag) return;
  state.dragging = null;
  const p = svgPoint(evt);
  let zone = Layout.zoneAt(p.x, p.y);
  if (zone < 0) zone = drag.from;          // dropped off the board: back where it came from
  layers.ghost.innerHTML = "";
  drag.lifted.then((r) => { if (r.ok) place(zone, r.sides); });
}

function wireControls() {
  const svg = $("board");
  svg.addEventListener("pointerdown", startDrag);
  svg.addEventListener("pointermove", moveDrag);
  svg.addEventListener("pointerup", endDrag);
  svg.addEventListener("pointercancel", endDrag);
  $("new-game").addEventListener("click", () => newGame($("variant").value));
  $("setup").addEventListener("click", () => act({ do: "setup" }));
  $("power-cut").addEventListener("click", () => act({ do: "power_cut" }));
  $("mode").addEventListener("change", (e) => act({ do: "command", line: "mode " + e.target.value }));
  $("dice-mode").addEventListener("change", (e) => act({ do: "command", line: "dice " + e.target.value }));
  $("roll").addEventListener("click", () => act({ do: "command", line: `roll ${$("die-a").value} ${$("die-b").value}` }));
}

function newGame(variant) {
  const started = act({ do: "command", line: "new " + variant });
  return state.mode === "sim" ? started.then((r) => (r.ok ? act({ do: "setup" }) : r)) : started;
}

// ---- hooks for scripts and tests: the same actions as the mouse -----------------------------------------------
// A hand takes a while between lifting a checker and putting it down; scripted drags wait until
// the board has sensed the lift (its own "lift" event) before placing, as a hand's pace would.
const sensedWaiters = [];
function whenSensed(kind, zone, timeoutMs = 2000) {
  return new Promise((resolve) => {
    const w = { kind, zone, resolve };
    sensedWaiters.push(w);
    setTimeout(() => { const i = sensedWaiters.indexOf(w); if (i >= 0) { sensedWaiters.splice(i, 1); resolve(false); } }, timeoutMs);
  });
}
function noteSensed(msg) {
  for (let i = sensedWaiters.length - 1; i >= 0; i--) {
    const w = sensedWaiters[i];
    if (w.kind === msg.ev && ZONE_NAMES[w.zone] === String(msg.zone)) { sensedWaiters.splice(i, 1); w.resolve(true); }
  }
}

// A zone holding as many checkers as it has slots reads "full": one more or one less (while
// still full) changes no sensor, so there is nothing to wait for but a hand's pace.
const HAND_PACE_MS = 80;
function sensedOrPace(kind, zone, visible) {
  return visible ? whenSensed(kind, zone) : new Promise((r) => setTimeout(r, HAND_PACE_MS));
}

function scriptedDrag(from, to, n = 1) {
  const slots = state.board.zones.slots;
  const lifted = sensedOrPace("lift", from, state.stacks[from].length - n < slots[from]);
  const placedVisible = state.stacks[to].length < slots[to];
  return lift(from, n).then((r) => {
    if (!r.ok) return r;
    const placed = sensedOrPace("place", to, placedVisible);
    return lifted.then(() => place(to, r.sides)).then(() => placed).then(() => r);
  });
}

window.nardy = {
  state,
  ready: false,
  zoneNames: ZONE_NAMES,
  drag: scriptedDrag,
  lift(zone) { return lift(zone, 1); },
  place(zone, side) { return act({ do: "place", zone, side }); },
  press(button, ms = 80) { return act({ do: "press", button, ms }); },
  command(line) { return act({ do: "command", line }); },
  setup() { return act({ do: "setup" }); },
  newGame,
  idle() { return queue; },
  litZones() {
    return Array.from(layers.glow.querySelectorAll("[data-lit='1']")).map((r) => +r.getAttribute("data-glow"));
  },
};

fetch("/api/board").then((r) => r.json()).then((board) => {
  state.board = board;
  drawBoard();
  wireControls();
  connect();
  window.nardy.ready = true;
});
