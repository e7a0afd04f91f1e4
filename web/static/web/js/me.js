// The signed-in player's own socket (/ws/me), opened on every page by base.html: a banner
// (role=alert) with a countdown when their tournament match waits for them; a notice for each
// challenge to them (the challenger's rating, the clock and the rules, Accept and Decline), gone
// once it is withdrawn; a notice with a link when their challenge is answered, the ladder pairs
// them, or an event's start withdrew them (they had not checked in). Each message is
// also dispatched on window as a "rummy:me" event (detail: the message), and the socket's
// state as "rummy:me-open" / "rummy:me-close", for the page's own script (the lobby).
import { api, ApiError, el, goTo, reasonOf, roundLabel } from "./api.js";
import { connect } from "./live.js";

const main = document.getElementById("content");
const banner = el("div", { id: "match-banner", class: "banner", role: "alert", hidden: true });
const notices = el("div", { id: "live-notices", class: "notices", role: "status", "aria-live": "polite" });
main.prepend(banner, notices);

const here = window.location.pathname;
let countdown = null;
let ready = null; // the match_ready message shown
let showingUp = false; // the player asked for the table: open it once the match starts

export const me = connect("/ws/me");
me.state = { open: false };

// A translated sentence whose placeholders may be nodes: "%(name)s challenges you:" with name an
// element gives [<strong>, " challenges you:"], for el()'s children.
function fill(text, values) {
  return text.split(/(%\(\w+\)s)/).map((piece) => {
    const name = /^%\((\w+)\)s$/.exec(piece);
    return name && name[1] in values ? values[name[1]] : piece;
  }).flat().filter((piece) => piece !== "");
}

// Why an event withdrew a player, as the server says it, in the reader's language when known.
const WITHDRAWAL_REASONS = { "did not check in": gettext("did not check in") };

function tell(type, detail) {
  window.dispatchEvent(new CustomEvent(type, { detail }));
}

function clock(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

function notice(key, ...children) {
  const old = notices.querySelector(`[data-key="${key}"]`);
  const node = el("p", { class: "notice", dataset: { key } }, ...children,
    el("button", { type: "button", class: "link", "aria-label": gettext("Dismiss"), onclick: () => node.remove() }, "×"));
  if (old) old.replaceWith(node);
  else notices.append(node);
}

function unnotice(key) {
  const old = notices.querySelector(`[data-key="${key}"]`);
  if (old) old.remove();
}

// --- the tournament match banner --------------------------------------------------------------

async function showUp(link) {
  if (link.getAttribute("aria-busy")) return;
  link.setAttribute("aria-busy", "true");
  try {
    const { data } = await api(`/api/events/${ready.event.id}/matches/${ready.match}/ready`, { method: "POST" });
    if (data.status === "active") {
      const { data: match } = await api(`/api/matches/${ready.match}`);
      if (match.current_game) {
        goTo(`/games/${match.current_game}`);
        return;
      }
    }
    showingUp = true;
    link.textContent = gettext("Waiting for your opponent…"); // their arrival is pushed: match_ready active
  } catch (error) {
    link.removeAttribute("aria-busy");
    if (!(error instanceof ApiError)) return;
    banner.querySelector(".problem").textContent = ` ${error.detail}`;
  }
}

// Whether this page is the table of that match: its game, or the score pad of a match played
// with real cards (whose games all open the pad).
function isHere(match, game) {
  return (game && here === `/games/${game}`) || here === `/matches/${match}/pad`;
}

function tableLink(message) {
  if (message.venue === "table") return `/matches/${message.match}/pad`;
  return message.game ? `/games/${message.game}` : `/matches/${message.match}`;
}

function renderBanner(message) {
  clearInterval(countdown);
  ready = message;
  if (!message || (message.status !== "scheduled" && message.status !== "active")) {
    banner.hidden = true;
    banner.replaceChildren();
    return;
  }
  const where = [el("a", { href: `/events/${message.event.id}` }, message.event.name), ` (${roundLabel(message.round)})`];
  if (message.status === "active") {
    if (showingUp && message.game) {
      goTo(`/games/${message.game}`);
      return;
    }
    if (isHere(message.match, message.game)) {
      banner.hidden = true;
      return;
    }
    const table = message.venue === "table";
    const versus = table && message.table
      // Translators: after the event's name and round: the opponent, and the table (a number) to play at.
      ? interpolate(gettext("v %(opponent)s at table %(table)s."), { opponent: message.opponent.name, table: message.table }, true)
      // Translators: after the event's name and round: the opponent.
      : interpolate(gettext("v %(opponent)s."), { opponent: message.opponent.name }, true);
    banner.replaceChildren(
      el("strong", {}, gettext("Your tournament match has started.") + " "), ...where, " " + versus + " ",
      el("a", { class: "button primary", href: tableLink(message) }, table ? gettext("Open the score pad") : gettext("Go to the table")));
    banner.hidden = false;
    return;
  }
  const left = el("span", { class: "countdown", "aria-label": gettext("time left to show up") });
  const link = el("a", {
    class: "button primary",
    href: `/matches/${message.match}`,
    onclick: (event) => { event.preventDefault(); showUp(event.currentTarget); },
  }, message.you_ready ? gettext("Waiting for your opponent…") : gettext("Go to the table"));
  banner.replaceChildren(
    el("strong", {}, gettext("Your tournament match is ready.") + " "), ...where, " ",
    // Translators: after the event's name and round; time is a countdown (2:59), "the grace period" or "0:00 (time is up)".
    ...fill(gettext("v %(opponent)s: show up within %(time)s or forfeit."), { opponent: message.opponent.name, time: left }),
    " ", link, el("span", { class: "problem" }));
  const deadline = message.deadline ? new Date(message.deadline).getTime() : null;
  const tick = () => {
    if (deadline === null) { left.textContent = gettext("the grace period"); return; }
    const ms = deadline - Date.now();
    left.textContent = ms > 0 ? clock(ms) : gettext("0:00 (time is up)");
    if (ms <= 0) clearInterval(countdown);
  };
  tick();
  if (deadline !== null) countdown = setInterval(tick, 1000);
  banner.hidden = false;
}

// --- notices -----------------------------------------------------------------------------------

// How a challenger is rated, in words: "1520", "1500?" while provisional, with the pool.
function ratingText(rating) {
  if (!rating || typeof rating.rating !== "number") return "";
  const pool = rating.pool && rating.pool.name ? ` ${rating.pool.name}` : "";
  return ` (${Math.round(rating.rating)}${rating.provisional ? "?" : ""}${pool})`;
}

// Accept or decline from the notice. Accepted: to the table; declined: the notice says so; a
// refusal (answered or withdrawn meanwhile, a tournament match waiting) in the API's words,
// with the way to the match it names.
async function answer(message, node, accept) {
  if (node.getAttribute("aria-busy")) return;
  node.setAttribute("aria-busy", "true");
  const problem = node.querySelector(".problem");
  problem.replaceChildren();
  try {
    const { data } = await api(`/api/matches/${message.match}/${accept ? "accept" : "decline"}`, { method: "POST" });
    if (accept) {
      goTo(data.current_game ? `/games/${data.current_game}` : `/matches/${message.match}`);
      return;
    }
    notice(`challenge-${message.match}`, interpolate(gettext("You declined %(name)s's challenge."), { name: message.challenger.name }, true));
  } catch (error) {
    node.removeAttribute("aria-busy");
    problem.append(el("br"), reasonOf(error)); // on a line of its own, under the buttons
    const url = error instanceof ApiError && typeof error.body.url === "string" ? error.body.url : null;
    if (url && url.startsWith("/")) problem.append(" ", el("a", { href: url }, gettext("Go to your match")));
    if (error instanceof ApiError && error.status === 409 && error.code === "not_pending") {
      node.querySelectorAll(".answer").forEach((button) => button.remove());
    }
  }
}

// A challenge to this player: who (with their rating), the clock and the rules, Accept and
// Decline. Kept while it waits (data-pending), so a summary can drop the ones gone meanwhile.
function invitation(message) {
  const key = `challenge-${message.match}`;
  const node = el("p", { class: "notice challenge", dataset: { key, pending: "true" } },
    // Translators: name is the challenger's name and rating, e.g. "Ann (1520?) challenges you:"; the clock follows.
    ...fill(gettext("%(name)s challenges you:"), { name: [el("strong", {}, message.challenger.name), ratingText(message.challenger_rating)] }), " ",
    el("span", { class: "challenge-clock" }, typeof message.clock === "string" ? message.clock : ""), el("br"),
    el("span", { class: "challenge-rules" }, typeof message.rules === "string" ? message.rules : ""), el("br"),
    el("button", { type: "button", class: "button primary answer", onclick: () => answer(message, node, true) }, gettext("Accept")), " ",
    el("button", { type: "button", class: "button answer", onclick: () => answer(message, node, false) }, gettext("Decline")),
    el("span", { class: "problem" }),
    el("button", { type: "button", class: "link", "aria-label": gettext("Dismiss"), onclick: () => node.remove() }, "×"));
  const old = notices.querySelector(`[data-key="${key}"]`);
  if (old) old.replaceWith(node);
  else notices.append(node);
}

function challenge(message) {
  const key = `challenge-${message.match}`;
  const onLobby = here === "/lobby"; // the lobby lists challenges itself
  if (message.status === "challenged") {
    if (!onLobby && here !== `/matches/${message.match}`) invitation(message); // nor its own page
  } else if (message.status === "accepted") {
    notice(key, interpolate(gettext("%(name)s accepted your challenge."), { name: message.opponent.name }, true) + " ",
      el("a", { class: "button primary", href: message.game ? `/games/${message.game}` : `/matches/${message.match}` }, gettext("Go to the table")));
  } else if (message.status === "declined") {
    notice(key, interpolate(gettext("%(name)s declined your challenge."), { name: message.opponent.name }, true));
  } else {
    unnotice(key);
    if (!onLobby) notice(key, interpolate(gettext("%(name)s withdrew their challenge."), { name: message.challenger.name }, true));
  }
}

function pairing(message) {
  if (message.game && here === `/games/${message.game}`) return;
  const text = interpolate(gettext("%(ladder)s: paired with %(opponent)s."), { ladder: message.ladder.name, opponent: message.opponent.name }, true);
  notice(`pairing-${message.match}`, text + " ",
    el("a", { class: "button primary", href: message.game ? `/games/${message.game}` : `/matches/${message.match}` }, gettext("Go to the table")));
}

function withdrawn(message) {
  const reason = WITHDRAWAL_REASONS[message.reason] || message.reason;
  // Translators: an event's start withdrew the reader; reason: e.g. "did not check in".
  const text = interpolate(gettext("%(event)s: you were withdrawn (%(reason)s)."), { event: message.event.name, reason }, true);
  notice(`withdrawn-${message.entry}`, text + " ", el("a", { href: `/events/${message.event.id}` }, gettext("The event")));
}

function summary(message) {
  renderBanner(message.match_ready);
  // Each open challenge its own notice; one answered or withdrawn while the socket was away goes.
  const open = new Set(message.challenges.map((c) => `challenge-${c.match}`));
  for (const node of notices.querySelectorAll("[data-pending]")) {
    if (!open.has(node.dataset.key)) node.remove();
  }
  for (const c of message.challenges) {
    if (!notices.querySelector(`[data-key="challenge-${c.match}"][data-pending]`)) challenge(c);
  }
  const active = message.active;
  if (active && !isHere(active.match, active.game) && !message.match_ready) {
    notice("active", interpolate(gettext("Your match v %(opponent)s is in play."), { opponent: active.opponent.name }, true) + " ",
      el("a", { href: `/games/${active.game}` }, gettext("Return to the table")));
  } else {
    unnotice("active");
  }
}

me.on("open", () => { me.state.open = true; tell("rummy:me-open"); });
me.on("close", () => { me.state.open = false; tell("rummy:me-close"); });
for (const type of ["summary", "challenge", "pairing", "match_ready", "entry_withdrawn"]) {
  me.on(type, (message) => {
    if (type === "summary") summary(message);
    else if (type === "challenge") challenge(message);
    else if (type === "pairing") pairing(message);
    else if (type === "entry_withdrawn") withdrawn(message);
    else renderBanner(message);
    tell("rummy:me", message);
  });
}
window.rummyMe = me;
