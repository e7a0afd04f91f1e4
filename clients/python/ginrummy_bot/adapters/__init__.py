"""Adapters that let other programs' Gin Rummy agents play on the service as external bots.

- :mod:`ginrummy_bot.adapters.openspiel_bot`: OpenSpiel's ``SimpleGinRummyBot``
  (``pyspiel.make_simple_gin_rummy_bot``);
- :mod:`ginrummy_bot.adapters.rlcard_agent`: any RLCard gin rummy agent (``step`` /
  ``eval_step`` over RLCard's state dict), its novice rule agent by default.

Neither package is a dependency of this client: install the one you use
(``pip install open-spiel`` or ``pip install rlcard``). :mod:`ginrummy_bot.adapters.cards`
maps the service's card names to each peer's card numbers, with no import of either.
"""
