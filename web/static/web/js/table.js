// The live table. Listens on the table socket (ws/games/{id}): the server pushes this
// viewer's view after every change, numbered (seq), and takes moves ({type: "move", id, ply,
// action}, answered ack or error). While the socket is down it polls GET /api/games/{id} with
// If-None-Match (an empty 304 until something happens) and moves by POSTing to
// /api/games/{id}/actions, and it reconnects with a growing delay. Both clocks count down
// locally between views. The server is the only judge: a refused move shows why and the
// table is fetched afresh.
import { api, ApiError, el, fill, flash, kindTag, signInAgain, goTo } from "./api.js";
import { cardBack, cardFace, cardLabel, cardList, cardText, cardsText } from "./cards.js";
import { play } from "./sounds.js";

const POLL_MS = 800; // the opponent's move shows within a second
const HIDDEN_MS = 4000; // a background tab polls gently
const CLOCK_TICK_MS = 100;

const root = document.getElementById("table");
const gameId = root.dataset.game;
const matchId = root.dataset.match;
const you = root.dataset.you === "" ? null : Number(root.dataset.you);
// The match's rule set (every option of the engine's RuleSet), for the score sheet's words.
const rules = JSON.parse((document.getElementById("table-rules") || { textContent: "{}" }).textContent);
// A rated match: {pool, players: [{rating, provisional}, ...]} in seat order (null: unrated).
const seatRatings = JSON.parse((document.getElementById("table-ratings") || { textContent: "null" }).textContent);
// "Confirm before discarding" (the account's preference): a tapped card is only chosen.
const confirmDiscard = document.body.dataset.confirmDiscard === "on";
// A finger, not a mouse pointer: say "Tap".
const touch = window.matchMedia("(pointer: coarse)").matches || window.matchMedia("(max-width: 40rem)").matches;

const $ = (id) => document.getElementById(id);
const flashBox = $("flash");

const state = {
  view: null,
  etag: null,
  receivedAt: 0,
  match: null,
  busy: false,
  mode: null, // "knock" or "gin" while choosing the card to put face down
  chosen: null, // with confirmDiscard: the card chosen to discard, until tapped again
  lowWarned: null, // the ply whose low clock has been sounded
  newCards: new Set(),
  timer: null,
  stopped: false,
  zeroPolled: new Set(),
  status: "",
  socket: null, // the table socket while it is open
  retryMs: 1000, // the next reconnect's delay (doubles to RETRY_MAX_MS)
  pending: new Map(), // move id -> {resolve, reject} until its ack or error
  nextId: 1,
  presence: null, // [{connected, away_since}] per player
  lagMs: null,
  ratingTries: 0, // fetches of the match since it finished without its rating change yet
  ratingTimer: null,
  queue: null, // after a ladder match: {ladder, timer} while waiting in its queue again
};
const RETRY_MAX_MS = 15000;
// A socket error's code as the HTTP status the REST API answers it with.
const SOCKET_STATUS = { not_a_player: 403, not_authenticated: 401, invalid: 400, throttled: 429 };
// A game an organiser decided ends as a forfeit whose reason begins with these words.
const ORGANISER = /^decided by an organiser:?\s*/i;
const MOVE_TIMEOUT_MS = 8000;
// A rated match's rating change is written with its result; if that failed, the ladders'
// sweep writes it within a second or two: ask again until it is there (or give up quietly).
const RATING_RETRY_MS = 1500;
const RATING_TRIES = 40;
const QUEUE_POLL_MS = 1500;

// A translated text with its named placeholders filled in ("%(card)s").
const t = (format, values) => interpolate(format, values, true);

// The words are read in the page's language (Django's JavaScript catalogue); the keys stay.
const ACTIONS = {
  take_upcard: { key: "u", label: (v) => t(gettext("Take the upcard %(card)s"), { card: cardText(pileTop(v)) }) },
  pass: { key: "p", label: () => pgettext("move", "Pass") },
  draw_stock: { key: "s", label: () => gettext("Draw from the stock") },
  draw_discard: { key: "d", label: (v) => t(gettext("Take %(card)s from the pile"), { card: cardText(pileTop(v)) }) },
  knock: { key: "k", label: () => gettext("Knock…") },
  gin: { key: "g", label: () => gettext("Gin…") },
  big_gin: { key: "b", label: () => gettext("Big gin!") },
};

// One move of the deal as a sentence without its full stop: "You discarded 7♥", "Bob passed".
function moveText(view, player, type, code) {
  const mine = player === you;
  const values = { name: mine ? "" : view.players[player].name, card: code ? cardText(code) : "" };
  switch (type) {
    case "take_upcard":
      return t(mine ? gettext("You took the upcard %(card)s") : gettext("%(name)s took the upcard %(card)s"), values);
    case "pass":
      return t(mine ? gettext("You passed") : gettext("%(name)s passed"), values);
    case "draw_stock":
      return t(mine ? gettext("You drew from the stock") : gettext("%(name)s drew from the stock"), values);
    case "draw_discard":
      if (!code) return t(mine ? gettext("You took a card from the pile") : gettext("%(name)s took a card from the pile"), values);
      return t(mine ? gettext("You took %(card)s from the pile") : gettext("%(name)s took %(card)s from the pile"), values);
    case "discard":
      if (!code) return t(mine ? gettext("You discarded a card") : gettext("%(name)s discarded a card"), values);
      return t(mine ? gettext("You discarded %(card)s") : gettext("%(name)s discarded %(card)s"), values);
    case "knock":
      return t(mine ? gettext("You knocked") : gettext("%(name)s knocked"), values);
    case "gin":
      return t(mine ? gettext("You went gin") : gettext("%(name)s went gin"), values);
    case "big_gin":
      return t(mine ? gettext("You went big gin") : gettext("%(name)s went big gin"), values);
    default:
      return `${who(view, player)} ${type}`; // a move this page does not know: its code
  }
}

// --- small helpers -----------------------------------------------------------------------

function pileTop(view) {
  const pile = view.deal ? view.deal.discard_pile : [];
  return pile.length ? pile[pile.length - 1] : null;
}

function who(view, index) {
  if (index === you) return gettext("You");
  return view.players[index].name;
}

function legal(view, type) {
  return (view.legal_actions || []).filter((a) => a.type === type);
}

function version(view) {
  // The game's change number: one more with every change (a move, a pause, a clock).
  return view.seq;
}

function formatClock(ms) {
  if (ms <= 0) return "0:00";
  if (ms < 10000) {
    const tenths = Math.floor(ms / 100);
    return `0:0${Math.floor(tenths / 10)}.${tenths % 10}`;
  }
  const seconds = Math.floor(ms / 1000);
  const minutes = Math.floor(seconds / 60);
  const rest = String(seconds % 60).padStart(2, "0");
  if (minutes >= 60) return `${Math.floor(minutes / 60)}:${String(minutes % 60).padStart(2, "0")}:${rest}`;
  return `${minutes}:${rest}`;
}

function setStatus(text) {
  if (text !== state.status) {
    state.status = text;
    $("status").textContent = text;
  }
}

// --- fetching ----------------------------------------------------------------------------

function retryAfterMs(error) {
  const seconds = error.retryAfter || 0;
  return Math.max(2000, seconds * 1000);
}

async function poll({ fresh = false } = {}) {
  clearTimeout(state.timer);
  if (state.socket) {
    // Live: the socket pushes every change. Ask it for the view now instead of polling.
    state.socket.send(JSON.stringify({ type: "sync" }));
    return;
  }
  let wait;
  try {
    const { status, data, etag } = await api(`/api/games/${gameId}`, {
      etag: fresh ? null : state.etag,
    });
    root.classList.remove("offline");
    if (status !== 304) accept(data, etag);
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) {
      setStatus(gettext("This game does not exist (any more)."));
      state.stopped = true;
      return;
    }
    if (error instanceof ApiError && error.status === 429) {
      wait = retryAfterMs(error); // too many requests from here: slow down
    } else {
      root.classList.add("offline");
      setStatus(gettext("Connection lost: retrying…"));
    }
  }
  schedule(wait);
}

function schedule(wait) {
  clearTimeout(state.timer);
  if (state.stopped || state.socket) return;
  state.timer = setTimeout(poll, wait || (document.hidden ? HIDDEN_MS : POLL_MS));
}

function accept(view, etag) {
  const old = state.view;
  if (old && version(view) < version(old)) return; // a late answer to an older request
  if (you !== null && view.you === null) {
    // The page was rendered for a player; the API now sees a stranger: the session is gone.
    signInAgain();
    return;
  }
  if (old && old.hand && view.hand && view.ply !== old.ply) {
    const before = new Set(old.hand);
    const added = view.hand.filter((c) => !before.has(c));
    state.newCards = added.length === 1 ? new Set(added) : new Set();
  }
  if (!old || view.ply !== old.ply || view.status !== old.status) {
    state.mode = null;
    state.chosen = null;
  }
  if (old) playFor(old, view);
  state.view = view;
  state.etag = etag;
  state.receivedAt = performance.now();
  state.zeroPolled.clear();
  render();
  if (view.status === "finished") gameOver();
}

// The sound for what changed between two views: a deal's end, else your turn, else a move.
function playFor(old, view) {
  const results = (view.results || []).length;
  if (results > (old.results || []).length || (view.pause && !old.pause)) play("deal_end");
  else if (view.your_turn && !old.your_turn) play("turn");
  else if (view.ply !== old.ply && view.deal) play("move");
}

async function gameOver() {
  try {
    const { data } = await api(`/api/matches/${matchId}`);
    state.match = data;
  } catch {
    state.match = null;
  }
  if (state.match && state.match.ratings) renderRatings();
  else renderResult();
  const match = state.match;
  if (match && match.status !== "active" && $("resign-box")) $("resign-box").remove();
  awaitRating(match);
  // Nothing at this table changes any more: stop polling unless the next game is not dealt yet.
  if (match && (match.status !== "active" || match.current_game)) state.stopped = true;
}

// A finished rated match whose rating change is not written yet: fetch the match again until
// it is, then show it (the result panel and the seats), without a reload.
function awaitRating(match) {
  clearTimeout(state.ratingTimer);
  if (!match || match.status !== "finished" || !match.rating_pool || match.ratings) return;
  if (state.ratingTries >= RATING_TRIES) return;
  state.ratingTries += 1;
  state.ratingTimer = setTimeout(async () => {
    try {
      const { data } = await api(`/api/matches/${matchId}`);
      state.match = data;
      if (data.ratings) renderRatings();
    } catch {
      // the next try, or the page's next view, brings it
    }
    awaitRating(state.match);
  }, RATING_RETRY_MS);
}

// The seats' ratings once the match is rated: what it left each player with.
function renderRatings() {
  const match = state.match;
  if (seatRatings && match && match.ratings) {
    match.ratings.forEach((r, i) => {
      seatRatings.players[i] = { rating: r.after, provisional: r.provisional };
    });
  }
  render();
  renderResult();
}

// --- the socket --------------------------------------------------------------------------

function connect() {
  if (!("WebSocket" in window)) return;
  const scheme = window.location.protocol === "https:" ? "wss" : "ws";
  let socket;
  try {
    socket = new WebSocket(`${scheme}://${window.location.host}/ws/games/${gameId}`);
  } catch {
    return;
  }
  socket.addEventListener("open", () => {
    state.socket = socket;
    state.retryMs = 1000;
    clearTimeout(state.timer); // no polling while the socket pushes
    root.classList.remove("offline");
    root.dataset.live = "socket";
  });
  socket.addEventListener("message", (event) => {
    let message;
    try {
      message = JSON.parse(event.data);
    } catch {
      return;
    }
    onMessage(socket, message);
  });
  socket.addEventListener("close", (event) => {
    if (state.socket === socket) state.socket = null;
    state.presence = null;
    renderPresence();
    root.dataset.live = "polling";
    for (const { reject } of state.pending.values()) reject(new Error("socket closed"));
    state.pending.clear();
    if (event.code === 4403 || event.code === 4404 || event.code === 4401) return; // polling tells
    if (!state.stopped) schedule(50); // poll until the socket is back
    setTimeout(connect, state.retryMs);
    state.retryMs = Math.min(RETRY_MAX_MS, state.retryMs * 2);
  });
}

function onMessage(socket, message) {
  switch (message.type) {
    case "view":
      accept(message.view, null);
      break;
    case "ack":
    case "error": {
      const waiting = message.id != null ? state.pending.get(String(message.id)) : null;
      if (waiting) {
        state.pending.delete(String(message.id));
        if (message.type === "ack") waiting.resolve(message);
        else waiting.reject(new ApiError(SOCKET_STATUS[message.code] || 409, message));
      } else if (message.type === "error" && message.code === "throttled") {
        flash(flashBox, gettext("Too many requests at once: wait a moment."));
      }
      break;
    }
    case "ping":
      socket.send(JSON.stringify({ type: "pong", id: message.id }));
      break;
    case "lag":
      state.lagMs = message.lag_ms;
      break;
    case "presence":
      state.presence = message.players;
      renderPresence();
      break;
    default:
      break;
  }
}

// Send a move (or a Continue) on the socket; resolves on its ack, rejects on its error.
function sendOnSocket(message) {
  const id = `${Date.now().toString(36)}-${state.nextId++}`;
  return new Promise((resolve, reject) => {
    state.pending.set(id, { resolve, reject });
    state.socket.send(JSON.stringify({ ...message, id }));
    setTimeout(() => {
      if (state.pending.delete(id)) reject(new Error("no answer"));
    }, MOVE_TIMEOUT_MS);
  });
}

function renderPresence() {
  const node = $("presence");
  if (!node) return;
  const presence = state.presence;
  const opponent = 1 - you;
  const over = state.view && state.view.status !== "active";
  if (!presence || you === null || over || (state.view && state.view.players[opponent].kind === "bot")) {
    node.hidden = true; // bots play from the server: always there
    return;
  }
  const them = presence[opponent];
  const name = state.view ? state.view.players[opponent].name : gettext("Your opponent");
  if (them.connected) {
    node.textContent = t(gettext("%(name)s is at the table."), { name });
    node.className = "presence here";
  } else {
    const since = them.away_since ? Date.parse(them.away_since) : null;
    const seconds = since ? Math.max(0, Math.round((Date.now() - since) / 1000)) : null;
    node.textContent = seconds === null
      ? t(gettext("%(name)s has not opened the table yet."), { name })
      : t(gettext("%(name)s is disconnected (for %(seconds)s s)."), { name, seconds });
    node.className = "presence away";
  }
  node.hidden = false;
}

// --- playing -----------------------------------------------------------------------------

function describe(action) {
  const card = action.card ? cardText(action.card) : "";
  switch (action.type) {
    case "discard": return t(gettext("Discarding %(card)s"), { card });
    case "knock": return t(gettext("Knocking with %(card)s"), { card });
    case "gin": return t(gettext("Gin with %(card)s"), { card });
    // Said without the card: a refused move is described against the table as it is now,
    // whose pile may be empty or hold another card.
    case "take_upcard": return gettext("Taking the upcard");
    case "draw_discard": return gettext("Taking from the pile");
    default: return ACTIONS[action.type] ? ACTIONS[action.type].label(state.view).replace("…", "") : action.type;
  }
}

function messageFor(error, action) {
  const view = state.view;
  const phase = view && view.deal ? view.deal.phase : "";
  const name = view && you !== null ? view.players[1 - you].name : gettext("your opponent");
  const values = { move: describe(action), name, reason: error.detail, card: action.card ? cardText(action.card) : "" };
  switch (error.code) {
    case "stale_ply":
      return t(gettext("%(move)s did not count: the table had already changed (%(name)s moved or a clock ran out). This is the table now."), values);
    case "not_your_turn":
      return t(gettext("It is not your turn: wait for %(name)s."), values);
    case "game_over":
      return gettext("This game is over: no more moves.");
    case "discard_of_taken_card":
      return t(gettext("You just took %(card)s from the pile: you may not throw it back this turn. Discard another card."), values);
    case "upcard_offer":
      return gettext("First take the upcard or pass.");
    case "wrong_phase":
      if (phase === "draw" || phase === "first_draw") {
        return gettext("Draw first: take a card from the stock or the discard pile, then discard.");
      }
      return t(gettext("%(move)s is not allowed now: %(reason)s"), values);
    case "knock_limit":
      return t(gettext("You cannot knock with %(card)s: %(reason)s."), values);
    case "not_a_player":
      return gettext("You are watching this game: only its players can move.");
    case "throttled":
      return gettext("Too many requests at once: wait a moment.");
    case "not_authenticated":
    case "authentication_failed":
      return gettext("Your session has expired: sign in again.");
    default:
      return t(gettext("%(move)s is not allowed: %(reason)s"), values);
  }
}

async function submit(action, button) {
  if (state.busy || !state.view) return;
  state.busy = true;
  root.classList.add("busy");
  root.setAttribute("aria-busy", "true");
  const ply = button && button.dataset.ply !== undefined ? Number(button.dataset.ply) : state.view.ply;
  let refused = false;
  try {
    if (state.socket) {
      // The ack says it counted; the new view arrives on the socket like the opponent's.
      await sendOnSocket({ type: "move", ply, action });
    } else {
      const { data, etag } = await api(`/api/games/${gameId}/actions`, {
        method: "POST",
        body: { ply, ...action },
      });
      accept(data, etag);
    }
    flash(flashBox, "");
    state.mode = null;
    state.chosen = null;
  } catch (error) {
    refused = true;
    if (error instanceof ApiError && error.code === "not_authenticated") {
      signInAgain(); // the socket's sign-in has ended (signed out, or the session expired)
      return;
    }
    const text = error instanceof ApiError
      ? messageFor(error, action)
      : gettext("The connection failed: your move may not have arrived. The table is refreshed.");
    flash(flashBox, text, { ms: 12000 });
  } finally {
    state.busy = false;
    root.classList.remove("busy");
    root.removeAttribute("aria-busy");
  }
  if (refused) {
    state.mode = null;
    state.chosen = null;
    await poll({ fresh: true });
  }
}

function onCard(event) {
  const button = event.currentTarget;
  if (event.detail > 1) return; // the second click of a double click is not a second move
  if (state.busy) return;
  const card = button.dataset.card;
  if (state.mode) submit({ type: state.mode, card }, button);
  else if (confirmDiscard && state.chosen !== card) choose(card);
  else submit({ type: "discard", card }, button);
}

// Confirm before discarding: the card is lifted and named; a second tap (or Enter) discards
// it, another card is chosen instead, Esc puts it back.
function choose(card) {
  if (!legal(state.view, "discard").some((a) => a.card === card)) {
    submit({ type: "discard", card }); // the server says why not, as without a confirmation
    return;
  }
  state.chosen = card;
  render();
  const node = root.querySelector(`#seat-bottom [data-card="${CSS.escape(card)}"]`);
  if (node) node.focus();
}

function onAction(event) {
  const button = event.currentTarget;
  if (event.detail > 1 || state.busy) return;
  const type = button.dataset.action;
  if (type === "continue") {
    continueDeal(button);
    return;
  }
  if (type === "knock" || type === "gin") {
    const choices = legal(state.view, type);
    if (choices.length === 1) {
      submit({ type, card: choices[0].card }, button);
      return;
    }
    state.mode = state.mode === type ? null : type;
    render();
    const first = document.querySelector("#seat-bottom .card.choice");
    if (first) first.focus();
    return;
  }
  submit({ type }, button);
}

// Ready for the next deal (the pause between deals of a timed game).
async function continueDeal(button) {
  if (state.busy) return;
  state.busy = true;
  button.disabled = true;
  try {
    if (state.socket) {
      await sendOnSocket({ type: "continue" });
    } else {
      const { data, etag } = await api(`/api/games/${gameId}/continue`, { method: "POST" });
      accept(data, etag);
    }
  } catch (error) {
    // The pause may have run out meanwhile: the next deal is on the table, nothing to say.
    if (!(error instanceof ApiError && error.code === "not_paused")) {
      flash(flashBox, error instanceof ApiError ? error.detail : gettext("The connection failed: try again."));
    }
    poll({ fresh: true });
  } finally {
    state.busy = false;
  }
}

// --- rendering ---------------------------------------------------------------------------

function focusKey(node) {
  return node && node.dataset ? node.dataset.focus : undefined;
}

function render() {
  const view = state.view;
  if (!view) return;
  const active = document.activeElement;
  const hadFocus = root.contains(active) ? focusKey(active) : undefined;
  const focusInside = root.contains(active) && active !== root;

  root.dataset.ply = String(view.ply);
  root.dataset.status = view.status;
  root.dataset.phase = view.deal ? view.deal.phase : "";
  root.dataset.yourTurn = String(Boolean(view.your_turn));
  const bottom = you !== null ? you : 0;
  const top = 1 - bottom;
  const deal = view.deal;
  const hands = view.scores.hands_won || [0, 0];
  $("subtitle").textContent =
    t(gettext("Game %(number)s · best of %(best_of)s to %(target)s"), { number: view.number + 1, best_of: view.scores.best_of, target: view.scores.target }) +
    ` · ${root.dataset.timeControl}` + (deal ? ` · ${t(gettext("deal %(number)s"), { number: deal.number + 1 })}` : "");

  $("seat-top").replaceChildren(...seat(view, top, hands));
  $("seat-bottom").replaceChildren(...seat(view, bottom, hands));
  $("centre").replaceChildren(...centre(view));
  $("actions").replaceChildren(...actionButtons(view));
  renderReveal(view);
  renderPresence();
  setStatus(statusText(view));
  renderClocks();

  if (focusInside) {
    let target = hadFocus ? root.querySelector(`[data-focus="${CSS.escape(hadFocus)}"]`) : null;
    if (!target && view.your_turn) target = root.querySelector("#actions button, #seat-bottom .card.playable");
    if (target) target.focus();
  }
}

function seat(view, index, hands) {
  const player = view.players[index];
  const deal = view.deal;
  const isYou = index === you;
  const toAct = view.to_act === index;
  const head = el(
    "div",
    { class: "seat-head" },
    el("h2", { class: "seat-name" }, isYou ? t(gettext("%(name)s (you)"), { name: player.name }) : player.name,
      kindTag(player),
      ratingTag(index),
      deal && deal.dealer === index ? el("span", { class: "tag dealer", title: gettext("Dealer") }, pgettext("tag", "dealer")) : null),
    clockNode(view, index),
    el("p", { class: "score" },
      `${t(gettext("%(points)s / %(target)s points"), { points: handPoints(view, index), target: view.scores.target })} · `,
      `${t(ngettext("%(count)s hand won", "%(count)s hands won", hands[index]), { count: hands[index] })} · `,
      t(ngettext("%(count)s game", "%(count)s games", view.scores.games_won[index]), { count: view.scores.games_won[index] })),
    toAct ? el("p", { class: "to-act" }, el("span", { "aria-hidden": "true" }, "▶ "), isYou ? gettext("Your turn") : gettext("To play")) : null,
  );
  const parts = [head];
  if (!deal) return parts;
  if (isYou && view.hand) {
    parts.push(handNode(view));
  } else {
    const count = isYou || you === null ? deal.hand_sizes[index] : view.opponent.card_count;
    const known = you !== null && !isYou ? view.opponent.known_cards : deal.known[index];
    const inHand = t(ngettext("%(count)s card in hand", "%(count)s cards in hand", count), { count });
    const backs = el("div", { class: "backs", role: "img", "aria-label": inHand });
    for (let i = 0; i < count; i += 1) backs.append(cardBack());
    parts.push(el("p", { class: "count" }, inHand), backs);
    if (known.length) {
      parts.push(el("p", { class: "known" }, ...fill(gettext("Known to hold (taken from the pile): %(cards)s"), { cards: cardList(known) })));
    }
  }
  return parts;
}

// A seat's rating in the match's pool ("1520", "1500?" while provisional).
function ratingTag(index) {
  const seatRating = seatRatings && seatRatings.players[index];
  if (!seatRating) return null;
  const value = Math.round(seatRating.rating);
  const pool = seatRatings.pool.name;
  const title = seatRating.provisional ? t(gettext("%(pool)s rating, provisional"), { pool }) : t(gettext("%(pool)s rating"), { pool });
  return el("span", { class: "seat-rating", title, "data-rating": String(value) },
    el("span", { class: "sr-only" }, `${pgettext("seat", "rating")} `), `${value}${seatRating.provisional ? "?" : ""}`);
}

function clockNode(view, index) {
  if (!view.clocks) return el("p", { class: "clock untimed" }, gettext("untimed"));
  const name = index === you ? gettext("Your clock") : t(gettext("%(name)s's clock"), { name: view.players[index].name });
  return el("p", { class: "clock", role: "timer", "aria-label": name, dataset: { clock: String(index) } },
    el("span", { class: "run", "aria-hidden": "true" }), el("span", { class: "time" }, ""),
    el("span", { class: "turn" }, ""), el("span", { class: "note" }, ""));
}

function handNode(view) {
  const discards = new Set(legal(view, "discard").map((a) => a.card));
  const choices = state.mode ? new Set(legal(view, state.mode).map((a) => a.card)) : new Set();
  const forbidden = view.forbidden_discard;
  const button = (code) => {
    const classes = ["playable-" + (discards.has(code) ? "yes" : "no")];
    if (discards.has(code)) classes.push("playable");
    if (state.mode) classes.push(choices.has(code) ? "choice" : "dim");
    const chosen = !state.mode && state.chosen === code;
    if (chosen) classes.push("choice");
    if (state.newCards.has(code)) classes.push("new");
    if (code === forbidden) classes.push("taken");
    let label = cardLabel(code);
    if (state.newCards.has(code)) label = t(gettext("%(card)s, just drawn"), { card: label });
    if (code === forbidden) label = t(gettext("%(card)s, just taken from the pile"), { card: label });
    if (chosen) label = t(gettext("%(card)s, chosen: press again to discard it"), { card: label });
    const face = cardFace(code, {
      tag: "button",
      cls: classes.join(" "),
      attrs: { type: "button", "aria-label": label, "aria-pressed": confirmDiscard && !state.mode ? String(chosen) : null, dataset: { card: code, ply: String(view.ply), focus: `card:${code}` } },
    });
    if (state.newCards.has(code)) face.append(el("span", { class: "badge", "aria-hidden": "true" }, pgettext("card badge", "new")));
    if (code === forbidden) face.append(el("span", { class: "badge", "aria-hidden": "true" }, pgettext("card badge", "taken")));
    face.addEventListener("click", onCard);
    return face;
  };
  const wrap = el("div", { class: "hand", role: "group", "aria-label": gettext("Your hand") });
  for (const meld of view.melds || []) {
    wrap.append(el("div", { class: "meld", role: "group", "aria-label": t(gettext("Meld %(cards)s"), { cards: cardsText(meld) }) },
      el("span", { class: "group-label" }, pgettext("group label", "meld")), ...meld.map(button)));
  }
  const deadwood = view.deadwood || [];
  const points = view.deadwood_points;
  if (deadwood.length) {
    const label = t(ngettext("Deadwood, %(points)s point", "Deadwood, %(points)s points", points), { points });
    wrap.append(el("div", { class: "deadwood", role: "group", "aria-label": label },
      el("span", { class: "group-label" }, pgettext("group label", "deadwood")), ...deadwood.map(button)));
  }
  const limit = view.deal ? view.deal.knock_limit : 10;
  const count = ngettext("Deadwood: %(points)s point (knock at %(limit)s or less)", "Deadwood: %(points)s points (knock at %(limit)s or less)", points);
  return el("div", {},
    wrap,
    el("p", { class: "deadwood-count" },
      ...fill(count, { points: el("strong", { id: "deadwood-points" }, String(points)), limit })));
}

function centre(view) {
  const deal = view.deal;
  if (!deal) {
    const text = view.status === "finished" ? gettext("The game is over.")
      : view.pause ? gettext("The next deal is dealt face down until it starts.") : gettext("Dealing…");
    return [el("p", { class: "empty" }, text)];
  }
  const top = pileTop(view);
  const canStock = legal(view, "draw_stock").length > 0;
  const pileAction = legal(view, "draw_discard").length ? "draw_discard" : legal(view, "take_upcard").length ? "take_upcard" : null;
  // Mouse shortcuts beside the labelled buttons of the toolbar (keyboard users use those).
  const stock = el(canStock ? "button" : "div", {
    class: `stock${canStock ? " live" : ""}`, type: canStock ? "button" : null, tabindex: canStock ? "-1" : null,
    dataset: canStock ? { action: "draw_stock", ply: String(view.ply) } : {},
    "aria-label": t(ngettext("Stock, %(count)s card", "Stock, %(count)s cards", deal.stock_size), { count: deal.stock_size }),
  }, cardBack({ label: pgettext("card back", "stock") }), el("span", { class: "caption" }, t(gettext("Stock · %(count)s"), { count: deal.stock_size })));
  if (canStock) stock.addEventListener("click", onAction);
  const pile = el(pileAction ? "button" : "div", {
    class: `pile${pileAction ? " live" : ""}`, type: pileAction ? "button" : null, tabindex: pileAction ? "-1" : null,
    dataset: pileAction ? { action: pileAction, ply: String(view.ply) } : {},
    "aria-label": top ? t(gettext("Discard pile, top card %(card)s"), { card: cardLabel(top) }) : gettext("Discard pile, empty"),
  }, top ? cardFace(top, { cls: "big" }) : el("span", { class: "card empty" }, "—"),
  el("span", { class: "caption" }, t(gettext("Discard pile · %(count)s"), { count: deal.discard_pile.length })));
  if (pileAction) pile.addEventListener("click", onAction);
  const recent = deal.history.slice(-4).map((h) => el("li", {}, moveText(view, h.player, h.type, h.card)));
  const parts = [el("div", { class: "piles" }, stock, pile)];
  if (recent.length) {
    parts.push(el("div", { class: "recent" }, el("h3", {}, gettext("Last moves")), el("ol", { class: "plain" }, ...recent)));
  }
  return parts;
}

function actionButtons(view) {
  const buttons = [];
  if (view.pause && you !== null) {
    const done = view.pause.continued[you];
    const button = el("button", {
      type: "button", class: "button primary action", id: "continue",
      "aria-keyshortcuts": "C", disabled: done,
      dataset: { action: "continue", shortcut: "c", focus: "act:continue" },
    }, done ? gettext("Waiting for your opponent…") : gettext("Continue to the next deal"), " ", el("kbd", { "aria-hidden": "true" }, "C"));
    button.addEventListener("click", onAction);
    buttons.push(button, el("span", { class: "hint pause-left", id: "pause-left" }, ""));
    return buttons;
  }
  if (!view.your_turn) return buttons;
  for (const [type, spec] of Object.entries(ACTIONS)) {
    const choices = legal(view, type);
    if (!choices.length) continue;
    let label = spec.label(view);
    if ((type === "knock" || type === "gin") && choices.length === 1) {
      const card = cardText(choices[0].card);
      label = t(type === "gin" ? gettext("Gin, laying down %(card)s") : gettext("Knock, laying down %(card)s"), { card });
    }
    const pressed = state.mode === type;
    const button = el("button", {
      type: "button",
      class: `button action ${type === "gin" || type === "big_gin" ? "primary" : ""}`,
      "aria-keyshortcuts": spec.key.toUpperCase(),
      "aria-pressed": type === "knock" || type === "gin" ? String(pressed) : null,
      dataset: { action: type, ply: String(view.ply), shortcut: spec.key, focus: `act:${type}` },
    }, label, " ", el("kbd", { "aria-hidden": "true" }, spec.key.toUpperCase()));
    button.addEventListener("click", onAction);
    buttons.push(button);
  }
  if (legal(view, "discard").length && !state.mode && state.chosen) {
    const card = cardText(state.chosen);
    buttons.push(el("span", { class: "hint", role: "status" }, touch
      ? t(gettext("Discard %(card)s? Tap it again to discard it."), { card })
      : t(gettext("Discard %(card)s? Click it again (or Enter) to discard it; Esc keeps it."), { card })));
  } else if (legal(view, "discard").length && !state.mode) {
    buttons.push(el("span", { class: "hint" }, confirmDiscard
      ? touch ? gettext("Tap a card to choose it, then again to discard it.") : gettext("Click a card (or Enter on it) to choose it, then again to discard it.")
      : touch ? gettext("Tap a card to discard it.") : gettext("Click a card (or Enter on it) to discard it.")));
  }
  if (state.mode) {
    let hint;
    if (state.mode === "gin") hint = touch ? gettext("Gin: tap the card to put face down.") : gettext("Gin: choose the card to put face down (Esc cancels).");
    else hint = touch ? gettext("Knock: tap the card to put face down.") : gettext("Knock: choose the card to put face down (Esc cancels).");
    buttons.push(el("span", { class: "hint" }, hint));
  }
  return buttons;
}

function statusText(view) {
  if (view.status === "finished") return gettext("The game is over.");
  if (view.pause) {
    const waiting = [0, 1].filter((i) => !view.pause.continued[i]);
    if (waiting.length !== 1) {
      return gettext("The deal is over: read the result. The next deal starts when both players continue, or when the pause runs out; no clock runs meanwhile.");
    }
    if (waiting[0] === you) {
      return gettext("The deal is over: read the result. The next deal starts when you continue, or when the pause runs out; no clock runs meanwhile.");
    }
    return t(gettext("The deal is over: read the result. The next deal starts when %(name)s continues, or when the pause runs out; no clock runs meanwhile."),
      { name: view.players[waiting[0]].name });
  }
  const deal = view.deal;
  if (!deal) return gettext("Waiting for the deal…");
  const last = deal.history.length ? deal.history[deal.history.length - 1] : null;
  // The last move, when it was not yours, as the first sentence.
  const lead = last && last.player !== you ? `${moveText(view, last.player, last.type, last.card)}. ` : "";
  if (you === null) {
    return `${lead}${view.to_act === null ? "" : t(gettext("%(name)s to play."), { name: view.players[view.to_act].name })}`;
  }
  if (!view.your_turn) return `${lead}${t(gettext("Waiting for %(name)s…"), { name: view.players[1 - you].name })}`;
  if (state.mode) return state.mode === "gin" ? gettext("Gin: choose the card to put face down.") : gettext("Knock: choose the card to put face down.");
  const top = pileTop(view);
  const card = top ? cardText(top) : "";
  switch (deal.phase) {
    case "offer_nondealer":
    case "offer_dealer":
      return `${lead}${t(gettext("Your turn: take the upcard %(card)s or pass."), { card })}`;
    case "first_draw":
      return `${lead}${gettext("Your turn: both passed, draw from the stock.")}`;
    case "draw":
      return `${lead}${t(gettext("Your turn: draw from the stock or take %(card)s from the pile."), { card })}`;
    case "discard": {
      const names = { knock: pgettext("move", "knock"), gin: pgettext("move", "gin"), big_gin: pgettext("move", "big gin") };
      const ends = ["knock", "gin", "big_gin"].filter((type) => legal(view, type).length);
      if (!ends.length) return `${lead}${gettext("Your turn: discard a card.")}`;
      return `${lead}${t(gettext("Your turn: discard a card, or %(moves)s."), { moves: ends.map((type) => names[type]).join(" / ") })}`;
    }
    case "fiftieth_offer":
      return `${lead}${t(gettext("Last chance: take %(card)s or pass (the deal is then a draw)."), { card })}`;
    case "fiftieth_decide":
      return `${lead}${gettext("Knock or go gin now, or pass (the deal is then a draw).")}`;
    default:
      return lead;
  }
}

function renderClocks() {
  const view = state.view;
  if (!view) return;
  const now = performance.now();
  if (view.pause) {
    const left = Math.max(0, view.pause.remaining_ms - (now - state.receivedAt));
    const node = $("pause-left");
    if (node) node.textContent = t(gettext("Next deal in %(seconds)s s"), { seconds: Math.ceil(left / 1000) });
    if (left <= 0 && !state.zeroPolled.has(`pause:${view.seq}`)) {
      state.zeroPolled.add(`pause:${view.seq}`);
      setTimeout(() => poll({ fresh: true }), 50);
    }
  }
  if (!view.clocks) return;
  for (const node of root.querySelectorAll("[data-clock]")) {
    const index = Number(node.dataset.clock);
    const clock = view.clocks[index];
    const running = clock.running && view.status === "active";
    const elapsed = running ? now - state.receivedAt : 0;
    const clockMs = Math.max(0, clock.remaining_ms - elapsed);
    // A per-turn limit can end the turn before the clock does: show it beside the clock.
    const turnMs = running && clock.turn_remaining_ms != null ? Math.max(0, clock.turn_remaining_ms - elapsed) : null;
    const ms = turnMs == null ? clockMs : Math.min(clockMs, turnMs);
    node.querySelector(".time").textContent = formatClock(clockMs);
    node.querySelector(".turn").textContent = turnMs == null ? "" : ` ${t(gettext("(this turn %(time)s)"), { time: formatClock(turnMs) })}`;
    node.querySelector(".run").textContent = running ? "▶ " : "";
    const flagged = ms <= 0 && (running || lostOnTime(view, index));
    node.querySelector(".note").textContent = flagged ? ` ${gettext("out of time")}` : running && ms < 20000 ? ` ${pgettext("clock", "low")}` : "";
    node.classList.toggle("running", running);
    node.classList.toggle("low", running && ms < 20000);
    if (index === you && running && ms > 0 && ms < 20000 && state.lowWarned !== view.ply) {
      state.lowWarned = view.ply;
      play("low");
    }
    node.classList.toggle("flagged", flagged);
    if (running && ms <= 0 && !state.zeroPolled.has(view.seq)) {
      // The server settles the clock on the next read: ask at once.
      state.zeroPolled.add(view.seq);
      setTimeout(() => poll({ fresh: true }), 50);
    }
  }
}

function lostOnTime(view, index) {
  const result = (view.results || [])[view.results.length - 1];
  return Boolean(result && result.termination === "forfeit" && result.winner !== index && /time/.test(result.reason || "") && !byOrganiser(result));
}

// "Bob knocked with 5 deadwood against 20: 15 points to Bob." One sentence for each of who
// knocked (you or the other player) and who undercut; "you" as the one the points go to.
function outcomeSentence(view, outcome) {
  const name = (i) => (i === null || i === undefined ? "" : view.players[i].name);
  const knocker = outcome.knocker;
  const defender = knocker === null || knocker === undefined ? null : 1 - knocker;
  const values = {
    knocker: name(knocker),
    defender: name(defender),
    winner: outcome.winner === you ? pgettext("the points go to", "you") : name(outcome.winner),
    knocker_points: outcome.knocker_points,
    defender_points: outcome.defender_points,
    points: outcome.points,
    times: outcome.multiplier > 1 ? ` (×${outcome.multiplier})` : "",
  };
  const n = outcome.points;
  const mine = knocker === you;
  switch (outcome.termination) {
    case "knock":
      return t(mine
        ? ngettext("You knocked with %(knocker_points)s deadwood against %(defender_points)s: %(points)s point%(times)s to %(winner)s.",
          "You knocked with %(knocker_points)s deadwood against %(defender_points)s: %(points)s points%(times)s to %(winner)s.", n)
        : ngettext("%(knocker)s knocked with %(knocker_points)s deadwood against %(defender_points)s: %(points)s point%(times)s to %(winner)s.",
          "%(knocker)s knocked with %(knocker_points)s deadwood against %(defender_points)s: %(points)s points%(times)s to %(winner)s.", n), values);
    case "undercut":
      if (mine) {
        return t(ngettext("You knocked with %(knocker_points)s but %(defender)s undercut with %(defender_points)s: %(points)s point%(times)s to %(winner)s.",
          "You knocked with %(knocker_points)s but %(defender)s undercut with %(defender_points)s: %(points)s points%(times)s to %(winner)s.", n), values);
      }
      if (defender === you) {
        return t(ngettext("%(knocker)s knocked with %(knocker_points)s but you undercut with %(defender_points)s: %(points)s point%(times)s to %(winner)s.",
          "%(knocker)s knocked with %(knocker_points)s but you undercut with %(defender_points)s: %(points)s points%(times)s to %(winner)s.", n), values);
      }
      return t(ngettext("%(knocker)s knocked with %(knocker_points)s but %(defender)s undercut with %(defender_points)s: %(points)s point%(times)s to %(winner)s.",
        "%(knocker)s knocked with %(knocker_points)s but %(defender)s undercut with %(defender_points)s: %(points)s points%(times)s to %(winner)s.", n), values);
    case "gin":
      return t(mine
        ? ngettext("You went gin: %(points)s point%(times)s.", "You went gin: %(points)s points%(times)s.", n)
        : ngettext("%(knocker)s went gin: %(points)s point%(times)s.", "%(knocker)s went gin: %(points)s points%(times)s.", n), values);
    case "big_gin":
      return t(mine
        ? ngettext("You went big gin: %(points)s point%(times)s.", "You went big gin: %(points)s points%(times)s.", n)
        : ngettext("%(knocker)s went big gin: %(points)s point%(times)s.", "%(knocker)s went big gin: %(points)s points%(times)s.", n), values);
    case "draw":
      return gettext("The deal is a draw: the stock ran out and nobody scores.");
    default:
      return outcome.termination;
  }
}

function meldsNode(melds, deadwood, points) {
  const node = el("span", { class: "spread" });
  for (const meld of melds || []) node.append(cardList(meld, { cls: "meld" }));
  if (deadwood && deadwood.length) {
    node.append(cardList(deadwood, { cls: "deadwood" }), ` ${t(ngettext("%(points)s deadwood", "%(points)s deadwood", points), { points })}`);
  } else {
    node.append(` ${gettext("no deadwood")}`);
  }
  return node;
}

function renderReveal(view) {
  const box = $("reveal");
  const last = view.last_deal;
  if (!last || !last.outcome) {
    box.hidden = true;
    return;
  }
  const o = last.outcome;
  const rows = [el("h2", { id: "reveal-title" }, t(gettext("Deal %(number)s result"), { number: last.number + 1 })),
    el("p", { class: "outcome", dataset: { termination: o.termination } }, outcomeSentence(view, o))];
  const working = pointsWorking(o);
  if (working) rows.push(el("p", { class: "working" }, working));
  if (o.termination !== "draw" && o.knocker !== null && o.knocker !== undefined) {
    const defender = 1 - o.knocker;
    const list = el("dl", { class: "spreads" },
      el("dt", {}, t(o.termination === "undercut" || o.termination === "knock" ? gettext("%(name)s, knocker") : gettext("%(name)s, gin"),
        { name: who(view, o.knocker) })),
      el("dd", {}, meldsNode(o.knocker_melds, o.knocker_deadwood, o.knocker_points),
        o.knock_card ? el("span", { class: "knock-card" }, " · ", ...fill(gettext("face down: %(card)s"), { card: cardFace(o.knock_card) })) : null),
      el("dt", {}, t(gettext("%(name)s, defender"), { name: who(view, defender) })),
      el("dd", {}, meldsNode(o.defender_melds, o.defender_deadwood, o.defender_points)));
    rows.push(list);
    if (o.layoffs && o.layoffs.length) {
      const layoffs = o.layoffs.map((l, i) => el("span", {}, i ? "; " : "",
        ...fill(gettext("%(card)s onto %(cards)s"), { card: cardFace(l.card), cards: cardList(l.onto) })));
      rows.push(el("p", { class: "layoffs" }, ...fill(gettext("Laid off: %(layoffs)s"), { layoffs })));
    }
  } else if (last.hands) {
    const held = (i) => el("p", {}, ...fill(i === you ? gettext("You held %(cards)s") : gettext("%(name)s held %(cards)s"),
      { name: who(view, i), cards: cardList(last.hands[i]) }));
    rows.push(held(0), held(1));
  }
  box.replaceChildren(...rows);
  box.hidden = false;
}

// A game an organiser decided: a forfeit whose reason begins with ORGANISER's words.
function byOrganiser(result) {
  return result.termination === "forfeit" && ORGANISER.test(result.reason || "");
}

function renderResult() {
  const view = state.view;
  const box = $("result");
  if (!view || view.status !== "finished") {
    box.hidden = true;
    return;
  }
  const results = view.results || [];
  const result = results[results.length - 1];
  const rows = [el("h2", {}, t(gettext("Game %(number)s is over"), { number: view.number + 1 }))];
  if (result) {
    if (byOrganiser(result)) {
      // Nobody forfeited: an organiser decided, for the reason they gave.
      const why = result.reason.replace(ORGANISER, "");
      rows.push(el("p", { class: "timeout decided" },
        why ? t(gettext("Decided by an organiser: %(reason)s."), { reason: why }) : gettext("Decided by an organiser.")));
    } else if (result.termination === "forfeit") {
      const loser = 1 - result.winner;
      const onTime = /time/.test(result.reason || "");
      const forTurn = /for the turn/.test(result.reason || "");
      const mine = loser === you;
      let text;
      if (forTurn) text = mine ? gettext("You ran out of time for the turn.") : gettext("%(name)s ran out of time for the turn.");
      else if (onTime) text = mine ? gettext("You ran out of time.") : gettext("%(name)s ran out of time.");
      else text = mine ? gettext("You forfeited (%(reason)s).") : gettext("%(name)s forfeited (%(reason)s).");
      rows.push(el("p", { class: `timeout${onTime ? " on-time" : ""}` },
        onTime ? el("span", { "aria-hidden": "true" }, "⚑ ") : null,
        t(text, { name: view.players[loser].name, reason: result.reason })));
    }
    rows.push(el("p", { class: "winner" }, resultSentence(view, result.winner, result.final, "game")));
    // Hollywood ends three games at once: a sheet for each, in the order they ended.
    results.forEach((r, i) => rows.push(scoreSheet(view, r,
      results.length > 1 ? t(gettext("Hollywood game %(number)s to end"), { number: i + 1 }) : gettext("How the game scored"))));
  }
  const match = state.match;
  if (match) {
    const won = match.games_won;
    if (match.status === "finished" && match.winner) {
      const winnerIndex = match.winner.id === match.player_a.id ? 0 : 1;
      // How it ended, unless the game's line above has just said it was an organiser's decision.
      const saidAbove = match.end_reason === "admin" && result && byOrganiser(result);
      const how = match.end_reason && match.end_reason !== "games" && !saidAbove ? ` (${reasonText(match.end_reason)})` : "";
      rows.push(el("p", { class: "match-result" }, resultSentence(view, winnerIndex, won, "match", how)));
      const rating = ratingBlock(view, match);
      if (rating) rows.push(rating);
      rows.push(afterMatch(match));
    } else if (match.current_game && String(match.current_game) !== String(gameId)) {
      rows.push(el("p", {}, t(gettext("Games: %(score)s."), { score: scoreLine(view, won) }), " ",
        el("a", { href: `/games/${match.current_game}`, class: "button primary", id: "next-game", "aria-keyshortcuts": "N" }, gettext("Next game →"))));
    }
  }
  box.replaceChildren(...rows);
  box.hidden = false;
}

// Two numbers, one per player, in the one order every page uses: the viewer's first for a
// player ("You 3–1 Bob"), the seats in order for anyone else ("Ada 1–3 Bob").
function ordered(view) {
  return you === null ? [0, 1] : [you, 1 - you];
}

function scoreLine(view, values, dash = "–") {
  const [first, second] = ordered(view);
  return `${who(view, first)} ${values[first]}${dash}${values[second]} ${who(view, second)}`;
}

// "You win the game 386 to 0", "You lose the match 1–3"; a spectator reads the seats in
// order, then who won: "Ada 1–3 Bob: Bob wins the match". The viewer's number always comes
// first (%(you)s, then %(opponent)s). ``what``: "game" or "match" (a match may say how it
// ended, ``how``: " (on time)").
function resultSentence(view, winner, values, what, how = "") {
  if (you !== null) {
    const numbers = { you: values[you], opponent: values[1 - you], how };
    if (what === "game") {
      return t(winner === you ? gettext("You win the game %(you)s to %(opponent)s.") : gettext("You lose the game %(you)s to %(opponent)s."), numbers);
    }
    return t(winner === you ? gettext("You win the match %(you)s–%(opponent)s%(how)s.") : gettext("You lose the match %(you)s–%(opponent)s%(how)s."), numbers);
  }
  const sentence = { score: scoreLine(view, values, what === "game" ? " – " : "–"), name: view.players[winner].name, how };
  return t(what === "game" ? gettext("%(score)s: %(name)s wins the game.") : gettext("%(score)s: %(name)s wins the match%(how)s."), sentence);
}

// A finished game's hand points toward the target: before a shutout doubled them (the
// result's hand points are after it).
function handPoints(view, index) {
  const points = view.scores.hand_points[index];
  const result = view.status === "finished" ? (view.results || [])[view.results.length - 1] : null;
  if (result && result.shutout && result.winner === index && rules.shutout !== "double_game_bonus") return points / 2;
  return points;
}

// The end-of-game score sheet: every number with what it is for, the viewer's column first.
function scoreSheet(view, result, caption) {
  const cols = ordered(view);
  const winner = result.winner;
  const doubledPoints = result.shutout && rules.shutout !== "double_game_bonus";
  const base = [0, 1].map((i) => (doubledPoints && i === winner ? result.hand_points[i] / 2 : result.hand_points[i]));
  const perHand = rules.line_bonus ?? (result.hands_won[winner] ? result.line_bonus[winner] / result.hands_won[winner] : 25);
  const row = (label, cell, cls = "") => el("tr", { class: cls },
    el("th", { scope: "row" }, label), ...cols.map((i) => el("td", { class: "num" }, cell(i))));
  const rowsOut = [
    row(gettext("Hands won"), (i) => String(result.hands_won[i])),
    row(gettext("Hand points: the points of the hands won"), (i) => String(base[i])),
  ];
  if (doubledPoints && base[winner] > 0) { // no hand won at all (a forfeit): nothing doubled
    rowsOut.push(row(gettext("Shutout: the loser won no hand, the winner's hand points are doubled"), (i) => (i === winner ? `+${base[i]}` : "—")));
  }
  rowsOut.push(
    row(result.shutout && !doubledPoints ? gettext("Game bonus for winning the game, doubled for the shutout") : gettext("Game bonus for winning the game"),
      (i) => String(result.game_bonus[i])),
    row(t(gettext("Box bonus: %(points)s for each hand won"), { points: perHand }),
      (i) => (result.hands_won[i] ? `${result.hands_won[i]} × ${perHand} = ${result.line_bonus[i]}` : "0")),
    row(gettext("Total"), (i) => String(result.final[i]), "total"),
  );
  return el("div", { class: "scroll" },
    el("table", { class: "grid score-sheet" },
      el("caption", {}, caption),
      el("thead", {}, el("tr", {}, el("td", {}), ...cols.map((i) => el("th", { scope: "col", class: "num" }, who(view, i))))),
      el("tbody", {}, ...rowsOut)),
    el("p", { class: "meta" }, t(gettext("Margin: %(winner)s − %(loser)s = %(margin)s."),
      { winner: result.final[winner], loser: result.final[1 - winner], margin: result.margin })));
}

// How a deal's points were worked out, from its outcome: "20 − 5 = 15", "gin: 12 + 25 gin
// bonus = 37", "× 2: the first upcard was a spade".
function pointsWorking(o) {
  if (!o || o.termination === "draw" || o.knocker === null || o.knocker === undefined) return "";
  const multiplier = o.multiplier || 1;
  const base = o.points / multiplier;
  const values = { knocker: o.knocker_points, defender: o.defender_points, base, multiplier, points: o.points };
  let text;
  switch (o.termination) {
    case "knock":
      text = t(gettext("Deadwood %(defender)s − %(knocker)s = %(base)s"), values);
      break;
    case "undercut":
      text = t(gettext("Undercut: %(knocker)s − %(defender)s + %(bonus)s undercut bonus = %(base)s"),
        { ...values, bonus: base - (o.knocker_points - o.defender_points) });
      break;
    case "gin":
      text = t(gettext("Gin: the defender's deadwood %(defender)s + %(bonus)s gin bonus = %(base)s"), { ...values, bonus: base - o.defender_points });
      break;
    case "big_gin":
      text = t(gettext("Big gin: the defender's deadwood %(defender)s + %(bonus)s big gin bonus = %(base)s"), { ...values, bonus: base - o.defender_points });
      break;
    default:
      return "";
  }
  if (multiplier > 1) text = t(gettext("%(working)s, × %(multiplier)s (the first upcard was a spade) = %(points)s"), { ...values, working: text });
  // The last number is the points of the deal.
  return t(ngettext("%(working)s point.", "%(working)s points.", o.points), { working: text });
}

// What a rated match did to each rating, the viewer's first: "You: 1500 → 1520 (+20)",
// with what "provisional" means; "Rating: being worked out…" until it is written.
function ratingBlock(view, match) {
  const pool = match.rating_pool;
  if (!pool) return null;
  const box = el("div", { class: "rating-change", id: "rating-change" });
  if (!match.ratings) {
    box.append(el("p", { class: "meta" }, t(gettext("%(pool)s rating: being worked out…"), { pool: pool.name })));
    return box;
  }
  box.append(el("h3", {}, t(gettext("%(pool)s rating"), { pool: pool.name })));
  const list = el("ul", { class: "rating-rows" });
  for (const i of ordered(view)) {
    const r = match.ratings[i];
    const sign = r.change > 0 ? "+" : r.change < 0 ? "−" : "±";
    const digits = r.change % 1 ? 1 : 0;
    const amount = `${sign}${Math.abs(r.change).toLocaleString(document.documentElement.lang || undefined,
      { minimumFractionDigits: digits, maximumFractionDigits: digits, useGrouping: false })}`;
    list.append(el("li", { class: `rating-row ${r.change > 0 ? "up" : r.change < 0 ? "down" : "same"}`, "data-player": String(r.player) },
      el("span", { class: "rating-who" }, who(view, i)), " ",
      el("span", { class: "rating-numbers" }, `${Math.round(r.before)} → ${Math.round(r.after)}`), " ",
      el("strong", { class: "rating-delta" }, `(${amount})`),
      r.provisional ? " " : null,
      r.provisional ? el("span", { class: "tag", title: gettext("provisional rating") }, pgettext("rating", "provisional")) : null));
  }
  box.append(list);
  const notes = [];
  if (match.ratings.some((r) => !r.counted)) {
    notes.push(gettext("This match did not count for the ratings (the same two players too often, a person and their own bot, or resigned before any play): nothing changed."));
  }
  const provisional = ordered(view).filter((i) => match.ratings[i].provisional);
  if (provisional.length) notes.push(provisionalNote(view, match, provisional));
  for (const note of notes) box.append(el("p", { class: "meta rating-note" }, note));
  return box;
}

// What "provisional" means in this pool, with each provisional player's progress.
function provisionalNote(view, match, indices) {
  const pool = match.rating_pool;
  if (pool.system === "glicko2") {
    const parts = indices.map((i) => t(i === you ? gettext("yours ±%(deviation)s") : gettext("%(name)s's ±%(deviation)s"),
      { name: who(view, i), deviation: Math.round(match.ratings[i].deviation) }));
    return t(gettext("Provisional: a new rating moves fast until it is sure enough, while its uncertainty is above ±%(deviation)s (%(players)s)."),
      { deviation: Math.round(pool.provisional_deviation), players: parts.join(", ") });
  }
  const parts = indices.map((i) => t(i === you ? gettext("you have played %(count)s") : gettext("%(name)s has played %(count)s"),
    { name: who(view, i), count: match.ratings[i].rated_matches }));
  return t(ngettext("Provisional: a new rating moves fast for the first %(count)s rated match (%(players)s).",
    "Provisional: a new rating moves fast for the first %(count)s rated matches (%(players)s).", pool.provisional_matches),
  { count: pool.provisional_matches, players: parts.join(", ") });
}

// What to do once the match is over: a rematch of a challenge, another ladder match (the
// same ladder's queue, or a new opponent), back to the event of a tournament match, the
// replay.
function afterMatch(match) {
  const links = el("p", { class: "after-match" });
  if (you !== null && match.source === "challenge") {
    const button = el("button", { type: "button", class: "button primary", id: "rematch" }, gettext("Rematch"));
    button.addEventListener("click", () => rematch(match, button));
    links.append(button, " ");
  }
  if (you !== null && match.source === "ladder" && match.rating_pool && match.rating_pool.kind === "ladder") {
    if (state.queue) {
      links.append(queueNote(match), " ");
    } else {
      const again = el("button", { type: "button", class: "button primary", id: "play-again" }, gettext("Play again"));
      const other = el("button", { type: "button", class: "button", id: "new-opponent",
        title: gettext("Join the queue again, never to be paired with this opponent while you wait") }, gettext("New opponent"));
      again.addEventListener("click", () => queueAgain(match, false, [again, other]));
      other.addEventListener("click", () => queueAgain(match, true, [again, other]));
      links.append(again, " ", other, " ");
    }
  }
  if (root.dataset.eventUrl) {
    links.append(el("a", { href: root.dataset.eventUrl, class: "button primary", id: "back-to-event" }, gettext("Back to the event")), " ");
  }
  links.append(el("a", { href: `/matches/${matchId}/replay`, class: "button" }, gettext("Replay the deals")), " ",
    el("a", { href: "/lobby", class: "button" }, gettext("Back to the lobby")));
  return links;
}

// The same settings against the same opponent; the one who asks is player A, so the seats
// are swapped when the other one had challenged.
async function rematch(match, button) {
  button.disabled = true;
  const opponent = you === 0 ? match.player_b : match.player_a;
  try {
    const { data } = await api("/api/matches", {
      method: "POST",
      body: { opponent: opponent.id, rules: match.rules, best_of: match.best_of, target: match.target, time_control: match.time_control },
    });
    if (data.current_game) {
      goTo(`/games/${data.current_game}`);
      return;
    }
    flash(flashBox, t(gettext("Rematch offered: %(name)s can accept it in the lobby."), { name: opponent.name }), { kind: "info", ms: 12000 });
    button.textContent = gettext("Rematch offered");
  } catch (error) {
    button.disabled = false;
    flash(flashBox, error instanceof ApiError
      ? t(gettext("No rematch: %(reason)s"), { reason: error.detail })
      : gettext("No rematch: the connection failed."), { ms: 12000 });
  }
}

// "Play again" and "New opponent": back in the same ladder's queue; the table of the next
// match opens once the matchmaker pairs you (the queue's status, asked every 1.5 s).
async function queueAgain(match, newOpponent, buttons) {
  for (const button of buttons) button.disabled = true;
  const ladder = match.rating_pool;
  try {
    await api(`/api/ladders/${ladder.id}/queue`, { method: "POST", body: newOpponent ? { new_opponent: true } : {} });
  } catch (error) {
    if (!(error instanceof ApiError && error.code === "already_queued")) {
      for (const button of buttons) button.disabled = false;
      flash(flashBox, error instanceof ApiError
        ? t(gettext("Not queued: %(reason)s"), { reason: error.detail })
        : gettext("Not queued: the connection failed."), { ms: 12000 });
      return;
    }
  }
  state.queue = { ladder: ladder.id, name: ladder.name, newOpponent, timer: null };
  renderResult();
  watchQueue();
}

function queueNote() {
  const queue = state.queue;
  const leave = el("button", { type: "button", class: "button", id: "leave-queue" }, gettext("Leave the queue"));
  leave.addEventListener("click", leaveQueue);
  const waiting = queue.newOpponent ? gettext("Waiting for a new opponent in %(ladder)s…") : gettext("Waiting for an opponent in %(ladder)s…");
  return el("span", { class: "queue-note", id: "queue-note", role: "status" }, `${t(waiting, { ladder: queue.name })} `, leave);
}

async function watchQueue() {
  const queue = state.queue;
  if (!queue) return;
  try {
    const { data } = await api(`/api/ladders/${queue.ladder}/queue`);
    if (data.status === "paired" && data.match && data.match.current_game) {
      goTo(`/games/${data.match.current_game}`);
      return;
    }
    if (data.status === "idle") {
      state.queue = null; // left elsewhere (another tab, the lobby)
      renderResult();
      return;
    }
  } catch {
    // asked again below
  }
  queue.timer = setTimeout(watchQueue, QUEUE_POLL_MS);
}

async function leaveQueue() {
  const queue = state.queue;
  if (!queue) return;
  clearTimeout(queue.timer);
  try {
    await api(`/api/ladders/${queue.ladder}/queue`, { method: "DELETE" });
  } catch (error) {
    if (error instanceof ApiError && error.body && error.body.match) {
      flash(flashBox, t(gettext("You were already paired: %(reason)s"), { reason: error.detail }), { ms: 12000 });
      queue.timer = setTimeout(watchQueue, 0);
      return;
    }
  }
  state.queue = null;
  renderResult();
}

function reasonText(reason) {
  switch (reason) {
    case "timeout": return gettext("on time");
    case "forfeit": return gettext("by forfeit");
    case "resigned": return gettext("by resignation");
    case "bot_failure": return gettext("a bot failed");
    case "no_show": return gettext("no show");
    case "admin": return gettext("decided by an organiser");
    default: return reason;
  }
}

// --- keyboard ----------------------------------------------------------------------------

document.addEventListener("keydown", (event) => {
  if (event.altKey || event.ctrlKey || event.metaKey) return;
  const target = event.target;
  if (target && (target.isContentEditable || /^(INPUT|SELECT|TEXTAREA)$/.test(target.tagName))) return;
  const key = event.key.toLowerCase();
  if (key === "escape" && (state.mode || state.chosen)) {
    state.mode = null;
    state.chosen = null;
    render();
    event.preventDefault();
    return;
  }
  if (key === "arrowleft" || key === "arrowright") {
    const cards = [...root.querySelectorAll("#seat-bottom .hand .card")];
    const at = cards.indexOf(document.activeElement);
    if (at >= 0) {
      const next = cards[(at + (key === "arrowright" ? 1 : cards.length - 1)) % cards.length];
      next.focus();
      event.preventDefault();
    }
    return;
  }
  if (key === "n") {
    const next = $("next-game");
    if (next) next.click();
    return;
  }
  const button = root.querySelector(`#actions [data-shortcut="${CSS.escape(key)}"]`);
  if (button) {
    event.preventDefault();
    button.focus();
    button.click();
  }
});

document.addEventListener("visibilitychange", () => {
  if (!document.hidden && !state.stopped) poll();
});

const resign = $("resign");
if (resign) {
  resign.addEventListener("click", async () => {
    if (!window.confirm(gettext("Resign the whole match? Your opponent wins it."))) return;
    try {
      await api(`/api/matches/${matchId}/resign`, { method: "POST" });
    } catch (error) {
      flash(flashBox, error instanceof ApiError
        ? t(gettext("Could not resign: %(reason)s"), { reason: error.detail })
        : gettext("Could not resign: the connection failed."));
    }
    poll({ fresh: true });
  });
}

setInterval(renderClocks, CLOCK_TICK_MS);
setInterval(renderPresence, 1000);
poll();
connect();
