"""Rating systems as pure functions: Elo (:mod:`ratings.elo`) and Glicko-2 (:mod:`ratings.glicko2`).

No Django, no I/O: plain numbers in and out, fully typed. The ``ladders`` app keeps the pools,
the rating rows and their history and calls these to rate a finished match; ``tournaments``
seeds by the ratings it reads from ``ladders`` and imports nothing of it (see
``games.rating_hook``). ``bench/ratings.py`` measures how well each system predicts.
"""

from ratings.elo import INITIAL_RATING, MatchResult, Scoring

__all__ = ["INITIAL_RATING", "MatchResult", "Scoring"]
