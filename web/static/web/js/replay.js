// Step through one finished deal: frames computed by the server from the seed and the log.
import { el } from "./api.js";
import { cardFace, cardList, cardText } from "./cards.js";

const data = JSON.parse(document.getElementById("replay-data").textContent);
const frames = data.frames;
let at = 0;

const $ = (id) => document.getElementById(id);

function describe(frame) {
  if (!frame.action) return `Dealt. ${data.players[data.dealer]} deals; the upcard is ${cardText(frame.discard_pile[0])}.`;
  const [type, card] = frame.action.split(" ");
  const name = data.players[frame.actor];
  const c = card && /^[2-9TJQKA][CDHS]$/.test(card) ? cardText(card) : "";
  const verbs = {
    take_upcard: "took the upcard", pass: "passed", draw_stock: "drew from the stock",
    draw_discard: "took the top of the pile", discard: `discarded ${c}`, knock: `knocked, ${c} face down`,
    gin: `went gin, ${c} face down`, big_gin: "went big gin",
  };
  return `${name} ${verbs[type] || frame.action}.`;
}

function hand(index, frame) {
  const h = frame.hands[index];
  const groups = el("div", { class: "hand" });
  for (const meld of h.melds) groups.append(el("div", { class: "meld" }, el("span", { class: "group-label" }, "meld"), ...meld.map((c) => cardFace(c))));
  if (h.deadwood.length) groups.append(el("div", { class: "deadwood" }, el("span", { class: "group-label" }, "deadwood"), ...h.deadwood.map((c) => cardFace(c))));
  return el("section", { class: `seat${frame.to_act === index ? " acting" : ""}`, "aria-label": data.players[index] },
    el("h3", {}, data.players[index], index === data.dealer ? el("span", { class: "tag dealer" }, "dealer") : null,
      frame.to_act === index ? el("span", { class: "to-act" }, " ▶ to play") : null),
    groups,
    el("p", { class: "deadwood-count" }, `Deadwood ${h.deadwood_points} · ${h.count} cards`),
    frame.known[index].length ? el("p", { class: "known" }, "Known (from the pile): ", cardList(frame.known[index])) : null);
}

function outcomeText(o) {
  if (!o) return "The deal did not finish (a forfeit ended the game).";
  const p = (i) => data.players[i];
  switch (o.termination) {
    case "knock": return `${p(o.knocker)} knocked with ${o.knocker_points} against ${o.defender_points}: ${p(o.winner)} scores ${o.points}.`;
    case "undercut": return `${p(o.knocker)} knocked with ${o.knocker_points}, undercut by ${p(1 - o.knocker)} with ${o.defender_points}: ${p(o.winner)} scores ${o.points}.`;
    case "gin": return `${p(o.knocker)} went gin: ${o.points} points.`;
    case "big_gin": return `${p(o.knocker)} went big gin: ${o.points} points.`;
    case "draw": return "A drawn deal: nobody scores.";
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
    return el("p", {}, "The match's last deal. ", el("a", { href: `/matches/${data.match}` }, "Back to the match"));
  }
  const label = data.next.game === data.game ? "Next deal ▶" : `Next deal: game ${data.next.game + 1}, deal 1 ▶`;
  return el("p", {}, el("a", { class: "button primary", id: "next-deal", href: `?game=${data.next.game}&deal=${data.next.deal}` }, label));
}

function render() {
  const frame = frames[at];
  const pile = frame.discard_pile;
  $("replay-position").textContent = `Move ${at} of ${frames.length - 1}`;
  $("replay-action").textContent = describe(frame);
  $("replay-board").replaceChildren(
    hand(1, frame),
    el("div", { class: "centre" },
      el("p", {}, `Stock: ${frame.stock_size} cards · Discard pile (${pile.length}): `,
        pile.length ? cardFace(pile[pile.length - 1], { cls: "big" }) : "empty")),
    hand(0, frame),
  );
  const last = at === frames.length - 1;
  const box = $("replay-outcome");
  box.hidden = !last;
  if (last) {
    const o = data.outcome;
    const rows = [el("h3", {}, "Result"), el("p", { class: "outcome" }, outcomeText(o))];
    if (o && o.layoffs && o.layoffs.length) {
      rows.push(el("p", {}, "Laid off: ", ...o.layoffs.map((l, i) => el("span", {}, i ? "; " : "", cardFace(l.card), " onto ", cardList(l.onto)))));
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
