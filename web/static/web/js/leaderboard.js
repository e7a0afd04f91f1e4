// Ladder leaderboards: pick a ladder, filter, page through GET /api/ladders/{id}/leaderboard.
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
    ? `${ladder}: ${board.count} ranked player${board.count === 1 ? "" : "s"}, page ${board.page}.`
    : `${ladder}: nobody is ranked yet (players need enough rated matches).`;
  const rows = board.results.map((r) => el("tr", {},
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
  for (const ladder of ladders) select.append(el("option", { value: String(ladder.id) }, ladder.name));
  if (params.get("ladder")) select.value = params.get("ladder");
  for (const control of [select, kind, hide]) {
    control.addEventListener("change", () => { page = 1; load(); });
  }
  load();
}

start();
