// The event page's clock (web/templates/web/event_about.html): every <time data-local-time>
// shows its moment in the reader's own time zone (the server wrote it in UTC, the fallback
// without JavaScript), and every [data-starts-in] counts down to its moment, once a second:
// "in 3 days 4:05:06", "in 4:05:06", then "starting now" once it has passed (the event starts within the
// sweep's few seconds, and the page's live updates show it running).

const local = new Intl.DateTimeFormat(document.documentElement.lang || undefined, {
  weekday: "short", day: "numeric", month: "short", year: "numeric",
  hour: "2-digit", minute: "2-digit", timeZoneName: "short",
});

export function startsIn(ms) {
  if (ms <= 0) return gettext("starting now");
  const total = Math.ceil(ms / 1000);
  const days = Math.floor(total / 86400);
  const hours = Math.floor((total % 86400) / 3600);
  const minutes = String(Math.floor((total % 3600) / 60)).padStart(2, "0");
  const seconds = String(total % 60).padStart(2, "0");
  const clock = `${hours}:${minutes}:${seconds}`;
  // Translators: a countdown, e.g. "in 4:05:06" (hours:minutes:seconds).
  if (!days) return interpolate(gettext("in %(clock)s"), { clock }, true);
  // Translators: a countdown, e.g. "in 3 days 4:05:06" (then hours:minutes:seconds).
  return interpolate(ngettext("in %(days)s day %(clock)s", "in %(days)s days %(clock)s", days), { days, clock }, true);
}

for (const node of document.querySelectorAll("time[data-local-time]")) {
  const when = new Date(node.getAttribute("datetime"));
  if (Number.isNaN(when.getTime())) continue;
  node.title = node.textContent.trim(); // the server's UTC text, on hover
  node.textContent = local.format(when);
}

const countdowns = [...document.querySelectorAll("[data-starts-in]")];

function tick() {
  for (const node of countdowns) {
    const ms = new Date(node.dataset.startsIn).getTime() - Date.now();
    if (Number.isNaN(ms)) continue;
    const text = startsIn(ms);
    if (node.textContent !== text) node.textContent = text;
    node.dataset.passed = String(ms <= 0);
  }
}

if (countdowns.length) {
  tick();
  setInterval(tick, 1000);
}
