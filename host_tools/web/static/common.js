// Shared by the page's scripts: names, the page state, DOM helpers, and the queue of actions.
"use strict";

const SVG_NS = "http://www.w3.org/2000/svg";
const SIDE_NAME = ["White", "Black"];
const ZONE_NAMES = [];
for (let k = 1; k <= 24; k++) ZONE_NAMES.push(String(k));
ZONE_NAMES.push("bar0", "bar1", "off0", "off1");

// A finger's press lasts a good tenth of a second or more; a press the firmware is to see must
// outlast its debounce even when a scan comes late (a busy moment on a loaded host).
const PRESS_MS = 200;

const state = {
  board: null,          // from /api/board (hardware description)
  mode: "sim",
  director: false,      // live view: the page acts as the tournament director (signed commands)
  status: null,
  stacks: [],           // per zone, bottom first: 0 White, 1 Black
  hand: [],
  leds: null,           // hex string, 6 digits per LED (strip order)
  record: null,
  view: null,           // the game in words, from the server (status line, notice, result, record)
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

// ---- the server: every call carries this run's key (the ?t= of the address play printed) -------
const TOKEN = new URLSearchParams(location.search).get("t") || "";
function api(path, options = {}) {
  const headers = Object.assign({ "X-Nardy-Token": TOKEN }, options.headers || {});
  return fetch(path, Object.assign({}, options, { headers, cache: "no-store" }));
}

// ---- actions: one at a time, in order ------------------------------------------------------
let queue = Promise.resolve();
function act(action) {
  const run = () => api("/api/act", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(action) })
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
