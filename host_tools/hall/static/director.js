// The director's page: every board at a glance, one board live, results and standings, reports.
"use strict";

const TOKEN = new URLSearchParams(location.search).get("t") || "";
const hall = { boards: {}, open: null, round: 1, reports: [] };

function api(path, options = {}) {
  const headers = Object.assign({ "X-Nardy-Token": TOKEN }, options.headers || {});
  return fetch(path, Object.assign({}, options, { headers, cache: "no-store" }));
}

function act(body) {
  return api("/api/act", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) })
    .then((r) => r.json());
}

// ---- the clocks: the running side's reserve counts down from the status's moment ----------------
function clockLeft(clock, side) {
  if (!clock || !clock.reserve) return null;
  let left = clock.left[side];
  if (clock.running === side && clock.at) {
    const spent = Date.now() / 1000 - clock.at;
    left -= Math.max(0, spent * 1000 - (clock.delay_left || 0));
  }
  return Math.max(0, left);
}

function clockCell(b, side) {
  const left = clockLeft(b.clock, side);
  return left === null ? "" : SIDE_NAME[side][0] + " " + clockText(left);
}

// ---- the grid -----------------------------------------------------------------------------------------
function card(b) {
  let c = document.querySelector(`.card[data-board="${b.id}"]`);
  if (!c) {
    c = html("div", { class: "card", "data-board": b.id }, $("grid"));
    c.addEventListener("click", () => openBoard(b.id));
  }
  c.className = "card" + (b.needs.length ? " needs" : "") + (b.conn.on ? "" : " off");
  c.innerHTML = "";
  const top = html("div", { class: "top" }, c);
  html("span", { class: "dot" + (b.conn.on ? " on" : ""), title: b.conn.on ? "connected (" + (b.conn.via || "") + ")" : "not connected" }, top);
  html("span", { class: "id" }, top, b.id);
  html("span", {}, top, b.variant || "");
  const svg = el("svg", { class: "thumb" }, c);
  drawHallBoard(svg, b.stacks, false);
  const l1 = html("div", { class: "line" }, c);
  html("span", { class: "score" }, l1, b.score ? `${b.score[0]}-${b.score[1]}` + (b.match_to ? ` / ${b.match_to}` : "") : "");
  html("span", {}, l1, b.phase ? `${b.phase}${b.turn !== null && b.turn !== undefined ? " · " + SIDE_NAME[b.turn] : ""}` : "");
  const l2 = html("div", { class: "line" }, c);
  for (const side of [0, 1]) html("span", { class: "clock" + (b.clock && b.clock.running === side ? " running" : ""), "data-side": side }, l2, clockCell(b, side));
  html("span", { class: "lines" }, l2, b.serial ? `game ${b.serial} · ${b.lines} lines` : "");
  for (const why of b.needs) html("div", { class: "alert" }, c, why);
  if (b.rejected) html("div", { class: "alert" }, c, `${b.rejected} line(s) rejected`);
}

// The stream and a snapshot travel apart: a snapshot taken before the stream's latest news of
// a board may arrive after it, and must not put the board back as it was.
function newer(b) {
  const had = hall.boards[b.id];
  return !had || !(had.rev > b.rev);
}

function renderCounts(s) {
  const c = s.counts;
  $("counts").textContent = `${s.boards.length} boards · lines ${c.accepted} kept, ${c.duplicates} duplicates, ${c.rejected} rejected · games ${c.games_complete} complete, ${c.games_broken} broken · ${c.wants} asked again`;
}

function refresh() {
  return api("/api/state").then((r) => r.json()).then((s) => {
    $("hall-name").textContent = "Hall " + s.hall;
    if (document.activeElement !== $("round")) $("round").value = s.round;
    hall.round = s.round;
    hall.reports = s.reports;
    renderCounts(s);
    for (const b of s.boards) if (newer(b)) { hall.boards[b.id] = b; card(b); }
    renderReports();
  });
}

// ---- one board live --------------------------------------------------------------------------------------
function openBoard(id) {
  hall.open = id;
  show("live");
  loadBoard();
}

function loadBoard() {
  const id = hall.open;
  if (!id) return;
  api("/api/board?id=" + encodeURIComponent(id)).then((r) => r.json()).then((b) => {
    if (hall.open !== id) return;
    $("live-title").textContent = `${b.id} · ${b.variant || ""} · ${b.conn.on ? "connected" : "not connected"}`;
    drawHallBoard($("live-board"), b.stacks, true);
    const now = $("live-now");
    now.innerHTML = "";
    html("div", {}, now, `phase ${b.phase || "?"}${b.turn !== null && b.turn !== undefined ? ", " + SIDE_NAME[b.turn] + " to act" : ""}${b.dice && b.dice.length ? ", dice " + b.dice.join("-") : ""}`);
    html("div", {}, now, b.score ? `score ${b.score[0]}-${b.score[1]} in a match to ${b.match_to}, game ${b.game}` : "");
    html("div", {}, now, `clock ${clockCell(b, 0)} ${clockCell(b, 1)}`);
    html("div", {}, now, `sensors: ${b.sensors || "?"}${b.locked ? " · locked" : ""}${b.authenticated === false ? " · OPEN KEY" : ""}`);
    const al = $("live-alerts");
    al.innerHTML = "";
    for (const [at, why] of b.alerts) html("div", { class: "alert" }, al, new Date(at * 1000).toLocaleTimeString() + " " + why);
    const mv = $("live-moves");
    mv.innerHTML = "";
    for (const m of b.moves) html("li", {}, mv, `${SIDE_NAME[m.side]} ${m.dice ? m.dice.join("") : ""}: ${m.play}`);
    mv.scrollTop = mv.scrollHeight;
    const gt = $("live-games");
    gt.innerHTML = "<tr><th>game</th><th>round</th><th>state</th><th>lines</th><th>result</th></tr>";
    for (const g of b.games_list) {
      const tr = html("tr", {}, gt);
      html("td", {}, tr, g.serial); html("td", {}, tr, g.round); html("td", {}, tr, g.state); html("td", {}, tr, g.lines);
      html("td", {}, tr, g.result ? `${SIDE_NAME[g.result.winner] || "?"} +${g.result.points} (${g.result.how})` : (g.notes || []).join("; "));
    }
    const ev = $("live-events");
    ev.innerHTML = "";
    for (const [at, e] of b.events) html("li", {}, ev, new Date(at * 1000).toLocaleTimeString() + " " + (e.ev || e.t) + " " + JSON.stringify(Object.fromEntries(Object.entries(e).filter(([k]) => !["t", "ev"].includes(k)))).slice(0, 120));
  });
}

// ---- results and reports -----------------------------------------------------------------------------------
function table(t, cols, rows) {
  t.innerHTML = "";
  const head = html("tr", {}, t);
  for (const c of cols) html("th", {}, head, c);
  for (const r of rows) {
    const tr = html("tr", {}, t);
    for (const c of cols) html("td", {}, tr, Array.isArray(r[c]) ? r[c].join("-") : (r[c] === null || r[c] === undefined ? "" : r[c]));
  }
}

function loadResults() {
  $("csv").href = "/api/results.csv?t=" + encodeURIComponent(TOKEN);
  api("/api/results").then((r) => r.json()).then((res) => {
    table($("standings"), ["player", "games", "wins", "points", "against"], res.standings);
    table($("results-table"), ["round", "board", "serial", "variant", "white", "black", "winner", "points", "how", "score"], res.games);
  });
}

function renderReports() {
  table($("reports-table"), ["when", "board", "kind", "why"], hall.reports.map((r) => Object.assign({}, r, { when: new Date(r.at * 1000).toLocaleTimeString() })));
}

// ---- navigation, actions, the stream -------------------------------------------------------------------------
function show(which) {
  for (const s of ["boards", "live", "results", "reports"]) $(s).classList.toggle("hidden", s !== which);
  for (const t of ["boards", "results", "reports"]) $("tab-" + t).classList.toggle("on", t === which || (t === "boards" && which === "live"));
  if (which !== "live") hall.open = null;
  if (which === "results") loadResults();
}

$("tab-boards").addEventListener("click", () => show("boards"));
$("tab-results").addEventListener("click", () => show("results"));
$("tab-reports").addEventListener("click", () => { show("reports"); refresh(); });
$("back").addEventListener("click", () => show("boards"));
$("set-round").addEventListener("click", () => act({ do: "round", n: +$("round").value }).then(refresh));
$("clear").addEventListener("click", () => act({ do: "clear", board: hall.open }).then(loadBoard));
$("seat").addEventListener("click", () => act({ do: "seat", round: hall.round, board: hall.open, white: $("white").value, black: $("black").value })
  .then((a) => { $("seat-answer").textContent = a.ok ? "seated for round " + hall.round : a.why; }));
$("export").addEventListener("click", () => act({ do: "export", round: hall.round })
  .then((a) => { $("export-answer").textContent = a.ok ? `${a.files.length} file(s) in ${a.folder}` : a.why; }));

function listen() {
  const es = new EventSource("/api/stream?t=" + encodeURIComponent(TOKEN));
  es.onopen = () => { $("link").textContent = "live"; $("link").classList.remove("down"); refresh(); };
  es.onerror = () => { $("link").textContent = "reconnecting"; $("link").classList.add("down"); };
  es.onmessage = (e) => {
    const msg = JSON.parse(e.data);
    if (msg.t === "board") {
      if (!newer(msg.board)) return;
      hall.boards[msg.board.id] = msg.board;
      renderCounts({ counts: msg.counts, boards: Object.values(hall.boards) });
      card(msg.board);
      if (hall.open === msg.board.id) loadBoard();
    } else if (msg.t === "report") {
      hall.reports.unshift({ at: Date.now() / 1000, board: msg.board, kind: msg.kind, why: msg.why });
      renderReports();
    }
  };
}

setInterval(() => {
  for (const c of document.querySelectorAll(".card .clock")) {
    const b = hall.boards[c.parentNode.parentNode.getAttribute("data-board")];
    if (b) c.textContent = clockCell(b, +c.getAttribute("data-side"));
  }
}, 500);

refresh().then(listen);
