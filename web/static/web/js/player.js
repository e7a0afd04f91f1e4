// A player's ratings in each ladder, with the rating history drawn as an inline SVG chart;
// on a guest's page, for organisers, the button that asks for the guest's invitation link.
import { api, ApiError, el } from "./api.js";

const root = document.getElementById("player");
const playerId = root.dataset.player;
const SVG = "http://www.w3.org/2000/svg";
const lang = document.documentElement.lang || undefined;

// The page language's decimal mark ("." in English, "," in French and Spanish).
const DECIMAL = (() => {
  try {
    const part = new Intl.NumberFormat(lang).formatToParts(1.5).find((p) => p.type === "decimal");
    return part ? part.value : ".";
  } catch {
    return ".";
  }
})();

// A rating's change, signed, to a tenth: "+12.3", "-4.0" ("+12,3" in French).
function signedDelta(delta) {
  return `${delta >= 0 ? "+" : ""}${delta.toFixed(1).replace(".", DECIMAL)}`;
}

// A translated sentence whose placeholders may be nodes: "Won v %(opponent)s" with opponent a link.
function fill(text, values) {
  return text.split(/(%\(\w+\)s)/).map((piece) => {
    const name = /^%\((\w+)\)s$/.exec(piece);
    return name && name[1] in values ? values[name[1]] : piece;
  }).filter((piece) => piece !== "");
}

function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  for (const child of children) node.append(child);
  return node;
}

// Oldest first: the rating before the first change, then after each change.
function chart(changes, name) {
  const points = [changes[0].rating_before, ...changes.map((c) => c.rating_after)];
  const width = 640;
  const height = 240;
  const pad = { left: 44, right: 12, top: 12, bottom: 28 };
  const lo = Math.floor((Math.min(...points) - 10) / 50) * 50;
  const hi = Math.ceil((Math.max(...points) + 10) / 50) * 50;
  const x = (i) => pad.left + (i * (width - pad.left - pad.right)) / Math.max(1, points.length - 1);
  const y = (r) => pad.top + ((hi - r) * (height - pad.top - pad.bottom)) / Math.max(1, hi - lo);
  const first = Math.round(points[0]);
  const last = Math.round(points[points.length - 1]);
  const graph = svg("svg", {
    class: "chart", viewBox: `0 0 ${width} ${height}`, role: "img",
    // Translators: a chart's description, e.g. "Rating history in Quick ladder: from 1500 to 1560 over 5 rated matches".
    // The English says "matches" for one as well; write the singular and plural forms of your language.
    "aria-label": interpolate(ngettext("Rating history in %(ladder)s: from %(first)s to %(last)s over %(count)s rated matches",
      "Rating history in %(ladder)s: from %(first)s to %(last)s over %(count)s rated matches", changes.length),
    { ladder: name, first, last, count: changes.length }, true),
  });
  const step = (hi - lo) / 50 > 6 ? 100 : 50;
  for (let r = lo; r <= hi; r += step) {
    graph.append(svg("line", { class: "gridline", x1: pad.left, x2: width - pad.right, y1: y(r), y2: y(r) }));
    const label = svg("text", { x: pad.left - 6, y: y(r) + 4, "text-anchor": "end" });
    label.textContent = String(r);
    graph.append(label);
  }
  graph.append(svg("line", { class: "axis", x1: pad.left, x2: pad.left, y1: pad.top, y2: height - pad.bottom }));
  graph.append(svg("line", { class: "axis", x1: pad.left, x2: width - pad.right, y1: height - pad.bottom, y2: height - pad.bottom }));
  const caption = svg("text", { x: width - pad.right, y: height - 8, "text-anchor": "end" });
  // Translators: the chart's horizontal axis, with the number of rated matches.
  caption.textContent = interpolate(gettext("rated matches (%(count)s)"), { count: changes.length }, true);
  graph.append(caption);
  graph.append(svg("polyline", { class: "line", points: points.map((r, i) => `${x(i)},${y(r)}`).join(" ") }));
  changes.forEach((c, i) => {
    const dot = svg("circle", { class: `dot${c.won ? "" : " loss"}`, cx: x(i + 1), cy: y(c.rating_after), r: 4 });
    const title = svg("title");
    const values = { opponent: c.opponent.name, before: Math.round(c.rating_before), after: Math.round(c.rating_after), delta: signedDelta(c.delta) };
    title.textContent = c.won
      // Translators: a rated match won, its rating before and after, and the change, e.g. "Won v Ann: 1500 → 1512 (+12.0)".
      ? interpolate(gettext("Won v %(opponent)s: %(before)s → %(after)s (%(delta)s)"), values, true)
      : interpolate(gettext("Lost v %(opponent)s: %(before)s → %(after)s (%(delta)s)"), values, true);
    dot.append(title);
    graph.append(dot);
  });
  return graph;
}

async function history(ladder) {
  const changes = [];
  let url = `/api/ladders/${ladder.id}/ratings/${playerId}/history?page_size=100`;
  for (let pages = 0; url && pages < 5; pages += 1) {
    const { data } = await api(url);
    changes.push(...data.results);
    url = data.next;
  }
  return changes.reverse();
}

async function ladderBlock(ladder) {
  let rating;
  try {
    ({ data: rating } = await api(`/api/ladders/${ladder.id}/ratings/${playerId}`));
  } catch {
    return null; // not rated in this ladder
  }
  const changes = await history(ladder);
  const block = el("section", { class: "panel", "aria-label": ladder.name },
    el("h3", {}, el("a", { href: `/leaderboard?ladder=${ladder.id}` }, ladder.name)),
    el("p", { class: "rating-line" },
      el("strong", {}, String(Math.round(rating.rating))), rating.provisional ? " " + gettext("(provisional)") : "",
      " · " + interpolate(gettext("peak %(peak)s"), { peak: Math.round(rating.peak) }, true) + " · " +
      // Translators: wins–losses in a number of rated matches, e.g. "7–3 in 10 rated matches". The English says "matches" for one as well.
      interpolate(ngettext("%(wins)s–%(losses)s in %(count)s rated matches", "%(wins)s–%(losses)s in %(count)s rated matches", rating.matches_played),
        { wins: rating.wins, losses: rating.losses, count: rating.matches_played }, true),
      rating.rank ? " · " + interpolate(gettext("rank %(rank)s"), { rank: rating.rank }, true) : ""));
  if (changes.length) {
    block.append(chart(changes, ladder.name));
    const recent = changes.slice(-5).reverse().map((c) => {
      const opponent = el("a", { href: `/players/${c.opponent.id}` }, c.opponent.name);
      return el("li", {},
        // Translators: a recent rated match, then its rating change, e.g. "Won v Ann (+12.0) · match".
        fill(c.won ? gettext("Won v %(opponent)s") : gettext("Lost v %(opponent)s"), { opponent }),
        ` (${signedDelta(c.delta)}) · `,
        // Translators: a link to a match's page.
        el("a", { href: `/matches/${c.match}` }, pgettext("link", "match")));
    });
    block.append(el("ul", { class: "plain recent-changes" }, ...recent));
  } else {
    block.append(el("p", { class: "meta" }, gettext("No rated match yet.")));
  }
  return block;
}

async function start() {
  const box = document.getElementById("ratings");
  let ladders = [];
  try {
    const { data } = await api("/api/ladders?page_size=100");
    ladders = data.results || data;
  } catch {
    box.replaceChildren(el("p", { class: "meta" }, gettext("Ratings are not available.")));
    return;
  }
  // Only the ladders the player has a rating in (the page names them): no 404 for the rest.
  const rated = new Set((document.getElementById("player").dataset.ratedLadders || "").split(" ").filter(Boolean).map(Number));
  ladders = ladders.filter((ladder) => rated.has(ladder.id));
  const blocks = (await Promise.all(ladders.map(ladderBlock))).filter(Boolean);
  box.replaceChildren(...(blocks.length ? blocks : [el("p", { class: "empty" }, gettext("Not rated in any ladder yet."))]));
}

// The link is asked for on a click only: each one is a new signed link.
async function invite() {
  const box = document.getElementById("invitation");
  box.hidden = false;
  try {
    const { data } = await api(`/api/players/${playerId}/invitation`, { method: "POST" });
    const until = new Date(data.expires_at).toLocaleDateString(lang);
    // The whole link as text: it wraps on a phone and prints in full.
    const link = el("a", { href: data.url, class: "invitation-url", id: "invitation-url" }, data.url);
    const copy = el("button", { type: "button", class: "button" }, gettext("Copy"));
    copy.addEventListener("click", async () => {
      try {
        await navigator.clipboard.writeText(data.url);
        copy.textContent = gettext("Copied");
      } catch {
        copy.textContent = gettext("Select the link to copy it");
      }
    });
    box.replaceChildren(link, " ", copy, el("small", { class: "help" },
      // Translators: under a guest's invitation link; date is when it expires.
      " " + interpolate(gettext("Works once, until %(date)s. Send it, or print this page."), { date: until }, true)));
  } catch (error) {
    box.replaceChildren(el("span", { class: "error", role: "alert" }, error instanceof ApiError ? error.message : gettext("The link could not be made.")));
  }
}

start();
const inviteButton = document.getElementById("invite");
if (inviteButton) inviteButton.addEventListener("click", invite);
