// Cards as text and symbols ("7♥", "10♠") with their names for screen readers; the suit
// colour is only a second cue.
import { el } from "./api.js";

// The symbols are the same in every language; the names are read in the page's language
// (Django's JavaScript catalogue, loaded before the modules).
const SUITS = { C: "♣", D: "♦", H: "♥", S: "♠" };
const RANKS = { A: "A", T: "10", J: "J", Q: "Q", K: "K" };

function suitName(suit) {
  switch (suit) {
    case "C": return pgettext("card suit", "clubs");
    case "D": return pgettext("card suit", "diamonds");
    case "H": return pgettext("card suit", "hearts");
    case "S": return pgettext("card suit", "spades");
    default: return suit;
  }
}

function rankName(rank) {
  switch (rank) {
    case "A": return pgettext("card rank", "ace");
    case "T": return pgettext("card rank", "ten");
    case "J": return pgettext("card rank", "jack");
    case "Q": return pgettext("card rank", "queen");
    case "K": return pgettext("card rank", "king");
    default: return rank; // 2 to 9: the digit
  }
}

export function cardText(code) {
  const [rank, suit] = code;
  return (RANKS[rank] || rank) + SUITS[suit];
}

// "queen of hearts", "7 of spades"
export function cardLabel(code) {
  const [rank, suit] = code;
  return interpolate(pgettext("card name", "%(rank)s of %(suit)s"), { rank: rankName(rank), suit: suitName(suit) }, true);
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
    el("span", { class: "suit", "aria-hidden": "true" }, SUITS[code[1]]),
  );
}

export function cardList(codes, { cls = "" } = {}) {
  const list = el("span", { class: `cards ${cls}`.trim() });
  for (const code of codes || []) list.append(cardFace(code));
  return list;
}

export function cardBack({ label = gettext("face-down card") } = {}) {
  return el("span", { class: "card back", role: "img", "aria-label": label, title: label }, el("span", { "aria-hidden": "true" }, "🂠"));
}
