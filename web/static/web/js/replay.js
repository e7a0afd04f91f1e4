// Step through one finished deal: frames computed by the server from the seed and the log.
import { api, el, fill } from "./api.js";
import { cardFace, cardList, cardText } from "./cards.js";

const data = JSON.parse(document.getElementById("replay-data").textContent);
const frames = data.frames;
let at = 0;

const $ = (id) => document.getElementById(id);

const t = (format, values) => interpolate(format, values, true);

function describe(frame) {
  if (!frame.action) {
    return t(gettext("Dealt. %(name)s deals; the upcard is %(card)s."), { name: data.players[data.dealer], card: cardText(frame.discard_pile[0]) });
  }
  const [type, card] = frame.action.split(" ");
  const values = { name: data.players[frame.actor], card: card && /^[2-9TJQKA][CDHS]$/.test(card) ? cardText(card) : "" };
  switch (type) {
    case "take_upcard": return t(gettext("%(name)s took the upcard."), values);
    case "pass": return t(gettext("%(name)s passed."), values);
    case "draw_stock": return t(gettext("%(name)s drew from the stock."), values);
    case "draw_discard": return t(gettext("%(name)s took the top of the pile."), values);
    case "discard": return t(gettext("%(name)s discarded %(card)s."), values);
    case "knock": return t(gettext("%(name)s knocked, %(card)s face down."), values);
    case "gin": return t(gettext("%(name)s went gin, %(card)s face down."), values);
    case "big_gin": return t(gettext("%(name)s went big gin."), values);
    default: return `${values.name} ${frame.action}.`; // an action this page does not know: its code
  }
}

function hand(index, frame) {
  const h = frame.hands[index];
  const groups = el("div", { class: "hand" });
  for (const meld of h.melds) groups.append(el("div", { class: "meld" }, el("span", { class: "group-label" }, pgettext("group label", "meld")), ...meld.map((c) => cardFace(c))));
  if (h.deadwood.length) groups.append(el("div", { class: "deadwood" }, el("span", { class: "group-label" }, pgettext("group label", "deadwood")), ...h.deadwood.map((c) => cardFace(c))));
  return el("section", { class: `seat${frame.to_act === index ? " acting" : ""}`, "aria-label": data.players[index] },
    el("h3", {}, data.players[index], index === data.dealer ? el("span", { class: "tag dealer" }, pgettext("tag", "dealer")) : null,
      frame.to_act === index ? el("span", { class: "to-act" }, ` ▶ ${gettext("to play")}`) : null),
    groups,
    el("p", { class: "deadwood-count" },
      `${t(gettext("Deadwood %(points)s"), { points: h.deadwood_points })} · ${t(ngettext("%(count)s card", "%(count)s cards", h.count), { count: h.count })}`),
    frame.known[index].length
      ? el("p", { class: "known" }, ...fill(gettext("Known (from the pile): %(cards)s"), { cards: cardList(frame.known[index]) }))
      : null);
}

function outcomeText(o) {
  if (!o) return gettext("The deal did not finish (a forfeit ended the game).");
  const values = {
    knocker: data.players[o.knocker], defender: data.players[1 - o.knocker], winner: data.players[o.winner],
    knocker_points: o.knocker_points, defender_points: o.defender_points, points: o.points,
  };
  switch (o.termination) {
    case "knock":
      return t(gettext("%(knocker)s knocked with %(knocker_points)s against %(defender_points)s: %(winner)s scores %(points)s."), values);
    case "undercut":
      return t(gettext("%(knocker)s knocked with %(knocker_points)s, undercut by %(defender)s with %(defender_points)s: %(winner)s scores %(points)s."), values);
    case "gin": return t(ngettext("%(knocker)s went gin: %(points)s point.", "%(knocker)s went gin: %(points)s points.", o.points), values);
    case "big_gin": return t(ngettext("%(knocker)s went big gin: %(points)s point.", "%(knocker)s went big gin: %(points)s points.", o.points), values);
    case "draw": return gettext("A drawn deal: nobody scores.");
    default: return o.termination;
  }
}

// The analysis of this deal, once done: each decision's figures by the ply it was taken at
// (the move that leads to frame i + 1 was played at ply i).
const analysis = data.analysis;
const decisionAt = new Map((analysis ? analysis.decisions : []).map((row) => [row.ply, row]));
const MARK_SIGNS = { inaccuracy: "?!", mistake: "?", blunder: "??" };
const markName = (mark) => ({
  inaccuracy: pgettext("analysis mark", "Inaccuracy"),
  mistake: pgettext("analysis mark", "Mistake"),
  blunder: pgettext("analysis mark", "Blunder"),
}[mark]);
const points = (value) => value.toLocaleString(document.documentElement.lang || undefined, { maximumFractionDigits: 1 });

function markBadge(row) {
  if (!row || !row.mark) return null;
  return el("span", { class: `mark ${row.mark}`, title: markName(row.mark) }, MARK_SIGNS[row.mark],
    el("span", { class: "sr-only" }, ` ${markName(row.mark)}`));
}

// What the analysis says of the move that led to frame ``at``.
function judgement(at) {
  const row = decisionAt.get(at - 1);
  if (!row) return null;
  const better = describe({ action: row.best, actor: row.player });
  if (row.mark) {
    return el("p", { class: `judgement ${row.mark}` }, markBadge(row), " ",
      t(gettext("%(mark)s: %(loss)s points lost on average. Better: %(better)s"), { mark: markName(row.mark), loss: points(row.loss), better }));
  }
  if (row.best !== row.taken && row.loss > 0) {
    return el("p", { class: "judgement" }, t(gettext("Close: %(loss)s points behind the best (%(better)s), within the analysis's margin."), { loss: points(row.loss), better }));
  }
  return el("p", { class: "judgement good" }, t(gettext("The best choice found (expected %(value)s points)."), { value: points(row.value) }));
}

// The deal's expected score for player A after each decision: the value of the choice made,
// from its player's seat, turned to A's side; the deal's result last.
function chart() {
  const box = $("analysis-chart");
  if (!box || !analysis) return;
  const NS = "http://www.w3.org/2000/svg";
  const svg = (name, attrs, ...children) => {
    const node = document.createElementNS(NS, name);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
    node.append(...children);
    return node;
  };
  const pts = analysis.decisions.map((row) => ({ x: row.ply + 1, y: row.player === 0 ? row.value : -row.value, row }));
  const o = data.outcome;
  const last = frames.length - 1;
  if (o) pts.push({ x: last, y: o.winner == null ? 0 : (o.winner === 0 ? o.points : -o.points), row: null });
  if (!pts.length) {
    box.replaceChildren(el("p", { class: "meta" }, gettext("No decision in this deal.")));
    return;
  }
  const W = 600, H = 140, pad = 8;
  const top = Math.max(10, ...pts.map((p) => Math.abs(p.y)));
  const X = (x) => pad + (W - 2 * pad) * (x / Math.max(1, last));
  const Y = (y) => H / 2 - (H / 2 - pad) * (y / top);
  const line = pts.map((p) => `${X(p.x).toFixed(1)},${Y(p.y).toFixed(1)}`).join(" ");
  const dots = pts.filter((p) => p.row && p.row.mark).map((p) =>
    svg("circle", { cx: X(p.x).toFixed(1), cy: Y(p.y).toFixed(1), r: 5, class: `dot ${p.row.mark}` },
      svg("title", {}, `${markName(p.row.mark)}: ${describe({ action: p.row.taken, actor: p.row.player })}`)));
  const finalY = pts[pts.length - 1].y;
  const label = t(gettext("Expected score for %(name)s through the deal, from %(first)s to %(last)s points."),
    { name: data.players[0], first: points(pts[0].y), last: points(finalY) });
  box.replaceChildren(svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "chart", role: "img", "aria-label": label },
    svg("line", { x1: pad, x2: W - pad, y1: H / 2, y2: H / 2, class: "axis" }),
    svg("text", { x: pad, y: 14, class: "axis-label" }, `+${points(top)}`),
    svg("text", { x: pad, y: H - 4, class: "axis-label" }, `−${points(top)}`),
    svg("polyline", { points: line, class: "value" }),
    ...dots));
}

// While the analysis runs, its progress, and the page again once it is done.
async function follow() {
  const progress = $("analysis-progress");
  if (!progress) return;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 5000));
    let body;
    try {
      body = (await api(`/api/matches/${data.match}/analysis`, { redirectOn401: false })).data;
    } catch {
      continue; // a network hiccup: ask again
    }
    if (body.status === "done" || body.status === "failed") {
      location.reload();
      return;
    }
    progress.textContent = t(gettext("The analysis is under way: %(done)s of %(total)s decisions."), { done: body.decisions_done, total: body.decisions_total });
  }
}

// The move list beside the board: one button per move, a click goes there.
const moveList = $("move-list");
const moveButtons = frames.slice(1).map((frame, i) =>
  el("button", { type: "button", class: "move", dataset: { at: String(i + 1) }, onclick: () => jump(i + 1) },
    el("span", { class: "ply" }, `${i + 1}.`), " ", describe(frame), markBadge(decisionAt.get(i)) ? " " : "", markBadge(decisionAt.get(i))));
moveList.replaceChildren(...moveButtons.map((button) => el("li", {}, button)));

function showMove() {
  for (const button of moveButtons) {
    const current = Number(button.dataset.at) === at;
    button.classList.toggle("current", current);
    if (current) button.setAttribute("aria-current", "step");
    else button.removeAttribute("aria-current");
  }
  const current = moveButtons[at - 1];
  if (current) {
    // Keep the move in sight inside the list without scrolling the page (measured on the
    // screen: offsetTop counts from the nearest positioned box, which the list itself is).
    const top = current.getBoundingClientRect().top - moveList.getBoundingClientRect().top + moveList.scrollTop;
    if (top < moveList.scrollTop || top + current.offsetHeight > moveList.scrollTop + moveList.clientHeight) {
      moveList.scrollTop = top - moveList.clientHeight / 2;
    }
  } else {
    moveList.scrollTop = 0;
  }
}

function nextDealLink() {
  if (!data.next) {
    return el("p", {}, gettext("The match's last deal."), " ", el("a", { href: `/matches/${data.match}` }, gettext("Back to the match")));
  }
  const label = data.next.game === data.game ? gettext("Next deal ▶") : t(gettext("Next deal: game %(number)s, deal 1 ▶"), { number: data.next.game + 1 });
  return el("p", {}, el("a", { class: "button primary", id: "next-deal", href: `?game=${data.next.game}&deal=${data.next.deal}` }, label));
}

function render() {
  const frame = frames[at];
  const pile = frame.discard_pile;
  $("replay-position").textContent = t(gettext("Move %(number)s of %(total)s"), { number: at, total: frames.length - 1 });
  $("replay-action").replaceChildren(describe(frame), ...(analysis ? [judgement(at) || ""] : []));
  $("replay-board").replaceChildren(
    hand(1, frame),
    el("div", { class: "centre" },
      el("p", {}, t(ngettext("Stock: %(count)s card", "Stock: %(count)s cards", frame.stock_size), { count: frame.stock_size }), " · ",
        ...fill(gettext("Discard pile (%(count)s): %(top)s"), {
          count: pile.length,
          top: pile.length ? cardFace(pile[pile.length - 1], { cls: "big" }) : pgettext("discard pile", "empty"),
        }))),
    hand(0, frame),
  );
  const last = at === frames.length - 1;
  const box = $("replay-outcome");
  box.hidden = !last;
  if (last) {
    const o = data.outcome;
    const rows = [el("h3", {}, gettext("Result")), el("p", { class: "outcome" }, outcomeText(o))];
    if (o && o.layoffs && o.layoffs.length) {
      const layoffs = o.layoffs.map((l, i) => el("span", {}, i ? "; " : "",
        ...fill(gettext("%(card)s onto %(cards)s"), { card: cardFace(l.card), cards: cardList(l.onto) })));
      rows.push(el("p", {}, ...fill(gettext("Laid off: %(layoffs)s"), { layoffs })));
    }
    rows.push(nextDealLink());
    box.replaceChildren(...rows);
  }
  showMove();
  for (const button of document.querySelectorAll("[data-step]")) {
    // aria-disabled, not disabled: the focused button keeps the focus at either end.
    const step = button.dataset.step;
    const off = (step === "first" || step === "prev") ? at === 0 : at === frames.length - 1;
    button.setAttribute("aria-disabled", String(off));
  }
}

function go(step) {
  const last = frames.length - 1;
  jump({ first: 0, prev: Math.max(0, at - 1), next: Math.min(last, at + 1), last }[step]);
}

function jump(to) {
  at = to;
  render();
chart();
follow();
}

for (const button of document.querySelectorAll("[data-step]")) {
  button.addEventListener("click", () => go(button.dataset.step));
}
document.addEventListener("keydown", (event) => {
  if (event.altKey || event.ctrlKey || event.metaKey) return;
  const step = { ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last" }[event.key];
  if (step) {
    event.preventDefault();
    go(step);
  }
});
render();
chart();
follow();
