// Step through one finished deal: frames computed by the server from the seed and the log.
import { el, fill } from "./api.js";
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

// The move list beside the board: one button per move, a click goes there.
const moveList = $("move-list");
const moveButtons = frames.slice(1).map((frame, i) =>
  el("button", { type: "button", class: "move", dataset: { at: String(i + 1) }, onclick: () => jump(i + 1) },
    el("span", { class: "ply" }, `${i + 1}.`), " ", describe(frame)));
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
  $("replay-action").textContent = describe(frame);
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
