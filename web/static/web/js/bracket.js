// An elimination bracket as a bracket: one part per section (winners bracket, losers bracket,
// finals), each a row of rounds. On a wide screen every match sits centred between the two
// matches that feed it, lines join each match to the match its winner goes to, names are shown
// whole (the bracket scrolls sideways instead, with a cue saying so). On a phone each part
// shows one round at a time, chosen with tabs, with names wrapping rather than cut.
import { el, kindTag, roundLabel } from "./api.js";

export const PHONE = window.matchMedia("(max-width: 40rem)");
const GAP = 14; // px between two matches of a round that do not share a later match
const shownRound = new Map(); // part name -> the round a phone shows (the viewer's choice)
// Part name -> how far the reader scrolled it on a wide screen (Infinity: to its end). Kept
// here, not read from the page, so that a redraw keeps it even when the screen turned narrow
// and wide again in between (the narrow bracket has no sideways scroll to read it from).
const scrolledTo = new Map();
let last = null; // the last bracket drawn: drawn again when the screen turns wide or narrow
const laidOutFor = new WeakMap(); // part -> its sizes when it was last laid out

// How a match was decided when not by its games, in the printed pages' words (web/paper.py).
const RESULT_TEXT = {
  forfeit: gettext("forfeit"),
  no_show: gettext("no show"),
  double_no_show: gettext("neither came"),
  override: gettext("decided"),
  walkover: gettext("walkover"),
  bye: gettext("bye"),
};

// A part's title as shown (its name, from sectionOf, stays the part's key).
const PART_TITLES = {
  "Losers bracket": gettext("Losers bracket"),
  Finals: gettext("Finals"),
  "Winners bracket": gettext("Winners bracket"),
  Bracket: gettext("Bracket"),
};
const partTitle = (name) => PART_TITLES[name] || name;

export function sectionOf(name, format) {
  if (/^Losers/i.test(name)) return "Losers bracket";
  if (/^Grand final|third/i.test(name)) return "Finals";
  return format === "double_elim" ? "Winners bracket" : "Bracket";
}

// "W2.1:a" -> ["W2.1", "a"]; "GF2:b if b wins" -> ["GF2", "b"]; "out" or null -> [null, null].
function target(to) {
  const found = /^([^:\s]+):([ab])/.exec(to || "");
  return found ? [found[1], found[2]] : [null, null];
}

// Where each empty slot's player will come from: {"W2.1:a": "winner of W1.1", ...}.
function feedsOf(bracket) {
  const feeds = new Map();
  for (const round of bracket.rounds) {
    for (const p of round.pairings) {
      const [wk, ws] = target(p.winner_to);
      if (wk) feeds.set(`${wk}:${ws}`, interpolate(gettext("winner of %(match)s"), { match: p.key }, true));
      const [lk, ls] = target(p.loser_to);
      if (lk) feeds.set(`${lk}:${ls}`, interpolate(gettext("loser of %(match)s"), { match: p.key }, true));
    }
  }
  return feeds;
}

function slot(side, name, pairing, live, feeds) {
  if (!side) {
    let text = feeds.get(`${pairing.key}:${name}`) || gettext("to be decided");
    if (pairing.status === "skipped") text = "—";
    else if (pairing.result === "bye" || pairing.status === "finished" || pairing.status === "bye") text = gettext("bye");
    return el("div", { class: "slot empty" }, el("span", { class: "name meta" }, text));
  }
  const won = pairing.winner !== null && pairing.winner === side.entry;
  const index = name === "a" ? 0 : 1;
  let games = pairing.status === "finished" ? String(pairing.games[index]) : "";
  if (live) games = String(live.games_won[index]);
  return el("div", { class: `slot${won ? " winner" : ""}`, "aria-label": won ? interpolate(gettext("%(name)s, winner"), { name: side.player.name }, true) : side.player.name },
    el("span", { class: "name" }, side.seed ? el("span", { class: "seed meta" }, `${side.seed} `) : null,
      el("a", { href: `/players/${side.player.id}` }, side.player.name), kindTag(side.player)),
    el("span", { class: "games" }, games));
}

export function pairingNode(pairing, live, feeds = new Map(), mine = null) {
  const isLive = pairing.match_status === "active";
  const yours = mine !== null && [pairing.a, pairing.b].some((side) => side && side.entry === mine);
  const [to] = target(pairing.winner_to);
  const foot = el("div", { class: "foot" }, el("span", { class: "key meta" }, pairing.key));
  if (pairing.match) {
    let text = gettext("match");
    if (isLive) {
      const game = live && live.games ? live.games.find((g) => g.status === "active") : null;
      text = game ? interpolate(gettext("live · game %(number)s: %(score)s"), { number: game.number + 1, score: `${game.score_a}–${game.score_b}` }, true) : gettext("live");
    } else if (pairing.status === "finished" && pairing.result !== "played") {
      text = RESULT_TEXT[pairing.result] || pairing.result.replaceAll("_", " ");
    }
    // A match at a table: its score pad, where its hands are entered and read.
    const href = pairing.match_venue === "table" ? `/matches/${pairing.match}/pad`
      : isLive && live && live.current_game ? `/games/${live.current_game}` : `/matches/${pairing.match}`;
    if (isLive && pairing.match_confirmation === "awaiting") text = gettext("to confirm");
    else if (isLive && pairing.match_confirmation === "disputed") text = gettext("disputed");
    foot.append(el("a", { href },
      isLive ? el("span", { class: "live" }, "● ") : null, text));
  } else if (pairing.status === "skipped") {
    foot.append(el("span", { class: "meta" }, gettext("not needed")));
  }
  return el("div", { class: `pairing${isLive ? " in-play" : ""}${yours ? " yours" : ""}`, dataset: { key: pairing.key, to: to || "" } },
    slot(pairing.a, "a", pairing, live, feeds), slot(pairing.b, "b", pairing, live, feeds), foot);
}

// The round a phone opens on: the one in play, else the next to play, else the last played
// (not a bracket reset that was not needed).
function currentRound(rounds) {
  const played = rounds.filter((r) => r.pairings.some((p) => p.status !== "skipped"));
  return rounds.find((r) => r.status === "running") || rounds.find((r) => r.status !== "finished")
    || played[played.length - 1] || rounds[rounds.length - 1];
}

function partNode(name, rounds, live, feeds, { titled, phone, mine }) {
  const columns = rounds.map((round) => el("div", { class: "round", role: "group", "aria-label": roundLabel(round.name), dataset: { number: round.number } },
    el("h3", {}, roundLabel(round.name)),
    el("div", { class: "matches" }, ...round.pairings.map((p) => pairingNode(p, live.get(p.match), feeds, mine)))));
  const head = el("div", { class: "part-head" }, titled ? el("h3", { class: "part-title" }, partTitle(name)) : el("span"));
  const part = el("div", { class: `bracket-part${phone ? " phone" : ""}`, dataset: { part: name } }, head);
  if (phone) {
    const wanted = shownRound.get(name);
    const shown = rounds.find((r) => r.number === wanted) || currentRound(rounds);
    const tabs = el("div", { class: "round-tabs", role: "tablist", "aria-label": interpolate(gettext("%(part)s: rounds"), { part: partTitle(name) }, true) });
    rounds.forEach((round, i) => {
      const selected = round === shown;
      columns[i].hidden = !selected;
      columns[i].setAttribute("role", "tabpanel");
      columns[i].id = `round-${round.number}`;
      tabs.append(el("button", {
        type: "button", role: "tab", class: "round-tab", "aria-selected": String(selected), "aria-controls": `round-${round.number}`,
        onclick: () => {
          shownRound.set(name, round.number);
          for (const tab of tabs.children) tab.setAttribute("aria-selected", String(tab === tabs.children[i]));
          columns.forEach((column, j) => { column.hidden = j !== i; });
        },
      }, roundLabel(round.name)));
    });
    part.append(tabs, el("div", { class: "bracket" }, ...columns));
    return part;
  }
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("class", "connectors");
  svg.setAttribute("aria-hidden", "true");
  const scroll = el("div", { class: "bracket-scroll", onscroll: () => {
    cue(part);
    scrolledTo.set(name, part.dataset.scroll === "end" ? Infinity : scroll.scrollLeft);
  } }, el("div", { class: "bracket" }, svg, ...columns));
  const more = el("button", { type: "button", class: "scroll-cue button small", hidden: true, onclick: () => {
    const end = scroll.scrollLeft + scroll.clientWidth >= scroll.scrollWidth - 2;
    scroll.scrollBy({ left: end ? -scroll.scrollWidth : scroll.clientWidth * 0.8, behavior: "smooth" });
  } });
  head.append(more);
  part.append(scroll);
  return part;
}

// Each match centred between the matches whose winners it takes (in this part), then the lines.
// All sizes are read first and all margins written after, so a large bracket lays out in two
// reflows, not one per match.
function layout(part) {
  const bracket = part.querySelector(".bracket");
  const boxes = new Map([...bracket.querySelectorAll(".pairing")].map((box) => [box.dataset.key, box]));
  const feeders = new Map();
  for (const box of boxes.values()) {
    if (!boxes.has(box.dataset.to)) continue;
    if (!feeders.has(box.dataset.to)) feeders.set(box.dataset.to, []);
    feeders.get(box.dataset.to).push(box.dataset.key);
  }
  for (const box of boxes.values()) box.style.marginTop = "";
  const svg = bracket.querySelector("svg.connectors");
  svg.setAttribute("width", 0); // its old size would count in the bracket's own
  svg.setAttribute("height", 0);
  const origin = bracket.getBoundingClientRect();
  const columns = [...bracket.querySelectorAll(".round > .matches")].map((column) => ({
    top: column.getBoundingClientRect().top - origin.top,
    boxes: [...column.children].map((box) => ({ box, rect: box.getBoundingClientRect() })),
  }));
  const placed = new Map(); // key -> {left, right, cy} in the bracket's coordinates
  for (const column of columns) {
    let bottom = column.top;
    column.boxes.forEach(({ box, rect }, i) => {
      const lowest = bottom + (i ? GAP : 0);
      const fed = (feeders.get(box.dataset.key) || []).map((key) => placed.get(key).cy);
      const wanted = fed.length ? fed.reduce((x, y) => x + y, 0) / fed.length - rect.height / 2 : lowest;
      const top = Math.max(wanted, lowest);
      box.style.marginTop = `${top - bottom}px`;
      placed.set(box.dataset.key, { left: rect.left - origin.left, right: rect.right - origin.left, cy: top + rect.height / 2 });
      bottom = top + rect.height;
    });
  }
  const paths = [];
  for (const [key, from] of feeders) {
    const to = placed.get(key);
    for (const source of from) {
      const f = placed.get(source);
      const xm = to.left - Math.min(to.left - f.right, 2 * GAP) / 2;
      const path = document.createElementNS("http://www.w3.org/2000/svg", "path");
      path.setAttribute("class", `connector${boxes.get(source).querySelector(".slot.winner") ? " decided" : ""}`);
      path.setAttribute("d", `M${f.right} ${f.cy}H${xm}V${to.cy}H${to.left}`);
      path.dataset.from = source;
      path.dataset.to = key;
      paths.push(path);
    }
  }
  svg.replaceChildren(...paths);
  const width = bracket.scrollWidth;
  const height = bracket.scrollHeight;
  laidOutFor.set(part, sizes(part)); // the layout is clean here: no reflow to read them
  svg.setAttribute("width", width);
  svg.setAttribute("height", height);
  cue(part);
}

// What a part's layout depends on: the width of its box and the size of every round. Its own
// margins change the rounds' heights, so the part is laid out again only when these differ
// from what it was last laid out for: a layout never sets off another.
function sizes(part) {
  const rounds = [...part.querySelectorAll(".bracket .round")].map((round) => `${round.offsetWidth}x${round.offsetHeight}`);
  return [part.querySelector(".bracket-scroll").clientWidth, ...rounds].join(" ");
}

// The cue that the bracket goes on to the right (or back to the left) of what is in view.
function cue(part) {
  const scroll = part.querySelector(".bracket-scroll");
  const button = part.querySelector(".scroll-cue");
  if (!scroll || !button) return;
  const hiddenWidth = scroll.scrollWidth - scroll.clientWidth;
  const atEnd = scroll.scrollLeft >= hiddenWidth - 2;
  part.dataset.scroll = hiddenWidth <= 2 ? "none" : atEnd ? "end" : "more";
  button.hidden = hiddenWidth <= 2;
  button.textContent = atEnd ? gettext("← First rounds") : gettext("More rounds: scroll sideways →");
}

/** Draw the bracket into ``container``: its rounds in parts, live scores from ``live`` (match id
 * to the match as the API answers it), the viewer's own matches marked (``mine``, an entry id). */
export function renderBracket(container, bracket, live, mine = null) {
  // The same bracket again (the socket's first message after the page's own read, a change
  // elsewhere in the event): nothing to redraw, and a scroll under way goes on undisturbed.
  const drawn = JSON.stringify([bracket.rounds, [...live], mine, PHONE.matches]);
  if (last && last.container === container && last.drawn === drawn && container.firstChild) return;
  last = { container, bracket, live, mine, drawn };
  const parts = new Map();
  for (const round of bracket.rounds) {
    const name = sectionOf(round.name, bracket.format);
    if (!parts.has(name)) parts.set(name, []);
    parts.get(name).push(round);
  }
  const feeds = feedsOf(bracket);
  const phone = PHONE.matches;
  // The section's own heading says "Bracket": a part of that name needs no title of its own.
  const nodes = [...parts].map(([name, rounds]) => partNode(name, rounds, live, feeds, { titled: parts.size > 1 && name !== "Bracket", phone, mine }));
  container.replaceChildren(...nodes);
  container.dataset.layout = phone ? "phone" : "wide";
  watch(nodes);
  if (phone || container.offsetParent === null) return; // laid out when it is shown
  for (const part of nodes) {
    layout(part);
    const scroll = part.querySelector(".bracket-scroll");
    // A push redraws the bracket: the reader stays where they had scrolled to.
    const left = scrolledTo.get(part.dataset.part) || 0;
    scroll.scrollLeft = left === Infinity ? scroll.scrollWidth : left;
    cue(part);
  }
}

PHONE.addEventListener("change", () => {
  if (last) renderBracket(last.container, last.bracket, last.live, last.mine); // drawn differs
});

// A wide part is laid out again, and its cue judged again, whenever its box or one of its rounds
// changes size: the window resized, but also a page scrollbar that came or went, the section
// shown after it was drawn hidden, a name or a font that came later. Once a frame at most, after
// the browser's own layout, and only for a part whose sizes differ from its last layout's.
const changed = new Set();
let pending = 0;
const watcher = new ResizeObserver((entries) => {
  for (const entry of entries) changed.add(entry.target.closest(".bracket-part"));
  if (pending) return;
  pending = requestAnimationFrame(() => {
    pending = 0;
    for (const part of changed) {
      if (part.isConnected && part.offsetParent !== null && laidOutFor.get(part) !== sizes(part)) layout(part);
    }
    changed.clear();
  });
});

function watch(parts) {
  watcher.disconnect(); // one bracket is drawn at a time: the parts it replaced are gone
  for (const part of parts) {
    const scroll = part.querySelector(".bracket-scroll");
    if (!scroll) continue; // a phone's part: no lines, no cue
    watcher.observe(scroll);
    for (const round of scroll.querySelectorAll(".round")) watcher.observe(round);
  }
}
