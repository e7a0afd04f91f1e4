// Countdowns to a deadline: every element with data-deadline (an ISO time) inside the page
// shows the time left as m:ss (h:mm:ss past an hour), once a second, and "0:00" once it passed.

export function timeLeft(ms) {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = String(total % 60).padStart(2, "0");
  return hours ? `${hours}:${String(minutes).padStart(2, "0")}:${seconds}` : `${minutes}:${seconds}`;
}

function tick() {
  for (const node of document.querySelectorAll("[data-deadline]")) {
    const ms = new Date(node.dataset.deadline).getTime() - Date.now();
    if (Number.isNaN(ms)) continue;
    const text = timeLeft(ms);
    if (node.textContent !== text) node.textContent = text;
    node.dataset.passed = String(ms <= 0);
  }
}

let timer = null;

/** Show every countdown now and keep them going (one timer for the page). */
export function startCountdowns() {
  tick();
  if (timer === null) timer = setInterval(tick, 1000);
}
