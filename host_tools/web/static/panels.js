// The side panels: the status line, the event log and the game record.
"use strict";

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
  else if (s.phase === "resign") line += ` · ${who} offers to resign: ${SIDE_NAME[1 - s.turn]} accepts (button) or refuses (Menu)`;
  else if (s.phase === "over") line += " · press a player's button for the next game";
  $("status-line").textContent = line;
  $("score-line").textContent = `score ${s.score[0]}–${s.score[1]}` + (s.match_to > 1 ? ` (match to ${s.match_to})` : "") + ` · game ${s.game} · ${s.mode}, dice ${s.dice_mode}`;
  $("variant").value = s.variant;
  $("mode").value = s.mode;
  $("dice-mode").value = s.dice_mode;
  $("manual-roll").hidden = s.dice_mode !== "manual";
  renderClock();
}

// The tournament clock, counted down between status lines from the board's own figures.
function mmss(ms) {
  const t = Math.ceil(ms / 1000);
  return `${Math.floor(t / 60)}:${String(t % 60).padStart(2, "0")}`;
}

function renderClock() {
  const s = state.status;
  const c = s && s.clock;
  const el = $("clock-line");
  if (!c || !c.reserve) { el.hidden = true; return; }
  const gone = performance.now() - (state.statusAt || 0);
  const left = c.left.slice();
  let delay = 0;
  if (c.running >= 0) {
    delay = Math.max(0, c.delay_left - gone);
    left[c.running] = Math.max(0, left[c.running] - Math.max(0, gone - c.delay_left));
  }
  el.hidden = false;
  el.textContent = `clock: White ${mmss(left[0])} · Black ${mmss(left[1])}` +
    (c.running >= 0 ? ` · ${SIDE_NAME[c.running]}'s clock runs` + (delay > 0 ? ` (delay ${Math.ceil(delay / 1000)} s)` : "") : "");
}
setInterval(renderClock, 250);

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
    else if (ev.k === "game" && ev.dice_commit) text = `dice committed before the game: ${ev.dice_commit.slice(0, 16)}…`;
    else if (ev.k === "commit") text = `new dice seed committed: ${ev.dice_commit.slice(0, 16)}…` + (ev.why ? ` (${ev.why})` : "");
    else if (ev.k === "reveal") text = `dice seed revealed: ${ev.seed.slice(0, 16)}… (python -m host_tools export checks every throw)`;
    else if (ev.k === "clock") text = ev.reserve ? `clock: ${ev.reserve / 60000} min each, ${ev.delay / 1000} s delay` : "clock off";
    else if (ev.k === "time") text = `${SIDE_NAME[ev.side]}'s time ran out`;
    else if (ev.k === "resign") text = `${SIDE_NAME[ev.side]} resigns ${["", "a single", "a gammon", "a backgammon"][ev.level]}`;
    if (text) {
      const li = document.createElement("li");
      li.textContent = text;
      ol.appendChild(li);
    }
  }
  ol.scrollTop = ol.scrollHeight;
  $("seal").textContent = r.head ? "seal " + r.head : "";
}
