"""Our engine (``games.engine``) as a bench contender.

Coded against the engine's contract: ``parse_cards`` gives card ints 0..51, hands are 52-bit
int masks, ``min_deadwood(mask) -> int`` for ten cards, ``best_discard(mask) -> (card | None,
deadwood of the kept ten)`` for eleven, and ``Deal.new(seed=, dealer=, rules=)`` with
``is_over``, ``legal_actions()``, ``apply(action)`` (validates and logs) and ``outcome``.
"""

from __future__ import annotations

import random
from importlib import import_module
from typing import Any

from . import Contender, Hand, Unavailable


def _import(name: str) -> Any:
    try:
        return import_module(name)
    except ImportError as exc:
        raise Unavailable(f"{name}: {type(exc).__name__}: {exc}") from None


def load() -> Contender:
    """Our engine, with whatever of it exists yet: hand figures need ``melds``, deal figures
    need ``deal`` and ``rules``; raises Unavailable only when neither part can run."""
    cards = _import("games.engine.cards")
    try:
        parse_cards = cards.parse_cards
    except AttributeError as exc:
        raise Unavailable(f"games.engine.cards API not as expected: {exc}") from None
    contender = Contender(name="ours", version="working tree")
    missing: list[str] = []

    def to_mask(hand: Hand) -> int:
        parsed = parse_cards(hand)
        if isinstance(parsed, int):
            return parsed
        mask = getattr(parsed, "mask", None)
        if isinstance(mask, int):
            return mask
        mask = 0
        for c in parsed:
            mask |= 1 << int(c)
        return mask

    def prepare(hands: list[Hand]) -> list[int]:
        return [to_mask(h) for h in hands]

    try:
        melds = _import("games.engine.melds")
        min_deadwood = melds.min_deadwood
        best_discard = melds.best_discard
    except (Unavailable, AttributeError) as exc:
        missing.append(f"hand figures: {exc}")
    else:

        def run_10(masks: list[int]) -> list[int]:
            return [min_deadwood(m) for m in masks]

        def run_11(masks: list[int]) -> list[int]:
            return [best_discard(m)[1] for m in masks]

        contender.prepare_10 = contender.prepare_11 = prepare
        contender.run_10 = run_10
        contender.run_11 = run_11

    try:
        Deal = _import("games.engine.deal").Deal
        STANDARD = _import("games.engine.rules").STANDARD
    except (Unavailable, AttributeError) as exc:
        missing.append(f"deal figures: {exc}")
    else:

        def play(seed: int, count: bool = False) -> int:
            rng = random.Random(seed)
            choice = rng.choice
            deal = Deal.new(seed=seed, dealer=seed & 1, rules=STANDARD)
            n = 0
            while not deal.is_over:
                deal.apply(choice(deal.legal_actions()))
                n += 1
            if deal.outcome is None:
                raise RuntimeError(f"deal {seed} is over without an outcome")
            return n

        lengths: dict[int, int] = {}  # seed -> player actions in the whole deal

        def memory_states(n: int, actions: int | None, hold: bool = True) -> list[Any]:
            held = []
            for seed in range(n):
                limit = actions
                if limit is not None and limit < 0:  # stop that many actions before the end
                    if seed not in lengths:
                        lengths[seed] = play(seed)
                    limit = max(0, lengths[seed] + limit)
                rng = random.Random(seed)
                deal = Deal.new(seed=seed, dealer=seed & 1, rules=STANDARD)
                done = 0
                while not deal.is_over and (limit is None or done < limit):
                    deal.apply(rng.choice(deal.legal_actions()))
                    done += 1
                if hold:
                    held.append(deal)
            return held

        contender.deal_kinds = {"ours": play}
        contender.memory_states = memory_states

    if len(missing) == 2:
        raise Unavailable("; ".join(missing))
    contender.notes.extend(f"ours: no {m}" for m in missing)
    return contender
