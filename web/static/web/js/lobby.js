// The lobby: play the computer in one tap, or challenge a bot or a person with the custom
// form (POST /api/matches, then to the table); answer challenges; join or leave a ladder
// queue, watching the wait until the matchmaker pairs us. The player's own socket (me.js,
// "rummy:me" events) shows a new challenge and a pairing at once; the queue is polled as
// well, slowly while that socket is open. A refusal shows the server's reason (its
// ``detail``) and, when it names the player's match elsewhere, the way there. The open games
// (seeks) come live on the lobby's socket (ws/lobby), GET /api/seeks while it is not open:
// Join plays one at once; a posted game of ours waits here with Cancel until someone joins,
// and the socket then takes us to the table.
import { api, ApiError, el, flash, goTo, reasonOf } from "./api.js";
import { startCountdowns } from "./countdown.js";
import { connect } from "./live.js";

const flashBox = document.getElementById("lobby-flash");
const myId = flashBox ? Number(flashBox.dataset.me) : null;
const QUEUE_POLL_MS = 2000;
const QUEUE_POLL_LIVE_MS = 10000;

function socketOpen() {
  return Boolean(window.rummyMe && window.rummyMe.isOpen);
}

// Where a refusal sends the player: the page its body names (``url``, as the 409
// in_tournament_match gives it), else the match it names, if it is the player's own.
function wayThere(error) {
  if (!(error instanceof ApiError)) return null;
  const { url, match, player } = error.body;
  if (player !== undefined && player !== myId) return null; // about the other player
  if (typeof url === "string" && url.startsWith("/")) return url;
  if (Number.isInteger(match)) return `/matches/${match}`;
  return null;
}

function refused(error, what) {
  // Translators: what failed, then the server's reason ("The challenge failed: ...").
  const text = interpolate(gettext("%(what)s: %(reason)s"), { what, reason: reasonOf(error) }, true);
  const href = wayThere(error);
  flash(flashBox, text, { ms: href ? 20000 : 8000 });
  if (href) flashBox.append(" ", el("a", { href, class: "button small", id: "refusal-go" }, gettext("Go to your match")));
}

// --- play the computer in one tap ---------------------------------------------------------------

const quickGame = document.getElementById("quick-game");
const levels = [...document.querySelectorAll("button.level")];

async function playComputer(button) {
  if (levels.some((b) => b.disabled)) return; // one game at a time, once
  for (const b of levels) b.disabled = true;
  button.setAttribute("aria-busy", "true");
  const body = { ...JSON.parse(quickGame.textContent), opponent: Number(button.dataset.opponent) };
  try {
    const { data: match } = await api("/api/matches", { method: "POST", body });
    goTo(match.current_game ? `/games/${match.current_game}` : `/matches/${match.id}`);
  } catch (error) {
    refused(error, gettext("The game did not start"));
    for (const b of levels) b.disabled = false;
    button.removeAttribute("aria-busy");
  }
}

for (const button of levels) button.addEventListener("click", () => playComputer(button));

const countdowns = document.querySelector("#tournament-notice [data-deadline]");
if (countdowns) startCountdowns();

// --- challenge a bot -----------------------------------------------------------------------

const form = document.getElementById("challenge-form");

// The last challenge's settings (not the opponent) come back for the next one, in this
// browser's storage.
const SETTINGS_KEY = "rummy:challenge-settings";
const REMEMBERED = ["time_control", "turn_limit", "timeout_policy", "rules", "target", "best_of"];

function rememberSettings(data) {
  const settings = Object.fromEntries(REMEMBERED.map((name) => [name, data.get(name)]));
  try {
    localStorage.setItem(SETTINGS_KEY, JSON.stringify(settings));
  } catch {
    // storage refused (a private window): nothing is remembered
  }
}

function restoreSettings() {
  let settings;
  try {
    settings = JSON.parse(localStorage.getItem(SETTINGS_KEY) || "null");
  } catch {
    return;
  }
  if (!settings || typeof settings !== "object") return;
  for (const name of REMEMBERED) {
    const value = settings[name];
    if (typeof value !== "string") continue;
    const field = form.elements.namedItem(name);
    if (field instanceof HTMLSelectElement) {
      if ([...field.options].some((o) => o.value === value)) field.value = value;
    } else if (field) {
      const radio = [...form.querySelectorAll(`input[name="${name}"]`)].find((r) => r.value === value);
      if (radio) radio.checked = true;
    }
  }
}

if (form) {
  restoreSettings();
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const submit = document.getElementById("challenge-submit");
    if (submit.disabled) return; // a second click while the first is on its way
    submit.disabled = true;
    submit.setAttribute("aria-busy", "true");
    const data = new FormData(form);
    const clock = form.querySelector('input[name="time_control"]:checked');
    const body = {
      opponent: Number(data.get("opponent")),
      rules: data.get("rules"),
      target: Number(data.get("target")),
      best_of: Number(data.get("best_of")),
    };
    if (clock && clock.dataset.base) {
      body.time_control = {
        base_seconds: Number(clock.dataset.base),
        increment_seconds: Number(clock.dataset.increment),
        timeout_policy: data.get("timeout_policy"),
      };
      if (data.get("turn_limit")) body.time_control.turn_limit_seconds = Number(data.get("turn_limit"));
    }
    try {
      const { data: match } = await api("/api/matches", { method: "POST", body });
      rememberSettings(data);
      goTo(match.current_game ? `/games/${match.current_game}` : `/matches/${match.id}`);
    } catch (error) {
      refused(error, gettext("The challenge failed"));
      submit.disabled = false;
      submit.removeAttribute("aria-busy");
    }
  });
}

// --- answer or withdraw challenges ------------------------------------------------------------

function commandButton(button) {
  button.addEventListener("click", async () => {
    if (button.disabled) return;
    button.disabled = true;
    const { command, match } = button.dataset;
    try {
      const { data } = await api(`/api/matches/${match}/${command}`, { method: "POST" });
      if (command === "accept" && data.current_game) goTo(`/games/${data.current_game}`);
      else window.location.reload();
    } catch (error) {
      refused(error, gettext("That did not work"));
      button.disabled = false;
    }
  });
  return button;
}

for (const button of document.querySelectorAll("[data-command]")) commandButton(button);

// "one game to 100", "best of 3 games to 250": never "best of 1".
function matchLength(bestOf, target) {
  if (bestOf === 1) return interpolate(gettext("one game to %(target)s"), { target }, true);
  // Translators: a match's length; count is 3 or more (an odd number).
  return interpolate(gettext("best of %(count)s games to %(target)s"), { count: bestOf, target }, true);
}

// "5 min", "30 s": a clock's durations.
function minutes(n) {
  return interpolate(pgettext("clock", "%(minutes)s min"), { minutes: n }, true);
}

function seconds(n) {
  return interpolate(pgettext("clock", "%(seconds)s s"), { seconds: n }, true);
}

// "5 min + 3 s": a base time and its increment.
function withIncrement(base, increment) {
  return interpolate(pgettext("clock", "%(base)s + %(increment)s"), { base, increment: seconds(increment) }, true);
}

function timeControlOf(message) {
  const tc = message.time_control;
  if (!tc) return gettext("untimed");
  const base = tc.base_seconds % 60 ? seconds(tc.base_seconds) : minutes(tc.base_seconds / 60);
  return tc.increment_seconds ? withIncrement(base, tc.increment_seconds) : base;
}

// A challenge to me, pushed: listed with its buttons, as the page lists the others.
function addIncoming(message) {
  if (document.querySelector(`#incoming [data-match="${message.match}"], li[data-match="${message.match}"]`)) return;
  let list = document.getElementById("incoming");
  if (!list) {
    const panel = document.getElementById("current-title").parentElement;
    list = el("ul", { id: "incoming", class: "matches plain" });
    panel.append(el("h3", {}, gettext("Challenges to me")), list);
  }
  const button = (command, label) => commandButton(el("button", { type: "button", class: "button small", dataset: { command, match: String(message.match) } }, label));
  list.append(el("li", { dataset: { match: String(message.match) } },
    // Translators: a challenge to the reader, e.g. "Ann challenges you (5 min + 3 s, one game to 100)".
    interpolate(gettext("%(name)s challenges you (%(clock)s, %(length)s)"), {
      name: message.challenger.name, clock: timeControlOf(message), length: matchLength(message.best_of, message.target),
    }, true), " ",
    button("accept", gettext("Accept")), " ", button("decline", gettext("Decline"))));
}

window.addEventListener("rummy:me", ({ detail: message }) => {
  if (message.type === "summary") {
    for (const c of message.challenges) addIncoming(c);
  } else if (message.type === "challenge") {
    if (message.status === "challenged") addIncoming(message);
    else if (message.status === "accepted" && message.game) goTo(`/games/${message.game}`);
    else {
      const item = document.querySelector(`li[data-match="${message.match}"]`);
      if (item) item.remove();
      if (message.status === "declined") flash(flashBox, interpolate(gettext("%(name)s declined your challenge."), { name: message.opponent.name }, true), { kind: "warning" });
    }
  } else if (message.type === "pairing" && message.game) {
    goTo(`/games/${message.game}`);
  }
});

// --- ladder queues -----------------------------------------------------------------------------

const ladders = document.getElementById("ladders");

function waited(seconds) {
  const s = Math.floor(seconds || 0);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

function timeControlText(tc) {
  if (!tc) return gettext("untimed");
  const base = tc.base_seconds % 60 === 0 ? minutes(tc.base_seconds / 60) : seconds(tc.base_seconds);
  const clock = tc.increment_seconds ? withIncrement(base, tc.increment_seconds) : base;
  if (!tc.turn_limit_seconds) return clock;
  // Translators: a clock with a limit on each turn, e.g. "5 min + 3 s, 30 s a turn".
  return interpolate(gettext("%(clock)s, %(seconds)s s a turn"), { clock, seconds: tc.turn_limit_seconds }, true);
}

class QueueWidget {
  constructor(ladder) {
    this.ladder = ladder;
    this.status = null;
    this.busy = false;
    this.timer = null;
    this.node = el("li", { class: "ladder", dataset: { ladder: String(ladder.id) } });
  }

  async refresh() {
    clearTimeout(this.timer);
    try {
      const { data } = await api(`/api/ladders/${this.ladder.id}/queue`);
      this.status = data;
    } catch (error) {
      if (!(error instanceof ApiError)) this.status = this.status || null;
    }
    this.render();
    if (this.status && this.status.status === "waiting") {
      this.timer = setTimeout(() => this.refresh(), socketOpen() ? QUEUE_POLL_LIVE_MS : QUEUE_POLL_MS);
    }
    if (this.status && this.status.status === "paired" && this.status.match && this.status.match.current_game
        && this.wasWaiting) {
      goTo(`/games/${this.status.match.current_game}`);
    }
    this.wasWaiting = this.status && this.status.status === "waiting";
  }

  async command(method) {
    if (this.busy) return;
    this.busy = true;
    this.render();
    try {
      await api(`/api/ladders/${this.ladder.id}/queue`, { method });
      flash(flashBox, "");
      this.wasWaiting = method === "POST"; // a pairing now takes us to the table
    } catch (error) {
      refused(error, method === "POST" ? gettext("Could not join the queue") : gettext("Could not leave the queue"));
    }
    this.busy = false;
    await this.refresh();
  }

  render() {
    const ladder = this.ladder;
    const s = this.status;
    const parts = [
      el("h3", {}, ladder.name),
      el("p", { class: "meta" }, `${timeControlText(ladder.time_control)} · ${matchLength(ladder.best_of, ladder.target)} · `,
        el("a", { href: `/leaderboard?ladder=${ladder.id}` }, gettext("leaderboard"))),
    ];
    if (s) {
      if (s.rating !== null && s.rating !== undefined) parts.push(el("p", {}, interpolate(gettext("Your rating: %(rating)s"), { rating: Math.round(s.rating) }, true)));
      if (s.status === "waiting") {
        parts.push(el("p", { class: "waiting", role: "status" },
          // Translators: the time waited in a ladder's queue, as minutes:seconds.
          interpolate(gettext("Waiting %(time)s"), { time: waited(s.waited_seconds) }, true),
          // Translators: the spread of ratings the matchmaker accepts now, e.g. "accepting ±150 rating".
          s.window ? " · " + interpolate(gettext("accepting ±%(points)s rating"), { points: Math.round(s.window) }, true) : ""));
        parts.push(el("button", { type: "button", class: "button", disabled: this.busy, onclick: () => this.command("DELETE") }, gettext("Leave the queue")));
      } else if (s.status === "paired" && s.match) {
        const href = s.match.current_game ? `/games/${s.match.current_game}` : `/matches/${s.match.id}`;
        parts.push(el("p", { role: "status" }, gettext("Paired!") + " ", el("a", { href, class: "button primary" }, gettext("Go to your match"))));
      } else if (ladder.matchmaking && ladder.matchmaking.bots_only) {
        parts.push(el("p", { class: "meta" }, gettext("For bots only: play here through a bot of yours (see Write a bot in the docs).")));
      } else {
        parts.push(el("button", { type: "button", class: "button primary", disabled: this.busy || !ladder.is_open, onclick: () => this.command("POST") },
          ladder.is_open ? gettext("Join the queue") : gettext("Closed")));
      }
    }
    this.node.replaceChildren(...parts);
  }
}

async function loadLadders() {
  if (!ladders) return;
  let list;
  try {
    const { data } = await api(`${ladders.dataset.api}?page_size=20`);
    list = data.results || data;
  } catch {
    return; // no ladders here (yet)
  }
  // A ladder for bots only is played through a bot: shown to those who run one.
  const botOwner = ladders.dataset.botOwner === "true";
  list = list.filter((ladder) => botOwner || !(ladder.matchmaking && ladder.matchmaking.bots_only));
  if (!list.length) return;
  const ul = document.getElementById("ladder-list");
  for (const ladder of list) {
    const widget = new QueueWidget(ladder);
    ul.append(widget.node);
    widget.render();
    widget.refresh();
  }
  ladders.hidden = false;
}

loadLadders();

// --- open games (seeks) ------------------------------------------------------------------------

const openGames = document.getElementById("open-games");
const RULE_NAMES = {
  standard: pgettext("rules", "Standard"),
  oklahoma: pgettext("rules", "Oklahoma"),
  straight: pgettext("rules", "Straight gin"),
  hollywood: pgettext("rules", "Hollywood"),
};
const SEEK_POLL_MS = 5000;

// "Standard, knock at 10" / "Oklahoma" / "Straight gin": the rules in one line.
function rulesLine(rules) {
  const name = RULE_NAMES[rules.name] || rules.name;
  if (rules.straight || rules.oklahoma) return name;
  // Translators: the rules' name and the most deadwood one may knock with, e.g. "Standard, knock at 10".
  return interpolate(gettext("%(rules)s, knock at %(limit)s"), { rules: name, limit: rules.knock_limit }, true);
}

function seekItem(seek) {
  const mine = seek.poster.id === myId;
  const range = seek.rating_min !== null || seek.rating_max !== null
    // Translators: the ratings an open game accepts, e.g. "ratings 1400–1600" (either end may be empty).
    ? " · " + interpolate(gettext("ratings %(min)s–%(max)s"), { min: seek.rating_min ?? "", max: seek.rating_max ?? "" }, true) : "";
  const button = mine
    ? el("button", { type: "button", class: "button small", onclick: (e) => seekCommand(e.currentTarget, seek, "cancel") }, gettext("Cancel"))
    : el("button", { type: "button", class: "button small primary", onclick: (e) => seekCommand(e.currentTarget, seek, "join") }, gettext("Join"));
  return el("li", { class: mine ? "seek mine" : "seek", dataset: { seek: String(seek.id) } },
    el("span", { class: "who" }, mine ? gettext("You") : seek.poster.name, el("span", { class: "meta" }, ` (${seek.poster.rating})`)),
    el("span", { class: "what" }, [rulesLine(seek.rules), timeControlText(seek.time_control), matchLength(seek.best_of, seek.target),
      seek.rated ? pgettext("open game", "rated") : pgettext("open game", "casual")].join(" · ") + range),
    button);
}

// The list last received: drawn again now and then, as an open game past its 10 minutes
// leaves the list without a message.
let lastSeeks = [];

function showSeeks(seeks) {
  lastSeeks = seeks;
  const now = Date.now();
  const open = seeks.filter((s) => s.status === "open" && Date.parse(s.expires_at) > now);
  document.getElementById("seek-list").replaceChildren(...open.map(seekItem));
  document.getElementById("seek-empty").hidden = open.length > 0;
}

async function seekCommand(button, seek, command) {
  if (button.disabled) return;
  button.disabled = true;
  button.setAttribute("aria-busy", "true");
  try {
    const { data } = await api(`/api/seeks/${seek.id}/${command}`, { method: "POST" });
    if (command === "join" && data.game) {
      goTo(`/games/${data.game}`);
      return;
    }
    await pollSeeks();
  } catch (error) {
    refused(error, command === "join" ? gettext("Could not join") : gettext("Could not cancel"));
    button.disabled = false;
    button.removeAttribute("aria-busy");
    pollSeeks();
  }
}

let lobbySocket = null;
let seekTimer = null;

async function pollSeeks() {
  clearTimeout(seekTimer);
  try {
    const { data } = await api(openGames.dataset.api);
    showSeeks(data);
  } catch {
    // the next message or poll repairs it
  }
  if (!(lobbySocket && lobbySocket.isOpen)) seekTimer = setTimeout(pollSeeks, SEEK_POLL_MS);
}

if (openGames) {
  const seekForm = document.getElementById("seek-form");
  seekForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    const submit = document.getElementById("seek-submit");
    if (submit.disabled) return;
    submit.disabled = true;
    const data = new FormData(seekForm);
    const clock = seekForm.querySelector("#seek-clock").selectedOptions[0];
    const body = { rules: data.get("rules"), target: Number(data.get("target")), best_of: 1, rated: false };
    if (clock && clock.dataset.base) {
      body.time_control = { base_seconds: Number(clock.dataset.base), increment_seconds: Number(clock.dataset.increment) };
    }
    const spread = Number(data.get("range"));
    if (spread) {
      const mine = Number(openGames.dataset.rating);
      body.rating_min = Math.max(0, mine - spread);
      body.rating_max = mine + spread;
    }
    try {
      await api(openGames.dataset.api, { method: "POST", body });
      flash(flashBox, gettext("Your game is open: wait here, the table opens when someone joins."), { kind: "info" });
      await pollSeeks();
    } catch (error) {
      refused(error, gettext("Could not post the game"));
    }
    submit.disabled = false;
  });
  setInterval(() => showSeeks(lastSeeks), 15000);
  lobbySocket = connect("/ws/lobby");
  lobbySocket.on("seeks", (message) => showSeeks(message.seeks));
  lobbySocket.on("seek_taken", (message) => { if (message.url) goTo(message.url); });
  lobbySocket.on("close", () => { clearTimeout(seekTimer); seekTimer = setTimeout(pollSeeks, SEEK_POLL_MS); });
  lobbySocket.on("open", () => clearTimeout(seekTimer));
  pollSeeks();
}
