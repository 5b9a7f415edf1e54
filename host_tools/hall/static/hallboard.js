// Draws a board's position (28 zones of [checkers, side]) as SVG with the local page's geometry (layout.js).
"use strict";

const SVG_NS = "http://www.w3.org/2000/svg";
const SIDE_NAME = ["White", "Black"];
const $ = (id) => document.getElementById(id);

function el(tag, attrs, parent) {
  const e = document.createElementNS(SVG_NS, tag);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (parent) parent.appendChild(e);
  return e;
}

function html(tag, attrs, parent, text) {
  const e = document.createElement(tag);
  for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
  if (text !== undefined) e.textContent = text;
  if (parent) parent.appendChild(e);
  return e;
}

// the board drawn into svg; stacks: [[count, side], ...] per zone (side -1: empty); labels: point numbers
function drawHallBoard(svg, stacks, labels) {
  svg.innerHTML = "";
  svg.setAttribute("viewBox", "0 0 1200 800");
  el("rect", { class: "frame", x: 0, y: 0, width: 1200, height: 800, rx: 14 }, svg);
  el("rect", { class: "felt", x: Layout.LEFT_X, y: Layout.TOP, width: Layout.BAR_X - Layout.LEFT_X, height: Layout.BOTTOM - Layout.TOP }, svg);
  el("rect", { class: "felt", x: Layout.RIGHT_X, y: Layout.TOP, width: 480, height: Layout.BOTTOM - Layout.TOP }, svg);
  el("rect", { class: "bar-felt", x: Layout.BAR_X, y: Layout.TOP, width: Layout.RIGHT_X - Layout.BAR_X, height: Layout.BOTTOM - Layout.TOP }, svg);
  for (let z = 0; z < Layout.ZONES; z++) {
    const g = Layout.zone(z);
    if (g.kind === "point") {
      const tip = g.base + g.dir * Layout.POINT_LEN;
      el("polygon", { class: "point " + (z % 2 ? "light" : "dark"), points: `${g.x},${g.base} ${g.x + g.w},${g.base} ${g.x + g.w / 2},${tip}` }, svg);
      if (labels) el("text", { class: "label", x: g.x + g.w / 2, y: g.top ? 22 : 792 }, svg).textContent = g.k;
    } else if (g.kind === "tray") {
      el("rect", { class: "tray", x: g.x, y: g.top ? Layout.TOP : Layout.MID + 30, width: g.w, height: Layout.TRAY_LEN, rx: 6 }, svg);
    }
  }
  if (!stacks) return;
  stacks.forEach(([count, side], z) => {
    if (!count) return;
    const g = Layout.zone(z);
    const cls = "checker " + (side ? "black" : "white");
    if (g.kind === "tray") {
      for (let j = 0; j < Math.min(count, 15); j++) {
        const s = Layout.slot(z, j);
        el("rect", { class: cls, x: s.x - 32, y: s.y - Layout.TRAY_CHECKER / 2 + 1, width: 64, height: Layout.TRAY_CHECKER - 2, rx: 4 }, svg);
      }
      return;
    }
    const shown = Math.min(count, 5);
    for (let j = 0; j < shown; j++) {
      const s = Layout.slot(z, j);
      el("circle", { class: cls, cx: s.x, cy: s.y, r: Layout.RADIUS, "data-zone": z }, svg);
    }
    if (count > shown) {
      const s = Layout.slot(z, shown - 1);
      el("text", { class: "count " + (side ? "on-black" : "on-white"), x: s.x, y: s.y }, svg).textContent = count;
    }
  });
}

// m:ss of a clock in ms
function clockText(ms) {
  if (ms === undefined || ms === null) return "";
  const s = Math.max(0, Math.round(ms / 1000));
  return Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
}
