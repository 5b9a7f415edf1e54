// The virtual board page: follows the board's stream and starts everything.
"use strict";

// ---- the stream ------------------------------------------------------------------------------------------
function take(msg) {
  state.lines++;
  switch (msg.t) {
    case "snapshot":
      state.mode = msg.mode;
      state.director = msg.mode === "live" && msg.director === true;
      document.body.classList.toggle("live", msg.mode === "live");
      // a real board: read-only, unless the page acts as the director (play --keys)
      $("readonly").hidden = msg.mode !== "live" || state.director;
      $("director").hidden = !state.director;
      for (const c of $("controls").querySelectorAll("button, select, input")) c.disabled = msg.mode === "live" && !state.director;
      $("link").textContent = msg.link + (msg.link_up ? "" : " (not connected)");
      $("link").classList.toggle("down", !msg.link_up);
      state.status = msg.status; state.statusAt = performance.now(); state.leds = msg.leds; state.record = msg.record;
      state.view = msg.view;
      if (msg.checkers) { state.stacks = msg.checkers.stacks; state.hand = msg.checkers.hand; }
      $("log").innerHTML = "";
      msg.log.forEach(addLog);
      renderStatus(); renderView(); renderLeds(); renderCheckers();
      break;
    case "leds": state.leds = msg.rgb; renderLeds(); break;
    case "status": state.status = msg; state.statusAt = performance.now(); renderStatus(); break;
    case "view": state.view = msg; renderView(); break;
    case "checkers": state.stacks = msg.stacks; state.hand = msg.hand; renderCheckers(); break;
    case "record": state.record = msg; renderRecord(); break;
    case "log": addLog(msg); break;
    case "link":
      $("link").textContent = msg.what + " (disconnected)";
      $("link").classList.add("down");
      break;
    case "ev": noteSensed(msg); break;
    default: break;          // every other line reaches the event list as a "log" entry
  }
}

function connect() {
  const es = new EventSource("/api/stream?t=" + encodeURIComponent(TOKEN));
  es.onmessage = (e) => take(JSON.parse(e.data));
  es.onerror = () => { $("link").classList.add("down"); };
}

api("/api/board").then((r) => r.json().then((body) => {
  if (!r.ok) throw new Error(body.answer ? body.answer.msg : r.statusText);
  return body;
})).then((board) => {
  state.board = board;
  drawBoard();
  wireControls();
  connect();
  window.nardy.ready = true;
}).catch((e) => {
  $("link").textContent = "cannot show the board: " + e.message;
  $("link").classList.add("down");
});
