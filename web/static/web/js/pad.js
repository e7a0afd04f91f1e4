// The score pad of a match played with real cards at a table. Its players (and organisers)
// enter each hand as it ended: the outcome, who knocked, each deadwood on a number pad, the
// upcard for Oklahoma; the server scores it (POST /api/matches/{id}/hands) and answers with
// the sheet, which is drawn as the paper pad reads: per game its hands with their points and
// running totals, the boxes and bonuses, Hollywood's three columns. The last hand can be taken
// back; the decided result is confirmed or disputed by the other player. An organiser may
// correct any earlier hand (PUT /api/matches/{id}/hands/{n}): its "Correct" button on the
// sheet fills the form with the hand as entered. A refusal is shown in the API's words next
// to what caused it.
//
// Live: the table sockets of the match's last two games (ws/games/{id}, through live.js) push
// a view with the whole sheet after every change, so the other phone and every spectator see
// a hand as soon as it is entered; while no socket is open the sheet is read every few seconds.
import { api, ApiError, el, flash, signInAgain } from "./api.js";
import { cardLabel, cardText } from "./cards.js";
import { connect } from "./live.js";

const POLL_MS = 5000;
const $ = (id) => document.getElementById(id);

const root = $("pad");
const matchId = root.dataset.match;
const you = root.dataset.you === "" ? null : Number(root.dataset.you);
const mayEnter = root.dataset.mayEnter === "true";
const organiser = root.dataset.organiser === "true";
const oklahoma = root.dataset.oklahoma === "true";
const flashBox = $("flash");

// A translated text with named placeholders, interpolated.
const fmt = (text, values) => interpolate(text, values, true);

const state = {
  sheet: JSON.parse($("pad-sheet").textContent),
  games: JSON.parse($("pad-games").textContent), // the match's game ids, by number
  seqs: new Map(), // game id -> the last view's seq from its socket
  sockets: new Map(), // game id -> its socket
  form: blankForm(),
  formHand: null, // the hand number the form is for
  correcting: null, // the earlier hand an organiser is correcting, or null
  busy: false,
  asking: false, // "take back hand N?" is shown
  pollTimer: null,
  reads: 0, // sheet reads started: only the latest one's answer is shown
};

function blankForm() {
  return { kind: null, knocker: null, counts: ["", ""], side: null, rank: null, suit: null };
}

// --- words -----------------------------------------------------------------------------------

function name(index) {
  return state.sheet.players[index].name;
}

function who(index) {
  return index === you ? "You" : name(index);
}

// A short name for the narrow columns of the sheet: the first word, unless both share it.
function short(index) {
  const first = (i) => name(i).split(/\s+/)[0];
  return first(0) === first(1) ? name(index) : first(index);
}

function describe(row) {
  const k = row.knocker === null ? null : row.knocker;
  const dw = row.deadwood;
  let text;
  switch (row.termination) {
    case "knock":
      // Translators: a hand on the sheet, e.g. "Ada knocked 7 v 23" (the deadwood counts).
      text = fmt(gettext("%(knocker)s knocked %(deadwood)s v %(other_deadwood)s"), { knocker: short(k), deadwood: dw[k], other_deadwood: dw[1 - k] });
      break;
    case "undercut":
      text = fmt(gettext("%(knocker)s knocked %(deadwood)s, %(other)s undercut %(other_deadwood)s"), { knocker: short(k), deadwood: dw[k], other: short(1 - k), other_deadwood: dw[1 - k] });
      break;
    case "gin":
      // Translators: a hand on the sheet, e.g. "Ada gin, Ben 23" (Ben's deadwood).
      text = fmt(gettext("%(winner)s gin, %(other)s %(other_deadwood)s"), { winner: short(k), other: short(1 - k), other_deadwood: dw[1 - k] });
      break;
    case "big_gin":
      text = fmt(gettext("%(winner)s big gin, %(other)s %(other_deadwood)s"), { winner: short(k), other: short(1 - k), other_deadwood: dw[1 - k] });
      break;
    default:
      text = gettext("Drawn: nobody scores");
  }
  const extra = [];
  if (row.upcard) extra.push(fmt(gettext("upcard %(card)s"), { card: cardText(row.upcard) }));
  if (row.multiplier > 1) extra.push(`×${row.multiplier}`);
  return extra.length ? `${text} (${extra.join(", ")})` : text;
}

function gamesWon(sheet) {
  return `${sheet.games_won[0]}–${sheet.games_won[1]}`;
}

function lastHand() {
  const hands = state.sheet.hands;
  return hands.length ? hands[hands.length - 1] : null;
}

// Whether the hands entered so far decide the match, and it waits for a confirmation.
function deciding(sheet) {
  return sheet.status === "active" && (sheet.confirmation === "awaiting" || sheet.confirmation === "disputed");
}

function open(sheet) {
  return sheet.status === "active" && !sheet.decided;
}

// The player who confirms or disputes: the opponent of whoever entered the deciding hand
// (either player when an organiser entered it).
function mayConfirm(sheet) {
  if (!deciding(sheet)) return false;
  if (organiser) return true;
  if (you === null) return false;
  return sheet.reported_by !== state.sheet.players[you].id;
}

// The match's result in the order every page reads scores: a player's own games first ("You
// lose the match 1–2"), anyone else the seats in order ("Ada 2–1 Ben: Ada wins the match").
function matchResult(sheet, winner) {
  const games = sheet.games_won;
  if (you !== null) {
    const score = `${games[you]}–${games[1 - you]}`;
    return winner === you ? fmt(gettext("You win the match %(score)s"), { score }) : fmt(gettext("You lose the match %(score)s"), { score });
  }
  return fmt(gettext("%(first)s %(score)s %(second)s: %(winner)s wins the match"), {
    first: name(0), score: `${games[0]}–${games[1]}`, second: name(1), winner: name(winner),
  });
}

// A match that is neither in play nor over, in the status line.
const MATCH_STATUS = {
  challenged: gettext("The match is challenged."),
  scheduled: gettext("The match is scheduled."),
  declined: gettext("The match is declined."),
  cancelled: gettext("The match is cancelled."),
};

function statusText(sheet) {
  const winner = sheet.winner;
  if (sheet.status === "finished") {
    const won = winner === null ? gettext("The match is over") : matchResult(sheet, winner);
    return sheet.confirmation === "confirmed" ? fmt(gettext("%(result)s: the result is confirmed."), { result: won }) : `${won}.`;
  }
  if (sheet.status !== "active") return MATCH_STATUS[sheet.status] || fmt(gettext("The match is %(status)s."), { status: sheet.status });
  if (sheet.confirmation === "disputed") {
    const reason = sheet.dispute_reason;
    return /[.!?]$/.test(reason)
      ? fmt(gettext("Disputed: “%(reason)s” An organiser decides; the hands can still be corrected."), { reason })
      : fmt(gettext("Disputed: “%(reason)s”. An organiser decides; the hands can still be corrected."), { reason });
  }
  if (sheet.decided) {
    const won = matchResult(sheet, winner);
    const reporter = sheet.players.findIndex((p) => p.id === sheet.reported_by);
    if (reporter === -1) return fmt(gettext("%(result)s. Waiting for a player to confirm it."), { result: won });
    // A guest has no account to confirm with: an organiser confirms for them.
    if (sheet.players[1 - reporter].kind === "guest") {
      return fmt(gettext("%(result)s. Waiting for an organiser to confirm it (%(guest)s plays as a guest)."), { result: won, guest: name(1 - reporter) });
    }
    if (reporter === you) return fmt(gettext("%(result)s. Waiting for %(name)s to confirm it."), { result: won, name: name(1 - you) });
    if (you !== null) return fmt(gettext("%(result)s. Confirm the result, or dispute it."), { result: won });
    return fmt(gettext("%(result)s. Waiting for %(name)s to confirm it."), { result: won, name: name(1 - reporter) });
  }
  const hand = { number: sheet.next_hand + 1, games: gamesWon(sheet) };
  if (sheet.next_dealer === null) return fmt(gettext("Hand %(number)s. Games %(games)s."), hand);
  if (sheet.next_dealer === you) return fmt(gettext("Hand %(number)s: you deal. Games %(games)s."), hand);
  return fmt(gettext("Hand %(number)s: %(dealer)s deals. Games %(games)s."), { ...hand, dealer: name(sheet.next_dealer) });
}

// --- drawing -------------------------------------------------------------------------------

function render() {
  const sheet = state.sheet;
  root.dataset.status = sheet.status;
  root.dataset.hands = String(sheet.hands.length);
  root.dataset.confirmation = sheet.confirmation;
  root.dataset.decided = String(sheet.decided);
  $("pad-status").textContent = statusText(sheet);
  renderSheet(sheet);
  if (!mayEnter) return;
  renderEntry(sheet);
  renderResult(sheet);
  renderUndo(sheet);
}

function renderEntry(sheet) {
  const box = $("entry");
  const fixing = state.correcting;
  box.hidden = !open(sheet) && fixing === null;
  box.classList.toggle("correcting", fixing !== null);
  $("entry-cancel").hidden = fixing === null;
  if (box.hidden) return;
  const form = state.form;
  const number = fixing === null ? sheet.next_hand : fixing;
  const dealer = fixing === null ? sheet.next_dealer : sheet.hands[fixing].dealer;
  $("entry-verb").textContent = fixing === null ? gettext("Hand") : gettext("Correct hand");
  $("entry-number").textContent = String(number + 1);
  $("entry-dealer").textContent = dealer === null ? "" : fmt(gettext("%(name)s dealt"), { name: name(dealer) });
  const straight = sheet.rules.straight;
  for (const button of box.querySelectorAll("[data-kind]")) {
    const kind = button.dataset.kind;
    button.hidden = kind === "knock" && straight; // no knocking in straight gin
    button.setAttribute("aria-pressed", String(form.kind === kind));
  }
  const scored = form.kind !== null && form.kind !== "drawn";
  $("step-knocker").hidden = !scored;
  $("knocker-legend").textContent = form.kind === "knock" ? gettext("Who knocked?") : form.kind === "big_gin" ? gettext("Who went big gin?") : gettext("Who went gin?");
  for (const button of box.querySelectorAll("[data-knocker]")) {
    button.setAttribute("aria-pressed", String(form.knocker === Number(button.dataset.knocker)));
  }
  $("step-deadwood").hidden = !scored || form.knocker === null;
  for (const button of box.querySelectorAll("[data-side]")) {
    const side = Number(button.dataset.side);
    const gin = form.kind !== "knock" && side === form.knocker;
    button.disabled = gin;
    button.setAttribute("aria-pressed", String(form.side === side));
    const value = gin ? "0" : form.counts[side] === "" ? "–" : form.counts[side];
    $(`count-${side}`).textContent = value;
    button.setAttribute("aria-label", gin ? fmt(gettext("%(name)s's deadwood: 0, gin"), { name: name(side) })
      : form.counts[side] === "" ? fmt(gettext("%(name)s's deadwood: not entered"), { name: name(side) })
        : fmt(gettext("%(name)s's deadwood: %(count)s"), { name: name(side), count: form.counts[side] }));
  }
  if (oklahoma) {
    $("step-upcard").hidden = !scored;
    for (const button of box.querySelectorAll("[data-rank]")) button.setAttribute("aria-pressed", String(form.rank === button.dataset.rank));
    for (const button of box.querySelectorAll("[data-suit]")) button.setAttribute("aria-pressed", String(form.suit === button.dataset.suit));
    const card = upcard();
    const chosen = $("upcard-chosen");
    chosen.textContent = card ? cardText(card)
      : form.rank ? fmt(gettext("%(rank)s, and its suit?"), { rank: form.rank === "T" ? "10" : form.rank }) : gettext("none yet");
    chosen.className = `pad-card${card ? ` suit-${card[1].toLowerCase()}` : ""}`;
    chosen.setAttribute("aria-label", card ? cardLabel(card) : chosen.textContent);
  }
  const missing = missingParts(sheet);
  const submit = $("enter-hand");
  submit.disabled = state.busy || missing.length > 0;
  if (fixing !== null) submit.textContent = state.busy ? gettext("Saving…") : fmt(gettext("Save hand %(number)s"), { number: fixing + 1 });
  else submit.textContent = state.busy ? gettext("Entering…") : fmt(gettext("Enter hand %(number)s"), { number: sheet.next_hand + 1 });
  $("entry-summary").textContent = missing.length ? fmt(gettext("Still to enter: %(parts)s."), { parts: missing.join(", ") })
    : fmt(gettext("%(summary)s. Check it, then enter it."), { summary: summary() });
}

function upcard() {
  const form = state.form;
  return form.rank && form.suit ? form.rank + form.suit : null;
}

function missingParts(sheet) {
  const form = state.form;
  if (form.kind === null) return [gettext("how the hand ended")];
  if (form.kind === "drawn") return [];
  const parts = [];
  if (form.knocker === null) return [form.kind === "knock" ? gettext("who knocked") : gettext("who went gin")];
  for (const side of [form.knocker, 1 - form.knocker]) {
    if (form.kind !== "knock" && side === form.knocker) continue;
    if (form.counts[side] === "") parts.push(fmt(gettext("%(name)s's deadwood"), { name: name(side) }));
  }
  if (oklahoma && !upcard()) parts.push(gettext("the upcard"));
  return parts;
}

function summary() {
  const form = state.form;
  if (form.kind === "drawn") return gettext("A drawn hand: nobody scores");
  const k = form.knocker;
  const card = upcard();
  const up = card ? fmt(gettext(", upcard %(card)s"), { card: cardText(card) }) : "";
  const words = { winner: name(k), other: name(1 - k), deadwood: form.counts[k], other_deadwood: form.counts[1 - k] };
  let text;
  if (form.kind === "knock") text = fmt(gettext("%(winner)s knocked with %(deadwood)s against %(other_deadwood)s"), words);
  else if (form.kind === "big_gin") text = fmt(gettext("%(winner)s went big gin, %(other)s holds %(other_deadwood)s"), words);
  else text = fmt(gettext("%(winner)s went gin, %(other)s holds %(other_deadwood)s"), words);
  return text + up;
}

function renderResult(sheet) {
  const box = $("result-box");
  box.hidden = !deciding(sheet); // once finished, the status line says how it ended
  if (box.hidden) return;
  $("result-text").textContent = statusText(sheet);
  const actions = $("confirm-actions");
  actions.hidden = !mayConfirm(sheet);
  $("confirm").disabled = state.busy;
  // A player disputes; an organiser corrects the hands or confirms instead.
  $("dispute-open").hidden = organiser || sheet.confirmation === "disputed";
  if (actions.hidden || sheet.confirmation === "disputed") $("dispute-form").hidden = true;
}

function renderUndo(sheet) {
  const box = $("undo");
  const last = lastHand();
  box.hidden = !last || sheet.status !== "active";
  if (box.hidden) {
    state.asking = false;
    return;
  }
  const button = $("take-back");
  button.textContent = fmt(gettext("Take back hand %(number)s"), { number: last.number + 1 });
  button.disabled = state.busy;
  button.hidden = state.asking;
  $("undo-ask").hidden = !state.asking;
  $("undo-question").textContent = fmt(gettext("Take back hand %(number)s (%(hand)s)? It is removed from the sheet."), { number: last.number + 1, hand: describe(last) });
  $("undo-yes").disabled = state.busy;
}

// The sheet: one table per game, its hands with the points won and each player's running
// total under the hand's winner, as a paper pad is kept; Hollywood's three games side by side.
function renderSheet(sheet) {
  const rules = sheet.rules;
  const parts = [
    fmt(gettext("Games won %(first)s %(first_games)s – %(second_games)s %(second)s"), {
      first: short(0), first_games: sheet.games_won[0], second_games: sheet.games_won[1], second: short(1),
    }),
    fmt(gettext("best of %(best_of)s to %(target)s"), { best_of: rules.best_of, target: rules.target }),
  ];
  if (rules.hollywood) parts.push(gettext("Hollywood"));
  $("sheet-summary").textContent = parts.join(" · ");
  const nodes = sheet.games.map((game) => gameTable(sheet, game));
  if (!nodes.length) nodes.push(el("p", { class: "meta" }, gettext("No hand entered yet.")));
  $("sheet-games").replaceChildren(...nodes);
}

function gameTable(sheet, game) {
  const columns = game.columns.length;
  const rows = sheet.hands.filter((h) => h.game === game.number);
  const wide = columns > 1;
  const head = [];
  if (wide) {
    head.push(el("tr", {},
      el("th", { scope: "col", rowspan: "2", class: "n" }, "#"),
      el("th", { scope: "col", rowspan: "2" }, gettext("Hand")),
      ...game.columns.map((_, c) => el("th", { scope: "colgroup", colspan: "2", class: "col-start" }, fmt(gettext("Game %(number)s"), { number: c + 1 })))));
    head.push(el("tr", {}, ...game.columns.flatMap((_, c) => [
      el("th", { scope: "col", class: "num col-start", title: name(0) }, short(0)),
      el("th", { scope: "col", class: "num", title: name(1) }, short(1))])));
  } else {
    head.push(el("tr", {},
      el("th", { scope: "col", class: "n" }, "#"),
      el("th", { scope: "col" }, gettext("Hand")),
      el("th", { scope: "col", class: "num", title: name(0) }, short(0)),
      el("th", { scope: "col", class: "num", title: name(1) }, short(1))));
  }
  let before = game.columns.map(() => [0, 0]);
  const body = rows.map((row) => {
    const what = [describe(row), el("span", { class: "dealer" }, ` · ${fmt(gettext("%(name)s dealt"), { name: short(row.dealer) })}`)];
    if (organiser && mayEnter && sheet.status === "active") {
      what.push(" ", el("button", { type: "button", class: "link-button pad-fix", dataset: { fix: String(row.number) },
        "aria-label": fmt(gettext("Correct hand %(number)s"), { number: row.number + 1 }) }, pgettext("a button: correct a hand", "Correct")));
    }
    const cells = [el("td", { class: "n" }, String(row.number + 1)), el("td", { class: "what" }, ...what)];
    row.columns.forEach((scores, c) => {
      for (const side of [0, 1]) {
        const gained = scores[side] - before[c][side];
        const cls = `num${side === 0 ? " col-start" : ""}`;
        cells.push(gained > 0
          ? el("td", { class: `${cls} scored` }, el("span", { class: "plus" }, `+${gained}`), " ", el("span", { class: "total" }, String(scores[side])))
          : el("td", { class: cls }, ""));
      }
    });
    before = row.columns;
    return el("tr", { dataset: { hand: String(row.number) } }, ...cells);
  });
  const foot = [];
  const line = (label, value, cls = "") => el("tr", { class: cls },
    el("th", { scope: "row", colspan: "2" }, label),
    ...game.columns.flatMap((column, c) => [0, 1].map((side) =>
      el("td", { class: `num${side === 0 ? " col-start" : ""}` }, value(column, side, c)))));
  foot.push(line(gettext("Boxes (hands won)"), (column, side) => String(column.hands_won[side])));
  const done = game.columns.some((column) => column.result);
  if (done) {
    const result = (column) => column.result;
    // The points of the hands won, as the hands added them up; a shutout then doubles the
    // winner's (the result's hand points are after it) or, by the rules, the game bonus. A
    // game conceded before anyone won a hand doubles nothing worth a line.
    const doubled = (column, side) => (result(column) ? result(column).hand_points[side] - column.scores[side] : 0);
    const shutout = (column, side) => Boolean(result(column) && result(column).shutout && result(column).winner === side
      && (doubled(column, side) > 0 || column.hands_won[side] > 0));
    const pointsDoubled = game.columns.some((column) => [0, 1].some((side) => doubled(column, side) > 0));
    foot.push(line(gettext("Hand points"), (column, side) => (result(column) ? String(column.scores[side]) : "")));
    if (game.columns.some((column) => [0, 1].some((side) => shutout(column, side)))) {
      foot.push(line(pointsDoubled ? gettext("Shutout: hand points doubled") : gettext("Shutout: game bonus doubled"),
        (column, side) => (!shutout(column, side) ? "" : doubled(column, side) > 0 ? `+${doubled(column, side)}` : gettext("yes"))));
    }
    foot.push(line(gettext("Game bonus"), (column, side) => (result(column) ? String(result(column).game_bonus[side]) : "")));
    foot.push(line(gettext("Box bonus"), (column, side) => (result(column) ? String(result(column).line_bonus[side]) : "")));
  }
  foot.push(line(done ? gettext("Total") : gettext("Total so far"), (column, side) => String(column.result ? column.result.final[side] : column.scores[side]), "total-row"));
  // Hollywood's three games are scored at once on one sheet: its columns are the games.
  const caption = [wide ? fmt(gettext("Sheet %(number)s, Hollywood"), { number: game.number + 1 }) : fmt(gettext("Game %(number)s"), { number: game.number + 1 })];
  const firstDealer = fmt(gettext("%(name)s dealt first"), { name: short(game.first_dealer) });
  const results = game.columns.map((column) => column.result).filter(Boolean);
  // The final score in the sheet's own column order, then who won it.
  if (!wide && results.length) {
    caption.push(fmt(gettext("%(first_score)s – %(second_score)s, %(winner)s wins"), {
      first_score: results[0].final[0], second_score: results[0].final[1], winner: name(results[0].winner),
    }));
  } else if (game.status === "in_play") caption.push(gettext("in play"));
  else caption.push(gettext("over"));
  caption.push(firstDealer);
  return el("div", { class: `pad-game${wide ? " hollywood" : ""}`, dataset: { game: String(game.number) } },
    el("table", { class: "grid pad-hands" },
      el("caption", {}, caption.join(" · ")),
      el("thead", {}, ...head),
      el("tbody", {}, ...(body.length ? body : [el("tr", {}, el("td", { colspan: String(2 + columns * 2), class: "meta" }, gettext("No hand yet.")))])),
      el("tfoot", {}, ...foot)));
}

// --- entering a hand -------------------------------------------------------------------------

const ERROR_FIELDS = {
  knock_limit: "deadwood",
  deadwood_range: "deadwood",
  deadwood_missing: "deadwood",
  gin_with_deadwood: "deadwood",
  upcard_required: "upcard",
  invalid_card: "upcard",
  knocker_required: "knocker",
  not_in_match: "knocker",
  straight_gin_no_knock: "kind",
  drawn_hand_no_score: "kind",
  invalid_entry: "kind",
  reason_required: "reason",
};
const BODY_FIELDS = { kind: "kind", knocker: "knocker", deadwood: "deadwood", upcard: "upcard", reason: "reason" };

function showError(where, text) {
  const node = $(`error-${where}`) || $("error-enter");
  node.textContent = text;
  node.hidden = !text;
  const step = $(`step-${where}`);
  if (step) step.classList.toggle("invalid", Boolean(text));
}

function clearErrors(...where) {
  for (const w of where.length ? where : ["kind", "knocker", "deadwood", "upcard", "reason", "enter", "result", "dispute", "undo"]) {
    if ($(`error-${w}`)) showError(w, "");
  }
}

// A refusal next to what caused it: the field its code names, else beside the button pressed.
function showRefusal(error, near) {
  if (!(error instanceof ApiError)) {
    showError(near, gettext("The connection failed: nothing was changed. Try again."));
    return;
  }
  const fields = error.body.errors || {};
  const named = Object.keys(fields);
  if (error.code === "invalid" && named.length) {
    for (const key of named) {
      const where = BODY_FIELDS[key.split(".")[0]] || near;
      showError(where === "reason" && !organiser ? near : where, fields[key].join(" "));
    }
    return;
  }
  let where = ERROR_FIELDS[error.code] || near;
  if (where === "reason" && !$("error-reason")) where = near;
  if (error.code === "reason_required" && near === "dispute") where = "dispute";
  showError(where, error.message);
}

function reason() {
  const input = $("pad-reason");
  return input ? input.value.trim() : "";
}

async function enterHand() {
  const sheet = state.sheet;
  if (state.busy || missingParts(sheet).length) return;
  const form = state.form;
  const fixing = state.correcting;
  const body = fixing === null ? { number: sheet.next_hand, kind: form.kind } : { kind: form.kind };
  if (form.kind !== "drawn") {
    const players = sheet.players;
    body.knocker = players[form.knocker].id;
    body.deadwood = {};
    for (const side of [0, 1]) {
      if (form.kind !== "knock" && side === form.knocker) continue;
      body.deadwood[players[side].id] = Number(form.counts[side]);
    }
    if (oklahoma) body.upcard = upcard();
  }
  if (organiser) body.reason = reason();
  clearErrors();
  if (fixing === null) {
    await write("enter", () => api(`/api/matches/${matchId}/hands`, { method: "POST", body }));
    return;
  }
  const done = await write("enter", () => api(`/api/matches/${matchId}/hands/${fixing}`, { method: "PUT", body }));
  if (done) {
    stopCorrecting();
    flash(flashBox, fmt(gettext("Hand %(number)s is corrected; the hands after it are scored again."), { number: fixing + 1 }), { kind: "info" });
  }
}

// An organiser's "Correct" on a hand of the sheet: the form holds that hand as entered.
function startCorrecting(number) {
  const row = state.sheet.hands[number];
  if (!row || state.busy) return;
  const counts = row.deadwood.map((n, side) => (n === null || (row.kind !== "knock" && side === row.knocker) ? "" : String(n)));
  state.correcting = number;
  state.form = {
    kind: row.kind,
    knocker: row.knocker,
    counts,
    side: row.knocker === null ? null : row.kind === "knock" ? row.knocker : 1 - row.knocker,
    rank: row.upcard ? row.upcard[0] : null,
    suit: row.upcard ? row.upcard[1] : null,
  };
  clearErrors();
  render();
  $("entry").scrollIntoView({ block: "start" });
  $("enter-hand").focus({ preventScroll: true });
}

function stopCorrecting() {
  state.correcting = null;
  state.form = blankForm();
  state.formHand = state.sheet.next_hand;
  clearErrors();
  render();
}

// One write at a time: the buttons are disabled while it is on its way; its answer is the
// sheet as it now stands. A stale hand number (the other phone was first) reads the sheet.
async function write(near, call) {
  state.busy = true;
  render();
  try {
    const { data } = await call();
    accept(data, { own: true });
    state.busy = false;
    render();
    return true;
  } catch (error) {
    state.busy = false;
    if (error instanceof ApiError && error.status === 401) signInAgain();
    if (error instanceof ApiError && error.status === 409) await read(); // the sheet moved on
    showRefusal(error, near);
    render();
    return false;
  }
}

function pick(kind, value) {
  const form = state.form;
  if (kind === "kind") {
    form.kind = value;
    if (value === "drawn") form.knocker = null;
    clearErrors("kind", "enter");
  } else if (kind === "knocker") {
    form.knocker = value;
    clearErrors("knocker", "enter");
  }
  if (form.kind && form.kind !== "drawn" && form.knocker !== null) {
    // The count to type first: the knocker's for a knock, the defender's for gin.
    const needed = form.kind === "knock" ? [form.knocker, 1 - form.knocker] : [1 - form.knocker];
    if (form.side === null || !needed.includes(form.side)) form.side = needed.find((s) => form.counts[s] === "") ?? needed[0];
    if (form.kind !== "knock") form.counts[form.knocker] = "";
  }
  render();
}

function type(key) {
  const form = state.form;
  if (form.side === null) return;
  let value = form.counts[form.side];
  if (key === "clear") value = "";
  else if (key === "back") value = value.slice(0, -1);
  else if (value.length < 2) value = value === "0" ? key : value + key;
  else return;
  form.counts[form.side] = value;
  clearErrors("deadwood", "enter");
  // Two digits typed: on to the other count if it is still empty.
  const other = 1 - form.side;
  if (value.length === 2 && form.kind === "knock" && form.counts[other] === "") form.side = other;
  render();
}

function bindEntry() {
  const box = $("entry");
  box.addEventListener("click", (event) => {
    const button = event.target.closest("button");
    if (!button || button.disabled || !box.contains(button)) return;
    const data = button.dataset;
    if (data.kind) pick("kind", data.kind);
    else if (data.knocker !== undefined) pick("knocker", Number(data.knocker));
    else if (data.side !== undefined) {
      state.form.side = Number(data.side);
      render();
    } else if (data.digit !== undefined) type(data.digit);
    else if (data.key) type(data.key);
    else if (data.rank) {
      state.form.rank = data.rank;
      clearErrors("upcard", "enter");
      render();
    } else if (data.suit) {
      state.form.suit = data.suit;
      clearErrors("upcard", "enter");
      render();
    } else if (button.id === "enter-hand") enterHand();
  });
  // A keyboard types into the chosen count; Enter enters the hand.
  document.addEventListener("keydown", (event) => {
    if (box.hidden || event.altKey || event.ctrlKey || event.metaKey) return;
    const target = event.target;
    if (target && (target.isContentEditable || /^(INPUT|SELECT|TEXTAREA)$/.test(target.tagName))) return;
    if (/^[0-9]$/.test(event.key)) type(event.key);
    else if (event.key === "Backspace") type("back");
    else if (event.key === "Enter" && target === document.body) enterHand();
    else return;
    event.preventDefault();
  });
}

function bindResult() {
  $("confirm").addEventListener("click", () => {
    clearErrors();
    write("result", () => api(`/api/matches/${matchId}/confirm`, { method: "POST", body: organiser ? { reason: reason() } : {} }));
  });
  $("dispute-open").addEventListener("click", () => {
    const form = $("dispute-form");
    form.hidden = !form.hidden;
    $("dispute-open").setAttribute("aria-expanded", String(!form.hidden));
    if (!form.hidden) $("dispute-reason").focus();
  });
  $("dispute-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    clearErrors();
    const done = await write("dispute", () => api(`/api/matches/${matchId}/dispute`, { method: "POST", body: { reason: $("dispute-reason").value.trim() } }));
    if (done) {
      $("dispute-form").hidden = true;
      flash(flashBox, gettext("Your dispute is sent: an organiser will look at the match."), { kind: "info" });
    }
  });
  $("take-back").addEventListener("click", () => {
    clearErrors("undo");
    state.asking = true;
    render();
    $("undo-yes").focus();
  });
  $("undo-no").addEventListener("click", () => {
    state.asking = false;
    render();
  });
  $("undo-yes").addEventListener("click", async () => {
    const last = lastHand();
    if (!last) return;
    let path = `/api/matches/${matchId}/hands/last?number=${last.number}`;
    if (organiser) path += `&reason=${encodeURIComponent(reason())}`;
    state.asking = false;
    clearErrors();
    await write("undo", () => api(path, { method: "DELETE" }));
  });
}

// --- the sheet as it changes -----------------------------------------------------------------

// A new sheet: the form is kept while it is still for the next hand; a hand entered from the
// other phone meanwhile empties it, saying so.
function accept(sheet, { own = false } = {}) {
  const before = state.sheet;
  state.sheet = sheet;
  if (state.correcting !== null) {
    // The form holds the hand being corrected: kept unless that hand is gone.
    if (sheet.status !== "active" || sheet.hands.length <= state.correcting) {
      state.correcting = null;
      state.form = blankForm();
      state.formHand = sheet.next_hand;
    }
  } else if (state.formHand !== sheet.next_hand) {
    const typed = state.form.kind !== null;
    const row = sheet.hands[state.formHand];
    const by = row && row.entered_by ? sheet.players.find((p) => p.id === row.entered_by) : null;
    // Not this phone's own hand, whose push may come before the answer to its request.
    const mine = own || state.busy || (by && you !== null && by.id === sheet.players[you].id);
    if (typed && !mine && state.formHand !== null && sheet.next_hand > state.formHand) {
      const number = state.formHand + 1;
      flash(flashBox, by ? fmt(gettext("Hand %(number)s was entered by %(name)s meanwhile: check it on the sheet, then enter the next."), { number, name: by.name })
        : fmt(gettext("Hand %(number)s was entered meanwhile: check it on the sheet, then enter the next."), { number }), { kind: "warning" });
    }
    state.form = blankForm();
    state.formHand = sheet.next_hand;
    clearErrors("kind", "knocker", "deadwood", "upcard", "enter");
  }
  if (before.hands.length !== sheet.hands.length) state.asking = false;
}

async function read() {
  const ticket = ++state.reads;
  try {
    const { data } = await api(`/api/matches/${matchId}/sheet`);
    if (ticket === state.reads) {
      accept(data);
      render();
    }
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) flash(flashBox, gettext("This match is not to be seen any more."));
  }
}

// A view from a table socket: it holds the whole sheet, rendered when that game was pushed.
// Only the view of the match's last game at that moment is the newest sheet (an earlier
// game's socket may hold an older render); an earlier game in play again means a take-back
// removed the games after it.
function onView(gameId, message) {
  const view = message.view;
  if (!view || !view.sheet) return;
  if (message.seq <= (state.seqs.get(gameId) ?? -1)) return;
  state.seqs.set(gameId, message.seq);
  state.games[view.number] = view.id;
  if (view.next_game) state.games[view.number + 1] = view.next_game;
  const latest = view.number === view.sheet.games.length - 1;
  if (latest) {
    state.games.length = Math.min(state.games.length, view.sheet.games.length);
    accept(view.sheet);
    render();
  }
  follow();
}

// Sockets to the match's last two games: the last for every change; the one before it hears
// a take-back that undoes the last game.
function follow() {
  if (!("WebSocket" in window)) return;
  const want = new Set(state.games.slice(-2).filter(Boolean));
  for (const [id, socket] of state.sockets) {
    if (!want.has(id)) {
      socket.close();
      state.sockets.delete(id);
    }
  }
  for (const id of want) {
    if (state.sockets.has(id)) continue;
    const socket = connect(`/ws/games/${id}`);
    socket.on("view", (message) => onView(id, message));
    socket.on("open", livePolling);
    socket.on("close", () => {
      state.seqs.delete(id); // the next connection sends its view afresh
      livePolling();
    });
    state.sockets.set(id, socket);
  }
  livePolling();
}

function livePolling() {
  const live = [...state.sockets.values()].some((socket) => socket.isOpen);
  root.dataset.live = live ? "socket" : "polling";
  clearTimeout(state.pollTimer);
  state.pollTimer = null;
  if (!live && state.sheet.status === "active") {
    state.pollTimer = setTimeout(async () => {
      await read();
      livePolling();
    }, POLL_MS);
  }
}

document.addEventListener("visibilitychange", () => {
  if (!document.hidden && root.dataset.live !== "socket") read();
});

if (mayEnter) {
  bindEntry();
  bindResult();
  $("entry-cancel").addEventListener("click", stopCorrecting);
  $("sheet-games").addEventListener("click", (event) => {
    const button = event.target.closest("button[data-fix]");
    if (button) startCorrecting(Number(button.dataset.fix));
  });
}
state.formHand = state.sheet.next_hand;
render();
follow();
