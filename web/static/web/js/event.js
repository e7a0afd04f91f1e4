// An event page: registration buttons, the bracket drawn as a bracket (elimination formats) or
// the rounds' pairings (Swiss, round robin), and the standings with every tiebreak column.
// The event socket (/ws/events/<id>) pushes the whole event after every change; while it is
// not open the page reads the REST API again every few seconds instead. Live scores of the
// matches in play are read from the API, at most every few seconds.
import { api, ApiError, el, flash, kindTag, roundLabel } from "./api.js";
import { connect } from "./live.js";
import { renderBracket as drawBracket } from "./bracket.js";
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
  match_points: gettext("Points"),
  buchholz: gettext("Buchholz"),
  median_buchholz: gettext("Median Buchholz"),
  sonneborn_berger: gettext("Sonneborn-Berger"),
  direct_encounter: gettext("Direct encounter"),
  games_won: gettext("Games won"),
  margin: gettext("Margin"),
  wins: gettext("Wins"),
};

const FORMATS = {
  single_elim: gettext("Single elimination"),
  double_elim: gettext("Double elimination"),
  round_robin: gettext("Round robin"),
  swiss: gettext("Swiss"),
  arena: gettext("Arena"),
  two_stage: gettext("Groups, then playoffs"),
};

const STATUS_TEXT = {
  draft: gettext("Draft"),
  registration: gettext("Registration open"),
  running: gettext("In play"),
  finished: gettext("Finished"),
  cancelled: gettext("Cancelled"),
};

// A round's state in its caption.
const ROUND_STATUS = {
  pending: gettext("pending"),
  running: gettext("running"),
  finished: gettext("finished"),
};

// An entry no longer in the event, as its tag in the standings.
const ENTRY_STATUS = {
  withdrawn: gettext("withdrawn"),
  disqualified: gettext("disqualified"),
};

const LANG = document.documentElement.lang || undefined;

// A translated text with named placeholders, interpolated.
function fmt(text, values) {
  return interpolate(text, values, true);
}

// A translated sentence whose placeholders are nodes (a link, a countdown) or text: its pieces
// in order, for el(...) or append(...).
function sentence(text, values) {
  return text.split(/%\((\w+)\)s/).map((piece, i) => (i % 2 ? values[piece] : piece)).filter((piece) => piece !== "");
}

let busy = false;
let pollTimer = null;
let seq = -1; // the newest event message shown
let liveCache = { at: 0, ids: "", live: new Map() };

function number(value) {
  if (value === null || value === undefined) return "–";
  return Number.isInteger(value) ? String(value)
    : value.toLocaleString(LANG, { minimumFractionDigits: 1, maximumFractionDigits: 1, useGrouping: false });
}

// --- the event and registration ------------------------------------------------------------

// ``out``: the viewer is knocked out of an elimination event, and is no longer offered to
// withdraw from it.
function renderEvent(event, out = false) {
  const tc = event.time_control;
  let clock = gettext("untimed");
  if (tc) {
    clock = tc.base_seconds % 60 ? fmt(gettext("%(seconds)s s"), { seconds: tc.base_seconds })
      : fmt(gettext("%(minutes)s min"), { minutes: tc.base_seconds / 60 });
    if (tc.increment_seconds) clock += ` + ${fmt(gettext("%(seconds)s s"), { seconds: tc.increment_seconds })}`;
  }
  document.getElementById("event-meta").textContent = [
    FORMATS[event.format] || event.format,
    STATUS_TEXT[event.status] || event.status,
    fmt(gettext("best of %(best_of)s to %(target)s"), { best_of: event.best_of, target: event.target }),
    clock,
    ...(event.rated ? [gettext("rated")] : []),
  ].join(" · ");
  const summary = [fmt(ngettext("%(count)s player", "%(count)s players", event.entries_count), { count: event.entries_count })];
  // A double elimination's count (a double-elimination playoff's too) includes the grand
  // final's reset, played only if needed.
  const doubleElim = event.format === "double_elim" || (event.format === "two_stage" && event.playoff_format === "double_elim");
  if (event.rounds_planned) {
    const rounds = event.rounds_planned;
    summary.push(doubleElim && event.bracket_reset
      ? fmt(ngettext("up to %(count)s round", "up to %(count)s rounds", rounds), { count: rounds })
      : fmt(ngettext("%(count)s round", "%(count)s rounds", rounds), { count: rounds }));
  }
  const line = el("span", {}, summary.join(" · "));
  if (event.format === "arena") line.append(...arenaClock(event));
  if (event.champion) {
    line.append(` · ${gettext("Champion:")} `, el("strong", { class: "champion" }, "★ ", el("a", { href: `/players/${event.champion.id}` }, event.champion.name)));
  }
  document.getElementById("event-summary").replaceChildren(line);
  if (event.format === "arena") startCountdowns();

  const actions = [];
  const entry = event.your_entry;
  const active = entry && (entry.status === "registered" || entry.status === "checked_in");
  if (!signedIn && event.registration_open) {
    actions.push(el("a", { class: "button primary", href: `/login?next=${encodeURIComponent(window.location.pathname)}` }, gettext("Sign in to register")));
  } else if (signedIn) {
    if (event.registration_open && !active) actions.push(command("register", gettext("Register")));
    if (active && !out && event.status !== "finished" && event.status !== "cancelled") {
      actions.push(el("span", {}, `${entry.status === "checked_in" ? gettext("You are checked in.") : gettext("You are registered.")} `));
      const checkInOpen = event.check_in_opens_at && new Date(event.check_in_opens_at) <= new Date();
      if (entry.status === "registered" && event.status === "registration" && checkInOpen) {
        actions.push(command("check-in", gettext("Check in")));
      }
      if (event.format === "arena" && event.status === "running") {
        actions.push(entry.paused_at ? command("rejoin", gettext("Rejoin")) : command("pause", gettext("Pause")));
      }
      actions.push(command("withdraw", gettext("Withdraw")));
    }
  }
  document.getElementById("event-actions").replaceChildren(...actions);
}

// An arena's time: how long it runs, the time left while it runs (no match starts after).
function arenaClock(event) {
  const minutes = event.arena_minutes === null || event.arena_minutes === undefined ? 60 : event.arena_minutes;
  const parts = [` · ${fmt(gettext("%(minutes)s min arena"), { minutes: number(minutes) })}${event.berserk ? ` · ${gettext("berserk allowed")}` : ""}`];
  if (event.status === "running" && event.ends_at) {
    // Translators: followed by a countdown, e.g. "ends in 12:34".
    parts.push(" · ", ...sentence(gettext("ends in %(time)s"), {
      time: el("span", { class: "countdown", id: "arena-clock", dataset: { deadline: event.ends_at } }, ""),
    }));
  }
  return parts;
}

function command(path, label) {
  return el("button", {
    type: "button",
    class: `button${path === "withdraw" ? "" : " primary"}`,
    onclick: async (clickEvent) => {
      if (busy) return;
      if (path === "withdraw" && !window.confirm(gettext("Withdraw from this event?"))) return;
      busy = true;
      clickEvent.currentTarget.disabled = true;
      try {
        await api(`/api/events/${eventId}/${path}`, { method: "POST" });
        flash(flashBox, "");
      } catch (error) {
        flash(flashBox, error instanceof ApiError ? error.detail : gettext("The connection failed: try again."));
      }
      busy = false;
      if (!socket.isOpen) refresh(); // the socket pushes the change itself
    },
  }, label);
}

// --- the bracket -----------------------------------------------------------------------------

function renderBracket(bracket, live, mine) {
  document.getElementById("bracket-section").hidden = false; // shown first: the layout measures
  drawBracket(document.getElementById("bracket"), bracket, live, mine);
}

// A match at a table: its score pad (the sheet, read only for anyone but its players).
function atTable(p) {
  return p.match_venue === "table";
}

// What a table match waits for once its hands decide it.
const CONFIRMATION_TEXT = { awaiting: gettext("to confirm"), disputed: gettext("disputed") };

function renderRounds(bracket, live, mine) {
  const nodes = [];
  for (const round of [...bracket.rounds].reverse()) {
    const rows = round.pairings.map((p) => {
      const l = live.get(p.match);
      let score = p.status === "finished" ? `${p.games[0]}–${p.games[1]}` : "";
      const waiting = p.match_status === "active" && CONFIRMATION_TEXT[p.match_confirmation];
      if (!score && waiting) score = [`${l ? `${l.games_won[0]}–${l.games_won[1]}` : ""}`, el("span", { class: "live-tag" }, ` (${waiting})`)];
      else if (!score && l) score = [`${l.games_won[0]}–${l.games_won[1]}`, el("span", { class: "live-tag" }, ` (${gettext("live")})`)];
      const name = (side, index) => {
        if (!side) return el("td", { class: "player meta" }, p.b === null && index === 1 ? gettext("bye") : "—");
        const won = p.winner !== null && p.winner === side.entry;
        return el("td", { class: `player${won ? " winner" : ""}` }, won ? "✔ " : "", el("a", { href: `/players/${side.player.id}` }, side.player.name), kindTag(side.player));
      };
      const yours = mine !== null && [p.a, p.b].some((side) => side && side.entry === mine);
      const link = !p.match ? ""
        : atTable(p) ? el("a", { href: `/matches/${p.match}/pad` }, p.match_status === "active" ? gettext("score pad") : gettext("sheet"))
          : el("a", { href: l && l.current_game ? `/games/${l.current_game}` : `/matches/${p.match}` }, p.match_status === "active" ? gettext("watch") : gettext("match"));
      return el("tr", { class: yours ? "yours" : null, dataset: { key: p.key } }, el("td", { class: "num" }, String(atTable(p) && p.match_table ? p.match_table : p.table)), name(p.a, 0), el("td", { class: "num" }, score), name(p.b, 1),
        el("td", {}, link));
    });
    nodes.push(el("table", { class: "grid pairings" },
      el("caption", {}, `${roundLabel(round.name)} · ${ROUND_STATUS[round.status] || round.status}`),
      el("thead", {}, el("tr", {}, el("th", { scope: "col", class: "num" }, el("abbr", { title: gettext("Table") }, "#")), el("th", { scope: "col" }, gettext("Player")),
        el("th", { scope: "col", class: "num" }, gettext("Games")), el("th", { scope: "col" }, gettext("Player")), el("th", { scope: "col" }, el("span", { class: "sr-only" }, gettext("Match"))))),
      el("tbody", {}, ...rows)));
  }
  document.getElementById("rounds").replaceChildren(...nodes);
  document.getElementById("rounds-section").hidden = false;
}

// Groups, then playoffs: the group rounds as rounds, the playoff drawn as a bracket.
function renderTwoStage(bracket, live, mine) {
  const playoff = bracket.rounds.filter((r) => r.stage === "playoff");
  const groups = bracket.rounds.filter((r) => r.stage !== "playoff");
  if (playoff.length) renderBracket({ ...bracket, format: bracket.playoff_format, rounds: playoff }, live, mine);
  if (groups.length) renderRounds({ ...bracket, rounds: groups }, live, mine);
}

// --- your match ------------------------------------------------------------------------------

// The viewer's match to play now (scheduled or in play), else the next one waiting for them.
function yourPairing(bracket, mine) {
  const all = bracket.rounds.flatMap((r) => r.pairings.map((p) => ({ ...p, round: r.name })));
  const theirs = all.filter((p) => [p.a, p.b].some((side) => side && side.entry === mine));
  return theirs.find((p) => p.match && (p.match_status === "scheduled" || p.match_status === "active"))
    || theirs.find((p) => p.status === "waiting" || (p.status === "playing" && !p.match))
    || null;
}

// Knocked out of an elimination event (or of a groups-then-playoffs event once its playoff is
// drawn: not qualified, or out of the playoff): none of the matches still to be played or
// waiting for earlier results is theirs (a player still in always has one).
function knockedOut(event, bracket) {
  const entry = event.your_entry;
  if (!entry || event.status !== "running") return false;
  if (event.format === "two_stage") {
    if (!bracket.rounds.some((r) => r.stage === "playoff")) return false; // groups in play
  } else if (event.format !== "single_elim" && event.format !== "double_elim") {
    return false;
  }
  return bracket.rounds.length > 0 && !yourPairing(bracket, entry.id);
}

// Where a knocked-out player finishes: the round reached and the place, shared with everyone
// knocked out at the same stage ("5–8").
function yourPlace(standings, entry) {
  const row = standings.rows.find((r) => r.entry === entry);
  if (!row) return null;
  const shared = standings.rows.filter((r) => r.rank === row.rank).length;
  return { reached: row.reached, place: shared > 1 ? `${row.rank}–${row.rank + shared - 1}` : String(row.rank) };
}

function renderYourMatch(event, bracket, standings, live) {
  const box = document.getElementById("your-match");
  const entry = event.your_entry;
  const active = entry && (entry.status === "registered" || entry.status === "checked_in");
  if (!active || event.status !== "running") {
    box.hidden = true;
    box.replaceChildren();
    return;
  }
  const p = yourPairing(bracket, entry.id);
  const lines = [el("h2", { id: "your-match-title" }, gettext("Your match"))];
  if (!p && knockedOut(event, bracket)) {
    const where = yourPlace(standings, entry.id);
    lines.push(el("p", {}, el("span", { class: "state" }, gettext("You are out of the event.")),
      where ? ` ${fmt(gettext("Reached: %(reached)s; place %(place)s."), { reached: roundLabel(where.reached), place: where.place })}` : ""));
  } else if (!p) {
    lines.push(el("p", {}, el("span", { class: "state" }, gettext("No match for you now.")), ` ${gettext("Your next one shows here when it is paired.")}`));
  } else {
    const other = p.a && p.a.entry === entry.id ? p.b : p.a;
    const against = other ? [el("a", { href: `/players/${other.player.id}` }, other.player.name), kindTag(other.player)] : gettext("an opponent still to be decided");
    // Translators: "Round 2: you against Ada." (the opponent is a link).
    lines.push(el("p", {}, ...sentence(gettext("%(round)s: you against %(opponent)s."), { round: roundLabel(p.round), opponent: against }).flat()));
    const l = live.get(p.match);
    if (p.match_status === "scheduled") {
      const state = el("p", {}, el("span", { class: "state" }, gettext("Ready: waiting for both players to show up.")));
      if (p.start_deadline) {
        // Translators: the time is a countdown, e.g. "Show up within 4:59 or forfeit."
        state.append(" ", ...sentence(gettext("Show up within %(time)s or forfeit."), {
          time: el("span", { class: "countdown", dataset: { deadline: p.start_deadline } }, ""),
        }));
      }
      lines.push(state, el("p", {}, el("a", { class: "button primary", href: `/matches/${p.match}` }, gettext("Go to your match"))));
    } else if (p.match_status === "active" && atTable(p)) {
      // Played with real cards: the hands are entered on the score pad, which says whose turn
      // it is to confirm once they decide the match.
      const state = p.match_confirmation === "awaiting" ? gettext("Decided: waiting for the result to be confirmed.")
        : p.match_confirmation === "disputed" ? gettext("Disputed: an organiser decides.") : gettext("In play.");
      lines.push(el("p", {}, el("span", { class: "state" }, state), p.match_table ? ` ${fmt(gettext("At table %(table)s."), { table: p.match_table })}` : ""),
        el("p", {}, el("a", { class: "button primary", href: `/matches/${p.match}/pad` }, gettext("Open the score pad"))));
    } else if (p.match_status === "active") {
      const game = l && l.games ? l.games.find((g) => g.status === "active") : null;
      const index = p.a && p.a.entry === entry.id ? 0 : 1;
      const games = l ? `${l.games_won[index]}–${l.games_won[1 - index]}` : "";
      const score = !l ? ""
        : game ? ` ${fmt(gettext("Games %(games)s, game %(number)s in play."), { games, number: game.number + 1 })}`
          : ` ${fmt(gettext("Games %(games)s."), { games })}`;
      lines.push(el("p", {}, el("span", { class: "state" }, gettext("In play.")), score),
        el("p", {}, el("a", { class: "button primary", href: l && l.current_game ? `/games/${l.current_game}` : `/matches/${p.match}` }, gettext("Go to the table"))));
    } else {
      lines.push(el("p", {}, el("span", { class: "state" }, gettext("Waiting for earlier results.")), ` ${gettext("It starts when both players are known.")}`));
    }
  }
  box.replaceChildren(...lines);
  box.dataset.state = p ? p.match_status || "waiting" : knockedOut(event, bracket) ? "out" : "none";
  box.hidden = false;
  startCountdowns();
}

// --- entries (before the start) --------------------------------------------------------------

function renderEntries(event, standings) {
  const before = event.status === "draft" || event.status === "registration";
  document.getElementById("entries-section").hidden = !before;
  if (!before) return false;
  const items = standings.rows.map((row) => el("li", {},
    el("a", { href: `/players/${row.player.id}` }, row.player.name), kindTag(row.player),
    row.rating === null || row.rating === undefined ? null : el("span", { class: "rating" }, ` ${Math.round(row.rating)}`),
    row.status === "checked_in" ? el("span", { class: "tag" }, gettext("checked in")) : null));
  document.getElementById("entries").replaceChildren(...items);
  if (!items.length) document.getElementById("entries").replaceChildren(el("li", { class: "meta" }, gettext("Nobody yet.")));
  return true;
}

// --- standings -------------------------------------------------------------------------------

// The API names the columns that fit the format, in order, and leaves out empty ones.
const STANDING_LABELS = {
  ...COLUMNS,
  reached: gettext("Reached"),
  played: gettext("Played"),
  // Translators: wins–losses, a column's heading.
  wins: gettext("W–L"),
  byes: gettext("Byes"),
  games_won: gettext("Games"),
  rating: gettext("Rating"),
  points: gettext("Points"),
  sheet: gettext("Sheet"),
  streak: gettext("Streak"),
  berserk_wins: gettext("Berserk wins"),
  group: gettext("Group"),
  group_rank: gettext("Place in group"),
};
// Shown inside another column: wins with losses, games won with games lost.
const PAIRED = { losses: "wins", games_lost: "games_won" };

function standingCell(row, column) {
  switch (column) {
    case "reached": return row.reached === "Champion" ? `★ ${roundLabel(row.reached)}` : roundLabel(row.reached) || "";
    case "wins": return `${row.wins}–${row.losses}`;
    case "games_won": return `${row.games_won}–${row.games_lost}`;
    case "rating": return row.rating === null || row.rating === undefined ? "–" : String(Math.round(row.rating));
    case "played": case "byes": case "points": case "berserk_wins": case "group": return String(row[column] ?? "–");
    case "sheet": return (row.sheet || []).join(" ");
    case "streak": return `${row.streak}${row.on_fire ? " 🔥" : ""}`;
    default: return row[column] === null || row[column] === undefined ? "–" : number(row[column]);
  }
}

function renderStandings(standings) {
  const columns = (standings.columns || []).filter((c) => STANDING_LABELS[c] && !(PAIRED[c] && standings.columns.includes(PAIRED[c])));
  const head = [el("th", { scope: "col", class: "num" }, gettext("Rank")), el("th", { scope: "col" }, gettext("Player"))];
  for (const c of columns) head.push(el("th", { scope: "col", class: c === "reached" ? "" : "num" }, STANDING_LABELS[c]));
  const rows = standings.rows.map((row) => {
    const cells = [el("td", { class: "num" }, String(row.rank)),
      el("td", {}, el("a", { href: `/players/${row.player.id}` }, row.player.name), kindTag(row.player),
        row.status === "withdrawn" || row.status === "disqualified" ? el("span", { class: "tag" }, ENTRY_STATUS[row.status]) : null)];
    for (const c of columns) cells.push(el("td", { class: c === "reached" ? "" : "num" }, standingCell(row, c)));
    return el("tr", {}, ...cells);
  });
  document.getElementById("standings").replaceChildren(
    el("caption", { class: "sr-only" }, gettext("Standings")),
    el("thead", {}, el("tr", {}, ...head)), el("tbody", {}, ...rows));
  document.getElementById("standings-section").hidden = !standings.rows.length;
}

// --- refreshing ------------------------------------------------------------------------------

async function liveScores(bracket, mine = null) {
  const active = bracket.rounds.flatMap((r) => r.pairings).filter((p) => p.match_status === "active");
  // The viewer's own match first: its score and table are read even when many are in play.
  active.sort((x, y) => Number([y.a, y.b].some((s) => s && s.entry === mine)) - Number([x.a, x.b].some((s) => s && s.entry === mine)));
  const ids = active.map((p) => p.match);
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
  const mine = event.your_entry ? event.your_entry.id : null;
  const live = await liveScores(bracket, mine);
  if (shown !== null && shown !== seq) return; // a newer message came meanwhile
  renderEvent(event, knockedOut(event, bracket));
  renderYourMatch(event, bracket, standings, live);
  if (bracket.rounds.length) {
    if (event.format === "single_elim" || event.format === "double_elim") renderBracket(bracket, live, mine);
    else if (event.format === "two_stage") renderTwoStage(bracket, live, mine);
    else renderRounds(bracket, live, mine);
  }
  if (renderEntries(event, standings)) document.getElementById("standings-section").hidden = true;
  else renderStandings(standings);
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
      flash(flashBox, error instanceof ApiError ? error.detail : gettext("The connection failed: retrying."));
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
    flash(flashBox, error instanceof ApiError ? error.detail : gettext("The connection failed: retrying."));
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
