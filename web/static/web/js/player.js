// A player's ratings in each ladder, with the rating history drawn as an inline SVG chart;
// on a guest's page, for organisers, the button that asks for the guest's invitation link.
import { api, ApiError, el } from "./api.js";

const root = document.getElementById("player");
const playerId = root.dataset.player;
const SVG = "http://www.w3.org/2000/svg";

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
    "aria-label": `Rating history in ${name}: from ${first} to ${last} over ${changes.length} rated matches`,
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
  caption.textContent = `rated matches (${changes.length})`;
  graph.append(caption);
  graph.append(svg("polyline", { class: "line", points: points.map((r, i) => `${x(i)},${y(r)}`).join(" ") }));
  changes.forEach((c, i) => {
    const dot = svg("circle", { class: `dot${c.won ? "" : " loss"}`, cx: x(i + 1), cy: y(c.rating_after), r: 4 });
    const title = svg("title");
    title.textContent = `${c.won ? "Won" : "Lost"} v ${c.opponent.name}: ${Math.round(c.rating_before)} → ${Math.round(c.rating_after)} (${c.delta >= 0 ? "+" : ""}${c.delta.toFixed(1)})`;
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
      el("strong", {}, String(Math.round(rating.rating))), rating.provisional ? " (provisional)" : "",
      ` · peak ${Math.round(rating.peak)} · ${rating.wins}–${rating.losses} in ${rating.matches_played} rated matches`,
      rating.rank ? ` · rank ${rating.rank}` : ""));
  if (changes.length) {
    block.append(chart(changes, ladder.name));
    const recent = changes.slice(-5).reverse().map((c) => el("li", {},
      `${c.won ? "Won" : "Lost"} v `, el("a", { href: `/players/${c.opponent.id}` }, c.opponent.name),
      ` (${c.delta >= 0 ? "+" : ""}${c.delta.toFixed(1)}) · `, el("a", { href: `/matches/${c.match}` }, "match")));
    block.append(el("ul", { class: "plain recent-changes" }, ...recent));
  } else {
    block.append(el("p", { class: "meta" }, "No rated match yet."));
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
    box.replaceChildren(el("p", { class: "meta" }, "Ratings are not available."));
    return;
  }
  // Only the ladders the player has a rating in (the page names them): no 404 for the rest.
  const rated = new Set((document.getElementById("player").dataset.ratedLadders || "").split(" ").filter(Boolean).map(Number));
  ladders = ladders.filter((ladder) => rated.has(ladder.id));
  const blocks = (await Promise.all(ladders.map(ladderBlock))).filter(Boolean);
  box.replaceChildren(...(blocks.length ? blocks : [el("p", { class: "empty" }, "Not rated in any ladder yet.")]));
}

// The link is asked for on a click only: each one is a new signed link.
async function invite() {
  const box = document.getElementById("invitation");
  box.hidden = false;
  try {
    const { data } = await api(`/api/players/${playerId}/invitation`, { method: "POST" });
    const until = new Date(data.expires_at).toLocaleDateString();
    // The whole link as text: it wraps on a phone and prints in full.
    const link = el("a", { href: data.url, class: "invitation-url", id: "invitation-url" }, data.url);
    const copy = el("button", { type: "button", class: "button" }, "Copy");
    copy.addEventListener("click", async () => {
      try {
        await navigator.clipboard.writeText(data.url);
        copy.textContent = "Copied";
      } catch {
        copy.textContent = "Select the link to copy it";
      }
    });
    box.replaceChildren(link, " ", copy, el("small", { class: "help" }, ` Works once, until ${until}. Send it, or print this page.`));
  } catch (error) {
    box.replaceChildren(el("span", { class: "error", role: "alert" }, error instanceof ApiError ? error.message : "The link could not be made."));
  }
}

start();
const inviteButton = document.getElementById("invite");
if (inviteButton) inviteButton.addEventListener("click", invite);
