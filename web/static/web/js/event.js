// An event page: registration buttons, the bracket drawn as a bracket (elimination formats) or
// the rounds' pairings (Swiss, round robin), and the standings with every tiebreak column.
// The event socket (/ws/events/<id>) pushes the whole event after every change; while it is
// not open the page reads the REST API again every few seconds instead. Live scores of the
// matches in play are read from the API, at most every few seconds.
import { api, ApiError, el, flash } from "./api.js";
import { connect } from "./live.js";
import { startCountdowns } from "./countdown.js";

const root = document.getElementById("event");
const eventId = root.dataset.event;
const signedIn = document.querySelector("header.site form[action$='logout']") !== null;
const flashBox = document.getElementById("event-flash");
// Anonymous spectators may make 120 requests a minute: a refresh is two or three requests
// plus one per match in play (at most LIVE_MATCHES).
const REFRESH_MS = 6000;
const LIVE_MATCHES = 8;

const COLUMNS = {
  match_points: "Points",
  buchholz: "Buchholz",
  median_buchholz: "Median Buchholz",
  sonneborn_berger: "Sonneborn-Berger",
  direct_encounter: "Direct encounter",
  games_won: "Games won",
  margin: "Margin",
  wins: "Wins",
};

const FORMATS = {
  single_elim: "Single elimination",
  double_elim: "Double elimination",
  round_robin: "Round robin",
  swiss: "Swiss",
  arena: "Arena",
};

const STATUS_TEXT = {
  draft: "Draft",
  registration: "Registration open",
  running: "In play",
  finished: "Finished",
  cancelled: "Cancelled",
};

let busy = false;
let pollTimer = null;
let seq = -1; // the newest event message shown
let liveCache = { at: 0, ids: "", live: new Map() };

function number(value) {
  if (value === null || value === undefined) return "–";
  return Number.isInteger(value) ? String(value) : value.toFixed(1);
}

// --- the event and registration ------------------------------------------------------------

function renderEvent(event) {
  const tc = event.time_control;
  const clock = tc ? `${tc.base_seconds % 60 ? `${tc.base_seconds} s` : `${tc.base_seconds / 60} min`}${tc.increment_seconds ? ` + ${tc.increment_seconds} s` : ""}` : "untimed";
  document.getElementById("event-meta").textContent =
    `${FORMATS[event.format] || event.format} · ${STATUS_TEXT[event.status] || event.status} · ` +
    `best of ${event.best_of} to ${event.target} · ${clock}${event.rated ? " · rated" : ""}`;
  const summary = [`${event.entries_count} player${event.entries_count === 1 ? "" : "s"}`];
  if (event.rounds_planned) summary.push(`${event.rounds_planned} rounds`);
  const line = el("span", {}, summary.join(" · "));
  if (event.format === "arena") line.append(...arenaClock(event));
  if (event.champion) {
    line.append(" · Champion: ", el("strong", { class: "champion" }, "★ ", el("a", { href: `/players/${event.champion.id}` }, event.champion.name)));
  }
  document.getElementById("event-summary").replaceChildren(line);
  if (event.format === "arena") startCountdowns();

  const actions = [];
  const entry = event.your_entry;
  const active = entry && (entry.status === "registered" || entry.status === "checked_in");
  if (!signedIn && event.registration_open) {
    actions.push(el("a", { class: "button primary", href: `/login?next=${encodeURIComponent(window.location.pathname)}` }, "Sign in to register"));
  } else if (signedIn) {
    if (event.registration_open && !active) actions.push(command("register", "Register"));
    if (active && event.status !== "finished" && event.status !== "cancelled") {
      actions.push(el("span", {}, entry.status === "checked_in" ? "You are checked in. " : "You are registered. "));
      const checkInOpen = event.check_in_opens_at && new Date(event.check_in_opens_at) <= new Date();
      if (entry.status === "registered" && event.status === "registration" && checkInOpen) {
        actions.push(command("check-in", "Check in"));
      }
      if (event.format === "arena" && event.status === "running") {
        actions.push(entry.paused_at ? command("rejoin", "Rejoin") : command("pause", "Pause"));
      }
      actions.push(command("withdraw", "Withdraw"));
    }
  }
  document.getElementById("event-actions").replaceChildren(...actions);
}

// An arena's time: how long it runs, the time left while it runs (no match starts after).
function arenaClock(event) {
  const minutes = event.arena_minutes === null || event.arena_minutes === undefined ? 60 : event.arena_minutes;
  const parts = [` · ${number(minutes)} min arena${event.berserk ? " · berserk allowed" : ""}`];
  if (event.status === "running" && event.ends_at) {
    parts.push(" · ends in ", el("span", { class: "countdown", id: "arena-clock", dataset: { deadline: event.ends_at } }, ""));
  }
  return parts;
}

function command(path, label) {
  return el("button", {
    type: "button",
    class: `button${path === "withdraw" ? "" : " primary"}`,
    onclick: async (clickEvent) => {
      if (busy) return;
      if (path === "withdraw" && !window.confirm("Withdraw from this event?")) return;
      busy = true;
      clickEvent.currentTarget.disabled = true;
      try {
        await api(`/api/events/${eventId}/${path}`, { method: "POST" });
        flash(flashBox, "");
      } catch (error) {
        flash(flashBox, error instanceof ApiError ? error.detail : "The connection failed: try again.");
      }
      busy = false;
      if (!socket.isOpen) refresh(); // the socket pushes the change itself
    },
  }, label);
}

// --- the bracket -----------------------------------------------------------------------------

function section(name, format) {
  if (/^Losers/i.test(name)) return "Losers bracket";
  if (/^Grand final|third/i.test(name)) return "Finals";
  return format === "double_elim" ? "Winners bracket" : "Bracket";
}

function slot(side, pairing, live) {
  if (!side) {
    let text = "to be decided";
    if (pairing.status === "skipped") text = "—";
    else if (pairing.result === "bye" || pairing.status === "finished") text = "bye";
    return el("div", { class: "slot empty" }, el("span", { class: "name meta" }, text));
  }
  const won = pairing.winner !== null && pairing.winner === side.entry;
  const index = pairing.a && pairing.a.entry === side.entry ? 0 : 1;
  let games = pairing.status === "finished" ? String(pairing.games[index]) : "";
  if (live) games = String(live.games_won[index]);
  return el("div", { class: `slot${won ? " winner" : ""}`, "aria-label": `${side.player.name}${won ? ", winner" : ""}` },
    el("span", { class: "name" }, side.seed ? el("span", { class: "meta" }, `${side.seed} `) : null,
      el("a", { href: `/players/${side.player.id}` }, side.player.name)),
    el("span", { class: "games" }, games));
}

function pairingNode(pairing, live) {
  const isLive = pairing.match_status === "active";
  const box = el("div", { class: `pairing${isLive ? " in-play" : ""}`, dataset: { key: pairing.key } },
    slot(pairing.a, pairing, live), slot(pairing.b, pairing, live));
  if (pairing.match) {
    let text = "match";
    if (isLive) {
      const game = live && live.games ? live.games.find((g) => g.status === "active") : null;
      text = game ? `live · game ${game.number + 1}: ${game.score_a}–${game.score_b}` : "live";
    } else if (pairing.status === "finished" && pairing.result !== "played") {
      text = pairing.result.replace("_", " ");
    }
    box.append(el("a", { href: isLive && live && live.current_game ? `/games/${live.current_game}` : `/matches/${pairing.match}` },
      isLive ? el("span", { class: "live" }, "● ") : null, text));
  } else if (pairing.status === "skipped") {
    box.append(el("span", { class: "meta" }, "not needed"));
  }
  return box;
}

function renderBracket(bracket, live) {
  const sections = new Map();
  for (const round of bracket.rounds) {
    const name = section(round.name, bracket.format);
    if (!sections.has(name)) sections.set(name, []);
    sections.get(name).push(round);
  }
  const nodes = [];
  for (const [name, rounds] of sections) {
    if (sections.size > 1) nodes.push(el("h3", {}, name));
    const columns = rounds.map((round) => el("div", { class: "round", role: "group", "aria-label": round.name },
      el("h3", {}, round.name), ...round.pairings.map((p) => pairingNode(p, live.get(p.match)))));
    nodes.push(el("div", { class: "bracket" }, ...columns));
  }
  document.getElementById("bracket").replaceChildren(...nodes);
  document.getElementById("bracket-section").hidden = false;
}

function renderRounds(bracket, live) {
  const nodes = [];
  for (const round of [...bracket.rounds].reverse()) {
    const rows = round.pairings.map((p) => {
      const l = live.get(p.match);
      const score = p.status === "finished" ? `${p.games[0]}–${p.games[1]}` : l ? `${l.games_won[0]}–${l.games_won[1]} (live)` : "";
      const name = (side, index) => {
        if (!side) return el("td", { class: "meta" }, p.b === null && index === 1 ? "bye" : "—");
        const won = p.winner !== null && p.winner === side.entry;
        return el("td", { class: won ? "winner" : "" }, won ? "✔ " : "", el("a", { href: `/players/${side.player.id}` }, side.player.name));
      };
      return el("tr", {}, el("td", { class: "num" }, String(p.table)), name(p.a, 0), el("td", { class: "num" }, score), name(p.b, 1),
        el("td", {}, p.match ? el("a", { href: l && l.current_game ? `/games/${l.current_game}` : `/matches/${p.match}` }, p.match_status === "active" ? "watch" : "match") : ""));
    });
    nodes.push(el("table", { class: "grid" },
      el("caption", {}, `${round.name} · ${round.status}`),
      el("thead", {}, el("tr", {}, el("th", { scope: "col", class: "num" }, "Table"), el("th", { scope: "col" }, "Player"),
        el("th", { scope: "col", class: "num" }, "Games"), el("th", { scope: "col" }, "Player"), el("th", { scope: "col" }, ""))),
      el("tbody", {}, ...rows)));
  }
  document.getElementById("rounds").replaceChildren(...nodes);
  document.getElementById("rounds-section").hidden = false;
}

// --- standings -------------------------------------------------------------------------------

// The API names the columns that fit the format, in order, and leaves out empty ones.
const STANDING_LABELS = {
  ...COLUMNS,
  reached: "Reached",
  played: "Played",
  wins: "W–L",
  byes: "Byes",
  games_won: "Games",
  rating: "Rating",
  points: "Points",
  sheet: "Sheet",
  streak: "Streak",
  berserk_wins: "Berserk wins",
};
// Shown inside another column: wins with losses, games won with games lost.
const PAIRED = { losses: "wins", games_lost: "games_won" };

function standingCell(row, column) {
  switch (column) {
    case "reached": return row.reached === "Champion" ? `★ ${row.reached}` : row.reached || "";
    case "wins": return `${row.wins}–${row.losses}`;
    case "games_won": return `${row.games_won}–${row.games_lost}`;
    case "rating": return row.rating === null || row.rating === undefined ? "–" : String(Math.round(row.rating));
    case "played": case "byes": case "points": case "berserk_wins": return String(row[column]);
    case "sheet": return (row.sheet || []).join(" ");
    case "streak": return `${row.streak}${row.on_fire ? " 🔥" : ""}`;
    default: return row[column] === null || row[column] === undefined ? "–" : number(row[column]);
  }
}

function renderStandings(standings) {
  const columns = (standings.columns || []).filter((c) => STANDING_LABELS[c] && !(PAIRED[c] && standings.columns.includes(PAIRED[c])));
  const head = [el("th", { scope: "col", class: "num" }, "Rank"), el("th", { scope: "col" }, "Player")];
  for (const c of columns) head.push(el("th", { scope: "col", class: c === "reached" ? "" : "num" }, STANDING_LABELS[c]));
  const rows = standings.rows.map((row) => {
    const cells = [el("td", { class: "num" }, String(row.rank)),
      el("td", {}, el("a", { href: `/players/${row.player.id}` }, row.player.name),
        row.status === "withdrawn" || row.status === "disqualified" ? el("span", { class: "tag" }, row.status) : null)];
    for (const c of columns) cells.push(el("td", { class: c === "reached" ? "" : "num" }, standingCell(row, c)));
    return el("tr", {}, ...cells);
  });
  document.getElementById("standings").replaceChildren(
    el("caption", { class: "sr-only" }, "Standings"),
    el("thead", {}, el("tr", {}, ...head)), el("tbody", {}, ...rows));
  document.getElementById("standings-section").hidden = !standings.rows.length;
}

// --- refreshing ------------------------------------------------------------------------------

async function liveScores(bracket) {
  const ids = bracket.rounds.flatMap((r) => r.pairings).filter((p) => p.match_status === "active").map((p) => p.match);
  const key = ids.join(",");
  if (key === liveCache.ids && Date.now() - liveCache.at < REFRESH_MS) return liveCache.live;
  const live = new Map();
  await Promise.all(ids.slice(0, LIVE_MATCHES).map(async (id) => {
    try {
      const { data } = await api(`/api/matches/${id}`);
      live.set(id, data);
    } catch {
      // a score we cannot read now shows on the next refresh
    }
  }));
  liveCache = { at: Date.now(), ids: key, live };
  return live;
}

async function render(event, bracket, standings, shown = null) {
  const live = await liveScores(bracket);
  if (shown !== null && shown !== seq) return; // a newer message came meanwhile
  renderEvent(event);
  if (bracket.rounds.length) {
    if (event.format === "single_elim" || event.format === "double_elim") renderBracket(bracket, live);
    else renderRounds(bracket, live);
  }
  renderStandings(standings);
  root.dataset.status = event.status;
}

// Polling: only while the socket is not open.
function poll(ms) {
  clearTimeout(pollTimer);
  pollTimer = socket.isOpen ? null : setTimeout(refresh, ms);
}

async function refresh() {
  let event;
  try {
    ({ data: event } = await api(`/api/events/${eventId}`));
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 429)) {
      flash(flashBox, error instanceof ApiError ? error.detail : "The connection failed: retrying.");
    }
    poll(REFRESH_MS * 2);
    return;
  }
  if (!socket.isOpen) renderEvent(event);
  try {
    const [{ data: bracket }, { data: standings }] = await Promise.all([
      api(`/api/events/${eventId}/bracket`),
      api(`/api/events/${eventId}/standings`),
    ]);
    if (!socket.isOpen) await render(event, bracket, standings); // else the socket's is newer
  } catch (error) {
    flash(flashBox, error instanceof ApiError ? error.detail : "The connection failed: retrying.");
  }
  if (event.status === "running") poll(REFRESH_MS);
  else if (event.status === "registration") poll(REFRESH_MS * 5);
}

// --- the socket ------------------------------------------------------------------------------

const socket = connect(`/ws/events/${eventId}`);
socket.on("open", () => {
  clearTimeout(pollTimer);
  pollTimer = null;
  root.dataset.live = "socket";
});
socket.on("close", () => {
  root.dataset.live = "polling";
  seq = -1; // the next connection sends the event afresh
  if (!pollTimer) poll(REFRESH_MS);
});
socket.on("event", (message) => {
  if (message.seq <= seq) return; // an older render than the one shown
  seq = message.seq;
  const { bracket, standings, ...event } = message.event;
  render(event, bracket, standings, seq);
});

refresh();
