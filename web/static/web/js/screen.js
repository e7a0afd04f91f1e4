// The screen view for a projector (/events/<id>/screen): one panel at a time (the round's
// pairings by table, the standings, the bracket), the next every ?every= seconds; a dot per
// panel shows which, and picks one. The event's socket (live.js, as the event page uses it)
// says when the event changed: the panels are then read again from the server, which renders
// them as the printed pages do, and the header shows the moment of the update. While the
// socket is not open the panels are read every few seconds instead.
import { connect } from "./live.js";

const root = document.getElementById("screen");
const eventId = root.dataset.event;
const everyMs = Math.max(5, Number(root.dataset.every) || 15) * 1000;
const box = document.getElementById("screen-panels");
const dots = document.getElementById("screen-dots");
const updated = document.getElementById("screen-updated");
const POLL_MS = 10000;
// A projector or a wide screen fits the panel to its height; a phone scrolls down instead.
const WIDE = window.matchMedia("(min-width: 48rem)");
const NAMES = { pairings: gettext("Pairings"), standings: gettext("Standings"), bracket: gettext("Bracket") };

let seq = Number(root.dataset.seq);
let shown = "pairings";
let cycleTimer = null;
let pollTimer = null;
let reading = false;
let readAgain = false;
let updates = 0;

const panels = () => [...box.querySelectorAll(".screen-panel")];
const clock = () => new Date().toLocaleTimeString(document.documentElement.lang || [], { hour: "2-digit", minute: "2-digit", second: "2-digit" });

function drawDots(list) {
  dots.replaceChildren(...list.map((panel) => {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "screen-dot";
    button.textContent = NAMES[panel.dataset.panel] || panel.dataset.panel;
    button.setAttribute("aria-pressed", String(panel.dataset.panel === shown));
    button.addEventListener("click", () => { show(panel.dataset.panel); cycle(); });
    return button;
  }));
}

// The panel's type as large as the screen's height allows, from half its size to 1.6 times
// (the largest that fits, found by halving the interval).
function fit(panel) {
  panel.style.fontSize = "";
  if (!WIDE.matches) return;
  const room = window.innerHeight - panel.getBoundingClientRect().top - 8;
  const fits = (scale) => {
    panel.style.fontSize = `${scale}em`;
    return panel.scrollHeight <= room;
  };
  let [low, high] = [0.5, 1.6];
  if (fits(high)) return;
  for (let i = 0; i < 7; i += 1) {
    const middle = (low + high) / 2;
    if (fits(middle)) low = middle;
    else high = middle;
  }
  fits(low);
}

function show(name) {
  const list = panels();
  if (!list.length) return;
  const target = list.find((panel) => panel.dataset.panel === name) || list[0];
  shown = target.dataset.panel;
  for (const panel of list) panel.hidden = panel !== target;
  root.dataset.panel = shown;
  drawDots(list);
  fit(target);
}

function next() {
  const list = panels();
  const at = list.findIndex((panel) => panel.dataset.panel === shown);
  show(list[(at + 1) % list.length].dataset.panel);
}

function cycle() {
  clearInterval(cycleTimer);
  cycleTimer = setInterval(next, everyMs);
}

function markUpdated() {
  updates += 1;
  root.dataset.updates = String(updates);
  updated.textContent = interpolate(gettext("Updated %(time)s"), { time: clock() }, true);
  updated.classList.remove("fresh");
  void updated.offsetWidth; // the highlight runs again for each update
  updated.classList.add("fresh");
}

// Read the panels again; shown only if newer than those on the screen.
async function reload() {
  if (reading) {
    readAgain = true;
    return;
  }
  reading = true;
  try {
    const response = await fetch(`/events/${eventId}/screen/panels`, {
      headers: { Accept: "text/html" }, credentials: "same-origin", cache: "no-store",
    });
    if (response.ok) {
      const template = document.createElement("template");
      template.innerHTML = await response.text();
      const fresh = template.content.querySelector(".screen-panels");
      if (fresh && Number(fresh.dataset.seq) > seq) {
        seq = Number(fresh.dataset.seq);
        root.dataset.seq = String(seq);
        box.replaceChildren(fresh);
        show(shown);
        markUpdated();
      }
    }
  } catch {
    // the next change, or the next poll, reads them again
  } finally {
    reading = false;
    if (readAgain) {
      readAgain = false;
      reload();
    }
  }
}

function poll() {
  clearTimeout(pollTimer);
  pollTimer = socket.isOpen ? null : setTimeout(async () => { await reload(); poll(); }, POLL_MS);
}

const socket = connect(`/ws/events/${eventId}`);
socket.on("open", () => {
  clearTimeout(pollTimer);
  pollTimer = null;
  root.dataset.live = "socket";
});
socket.on("close", () => {
  root.dataset.live = "polling";
  if (!pollTimer) poll();
});
socket.on("event", (message) => {
  if (message.seq > seq) reload();
});

updated.textContent = interpolate(gettext("As of %(time)s"), { time: clock() }, true);
WIDE.addEventListener("change", () => show(shown));
window.addEventListener("resize", () => {
  const panel = panels().find((p) => !p.hidden);
  if (panel) fit(panel);
});
show(shown);
cycle();
