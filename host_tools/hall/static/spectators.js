// The spectators' page: the chosen boards, live from the station's views (verified lines only, held back by its delay).
"use strict";

const params = new URLSearchParams(location.search);
let chosen = new Set((params.get("boards") || "").split(",").filter((b) => b));
const views = {};
let source = null;

function viewCard(v) {
  let c = document.querySelector(`.panel[data-board="${v.board}"]`);
  if (!c) c = html("div", { class: "panel", "data-board": v.board }, $("views"));
  c.innerHTML = "";
  html("h2", {}, c, `${v.board} · ${v.title}${v.match_to ? " · match to " + v.match_to + ", game " + v.game : ""}`);
  const svg = el("svg", {}, c);
  drawHallBoard(svg, v.stacks, true);
  const score = html("div", { class: "line" }, c);
  html("span", { class: "score" }, score, `White ${v.score[0]} - ${v.score[1]} Black`);
  if (v.clock) html("span", {}, score, `${clockText(v.clock[0])} / ${clockText(v.clock[1])}`);
  if (v.result) html("div", { class: "result" }, c, `${SIDE_NAME[v.result.winner]} wins ${v.result.points} (${v.result.how})`);
  else if (v.last) html("div", { class: "last" }, c, `${SIDE_NAME[v.last.side]} ${v.last.dice ? v.last.dice.join("") : ""}: ${v.last.play}`);
  const ol = html("ol", { class: "moves", start: Math.max(1, v.turns - v.moves.length + 1) }, c);
  for (const m of v.moves) html("li", {}, ol, `${SIDE_NAME[m.side]} ${m.dice ? m.dice.join("") : ""}: ${m.play}`);
}

function render() {
  $("views").innerHTML = "";
  for (const id of Object.keys(views).sort()) if (!chosen.size || chosen.has(id)) viewCard(views[id]);
}

function choose(boards) {
  const box = $("choose");
  box.innerHTML = "";
  for (const b of boards) {
    const label = html("label", {}, box);
    const cb = html("input", { type: "checkbox", value: b }, label);
    cb.checked = chosen.has(b);
    label.appendChild(document.createTextNode(" " + b));
    cb.addEventListener("change", () => {
      if (cb.checked) chosen.add(b); else chosen.delete(b);
      const q = chosen.size ? "?boards=" + [...chosen].join(",") : "";
      history.replaceState(null, "", location.pathname + q);
      render();
      listen();
    });
  }
}

function load() {
  const q = chosen.size ? "?boards=" + encodeURIComponent([...chosen].join(",")) : "";
  return fetch("/api/views" + q, { cache: "no-store" }).then((r) => r.json()).then((s) => {
    $("hall-name").textContent = "Hall " + s.hall;
    $("delay").textContent = s.delay ? `shown ${s.delay} move(s) behind the boards` : "live";
    choose(s.boards);
    for (const v of s.views) views[v.board] = v;
    render();
  });
}

function listen() {
  if (source) source.close();
  const q = chosen.size ? "?boards=" + encodeURIComponent([...chosen].join(",")) : "";
  source = new EventSource("/api/stream" + q);
  source.onopen = () => { $("link").textContent = "live"; $("link").classList.remove("down"); };
  source.onerror = () => { $("link").textContent = "reconnecting"; $("link").classList.add("down"); };
  source.onmessage = (e) => {
    const msg = JSON.parse(e.data);
    if (msg.t !== "view") return;
    views[msg.view.board] = msg.view;
    if (!chosen.size || chosen.has(msg.view.board)) viewCard(msg.view);
    window.lastView = msg.view;     // the benchmark and tests read what arrived last
  };
}

load().then(listen);
