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

const lang = document.documentElement.lang || "en";

// "1 rated match", "10 rated matches"; "1 day", "30 days".
function ratedMatches(n) {
  return interpolate(ngettext("%(count)s rated match", "%(count)s rated matches", n), { count: n }, true);
}

function days(n) {
  return interpolate(ngettext("%(count)s day", "%(count)s days", n), { count: n }, true);
}

// "1st", "2nd", "23rd", "11th": the language's ordinal forms (Intl's categories).
const ORDINALS = {
  // Translators: an ordinal whose English suffix is "st" (1st, 21st); in French: "%(n)ser" for one, "%(n)se" else.
  one: pgettext("ordinal", "%(n)sst"),
  // Translators: an ordinal whose English suffix is "nd" (2nd, 22nd).
  two: pgettext("ordinal", "%(n)snd"),
  // Translators: an ordinal whose English suffix is "rd" (3rd, 23rd).
  few: pgettext("ordinal", "%(n)srd"),
  // Translators: any other ordinal (4th, 11th, 12th, 13th, 100th).
  other: pgettext("ordinal", "%(n)sth"),
};

function ordinal(n) {
  let category = "other";
  try {
    category = new Intl.PluralRules(lang, { type: "ordinal" }).select(n);
  } catch {
    // an unknown language: "other"
  }
  return interpolate(ORDINALS[category] || ORDINALS.other, { n }, true);
}

// "A player is ranked after 10 rated matches, one of them in the last 30 days."
function rankedAfter(ladderId) {
  const rule = rules.get(ladderId);
  if (!rule) return gettext("players need enough rated matches");
  const values = { matches: ratedMatches(rule.min_matches), days: days(rule.active_days) };
  return rule.min_matches === 1
    // Translators: what it takes to be on a leaderboard, e.g. "a player is ranked after 1 rated match, played in the last 30 days".
    ? interpolate(gettext("a player is ranked after %(matches)s, played in the last %(days)s"), values, true)
    // Translators: e.g. "a player is ranked after 10 rated matches, one of them in the last 30 days".
    : interpolate(gettext("a player is ranked after %(matches)s, one of them in the last %(days)s"), values, true);
}

// The reader's own place: their rank, or how far they are from one.
async function showYou(ladderId, name) {
  youBox.hidden = true;
  if (!me) return;
  const rule = rules.get(ladderId) || { min_matches: 0, active_days: 0 };
  if (!myLadders.has(ladderId)) {
    youBox.textContent = interpolate(gettext("You have no rating in %(ladder)s yet: play %(matches)s to be ranked."),
      { ladder: name, matches: ratedMatches(rule.min_matches) }, true);
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
  const rating = mine.provisional
    ? interpolate(gettext("%(rating)s, provisional"), { rating: Math.round(mine.rating) }, true)
    : String(Math.round(mine.rating));
  let text;
  if (mine.rank) {
    // Translators: e.g. "You are ranked 2nd with 1520, provisional (3 rated matches)."
    text = interpolate(gettext("You are ranked %(rank)s with %(rating)s (%(matches)s)."),
      { rank: ordinal(mine.rank), rating, matches: ratedMatches(mine.matches_played) }, true);
  } else if (mine.matches_played < rule.min_matches) {
    const left = rule.min_matches - mine.matches_played;
    // Translators: e.g. "You have played 1 of the 3 rated matches needed to be ranked: 2 more to go (rating 1510, provisional)."
    text = interpolate(gettext("You have played %(played)s of the %(needed)s needed to be ranked: %(left)s more to go (rating %(rating)s)."),
      { played: mine.matches_played, needed: ratedMatches(rule.min_matches), left, rating }, true);
  } else {
    // Translators: e.g. "You are not ranked: your last rated match is more than 30 days ago (rating 1520). One more puts you back."
    text = interpolate(gettext("You are not ranked: your last rated match is more than %(days)s ago (rating %(rating)s). One more puts you back."),
      { days: days(rule.active_days), rating }, true);
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
    flash(flashBox, error instanceof ApiError ? error.detail : gettext("The connection failed: try again."));
    return;
  }
  flash(flashBox, "");
  const ladder = select.selectedOptions[0].textContent;
  // Glicko-2 ladders: each rating with its deviation (the API's, as of now).
  const glicko = systems.get(select.value) === "glicko2";
  const values = { ladder, count: board.count, page: board.page, rule: rankedAfter(select.value) };
  summary.textContent = board.count
    // Translators: e.g. "Club ladder: 6 ranked players, page 1; a player is ranked after 10 rated matches, one of them in the last 30 days."
    ? interpolate(ngettext("%(ladder)s: %(count)s ranked player, page %(page)s; %(rule)s.",
      "%(ladder)s: %(count)s ranked players, page %(page)s; %(rule)s.", board.count), values, true)
    : interpolate(gettext("%(ladder)s: nobody is ranked yet: %(rule)s."), values, true);
  showYou(select.value, ladder);
  const rows = board.results.map((r) => el("tr", { class: me && String(r.player.id) === me ? "me" : null, "aria-current": me && String(r.player.id) === me ? "true" : null },
    el("td", { class: "num" }, String(r.rank)),
    el("td", {}, el("a", { href: `/players/${r.player.id}` }, r.player.name),
      kindTag(r.player)),
    el("td", { class: "num" }, String(Math.round(r.rating)),
      r.provisional ? el("span", { class: "tag", title: gettext("provisional: still in the first rated matches") },
        // Translators: short for "provisional", beside a rating.
        gettext("prov")) : null),
    glicko ? el("td", { class: "num deviation" }, r.deviation == null ? "–" : `±${Math.round(r.deviation)}`) : null,
    el("td", { class: "num" }, String(Math.round(r.peak))),
    el("td", { class: "num" }, `${r.wins}–${r.losses}`),
    el("td", { class: "num" }, String(r.matches_played)),
  ));
  document.getElementById("board").replaceChildren(
    el("caption", { class: "sr-only" }, interpolate(gettext("Leaderboard of %(ladder)s"), { ladder }, true)),
    el("thead", {}, el("tr", {}, ...[gettext("Rank"), gettext("Player"), gettext("Rating"), ...(glicko ? [gettext("Deviation")] : []), gettext("Peak"),
      // Translators: a column's heading: wins–losses.
      gettext("W–L"), gettext("Matches")].map((h, i) =>
      el("th", { scope: "col", class: i === 1 ? "" : "num" }, h)))),
    el("tbody", {}, ...rows));
  const pager = [];
  if (board.previous) pager.push(el("button", { type: "button", class: "button", onclick: () => { page -= 1; load(); } }, gettext("← Previous")));
  if (board.next) pager.push(el("button", { type: "button", class: "button", onclick: () => { page += 1; load(); } }, gettext("Next →")));
  document.getElementById("pager").replaceChildren(...pager);
  return undefined;
}

async function start() {
  let ladders;
  try {
    const { data } = await api("/api/ladders?page_size=100");
    ladders = data.results || data;
  } catch {
    summary.textContent = gettext("The leaderboards are not available.");
    return;
  }
  if (!ladders.length) {
    summary.textContent = gettext("There are no ladders yet.");
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
