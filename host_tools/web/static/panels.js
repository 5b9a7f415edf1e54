// The side panels: the status line and notice, the event list, the record, the export, the dice self-test.
// The words come from the server (host_tools/web/words.py); this file only shows them.
"use strict";

// ---- status, notice, result, score, cube and pips -----------------------------------------------------
function renderStatus() {
  const s = state.status;
  if (!s) return;
  $("variant").value = s.variant;
  $("mode").value = s.mode;
  $("dice-mode").value = s.dice_mode;
  $("manual-roll").hidden = s.dice_mode !== "manual";
  renderClock();
}

function renderView() {
  const v = state.view || {};
  $("status-line").textContent = v.line || "…";
  const notice = $("notice");
  notice.hidden = !v.notice;
  notice.textContent = v.notice || "";
  const result = $("result-line");
  result.hidden = !v.result;
  result.textContent = v.result || "";
  $("score-line").textContent = v.score || "";
  const pips = v.pips ? ` · pips: White ${v.pips[0]}, Black ${v.pips[1]}` : "";
  $("game-line").textContent = (v.cube || "") + pips;
  renderRecord();
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

// ---- the event list: words, with the raw protocol line behind the toggle ---------------------------
function rawText(entry) {
  return entry.dir === "out" ? "> " + entry.line : JSON.stringify(entry.line);
}

function addLog(entry) {
  const li = document.createElement("li");
  const words = document.createElement("span");
  words.className = "words";
  words.textContent = entry.words || rawText(entry);
  const raw = document.createElement("span");
  raw.className = "raw";
  raw.textContent = rawText(entry);
  li.append(words, raw);
  if (!entry.words) li.classList.add("raw-only");     // a line a player need not read
  if (entry.dir === "out") li.classList.add("out");
  else if (entry.line && (entry.line.t === "err" || ["illegal", "refused", "mismatch", "time_out"].includes(entry.line.ev))) li.classList.add("err");
  else if (entry.line && ["lift", "place"].includes(entry.line.ev)) li.classList.add("sensed");
  const log = $("log");
  log.insertBefore(li, log.firstChild);
  while (log.children.length > 300) log.removeChild(log.lastChild);
}

// ---- the record, in each mover's own numbering -------------------------------------------------------
function renderRecord() {
  const ol = $("record");
  const lines = (state.view && state.view.record) || [];
  ol.innerHTML = "";
  for (const text of lines) {
    const li = document.createElement("li");
    li.textContent = text;
    ol.appendChild(li);
  }
  ol.scrollTop = ol.scrollHeight;
  const r = state.record;
  $("seal").textContent = r && r.head ? "seal " + r.head : "";
}

// ---- export: the match as gnubg's .mat or SGF --------------------------------------------------------
function exportRecord(fmt) {
  return api("/api/export?format=" + fmt).then((r) => r.json()).then((res) => {
    if (!res.ok) {
      $("export-answer").textContent = "cannot export: " + res.why;
      return res;
    }
    const a = document.createElement("a");
    a.href = URL.createObjectURL(new Blob([res.text], { type: "text/plain" }));
    a.download = res.filename;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 5000);
    $("export-answer").textContent = "saved " + res.filename + (res.warnings.length ? " (" + res.warnings.join("; ") + ")" : "");
    return res;
  });
}

// ---- the dice self-test: a histogram of faces against the expected count -----------------------------
function testDice() {
  return api("/api/fairness").then((r) => r.json()).then((f) => {
    state.fairness = f;
    drawFairness(f);
    return f;
  });
}

function drawFairness(f) {
  const svg = $("fairness-plot");
  svg.innerHTML = "";
  if (!f.n) {
    svg.hidden = true;
    $("fairness-text").textContent = "No electronic dice thrown in this match yet (dice entered by hand are not the board's).";
    return;
  }
  svg.hidden = false;
  const X0 = 40, Y0 = 170, W = 330, H = 140, slot = W / 6;
  const top = Math.max(...f.counts, f.expected) * 1.15;
  const y = (c) => Y0 - (c / top) * H;
  el("line", { class: "axis", x1: X0, y1: Y0, x2: X0 + W, y2: Y0 }, svg);
  el("line", { class: "axis", x1: X0, y1: Y0, x2: X0, y2: Y0 - H }, svg);
  f.counts.forEach((c, i) => {
    const x = X0 + i * slot + slot * 0.18;
    el("rect", { class: "bar", "data-face": i + 1, "data-count": c, x, y: y(c), width: slot * 0.64, height: Y0 - y(c) }, svg);
    el("text", { class: "tick", x: x + slot * 0.32, y: Y0 + 16 }, svg).textContent = i + 1;
    el("text", { class: "tick", x: x + slot * 0.32, y: y(c) - 4 }, svg).textContent = c;
  });
  el("line", { class: "expected", x1: X0, y1: y(f.expected), x2: X0 + W, y2: y(f.expected) }, svg);
  el("text", { class: "tick left", x: X0 - 4, y: y(f.expected) + 4 }, svg).textContent = f.expected.toFixed(1);
  const verdict = f.p < 0.01 ? "unlikely for fair dice: test again with more throws" : "consistent with fair dice";
  $("fairness-text").textContent = `${f.n} dice · expected ${f.expected.toFixed(1)} per face (dashed) · ` +
    `χ² = ${f.chi2.toFixed(2)}, 5 degrees of freedom, p = ${f.p.toFixed(3)}: ${verdict}`;
}
