// Cards as text and symbols ("7♥", "10♠") with their names for screen readers; the suit
// colour is only a second cue.
import { el } from "./api.js";

const SUITS = { C: ["♣", "clubs"], D: ["♦", "diamonds"], H: ["♥", "hearts"], S: ["♠", "spades"] };
const RANKS = { A: ["A", "ace"], T: ["10", "ten"], J: ["J", "jack"], Q: ["Q", "queen"], K: ["K", "king"] };

export function cardText(code) {
  const [rank, suit] = code;
  return (RANKS[rank] ? RANKS[rank][0] : rank) + SUITS[suit][0];
}

export function cardLabel(code) {
  const [rank, suit] = code;
  return `${RANKS[rank] ? RANKS[rank][1] : rank} of ${SUITS[suit][1]}`;
}

export function cardsText(codes) {
  return (codes || []).map(cardText).join(" ");
}

// A card face; `tag` "button" makes it playable. Otherwise it is an image named for screen
// readers ("seven of hearts"): a name on a plain span is not read.
export function cardFace(code, { tag = "span", cls = "", attrs = {} } = {}) {
  return el(
    tag,
    {
      class: `card suit-${code[1].toLowerCase()} ${cls}`.trim(),
      role: tag === "button" ? null : "img",
      title: cardLabel(code),
      "aria-label": cardLabel(code),
      dataset: { card: code },
      ...attrs,
    },
    el("span", { class: "rank", "aria-hidden": "true" }, cardText(code).slice(0, -1)),
    el("span", { class: "suit", "aria-hidden": "true" }, SUITS[code[1]][0]),
  );
}

export function cardList(codes, { cls = "" } = {}) {
  const list = el("span", { class: `cards ${cls}`.trim() });
  for (const code of codes || []) list.append(cardFace(code));
  return list;
}

export function cardBack({ label = "face-down card" } = {}) {
  return el("span", { class: "card back", role: "img", "aria-label": label, title: label }, el("span", { "aria-hidden": "true" }, "🂠"));
}
