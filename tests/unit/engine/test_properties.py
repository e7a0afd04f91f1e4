"""Properties of every deal, whatever the seed and the choices (hypothesis)."""

from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine.actions import (
    BIG_GIN,
    DISCARDS,
    DRAW_DISCARD,
    DRAW_STOCK,
    GINS,
    KNOCKS,
    PASS,
    TAKE_UPCARD,
)
from games.engine.cards import FULL_DECK
from games.engine.deal import Deal, Termination
from games.engine.errors import IllegalActionError
from games.engine.melds import min_deadwood
from games.engine.rules import PRESETS, STANDARD

EVERY_ACTION = [TAKE_UPCARD, PASS, DRAW_STOCK, DRAW_DISCARD, BIG_GIN, *DISCARDS, *KNOCKS, *GINS]

rule_sets = st.sampled_from(
    [
        *PRESETS.values(),
        STANDARD.replace(fiftieth_card=True),
        STANDARD.replace(allow_discard_of_drawn_upcard=True),
    ]
)


def accounted_for(deal: Deal) -> bool:
    parts = [
        deal.hands[0],
        deal.hands[1],
        sum(1 << c for c in deal.stock),
        sum(1 << c for c in deal.discards),
    ]
    union = 0
    for part in parts:
        if union & part:
            return False
        union |= part
    return (
        union == FULL_DECK
        and len(deal.stock) + len(deal.discards) + sum(p.bit_count() for p in parts[:2]) == 52
    )


def state(deal: Deal):
    return (
        deal.phase,
        deal.to_act,
        list(deal.hands),
        list(deal.stock),
        list(deal.discards),
        deal.log,
    )


@settings(max_examples=120, deadline=None)
@given(st.integers(0, 2**63 - 1), st.integers(0, 1), rule_sets, st.data())
def test_every_deal_keeps_52_cards_offers_legal_moves_and_replays(seed, dealer, rules, data):
    deal = Deal.new(seed, dealer, rules)
    while not deal.is_over:
        assert accounted_for(deal)
        legal = deal.legal_actions()
        assert legal, "legal actions are never empty before the end"
        if deal.ply < 40 or deal.ply % 7 == 0:
            # apply() accepts exactly the legal actions: probe a few others
            for probe in data.draw(st.lists(st.sampled_from(EVERY_ACTION), max_size=3)):
                if probe in legal:
                    continue
                before = state(deal)
                try:
                    deal.apply(probe)
                except IllegalActionError:
                    assert state(deal) == before
                else:
                    raise AssertionError(f"{probe} was applied but is not legal")
        deal.apply(data.draw(st.sampled_from(legal)) if deal.ply < 200 else legal[-1])
    assert accounted_for(deal)
    again = Deal.replay(seed, dealer, deal.log, rules)
    assert again.outcome == deal.outcome and again.hands == deal.hands


def scored_by_the_table(deal: Deal) -> None:
    out = deal.outcome
    rules = deal.rules
    m = out.multiplier
    if out.termination is Termination.DRAW:
        assert out.winner is None and out.points == 0
        return
    if out.termination is Termination.KNOCK:
        assert out.knocker_points < out.defender_points
        assert out.points == (out.defender_points - out.knocker_points) * m
    elif out.termination is Termination.UNDERCUT:
        assert out.defender_points <= out.knocker_points
        assert out.points == (out.knocker_points - out.defender_points + rules.undercut_bonus) * m
        assert out.winner == 1 - out.knocker
    elif out.termination is Termination.GIN:
        assert out.knocker_points == 0 and out.layoffs == ()
        assert out.points == (out.defender_points + rules.gin_bonus) * m
    else:
        assert out.points == (out.defender_points + rules.big_gin_bonus) * m
    defender = 1 - out.knocker
    assert out.knocker_points <= deal.knock_limit
    own_best = min_deadwood(deal.hands[defender])
    if out.termination in (Termination.GIN, Termination.BIG_GIN):
        assert out.defender_points == own_best
    else:
        assert out.defender_points <= own_best, "lay-offs only ever help the defender"


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**63 - 1), rule_sets, st.randoms(use_true_random=False))
def test_every_ending_is_scored_by_the_table(seed, rules, rng):
    deal = Deal.new(seed, seed % 2, rules)
    while not deal.is_over:
        legal = deal.legal_actions()
        endings = [a for a in legal if a.kind.value in ("knock", "gin", "big_gin")]
        deal.apply(rng.choice(endings) if endings else rng.choice(legal))
    scored_by_the_table(deal)
