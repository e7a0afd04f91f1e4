"""The master bot: a search over the hidden cards, with fast rollouts.

Every decision with more than one sensible answer is searched by *determinization*:

1. **Sample the hidden cards** consistently with everything the seat knows
   (:func:`sample_deal`).  The seat sees its own hand, the discard pile, the cards the
   opponent picked up from the pile and still holds, and the public history; every other
   card (the *unseen* cards) is either among the opponent's hidden cards or in the stock.
   A sample deals the opponent its known cards plus the right number of unseen cards, and
   stacks the rest as the stock in a random order.  With ``weighted`` the unseen cards are
   dealt to the opponent with the expert's card-tracking odds (cards near what it picked up
   likelier, cards near what it threw or let pass less likely); without it, uniformly.
   The opponent's cards of a sample are the best of several draws of them
   (:func:`sample_deals`): the draw where its hand has the least deadwood, of one draw
   while the opponent has not drawn yet and ``picks_per_draw`` (3) more for each card it
   has drawn, up to ``opponent_picks`` (24).  A player keeps its best cards, and a random
   hand is far worse than a real one (15-28 points more deadwood on average after its third
   to fifth draw, against OpenSpiel's simple bot and the expert alike): the search
   overrated its knocks and its pick-ups.  Optionally (``fit_cost``, off by default) each
   draw is charged for the past choices of the opponent's it contradicts
   (:func:`misfits`: a card it threw or let pass that would have made a meld with two cards
   it then held).
2. **Play each candidate action out** on the same samples (common random numbers: the
   candidates are compared on identical cards), both seats then played to the end of the
   deal by a fast policy working on the sampled deal (:class:`RolloutPolicy`: the
   expert's taking and knock-timing rules on its own hand, without the card tracking,
   which costs more than a whole rollout).  The opponent's side knocks as soon as it may
   (``opponent_policy``): with the seat's own knock timing for it, the search's knocks
   where the expert would have played on lost points against both OpenSpiel's simple bot
   and the expert, and it rarely saw when the expert's own knock would be undercut.
3. **Pick the best in expectation**: the candidate with the most net points for the seat
   over the samples; the expert's own choice is kept unless another candidate beats it by
   more than ``margin`` points and by more than ``z`` standard errors of the per-sample
   differences (with several candidates the best mean is biased upwards: on 48 samples
   alone a small ``z`` let noise overrule the expert, which measured worse).  When the
   best other candidate leads the expert's choice on those samples without passing the
   test (a close call: any lead, by default), the two are played out on ``extra_samples``
   more samples (the same cards for both) and tested again on all of theirs: the rollouts
   go to the decisions in doubt, not to candidates already far behind, and with them a
   lower ``z`` (1.75) gained points.

Candidates: both answers of a draw or an offer; for a discard, the expert's best
``max_candidates`` discards by its own score, plus its best knock when a knock is legal.
Big gin and gin are taken at once; a single legal action is played without a search.

Time: ``samples`` samples per decision, and ``extra_samples`` more for the two candidates
of a close call (the same counts every time, so a decision is a pure function of the bot's
seed and the view), and a hard cap, ``time_cap`` seconds of wall
clock (``MASTER_BOT_TIME_CAP_MS`` in the environment, 1,000 ms by default), checked after
every rollout: when it trips the search stops with the samples it has (with none, the
expert's choice is played).  Only a decision that hits the cap depends on the machine's
speed.

It never reads hidden state: its input is the :class:`~games.engine.views.PlayerView`
every bot receives, and the deals it plays out are built from that view alone.
"""

from __future__ import annotations

import math
import os
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..actions import (
    BIG_GIN,
    DISCARDS,
    DRAW_DISCARD,
    DRAW_STOCK,
    GINS,
    KNOCKS,
    PASS,
    TAKE_UPCARD,
    Action,
    ActionKind,
)
from ..cards import BIT, CARD_POINTS, FULL_DECK, cards_of
from ..deal import Deal, Phase
from ..game import derive_seed
from ..melds import best_discard, discard_deadwoods, min_deadwood
from ..views import PlayerView
from . import register
from .expert import ExpertBot, Knowledge, danger, meld_reach, potential, read_knowledge

#: The hard cap on one decision, in milliseconds, when the environment does not set one.
DEFAULT_TIME_CAP_MS = 1000
TIME_CAP_ENV = "MASTER_BOT_TIME_CAP_MS"

_NO_CARD = -1
_SIMPLE_BY_KIND = {
    ActionKind.TAKE_UPCARD: TAKE_UPCARD,
    ActionKind.PASS: PASS,
    ActionKind.DRAW_STOCK: DRAW_STOCK,
    ActionKind.DRAW_DISCARD: DRAW_DISCARD,
}


# --- the sampler -------------------------------------------------------------------------


def unseen(view: PlayerView) -> tuple[int, int]:
    """``(mask, hidden)``: the cards the seat has not seen anywhere, and how many of them
    the opponent holds (the rest are the stock)."""
    assert view.seat is not None, "a spectator has no seat to sample for"
    opponent = 1 - view.seat
    pile = 0
    for card in view.discards:
        pile |= BIT[card]
    known = view.known[opponent]
    mask = FULL_DECK & ~view.hand & ~pile & ~known
    hidden = view.hand_sizes[opponent] - known.bit_count()
    return mask, hidden


def _log_of(view: PlayerView) -> tuple[bytearray, int]:
    """The deal's action codes and seat bits, rebuilt from the public history.

    Every action of a deal in progress is public but for the card of a stock draw, and a
    stock draw's action carries no card: the codes are exact.
    """
    log = bytearray()
    seats = 0
    for ply, step in enumerate(view.history):
        if step.kind is ActionKind.DISCARD:
            assert step.card is not None
            action = DISCARDS[step.card]
        else:
            action = _SIMPLE_BY_KIND[step.kind]
        log.append(action.code)
        if step.seat:
            seats |= 1 << ply
    return log, seats


def _weighted_pick(cards: list[int], weights: Sequence[float], k: int, rng: random.Random) -> int:
    """``k`` of ``cards`` without replacement, each draw in proportion to its weight."""
    pool = list(cards)
    w = [weights[c] for c in pool]
    out = 0
    for _ in range(k):
        total = sum(w)
        x = rng.random() * total
        i = 0
        last = len(pool) - 1
        while i < last and x >= w[i]:
            x -= w[i]
            i += 1
        out |= BIT[pool[i]]
        pool[i] = pool[last]
        w[i] = w[last]
        pool.pop()
        w.pop()
    return out


def sample_deal(
    view: PlayerView, rng: random.Random, weights: Sequence[float] | None = None
) -> Deal:
    """A whole deal consistent with ``view``: what the seat sees is as it is, the unseen
    cards are dealt at random (with ``weights``, per card, the opponent's share is drawn in
    proportion to them), and the history is the view's.

    The deal is at the view's ply with the view's seat to act, so it can be played on.
    """
    assert view.seat is not None and view.to_act is not None, "only a seat's live deal"
    mask, hidden = unseen(view)
    cards = cards_of(mask)
    if weights is None:
        rng.shuffle(cards)
        dealt = 0
        for card in cards[:hidden]:
            dealt |= BIT[card]
        stock = cards[hidden:]
    else:
        dealt = _weighted_pick(cards, weights, hidden, rng)
        stock = [c for c in cards if not dealt >> c & 1]
        rng.shuffle(stock)
    return _deal_of(view, dealt, stock, _log_of(view))


def _deal_of(view: PlayerView, dealt: int, stock: list[int], log: tuple[bytearray, int]) -> Deal:
    """The deal of ``view`` with the opponent's unseen cards ``dealt`` and ``stock`` in that
    order (``log``: the view's :func:`_log_of`, which the deal copies)."""
    if len(stock) != view.stock_size:
        raise ValueError("the view is inconsistent: its unseen cards do not fill the stock")
    assert view.seat is not None and view.to_act is not None, "only a seat's live deal"
    seat = view.seat
    opponent = 1 - seat
    hands = [0, 0]
    hands[seat] = view.hand
    hands[opponent] = view.known[opponent] | dealt
    deal = Deal.__new__(Deal)
    deal.rules = view.rules
    deal.seed = None
    deal.dealer = view.dealer
    deal.hands = hands
    deal.stock = bytearray(stock)
    deal.discards = bytearray(view.discards)
    deal.known = [view.known[0], view.known[1]]
    deal.phase = view.phase
    deal.to_act = view.to_act
    deal.ply = view.ply
    forbidden = view.forbidden_discard if view.to_act == seat else None
    deal.taken = _NO_CARD if forbidden is None else forbidden
    deal.upcard = view.upcard
    deal.knock_limit = view.knock_limit
    deal.multiplier = view.multiplier
    deal.outcome = None
    deal._log = bytearray(log[0])
    deal._melds_knock = None
    deal._seats = log[1]
    deal._legal = None
    deal._deck = None
    deal._history = None
    return deal


def sample_deals(
    view: PlayerView,
    rng: random.Random,
    count: int,
    *,
    weights: Sequence[float] | None = None,
    picks: int = 1,
    events: Sequence[tuple[int, int, int]] = (),
    fit_cost: float = 0.0,
) -> list[Deal]:
    """``count`` deals consistent with ``view`` (as :func:`sample_deal` makes them), each
    the likeliest of ``picks`` draws of the opponent's unseen cards: the one where its hand
    has the least deadwood, plus ``fit_cost`` points per past choice of the opponent's the
    hand contradicts (``events``, :func:`misfits`).  A player keeps its best cards, and a
    random hand is far worse than a real one."""
    assert view.seat is not None
    mask, hidden = unseen(view)
    cards = cards_of(mask)
    known = view.known[1 - view.seat]
    log = _log_of(view)
    out = []
    for _ in range(count):
        best = 0
        least = math.inf
        for _ in range(max(1, picks)):
            if weights is None:
                dealt = 0
                for card in rng.sample(cards, hidden):
                    dealt |= BIT[card]
            else:
                dealt = _weighted_pick(cards, weights, hidden, rng)
            if picks <= 1:
                best = dealt
                break
            score: float = min_deadwood(known | dealt)
            if events:
                score += fit_cost * misfits(known | dealt, events)
            if score < least:
                best, least = dealt, score
        stock = [c for c in cards if not best >> c & 1]
        rng.shuffle(stock)
        out.append(_deal_of(view, best, stock, log))
    return out


def fit_events(view: PlayerView) -> tuple[tuple[int, int, int], ...]:
    """The opponent's past choices a hand can contradict: ``(card, gone, back)`` for every
    card it threw and every card it let pass (passed the upcard, or drew from the stock
    instead of taking it), with ``gone`` the cards it took from the pile after that choice
    and ``back`` the cards it threw after it.

    Its hand at that time was its hand now less ``gone`` (and less the stock cards drawn
    since, which nobody sees) plus ``back``.
    """
    me = view.seat
    pile = [view.upcard]
    events: list[list[int]] = []
    for step in view.history:
        kind = step.kind
        mine = step.seat == me
        if kind is ActionKind.DISCARD:
            if step.card is None:
                continue
            pile.append(step.card)
            if not mine:
                for e in events:
                    if not e[1] & BIT[step.card]:  # not a card it took after that choice
                        e[2] |= BIT[step.card]
                events.append([step.card, 0, 0])
        elif kind is ActionKind.DRAW_STOCK or kind is ActionKind.PASS:
            if not mine and pile:
                events.append([pile[-1], 0, 0])
        elif (kind is ActionKind.DRAW_DISCARD or kind is ActionKind.TAKE_UPCARD) and pile:
            card = pile.pop()
            if not mine:
                for e in events:
                    e[1] |= BIT[card]
    return tuple((c, gone, back) for c, gone, back in events)


def misfits(hand: int, events: Sequence[tuple[int, int, int]]) -> int:
    """How many of the opponent's past choices ``hand`` contradicts: a card it threw or let
    pass that would have made a meld of three with two cards it then held."""
    count = 0
    for card, gone, back in events:
        if meld_reach((hand & ~gone) | back) >> card & 1:
            count += 1
    return count


# --- the rollout policy ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RolloutPolicy:
    """The fast policy both seats play in a rollout: the expert's rules for taking a card
    and timing a knock, on its own hand, without card tracking."""

    #: A pick-up that does not end in a meld must cut the deadwood by this much.
    clear_cut: int = 6
    #: Knock with anything the limit allows in the first turns, then ``knock_decay`` less
    #: a turn down to ``knock_floor``, a point less per card the opponent took.
    knock_early_turns: int = 2
    knock_decay: float = 3.5
    knock_floor: int = 1
    knock_pickup_penalty: float = 1.0
    #: Knock as soon as the limit allows (OpenSpiel's simple bot and the greedy bot do).
    knock_at_once: bool = False

    def wants(self, hand: int, top: int, forbid_top: bool) -> bool:
        """Take ``top`` into ``hand``: it lowers the deadwood and ends in a meld, or it
        cuts the deadwood by ``clear_cut`` points."""
        now = min_deadwood(hand)
        # The best nine of the ten, plus the card: the most it can do as deadwood.
        unmelded = best_discard(hand)[1] + CARD_POINTS[top]
        if not meld_reach(hand) >> top & 1:  # it melds with nothing in the hand
            return unmelded <= now - self.clear_cut
        eleven = hand | BIT[top]
        card, taken = best_discard(eleven)
        if card is None:
            taken = 0
        elif card == top and forbid_top:
            taken = min(d for c, d in discard_deadwoods(eleven) if c != top)
        if taken >= now:
            return False
        # Melded: without it the rest would be more than its points better.
        return taken <= now - self.clear_cut or taken < unmelded

    def discard(self, hand: int, forbidden: int) -> tuple[int, int]:
        """The card to throw from eleven and the deadwood left (least, then highest)."""
        card, deadwood = best_discard(hand)
        if card is not None and card != forbidden:
            return card, deadwood
        best = (1_000_000, 0, _NO_CARD)
        for c, d in discard_deadwoods(hand):
            if c != forbidden and (d, -CARD_POINTS[c], -c) < best:
                best = (d, -CARD_POINTS[c], -c)
        return -best[2], best[0]

    def knocks(self, deal: Deal, seat: int, deadwood: int) -> bool:
        """Knock now with ``deadwood`` left (already within the limit)."""
        if self.knock_at_once or len(deal.stock) <= 6:
            return True
        turn = deal.ply // 4
        if turn <= self.knock_early_turns:
            return True
        late = turn - self.knock_early_turns
        threshold = max(self.knock_floor, deal.knock_limit - self.knock_decay * late)
        threshold -= self.knock_pickup_penalty * deal.known[1 - seat].bit_count()
        return deadwood <= threshold

    def choose(self, deal: Deal) -> Action:
        """The action for the seat to act in ``deal`` (always a legal one)."""
        phase = deal.phase
        seat = deal.to_act
        hand = deal.hands[seat]
        rules = deal.rules
        if phase is Phase.DISCARD:
            if hand.bit_count() == 11 and best_discard(hand)[0] is None:
                return BIG_GIN
            card, deadwood = self.discard(hand, deal.taken)
            limit = deal.knock_limit if rules.may_knock else 0
            if deadwood == 0:
                return GINS[card]
            if deadwood <= limit and self.knocks(deal, seat, deadwood):
                return KNOCKS[card]
            return DISCARDS[card]
        if phase is Phase.DRAW:
            if deal.discards and self.wants(
                hand, deal.discards[-1], not rules.allow_discard_of_drawn_upcard
            ):
                return DRAW_DISCARD
            return DRAW_STOCK
        if phase is Phase.OFFER_NONDEALER or phase is Phase.OFFER_DEALER:
            top = deal.discards[-1]
            take = self.wants(hand, top, not rules.allow_discard_of_drawn_upcard)
            return TAKE_UPCARD if take else PASS
        if phase is Phase.FIRST_DRAW:
            return DRAW_STOCK
        if phase is Phase.FIFTIETH_OFFER:
            limit = deal.knock_limit if rules.may_knock else 0
            return DRAW_DISCARD if best_discard(hand | BIT[deal.discards[-1]])[1] <= limit else PASS
        # FIFTIETH_DECIDE: the best ending offered, or pass.
        endings = [a for a in deal.legal_actions() if a.kind is not ActionKind.PASS]
        if not endings:
            return PASS
        if BIG_GIN in endings:
            return BIG_GIN
        return min(endings, key=lambda a: min_deadwood(hand ^ BIT[a.card or 0]))


def rollout(
    deal: Deal, seat: int, policy: RolloutPolicy, opponent: RolloutPolicy | None = None
) -> int:
    """Play ``deal`` to its end with ``policy`` for both seats (``opponent``, when given, for
    the other seat); the net points for ``seat`` (positive when it scores, negative when
    the opponent does, 0 for a drawn hand)."""
    if opponent is None or opponent == policy:
        while deal.phase is not Phase.OVER:
            deal.apply(policy.choose(deal))
    else:
        policies = (policy, opponent) if seat == 0 else (opponent, policy)
        while deal.phase is not Phase.OVER:
            deal.apply(policies[deal.to_act].choose(deal))
    outcome = deal.outcome
    assert outcome is not None
    if outcome.winner is None:
        return 0
    return outcome.points if outcome.winner == seat else -outcome.points


# --- the bot -----------------------------------------------------------------------------


def _time_cap_from_env() -> float:
    raw = os.environ.get(TIME_CAP_ENV, "")
    try:
        ms = int(raw) if raw.strip() else DEFAULT_TIME_CAP_MS
    except ValueError:
        ms = DEFAULT_TIME_CAP_MS
    return max(1, ms) / 1000


@dataclass(slots=True)
class SearchReport:
    """What the last search did (for the benchmark and the tests)."""

    candidates: tuple[Action, ...] = ()
    values: tuple[float, ...] = ()  # mean net points per candidate
    samples: int = 0  # samples every candidate was played out on
    rollouts: int = 0
    capped: bool = False
    seconds: float = 0.0
    chosen: Action | None = None
    expert_choice: Action | None = None
    searched: bool = False
    overruled: bool = False  # the expert's choice was not the one played
    extra_samples: int = 0  # more samples for the best candidate and the expert's choice
    notes: list[str] = field(default_factory=list)


@register
class MasterBot(ExpertBot):
    """Searches each decision over samples of the hidden cards, with fast rollouts.

    The numbers are the defaults the benchmark was run with; subclasses (or the keyword
    arguments) may change them.
    """

    name = "master"
    description = "samples the hidden cards and plays each choice out: the strongest house bot"

    #: Samples of the hidden cards per decision (every candidate is played out on each).
    samples: int = 48
    #: Discards searched (the expert's best by its own score).
    max_search_candidates: int = 4
    #: Keep the expert's choice unless another beats it by more than ``margin`` points
    #: and by more than ``z`` standard errors of the paired differences.  With a close
    #: call's extra samples a lower ``z`` measured better (2.5, 2.0, 1.75 and 1.5: +1.8,
    #: +3.3, +4.0 and +4.4 points a deal over the expert against OpenSpiel's simple bot).
    margin: float = 0.5
    z: float = 1.75
    #: A close call (the best other candidate ahead of the expert's choice by more than
    #: ``margin`` and ``extend_z`` standard errors, but not ``z``) plays both out on
    #: ``extra_samples`` more samples before the test (0: never).  With ``extend_z`` 0
    #: every lead is a close call.
    extra_samples: int = 96
    extend_z: float = 0.0
    #: Deal the opponent's unseen cards with the card-tracking odds.
    weighted: bool = True
    #: Of this many draws of the opponent's unseen cards (at most ``1 + picks_per_draw``
    #: times the opponent's draws so far), the one where its hand has the least deadwood is
    #: played (0: every draw).
    opponent_picks: int = 24
    picks_per_draw: float = 3.0
    #: Which decisions are searched (the others are the expert's): drawing (and the
    #: first-turn offer), the choice of a discard, knocking or not.
    search_draws: bool = True
    search_discards: bool = True
    search_knocks: bool = True
    #: Deadwood points a sampled opponent hand is charged, when picking of the sampled deals,
    #: per past choice of the opponent's it contradicts (:func:`misfits`; 0: not looked at).
    fit_cost: float = 0.0
    #: The opponent's rollout policy: it knocks as soon as it may.  Against OpenSpiel's
    #: simple bot (which does) and against the expert (which waits for less deadwood after
    #: its first turns) both, it measured better than the seat's own knock timing.
    opponent_policy: RolloutPolicy = RolloutPolicy(knock_at_once=True)

    def __init__(
        self,
        seed: int = 0,
        *,
        samples: int | None = None,
        time_cap: float | None = None,
        max_search_candidates: int | None = None,
        weighted: bool | None = None,
        margin: float | None = None,
        z: float | None = None,
        search: str | None = None,
        opponent_picks: int | None = None,
        policy: RolloutPolicy | None = None,
        opponent_policy: RolloutPolicy | None = None,
        fit_cost: float | None = None,
        picks_per_draw: float | None = None,
        extra_samples: int | None = None,
        extend_z: float | None = None,
    ) -> None:
        super().__init__(seed)
        if extra_samples is not None:
            self.extra_samples = extra_samples
        if extend_z is not None:
            self.extend_z = extend_z
        if picks_per_draw is not None:
            self.picks_per_draw = picks_per_draw
        if fit_cost is not None:
            self.fit_cost = fit_cost
        if opponent_policy is not None:
            self.opponent_policy = opponent_policy
        if opponent_picks is not None:
            self.opponent_picks = opponent_picks
        if search is not None:  # e.g. "draws,discards,knocks"
            chosen = {part.strip() for part in search.split(",")}
            self.search_draws = "draws" in chosen
            self.search_discards = "discards" in chosen
            self.search_knocks = "knocks" in chosen
        if margin is not None:
            self.margin = margin
        if z is not None:
            self.z = z
        if samples is not None:
            self.samples = samples
        if max_search_candidates is not None:
            self.max_search_candidates = max_search_candidates
        if weighted is not None:
            self.weighted = weighted
        self.time_cap = _time_cap_from_env() if time_cap is None else time_cap
        self.policy = policy or RolloutPolicy()
        self.report = SearchReport()

    def choose(self, view: PlayerView) -> Action:
        """The searched action (see the module's description); ``self.report`` says how."""
        started = time.perf_counter()
        legal = view.legal_actions
        expert_choice = ExpertBot.choose(self, view)
        report = self.report = SearchReport(chosen=expert_choice, expert_choice=expert_choice)
        if len(legal) <= 1 or expert_choice.kind in (ActionKind.BIG_GIN, ActionKind.GIN):
            return expert_choice
        know = read_knowledge(view)
        candidates = self._candidates(view, know, expert_choice)
        if len(candidates) <= 1:
            return expert_choice
        rng = random.Random(
            derive_seed(self.seed, "master", view.ply, view.hand, len(view.discards))
        )
        weights = know.held if self.weighted else None
        assert view.seat is not None
        seat = view.seat
        totals = [0.0] * len(candidates)
        base_index = candidates.index(expert_choice)
        diffs: list[list[float]] = [[] for _ in candidates]  # against the expert's choice
        deadline = started + self.time_cap
        clock = time.perf_counter
        done = 0
        rollouts = 0
        events = fit_events(view) if self.fit_cost else ()
        picks = self._picks(know.opponent_draws)
        deals = sample_deals(
            view,
            rng,
            self.samples,
            weights=weights,
            picks=picks,
            events=events,
            fit_cost=self.fit_cost,
        )
        for base in deals:
            values = self._outcomes(base, candidates, seat, deadline)
            rollouts += len(values)
            if len(values) < len(candidates):
                report.capped = True
                break
            for i, v in enumerate(values):
                totals[i] += v
                diffs[i].append(v - values[base_index])
            done += 1
        report.candidates = tuple(candidates)
        report.samples = done
        report.searched = True
        if not done:
            report.rollouts = rollouts
            report.seconds = clock() - started
            return expert_choice
        means = tuple(t / done for t in totals)
        report.values = means
        best = max(range(len(candidates)), key=lambda i: means[i])
        if best != base_index and not report.capped and self._close(diffs[best]):
            # A close call between the expert's choice and the best other: both played out
            # on more samples (the same cards for both), then tested on all of them.
            extra = sample_deals(
                view,
                rng,
                self.extra_samples,
                weights=weights,
                picks=picks,
                events=events,
                fit_cost=self.fit_cost,
            )
            pair = (candidates[base_index], candidates[best])
            for base in extra:
                values = self._outcomes(base, pair, seat, deadline)
                rollouts += len(values)
                if len(values) < len(pair):
                    report.capped = True
                    break
                diffs[best].append(values[1] - values[0])
                report.extra_samples += 1
        report.rollouts = rollouts
        report.seconds = clock() - started
        if best != base_index and self._beats(diffs[best]):
            report.chosen = candidates[best]
            report.overruled = True
        return report.chosen or expert_choice

    def _picks(self, opponent_draws: int) -> int:
        """Draws of the opponent's cards per sample: more as the opponent's hand improves
        (``picks_per_draw`` more a draw it made, from one, up to ``opponent_picks``)."""
        if not self.opponent_picks:
            return 1
        return min(self.opponent_picks, 1 + round(self.picks_per_draw * opponent_draws))

    def _outcomes(
        self, base: Deal, actions: Sequence[Action], seat: int, deadline: float
    ) -> list[float]:
        """Each action played on a copy of the sampled deal ``base`` and rolled out: the seat's
        points, in order. Fewer than the actions when the time cap passed meanwhile."""
        values = []
        for action in actions:
            deal = base.copy()
            deal.apply(action)
            values.append(rollout(deal, seat, self.policy, self.opponent_policy))
            if time.perf_counter() > deadline:
                break
        return values

    def _close(self, diffs: list[float]) -> bool:
        """Whether a candidate's gains over the expert's choice are worth more samples: more
        than ``margin`` points on average and more than ``extend_z`` standard errors, but
        not yet ``z``."""
        if not self.extra_samples or len(diffs) < 2 or self._beats(diffs):
            return False
        n = len(diffs)
        mean = sum(diffs) / n
        if mean <= self.margin:
            return False
        variance = sum((d - mean) ** 2 for d in diffs) / (n - 1)
        return mean > self.extend_z * math.sqrt(variance / n)

    def _beats(self, diffs: list[float]) -> bool:
        """Whether a candidate's gains over the expert's choice (per sample, on the same
        cards) are more than ``margin`` points and more than ``z`` standard errors."""
        n = len(diffs)
        mean = sum(diffs) / n
        if mean <= self.margin:
            return False
        if n < 2:
            return True
        variance = sum((d - mean) ** 2 for d in diffs) / (n - 1)
        return mean > self.z * math.sqrt(variance / n)

    def _candidates(self, view: PlayerView, know: Knowledge, expert_choice: Action) -> list[Action]:
        """The actions worth a search: both answers of a draw or an offer; the expert's
        best discards (and best knock); the expert's own choice always among them."""
        legal = view.legal_actions
        kinds = {a.kind for a in legal}
        if ActionKind.DISCARD not in kinds:
            if ActionKind.KNOCK in kinds or ActionKind.GIN in kinds:
                # The fiftieth-card decision: the expert's ending or pass.
                return _unique([expert_choice, PASS]) if self.search_knocks else []
            # Take or pass, draw from the pile or the stock.
            return list(legal) if self.search_draws else []
        out = [expert_choice]
        knocks = [a for a in legal if a.kind is ActionKind.KNOCK]
        if knocks and self.search_knocks:
            out.append(self._best_knock(view.hand, knocks))
            if expert_choice.kind is ActionKind.KNOCK:
                out.append(DISCARDS[self._discard(view, know)])
        if self.search_discards:
            for card in self._ranked_discards(view, know):
                out.append(DISCARDS[card])
        return _unique(out)

    def _ranked_discards(self, view: PlayerView, know: Knowledge) -> list[int]:
        """The discards by the expert's score, best first (only the near-least deadwood)."""
        hand = view.hand
        forbidden = view.forbidden_discard
        options = sorted(
            (min_deadwood(hand ^ BIT[c]), -CARD_POINTS[c], c)
            for c in cards_of(hand)
            if c != forbidden
        )
        least = options[0][0]
        near = [o for o in options if o[0] <= least + self.candidate_margin]
        near = near[: max(self.max_candidates, self.max_search_candidates)]
        weight = self.potential_weight
        if not view.rules.may_knock:
            weight *= self.straight_potential_factor
        scored = []
        for deadwood, _, card in near:
            kept = hand ^ BIT[card]
            score = deadwood - weight * potential(kept, deadwood, know)
            score += self.danger_cost * danger(card, know.held)
            scored.append((score, card))
        scored.sort()
        return [card for _, card in scored[: self.max_search_candidates]]


def _unique(actions: list[Action]) -> list[Action]:
    out: list[Action] = []
    for a in actions:
        if a not in out:
            out.append(a)
    return out


__all__ = [
    "DEFAULT_TIME_CAP_MS",
    "TIME_CAP_ENV",
    "MasterBot",
    "RolloutPolicy",
    "SearchReport",
    "rollout",
    "sample_deal",
    "unseen",
]
