// Ladder leaderboards: pick a ladder, filter, page through GET /api/ladders/{id}/leaderboard;
// what it takes to be ranked, and the reader's own rank or progress toward one
// (GET /api/ladders/{id}/ratings/{me}, asked only of the ladders they have a rating in).
import { api, ApiError, el, flash, kindTag } from "./api.js";

const params = new URLSearchParams(window.location.search);
const select = document.getElementById("ladder");
const kind = document.getElementById("kind");
const hide = document.getElementById("hide_provisional");
const flashBox = document.getElementById("board-flash");
const summary = document.getElementById("board-summary");

kind.value = params.get("kind") || "";
hide.checked = params.get("hide_provisional") === "true";
let page = Number(params.get("page")) || 1;
const systems = new Map(); // ladder id -> its rating system ("elo", "glicko2")
const rules = new Map(); // ladder id -> {min_matches, active_days}: who is ranked
const pageRoot = document.getElementById("leaderboard-page");
const me = pageRoot.dataset.me || null;
const myLadders = new Set((pageRoot.dataset.myLadders || "").split(" ").filter(Boolean));
const youBox = document.getElementById("board-you");

// "1 rated match", "10 rated matches"; "1 day", "30 days".
function plural(n, word) {
  if (n === 1) return `${n} ${word}`;
  return `${n} ${word}${/(ch|sh|s|x)$/.test(word) ? "es" : "s"}`;
}

function ordinal(n) {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? "th" : { 1: "st", 2: "nd", 3: "rd" }[n % 10] || "th";
  return `${n}${suffix}`;
}

// "A player is ranked after 10 rated matches, one of them in the last 30 days."
function rankedAfter(ladderId) {
  const rule = rules.get(ladderId);
  if (!rule) return "players need enough rated matches";
  return `a player is ranked after ${plural(rule.min_matches, "rated match")}, ` +
    `${rule.min_matches === 1 ? "played" : "one of them"} in the last ${plural(rule.active_days, "day")}`;
}

// The reader's own place: their rank, or how far they are from one.
async function showYou(ladderId, name) {
  youBox.hidden = true;
  if (!me) return;
  const rule = rules.get(ladderId) || { min_matches: 0, active_days: 0 };
  if (!myLadders.has(ladderId)) {
    youBox.textContent = `You have no rating in ${name} yet: play ${plural(rule.min_matches, "rated match")} to be ranked.`;
    youBox.hidden = false;
    return;
  }
  let mine;
  try {
    ({ data: mine } = await api(`/api/ladders/${ladderId}/ratings/${me}`));
  } catch {
    return;
  }
  if (select.value !== ladderId) return; // another ladder was chosen meanwhile
  const rating = `${Math.round(mine.rating)}${mine.provisional ? ", provisional" : ""}`;
  let text;
  if (mine.rank) {
    text = `You are ranked ${ordinal(mine.rank)} with ${rating} (${plural(mine.matches_played, "rated match")}).`;
  } else if (mine.matches_played < rule.min_matches) {
    const left = rule.min_matches - mine.matches_played;
    text = `You have played ${mine.matches_played} of the ${plural(rule.min_matches, "rated match")} ` +
      `needed to be ranked: ${left} more to go (rating ${rating}).`;
  } else {
    text = `You are not ranked: your last rated match is more than ${plural(rule.active_days, "day")} ago ` +
      `(rating ${rating}). One more puts you back.`;
  }
  youBox.textContent = text;
  youBox.hidden = false;
}

function query() {
  const q = new URLSearchParams({ page: String(page) });
  if (kind.value) q.set("kind", kind.value);
  if (hide.checked) q.set("hide_provisional", "true");
  return q;
}

function remember() {
  const q = query();
  q.set("ladder", select.value);
  history.replaceState(null, "", `?${q}`);
}

async function load() {
  remember();
  let board;
  try {
    ({ data: board } = await api(`/api/ladders/${select.value}/leaderboard?${query()}`));
  } catch (error) {
    if (error instanceof ApiError && error.status === 404 && page > 1) {
      page = 1;
      return load();
    }
    flash(flashBox, error instanceof ApiError ? error.detail : "The connection failed: try again.");
    return;
  }
  flash(flashBox, "");
  const ladder = select.selectedOptions[0].textContent;
  // Glicko-2 ladders: each rating with its deviation (the API's, as of now).
  const glicko = systems.get(select.value) === "glicko2";
  summary.textContent = board.count
    ? `${ladder}: ${board.count} ranked player${board.count === 1 ? "" : "s"}, page ${board.page}; ${rankedAfter(select.value)}.`
    : `${ladder}: nobody is ranked yet: ${rankedAfter(select.value)}.`;
  showYou(select.value, ladder);
  const rows = board.results.map((r) => el("tr", { class: me && String(r.player.id) === me ? "me" : null, "aria-current": me && String(r.player.id) === me ? "true" : null },
    el("td", { class: "num" }, String(r.rank)),
    el("td", {}, el("a", { href: `/players/${r.player.id}` }, r.player.name),
      kindTag(r.player)),
    el("td", { class: "num" }, String(Math.round(r.rating)),
      r.provisional ? el("span", { class: "tag", title: "provisional: still in the first rated matches" }, "prov") : null),
    glicko ? el("td", { class: "num deviation" }, r.deviation == null ? "–" : `±${Math.round(r.deviation)}`) : null,
    el("td", { class: "num" }, String(Math.round(r.peak))),
    el("td", { class: "num" }, `${r.wins}–${r.losses}`),
    el("td", { class: "num" }, String(r.matches_played)),
  ));
  document.getElementById("board").replaceChildren(
    el("caption", { class: "sr-only" }, `Leaderboard of ${ladder}`),
    el("thead", {}, el("tr", {}, ...["Rank", "Player", "Rating", ...(glicko ? ["Deviation"] : []), "Peak", "W–L", "Matches"].map((h, i) =>
      el("th", { scope: "col", class: i === 1 ? "" : "num" }, h)))),
    el("tbody", {}, ...rows));
  const pager = [];
  if (board.previous) pager.push(el("button", { type: "button", class: "button", onclick: () => { page -= 1; load(); } }, "← Previous"));
  if (board.next) pager.push(el("button", { type: "button", class: "button", onclick: () => { page += 1; load(); } }, "Next →"));
  document.getElementById("pager").replaceChildren(...pager);
  return undefined;
}

async function start() {
  let ladders;
  try {
    const { data } = await api("/api/ladders?page_size=100");
    ladders = data.results || data;
  } catch {
    summary.textContent = "The leaderboards are not available.";
    return;
  }
  if (!ladders.length) {
    summary.textContent = "There are no ladders yet.";
    return;
  }
  for (const ladder of ladders) systems.set(String(ladder.id), ladder.rating_settings?.system);
  for (const ladder of ladders) rules.set(String(ladder.id), ladder.leaderboard);
  for (const ladder of ladders) select.append(el("option", { value: String(ladder.id) }, ladder.name));
  if (params.get("ladder")) select.value = params.get("ladder");
  for (const control of [select, kind, hide]) {
    control.addEventListener("change", () => { page = 1; load(); });
  }
  load();
}

start();
