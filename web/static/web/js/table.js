// The live table. Listens on the table socket (ws/games/{id}): the server pushes this
// viewer's view after every change, numbered (seq), and takes moves ({type: "move", id, ply,
// action}, answered ack or error). While the socket is down it polls GET /api/games/{id} with
// If-None-Match (an empty 304 until something happens) and moves by POSTing to
// /api/games/{id}/actions, and it reconnects with a growing delay. Both clocks count down
// locally between views. The server is the only judge: a refused move shows why and the
// table is fetched afresh.
import { api, ApiError, el, flash, kindTag, signInAgain, goTo } from "./api.js";
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

const ACTIONS = {
  take_upcard: { key: "u", label: (v) => `Take the upcard ${cardText(pileTop(v))}` },
  pass: { key: "p", label: () => "Pass" },
  draw_stock: { key: "s", label: () => "Draw from the stock" },
  draw_discard: { key: "d", label: (v) => `Take ${cardText(pileTop(v))} from the pile` },
  knock: { key: "k", label: () => "Knock…" },
  gin: { key: "g", label: () => "Gin…" },
  big_gin: { key: "b", label: () => "Big gin!" },
};

const VERBS = {
  take_upcard: (c) => `took the upcard ${c ? cardText(c) : ""}`,
  pass: () => "passed",
  draw_stock: () => "drew from the stock",
  draw_discard: (c) => `took ${c ? cardText(c) : "a card"} from the pile`,
  discard: (c) => `discarded ${c ? cardText(c) : "a card"}`,
  knock: () => "knocked",
  gin: () => "went gin",
  big_gin: () => "went big gin",
};

// --- small helpers -----------------------------------------------------------------------

function pileTop(view) {
  const pile = view.deal ? view.deal.discard_pile : [];
  return pile.length ? pile[pile.length - 1] : null;
}

function who(view, index) {
  if (index === you) return "You";
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
      setStatus("This game does not exist (any more).");
      state.stopped = true;
      return;
    }
    if (error instanceof ApiError && error.status === 429) {
      wait = retryAfterMs(error); // too many requests from here: slow down
    } else {
      root.classList.add("offline");
      setStatus("Connection lost: retrying…");
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
        flash(flashBox, "Too many requests at once: wait a moment.");
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
  if (them.connected) {
    node.textContent = `${state.view ? state.view.players[opponent].name : "Your opponent"} is at the table.`;
    node.className = "presence here";
  } else {
    const since = them.away_since ? Date.parse(them.away_since) : null;
    const seconds = since ? Math.max(0, Math.round((Date.now() - since) / 1000)) : null;
    const name = state.view ? state.view.players[opponent].name : "Your opponent";
    node.textContent = seconds === null ? `${name} has not opened the table yet.` : `${name} is disconnected (for ${seconds} s).`;
    node.className = "presence away";
  }
  node.hidden = false;
}

// --- playing -----------------------------------------------------------------------------

function describe(action) {
  const card = action.card ? cardText(action.card) : "";
  switch (action.type) {
    case "discard": return `Discarding ${card}`;
    case "knock": return `Knocking with ${card}`;
    case "gin": return `Gin with ${card}`;
    default: return ACTIONS[action.type] ? ACTIONS[action.type].label(state.view).replace("…", "") : action.type;
  }
}

function messageFor(error, action) {
  const view = state.view;
  const phase = view && view.deal ? view.deal.phase : "";
  const opponent = view && you !== null ? view.players[1 - you].name : "your opponent";
  switch (error.code) {
    case "stale_ply":
      return `${describe(action)} did not count: the table had already changed (${opponent} moved or a clock ran out). This is the table now.`;
    case "not_your_turn":
      return `It is not your turn: wait for ${opponent}.`;
    case "game_over":
      return "This game is over: no more moves.";
    case "discard_of_taken_card":
      return `You just took ${cardText(action.card)} from the pile: you may not throw it back this turn. Discard another card.`;
    case "upcard_offer":
      return "First take the upcard or pass.";
    case "wrong_phase":
      if (phase === "draw" || phase === "first_draw") {
        return "Draw first: take a card from the stock or the discard pile, then discard.";
      }
      return `${describe(action)} is not allowed now: ${error.detail}`;
    case "knock_limit":
      return `You cannot knock with ${cardText(action.card)}: ${error.detail}.`;
    case "not_a_player":
      return "You are watching this game: only its players can move.";
    case "throttled":
      return "Too many requests at once: wait a moment.";
    case "not_authenticated":
    case "authentication_failed":
      return "Your session has expired: sign in again.";
    default:
      return `${describe(action)} is not allowed: ${error.detail}`;
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
      : "The connection failed: your move may not have arrived. The table is refreshed.";
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
      flash(flashBox, error instanceof ApiError ? error.detail : "The connection failed: try again.");
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
    `Game ${view.number + 1} · best of ${view.scores.best_of} to ${view.scores.target}` +
    ` · ${root.dataset.timeControl}` + (deal ? ` · deal ${deal.number + 1}` : "");

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
    el("h2", { class: "seat-name" }, isYou ? `${player.name} (you)` : player.name,
      kindTag(player),
      ratingTag(index),
      deal && deal.dealer === index ? el("span", { class: "tag dealer", title: "Dealer" }, "dealer") : null),
    clockNode(view, index),
    el("p", { class: "score" },
      `${handPoints(view, index)} / ${view.scores.target} points · `,
      `${hands[index]} hand${hands[index] === 1 ? "" : "s"} won · `,
      `${view.scores.games_won[index]} game${view.scores.games_won[index] === 1 ? "" : "s"}`),
    toAct ? el("p", { class: "to-act" }, el("span", { "aria-hidden": "true" }, "▶ "), isYou ? "Your turn" : "To play") : null,
  );
  const parts = [head];
  if (!deal) return parts;
  if (isYou && view.hand) {
    parts.push(handNode(view));
  } else {
    const count = isYou || you === null ? deal.hand_sizes[index] : view.opponent.card_count;
    const known = you !== null && !isYou ? view.opponent.known_cards : deal.known[index];
    const backs = el("div", { class: "backs", role: "img", "aria-label": `${count} cards in hand` });
    for (let i = 0; i < count; i += 1) backs.append(cardBack());
    parts.push(el("p", { class: "count" }, `${count} cards in hand`), backs);
    if (known.length) {
      parts.push(el("p", { class: "known" }, "Known to hold (taken from the pile): ", cardList(known)));
    }
  }
  return parts;
}

// A seat's rating in the match's pool ("1520", "1500?" while provisional).
function ratingTag(index) {
  const seatRating = seatRatings && seatRatings.players[index];
  if (!seatRating) return null;
  const value = Math.round(seatRating.rating);
  const title = `${seatRatings.pool.name} rating${seatRating.provisional ? ", provisional" : ""}`;
  return el("span", { class: "seat-rating", title, "data-rating": String(value) },
    el("span", { class: "sr-only" }, "rating "), `${value}${seatRating.provisional ? "?" : ""}`);
}

function clockNode(view, index) {
  if (!view.clocks) return el("p", { class: "clock untimed" }, "untimed");
  const name = index === you ? "Your clock" : `${view.players[index].name}'s clock`;
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
    if (state.newCards.has(code)) label += ", just drawn";
    if (code === forbidden) label += ", just taken from the pile";
    if (chosen) label += ", chosen: press again to discard it";
    const face = cardFace(code, {
      tag: "button",
      cls: classes.join(" "),
      attrs: { type: "button", "aria-label": label, "aria-pressed": confirmDiscard && !state.mode ? String(chosen) : null, dataset: { card: code, ply: String(view.ply), focus: `card:${code}` } },
    });
    if (state.newCards.has(code)) face.append(el("span", { class: "badge", "aria-hidden": "true" }, "new"));
    if (code === forbidden) face.append(el("span", { class: "badge", "aria-hidden": "true" }, "taken"));
    face.addEventListener("click", onCard);
    return face;
  };
  const wrap = el("div", { class: "hand", role: "group", "aria-label": "Your hand" });
  for (const meld of view.melds || []) {
    wrap.append(el("div", { class: "meld", role: "group", "aria-label": `Meld ${cardsText(meld)}` },
      el("span", { class: "group-label" }, "meld"), ...meld.map(button)));
  }
  const deadwood = view.deadwood || [];
  if (deadwood.length) {
    wrap.append(el("div", { class: "deadwood", role: "group", "aria-label": `Deadwood, ${view.deadwood_points} points` },
      el("span", { class: "group-label" }, "deadwood"), ...deadwood.map(button)));
  }
  const limit = view.deal ? view.deal.knock_limit : 10;
  return el("div", {},
    wrap,
    el("p", { class: "deadwood-count" }, `Deadwood: `, el("strong", { id: "deadwood-points" }, String(view.deadwood_points)),
      ` points (knock at ${limit} or less)`));
}

function centre(view) {
  const deal = view.deal;
  if (!deal) {
    const text = view.status === "finished" ? "The game is over." : view.pause ? "The next deal is dealt face down until it starts." : "Dealing…";
    return [el("p", { class: "empty" }, text)];
  }
  const top = pileTop(view);
  const canStock = legal(view, "draw_stock").length > 0;
  const pileAction = legal(view, "draw_discard").length ? "draw_discard" : legal(view, "take_upcard").length ? "take_upcard" : null;
  // Mouse shortcuts beside the labelled buttons of the toolbar (keyboard users use those).
  const stock = el(canStock ? "button" : "div", {
    class: `stock${canStock ? " live" : ""}`, type: canStock ? "button" : null, tabindex: canStock ? "-1" : null,
    dataset: canStock ? { action: "draw_stock", ply: String(view.ply) } : {},
    "aria-label": `Stock, ${deal.stock_size} cards`,
  }, cardBack({ label: "stock" }), el("span", { class: "caption" }, `Stock · ${deal.stock_size}`));
  if (canStock) stock.addEventListener("click", onAction);
  const pile = el(pileAction ? "button" : "div", {
    class: `pile${pileAction ? " live" : ""}`, type: pileAction ? "button" : null, tabindex: pileAction ? "-1" : null,
    dataset: pileAction ? { action: pileAction, ply: String(view.ply) } : {},
    "aria-label": top ? `Discard pile, top card ${cardLabel(top)}` : "Discard pile, empty",
  }, top ? cardFace(top, { cls: "big" }) : el("span", { class: "card empty" }, "—"),
  el("span", { class: "caption" }, `Discard pile · ${deal.discard_pile.length}`));
  if (pileAction) pile.addEventListener("click", onAction);
  const recent = deal.history.slice(-4).map((h) =>
    el("li", {}, `${who(view, h.player)} ${(VERBS[h.type] || (() => h.type))(h.card)}`));
  const parts = [el("div", { class: "piles" }, stock, pile)];
  if (recent.length) {
    parts.push(el("div", { class: "recent" }, el("h3", {}, "Last moves"), el("ol", { class: "plain" }, ...recent)));
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
    }, done ? "Waiting for your opponent…" : "Continue to the next deal", " ", el("kbd", { "aria-hidden": "true" }, "C"));
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
      label = `${type === "gin" ? "Gin" : "Knock"}, laying down ${cardText(choices[0].card)}`;
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
    buttons.push(el("span", { class: "hint", role: "status" },
      `Discard ${cardText(state.chosen)}? ${touch ? "Tap it again" : "Click it again (or Enter)"} to discard it${touch ? "" : "; Esc keeps it"}.`));
  } else if (legal(view, "discard").length && !state.mode) {
    buttons.push(el("span", { class: "hint" }, confirmDiscard
      ? touch ? "Tap a card to choose it, then again to discard it." : "Click a card (or Enter on it) to choose it, then again to discard it."
      : touch ? "Tap a card to discard it." : "Click a card (or Enter on it) to discard it."));
  }
  if (state.mode) {
    buttons.push(el("span", { class: "hint" }, `${state.mode === "gin" ? "Gin" : "Knock"}: ${touch ? "tap" : "choose"} the card to put face down${touch ? "" : " (Esc cancels)"}.`));
  }
  return buttons;
}

function statusText(view) {
  if (view.status === "finished") return "The game is over.";
  if (view.pause) {
    const waiting = view.pause.continued.map((done, i) => (done ? null : who(view, i))).filter(Boolean);
    return `The deal is over: read the result. The next deal starts when ${waiting.length === 2 ? "both players continue" : waiting[0] === "You" ? "you continue" : `${waiting[0]} continues`}, or when the pause runs out; no clock runs meanwhile.`;
  }
  const deal = view.deal;
  if (!deal) return "Waiting for the deal…";
  const last = deal.history.length ? deal.history[deal.history.length - 1] : null;
  const lead = last && last.player !== you ? `${who(view, last.player)} ${(VERBS[last.type] || (() => last.type))(last.card)}. ` : "";
  if (you === null) {
    return `${lead}${view.to_act === null ? "" : `${view.players[view.to_act].name} to play.`}`;
  }
  if (!view.your_turn) return `${lead}Waiting for ${view.players[1 - you].name}…`;
  if (state.mode) return `${state.mode === "gin" ? "Gin" : "Knock"}: choose the card to put face down.`;
  const top = pileTop(view);
  switch (deal.phase) {
    case "offer_nondealer":
    case "offer_dealer":
      return `${lead}Your turn: take the upcard ${cardText(top)} or pass.`;
    case "first_draw":
      return `${lead}Your turn: both passed, draw from the stock.`;
    case "draw":
      return `${lead}Your turn: draw from the stock or take ${cardText(top)} from the pile.`;
    case "discard": {
      const ends = ["knock", "gin", "big_gin"].filter((t) => legal(view, t).length);
      const also = ends.length ? `, or ${ends.map((t) => t.replace("_", " ")).join(" / ")}` : "";
      return `${lead}Your turn: discard a card${also}.`;
    }
    case "fiftieth_offer":
      return `${lead}Last chance: take ${cardText(top)} or pass (the deal is then a draw).`;
    case "fiftieth_decide":
      return `${lead}Knock or go gin now, or pass (the deal is then a draw).`;
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
    if (node) node.textContent = `Next deal in ${Math.ceil(left / 1000)} s`;
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
    node.querySelector(".turn").textContent = turnMs == null ? "" : ` (this turn ${formatClock(turnMs)})`;
    node.querySelector(".run").textContent = running ? "▶ " : "";
    const flagged = ms <= 0 && (running || lostOnTime(view, index));
    node.querySelector(".note").textContent = flagged ? " out of time" : running && ms < 20000 ? " low" : "";
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

function outcomeSentence(view, outcome) {
  const name = (i) => who(view, i);
  const to = (i) => (i === you ? "you" : view.players[i].name);
  const times = outcome.multiplier > 1 ? ` (×${outcome.multiplier})` : "";
  switch (outcome.termination) {
    case "knock":
      return `${name(outcome.knocker)} knocked with ${outcome.knocker_points} deadwood against ${outcome.defender_points}: ${outcome.points} points${times} to ${to(outcome.winner)}.`;
    case "undercut":
      return `${name(outcome.knocker)} knocked with ${outcome.knocker_points} but ${who(view, 1 - outcome.knocker).replace(/^You$/, "you")} undercut with ${outcome.defender_points}: ${outcome.points} points${times} to ${to(outcome.winner)}.`;
    case "gin":
      return `${name(outcome.knocker)} went gin: ${outcome.points} points${times}.`;
    case "big_gin":
      return `${name(outcome.knocker)} went big gin: ${outcome.points} points${times}.`;
    case "draw":
      return "The deal is a draw: the stock ran out and nobody scores.";
    default:
      return outcome.termination;
  }
}

function meldsNode(melds, deadwood, points) {
  const node = el("span", { class: "spread" });
  for (const meld of melds || []) node.append(cardList(meld, { cls: "meld" }));
  if (deadwood && deadwood.length) node.append(cardList(deadwood, { cls: "deadwood" }), ` ${points} deadwood`);
  else node.append(" no deadwood");
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
  const rows = [el("h2", { id: "reveal-title" }, `Deal ${last.number + 1} result`),
    el("p", { class: "outcome", dataset: { termination: o.termination } }, outcomeSentence(view, o))];
  const working = pointsWorking(o);
  if (working) rows.push(el("p", { class: "working" }, working));
  if (o.termination !== "draw" && o.knocker !== null && o.knocker !== undefined) {
    const defender = 1 - o.knocker;
    const list = el("dl", { class: "spreads" },
      el("dt", {}, `${who(view, o.knocker)}, ${o.termination === "undercut" || o.termination === "knock" ? "knocker" : "gin"}`),
      el("dd", {}, meldsNode(o.knocker_melds, o.knocker_deadwood, o.knocker_points),
        o.knock_card ? el("span", { class: "knock-card" }, " · face down: ", cardFace(o.knock_card)) : null),
      el("dt", {}, `${who(view, defender)}, defender`),
      el("dd", {}, meldsNode(o.defender_melds, o.defender_deadwood, o.defender_points)));
    rows.push(list);
    if (o.layoffs && o.layoffs.length) {
      rows.push(el("p", { class: "layoffs" }, "Laid off: ",
        ...o.layoffs.map((l, i) => el("span", {}, i ? "; " : "", cardFace(l.card), " onto ", cardList(l.onto)))));
    }
  } else if (last.hands) {
    rows.push(el("p", {}, `${who(view, 0)} held `, cardList(last.hands[0])), el("p", {}, `${who(view, 1)} held `, cardList(last.hands[1])));
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
  const rows = [el("h2", {}, `Game ${view.number + 1} is over`)];
  if (result) {
    if (byOrganiser(result)) {
      // Nobody forfeited: an organiser decided, for the reason they gave.
      const why = result.reason.replace(ORGANISER, "");
      rows.push(el("p", { class: "timeout decided" }, `Decided by an organiser${why ? `: ${why}` : ""}.`));
    } else if (result.termination === "forfeit") {
      const loser = 1 - result.winner;
      const onTime = /time/.test(result.reason || "");
      const forTurn = /for the turn/.test(result.reason || "");
      rows.push(el("p", { class: `timeout${onTime ? " on-time" : ""}` },
        onTime ? el("span", { "aria-hidden": "true" }, "⚑ ") : null,
        `${who(view, loser)} ${forTurn ? "ran out of time for the turn" : onTime ? "ran out of time" : `forfeited (${result.reason})`}.`));
    }
    rows.push(el("p", { class: "winner" }, resultSentence(view, result.winner, result.final, "game", " to ")));
    // Hollywood ends three games at once: a sheet for each, in the order they ended.
    results.forEach((r, i) => rows.push(scoreSheet(view, r, results.length > 1 ? `Hollywood game ${i + 1} to end` : "How the game scored")));
  }
  const match = state.match;
  if (match) {
    const won = match.games_won;
    if (match.status === "finished" && match.winner) {
      const winnerIndex = match.winner.id === match.player_a.id ? 0 : 1;
      // How it ended, unless the game's line above has just said it was an organiser's decision.
      const saidAbove = match.end_reason === "admin" && result && byOrganiser(result);
      const how = match.end_reason && match.end_reason !== "games" && !saidAbove ? ` (${reasonText(match.end_reason)})` : "";
      rows.push(el("p", { class: "match-result" }, resultSentence(view, winnerIndex, won, "match", "–", how)));
      const rating = ratingBlock(view, match);
      if (rating) rows.push(rating);
      rows.push(afterMatch(match));
    } else if (match.current_game && String(match.current_game) !== String(gameId)) {
      rows.push(el("p", {}, `Games: ${scoreLine(view, won)}. `,
        el("a", { href: `/games/${match.current_game}`, class: "button primary", id: "next-game", "aria-keyshortcuts": "N" }, `Next game →`)));
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
// order, then who won: "Ada 1–3 Bob: Bob wins the match".
function resultSentence(view, winner, values, what, dash, how = "") {
  if (you !== null) {
    return `You ${winner === you ? "win" : "lose"} the ${what} ${values[you]}${dash}${values[1 - you]}${how}.`;
  }
  return `${scoreLine(view, values, dash === " to " ? " – " : dash)}: ${view.players[winner].name} wins the ${what}${how}.`;
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
    row("Hands won", (i) => String(result.hands_won[i])),
    row("Hand points: the points of the hands won", (i) => String(base[i])),
  ];
  if (doubledPoints && base[winner] > 0) { // no hand won at all (a forfeit): nothing doubled
    rowsOut.push(row("Shutout: the loser won no hand, the winner's hand points are doubled", (i) => (i === winner ? `+${base[i]}` : "—")));
  }
  rowsOut.push(
    row(result.shutout && !doubledPoints ? "Game bonus for winning the game, doubled for the shutout" : "Game bonus for winning the game",
      (i) => String(result.game_bonus[i])),
    row(`Box bonus: ${perHand} for each hand won`, (i) => (result.hands_won[i] ? `${result.hands_won[i]} × ${perHand} = ${result.line_bonus[i]}` : "0")),
    row("Total", (i) => String(result.final[i]), "total"),
  );
  return el("div", { class: "scroll" },
    el("table", { class: "grid score-sheet" },
      el("caption", {}, caption),
      el("thead", {}, el("tr", {}, el("td", {}), ...cols.map((i) => el("th", { scope: "col", class: "num" }, who(view, i))))),
      el("tbody", {}, ...rowsOut)),
    el("p", { class: "meta" }, `Margin: ${result.final[winner]} − ${result.final[1 - winner]} = ${result.margin}.`));
}

// How a deal's points were worked out, from its outcome: "20 − 5 = 15", "gin: 12 + 25 gin
// bonus = 37", "× 2: the first upcard was a spade".
function pointsWorking(o) {
  if (!o || o.termination === "draw" || o.knocker === null || o.knocker === undefined) return "";
  const multiplier = o.multiplier || 1;
  const base = o.points / multiplier;
  let text;
  switch (o.termination) {
    case "knock":
      text = `Deadwood ${o.defender_points} − ${o.knocker_points} = ${base}`;
      break;
    case "undercut":
      text = `Undercut: ${o.knocker_points} − ${o.defender_points} + ${base - (o.knocker_points - o.defender_points)} undercut bonus = ${base}`;
      break;
    case "gin":
      text = `Gin: the defender's deadwood ${o.defender_points} + ${base - o.defender_points} gin bonus = ${base}`;
      break;
    case "big_gin":
      text = `Big gin: the defender's deadwood ${o.defender_points} + ${base - o.defender_points} big gin bonus = ${base}`;
      break;
    default:
      return "";
  }
  if (multiplier > 1) text += `, × ${multiplier} (the first upcard was a spade) = ${o.points}`;
  return `${text} points.`;
}

// What a rated match did to each rating, the viewer's first: "You: 1500 → 1520 (+20)",
// with what "provisional" means; "Rating: being worked out…" until it is written.
function ratingBlock(view, match) {
  const pool = match.rating_pool;
  if (!pool) return null;
  const box = el("div", { class: "rating-change", id: "rating-change" });
  if (!match.ratings) {
    box.append(el("p", { class: "meta" }, `${pool.name} rating: being worked out…`));
    return box;
  }
  box.append(el("h3", {}, `${pool.name} rating`));
  const list = el("ul", { class: "rating-rows" });
  for (const i of ordered(view)) {
    const r = match.ratings[i];
    const sign = r.change > 0 ? "+" : r.change < 0 ? "−" : "±";
    const amount = `${sign}${Math.abs(r.change).toFixed(r.change % 1 ? 1 : 0)}`;
    list.append(el("li", { class: `rating-row ${r.change > 0 ? "up" : r.change < 0 ? "down" : "same"}`, "data-player": String(r.player) },
      el("span", { class: "rating-who" }, i === you ? "You" : who(view, i)), " ",
      el("span", { class: "rating-numbers" }, `${Math.round(r.before)} → ${Math.round(r.after)}`), " ",
      el("strong", { class: "rating-delta" }, `(${amount})`),
      r.provisional ? " " : null,
      r.provisional ? el("span", { class: "tag", title: "provisional rating" }, "provisional") : null));
  }
  box.append(list);
  const notes = [];
  if (match.ratings.some((r) => !r.counted)) {
    notes.push("This match did not count for the ratings (the same two players too often, a person and their own bot, or resigned before any play): nothing changed.");
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
    const parts = indices.map((i) => `${i === you ? "yours" : `${who(view, i)}'s`} ±${Math.round(match.ratings[i].deviation)}`);
    return `Provisional: a new rating moves fast until it is sure enough, while its uncertainty is above ±${Math.round(pool.provisional_deviation)} (${parts.join(", ")}).`;
  }
  const parts = indices.map((i) => `${i === you ? "you have played" : `${who(view, i)} has played`} ${match.ratings[i].rated_matches}`);
  return `Provisional: a new rating moves fast for the first ${pool.provisional_matches} rated matches (${parts.join(", ")}).`;
}

// What to do once the match is over: a rematch of a challenge, another ladder match (the
// same ladder's queue, or a new opponent), back to the event of a tournament match, the
// replay.
function afterMatch(match) {
  const links = el("p", { class: "after-match" });
  if (you !== null && match.source === "challenge") {
    const button = el("button", { type: "button", class: "button primary", id: "rematch" }, "Rematch");
    button.addEventListener("click", () => rematch(match, button));
    links.append(button, " ");
  }
  if (you !== null && match.source === "ladder" && match.rating_pool && match.rating_pool.kind === "ladder") {
    if (state.queue) {
      links.append(queueNote(match), " ");
    } else {
      const again = el("button", { type: "button", class: "button primary", id: "play-again" }, "Play again");
      const other = el("button", { type: "button", class: "button", id: "new-opponent",
        title: "Join the queue again, never to be paired with this opponent while you wait" }, "New opponent");
      again.addEventListener("click", () => queueAgain(match, false, [again, other]));
      other.addEventListener("click", () => queueAgain(match, true, [again, other]));
      links.append(again, " ", other, " ");
    }
  }
  if (root.dataset.eventUrl) {
    links.append(el("a", { href: root.dataset.eventUrl, class: "button primary", id: "back-to-event" }, "Back to the event"), " ");
  }
  links.append(el("a", { href: `/matches/${matchId}/replay`, class: "button" }, "Replay the deals"), " ",
    el("a", { href: "/lobby", class: "button" }, "Back to the lobby"));
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
    flash(flashBox, `Rematch offered: ${opponent.name} can accept it in the lobby.`, { kind: "info", ms: 12000 });
    button.textContent = "Rematch offered";
  } catch (error) {
    button.disabled = false;
    flash(flashBox, error instanceof ApiError ? `No rematch: ${error.detail}` : "No rematch: the connection failed.", { ms: 12000 });
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
      flash(flashBox, error instanceof ApiError ? `Not queued: ${error.detail}` : "Not queued: the connection failed.", { ms: 12000 });
      return;
    }
  }
  state.queue = { ladder: ladder.id, name: ladder.name, newOpponent, timer: null };
  renderResult();
  watchQueue();
}

function queueNote() {
  const queue = state.queue;
  const leave = el("button", { type: "button", class: "button", id: "leave-queue" }, "Leave the queue");
  leave.addEventListener("click", leaveQueue);
  return el("span", { class: "queue-note", id: "queue-note", role: "status" },
    `Waiting for ${queue.newOpponent ? "a new opponent" : "an opponent"} in ${queue.name}… `, leave);
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
      flash(flashBox, `You were already paired: ${error.detail}`, { ms: 12000 });
      queue.timer = setTimeout(watchQueue, 0);
      return;
    }
  }
  state.queue = null;
  renderResult();
}

function reasonText(reason) {
  return { timeout: "on time", forfeit: "by forfeit", resigned: "by resignation", bot_failure: "a bot failed", no_show: "no show", admin: "decided by an organiser" }[reason] || reason;
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
    if (!window.confirm("Resign the whole match? Your opponent wins it.")) return;
    try {
      await api(`/api/matches/${matchId}/resign`, { method: "POST" });
    } catch (error) {
      flash(flashBox, error instanceof ApiError ? `Could not resign: ${error.detail}` : "Could not resign: the connection failed.");
    }
    poll({ fresh: true });
  });
}

setInterval(renderClocks, CLOCK_TICK_MS);
setInterval(renderPresence, 1000);
poll();
connect();
