// The signed-in player's own socket (/ws/me), opened on every page by base.html: a banner
// (role=alert) with a countdown when their tournament match waits for them; a notice for each
// challenge to them (the challenger's rating, the clock and the rules, Accept and Decline), gone
// once it is withdrawn; a notice with a link when their challenge is answered, the ladder pairs
// them, or an event's start withdrew them (they had not checked in). Each message is
// also dispatched on window as a "rummy:me" event (detail: the message), and the socket's
// state as "rummy:me-open" / "rummy:me-close", for the page's own script (the lobby).
import { api, ApiError, el, goTo, reasonOf } from "./api.js";
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
    el("button", { type: "button", class: "link", "aria-label": "Dismiss", onclick: () => node.remove() }, "×"));
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
    link.textContent = "Waiting for your opponent…"; // their arrival is pushed: match_ready active
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
  const where = [el("a", { href: `/events/${message.event.id}` }, message.event.name), ` (${message.round})`];
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
    banner.replaceChildren(
      el("strong", {}, "Your tournament match has started. "), ...where, ` v ${message.opponent.name}${table && message.table ? ` at table ${message.table}` : ""}. `,
      el("a", { class: "button primary", href: tableLink(message) }, table ? "Open the score pad" : "Go to the table"));
    banner.hidden = false;
    return;
  }
  const left = el("span", { class: "countdown", "aria-label": "time left to show up" });
  const link = el("a", {
    class: "button primary",
    href: `/matches/${message.match}`,
    onclick: (event) => { event.preventDefault(); showUp(event.currentTarget); },
  }, message.you_ready ? "Waiting for your opponent…" : "Go to the table");
  banner.replaceChildren(
    el("strong", {}, "Your tournament match is ready. "), ...where, ` v ${message.opponent.name}: show up within `,
    left, " or forfeit. ", link, el("span", { class: "problem" }));
  const deadline = message.deadline ? new Date(message.deadline).getTime() : null;
  const tick = () => {
    if (deadline === null) { left.textContent = "the grace period"; return; }
    const ms = deadline - Date.now();
    left.textContent = ms > 0 ? clock(ms) : "0:00 (time is up)";
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
    notice(`challenge-${message.match}`, `You declined ${message.challenger.name}'s challenge.`);
  } catch (error) {
    node.removeAttribute("aria-busy");
    problem.append(el("br"), reasonOf(error)); // on a line of its own, under the buttons
    const url = error instanceof ApiError && typeof error.body.url === "string" ? error.body.url : null;
    if (url && url.startsWith("/")) problem.append(" ", el("a", { href: url }, "Go to your match"));
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
    el("strong", {}, message.challenger.name), ratingText(message.challenger_rating), " challenges you: ",
    el("span", { class: "challenge-clock" }, typeof message.clock === "string" ? message.clock : ""), el("br"),
    el("span", { class: "challenge-rules" }, typeof message.rules === "string" ? message.rules : ""), el("br"),
    el("button", { type: "button", class: "button primary answer", onclick: () => answer(message, node, true) }, "Accept"), " ",
    el("button", { type: "button", class: "button answer", onclick: () => answer(message, node, false) }, "Decline"),
    el("span", { class: "problem" }),
    el("button", { type: "button", class: "link", "aria-label": "Dismiss", onclick: () => node.remove() }, "×"));
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
    notice(key, `${message.opponent.name} accepted your challenge. `,
      el("a", { class: "button primary", href: message.game ? `/games/${message.game}` : `/matches/${message.match}` }, "Go to the table"));
  } else if (message.status === "declined") {
    notice(key, `${message.opponent.name} declined your challenge.`);
  } else {
    unnotice(key);
    if (!onLobby) notice(key, `${message.challenger.name} withdrew their challenge.`);
  }
}

function pairing(message) {
  if (message.game && here === `/games/${message.game}`) return;
  notice(`pairing-${message.match}`, `${message.ladder.name}: paired with ${message.opponent.name}. `,
    el("a", { class: "button primary", href: message.game ? `/games/${message.game}` : `/matches/${message.match}` }, "Go to the table"));
}

function withdrawn(message) {
  notice(`withdrawn-${message.entry}`, `${message.event.name}: you were withdrawn (${message.reason}). `,
    el("a", { href: `/events/${message.event.id}` }, "The event"));
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
    notice("active", `Your match v ${active.opponent.name} is in play. `, el("a", { href: `/games/${active.game}` }, "Return to the table"));
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
