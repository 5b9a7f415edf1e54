// Hands: drag a checker (or two) with mouse or touch, the controls, and the hooks scripts use.
"use strict";

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
  $("export-mat").addEventListener("click", () => exportRecord("mat"));
  $("export-sgf").addEventListener("click", () => exportRecord("sgf"));
  $("fairness").addEventListener("click", () => testDice());
  $("raw").addEventListener("change", (e) => $("log").classList.toggle("raw", e.target.checked));
  $("set-clock").addEventListener("click", () => {
    const min = Number($("clock-min").value) || 0;
    act({ do: "command", line: min > 0 ? `clock ${Math.round(min * 60)} 12` : "clock off" });
  });
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
  press(button, ms = PRESS_MS) { return act({ do: "press", button, ms }); },
  command(line) { return act({ do: "command", line }); },
  setup() { return act({ do: "setup" }); },
  newGame,
  exportRecord,
  testDice,
  idle() { return queue; },
  litZones() {
    return Array.from(layers.glow.querySelectorAll("[data-lit='1']")).map((r) => +r.getAttribute("data-glow"));
  },
};
