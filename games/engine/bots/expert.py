"""The expert bot: card tracking, live-card estimates, safe discards and knock timing.

Everything it knows comes from its :class:`~games.engine.views.PlayerView`: its hand, the
discard pile, the cards the opponent is known to hold and the public history.  From the
history it rebuilds the discard pile ply by ply, so it knows which card was on offer each
time the opponent drew from the stock or passed the upcard (a card the opponent did not
want), which cards the opponent threw, and which it picked up.

Live cards: a card is *unknown* when it is neither in the bot's hand, nor in the discard
pile, nor known to be in the opponent's hand; each unknown card is in the stock or among
the opponent's hidden cards.  The bot weights the chance that the opponent holds it:
cards near the opponent's pick-ups are likelier, cards near what it threw or let pass are
less likely.  From those weights it estimates

- **danger** of a discard: the chance that the opponent holds two cards that meld with
  it (a pair of the rank, or a run neighbour pair), so it can take it into a meld;
- **potential** of a hand of ten: the expected deadwood cut of the next stock draw, over
  the unknown cards weighted by their chance of being in the stock (dead cards count
  for nothing, which is what "live" means here).

Decisions:

- discard the card that minimises ``deadwood - potential_weight * potential + danger_cost
  * danger`` (only near-minimal-deadwood candidates are looked at, to stay fast);
- take the upcard or the top discard only when the card ends up in a meld and the
  deadwood after taking it beats the expected deadwood after a stock draw, or when it is a
  clear deadwood cut; otherwise draw from the stock (the first-turn offer is the same
  decision, passing instead of drawing);
- end the hand: big gin and gin at once.  A knock when the deadwood is low for the
  stage of the hand: in the first two turns anything the knock limit allows, then 3.5
  points less a turn down to 1, and a point less for every card the opponent took from
  the pile (those mostly sit in its melds: the undercut risk); always when the stock is
  nearly out (a drawn hand scores nothing).  It goes for gin instead when its deadwood is
  at most 7, the stock is deep and the next stock card gins with a chance of 10% or more:
  gin pays 25, cannot be undercut, and a hand that low is itself a likely undercut if the
  opponent knocks first.  Oklahoma's knock limit comes with the view
  (``view.knock_limit``: an ace upcard leaves gin only); in straight gin the legal
  actions hold no knocks, so only gin and big gin end the hand (weighting potential
  more there tested worse in the arena, so the same weights apply).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from ..actions import Action, ActionKind
from ..cards import BIT, CARD_POINTS, FULL_DECK, SUIT_MASK, cards_of
from ..melds import arrange, best_discard, min_deadwood
from ..views import PlayerView
from . import Bot, register


def _set_pairs(card: int) -> tuple[tuple[int, int], ...]:
    rank = card % 13
    others = [13 * s + rank for s in range(4) if 13 * s + rank != card]
    return ((others[0], others[1]), (others[0], others[2]), (others[1], others[2]))


def _run_pairs(card: int) -> tuple[tuple[int, int], ...]:
    rank = card % 13
    out = []
    for lo, hi in ((-2, -1), (-1, 1), (1, 2)):
        if rank + lo >= 0 and rank + hi <= 12:
            out.append((card + lo, card + hi))
    return tuple(out)


#: For each card: the pairs of other cards that make a meld of three with it.
MELD_PAIRS: Final = tuple(_set_pairs(c) + _run_pairs(c) for c in range(52))


def _neighbours(card: int) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """Same rank; same suit one rank away; same suit two ranks away."""
    rank = card % 13
    same_rank = tuple(13 * s + rank for s in range(4) if 13 * s + rank != card)
    near = tuple(card + d for d in (-1, 1) if 0 <= rank + d <= 12)
    far = tuple(card + d for d in (-2, 2) if 0 <= rank + d <= 12)
    return same_rank, near, far


NEIGHBOURS: Final = tuple(_neighbours(c) for c in range(52))

_DRAWS = (ActionKind.DRAW_STOCK, ActionKind.DRAW_DISCARD, ActionKind.TAKE_UPCARD)


@dataclass(slots=True)
class Knowledge:
    """What the bot has worked out about the opponent's hand and the unknown cards."""

    unknown: int  # mask: in the stock or hidden in the opponent's hand
    opponent_known: int  # mask: picked up by the opponent and still held
    hidden: int  # how many of the opponent's cards are not known
    held: list[float]  # per card: chance the opponent holds it
    my_draws: int
    opponent_draws: int
    picked: int  # mask: every card the opponent took from the pile


def read_history(view: PlayerView) -> tuple[int, int, int, int, int]:
    """Replay the public history: (thrown, declined, picked, my draws, opponent draws).

    ``thrown`` are the opponent's discards, ``declined`` the cards on offer when it
    passed the upcard or drew from the stock, ``picked`` the cards it took from the
    pile (as masks).
    """
    me = view.seat
    pile = [view.upcard]
    thrown = declined = picked = 0
    draws = [0, 0]
    for step in view.history:
        kind = step.kind
        seat = step.seat
        if kind is ActionKind.DISCARD:
            if step.card is not None:
                pile.append(step.card)
                if seat != me:
                    thrown |= BIT[step.card]
        elif kind is ActionKind.DRAW_STOCK:
            draws[seat] += 1
            if seat != me and pile:
                declined |= BIT[pile[-1]]
        elif kind is ActionKind.DRAW_DISCARD or kind is ActionKind.TAKE_UPCARD:
            draws[seat] += 1
            if pile:
                card = pile.pop()
                if seat != me:
                    picked |= BIT[card]
        elif kind is ActionKind.PASS and seat != me and pile:
            declined |= BIT[pile[-1]]
    assert me is not None
    return thrown, declined, picked, draws[me], draws[1 - me]


def read_knowledge(view: PlayerView) -> Knowledge:
    """Card tracking: which cards are live and how likely the opponent holds each."""
    assert view.seat is not None
    opponent = 1 - view.seat
    thrown, declined, picked, my_draws, opp_draws = read_history(view)
    pile = 0
    for card in view.discards:
        pile |= BIT[card]
    opponent_known = view.known[opponent]
    unknown = FULL_DECK & ~view.hand & ~pile & ~opponent_known
    hidden = max(0, view.hand_sizes[opponent] - opponent_known.bit_count())
    weights = [0.0] * 52
    unknown_cards = cards_of(unknown)
    total = 0.0
    for x in unknown_cards:
        w = 1.0
        same_rank, near, far = NEIGHBOURS[x]
        for n in same_rank:
            bit = BIT[n]
            if opponent_known & bit or picked & bit:
                w *= 2.0
            elif thrown & bit or declined & bit:
                w *= 0.6
        for n in near:
            bit = BIT[n]
            if opponent_known & bit or picked & bit:
                w *= 1.8
            elif thrown & bit or declined & bit:
                w *= 0.7
        for n in far:
            bit = BIT[n]
            if opponent_known & bit or picked & bit:
                w *= 1.3
            elif thrown & bit or declined & bit:
                w *= 0.85
        weights[x] = w
        total += w
    held = [0.0] * 52
    if total > 0 and hidden:
        scale = hidden / total
        for x in unknown_cards:
            held[x] = min(0.95, weights[x] * scale)
    for card in cards_of(opponent_known):
        held[card] = 1.0
    return Knowledge(unknown, opponent_known, hidden, held, my_draws, opp_draws, picked)


def danger(card: int, held: list[float]) -> float:
    """Chance that the opponent holds two cards that meld with ``card``."""
    miss = 1.0
    for a, b in MELD_PAIRS[card]:
        p = held[a] * held[b]
        if p:
            miss *= 1.0 - p
    return 1.0 - miss


def meld_reach(hand: int) -> int:
    """Mask of the cards that would make a meld of three with two cards of ``hand``.

    A card outside it melds with nothing in the hand, whatever else the hand holds.
    """
    a = hand & SUIT_MASK
    b = hand >> 13 & SUIT_MASK
    c = hand >> 26 & SUIT_MASK
    d = hand >> 39
    pairs = (a & b) | (a & c) | (a & d) | (b & c) | (b & d) | (c & d)  # ranks held twice
    reach = pairs | pairs << 13 | pairs << 26 | pairs << 39
    for shift in (0, 13, 26, 39):
        s = hand >> shift & SUIT_MASK
        runs = (s << 1 & s << 2) | (s << 1 & s >> 1) | (s >> 1 & s >> 2)
        reach |= (runs & SUIT_MASK) << shift
    return reach


def potential(hand: int, deadwood: int, know: Knowledge) -> float:
    """Expected deadwood cut of drawing one stock card into a ten-card ``hand``.

    ``deadwood`` is ``min_deadwood(hand)``.  A drawn card that melds with nothing in the hand
    stays deadwood whatever is thrown, so its best outcome is the hand as it is or the best
    nine cards plus it: ``min(deadwood, nine_card_floor + its points)``, exact and without
    the eleven-card search (most unknown cards are such cards).
    """
    gain = 0.0
    weight = 0.0
    held = know.held
    floor = -1
    reach = meld_reach(hand)
    for x in cards_of(know.unknown):
        q = 1.0 - held[x]
        weight += q
        if not reach >> x & 1:
            if floor < 0:  # the best nine of the ten (best_discard is exact for ten too)
                floor = best_discard(hand)[1]
            after = floor + CARD_POINTS[x]
        else:
            card, after = best_discard(hand | BIT[x])
            if card is None:
                after = 0
        if after < deadwood:
            gain += q * (deadwood - after)
    return gain / weight if weight else 0.0


def gin_chance(hand: int, know: Knowledge) -> float:
    """Chance that the next stock card lets a ten-card ``hand`` go gin (or big gin)."""
    hits = 0.0
    weight = 0.0
    held = know.held
    gin_now = -1
    reach = meld_reach(hand)
    for x in cards_of(know.unknown):
        q = 1.0 - held[x]
        weight += q
        if not reach >> x & 1:
            # It stays deadwood, so only throwing it can gin: when the ten are gin already.
            if gin_now < 0:
                gin_now = int(min_deadwood(hand) == 0)
            hits += q * gin_now
            continue
        card, after = best_discard(hand | BIT[x])
        if card is None or after == 0:
            hits += q
    return hits / weight if weight else 0.0


@register
class ExpertBot(Bot):
    """Card tracking, live-card estimates, safe discards and knock timing.

    The numbers below were tuned in the arena against ``greedy`` (300 duplicate-deal
    games per variant, seed 7, judged by points per hand); subclasses may change them.
    """

    name = "expert"
    description = "tracks cards, avoids feeding the opponent, times its knock"

    #: How much a point of expected draw improvement is worth against a point of deadwood.
    potential_weight: float = 1.0
    #: Deadwood points a discard the opponent can meld is worth.
    danger_cost: float = 4.0
    #: Candidates for a discard: within this many points of the least deadwood.
    candidate_margin: int = 10
    #: At most this many discard candidates get the full evaluation.
    max_candidates: int = 6
    #: A pick-up that does not build a meld must beat the stock by this much.
    clear_cut: float = 6.0
    #: Knock with anything the limit allows during the first turns ...
    knock_early_turns: int = 2
    #: ... then with ``knock_decay`` points less each turn, never asking below the floor.
    knock_decay: float = 3.5
    knock_floor: int = 1
    #: Deadwood points asked less per card the opponent took from the pile.
    knock_pickup_penalty: float = 1.0
    #: Go for gin instead of knocking with at most this much deadwood ...
    gin_chase_deadwood: int = 7
    #: ... when the next stock draw gins with at least this chance ...
    gin_chase_odds: float = 0.1
    #: ... and the stock holds more than this many cards.
    gin_chase_stock: int = 8
    #: Straight gin (no knocking): potential counts this many times more (more was worse).
    straight_potential_factor: float = 1.0

    def choose(self, view: PlayerView) -> Action:
        legal = view.legal_actions
        kinds = {a.kind for a in legal}
        know = read_knowledge(view)
        if ActionKind.TAKE_UPCARD in kinds:
            take = self._wants_top(view, know)
            return Action.take_upcard() if take else Action.pass_()
        if ActionKind.DRAW_DISCARD in kinds:
            if ActionKind.PASS in kinds:  # the fiftieth-card offer
                return self._fiftieth_offer(view)
            return Action.draw_discard() if self._wants_top(view, know) else Action.draw_stock()
        if ActionKind.DRAW_STOCK in kinds:
            return Action.draw_stock()
        if ActionKind.BIG_GIN in kinds:
            return Action.big_gin()
        gins = [a for a in legal if a.kind is ActionKind.GIN]
        if gins:
            return max(gins, key=lambda a: (CARD_POINTS[a.card or 0], a.card))
        knocks = [a for a in legal if a.kind is ActionKind.KNOCK]
        if ActionKind.DISCARD not in kinds:  # the fiftieth-card decision
            return self._best_knock(view.hand, knocks) if knocks else Action.pass_()
        if knocks and self._should_knock(view, know, knocks):
            return self._best_knock(view.hand, knocks)
        return Action.discard(self._discard(view, know))

    # --- drawing -----------------------------------------------------------------------

    def _wants_top(self, view: PlayerView, know: Knowledge) -> bool:
        top = view.top_discard
        if top is None:
            return False
        hand = view.hand
        now = min_deadwood(hand)
        forbidden = top if not view.rules.allow_discard_of_drawn_upcard else -1
        eleven = hand | BIT[top]
        taken = 1_000_000
        for c in cards_of(eleven):
            if c == forbidden:
                continue
            d = min_deadwood(eleven ^ BIT[c])
            if d < taken:
                taken, thrown = d, c
        if taken >= now:
            return False
        kept = eleven ^ BIT[thrown]
        melded = not (arrange(kept).deadwood >> top & 1)
        stock = now - potential(hand, now, know)
        if melded and taken < stock:
            return True
        return taken <= stock - self.clear_cut

    def _fiftieth_offer(self, view: PlayerView) -> Action:
        top = view.top_discard
        assert top is not None
        limit = view.knock_limit if view.rules.may_knock else 0
        _, after = best_discard(view.hand | BIT[top])
        return Action.draw_discard() if after <= limit else Action.pass_()

    # --- discarding --------------------------------------------------------------------

    def _discard(self, view: PlayerView, know: Knowledge) -> int:
        hand = view.hand
        forbidden = view.forbidden_discard
        options = []
        for c in cards_of(hand):
            if c == forbidden:
                continue
            options.append((min_deadwood(hand ^ BIT[c]), -CARD_POINTS[c], c))
        options.sort()
        least = options[0][0]
        candidates = [o for o in options if o[0] <= least + self.candidate_margin]
        candidates = candidates[: self.max_candidates]
        weight = self.potential_weight
        if not view.rules.may_knock:
            weight *= self.straight_potential_factor  # straight gin: only gin ends the hand
        best_score = None
        best_card = candidates[0][2]
        for deadwood, _, card in candidates:
            kept = hand ^ BIT[card]
            score = deadwood - weight * potential(kept, deadwood, know)
            score += self.danger_cost * danger(card, know.held)
            if best_score is None or score < best_score:
                best_score, best_card = score, card
        return best_card

    # --- ending the hand ---------------------------------------------------------------

    def _best_knock(self, hand: int, knocks: list[Action]) -> Action:
        def key(a: Action) -> tuple[int, int]:
            assert a.card is not None
            return (min_deadwood(hand ^ BIT[a.card]), -CARD_POINTS[a.card])

        return min(knocks, key=key)

    def _should_knock(self, view: PlayerView, know: Knowledge, knocks: list[Action]) -> bool:
        best = self._best_knock(view.hand, knocks)
        assert best.card is not None
        kept = view.hand ^ BIT[best.card]
        deadwood = min_deadwood(kept)
        if view.stock_size <= 6:
            return True
        if (
            deadwood <= self.gin_chase_deadwood
            and view.stock_size > self.gin_chase_stock
            and gin_chance(kept, know) >= self.gin_chase_odds
        ):
            # Low deadwood is also safe against the opponent's knock (likely undercut).
            return False
        turn = know.my_draws
        if turn <= self.knock_early_turns:
            return True
        # The opponent's hand improves as the hand goes on: knock only with less.
        late = turn - self.knock_early_turns
        threshold = max(self.knock_floor, view.knock_limit - self.knock_decay * late)
        # Undercut risk: cards the opponent took from the pile mostly sit in its melds.
        threshold -= self.knock_pickup_penalty * know.picked.bit_count()
        return deadwood <= threshold


__all__ = [
    "ExpertBot",
    "Knowledge",
    "danger",
    "gin_chance",
    "potential",
    "read_history",
    "read_knowledge",
]
